-- migrate1.sql - schema version 1 to 2.
--
-- traceql runs this, in one transaction, when it opens a version 1 database
-- for writing.  Version 2 keeps a journal entry's identity in events.id (jid
-- << 44 | jseq, see schema.sql) instead of in a unique index over every row;
-- the index stays only for the identities that do not pack.  Rows without a
-- journal identity keep their ids, which are all below 2^44.
UPDATE events SET id = jid << 44 | jseq
        WHERE jid BETWEEN 1 AND 524287 AND jseq BETWEEN 1 AND 17592186044415;
DROP INDEX events_journal_key;
CREATE UNIQUE INDEX events_journal_key ON events (jid, jseq)
        WHERE id < 17592186044416 AND jid IS NOT NULL;
UPDATE meta SET value = '2' WHERE key = 'schema_version';
PRAGMA user_version = 2;
