/*
 * traceql.h - internal interfaces of the traceql analyzer.
 *
 * traceql pulls trace events out of journald (or a journal export stream) into
 * a SQLite database whose schema lives in sql/schema.sql, then runs SQL on it.
 * The pieces, one file each:
 *
 *   traceql.c         the command line: options, subcommands, exit codes
 *   store.c           open/create a database, check its version, SQL helpers
 *   ingest.c          the row writer every importer feeds: one entry in, one
 *                     events row out, event catalog and per-event views,
 *                     batched transactions with the source position
 *   ring.c            entries from an importer's reader thread to the writer
 *   import_journal.c  the sd-journal reader (local journal, --directory, --file)
 *   import_export.c   the journal export format reader (--export FILE|-)
 *   import_text.c     the line-file driver of the text importers below
 *   import_syslog.c   RFC 3164 / RFC 5424 syslog files (--syslog FILE|-)
 *   import_log.c      log backend text, ours and QEMU's (--log FILE|-)
 *   te_pattern.c      trace-events formats as PCRE2 patterns: typed
 *                     arguments back from rendered messages
 *   query.c           runs SQL and prints table, csv, json or jsonl
 *   regexp.c          the REGEXP operator, PCRE2 with JIT
 *   correlate.c       leaks and pairs: match events by a correlator field
 *   progress.c        the progress bar of a long import on a terminal
 *
 * Conventions: functions return 0 or a negative errno; on failure the ones
 * that take a `struct tq_error *` fill it with a message naming the thing that
 * failed (the CLI prints it as "traceql: MESSAGE").  Strings passed in are
 * borrowed.  Out of memory is -ENOMEM all the way up to main().
 */
#ifndef TRACEQL_H
#define TRACEQL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sqlite3.h>

/* Exit codes of the traceql command, documented in traceql.1. */
enum tq_exit {
        TQ_EXIT_OK = 0,
        TQ_EXIT_SQL = 1,        /* the SQL failed: syntax, no such table, write refused */
        TQ_EXIT_USAGE = 2,      /* bad command line */
        TQ_EXIT_DB = 3,         /* database cannot be opened, is foreign, corrupt or of another version */
        TQ_EXIT_INPUT = 4,      /* journal cannot be read, malformed export stream */
        TQ_EXIT_NOMEM = 5,      /* out of memory */
        TQ_EXIT_CTL = 6,        /* ctl: no control endpoint, cannot connect, cut reply */
        TQ_EXIT_CTL_REQUEST = 7, /* ctl: the process answered "error ..." (refusal too) */
        TQ_EXIT_OUTPUT = 8,     /* standard output cannot be written (disk full, ...) */
        TQ_EXIT_LEAKS = 9,      /* leaks: it found unfreed allocations */
};

#define TQ_MAX_ARGS 10          /* trace-events allows at most 10 arguments */
#define TQ_SCHEMA_VERSION 4     /* PRAGMA user_version and meta.schema_version */
#define TQ_APPLICATION_ID 0x54514c31    /* PRAGMA application_id, "TQL1" */
#define STORE_PAGE_SIZE 16384   /* PRAGMA page_size of a new database */
/* events.id of a journal entry: jid << TQ_ID_SEQ_BITS | jseq (sql/schema.sql);
 * ids below TQ_ID_PACKED are numbered in import order. */
#define TQ_ID_SEQ_BITS 44
#define TQ_ID_PACKED ((int64_t) 1 << TQ_ID_SEQ_BITS)
#define TQ_ID_MAX_JID (((int64_t) 1 << (63 - TQ_ID_SEQ_BITS)) - 1)

/* A failure message for the user, already naming the file or input. */
struct tq_error {
        char msg[1024];
};

