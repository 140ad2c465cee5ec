/*
 * ingest.c - the row writer behind every traceql importer.
 *
 * An importer collects one journal entry's fields into a `struct
 * ingest_entry` (copied into a buffer reused for every entry, so importing
 * does no malloc per row) and hands it to ingest_entry(), which turns it into
 * one `events` row through a prepared statement.  The arguments are stored
 * positionally in a0..a9, typed from the entry's TRACE_ARGS signature
 * ("req:p sector:u nb:i name:s"); the first time an event name is seen, it is
 * entered in the event_types/event_args catalog and gets its view, all in the
 * same transaction as the rows.
 *
 * Rows are queued and inserted INGEST_BATCH at a time by one multi-row INSERT
 * (ingest_flush()): SQLite's fixed cost of running a statement (opening and
 * closing cursors on the table and its index, halting the VDBE) is then paid
 * once per batch instead of once per row, about a third of the instructions
 * of a one-row insert.  A queued row keeps its text values in a buffer of the
 * batch, so the importer may reuse its entry at once.
 *
 * Rows are written in transactions that the importer commits every so often
 * with ingest_commit(); the source's position (journal cursor, file offset) is
 * updated in the same transaction, so an import killed at any moment leaves
 * rows and position consistent and the next import resumes where the last
 * commit stopped.  A journal entry's row id is its journal identity (seqnum
 * id, seqnum) packed into one integer, so re-importing the same entry, from
 * any source, is a no-op (INSERT OR IGNORE) without a unique index to keep up
 * to date; see sql/schema.sql.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "traceql.h"

/* Past this many bytes of WAL frames, a commit waits for the checkpointer,
 * so that the WAL starts over (see ingest_ckpt_ask()).  The WAL file is as
 * large as the most it held, and removing it at the end frees its blocks:
 * on a file system mounted with online discard (cloud disks often are) that
 * waits for the discard of each, 44 ms for a WAL of 26 MB here, 7% of an
 * import of 100k journal entries, which never let its WAL start over with
 * 64 MiB.  With 4 MiB a commit of 10k entries (about 3 MB of frames) waits
 * for a checkpoint every other time, which the ring absorbs: the import took
 * 679 ms at best of 11 rounds against 715 ms (bench/import.sh's entries). */
#define INGEST_WAL_BYTES (4 << 20)

/* Rows per multi-row INSERT (see above); INGEST_COLS parameters each.  A
 * batch holding INGEST_BATCH_TEXT bytes of text goes in early, so that huge
 * values do not pile up. */
#define INGEST_BATCH 16
#define INGEST_COLS 28
#define INGEST_BATCH_TEXT (16u << 20)
#define INGEST_TEXT_FIRST 16384         /* the batch's text buffer to start with */

/* journald's "Suppressed N messages from UNIT" (SD_MESSAGE_JOURNAL_DROPPED). */
#define INGEST_SUPPRESSED_ID "fe6faa94e7774663a0da52717891d8ef"

/* Columns every per-event view shows, as in the events table. */
static const char *const ingest_common[] = {
        "id", "time", "mono", "host", "boot", "pid", "tid", "event", "message", "seq",
        "source", "group", "identifier", "code_file", "code_line", "code_func",
};
#define INGEST_NCOMMON (sizeof(ingest_common) / sizeof(ingest_common[0]))

/* One argument of a signature, pointing into the entry buffer. */
struct ingest_sigarg {
        const char *name;
        size_t len;
        char kind;              /* 'i', 'u', 'p', 's' */
        const struct ingest_str *value; /* the TRACE_ARG_ field, NULL when absent */
};

/* A catalogued event: its name and its columns (event_args.name, by pos),
 * the order an entry's arguments are stored in (ingest_args_order()). */
struct ingest_type {
        char *name;
        unsigned ncols;
        char *cols[TQ_MAX_ARGS];
        size_t lens[TQ_MAX_ARGS];       /* strlen() of each, kept: matched per row */
        char kinds[TQ_MAX_ARGS];        /* event_args.kind of each */
        char *signature;                /* event_types.signature */
        bool warned;                    /* ingest_kinds_check() said so, this import */
};

/* One queued parameter of a row: NULL, an integer, or text at OFF in the
 * batch's buffer. */
struct ingest_val {
        enum { INGEST_NULL, INGEST_INT, INGEST_TEXT } type;
        int len;
        union {
                int64_t i;
                size_t off;
        };
};

struct ingest_row {
        struct ingest_val v[INGEST_COLS];
};

/* The checkpointer: a thread with a connection of its own (ingest_ckpt_ask()). */
struct ingest_ckpt {
        sqlite3 *db;
        pthread_t thread;
        pthread_mutex_t lock;
        pthread_cond_t cond;
        uint64_t asked, done;           /* checkpoints asked for, finished */
        bool stop;
};

struct ingest {
        sqlite3 *db;
        struct ingest_ckpt *ckpt;       /* NULL before the first commit, or without one */
        bool ckpt_tried;
        int wal_frames;                 /* in the WAL after the last commit */
        int wal_limit;                  /* frames: INGEST_WAL_BYTES; $TRACEQL_TEST_WAL_FRAMES */
        int64_t source;                 /* sources.id */
        const char *kind, *location, *filter;   /* its key, borrowed */
        const char *name;               /* the input as its errors name it, borrowed:
                                         * ingest_set_name(), else location */
        int64_t last_id;                /* the last events.id numbered below TQ_ID_PACKED */
        sqlite3_stmt *insert, *suppressed, *sid_get, *sid_put, *position;
        sqlite3_stmt *insert_batch;     /* INGEST_BATCH rows in one statement */
        struct ingest_row rows[INGEST_BATCH];   /* queued, not yet inserted */
        size_t nrows;
        char *text;                     /* the queued rows' text values */
        size_t text_len, text_size;
        char last_sid[40];              /* the seqnum id last interned, and its id */
        size_t last_sid_len;            /* its length: an export's may hold a NUL */
        int64_t last_jid;
        struct ingest_type **types;     /* events known to have a catalog entry: */
        size_t ntypes, types_size;      /* open addressing, size a power of two */
        char *cursor;                   /* position to store at the next commit */
        int64_t offset;
        bool position_set;
        bool idle;                      /* committed, no transaction open (ingest_idle()) */
        uint64_t added, uncommitted;
        uint64_t again;                 /* rows stored again (ingest_unstore()), in added */
        int64_t renamed_from;           /* ingest_find_renamed()'s source, 0 for none */
        uint64_t bad_ints;              /* entries stored with a bad_int field */
        char bad_int[80];               /* the first one's NAME=value, cut */
        char bad_where[PATH_MAX + 64];  /* and where: ", at FILE:LINE", ", in the entry
                                           CURSOR", or "" */
};

/* ---- entries ---------------------------------------------------------- */

void ingest_entry_reset(struct ingest_entry *e)
{
        char *buf = e->buf;
        size_t size = e->size;

        memset(e, 0, sizeof(*e));
        e->buf = buf;
        e->size = size;
}

void ingest_entry_free(struct ingest_entry *e)
{
        if (!e)
                return;
        free(e->buf);
        e->buf = NULL;
        e->size = e->len = 0;
}

/* Make room for N more bytes after LEN in *BUF (*SIZE bytes, or 0 for none
 * yet: then FIRST), doubling; an entry stays below 2 GiB. */
static int ingest_grow(char **buf, size_t *size, size_t len, size_t n, size_t first)
{
        size_t s;
        char *b;

        if (n > UINT32_MAX / 2 || len > UINT32_MAX / 2)
                return -E2BIG;
        if (len + n <= *size)
                return 0;
        s = *size ? *size : first;
        while (s < len + n)
                s *= 2;
        b = realloc(*buf, s);
        if (!b)
                return -ENOMEM;
        *buf = b;
        *size = s;
        return 0;
}

/* Make room for N more bytes in the entry's buffer. */
static int ingest_reserve(struct ingest_entry *e, size_t n)
{
        return ingest_grow(&e->buf, &e->size, e->len, n, 512);
}

/* Copy P[0..N) into the buffer with a NUL after it. */
static int ingest_copy(struct ingest_entry *e, const char *p, size_t n, struct ingest_str *ret)
{
        int r = ingest_reserve(e, n + 1);

        if (r < 0)
                return r;
        memcpy(e->buf + e->len, p, n);
        e->buf[e->len + n] = '\0';
        ret->off = (uint32_t) e->len;
        ret->len = (uint32_t) n;
        ret->set = true;
        e->len += n + 1;
        return 0;
}

bool ingest_parse_i64(const char *p, size_t n, int64_t *ret)
{
        uint64_t v = 0;
        bool neg = false;
        size_t i = 0;

        if (n > 0 && p[0] == '-') {
                neg = true;
                i = 1;
        }
        if (i == n)
                return false;
        /* no cap on the digits: leading zeros are the same number, and the
         * check below finds a value past 64 bits however long it is */
        for (; i < n; i++) {
                unsigned d = (unsigned char) p[i] - '0';

                if (d > 9 || v > (UINT64_MAX - d) / 10)
                        return false;
                v = v * 10 + d;
        }
        if (neg) {
                if (v > (uint64_t) INT64_MAX + 1)
                        return false;
                *ret = (int64_t) (0 - v);
        } else
                *ret = (int64_t) v;     /* above INT64_MAX: the same 64-bit pattern */
        return true;
}

