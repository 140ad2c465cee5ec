-- migrate3.sql - schema version 3 to 4.
--
-- traceql runs this, in one transaction, when it opens a version 3 database
-- for writing (after migrate1.sql and migrate2.sql for older ones).
-- Version 4 adds events_seq1, the partial index on the events that tell
-- where each process's trace begins (see schema.sql); building it reads the
-- events once.
CREATE INDEX events_seq1 ON events (pid) WHERE seq = 1 OR seq IS NULL;
UPDATE meta SET value = '4' WHERE key = 'schema_version';
PRAGMA user_version = 4;
