-- args: --format table -
-- The catalog: one row per event, its view ('sources' collides with a
-- built-in table), and its arguments.
SELECT t.name, t.view, t.signature, group_concat(a.name || ':' || a.kind, ' ') AS args
FROM event_types t LEFT JOIN event_args a ON a.event = t.name
GROUP BY t.name ORDER BY t.name;
SELECT * FROM event_sources;
-- The arguments generically, through the args view; no row: only the header.
SELECT a.event, pos, name, kind, value FROM args a
        WHERE a.id IN (SELECT id FROM events ORDER BY id LIMIT 3) ORDER BY a.id, pos;
SELECT * FROM args WHERE id < 0;