bool ingest_parse_hex(const char *p, size_t n, int64_t *ret)
{
        uint64_t v = 0;
        size_t i = 0;

        if (n >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
                i = 2;
        if (i == n || n - i > 16)
                return false;
        for (; i < n; i++) {
                unsigned c = (unsigned char) p[i], d;

                if (c >= '0' && c <= '9')
                        d = c - '0';
                else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
                        d = (c | 0x20) - 'a' + 10;
                else
                        return false;
                v = v << 4 | d;
        }
        *ret = (int64_t) v;
        return true;
}

#define NAME_IS(lit) (memcmp(data, lit, sizeof(lit) - 1) == 0)

/*
 * Field names are dispatched on their length first: an entry has some thirty
 * fields, most of which (journald's trusted fields) traceql does not keep,
 * and a length rarely matches, so most fields cost one switch.
 */

/* The integer field NAME (NLEN bytes) is parsed into: its value and flag;
 * false when traceql does not keep it. */
static bool ingest_entry_int(struct ingest_entry *e, const char *data, size_t nlen,
                             int64_t **ret_v, bool **ret_has)
{
#define INT_FIELD(lit, field) \
        if (NAME_IS(lit)) { \
                *ret_v = &e->field; \
                *ret_has = &e->has_##field; \
                return true; \
        }
        switch (nlen) {
        case 3:
                INT_FIELD("TID", tid);
                break;
        case 4:
                INT_FIELD("_PID", pid);
                break;
        case 8:
                INT_FIELD("__SEQNUM", jseq);
                break;
        case 9:
                INT_FIELD("TRACE_SEQ", seq);
                INT_FIELD("CODE_LINE", code_line);
                break;
        case 13:
                INT_FIELD("TRACE_TIME_NS", time);
                INT_FIELD("TRACE_MONO_NS", mono);
                break;
        case 20:
                if (NAME_IS("__REALTIME_TIMESTAMP")) {
                        *ret_v = &e->realtime_us;
                        *ret_has = &e->has_realtime;
                        return true;
                }
                break;
        case 21:
                if (NAME_IS("__MONOTONIC_TIMESTAMP")) {
                        *ret_v = &e->monotonic_us;
                        *ret_has = &e->has_monotonic;
                        return true;
                }
                break;
        }
        return false;
#undef INT_FIELD
}

/* Which string slot a field name goes to, NULL when traceql does not keep it. */
static struct ingest_str *ingest_entry_slot(struct ingest_entry *e, const char *data, size_t nlen)
{
#define STR_FIELD(lit, field) \
        if (NAME_IS(lit)) \
                return &e->field
        switch (nlen) {
        case 7:
                STR_FIELD("MESSAGE", message);
                break;
        case 8:
                STR_FIELD("_BOOT_ID", boot);
                break;
        case 9:
                STR_FIELD("CODE_FILE", code_file);
                STR_FIELD("CODE_FUNC", code_func);
                STR_FIELD("_HOSTNAME", host);
                break;
        case 10:
                STR_FIELD("MESSAGE_ID", message_id);
                STR_FIELD("_TRANSPORT", transport);
                STR_FIELD("TRACE_ARGS", argsig);
                break;
        case 11:
                STR_FIELD("TRACE_EVENT", event);
                STR_FIELD("TRACE_GROUP", group);
                STR_FIELD("__SEQNUM_ID", seqnum_id);
                break;
        case 13:
                STR_FIELD("TRACE_DROPPED", dropped);
                break;
        case 17:
                STR_FIELD("SYSLOG_IDENTIFIER", identifier);
                break;
        }
        return NULL;
#undef STR_FIELD
}

bool ingest_field_used(const char *data, size_t len)
{
        static struct ingest_entry probe;       /* the lookups only take addresses in it */
        const char *eq;
        size_t nlen;
        int64_t *x;
        bool *has;

        if (len == 0 || data[0] != '_')
                return true;    /* only trusted fields, "_NAME", are left out */
        /* Most of an entry's fields are trusted ones traceql does not keep
         * (_UID, _COMM, _CMDLINE, _SYSTEMD_UNIT...): those whose second
         * character none of the kept ones has (_PID, _BOOT_ID, _HOSTNAME,
         * _TRANSPORT) are turned away before any lookup, and so are "__"
         * ones (journald stores none; one in a journal file, from a forged
         * export, must not stand in for the reader's own __CURSOR).  A trusted
         * field added to ingest_entry_slot() or ingest_entry_int() adds its
         * second character here. */
        if (len < 2)
                return false;
        switch (data[1]) {
        case 'P': case 'B': case 'H': case 'T':
                break;
        default:
                return false;
        }
        eq = memchr(data, '=', len);
        if (!eq)
                return true;
        nlen = (size_t) (eq - data);
        return ingest_entry_slot(&probe, data, nlen) ||
               ingest_entry_int(&probe, data, nlen, &x, &has);
}

static int ingest_entry_cursor_at(struct ingest_entry *e, uint32_t off, uint32_t len);

/* Dispatch the field "NAME=value" at OFF (LEN bytes, a NUL after them) in
 * the entry's buffer: its value is used where it lies. */
static int ingest_entry_field(struct ingest_entry *e, uint32_t off, uint32_t len)
{
        char *data = e->buf + off;
        const char *eq = memchr(data, '=', len);
        struct ingest_str *slot;
        uint32_t nlen, voff, vlen;
        int64_t *x;
        bool *has;

        if (!eq || eq == data)
                return 0;
        nlen = (uint32_t) (eq - data);
        voff = off + nlen + 1;
        vlen = len - nlen - 1;
        if (nlen > 10 && memcmp(data, "TRACE_ARG_", 10) == 0) {
                struct ingest_arg_field *a;

                e->nargs_all++;
                if (e->nargs >= sizeof(e->args) / sizeof(e->args[0]))
                        return 0;       /* past what an entry holds: counted only */
                a = &e->args[e->nargs++];
                data[nlen] = '\0';     /* the name ends where '=' was */
                a->name = (struct ingest_str) { .off = off + 10, .len = nlen - 10, .set = true };
                a->value = (struct ingest_str) { .off = voff, .len = vlen, .set = true };
                return 0;
        }
        slot = ingest_entry_slot(e, data, nlen);
        if (slot == &e->event)          /* as a C string: the catalog, view and row agree */
                vlen = (uint32_t) strnlen(e->buf + voff, vlen);
        if (slot) {
                *slot = (struct ingest_str) { .off = voff, .len = vlen, .set = true };
                return 0;
        }
        if (ingest_entry_int(e, data, nlen, &x, &has)) {
                if (ingest_parse_i64(e->buf + voff, vlen, x))
                        *has = true;
                else if (!e->bad_int.set)       /* said once per import (ingest_end()) */
                        e->bad_int = (struct ingest_str) { .off = off, .len = len, .set = true };
                return 0;
        }
        if (nlen == 8 && NAME_IS("__CURSOR"))
                return ingest_entry_cursor_at(e, voff, vlen);
        return 0;
}

int ingest_entry_add(struct ingest_entry *e, const char *data, size_t len)
{
        struct ingest_str f;
        int r = ingest_copy(e, data, len, &f);

        return r < 0 ? r : ingest_entry_field(e, f.off, f.len);
}

int ingest_entry_keep(struct ingest_entry *e, const char *name, size_t nlen, const char *data,
                      size_t len)
{
        uint32_t n = (uint32_t) (nlen + len);
        int r;

        if (len > UINT32_MAX / 2)
                return -E2BIG;
        r = ingest_reserve(e, sizeof(n) + nlen + len + 1);
        if (r < 0)
                return r;
        memcpy(e->buf + e->len, &n, sizeof(n));
        memcpy(e->buf + e->len + sizeof(n), name, nlen);
        memcpy(e->buf + e->len + sizeof(n) + nlen, data, len);
        e->buf[e->len + sizeof(n) + n] = '\0';
        e->len += sizeof(n) + n + 1;
        e->kept = e->len;
        return 0;
}

int ingest_entry_parse(struct ingest_entry *e)
{
        size_t kept = e->kept, len = e->len, off = 0;
        uint32_t n;
        int r = 0;

        ingest_entry_reset(e);
        e->len = len;
        while (r == 0 && off + sizeof(n) <= kept) {
                memcpy(&n, e->buf + off, sizeof(n));
                off += sizeof(n);
                r = ingest_entry_field(e, (uint32_t) off, n);
                off += n + 1;
        }
        return r;
}

/* The journal identity from the cursor "s=<seqnum id>;i=<seqnum, hex>;b=...;
 * m=...;t=...;x=..." at OFF in the buffer, which is kept as the cursor. */
static int ingest_entry_cursor_at(struct ingest_entry *e, uint32_t off, uint32_t len)
{
        uint32_t p = off, end = off + len;
        int r = 0;

        e->cursor = (struct ingest_str) { .off = off, .len = len, .set = true };
        while (r == 0 && p < end) {
                const char *c = e->buf + p, *semi = memchr(c, ';', end - p);
                uint32_t n = semi ? (uint32_t) (semi - c) : end - p;
                int64_t x;

                if (n > 2 && c[0] == 's' && c[1] == '=') {
                        /* the copy may move the buffer C points into: make
                         * room first, then copy from where it is now */
                        r = ingest_reserve(e, n - 2 + 1);
                        if (r == 0)
                                r = ingest_copy(e, e->buf + p + 2, n - 2, &e->seqnum_id);
                } else if (n > 2 && c[0] == 'i' && c[1] == '=' && ingest_parse_hex(c + 2, n - 2, &x)) {
                        e->jseq = x;
                        e->has_jseq = true;
                }
                p += n + 1;
        }
        return r;
}

int ingest_entry_set_cursor(struct ingest_entry *e, const char *cursor, size_t len)
{
        struct ingest_str c;
        int r = ingest_copy(e, cursor, len, &c);

        return r < 0 ? r : ingest_entry_cursor_at(e, c.off, c.len);
}

#undef NAME_IS

/* ---- the writer ------------------------------------------------------- */

static int ingest_sqlerr(struct ingest *ing, int rc, struct tq_error *err)
{
        if (rc == SQLITE_NOMEM)
                return tq_error_set(err, -ENOMEM, "out of memory");
        return tq_error_set(err, -EIO, "%s: %s", store_name(ing->db), sqlite3_errmsg(ing->db));
}

static int ingest_prepare(struct ingest *ing, const char *sql, sqlite3_stmt **ret,
                          struct tq_error *err)
{
        int rc = sqlite3_prepare_v3(ing->db, sql, -1, SQLITE_PREPARE_PERSISTENT, ret, NULL);

        return rc == SQLITE_OK ? 0 : ingest_sqlerr(ing, rc, err);
}

/* The INSERT of N events rows, INGEST_COLS parameters each, in *RET. */
static int ingest_prepare_insert(struct ingest *ing, unsigned n, sqlite3_stmt **ret,
                                 struct tq_error *err)
{
        static const char head[] =
                "INSERT OR IGNORE INTO events (time, mono, host, boot, pid, tid, event, message, "
                "seq, source, \"group\", identifier, code_file, code_line, code_func, jid, jseq, "
                "a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, id) VALUES ";
        char sql[sizeof(head) + INGEST_BATCH * (INGEST_COLS * 2 + 4)], *p;
        unsigned i, c;

        if (n == 0 || n > INGEST_BATCH)
                return tq_error_set(err, -EINVAL, "%u rows in one INSERT", n);
        p = stpcpy(sql, head);
        for (i = 0; i < n; i++) {
                *p++ = i ? ',' : '(';
                if (i)
                        *p++ = '(';
                for (c = 0; c < INGEST_COLS; c++) {
                        *p++ = '?';
                        *p++ = c + 1 < INGEST_COLS ? ',' : ')';
                }
        }
        *p = '\0';
        return ingest_prepare(ing, sql, ret, err);
}

/* Find or create the sources row; read its position. */
static int ingest_source(struct ingest *ing, const char *kind, const char *location,
                         const char *filter, char **ret_cursor, int64_t *ret_offset,
                         struct tq_error *err)
{
        sqlite3_stmt *st = NULL;
        char *cursor = NULL;
        int rc, r;

        r = ingest_prepare(ing, "INSERT OR IGNORE INTO sources (kind, location, filter) "
                           "VALUES (?1, ?2, ?3)", &st, err);
        if (r < 0)
                goto out;
        sqlite3_bind_text(st, 1, kind, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, location, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, filter, -1, SQLITE_STATIC);
        rc = sqlite3_step(st);
        sqlite3_finalize(st);
        st = NULL;
        if (rc != SQLITE_DONE) {
                r = ingest_sqlerr(ing, rc, err);
                goto out;
        }
        r = ingest_prepare(ing, "SELECT id, cursor, offset FROM sources "
                           "WHERE kind = ?1 AND location = ?2 AND filter = ?3", &st, err);
        if (r < 0)
                goto out;
        sqlite3_bind_text(st, 1, kind, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, location, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, filter, -1, SQLITE_STATIC);
        rc = sqlite3_step(st);
        if (rc != SQLITE_ROW) {
                r = ingest_sqlerr(ing, rc, err);
                goto out;
        }
        ing->source = sqlite3_column_int64(st, 0);
        ing->kind = kind;
        ing->location = location;
        ing->filter = filter;
        if (sqlite3_column_type(st, 1) != SQLITE_NULL) {
                cursor = strdup((const char *) sqlite3_column_text(st, 1));
                if (!cursor) {
                        r = tq_error_set(err, -ENOMEM, "out of memory");
                        goto out;
                }
        }
        if (ret_offset)
                *ret_offset = sqlite3_column_type(st, 2) == SQLITE_NULL ? -1
                              : sqlite3_column_int64(st, 2);
        if (ret_cursor) {
                *ret_cursor = cursor;
                cursor = NULL;
        }
out:
        free(cursor);
        sqlite3_finalize(st);
        return r;
}

/* Open the write transaction: 0, or -EBUSY when another import kept the
 * database and the wait for its turn was given up (store_stop_waiting()),
 * -ESTALE when its file was deleted or replaced since it was opened, or
 * -EIO, ERR filled each time.  In WAL mode SQLite writes on into a file no
 * longer at its name (it refuses only in rollback mode), so an import
 * --follow would commit every entry to a file nobody can open again. */
static int ingest_lock(sqlite3 *db, struct tq_error *err)
{
        int moved = 0, r = store_exec(db, "BEGIN IMMEDIATE", err);

        if (r == -EIO && (sqlite3_errcode(db) & 0xff) == SQLITE_BUSY)
                r = -EBUSY;
        if (r == 0 && sqlite3_file_control(db, "main", SQLITE_FCNTL_HAS_MOVED,
                                           &moved) == SQLITE_OK && moved) {
                (void) store_exec(db, "ROLLBACK", NULL);
                r = tq_error_set(err, -ESTALE, "%s: the database file was deleted or replaced "
                                 "since the import opened it", store_name(db));
        }
        return r;
}

/* The highest events.id below TQ_ID_PACKED, where unpacked ids go on from. */
static int ingest_last_id(struct ingest *ing, struct tq_error *err)
{
        sqlite3_stmt *st = NULL;
        int rc, r;

        r = ingest_prepare(ing, "SELECT coalesce(max(id), 0) FROM events WHERE id < ?", &st, err);
        if (r < 0)
                return r;
        sqlite3_bind_int64(st, 1, TQ_ID_PACKED);
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW)
                ing->last_id = sqlite3_column_int64(st, 0);
        else
                r = ingest_sqlerr(ing, rc, err);
        sqlite3_finalize(st);
        return r;
}

