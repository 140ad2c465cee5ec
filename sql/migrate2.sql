-- migrate2.sql - schema version 2 to 3.
--
-- traceql runs this, in one transaction, when it opens a version 2 database
-- for writing (after migrate1.sql for a version 1 one).  Version 3 keeps
-- the --since/--until/--boot window of each journal source's last import
-- (sources.window), so that the sync before a query replays it instead of
-- widening it.  Sources of before have none: the sync brings every entry
-- after their position, as it did.
ALTER TABLE sources ADD COLUMN window TEXT;
UPDATE meta SET value = '3' WHERE key = 'schema_version';
PRAGMA user_version = 3;
