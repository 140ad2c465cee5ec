-- sources.sql - `traceql sources`: where the rows come from.  One row per
-- source (sources table, schema.sql): its id (for `traceql forget`), kind,
-- location and filter as stored, the rows it added, the time of its last
-- commit (UTC), and whether the sync before a query replays it: a journal
-- source not forgotten.  A forgotten source's filter is 'forgotten ID',
-- then a newline and the filter it had (TQ_SOURCE_FORGOTTEN in
-- analyzer/traceql.h says the same).
SELECT id, kind, location, filter, rows, ns_time(updated) AS updated,
       CASE WHEN kind = 'journal' AND NOT
                 (filter = 'forgotten ' || id OR
                  substr(filter, 1, length(id) + 11) = 'forgotten ' || id || char(10))
            THEN 'yes' ELSE 'no' END AS synced
FROM sources
ORDER BY id;