int ingest_begin(sqlite3 *db, const char *kind, const char *location, const char *filter,
                 struct ingest **ret_ing, char **ret_cursor, int64_t *ret_offset,
                 struct tq_error *err)
{
        struct ingest *ing;
        int r;

        ing = calloc(1, sizeof(*ing));
        if (!ing)
                return tq_error_set(err, -ENOMEM, "out of memory");
        ing->db = db;
        ing->offset = -1;
        /* the batch's text buffer exists from the start, so an empty value
         * points into it too: a NULL pointer would bind SQL NULL, and INSERT
         * OR IGNORE would drop the row in silence (events.event NOT NULL) */
        r = ingest_grow(&ing->text, &ing->text_size, 0, 1, INGEST_TEXT_FIRST);
        if (r < 0) {
                free(ing);
                return tq_error_set(err, r, "out of memory");
        }
        r = ingest_lock(db, err);
        if (r < 0)
                goto out;
        r = ingest_source(ing, kind, location, filter, ret_cursor, ret_offset, err);
        if (r < 0)
                goto out;
        r = ingest_prepare_insert(ing, 1, &ing->insert, err);
        if (r == 0)
                r = ingest_prepare_insert(ing, INGEST_BATCH, &ing->insert_batch, err);
        if (r == 0)
                r = ingest_last_id(ing, err);
        if (r == 0)
                r = ingest_prepare(ing,
                        "INSERT OR IGNORE INTO journal_suppressed (time, host, boot, count, "
                        "message, source, jid, jseq) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        &ing->suppressed, err);
        if (r == 0)
                r = ingest_prepare(ing, "SELECT id FROM seqnum_ids WHERE seqnum_id = ?",
                                   &ing->sid_get, err);
        if (r == 0)
                r = ingest_prepare(ing, "INSERT INTO seqnum_ids (seqnum_id) VALUES (?)",
                                   &ing->sid_put, err);
        if (r == 0)
                r = ingest_prepare(ing,
                        "UPDATE sources SET cursor = coalesce(?1, cursor), offset = ?2, "
                        "rows = rows + ?3, updated = ?4 WHERE id = ?5", &ing->position, err);
out:
        if (r < 0) {
                (void) ingest_end(ing, false, NULL, NULL);
                return r;
        }
        *ret_ing = ing;
        return 0;
}

void ingest_set_name(struct ingest *ing, const char *name)
{
        ing->name = name;
}

int ingest_set_window(struct ingest *ing, const char *window, struct tq_error *err)
{
        sqlite3_stmt *st = NULL;
        int rc, r;

        r = ingest_prepare(ing, "UPDATE sources SET window = ?1 WHERE id = ?2", &st, err);
        if (r < 0)
                return r;
        if (window)
                sqlite3_bind_text(st, 1, window, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, ing->source);
        rc = sqlite3_step(st);
        sqlite3_finalize(st);
        return rc == SQLITE_DONE ? 0 : ingest_sqlerr(ing, rc, err);
}

/* The seqnum_ids.id of the entry's seqnum id, interned; 0 when it has none. */
static int ingest_jid(struct ingest *ing, const struct ingest_entry *e, int64_t *ret_jid,
                      struct tq_error *err)
{
        const char *sid;
        int rc;

        if (!e->seqnum_id.set || !e->has_jseq) {
                *ret_jid = 0;
                return 0;
        }
        sid = e->buf + e->seqnum_id.off;
        if (ing->last_jid && e->seqnum_id.len == ing->last_sid_len &&
            memcmp(sid, ing->last_sid, ing->last_sid_len) == 0) {
                *ret_jid = ing->last_jid;
                return 0;
        }
        sqlite3_bind_text(ing->sid_get, 1, sid, (int) e->seqnum_id.len, SQLITE_STATIC);
        rc = sqlite3_step(ing->sid_get);
        if (rc == SQLITE_ROW)
                *ret_jid = sqlite3_column_int64(ing->sid_get, 0);
        sqlite3_reset(ing->sid_get);
        if (rc == SQLITE_DONE) {
                sqlite3_bind_text(ing->sid_put, 1, sid, (int) e->seqnum_id.len, SQLITE_STATIC);
                rc = sqlite3_step(ing->sid_put);
                sqlite3_reset(ing->sid_put);
                if (rc != SQLITE_DONE)
                        return ingest_sqlerr(ing, rc, err);
                *ret_jid = sqlite3_last_insert_rowid(ing->db);
        } else if (rc != SQLITE_ROW)
                return ingest_sqlerr(ing, rc, err);
        if (e->seqnum_id.len < sizeof(ing->last_sid)) {
                memcpy(ing->last_sid, sid, e->seqnum_id.len);
                ing->last_sid_len = e->seqnum_id.len;
                ing->last_jid = *ret_jid;
        }
        return 0;
}

/* Is S a run of word characters, as QEMU's \w+ takes an event name? */
static bool ingest_is_word(const char *s, size_t n)
{
        size_t i;

        if (n == 0 || n > 128)
                return false;
        for (i = 0; i < n; i++) {
                char c = s[i];

                if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                      (c >= '0' && c <= '9') || c == '_'))
                        return false;
        }
        return true;
}

/* Is S a C identifier? Views and their columns are only made for those. */
static bool ingest_is_ident(const char *s, size_t n)
{
        return ingest_is_word(s, n) && !(s[0] >= '0' && s[0] <= '9');
}

/* Fill SIG from the entry's TRACE_ARGS, or, lacking it, from its TRACE_ARG_
 * fields in order (tj_dropped: TRACE_DROPPED as 'dropped:u'); match each
 * declared argument with its field (among the first 16: the library sends
 * at most 16).  Returns the count, at most TQ_MAX_ARGS; *RET_ALL the count
 * there is. */