int tq_error_set(struct tq_error *err, int r, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/* Print "traceql: MESSAGE" and a newline on stderr, MESSAGE escaped as
 * tq_error_set() escapes it: for a message that quotes the command line. */
void tq_message(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- progress.c: the import progress bar on a terminal ---- */
/* ON: stderr is a terminal and the import ends (not --follow); until then
 * the functions below do nothing. */
void tq_progress_enable(bool on);
/* An import starts, to read from FROM up to TO (any unit: bytes, journal
 * times; TO <= FROM unknown, no percentage); false when there is no bar to
 * draw.  tq_progress_range() sets them once known. */
bool tq_progress_begin(uint64_t from, uint64_t to);
void tq_progress_range(uint64_t from, uint64_t to);
/* What the bar says it imports, after "importing" (a query's sync of several
 * sources: "source ID (I of N)"); NULL or "" for nothing.  Kept until
 * changed. */
void tq_progress_label(const char *label);
struct ingest;
/* The writer, after an entry of ING: the import is AT in its range.  Costs a
 * test when there is no bar; ING's count is read only to draw it. */
void tq_progress(uint64_t at, const struct ingest *ing);
/* Print LINE on stderr (NULL: nothing), the bar's line cleared first. */
void tq_progress_say(const char *line);
/* The import is over: the bar goes (ingest_end()). */
void tq_progress_end(void);

struct option;

/* The option of LONGOPTS that the word ARG ("--name" or "--name=value")
 * gives, as getopt_long() reads it: the name, or an abbreviation of one
 * name (or of several that mean the same: has_arg, flag and val alike).
 * NULL for any other word; then *RET_AMBIGUOUS, when RET_AMBIGUOUS is not
 * NULL, tells whether ARG abbreviates several options (getopt_long()
 * refuses it), else it is false. */
const struct option *tq_option_find(const char *arg, const struct option *longopts,
                                    bool *ret_ambiguous);

/* Is the word ARG SQL that begins with a "--" comment rather than a long
 * option: "--" followed by a name (up to any '=') that holds white space (a
 * space, tab, newline, CR or form feed), which no option's name does? */
bool tq_option_is_sql(const char *arg);

/* Print on stderr why getopt_long() just returned '?' for ARGV with
 * LONGOPTS (traceql's options are all long): an unknown option, an
 * ambiguous abbreviation (naming the options it may be), one that needs a
 * value, or one given a value it does not take.  The caller has set opterr
 * to 0: getopt_long() itself said nothing. */
void tq_option_error(char **argv, const struct option *longopts);

/* The exit status once a --help or --version text is written to stdout:
 * TQ_EXIT_OUTPUT, said on stderr, when stdout could not take it (a full
 * disk), else TQ_EXIT_OK. */
int tq_stdout_done(void);

/* ---- sql_embed.c (generated by sql/embed.sh) ---- */
struct tq_sql_file {
        const char *name;       /* base name without .sql, e.g. "schema" */
        const char *text;
};
extern const struct tq_sql_file tq_sql_files[];
const char *tq_sql_get(const char *name);       /* NULL when not embedded */

/* ---- store.c ---- */
enum {
        STORE_READONLY = 0,
        STORE_WRITE = 1 << 0,   /* open read-write, create the schema when new */
        STORE_IMPORT = 1 << 1,  /* an import: wait for another import's end, however
                                 * long (said after 2 s), not STORE_BUSY_MS */
};

/*
 * Open the database at PATH.  Read-only unless STORE_WRITE; with STORE_WRITE
 * a missing file is created with the schema.  Checks it is a traceql
 * database of TQ_SCHEMA_VERSION, turns on defensive mode and
 * trusted_schema=OFF, registers the SQL functions (u64, ptr, ns_time, regexp).
 * Returns 0 and the handle in *ret_db (close with sqlite3_close_v2), or -errno
 * with ERR filled.
 */
int store_open(const char *path, int flags, sqlite3 **ret_db, struct tq_error *err);

/* As store_open(), and *RET_CREATED (on success) says whether this call made
 * the file, for store_close().  A database it made and could not set up (a
 * full disk) is removed as store_close() says. */
int store_open_created(const char *path, int flags, sqlite3 **ret_db, bool *ret_created,
                       struct tq_error *err);

/* Close DB (NULL is fine).  DISCARD: this process made its file and the
 * import, sync or query it was made for failed; then, when the database
 * holds nothing stored (no event, no journal_suppressed row: a source row
 * may be there) and no other process has it open, the file and
 * its -wal, -shm and -journal are removed: the failure leaves no database
 * where there was none.  Otherwise, and whenever a step fails, it is only
 * closed.  Says nothing. */
void store_close(sqlite3 *db, bool discard);

/* Whether this user may write the database at PATH and the -wal and -shm
 * files beside it that exist: 0 when it may (or PATH is missing or
 * ":memory:", which a write creates), else -EACCES, -EPERM or -EROFS with
 * ERR = "FILE: not writable (reason)" naming the first file it may not
 * write.  A query's sync would fail on its first write ("attempt to write a
 * readonly database"); a read-only connection reads such a database. */
int store_writable(const char *path, struct tq_error *err);

/* The integer SQL (a PRAGMA, a SELECT) gives first, in *RET_VALUE; 0, or
 * -EIO with ERR = "PATH: sqlite message". */
int store_int(sqlite3 *db, const char *sql, int64_t *ret_value, struct tq_error *err);

/* The -errno of SQLite result code RC: -ENOSPC for a full disk, -ENXIO for a
 * disk I/O error (the database's failure, not the SQL's), -ENOMEM, else -EIO. */
int store_errno(int rc);

/* Run SQL that returns no rows; -EIO with ERR = "PATH: sqlite message"
 * (-ENOSPC or -ENXIO as store_errno() says). */
int store_exec(sqlite3 *db, const char *sql, struct tq_error *err);

/* An import's wait for another import's turn (STORE_IMPORT) ends when
 * *STOP (set by a signal handler: import --follow) is set: the statement
 * then fails SQLITE_BUSY, 'database is locked'.  STOP is borrowed. */
void store_stop_waiting(atomic_int *stop);

/* The default database path: $TRACEQL_DB, else $XDG_CACHE_HOME/traceql/
 * traceql.db, else ~/.cache/traceql/traceql.db; creates the directory.
 * Returns 0 and a malloc'ed path in *ret_path. */
int store_default_path(char **ret_path, struct tq_error *err);
/* --db's value ARG: 0, or -EINVAL, said, for "", which SQLite would take
 * for a private temporary database removed at exit (an import into it
 * would say it imported). */
int store_db_arg(const char *arg);

/*
 * Forget the sources IDS[0..N) of DB (distinct ids), in one transaction: the
 * sync before a query no longer replays them, their rows stay, and an import
 * of the same source starts a new source (TQ_SOURCE_FORGOTTEN).  A source
 * forgotten already is left as it is, RET_ALREADY[i] set (N of them).  An id
 * with no source fails the whole: -ENOENT with ERR "DB: no source ID ...",
 * nothing changed; so does any other failure (query_error()'s -errno).
 */
int store_forget(sqlite3 *db, const int64_t *ids, size_t n, bool *ret_already,
                 struct tq_error *err);

/* The file name of DB, for messages. Borrowed from SQLite. */
const char *store_name(sqlite3 *db);

/* ---- regexp.c ---- */
/* Register REGEXP (PCRE2, JIT, each pattern compiled once per statement). */
int regexp_register(sqlite3 *db);

/* ---- ingest.c ---- */

/* A field value copied into the entry's buffer: offset and length. */
struct ingest_str {
        uint32_t off;
        uint32_t len;
        bool set;
};

struct ingest_arg_field {
        struct ingest_str name;         /* "REQ" from TRACE_ARG_REQ */
        struct ingest_str value;
};

/*
 * One journal entry as the importers hand it to ingest_entry(): fields are
 * copied into BUF (reused from entry to entry, so no malloc per row).
 */
struct ingest_entry {
        char *buf;
        size_t len, size;
        size_t kept;                    /* bytes of ingest_entry_keep() fields, from buf */
        struct ingest_str event, message, host, boot, group, identifier;
        struct ingest_str code_file, code_func, argsig, dropped, message_id;
        struct ingest_str transport;    /* _TRANSPORT: "driver" for journald's own */
        struct ingest_str seqnum_id;    /* journal identity: s= of the cursor */
        struct ingest_str cursor;       /* the whole cursor, when known */
        struct ingest_str bad_int;      /* the first NAME=value of a numeric common field
                                           whose value is no number: its column NULL */
        uint64_t bad_int_line;          /* its line in the importer's file, 0 unknown */
        bool argsig_guessed;            /* TRACE_ARGS holds kinds guessed from the
                                           values (an undeclared ftrace event): a
                                           later guess may differ, and is no news */
        int64_t time, mono, pid, tid, seq, code_line, jseq;
        int64_t realtime_us, monotonic_us;      /* journald's own timestamps */
        bool has_time, has_mono, has_pid, has_tid, has_seq, has_code_line, has_jseq;
        bool has_realtime, has_monotonic;
        struct ingest_arg_field args[16];
        unsigned nargs;
        unsigned nargs_all;             /* TRACE_ARG_ fields, those past args[] too */
};

void ingest_entry_reset(struct ingest_entry *e);
void ingest_entry_free(struct ingest_entry *e);
/* Add one "NAME=value" field (LEN bytes, value may hold any byte); fields
 * traceql does not use are ignored.  Returns 0, -ENOMEM, or -E2BIG when the
 * entry would hold 2 GiB or more (every field is copied).  DATA must not
 * point into E's buffer, which adding a field may move (so for every
 * function here that copies into an entry). */
int ingest_entry_add(struct ingest_entry *e, const char *data, size_t len);
/* Set the journal identity from a cursor string ("s=...;i=...;..."), and
 * keep the cursor. */
int ingest_entry_set_cursor(struct ingest_entry *e, const char *cursor, size_t len);
/*
 * For an importer that reads in one thread and writes in another: the reader
 * keeps each field NAME DATA (NAME "" when DATA is the whole "NAME=value";
 * e.g. "__CURSOR=" and a cursor) with ingest_entry_keep(), a copy and no
 * more, into an entry whose len and kept are 0 (ingest_entry_reset() makes
 * them so); the writer turns them into the entry with ingest_entry_parse(),
 * as ingest_entry_add() would have.
 */
int ingest_entry_keep(struct ingest_entry *e, const char *name, size_t nlen, const char *data,
                      size_t len);
/* ingest_entry_keep(E, "", 0, DATA, LEN), inline while the buffer has room:
 * the journal reader keeps some 17 fields an entry, and the calls were 4% of
 * its thread's instructions (callgrind). */
static inline int ingest_entry_keep_field(struct ingest_entry *e, const char *data, size_t len)
{
        uint32_t n = (uint32_t) len;

        if (len > UINT32_MAX / 2 || e->size - e->len < sizeof(n) + len + 1)
                return ingest_entry_keep(e, "", 0, data, len);
        memcpy(e->buf + e->len, &n, sizeof(n));
        memcpy(e->buf + e->len + sizeof(n), data, len);
        e->buf[e->len + sizeof(n) + len] = '\0';
        e->len += sizeof(n) + len + 1;
        e->kept = e->len;
        return 0;
}
int ingest_entry_parse(struct ingest_entry *e);
/* Parse P[0..N) as hex with an optional 0x prefix (as pointers and cursor
 * numbers are written), at most 64 bits; false when it is not that. */
bool ingest_parse_hex(const char *p, size_t n, int64_t *ret);
/* Parse a whole decimal number: digits only, a '-' before them allowed,
 * leading zeros too, from -2^63 up to UINT64_MAX (kept as its 64-bit
 * pattern); false for anything else (a blank, '+', a byte after them). */
bool ingest_parse_i64(const char *p, size_t n, int64_t *ret);
/* False for a trusted field ("_NAME=...": _EXE, _CMDLINE, _SYSTEMD_CGROUP,
 * ...) that ingest_entry_add() would ignore whatever its value, which a
 * reader need not copy, and for a "__NAME" one (an address field such as
 * __CURSOR, which only the reader itself may give); true for every other
 * field. */
bool ingest_field_used(const char *data, size_t len);

struct ingest;

/*
 * Start writing into DB for the source (KIND, LOCATION, FILTER), created in
 * the sources table when new.  Opens the first transaction.  *ret_cursor and
 * *ret_offset (either may be NULL) get where the source stopped last time
 * (cursor malloc'ed or NULL; offset -1 when none).
 */
int ingest_begin(sqlite3 *db, const char *kind, const char *location, const char *filter,
                 struct ingest **ret_ing, char **ret_cursor, int64_t *ret_offset,
                 struct tq_error *err);
/* Name the input NAME (borrowed; "-" for standard input) in ING's notes, as
 * its import's errors do, rather than by the source's location. */
void ingest_set_name(struct ingest *ing, const char *name);

/* Record WINDOW (the journal import's --since/--until/--boot as
 * sources.window, NULL for none) with the source, in the open transaction. */
int ingest_set_window(struct ingest *ing, const char *window, struct tq_error *err);

/* The file of ING's source is not the one imported before (replaced, or
 * rotated and a new file under its name): the source's row keeps its rows
 * and position under the filter 'replaced ID' (its own id), where
 * ingest_find_renamed() can find them, and a new row takes its key. */
int ingest_retire_source(struct ingest *ing, struct tq_error *err);
/* Before E is stored again whole: delete the row stored for it by an earlier
 * import, when its entry has gone on since (lines appended to an ftrace
 * file's last entry): the latest row with E's event, pid, tid and monotonic
 * time of the source the import resumed from (its own, or the one
 * ingest_find_renamed() found); the summary does not count E new.
 * Returns 1 when such a row was deleted, 0 when none matched, or -errno. */
int ingest_unstore(struct ingest *ing, const struct ingest_entry *e, struct tq_error *err);
/* The location of ING's source, as its sources row has it.  Borrowed. */
const char *ingest_location(const struct ingest *ing);
/* Is the regular file FD (SIZE bytes) one imported before under another
 * name (logrotate's y.log.1 of y.log)?  The source of ING's kind, not ING's,
 * with the largest offset whose fingerprint the file's bytes before that
 * offset have: its offset and location (malloc'ed) in *RET_OFFSET and
 * *RET_LOCATION; 0 and NULL when there is none. */
int ingest_find_renamed(struct ingest *ing, int fd, int64_t size, int64_t *ret_offset,
                        char **ret_location, struct tq_error *err);

/* Store one entry: an events row when it has TRACE_EVENT, a
 * journal_suppressed row for journald's "Suppressed N messages", nothing
 * otherwise.  Duplicates (same journal identity) are ignored.  events rows are
 * queued and inserted a batch at a time (E may be reused at once); an error
 * of the insert shows in the call that completes the batch, or in
 * ingest_commit(), ingest_end().  Returns 0 or -errno with ERR filled. */
int ingest_entry(struct ingest *ing, const struct ingest_entry *e, struct tq_error *err);

/* Remember the source position (CURSOR may be NULL, OFFSET -1 for none) to be
 * stored with the next commit. */
int ingest_set_position(struct ingest *ing, const char *cursor, int64_t offset);

/* Commit the rows and the position, and open the next transaction. */
int ingest_commit(struct ingest *ing, struct tq_error *err);

/* Commit the rows and the position, and leave the database to other
 * connections until the next ingest_entry(), ingest_commit() or ingest_end()
 * opens a transaction again: an import that waits for more input (import
 * --follow) must not hold the write lock meanwhile.  Nothing happens when
 * there is no transaction open. */
int ingest_idle(struct ingest *ing, struct tq_error *err);

/* Rows added so far, for the progress bar: rows still queued in a batch are
 * not counted yet (ingest_end() gives the exact count). */
uint64_t ingest_added(const struct ingest *ing);

/* Commit (COMMIT true; then *RET_ADDED, unless NULL, gets the rows this
 * import added) or roll back, and free ING; accepts NULL. */
int ingest_end(struct ingest *ing, bool commit, uint64_t *ret_added, struct tq_error *err);

/* ---- ring.c: entries from a reader thread to the writer ---- */
struct ring;

/* A slot: an entry (KIND RING_ENTRY), or a note from the reader. */
enum {
        RING_ENTRY,
        RING_IDLE,                      /* caught up, commit now */
        RING_SIDE,                      /* ring.c's: a side ring begins (ring_side()) */
        RING_SIDE_END,                  /* the reader's part is over: the side ring's rest next */
};
struct ring_slot {
        struct ingest_entry e;
        uint64_t aux;                   /* the reader's, e.g. the entry's journald time */
        int kind;
        bool parsed;                    /* the reader parsed e (ingest_entry_parse()) */
        size_t held;                    /* ring.c's: the buffer's size when filled */
};

/*
 * An importer in two threads: READ runs in a thread of its own and reads its
 * input into slots until the end: ring_get() a free slot (NULL when the
 * writer failed, or no slot could be allocated: return ring_error()), fill
 * its entry, ring_put() it; a slot not put is filled again.  ring_note()
 * puts a slot of KIND with nothing in it (false where ring_get() gives
 * NULL); ring_quitting() tells a reader that waits for input to give up.
 * READ returns 0, or -errno with its ERR filled.  The calling thread gives
 * every slot, in order, to WRITE (ring_write_entry(): ingest_entry() of the
 * RING_ENTRY slots into the struct ingest WRITE_DATA, and tq_progress() at
 * the slot's aux, the input's byte offset after its entry).  ring_run() returns
 * 0, WRITE's failure, or else READ's (ERR filled).
 */
typedef int (*ring_reader_fn)(struct ring *r, void *read_data, struct tq_error *err);
typedef int (*ring_writer_fn)(struct ring_slot *slot, void *write_data, struct tq_error *err);
int ring_run(ring_reader_fn read, void *read_data, ring_writer_fn write, void *write_data,
             struct tq_error *err);
int ring_write_entry(struct ring_slot *slot, void *ing, struct tq_error *err);
struct ring_slot *ring_get(struct ring *r);
int ring_error(const struct ring *r);
void ring_put(struct ring *r);
bool ring_note(struct ring *r, int kind);
bool ring_quitting(struct ring *r);
/*
 * A second reader, for a reader that splits its input in two (the journal
 * importer): ring_side() gives the reader a side ring, which a thread of
 * its own fills with ring_get() and ring_put() and closes with ring_end(),
 * and tells the writer through a RING_SIDE note.  The writer then takes
 * slots from both rings, in the order each holds them, interleaved: the
 * side's are for what comes after the reader's part.  When the reader puts
 * a RING_SIDE_END note (given to WRITE like any slot), or ends, the writer
 * takes only the side ring's slots, to its end, then the reader's again.
 * ring_quit() stops both readers (ring_get() gives NULL once it waits for
 * room; a side reader should also look at a flag of its own); the side ring
 * is freed with the reader's, after ring_run() joined the reader, which
 * joins its side thread first.  NULL when out of memory, or the writer quit.
 */
struct ring *ring_side(struct ring *r);
void ring_end(struct ring *r);
void ring_quit(struct ring *r);

/* ---- import_journal.c ---- */
struct import_journal_opts {
        const char *directory;          /* --directory, NULL for the local journal */
        char **files;                   /* --file ..., NULL-terminated, or NULL */
        char **identifiers;             /* --identifier ..., NULL-terminated, or NULL */
        const char *boot;               /* --boot: 32 hex digits, or NULL */
        uint64_t since_us;              /* --since, 0 for none */
        uint64_t until_us;              /* --until, when has_until */
        bool has_until;
        bool follow;
        atomic_int *stop;               /* set by a signal handler to end --follow */
        const char *filter;             /* the sync's: the source's filter as stored, else
                                         * built from identifiers and boot */
};

/* Import what is new in the journal; *ret_added the rows added. */
int import_journal(sqlite3 *db, const struct import_journal_opts *o, uint64_t *ret_added,
                   struct tq_error *err);

/* How long a statement waits for another process's write lock (ms). */
#define STORE_BUSY_MS 10000

/*
 * Is a sources row one that `traceql forget` detached?  An SQL expression
 * on its columns.  Its filter became 'forgotten ID' (its own id, as a file
 * source replaced is 'replaced ID'), then, when it had one, a newline and
 * the filter it had: the sync no longer replays it, and an import of the
 * same source makes a new row, the key (kind, location, filter) being free.
 * sql/sources.sql says it again.
 */
#define TQ_SOURCE_FORGOTTEN \
        "(filter = 'forgotten ' || id OR " \
        "substr(filter, 1, length(id) + 11) = 'forgotten ' || id || char(10))"

/* Bring DB up to date: replay every journal import recorded in its sources
 * table (same directory, files, identifiers) but those forgotten, or, when
 * it has no source at all, import the local journal.  *ret_any tells whether
 * it had sources.  A --directory or --file source whose journal cannot be
 * opened fails with ERR naming the source and the way out (forget,
 * --no-sync).  When another process's import keeps DB locked for 2 s,
 * nothing is synced, said on stderr, and 0 is returned: the query reads what
 * is committed. */
int import_journal_sync(sqlite3 *db, bool *ret_any, struct tq_error *err);

/* ---- import_export.c ---- */
/* A line of a text import (--export, --syslog, --log, --ftrace, a --log
 * event or --ftrace entry joined from several lines) holds at most so many
 * bytes before its newline: a longer one is a broken file, not one to read
 * whole into memory.  (A xentrace formats file's, fewer: XEN_FORMATS_MAX_LINE.) */
#define IMPORT_MAX_LINE ((size_t) 256 << 20)
/* IMPORT_MAX_LINE, or the smaller cap $TRACEQL_TEST_MAX_LINE gives (tests). */
size_t import_max_line(void);
/* getline() of F into *LINE (*SIZE bytes, grown as needed, the caller's to
 * free), but at most MAX bytes before the newline: the buffer grows to MAX
 * and 2 bytes (3 with CRLF), no further.  CRLF: the caller drops a CR before
 * the newline, which is then not one of the MAX (a CRLF line holds as much
 * as its LF twin).  The line's length, newline included; 0 at the end of F
 * or on a read error (ferror() tells); -ENOMEM; -E2BIG when the line goes on
 * past MAX bytes, said as soon as byte MAX + 1 is read (MAX + 2 when byte
 * MAX + 1 is a CR). */
ssize_t import_getline(FILE *f, char **line, size_t *size, size_t max, bool crlf);
/* ERR "NAME:LINENO: line too long (more than MAX bytes without a newline)";
 * -EBADMSG. */
int import_line_too_long(const char *name, uint64_t lineno, size_t max, struct tq_error *err);
/* Open PATH for an import ("-" is stdin): *RET_NAME for messages ("<stdin>"),
 * REAL (PATH_MAX bytes) the canonical path a source is recorded under. */
int import_open(const char *path, FILE **ret_f, const char **ret_name, char *real,
                struct tq_error *err);
/* Import an export stream from PATH ("-" for stdin), all in one transaction:
 * a malformed stream imports nothing and fails with ERR "PATH:LINE: why". */
int import_export(sqlite3 *db, const char *path, uint64_t *ret_added, struct tq_error *err);
/* The same on an open stream F (borrowed, not closed): NAME for messages,
 * LOCATION the source's identity in the database.  Resumes by offset only
 * when F is a regular file.  The fuzz target feeds it an fmemopen() buffer. */
int import_export_stream(sqlite3 *db, FILE *f, const char *name, const char *location,
                         uint64_t *ret_added, struct tq_error *err);

/* ---- te_pattern.c ---- */
struct te_patterns;

/* An empty set of event patterns; -ENOMEM.  Free with te_patterns_free(),
 * which accepts NULL. */
int te_patterns_new(struct te_patterns **ret);
void te_patterns_free(struct te_patterns *p);
/* Read the trace-events file PATH from F (tracegen's parser); a bad file
 * fails with -EINVAL and ERR "PATH:LINE:COL: why". */
int te_patterns_add(struct te_patterns *p, const char *path, FILE *f, struct tq_error *err);
/* te_patterns_add() for each of the NULL-terminated FILES ("-": te_events_open()). */
int te_patterns_load(struct te_patterns *p, char *const *files, struct tq_error *err);
size_t te_patterns_count(const struct te_patterns *p);
/* The "name:k ..." signature of EVENT (LEN bytes), NULL when not declared. */
const char *te_patterns_signature(const struct te_patterns *p, const char *event, size_t len);
/* The newlines in the format of EVENT (LEN bytes), 0 when not declared.  P
 * may be NULL. */
unsigned te_patterns_newlines(struct te_patterns *p, const char *event, size_t len);
/*
 * MSG is "<event> <rendered format>": when the event is declared and the rest
 * matches its format, add TRACE_EVENT, TRACE_ARGS and the TRACE_ARG_ fields to
 * E and return 1; 0 when not (E untouched); -ENOMEM.  P may be NULL.
 */
int te_patterns_match(struct te_patterns *p, const char *msg, size_t len, struct ingest_entry *e);

/* ---- import_text.c, import_syslog.c, import_log.c ---- */

/* What a line parser shares with the driver. */
struct import_text {
        struct te_patterns *patterns;   /* --events, NULL when none were given */
        int64_t ref_time;               /* unix seconds the file was last written: year inference */
        char *field;                    /* scratch for "NAME=value" fields */
        size_t field_size;
        char *value;                    /* scratch for unescaped values */
        size_t value_size;
        int year_mon, year_mday, year_hour;     /* cache of import_syslog's local time: */
        int64_t year_base;                      /* the hour last converted, and its time */
        uint64_t recovered;             /* lines whose event was recognised */
        uint64_t unmatched;             /* lines kept with event '' */
        uint64_t cut;                   /* RFC 5424 lines that end inside STRUCTURED-DATA */
        unsigned repeat;                /* set by the line parser: the line holds this many
                                         * entries alike (rsyslog's "message repeated N
                                         * times"); 0 or 1: one */
};

/* Parse one line (LEN bytes, no newline) into E.  Returns 0 for an entry,
 * 1 for a line that holds none (empty), -EBADMSG with ERR "why" (the driver
 * adds PATH:LINE), -ENOMEM. */
typedef int (*import_text_line_fn)(struct import_text *t, const char *line, size_t len,
                                   struct ingest_entry *e, struct tq_error *err);
/* How many of the lines after LINE (LEN bytes) belong to its entry. */
typedef unsigned (*import_text_more_fn)(struct import_text *t, const char *line, size_t len);

/* A text format: the kind of source it is recorded as, its line parser, and
 * how many lines after a line belong to its entry (NULL: none). */
struct import_text_format {
        const char *kind;
        import_text_line_fn line;
        import_text_more_fn more;
};
extern const struct import_text_format import_syslog_format, import_log_format;

struct import_text_stats {
        uint64_t lines;                 /* lines read (this run) */
        uint64_t added;                 /* rows added */
        uint64_t recovered;             /* of which with a recognised event */
        uint64_t unmatched;             /* of which with event '' */
        uint64_t cut;                   /* of which cut short inside STRUCTURED-DATA */
        bool incomplete;                /* a last line without newline was left for later */
        bool incomplete_event;          /* ... or the lines of an event but the first */
};

/* Add "NAME=" + S[0..N) to E; UNESCAPE decodes rsyslog's #ooo control
 * character escapes.  0 or -ENOMEM.  S must not point into E's buffer or
 * T's scratch (both may move): copy it out first. */
int import_text_field(struct import_text *t, struct ingest_entry *e, const char *name,
                      const char *s, size_t n, bool unescape);
/* import_text_field() of the decimal V. */
int import_text_field_int(struct import_text *t, struct ingest_entry *e, const char *name,
                          int64_t v);
/* Recognise the message already in E (its MESSAGE) with T's patterns, or
 * mark it as event ''.  0 or -ENOMEM. */
int import_text_recognise(struct import_text *t, struct ingest_entry *e);
/* Parse an RFC 3339 / ISO 8601 time at S (LEN bytes): *RET_NS, *RET_USED the
 * bytes read.  -EINVAL when it is not one. */
int import_text_iso8601(const char *s, size_t len, bool need_zone, int64_t *ret_ns,
                        size_t *ret_used);

/* Import the text file PATH ("-" for stdin) in format FMT, recording it as a
 * source of FMT's kind; EVENTS the trace-events files (NULL-terminated, or
 * NULL).  One transaction: a bad line fails with ERR "PATH:LINE: why" and
 * imports nothing.  A regular file resumes at the offset stored last time. */
int import_text_file(sqlite3 *db, const struct import_text_format *fmt, const char *path,
                     char *const *events, struct import_text_stats *ret_stats,
                     struct tq_error *err);

/* import_text_file() on the open stream F: NAME for messages, LOCATION for
 * the sources table ("-" stores no offset), PATTERNS borrowed (may be NULL),
 * REF_TIME for the RFC 3164 year. */
int import_text_stream(sqlite3 *db, const struct import_text_format *fmt, FILE *f,
                       const char *name, const char *location, struct te_patterns *patterns,
                       int64_t ref_time, struct import_text_stats *ret_stats,
                       struct tq_error *err);

/* ---- te_catalog.c: trace-events files for the binary and text importers ---- */
struct te_catalog;
struct te_event;
struct te_arg;

/* One argument value: an integer U, or, when STR is set, LEN bytes of text;
 * ABSENT when the source did not have it (no field stored). */
struct tq_value {
        uint64_t u;
        const char *str;
        size_t len;
        bool absent;
};

struct te_list;
/* Parse the trace-events file PATH (read from F) into LIST with tracegen's
 * parser; -EINVAL with ERR "FILE:LINE:COL: why" (its first message) when it
 * does not parse.  Shared by te_catalog.c and te_pattern.c. */
int te_list_load(struct te_list *list, const char *path, FILE *f, struct tq_error *err);
int te_catalog_new(struct te_catalog **ret_cat);
void te_catalog_free(struct te_catalog *cat);      /* accepts NULL */
/* Add the events of the trace-events file PATH (read from F, or opened);
 * -EINVAL with ERR "FILE:LINE:COL: why" when it does not parse. */
int te_catalog_add(struct te_catalog *cat, const char *path, FILE *f, struct tq_error *err);
int te_catalog_add_path(struct te_catalog *cat, const char *path, struct tq_error *err);
/* Open the trace-events file PATH, "-" standard input (read once, kept, so
 * that it opens again); *RET_NAME is its name in errors, "<stdin>" for it. */
int te_events_open(const char *path, FILE **ret_f, const char **ret_name, struct tq_error *err);
/* The declaration of event NAME (LEN bytes), borrowed; NULL when unknown or CAT is NULL. */
const struct te_event *te_catalog_find(const struct te_catalog *cat, const char *name, size_t len);
char te_catalog_kind(const struct te_arg *a);      /* 'i', 'u', 'p' or 's' */
/* Whether the plain printf format S (N bytes) ends inside a conversion:
 * there a PRI macro is its length and letter, elsewhere the text
 * <inttypes.h> gives it (te_catalog_pri_text(); NULL for no such macro). */
bool te_catalog_in_conv(const char *s, size_t n);
const char *te_catalog_pri_text(const char *name, size_t len);
/* The UTF-8 bytes of the universal character name at P ("\\u00e9" or
 * "\\U0001f600", checked by te_format.c) into BUF, at most 4; their count. */
size_t te_catalog_ucn(const char *p, char *buf);
bool te_catalog_is_string(const struct te_arg *a); /* by the type, as QEMU's simple backend */
/* "<event> <format rendered with V>", to free with sqlite3_free; NULL: no memory. */
char *te_catalog_render(const struct te_event *ev, const struct tq_value *v, unsigned n);
/* Add field NAME=VALUE (LEN bytes) to E; 0 or -ENOMEM. */
int te_catalog_field(struct ingest_entry *e, const char *name, const char *value, size_t len);
int te_catalog_field_int(struct ingest_entry *e, const char *name, int64_t v);
/* Add TRACE_EVENT, TRACE_ARGS, the TRACE_ARG_ fields and MESSAGE of event EV
 * with values V (EV's nargs of them). */
int te_catalog_entry(struct ingest_entry *e, const struct te_event *ev, const struct tq_value *v);

/* ---- import_file.c: one binary or text file, one transaction ---- */

/*
 * A file source's fingerprint, kept in its cursor: FNV-1a (64 bits) over the
 * first and the last IMPORT_PRINT_BYTES of what was imported (they overlap
 * in a short file), as "fnv1a64:" and 16 hex digits.  A file whose bytes
 * before the stored offset no longer have it was replaced or rotated, and is
 * imported from the start.
 */
#define IMPORT_PRINT_BYTES 4096
#define IMPORT_PRINT_SIZE 32
#define IMPORT_PRINT_INIT 1469598103934665603ULL
/* The fingerprint of the first SIZE bytes of the file FD, read with
 * pread(), in RET; -EIO when the file no longer has them. */
int import_print_fd(int fd, int64_t size, char ret[IMPORT_PRINT_SIZE]);
/* Are the first OFFSET bytes of the file FD (SIZE bytes) those with the
 * fingerprint CURSOR (NULL: stored by an older traceql, taken on trust)? */
bool import_file_has(int fd, int64_t size, int64_t offset, const char *cursor);
/* Is the file FD (SIZE bytes), whose source stopped at OFFSET with the
 * fingerprint CURSOR (NULL: an older traceql's, taken on trust), the file
 * imported before?  Else import_not_same() said so. */
bool import_same_file(int fd, int64_t size, int64_t offset, const char *cursor, const char *name);
/*
 * Where to resume the regular file FD (SIZE bytes; NAME in messages) whose
 * source, ING's, stopped at OFFSET (0 or -1: new) with fingerprint CURSOR:
 * OFFSET when it is still the file imported there.  Else a source with
 * another file is retired (ingest_retire_source()), and the file may be one
 * imported before under another name (logrotate renamed y.log to y.log.1):
 * where that source stopped, saying so on stderr; else 0, saying the file is
 * imported from the start when it had a source.
 */
int import_resume(struct ingest *ing, int fd, int64_t size, int64_t offset, const char *cursor,
                  const char *name, int64_t *ret_offset, struct tq_error *err);
/* Say on stderr that NAME is not the file imported before (SHORTER than
 * its offset, or other bytes) and is imported from the start. */
void import_not_same(const char *name, bool shorter);
/*
 * Parse DATA[0..SIZE) of the file NAME into ING; records that start before
 * SKIP were imported before and are read but not stored.  RET_USED, not NULL
 * for a regular file (which a writer may be in the middle of), is set to
 * where the whole records end when the last one is cut short by the end of
 * the file, what there is of it being a valid start: it is left for the next
 * import.  With RET_USED NULL (standard input, a pipe: read once) such a
 * record is an error.  Errors are "NAME:OFFSET: why" or "NAME:LINE: why".
 */
typedef int (*import_file_parse_fn)(struct ingest *ing, const void *ctx, const char *name,
                                    const uint8_t *data, size_t size, int64_t skip,
                                    size_t *ret_used, struct tq_error *err);

/* Map PATH, import it as source KIND with PARSE in one transaction (nothing
 * stored on failure), remember the size parsed so the next import of the
 * same file only adds what was appended; a last record cut short is left for
 * it, saying so on stderr (a text format, MAX_LINE not 0, says so itself).
 * Standard input ("-") and a file that does not
 * tell its size are copied to an unlinked file in $TMPDIR (else /tmp) and
 * that is mapped; a directory where none can be made, or a disk that fills,
 * fails naming the directory.  MAX_LINE: 0 for a binary format; for a text
 * one (ftrace) its cap on a line (import_max_line()), which the copy keeps to
 * as it is read: the copy stops a little past the cap in a longer line, which
 * the parser finds too long, after any error in the lines before it, as in a
 * mapped file (import_line_too_long()'s message when it does not). */
int import_file(sqlite3 *db, const char *kind, const char *path, size_t max_line,
                import_file_parse_fn parse, const void *ctx, uint64_t *ret_added,
                struct tq_error *err);

/* ---- import_simpletrace.c ---- */
int import_simpletrace_parse(struct ingest *ing, const void *cat, const char *name,
                             const uint8_t *data, size_t size, int64_t skip, size_t *ret_used,
                             struct tq_error *err);
int import_simpletrace(sqlite3 *db, const char *path, const struct te_catalog *cat,
                       uint64_t *ret_added, struct tq_error *err);

/* ---- import_ftrace.c ---- */
/* The tracefs `trace` text; CAT (may be NULL) types our own marker lines,
 * PATTERNS (may be NULL) QEMU's ftrace backend markers, both from the
 * --events files (NULL-terminated EVENTS, or NULL).  WHOLE: DATA is all
 * there will be (standard input, read once), its last line parsed with or
 * without its newline; else (a file) one without it is left alone.  The
 * fuzz target drives both. */
int import_ftrace_parse(struct ingest *ing, const struct te_catalog *cat,
                        struct te_patterns *patterns, const char *name, const uint8_t *data,
                        size_t size, int64_t skip, bool whole, struct tq_error *err);
int import_ftrace(sqlite3 *db, const char *path, const struct te_catalog *cat,
                  char *const *events, uint64_t *ret_added, struct tq_error *err);

/* ---- import_xentrace.c ---- */
struct xen_ctx;
/* Load the xentrace formats file PATH (read from F, or opened; PATH NULL:
 * none) into *RET_CTX, to free with import_xentrace_free (accepts NULL). */
int import_xentrace_formats(struct xen_ctx **ret_ctx, const char *path, FILE *f,
                            struct tq_error *err);
void import_xentrace_free(struct xen_ctx *c);
/* CTX: a struct xen_ctx, or NULL for no formats. */
int import_xentrace_parse(struct ingest *ing, const void *ctx, const char *name,
                          const uint8_t *data, size_t size, int64_t skip, size_t *ret_used,
                          struct tq_error *err);
int import_xentrace(sqlite3 *db, const char *path, const char *formats, uint64_t *ret_added,
                    struct tq_error *err);

/* ---- query.c ---- */
enum query_format {
        QUERY_TABLE,
        QUERY_CSV,
        QUERY_JSON,
        QUERY_JSONL,
};

int query_format_parse(const char *s, enum query_format *ret_format);

/* Length of the well-formed UTF-8 sequence at P (N >= 1 bytes left), 1 for
 * an ASCII byte, 0 when the bytes there are not UTF-8 (a stray, cut,
 * overlong or surrogate sequence, or past U+10FFFF). */
size_t query_utf8_len(const unsigned char *p, size_t n);
bool query_utf8_c1(const unsigned char *p, size_t len);

/* P[0..N) for display, malloc'ed (NULL when out of memory): control
 * characters (NUL too) and bytes that are not well-formed UTF-8 written
 * \xHH, \n and \t as such; the result is valid UTF-8 without control
 * characters.  The table's cells and messages quoting a user's bytes. */
char *query_escape(const unsigned char *p, size_t n);

/* Run every statement of SQL, printing rows to OUT.  On failure ERR says
 * "DBFILE: sqlite message"; -EIO for SQL errors, -ENOMEM, -ENOSPC or -ENXIO
 * when the disk is full or fails (store_errno()). */
int query_run(sqlite3 *db, const char *sql, enum query_format format, FILE *out,
              struct tq_error *err);

/* query_run(), but in jsonl each row is written as {"KEY":ROW}, so that the
 * rows of several sections on one stream (leaks, pairs) say whose they are;
 * KEY (borrowed) is escaped as a JSON string.  The other formats ignore it. */
int query_run_keyed(sqlite3 *db, const char *sql, enum query_format format, const char *key,
                    FILE *out, struct tq_error *err);

/* ERR = "DBFILE: sqlite message" for a statement of DB that failed with RC
 * (extended), and its -errno: -ENOMEM; -EROFS, a write on a read-only
 * connection; -EUCLEAN, a damaged page (the database's failure, as when it
 * cannot be opened); -ENOSPC or -ENXIO (store_errno()); else -EIO, the
 * SQL's. */
int query_error(sqlite3 *db, int rc, struct tq_error *err);

/* ---- correlate.c ---- */
/* traceql leaks / traceql pairs: ARGV without the subcommand word; returns
 * the exit code (2 from leaks when it found unfreed allocations). */
int correlate_main(int argc, char **argv, bool pairs);

/* The option of leaks or pairs that the word ARG ("--name" or
 * "--name=value") gives, as their getopt_long() reads it (tq_option_find());
 * NULL for any other word, an ambiguous abbreviation too. */
const struct option *correlate_option(const char *arg);

/* ---- ctl.c ---- */
/* traceql ctl PID COMMAND [ARG]: ARGV[0] is "ctl".  Returns an exit code. */
int ctl_main(int argc, char **argv);

#endif /* TRACEQL_H */
