-- events.sql - `traceql events`: every event with its count, first and last
-- time (UTC) and argument names.
SELECT e.event AS event, count(*) AS count,
       ns_time(min(e.time)) AS first, ns_time(max(e.time)) AS last,
       coalesce((SELECT group_concat(name, ' ')
                 FROM (SELECT name FROM event_args a WHERE a.event = e.event ORDER BY pos)),
                '') AS args
FROM events e
GROUP BY e.event
ORDER BY e.event;