static unsigned ingest_signature(const struct ingest_entry *e, struct ingest_sigarg *sig,
                                 unsigned *ret_all)
{
        unsigned n = 0, i;

        *ret_all = 0;
        if (e->argsig.set) {
                const char *p = e->buf + e->argsig.off, *end = p + e->argsig.len;

                while (p < end) {
                        const char *tok, *colon;

                        while (p < end && *p == ' ')
                                p++;
                        tok = p;
                        while (p < end && *p != ' ')
                                p++;
                        if (p == tok)
                                break;
                        if (++*ret_all > TQ_MAX_ARGS)
                                continue;
                        colon = memchr(tok, ':', (size_t) (p - tok));
                        sig[n].name = tok;
                        sig[n].len = colon ? (size_t) (colon - tok) : (size_t) (p - tok);
                        sig[n].kind = colon && colon + 1 < p ? colon[1] : 's';
                        if (!strchr("iups", sig[n].kind))
                                sig[n].kind = 's';      /* no such kind: text */
                        sig[n].value = NULL;
                        for (i = 0; i < e->nargs; i++)
                                if (e->args[i].name.len == sig[n].len &&
                                    strncasecmp(e->buf + e->args[i].name.off, tok, sig[n].len) == 0) {
                                        sig[n].value = &e->args[i].value;
                                        break;
                                }
                        n++;
                }
                return n;
        }
        if (e->dropped.set) {
                *ret_all = 1;
                sig[0].name = "dropped";
                sig[0].len = 7;
                sig[0].kind = 'u';
                sig[0].value = &e->dropped;
                return 1;
        }
        *ret_all = e->nargs_all;
        for (i = 0; i < e->nargs && n < TQ_MAX_ARGS; i++, n++) {
                const char *v = e->buf + e->args[i].value.off;
                size_t vlen = e->args[i].value.len;
                int64_t x;

                sig[n].name = e->buf + e->args[i].name.off;     /* upper case: lowered in the catalog */
                sig[n].len = e->args[i].name.len;
                sig[n].value = &e->args[i].value;
                if (vlen > 2 && v[0] == '0' && v[1] == 'x' && ingest_parse_hex(v, vlen, &x))
                        sig[n].kind = 'p';
                else if (ingest_parse_i64(v, vlen, &x))
                        sig[n].kind = v[0] == '-' ? 'i' : 'u';
                else
                        sig[n].kind = 's';
        }
        return n;
}

/* ---- catalog and views ---- */

static uint64_t ingest_hash(const char *s)
{
        uint64_t h = 1469598103934665603ULL;

        for (; *s; s++)
                h = (h ^ (unsigned char) *s) * 1099511628211ULL;
        return h;
}

static void ingest_type_free(struct ingest_type *t)
{
        unsigned i;

        if (!t)
                return;
        for (i = 0; i < t->ncols; i++)
                free(t->cols[i]);
        free(t->signature);
        free(t->name);
        free(t);
}

/* The cached type of event NAME, or NULL. */
static struct ingest_type *ingest_type_find(const struct ingest *ing, const char *name)
{
        size_t i, mask;

        if (ing->types_size == 0)
                return NULL;
        mask = ing->types_size - 1;
        for (i = ingest_hash(name) & mask; ing->types[i]; i = (i + 1) & mask)
                if (strcmp(ing->types[i]->name, name) == 0)
                        return ing->types[i];
        return NULL;
}

/* Cache event NAME with its N columns COLS of kinds KINDS, and its
 * SIGNATURE; *RET the entry. */
static int ingest_type_add(struct ingest *ing, const char *name, char *const *cols,
                           const char *kinds, unsigned n, const char *signature,
                           struct ingest_type **ret)
{
        struct ingest_type *t;
        size_t i, mask;
        unsigned c;

        if (ing->types_size == 0 || (ing->ntypes + 1) * 2 > ing->types_size) {
                size_t size = ing->types_size ? ing->types_size * 2 : 256, j;
                struct ingest_type **v = calloc(size, sizeof(*v));

                if (!v)
                        return -ENOMEM;
                for (j = 0; j < ing->types_size; j++) {
                        if (!ing->types[j])
                                continue;
                        i = ingest_hash(ing->types[j]->name) & (size - 1);
                        while (v[i])
                                i = (i + 1) & (size - 1);
                        v[i] = ing->types[j];
                }
                free(ing->types);
                ing->types = v;
                ing->types_size = size;
        }
        t = calloc(1, sizeof(*t));
        if (!t || !(t->name = strdup(name)) || !(t->signature = strdup(signature))) {
                ingest_type_free(t);
                return -ENOMEM;
        }
        for (c = 0; c < n && c < TQ_MAX_ARGS; c++) {
                t->cols[c] = strdup(cols[c]);
                if (!t->cols[c]) {
                        ingest_type_free(t);
                        return -ENOMEM;
                }
                t->lens[c] = strlen(cols[c]);
                t->kinds[c] = kinds[c];
                t->ncols = c + 1;
        }
        mask = ing->types_size - 1;
        for (i = ingest_hash(name) & mask; ing->types[i]; i = (i + 1) & mask)
                ;
        ing->types[i] = t;
        ing->ntypes++;
        *ret = t;
        return 0;
}

/* Append to a sqlite3_str: NAME quoted as an identifier. */
static void ingest_str_ident(sqlite3_str *s, const char *name, size_t len)
{
        sqlite3_str_appendf(s, "\"%.*w\"", (int) len, name);
}

/* Does an object named NAME (any case) exist? */
static int ingest_name_taken(struct ingest *ing, const char *name, bool *ret_taken,
                             struct tq_error *err)
{
        sqlite3_stmt *st = NULL;
        int rc, r;

        r = ingest_prepare(ing, "SELECT 1 FROM sqlite_schema WHERE name = ?1 COLLATE NOCASE "
                           "UNION ALL SELECT 1 FROM event_types WHERE view = ?1 COLLATE NOCASE",
                           &st, err);
        if (r < 0)
                return r;
        sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
        rc = sqlite3_step(st);
        *ret_taken = rc == SQLITE_ROW;
        if (rc != SQLITE_ROW && rc != SQLITE_DONE)
                r = ingest_sqlerr(ing, rc, err);
        sqlite3_finalize(st);
        return r;
}

/* The view column name of argument I: its name (lower-cased when it came from
 * a field name), or a<pos> when it is not an identifier; made unique by
 * ingest_columns_unique(). */
static void ingest_arg_column(const struct ingest_entry *e, const struct ingest_sigarg *sig,
                              unsigned i, char *buf, size_t size)
{
        unsigned j;

        if (!ingest_is_ident(sig[i].name, sig[i].len))
                snprintf(buf, size, "a%u", i);
        else {
                snprintf(buf, size, "%.*s", (int) sig[i].len, sig[i].name);
                if (!e->argsig.set && !e->dropped.set)
                        for (j = 0; buf[j]; j++)
                                buf[j] = (char) (buf[j] >= 'A' && buf[j] <= 'Z' ? buf[j] + 32 : buf[j]);
        }
}

/* Is argument column I's name taken in the view, ignoring case: by an
 * earlier argument, or by ev_<column>, as a common column is shown when an
 * argument has its name? */
static bool ingest_column_taken(char cols[][160], unsigned n, unsigned i)
{
        unsigned j, c;

        for (j = 0; j < i; j++)
                if (strcasecmp(cols[j], cols[i]) == 0)
                        return true;
        if (strncasecmp(cols[i], "ev_", 3) != 0)
                return false;
        for (c = 0; c < INGEST_NCOMMON; c++)
                if (strcasecmp(cols[i] + 3, ingest_common[c]) == 0)
                        for (j = 0; j < n; j++)
                                if (strcasecmp(cols[j], ingest_common[c]) == 0)
                                        return true;
        return false;
}

/* Give each argument column a name of its own: _<pos> after one taken. */
static void ingest_columns_unique(char cols[][160], unsigned n)
{
        unsigned i;
        size_t len;

        for (i = 0; i < n; i++)
                while (ingest_column_taken(cols, n, i) && (len = strlen(cols[i])) + 12 < 160)
                        snprintf(cols[i] + len, 160 - len, "_%u", i);
}

/*
 * Put an entry's arguments SIG (N of them) in the order of T's columns, in
 * OUT; returns how many.  An event's arguments are stored as its first
 * signature has them (its view names them so): an entry whose signature
 * orders them otherwise, or names them in another case, or lacks
 * TRACE_ARGS (journald keeps fields in its own order), is matched by name,
 * ignoring case: first by the column each argument would get
 * (ingest_arg_column(), ingest_columns_unique()), so that a column a<pos> or
 * a name made unique is not taken for the argument its name is (an argument
 * a1 after a 1b: a1 is the 1b's column, a1_2 its own), then by the argument's
 * name; a column no name matches takes the argument at its position if that
 * one is not taken.
 * The rest follow, in the columns after the first signature's (a xentrace
 * record with more data words than the first of its name), which
 * ingest_type_grow() then names.
 */
static unsigned ingest_args_order(const struct ingest_type *t, const struct ingest_entry *e,
                                  const struct ingest_sigarg *sig, unsigned n,
                                  struct ingest_sigarg *out)
{
        bool used[TQ_MAX_ARGS] = { false }, found[TQ_MAX_ARGS] = { false };
        char cols[TQ_MAX_ARGS][160];
        unsigned i, j, pass;

        for (i = 0; i < n && i < t->ncols; i++)
                if (t->lens[i] != sig[i].len ||
                    strncasecmp(t->cols[i], sig[i].name, sig[i].len) != 0)
                        break;
        if (i == n && n == t->ncols) {          /* the usual case: as the first one */
                memcpy(out, sig, n * sizeof(*sig));
                return n;
        }
        for (j = 0; j < n; j++)
                ingest_arg_column(e, sig, j, cols[j], sizeof(cols[j]));
        ingest_columns_unique(cols, n);
        for (i = 0; i < t->ncols; i++)
                out[i] = (struct ingest_sigarg) { t->cols[i], t->lens[i], 's', NULL };
        for (pass = 0; pass < 2; pass++)
                for (i = 0; i < t->ncols; i++)
                        for (j = 0; j < n && !found[i]; j++)
                                if (!used[j] && (pass == 0 ? strcasecmp(cols[j], t->cols[i]) == 0 :
                                                 sig[j].len == t->lens[i] &&
                                                 strncasecmp(sig[j].name, t->cols[i],
                                                             sig[j].len) == 0)) {
                                        out[i] = sig[j];
                                        used[j] = found[i] = true;
                                }
        for (i = 0; i < t->ncols && i < n; i++)
                if (!found[i] && !used[i]) {
                        out[i] = sig[i];
                        used[i] = true;
                }
        /* the rest, in the columns after (ingest_type_grow()) */
        for (i = t->ncols, j = 0; j < n && i < TQ_MAX_ARGS; j++)
                if (!used[j])
                        out[i++] = sig[j];
        return i;
}

/*
 * An entry of T whose TRACE_ARGS gives a catalogued argument (OUT, from
 * ingest_args_order()) another kind than its first signature did (a later
 * version of the program): its values are stored as its own kind says, but
 * event_types, event_args and what reads them (leaks, pairs) keep the first
 * one's.  Say so, once per event and import, naming both signatures.
 * Entries without TRACE_ARGS are not checked: their kinds are guessed from
 * each value ('u' for 5, 'i' for -5); nor are those whose TRACE_ARGS holds
 * such guesses (ARGSIG_GUESSED: an ftrace event without a declaration, its
 * count 2 'u', its count 0x1000 'p').
 */
