-- schema.sql - the traceql database, schema version 4.
--
-- traceql runs this once on a new database, in one transaction.  Everything
-- later analyzers (losses, leaks, pairs) build on is here; the per-event views
-- are created by traceql while importing (analyzer/ingest.c), one per event
-- type, from the event_types/event_args catalog.
--
-- A database is recognised by PRAGMA application_id = 0x54514c31 ("TQL1") and
-- its version by PRAGMA user_version (also in meta.schema_version); traceql
-- refuses a database of another version instead of guessing.
--
-- Integers: signed and unsigned arguments and pointers are stored as SQLite
-- INTEGER.  An unsigned value above INT64_MAX (a 64-bit address, -1 cast to
-- uint64_t) is stored as the same 64-bit pattern, i.e. as a negative integer
-- in two's complement, so equality and joins between events are exact.  Show
-- it with u64(x) (unsigned decimal text) or ptr(x) ('0x...' hex text); write it
-- in SQL as a hex literal (0xffffffffffffffff), which SQLite reads as the same
-- 64-bit pattern.
PRAGMA application_id = 1414614065;
PRAGMA user_version = 4;

-- Key/value facts about the database: schema_version, created (unix ns),
-- traceql_version that created it.
CREATE TABLE meta (
        key     TEXT PRIMARY KEY,
        value   TEXT NOT NULL
) WITHOUT ROWID;

-- Where rows come from, and where each import stopped, so the next one
-- resumes.  The position is written in the same transaction as the rows.
CREATE TABLE sources (
        id       INTEGER PRIMARY KEY,
        kind     TEXT NOT NULL,         -- 'journal' (sd-journal API) or 'export' (export format)
        location TEXT NOT NULL,         -- '' local journal, 'dir:PATH', 'files:PATH...', export PATH or '-'
        filter   TEXT NOT NULL,         -- identifiers the import was narrowed to, comma-separated, '' all;
                                        -- a file's source once its file was replaced: 'replaced ID'
        cursor   TEXT,                  -- journal: of each seqnum id, the cursor of its last entry
                                        -- imported, one a line (older traceql: one); files (syslog,
                                        -- log, simpletrace, ftrace, xentrace): 'fnv1a64:' and the hex
                                        -- FNV-1a of the first and last 4 KiB before offset, to
                                        -- tell the file imported from a replaced or rotated one
        offset   INTEGER,               -- export, text and trace files: byte offset after what was read
        rows     INTEGER NOT NULL DEFAULT 0,    -- rows this source added, all imports
        updated  INTEGER,               -- unix ns of the last commit
        window   TEXT,                  -- journal: the window of its last import, replayed by a
                                        -- query's sync: 'since=US', 'until=US', 'boot=ID' (µs,
                                        -- 32 hex digits), blank-separated; NULL for none
        UNIQUE (kind, location, filter)
);

-- Journal sequence-number ids (s= of a cursor, __SEQNUM_ID), interned.
CREATE TABLE seqnum_ids (
        id        INTEGER PRIMARY KEY,
        seqnum_id TEXT NOT NULL UNIQUE
);