static void ingest_kinds_check(struct ingest_type *t, const struct ingest_entry *e,
                               const struct ingest_sigarg *out, unsigned n)
{
        unsigned i;

        if (t->warned || !e->argsig.set || e->argsig_guessed)
                return;
        for (i = 0; i < n && i < t->ncols; i++) {
                /* out[i].name is t's own for a column the entry lacks */
                if (out[i].name == t->cols[i] || out[i].kind == t->kinds[i])
                        continue;
                tq_message("event %s: argument %s is of kind %c in TRACE_ARGS '%.*s', of kind "
                           "%c in the database's '%s': each value is stored as its entry's kind "
                           "says; event_types and event_args keep %c", t->name, t->cols[i],
                           out[i].kind, (int) e->argsig.len, e->buf + e->argsig.off,
                           t->kinds[i], t->signature, t->kinds[i]);
                t->warned = true;
                return;
        }
}

/* Build the CREATE VIEW statement for EVENT (view VIEW, N argument columns). */
static char *ingest_view_sql(const char *event, const char *view, unsigned n,
                             char cols[][160])
{
        sqlite3_str *s = sqlite3_str_new(NULL);
        unsigned c, i;

        sqlite3_str_appendall(s, "CREATE VIEW ");
        ingest_str_ident(s, view, strlen(view));
        sqlite3_str_appendall(s, " AS SELECT ");
        for (c = 0; c < INGEST_NCOMMON; c++) {
                bool clash = false;

                for (i = 0; i < n; i++)
                        if (strcasecmp(cols[i], ingest_common[c]) == 0)
                                clash = true;
                if (c)
                        sqlite3_str_appendall(s, ", ");
                ingest_str_ident(s, ingest_common[c], strlen(ingest_common[c]));
                if (clash)
                        sqlite3_str_appendf(s, " AS \"ev_%w\"", ingest_common[c]);
        }
        for (i = 0; i < n; i++) {
                sqlite3_str_appendf(s, ", a%u AS ", i);
                ingest_str_ident(s, cols[i], strlen(cols[i]));
        }
        sqlite3_str_appendf(s, " FROM events WHERE event = %Q", event);
        return sqlite3_str_finish(s);
}

/* Is EVENT in the catalog already (an earlier import)? */
static int ingest_type_known(struct ingest *ing, const char *event, bool *ret_known,
                             struct tq_error *err)
{
        sqlite3_stmt *st = NULL;
        int rc, r;

        r = ingest_prepare(ing, "SELECT 1 FROM event_types WHERE name = ?", &st, err);
        if (r < 0)
                return r;
        sqlite3_bind_text(st, 1, event, -1, SQLITE_STATIC);
        rc = sqlite3_step(st);
        *ret_known = rc == SQLITE_ROW;
        if (rc != SQLITE_ROW && rc != SQLITE_DONE)
                r = ingest_sqlerr(ing, rc, err);
        sqlite3_finalize(st);
        return r;
}

/* Names that leaks and pairs --write save tables under (correlate.c). */
static const char *const ingest_reserved[] = {
        "tq_leaks", "tq_bad_frees", "tq_pairs", "tq_pairs_stats", "tq_pairs_open",
};

static bool ingest_is_reserved(const char *name)
{
        size_t i;

        if (strncasecmp(name, "sqlite_", 7) == 0)
                return true;
        for (i = 0; i < sizeof(ingest_reserved) / sizeof(ingest_reserved[0]); i++)
                if (strcasecmp(name, ingest_reserved[i]) == 0)
                        return true;
        return false;
}

/* The view name of EVENT: the name itself, or event_<name> when that is
 * taken (any case), reserved (ingest_is_reserved()) or begins with a digit
 * (QEMU allows it; SQL would need it quoted), or event_<name>_<k> (k = 2,
 * 3, ...) when that is taken too; "" when there can be no view. */
static int ingest_view_name(struct ingest *ing, const char *event, char *view, size_t size,
                            struct tq_error *err)
{
        bool taken = false;
        unsigned k;
        int r;

        view[0] = '\0';
        if (!ingest_is_word(event, strlen(event)))
                return 0;
        if (ingest_is_ident(event, strlen(event)) && !ingest_is_reserved(event)) {
                snprintf(view, size, "%s", event);
                r = ingest_name_taken(ing, view, &taken, err);
                if (r < 0 || !taken)
                        return r;
        }
        for (k = 1; k < 100; k++) {
                if (k == 1)
                        snprintf(view, size, "event_%s", event);
                else
                        snprintf(view, size, "event_%s_%u", event, k);
                r = ingest_name_taken(ing, view, &taken, err);
                if (r < 0 || !taken)
                        return r;
        }
        view[0] = '\0';
        return 0;
}

/* Cache EVENT, catalogued by an earlier import, with its columns. */
static int ingest_type_load(struct ingest *ing, const char *event, struct ingest_type **ret,
                            struct tq_error *err)
{
        char *cols[TQ_MAX_ARGS] = { NULL }, kinds[TQ_MAX_ARGS], *sigtext = NULL;
        sqlite3_stmt *st = NULL;
        unsigned n = 0, i;
        int rc, r;

        r = ingest_prepare(ing, "SELECT a.name, a.kind, t.signature FROM event_args a "
                           "JOIN event_types t ON t.name = a.event WHERE a.event = ? "
                           "ORDER BY a.pos", &st, err);
        if (r < 0)
                return r;
        sqlite3_bind_text(st, 1, event, -1, SQLITE_STATIC);
        while ((rc = sqlite3_step(st)) == SQLITE_ROW && n < TQ_MAX_ARGS) {
                const char *name = (const char *) sqlite3_column_text(st, 0);
                const char *kind = (const char *) sqlite3_column_text(st, 1);
                const char *sig = (const char *) sqlite3_column_text(st, 2);

                kinds[n] = kind ? kind[0] : 's';
                if (!sigtext && !(sigtext = strdup(sig ? sig : ""))) {
                        r = -ENOMEM;
                        break;
                }
                cols[n] = strdup(name ? name : "");
                if (!cols[n++]) {
                        r = -ENOMEM;
                        break;
                }
        }
        if (r == 0 && rc != SQLITE_ROW && rc != SQLITE_DONE)
                r = ingest_sqlerr(ing, rc, err);
        sqlite3_finalize(st);
        if (r == 0)
                r = ingest_type_add(ing, event, cols, kinds, n, sigtext ? sigtext : "", ret);
        for (i = 0; i < n; i++)
                free(cols[i]);
        free(sigtext);
        return r;
}

/* Enter arguments FROM..N-1 of EVENT in event_args: column COLS[i], kind
 * SIG[i].kind.  0, or -errno with ERR set (-ENOMEM: not set). */
static int ingest_args_insert(struct ingest *ing, const char *event, char cols[][160],
                              const struct ingest_sigarg *sig, unsigned from, unsigned n,
                              struct tq_error *err)
{
        int r = 0;

        for (unsigned i = from; r == 0 && i < n; i++) {
                char *sql = sqlite3_mprintf("INSERT INTO event_args VALUES (%Q, %u, %Q, '%c')",
                                            event, i, cols[i], sig[i].kind);

                r = sql ? store_exec(ing->db, sql, err) : -ENOMEM;
                sqlite3_free(sql);
        }
        return r;
}

/* Enter EVENT in the catalog and create its view, unless already there;
 * cache it in *RET. */
static int ingest_new_type(struct ingest *ing, const struct ingest_entry *e, const char *event,
                           const struct ingest_sigarg *sig, unsigned n, unsigned all,
                           struct ingest_type **ret, struct tq_error *err)
{
        char view[200], cols[TQ_MAX_ARGS][160], sigtext[TQ_MAX_ARGS * 164] = "", *sql = NULL;
        char *colv[TQ_MAX_ARGS], kinds[TQ_MAX_ARGS];
        bool known;
        unsigned i;
        int r;

        r = ingest_type_known(ing, event, &known, err);
        if (r == 0 && known)
                return ingest_type_load(ing, event, ret, err);
        if (r < 0)
                goto out;
        if (all > n)    /* not from tracegen's code, which allows TQ_MAX_ARGS */
                tq_message("event %s has %u arguments: the first %u are its columns, all "
                           "are in its message", event, all, n);
        r = ingest_view_name(ing, event, view, sizeof(view), err);
        if (r < 0)
                goto out;
        for (i = 0; i < n; i++)
                ingest_arg_column(e, sig, i, cols[i], sizeof(cols[i]));
        ingest_columns_unique(cols, n);
        for (i = 0; i < n; i++)
                snprintf(sigtext + strlen(sigtext), sizeof(sigtext) - strlen(sigtext), "%s%s:%c",
                         i ? " " : "", cols[i], sig[i].kind);
        sql = sqlite3_mprintf("INSERT INTO event_types VALUES (%Q, %Q, %u, %Q)", event,
                              view[0] ? view : NULL, n, sigtext);
        r = sql ? store_exec(ing->db, sql, err) : -ENOMEM;
        if (r == 0)
                r = ingest_args_insert(ing, event, cols, sig, 0, n, err);
        if (r == 0 && view[0]) {
                sqlite3_free(sql);
                sql = ingest_view_sql(event, view, n, cols);
                r = sql ? store_exec(ing->db, sql, err) : -ENOMEM;
        }
        for (i = 0; i < n; i++) {
                colv[i] = cols[i];
                kinds[i] = sig[i].kind;
        }
        if (r == 0)
                r = ingest_type_add(ing, event, colv, kinds, n, sigtext, ret);
out:
        sqlite3_free(sql);
        if (r == -ENOMEM)
                tq_error_set(err, r, "out of memory");
        return r;
}

/*
 * Name in the catalog the arguments of an entry of T that its columns lack:
 * OUT[T->ncols..N), which ingest_args_order() put in the columns after T's
 * own.  Each gets an event_args row at its position, event_types its nargs
 * and signature, and the view (if any) is made again with them, so that a
 * later version of the program with an argument more, or a syslog line
 * that has the string argument the event's first line lacked (the syslog
 * output leaves a NULL one out), is queried by name, as the first ones are.
 * A new column whose name would rename one of T's (ev_time after an
 * argument time came) stays unnamed: a query may use the old name.
 */
static int ingest_type_grow(struct ingest *ing, struct ingest_type *t, const struct ingest_entry *e,
                            const struct ingest_sigarg *out, unsigned n, struct tq_error *err)
{
        char cols[TQ_MAX_ARGS][160], *sig = NULL, *sql = NULL;
        const char *view;
        sqlite3_stmt *st = NULL;
        unsigned i, old = t->ncols;
        int r = 0, rc;

        if (n <= old)
                return 0;
        for (i = 0; i < old; i++)
                snprintf(cols[i], sizeof(cols[i]), "%s", t->cols[i]);
        for (i = old; i < n; i++)
                ingest_arg_column(e, out, i, cols[i], sizeof(cols[i]));
        ingest_columns_unique(cols, n);
        for (i = 0; i < old; i++)
                if (strcmp(cols[i], t->cols[i]) != 0)
                        return 0;
        r = ingest_args_insert(ing, t->name, cols, out, old, n, err);
        sig = sqlite3_mprintf("%s", t->signature);
        for (i = old; sig && i < n; i++) {
                char *more = sqlite3_mprintf("%s%s%s:%c", sig, sig[0] ? " " : "", cols[i],
                                             out[i].kind);

                sqlite3_free(sig);
                sig = more;
        }
        if (r == 0 && !sig)
                r = -ENOMEM;
        if (r == 0) {
                sql = sqlite3_mprintf("UPDATE event_types SET nargs = %u, signature = %Q "
                                      "WHERE name = %Q", n, sig, t->name);
                r = sql ? store_exec(ing->db, sql, err) : -ENOMEM;
                sqlite3_free(sql);
        }
        if (r == 0)
                r = ingest_prepare(ing, "SELECT view FROM event_types WHERE name = ?", &st, err);
        if (r == 0) {
                sqlite3_bind_text(st, 1, t->name, -1, SQLITE_STATIC);
                rc = sqlite3_step(st);
                view = rc == SQLITE_ROW ? (const char *) sqlite3_column_text(st, 0) : NULL;
                if (rc != SQLITE_ROW && rc != SQLITE_DONE)
                        r = ingest_sqlerr(ing, rc, err);
                else if (view) {
                        char *create = ingest_view_sql(t->name, view, n, cols);

                        sql = create ? sqlite3_mprintf("DROP VIEW \"%w\"; %s", view, create) : NULL;
                        r = sql ? store_exec(ing->db, sql, err) : -ENOMEM;
                        sqlite3_free(create);
                        sqlite3_free(sql);
                }
                sqlite3_finalize(st);
        }
        for (i = old; r == 0 && i < n; i++) {
                if (!(t->cols[i] = strdup(cols[i]))) {
                        r = -ENOMEM;
                        break;
                }
                t->lens[i] = strlen(cols[i]);
                t->kinds[i] = out[i].kind;
                t->ncols = i + 1;
        }
        if (r == 0) {
                char *keep = strdup(sig);

                if (!keep)
                        r = -ENOMEM;
                else {
                        free(t->signature);
                        t->signature = keep;
                }
        }
        sqlite3_free(sig);
        if (r == -ENOMEM)
                tq_error_set(err, r, "out of memory");
        return r;
}

/* ---- rows ---- */

static void ingest_bind_str(sqlite3_stmt *st, int col, const struct ingest_entry *e,
                            const struct ingest_str *v)
{
        if (v->set)
                sqlite3_bind_text(st, col, e->buf + v->off, (int) v->len, SQLITE_STATIC);
        else
                sqlite3_bind_null(st, col);
}

static void ingest_bind_int(sqlite3_stmt *st, int col, bool has, int64_t v)
{
        if (has)
                sqlite3_bind_int64(st, col, v);
        else
                sqlite3_bind_null(st, col);
}

/* journald's realtime in microseconds, as ns; false when the product does
 * not fit (a forged __REALTIME_TIMESTAMP in an export stream): no time. */
static bool ingest_realtime_ns(const struct ingest_entry *e, int64_t *ret_ns)
{
        return e->has_realtime && !__builtin_mul_overflow(e->realtime_us, 1000, ret_ns);
}

static int ingest_suppressed(struct ingest *ing, const struct ingest_entry *e, int64_t jid,
                             struct tq_error *err)
{
        sqlite3_stmt *st = ing->suppressed;
        const char *msg = e->buf + e->message.off;
        long long count = 0;
        int64_t rt_ns = 0;
        bool has_rt;
        int rc;

        if (e->message.set)
                (void) sscanf(msg, "Suppressed %lld messages", &count);
        has_rt = ingest_realtime_ns(e, &rt_ns);
        ingest_bind_int(st, 1, has_rt, rt_ns);
        ingest_bind_str(st, 2, e, &e->host);
        ingest_bind_str(st, 3, e, &e->boot);
        sqlite3_bind_int64(st, 4, count);
        ingest_bind_str(st, 5, e, &e->message);
        sqlite3_bind_int64(st, 6, ing->source);
        ingest_bind_int(st, 7, jid != 0, jid);
        ingest_bind_int(st, 8, jid != 0, e->jseq);
        rc = sqlite3_step(st);
        sqlite3_reset(st);
        if (rc != SQLITE_DONE)
                return ingest_sqlerr(ing, rc, err);
        return sqlite3_changes(ing->db) > 0;
}

/* The events.id for an entry of journal identity (JID, E->jseq), JID 0 for
 * none: the identity packed, or the next id below TQ_ID_PACKED. */
static int ingest_row_id(struct ingest *ing, const struct ingest_entry *e, int64_t jid,
                         int64_t *ret_id, struct tq_error *err)
{
        if (jid > 0 && jid <= TQ_ID_MAX_JID && e->jseq > 0 && e->jseq < TQ_ID_PACKED) {
                *ret_id = jid << TQ_ID_SEQ_BITS | e->jseq;
                return 0;
        }
        if (ing->last_id + 1 >= TQ_ID_PACKED)
                return tq_error_set(err, -EOVERFLOW, "%s: more than %" PRId64 " rows without "
                                    "a journal identity", store_name(ing->db), TQ_ID_PACKED - 1);
        *ret_id = ++ing->last_id;
        return 0;
}

/* ---- the batch ---- */

static void ingest_val_int(struct ingest_val *v, bool has, int64_t x)
{
        v->type = has ? INGEST_INT : INGEST_NULL;
        v->i = x;
}

/* Queue text P[0..N) into V: a copy in the batch's buffer, where
 * ingest_queue_row() made room for it. */
static void ingest_val_text(struct ingest *ing, struct ingest_val *v, const char *p, size_t n)
{
        v->type = INGEST_TEXT;
        v->len = (int) n;
        v->off = ing->text_len;
        memcpy(ing->text + ing->text_len, p, n);
        ing->text_len += n;
}

static void ingest_val_str(struct ingest *ing, struct ingest_val *v, const struct ingest_entry *e,
                           const struct ingest_str *s)
{
        if (s->set)
                ingest_val_text(ing, v, e->buf + s->off, s->len);
        else
                v->type = INGEST_NULL;
}

/* An argument by its kind; a value that does not parse is kept as text. */
static void ingest_val_arg(struct ingest *ing, struct ingest_val *v, const struct ingest_entry *e,
                           const struct ingest_sigarg *a)
{
        const char *p;
        int64_t x;
        bool ok = false;

        if (!a->value) {
                v->type = INGEST_NULL;
                return;
        }
        /* a value its kind cannot have (a signed one past INT64_MAX, an
         * unsigned one below 0, a pointer without 0x) stays text */
        p = e->buf + a->value->off;
        if (a->kind == 'i' || a->kind == 'u')
                ok = ingest_parse_i64(p, a->value->len, &x) &&
                     (a->kind == 'i' ? p[0] == '-' || x >= 0 : p[0] != '-');
        else if (a->kind == 'p')
                ok = a->value->len > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') &&
                     ingest_parse_hex(p, a->value->len, &x);
        if (ok)
                ingest_val_int(v, true, x);
        else
                ingest_val_str(ing, v, e, a->value);
}

/* The bytes of text the events row of E holds at most (an argument that
 * parses as a number holds none). */