-- One row per trace event, whatever the source.
--
-- The id of a journal entry is its journal identity packed into one integer,
-- jid << 44 | jseq, so the table's own b-tree turns away a second copy of an
-- entry (INSERT OR IGNORE) and no unique index has to be kept up to date
-- while importing.  Rows without a journal identity (syslog, log,
-- simpletrace, ftrace, xentrace files) number from 1 upwards below 2^44, in
-- import order; so do the rare journal entries whose identity does not pack
-- (jid >= 2^19 or jseq outside 1..2^44-1), which events_journal_key keeps
-- unique instead.
CREATE TABLE events (
        id         INTEGER PRIMARY KEY, -- jid << 44 | jseq, or below 2^44 (see above)
        time       INTEGER,     -- CLOCK_REALTIME ns at the call (TRACE_TIME_NS; else journald's receive time)
        mono       INTEGER,     -- CLOCK_MONOTONIC ns at the call (TRACE_MONO_NS), NULL when unknown
        host       TEXT,        -- _HOSTNAME
        boot       TEXT,        -- _BOOT_ID, 32 hex digits
        pid        INTEGER,     -- _PID
        tid        INTEGER,     -- TID, the calling thread
        event      TEXT NOT NULL,       -- TRACE_EVENT
        message    TEXT,        -- MESSAGE: "<event> <rendered format>"
        seq        INTEGER,     -- TRACE_SEQ, per-process; a gap means lost events
        source     INTEGER NOT NULL REFERENCES sources (id),
        "group"    TEXT,        -- TRACE_GROUP
        identifier TEXT,        -- SYSLOG_IDENTIFIER
        code_file  TEXT,        -- CODE_FILE, CODE_LINE, CODE_FUNC: the call site
        code_line  INTEGER,
        code_func  TEXT,
        jid        INTEGER REFERENCES seqnum_ids (id),  -- journal identity of the entry:
        jseq       INTEGER,     -- (seqnum id, seqnum); NULL when the source has none
        -- The arguments in declared order, typed: INTEGER for i, u, p kinds,
        -- TEXT for strings (NULL for a NULL string).  Names in event_args.
        a0, a1, a2, a3, a4, a5, a6, a7, a8, a9
);
CREATE UNIQUE INDEX events_journal_key ON events (jid, jseq)
        WHERE id < 17592186044416 AND jid IS NOT NULL;
CREATE INDEX events_event ON events (event);
-- Where each process's trace begins: its events of TRACE_SEQ 1 and those
-- without one, a few rows of the whole table, which traceql leaks and pairs
-- look up first (analyzer/correlate.c, corr_seq1_sql, whose WHERE is this
-- one word for word, or SQLite does not use the index).  Without it that
-- look-up read every row: 0.16 s of 1.3 s for 1M events.
CREATE INDEX events_seq1 ON events (pid) WHERE seq = 1 OR seq IS NULL;

-- The catalog: one row per event name seen, with the view that names its
-- arguments.  The first signature seen wins; a later entry's argument of
-- another kind is stored as its own TRACE_ARGS says, and the import warns.
CREATE TABLE event_types (
        name      TEXT PRIMARY KEY,     -- the event name
        view      TEXT UNIQUE,          -- its view: the name, 'event_<name>' on a collision,
                                        -- NULL when the name is not a C identifier
        nargs     INTEGER NOT NULL,
        signature TEXT NOT NULL         -- TRACE_ARGS, e.g. 'req:p sector:u nb:i name:s'
) WITHOUT ROWID;

CREATE TABLE event_args (
        event   TEXT NOT NULL REFERENCES event_types (name),
        pos     INTEGER NOT NULL,       -- 0-based: the value is in events.a<pos>
        name    TEXT NOT NULL,          -- declared argument name, the view column
        kind    TEXT NOT NULL,          -- 'i' signed, 'u' unsigned, 'p' pointer, 's' string
        PRIMARY KEY (event, pos)
) WITHOUT ROWID;

-- journald's own "Suppressed N messages from UNIT" entries (rate limiting):
-- events that never reached the journal.
CREATE TABLE journal_suppressed (
        id      INTEGER PRIMARY KEY,
        time    INTEGER,        -- journald's time of the entry, ns
        host    TEXT,
        boot    TEXT,
        count   INTEGER,        -- N, messages dropped
        message TEXT,           -- the whole message, naming the unit or cgroup
        source  INTEGER NOT NULL REFERENCES sources (id),
        jid     INTEGER REFERENCES seqnum_ids (id),
        jseq    INTEGER
);
CREATE UNIQUE INDEX journal_suppressed_key ON journal_suppressed (jid, jseq);

-- The arguments generically: one row per (event row, argument).
CREATE VIEW args AS
        SELECT e.id AS id, e.event AS event, a.pos AS pos, a.name AS name, a.kind AS kind,
               CASE a.pos WHEN 0 THEN e.a0 WHEN 1 THEN e.a1 WHEN 2 THEN e.a2
                          WHEN 3 THEN e.a3 WHEN 4 THEN e.a4 WHEN 5 THEN e.a5
                          WHEN 6 THEN e.a6 WHEN 7 THEN e.a7 WHEN 8 THEN e.a8
                          ELSE e.a9 END AS value
        FROM events e JOIN event_args a ON a.event = e.event;