static size_t ingest_row_text(const struct ingest_entry *e, const struct ingest_sigarg *sig,
                              unsigned n)
{
        const struct ingest_str *strs[] = {
                &e->host, &e->boot, &e->event, &e->message, &e->group, &e->identifier,
                &e->code_file, &e->code_func,
        };
        size_t need = 0;
        unsigned i;

        for (i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
                need += strs[i]->set ? strs[i]->len : 0;
        for (i = 0; i < n; i++)
                need += sig[i].value ? sig[i].value->len : 0;
        return need;
}

/* Queue the events row of entry E: its parameters, in the insert's order,
 * and copies of its text (NEED bytes at most).  The caller flushes. */
static int ingest_queue_row(struct ingest *ing, const struct ingest_entry *e, int64_t jid,
                            int64_t id, const struct ingest_sigarg *sig, unsigned n, size_t need)
{
        struct ingest_val *v = ing->rows[ing->nrows].v;
        unsigned i;
        int r;

        r = ingest_grow(&ing->text, &ing->text_size, ing->text_len, need, INGEST_TEXT_FIRST);
        if (r < 0)
                return r;
        if (e->has_time)
                ingest_val_int(&v[0], true, e->time);
        else {
                int64_t rt_ns = 0;
                bool has_rt = ingest_realtime_ns(e, &rt_ns);

                ingest_val_int(&v[0], has_rt, rt_ns);
        }
        ingest_val_int(&v[1], e->has_mono, e->mono);
        ingest_val_str(ing, &v[2], e, &e->host);
        ingest_val_str(ing, &v[3], e, &e->boot);
        ingest_val_int(&v[4], e->has_pid, e->pid);
        ingest_val_int(&v[5], e->has_tid, e->tid);
        ingest_val_str(ing, &v[6], e, &e->event);
        ingest_val_str(ing, &v[7], e, &e->message);
        ingest_val_int(&v[8], e->has_seq, e->seq);
        ingest_val_int(&v[9], true, ing->source);
        ingest_val_str(ing, &v[10], e, &e->group);
        ingest_val_str(ing, &v[11], e, &e->identifier);
        ingest_val_str(ing, &v[12], e, &e->code_file);
        ingest_val_int(&v[13], e->has_code_line, e->code_line);
        ingest_val_str(ing, &v[14], e, &e->code_func);
        ingest_val_int(&v[15], jid != 0, jid);
        ingest_val_int(&v[16], jid != 0, e->jseq);
        for (i = 0; i < TQ_MAX_ARGS; i++) {
                if (i < n)
                        ingest_val_arg(ing, &v[17 + i], e, &sig[i]);
                else
                        v[17 + i].type = INGEST_NULL;
        }
        ingest_val_int(&v[27], true, id);
        ing->nrows++;
        return 0;
}

/* Bind queued row ROW as the parameters FIRST + 1 .. FIRST + INGEST_COLS of ST. */
static void ingest_bind_queued(struct ingest *ing, sqlite3_stmt *st, int first,
                               const struct ingest_row *row)
{
        const struct ingest_val *v;
        int c;

        for (c = 0; c < INGEST_COLS; c++) {
                v = &row->v[c];
                if (v->type == INGEST_INT)
                        sqlite3_bind_int64(st, first + c + 1, v->i);
                else if (v->type == INGEST_TEXT)
                        sqlite3_bind_text(st, first + c + 1, ing->text + v->off, v->len,
                                          SQLITE_STATIC);
                else
                        sqlite3_bind_null(st, first + c + 1);
        }
}

static int ingest_step(struct ingest *ing, sqlite3_stmt *st, uint64_t *added, struct tq_error *err)
{
        int rc = sqlite3_step(st);

        sqlite3_reset(st);
        if (rc != SQLITE_DONE)
                return ingest_sqlerr(ing, rc, err);
        *added += (uint64_t) sqlite3_changes(ing->db);
        return 0;
}

/* Insert the queued rows now, and count them. */
static int ingest_flush(struct ingest *ing, struct tq_error *err)
{
        uint64_t added = 0;
        size_t i;
        int r = 0;

        if (ing->nrows == INGEST_BATCH) {
                for (i = 0; i < INGEST_BATCH; i++)
                        ingest_bind_queued(ing, ing->insert_batch, (int) i * INGEST_COLS,
                                           &ing->rows[i]);
                r = ingest_step(ing, ing->insert_batch, &added, err);
        } else {
                for (i = 0; r == 0 && i < ing->nrows; i++) {
                        ingest_bind_queued(ing, ing->insert, 0, &ing->rows[i]);
                        r = ingest_step(ing, ing->insert, &added, err);
                }
        }
        if (r < 0)
                return r;
        ing->added += added;
        ing->uncommitted += added;
        ing->nrows = 0;
        ing->text_len = 0;
        return 0;
}

/* Open a transaction again after ingest_idle().  Another import may have
 * written meanwhile: the unpacked ids go on from what is there now. */
static int ingest_resume(struct ingest *ing, struct tq_error *err)
{
        int r;

        if (!ing->idle)
                return 0;
        r = ingest_lock(ing->db, err);
        if (r == 0)
                r = ingest_last_id(ing, err);
        if (r == 0)
                ing->idle = false;
        else
                (void) store_exec(ing->db, "ROLLBACK", NULL);
        return r;
}

/* Keep the first entry's bad_int for ingest_end()'s note, and where it is:
 * the file and line of an export or a text file, named as its import's
 * errors name them, else the entry's cursor (journalctl --cursor takes it),
 * cut past 160 bytes (a journal's are at most 145). */
static void ingest_bad_int_note(struct ingest *ing, const struct ingest_entry *e)
{
        const char *name = ing->name ? ing->name : ing->location;

        snprintf(ing->bad_int, sizeof(ing->bad_int), "%.*s%s",
                 (int) (e->bad_int.len < 64 ? e->bad_int.len : 64), e->buf + e->bad_int.off,
                 e->bad_int.len > 64 ? "..." : "");
        if (e->bad_int_line)
                snprintf(ing->bad_where, sizeof(ing->bad_where), ", at %s:%" PRIu64,
                         strcmp(name, "-") == 0 ? "<stdin>" : name, e->bad_int_line);
        else if (e->cursor.set)
                snprintf(ing->bad_where, sizeof(ing->bad_where), ", in the entry %.*s%s",
                         (int) (e->cursor.len < 160 ? e->cursor.len : 160),
                         e->buf + e->cursor.off, e->cursor.len > 160 ? "..." : "");
}

int ingest_entry(struct ingest *ing, const struct ingest_entry *e, struct tq_error *err)
{
        struct ingest_sigarg sig[TQ_MAX_ARGS], args[TQ_MAX_ARGS];
        struct ingest_type *type;
        const char *event;
        int64_t jid, id = 0;
        size_t need;
        unsigned n, all;
        int r;

        r = ingest_resume(ing, err);
        if (r < 0)
                return r;
        if (!e->event.set) {
                /* journald's own note, not a client's entry with its id */
                if (!e->message_id.set || strcmp(e->buf + e->message_id.off, INGEST_SUPPRESSED_ID) ||
                    !e->transport.set || strcmp(e->buf + e->transport.off, "driver"))
                        return 0;
                r = ingest_jid(ing, e, &jid, err);
                if (r == 0)
                        r = ingest_suppressed(ing, e, jid, err);
                goto out;
        }
        event = e->buf + e->event.off;
        if (e->bad_int.set && ing->bad_ints++ == 0)
                ingest_bad_int_note(ing, e);
        r = ingest_jid(ing, e, &jid, err);
        if (r < 0)
                goto out;
        n = ingest_signature(e, sig, &all);
        type = ingest_type_find(ing, event);
        if (!type) {
                r = ingest_new_type(ing, e, event, sig, n, all, &type, err);
                if (r < 0)
                        goto out;
        }
        n = ingest_args_order(type, e, sig, n, args);
        ingest_kinds_check(type, e, args, n);
        if (n > type->ncols) {
                r = ingest_type_grow(ing, type, e, args, n, err);
                if (r < 0)
                        goto out;
        }
        r = ingest_row_id(ing, e, jid, &id, err);
        if (r < 0)
                goto out;
        need = ingest_row_text(e, args, n);
        if (ing->nrows > 0 && ing->text_len + need > INGEST_BATCH_TEXT)
                r = ingest_flush(ing, err);
        if (r == 0)
                r = ingest_queue_row(ing, e, jid, id, args, n, need);
        if (r == 0 && (ing->nrows == INGEST_BATCH || ing->text_len > INGEST_BATCH_TEXT))
                r = ingest_flush(ing, err);
        if (r == 0)
                return 0;       /* counted by ingest_flush() */
out:
        if (r == 1) {           /* a journal_suppressed row */
                ing->added++;
                ing->uncommitted++;
        }
        if (r == -ENOMEM || r == -E2BIG)
                tq_error_set(err, r, r == -ENOMEM ? "out of memory" : "entry too large");
        return r < 0 ? r : 0;
}

int ingest_unstore(struct ingest *ing, const struct ingest_entry *e, struct tq_error *err)
{
        sqlite3_stmt *st = NULL;
        int64_t source = 0;
        int rc, r;

        r = ingest_resume(ing, err);
        if (r < 0 || !e->event.set)
                return r;
        r = ingest_prepare(ing, "DELETE FROM events WHERE id = (SELECT max(id) FROM events "
                           "WHERE event = ?1 AND pid IS ?2 AND tid IS ?3 AND mono IS ?4 AND "
                           "source = ?5) RETURNING source", &st, err);
        if (r < 0)
                return r;
        sqlite3_bind_text(st, 1, e->buf + e->event.off, -1, SQLITE_STATIC);
        if (e->has_pid)
                sqlite3_bind_int64(st, 2, e->pid);
        if (e->has_tid)
                sqlite3_bind_int64(st, 3, e->tid);
        if (e->has_mono)
                sqlite3_bind_int64(st, 4, e->mono);
        /* the source whose position this import resumed from */
        sqlite3_bind_int64(st, 5, ing->renamed_from ? ing->renamed_from : ing->source);
        while ((rc = sqlite3_step(st)) == SQLITE_ROW)
                source = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
        if (rc != SQLITE_DONE)
                return ingest_sqlerr(ing, rc, err);
        if (!source)
                return 0;
        r = ingest_prepare(ing, "UPDATE sources SET rows = rows - 1 WHERE id = ?1", &st, err);
        if (r < 0)
                return r;
        sqlite3_bind_int64(st, 1, source);
        rc = sqlite3_step(st);
        sqlite3_finalize(st);
        if (rc != SQLITE_DONE)
                return ingest_sqlerr(ing, rc, err);
        ing->again++;
        return 1;
}

int ingest_set_position(struct ingest *ing, const char *cursor, int64_t offset)
{
        char *c = NULL;

        if (cursor) {
                c = strdup(cursor);
                if (!c)
                        return -ENOMEM;
        }
        free(ing->cursor);
        ing->cursor = c;
        ing->offset = offset;
        ing->position_set = true;
        return 0;
}

int ingest_retire_source(struct ingest *ing, struct tq_error *err)
{
        sqlite3_stmt *st = NULL;
        int rc, r;

        r = ingest_prepare(ing, "UPDATE sources SET filter = 'replaced ' || id WHERE id = ?1",
                           &st, err);
        if (r < 0)
                return r;
        sqlite3_bind_int64(st, 1, ing->source);
        rc = sqlite3_step(st);
        sqlite3_finalize(st);
        if (rc != SQLITE_DONE)
                return ingest_sqlerr(ing, rc, err);
        return ingest_source(ing, ing->kind, ing->location, ing->filter, NULL, NULL, err);
}

/* Is the file a source imported from still at LOCATION, with the bytes it
 * imported (OFFSET of them, fingerprint CURSOR), and another file than FD?
 * Then a file with those bytes is a copy, or another program's log that
 * begins alike (QEMU's log lines carry no time by default), not that file
 * renamed: its lines were never imported. */
static bool ingest_still_there(const char *location, int64_t offset, const char *cursor, int fd)
{
        struct stat a, b;
        bool there;
        int lfd = open(location, O_RDONLY | O_CLOEXEC);

        if (lfd < 0)
                return false;
        there = fstat(lfd, &a) == 0 && fstat(fd, &b) == 0 &&
                !(a.st_dev == b.st_dev && a.st_ino == b.st_ino) &&
                import_file_has(lfd, a.st_size, offset, cursor);
        close(lfd);
        return there;
}

const char *ingest_location(const struct ingest *ing)
{
        return ing->location;
}

int ingest_find_renamed(struct ingest *ing, int fd, int64_t size, int64_t *ret_offset,
                        char **ret_location, struct tq_error *err)
{
        sqlite3_stmt *st = NULL;
        int rc, r;

        *ret_offset = 0;
        *ret_location = NULL;
        r = ingest_prepare(ing, "SELECT location, offset, cursor, id FROM sources "
                           "WHERE kind = ?1 AND id != ?2 AND offset BETWEEN 1 AND ?3 "
                           "AND cursor LIKE 'fnv1a64:%' ORDER BY offset DESC, id DESC",
                           &st, err);
        if (r < 0)
                return r;
        sqlite3_bind_text(st, 1, ing->kind, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, ing->source);
        sqlite3_bind_int64(st, 3, size);
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
                const char *location = (const char *) sqlite3_column_text(st, 0);
                const char *cursor = (const char *) sqlite3_column_text(st, 2);
                int64_t offset = sqlite3_column_int64(st, 1);

                if (!import_file_has(fd, size, offset, cursor) ||
                    ingest_still_there(location, offset, cursor, fd))
                        continue;
                *ret_location = strdup(location);
                if (!*ret_location) {
                        sqlite3_finalize(st);
                        return tq_error_set(err, -ENOMEM, "out of memory");
                }
                *ret_offset = offset;
                ing->renamed_from = sqlite3_column_int64(st, 3);
                break;
        }
        sqlite3_finalize(st);
        if (rc != SQLITE_ROW && rc != SQLITE_DONE)
                return ingest_sqlerr(ing, rc, err);
        return 0;
}

/* Write the position and the row count into the sources row. */
static int ingest_store_position(struct ingest *ing, struct tq_error *err)
{
        sqlite3_stmt *st = ing->position;
        struct timespec ts;
        int rc;

        clock_gettime(CLOCK_REALTIME, &ts);
        if (ing->cursor)
                sqlite3_bind_text(st, 1, ing->cursor, -1, SQLITE_STATIC);
        else
                sqlite3_bind_null(st, 1);
        ingest_bind_int(st, 2, ing->offset >= 0, ing->offset);
        sqlite3_bind_int64(st, 3, (int64_t) ing->uncommitted);
        sqlite3_bind_int64(st, 4, (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec);
        sqlite3_bind_int64(st, 5, ing->source);
        rc = sqlite3_step(st);
        sqlite3_reset(st);
        if (rc != SQLITE_DONE)
                return ingest_sqlerr(ing, rc, err);
        ing->uncommitted = 0;
        return 0;
}

/*
 * Checkpoints.  An import that commits every so often (the journal import)
 * would checkpoint the WAL inside COMMIT each time it passes 1000 pages
 * (SQLite's automatic checkpoint) and wait there for two fsyncs, while the
 * thread reading the journal waits for it.  Instead its connection leaves
 * checkpoints to a thread with a connection of its own, which runs a PASSIVE
 * checkpoint after each commit, as SQLite's documentation suggests for
 * writers that must not stall.  Durability is unchanged: the checkpoint syncs
 * the WAL and the database as before (synchronous=NORMAL).
 *
 * SQLite only rewinds the WAL when a transaction begins with all of it
 * checkpointed, which a writer beginning again at once after its commit
 * rarely sees; so once the WAL holds INGEST_WAL_BYTES of frames a commit waits
 * for the checkpoint it asked for, and the WAL stays bounded.  Without the
 * thread (no file, no thread), the automatic checkpoint stays.
 */
static int ingest_wal_hook(void *userdata, sqlite3 *db, const char *name, int frames)
{
        struct ingest *ing = userdata;

        (void) db;
        (void) name;
        ing->wal_frames = frames;
        return SQLITE_OK;
}

static void *ingest_ckpt_run(void *userdata)
{
        struct ingest_ckpt *c = userdata;
        uint64_t asked;

        pthread_mutex_lock(&c->lock);
        for (;;) {
                while (c->done == c->asked && !c->stop)
                        pthread_cond_wait(&c->cond, &c->lock);
                if (c->stop)
                        break;
                asked = c->asked;
                pthread_mutex_unlock(&c->lock);
                /* a failure (busy, full disk) leaves the WAL to the next one */
                (void) sqlite3_wal_checkpoint_v2(c->db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL,
                                                 NULL);
                pthread_mutex_lock(&c->lock);
                c->done = asked;
                pthread_cond_broadcast(&c->cond);
        }
        pthread_mutex_unlock(&c->lock);
        return NULL;
}

static void ingest_ckpt_stop(struct ingest *ing)
{
        struct ingest_ckpt *c = ing->ckpt;

        if (!c)
                return;
        pthread_mutex_lock(&c->lock);
        c->stop = true;
        pthread_cond_broadcast(&c->cond);
        pthread_mutex_unlock(&c->lock);
        pthread_join(c->thread, NULL);
        pthread_cond_destroy(&c->cond);
        pthread_mutex_destroy(&c->lock);
        sqlite3_close_v2(c->db);
        free(c);
        ing->ckpt = NULL;
        sqlite3_wal_hook(ing->db, NULL, NULL);
        (void) sqlite3_wal_autocheckpoint(ing->db, 1000);        /* SQLite's default */
}

/* The value of the pragma SQL on DB as text in BUF, "" when unreadable.
 * Asking also makes a connection that never read the database see its
 * state (WAL mode, page size). */
static const char *ingest_pragma(sqlite3 *db, const char *sql, char *buf, size_t size)
{
        sqlite3_stmt *st = NULL;

        buf[0] = '\0';
        if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
                snprintf(buf, size, "%s", (const char *) sqlite3_column_text(st, 0));
        sqlite3_finalize(st);
        return buf;
}

/* Start the checkpointer; on any failure the import goes on without it. */
static void ingest_ckpt_start(struct ingest *ing)
{
        const char *path = sqlite3_db_filename(ing->db, "main");
        struct ingest_ckpt *c;
        char buf[32];
        int page;

        ing->ckpt_tried = true;
        if (!path || !*path)
                return;
        c = calloc(1, sizeof(*c));
        if (!c)
                return;
        if (sqlite3_open_v2(path, &c->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
                            NULL) != SQLITE_OK) {
                sqlite3_close_v2(c->db);
                free(c);
                return;
        }
        sqlite3_db_config(c->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
        if (sqlite3_stricmp(ingest_pragma(c->db, "PRAGMA journal_mode", buf, sizeof(buf)),
                            "wal") != 0) {
                sqlite3_close_v2(c->db);
                free(c);
                return;
        }
        pthread_mutex_init(&c->lock, NULL);
        pthread_cond_init(&c->cond, NULL);
        if (pthread_create(&c->thread, NULL, ingest_ckpt_run, c) != 0) {
                pthread_cond_destroy(&c->cond);
                pthread_mutex_destroy(&c->lock);
                sqlite3_close_v2(c->db);
                free(c);
                return;
        }
        ing->ckpt = c;
        /* 16 KiB pages in a database traceql made, 4 KiB in an older one */
        page = atoi(ingest_pragma(ing->db, "PRAGMA page_size", buf, sizeof(buf)));
        ing->wal_limit = INGEST_WAL_BYTES / (page >= 512 ? page : STORE_PAGE_SIZE);
        if (getenv("TRACEQL_TEST_WAL_FRAMES"))
                ing->wal_limit = atoi(getenv("TRACEQL_TEST_WAL_FRAMES"));
        sqlite3_wal_hook(ing->db, ingest_wal_hook, ing);  /* replaces the automatic one */
}

/* Ask for a checkpoint of what was committed; wait for it when the WAL has
 * grown past INGEST_WAL_BYTES (tests lower it with $TRACEQL_TEST_WAL_FRAMES). */
static void ingest_ckpt_ask(struct ingest *ing)
{
        struct ingest_ckpt *c = ing->ckpt;
        uint64_t asked;

        pthread_mutex_lock(&c->lock);
        asked = ++c->asked;
        pthread_cond_broadcast(&c->cond);
        while (ing->wal_frames >= ing->wal_limit && c->done < asked)
                pthread_cond_wait(&c->cond, &c->lock);
        pthread_mutex_unlock(&c->lock);
}

/* Commit the rows and the position; the next transaction is opened by the
 * caller. */
static int ingest_commit_only(struct ingest *ing, struct tq_error *err)
{
        int r;

        r = ingest_resume(ing, err);
        if (r < 0)
                return r;
        if (!ing->ckpt_tried)
                ingest_ckpt_start(ing);
        r = ingest_flush(ing, err);
        if (r == 0)
                r = ingest_store_position(ing, err);
        if (r == 0)
                r = store_exec(ing->db, "COMMIT", err);
        if (r == 0 && ing->ckpt)
                ingest_ckpt_ask(ing);
        return r;
}

int ingest_commit(struct ingest *ing, struct tq_error *err)
{
        int r;

        r = ingest_commit_only(ing, err);
        if (r == 0)
                r = ingest_lock(ing->db, err);
        return r;
}

int ingest_idle(struct ingest *ing, struct tq_error *err)
{
        int r;

        if (ing->idle)
                return 0;
        r = ingest_commit_only(ing, err);
        if (r == 0)
                ing->idle = true;
        return r;
}

uint64_t ingest_added(const struct ingest *ing)
{
        return ing->added;
}

int ingest_end(struct ingest *ing, bool commit, uint64_t *ret_added, struct tq_error *err)
{
        size_t i;
        int r = 0;

        tq_progress_end();
        if (!ing)
                return 0;
        if (commit)
                r = ingest_resume(ing, err);
        if (commit && r == 0) {
                r = ingest_flush(ing, err);
                if (r == 0)
                        r = ingest_store_position(ing, err);
                if (r == 0)
                        r = store_exec(ing->db, "COMMIT", err);
                if (r == 0 && ret_added)
                        *ret_added = ing->added - ing->again;
                /* a field of ours that is no number (TRACE_SEQ=abc, a TID of
                 * 21 digits): the row is stored, that column NULL, and said */
                if (r == 0 && ing->bad_ints)
                        tq_message("%s: %" PRIu64 " event%s stored with a field that is no "
                                   "number, its column NULL (the first: %s%s)",
                                   store_name(ing->db), ing->bad_ints,
                                   ing->bad_ints == 1 ? "" : "s", ing->bad_int, ing->bad_where);
        }
        ingest_ckpt_stop(ing);
        sqlite3_finalize(ing->insert);
        sqlite3_finalize(ing->insert_batch);
        sqlite3_finalize(ing->suppressed);
        sqlite3_finalize(ing->sid_get);
        sqlite3_finalize(ing->sid_put);
        sqlite3_finalize(ing->position);
        if (!commit || r < 0)
                (void) store_exec(ing->db, "ROLLBACK", NULL);
        for (i = 0; i < ing->types_size; i++)
                ingest_type_free(ing->types[i]);
        free(ing->types);
        free(ing->cursor);
        free(ing->text);
        free(ing);
        return r;
}
