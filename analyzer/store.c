/*
 * store.c - the traceql database: open, create, check, and SQL functions.
 *
 * A traceql database is a SQLite file with PRAGMA application_id "TQL1" and
 * PRAGMA user_version TQ_SCHEMA_VERSION; the schema is sql/schema.sql,
 * embedded at build time.  Every connection runs in SQLite's defensive mode
 * with trusted_schema=OFF, since a database file may come from elsewhere, and
 * is read-only unless the caller asks to write.  The SQL functions users rely
 * on (u64, ptr, ns_time; REGEXP in regexp.c) are registered here.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "traceql.h"

/* Messages quote the input (a field name, a word of a line): its control
 * characters (the C1 ones, U+0080 to U+009F, too) and its bytes that are not
 * well-formed UTF-8 are shown as \xHH (query_utf8_len() and query_utf8_c1()
 * tell them, as for the table's cells), so a hostile file cannot send escape
 * sequences to the terminal, make a message look like several lines, or
 * write a terminal bytes that are no text. */
int tq_error_set(struct tq_error *err, int r, const char *fmt, ...)
{
        char raw[sizeof(err->msg)];
        size_t i, n, u, k = 0;
        va_list ap;

        if (err) {
                va_start(ap, fmt);
                vsnprintf(raw, sizeof(raw), fmt, ap);
                va_end(ap);
                n = strlen(raw);
                for (i = 0; i < n && k + 1 < sizeof(err->msg); i += u) {
                        unsigned char c = (unsigned char) raw[i];

                        u = query_utf8_len((const unsigned char *) raw + i, n - i);
                        if (u > 0 && (c >= 0x80 || (c >= 0x20 && c != 0x7f)) &&
                            !query_utf8_c1((const unsigned char *) raw + i, u)) {
                                if (k + u + 1 > sizeof(err->msg))
                                        break;  /* no character cut in two */
                                memcpy(err->msg + k, raw + i, u);
                                k += u;
                        } else if (k + 5 <= sizeof(err->msg)) {
                                k += (size_t) snprintf(err->msg + k, 5, "\\x%02x", c);
                                u = 1;
                        } else
                                break;
                }
                err->msg[k] = '\0';
        }
        return r;
}

void tq_message(const char *fmt, ...)
{
        struct tq_error err;
        char raw[sizeof(err.msg)], line[sizeof(err.msg) + 16];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(raw, sizeof(raw), fmt, ap);
        va_end(ap);
        tq_error_set(&err, 0, "%s", raw);
        snprintf(line, sizeof(line), "traceql: %s\n", err.msg);
        tq_progress_say(line);   /* below the progress bar's line, if one is up */
}

/* Do options A and B mean the same to getopt_long(), which takes an
 * abbreviation of both for either? */
static bool tq_option_same(const struct option *a, const struct option *b)
{
        return a->has_arg == b->has_arg && a->flag == b->flag && a->val == b->val;
}

const struct option *tq_option_find(const char *arg, const struct option *longopts,
                                    bool *ret_ambiguous)
{
        const struct option *found = NULL;
        bool ambiguous = false;
        size_t len;

        if (ret_ambiguous)
                *ret_ambiguous = false;
        if (strncmp(arg, "--", 2) != 0)
                return NULL;
        arg += 2;
        len = strcspn(arg, "=");
        if (len == 0)
                return NULL;    /* "--": the end of the options; "--=x": no name */
        for (const struct option *lo = longopts; lo->name; lo++) {
                if (strncmp(lo->name, arg, len) != 0)
                        continue;
                if (lo->name[len] == '\0')
                        return lo;
                if (found && !tq_option_same(found, lo))
                        ambiguous = true;
                else if (!found)
                        found = lo;
        }
        if (ambiguous) {
                if (ret_ambiguous)
                        *ret_ambiguous = true;
                return NULL;
        }
        return found;
}

bool tq_option_is_sql(const char *arg)
{
        size_t len;

        if (strncmp(arg, "--", 2) != 0)
                return false;
        len = strcspn(arg + 2, "=");
        return strcspn(arg + 2, " \t\n\r\f") < len;
}

/* "traceql: ambiguous option '--NAME' (--a, --b)" for the word ARG, which
 * tq_option_find() found ambiguous in LONGOPTS: the options it may be, each
 * once (not those that mean the same as one named before). */
static void tq_option_ambiguous(const char *arg, const struct option *longopts)
{
        size_t len = strcspn(arg + 2, "="), n = 0;
        char names[512];

        names[0] = '\0';
        for (const struct option *lo = longopts; lo->name; lo++) {
                bool seen = false;

                if (strncmp(lo->name, arg + 2, len) != 0)
                        continue;
                for (const struct option *p = longopts; p < lo && !seen; p++)
                        seen = strncmp(p->name, arg + 2, len) == 0 && tq_option_same(p, lo);
                if (!seen && n < sizeof(names))
                        n += (size_t) snprintf(names + n, sizeof(names) - n, "%s--%s",
                                               n ? ", " : "", lo->name);
        }
        tq_message("ambiguous option '%.*s' (%s)", (int) len + 2, arg, names);
}

void tq_option_error(char **argv, const struct option *longopts)
{
        const char *arg = argv[optind - 1], *eq = strchr(arg, '=');
        bool ambiguous;

        /* optopt: a short option's letter (optind may not have moved past
         * its word), the value of a known long option, or 0: an unknown or
         * ambiguous one (getopt_long() says which only with opterr, on its
         * own and in its words: traceql sets opterr to 0 and tells) */
        if (optopt > 0 && optopt < 256)
                tq_message("unknown option '-%c'", optopt);
        else if (optopt && strncmp(arg, "--", 2) == 0 && eq)
                tq_message("option '%.*s' takes no value", (int) (eq - arg), arg);
        else if (optopt)
                tq_message("option '%s' needs a value", arg);
        else if (!tq_option_find(arg, longopts, &ambiguous) && ambiguous)
                tq_option_ambiguous(arg, longopts);
        else
                tq_message("unknown option '%s'", arg);
}

int tq_stdout_done(void)
{
        if (fflush(stdout) == 0 && !ferror(stdout))
                return TQ_EXIT_OK;
        fprintf(stderr, "traceql: write error: %s\n", strerror(errno));
        return TQ_EXIT_OUTPUT;
}

const char *tq_sql_get(const char *name)
{
        const struct tq_sql_file *f;

        for (f = tq_sql_files; f->name; f++)
                if (strcmp(f->name, name) == 0)
                        return f->text;
        return NULL;
}

const char *store_name(sqlite3 *db)
{
        const char *p = sqlite3_db_filename(db, "main");

        return p && *p ? p : ":memory:";
}

int store_errno(int rc)
{
        switch (rc & 0xff) {
        case SQLITE_NOMEM:
                return -ENOMEM;
        case SQLITE_FULL:
                return -ENOSPC;
        case SQLITE_IOERR:
                return -ENXIO;  /* -EIO is the SQL's failure here */
        default:
                return -EIO;
        }
}

int store_exec(sqlite3 *db, const char *sql, struct tq_error *err)
{
        char *msg = NULL;
        int rc, r = 0;

        rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
        if (rc == SQLITE_NOMEM) {
                r = tq_error_set(err, -ENOMEM, "out of memory");
                goto out;
        }
        if (rc != SQLITE_OK)
                r = tq_error_set(err, store_errno(rc), "%s: %s", store_name(db),
                                 msg ? msg : sqlite3_errstr(rc));
out:
        sqlite3_free(msg);
        return r;
}

/* The 64-bit pattern of V: an integer as it is; text that is a whole
 * decimal number (up to 18446744073709551615) or 0x hex (up to 16 digits),
 * and a real, truncated (up to 2^64, down to INT64_MIN), all of which
 * SQLite's own conversion would clamp at INT64_MAX.  False for NULL, a blob,
 * other text, or a real out of that range (or NaN). */
static bool store_value_pattern(sqlite3_value *v, uint64_t *ret)
{
        const char *t;
        int64_t x;
        double d;
        int n;

        switch (sqlite3_value_type(v)) {
        case SQLITE_INTEGER:
                *ret = (uint64_t) sqlite3_value_int64(v);
                return true;
        case SQLITE_FLOAT:
                d = sqlite3_value_double(v);
                if (d >= 0 && d < 18446744073709551616.0)
                        *ret = (uint64_t) d;
                else if (d < 0 && d >= -9223372036854775808.0)
                        *ret = (uint64_t) (int64_t) d;
                else
                        return false;
                return true;
        case SQLITE_TEXT:
                t = (const char *) sqlite3_value_text(v);
                n = sqlite3_value_bytes(v);
                if (!t || !(ingest_parse_i64(t, (size_t) n, &x) ||
                            (n > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X') &&
                             ingest_parse_hex(t, (size_t) n, &x))))
                        return false;
                *ret = (uint64_t) x;
                return true;
        default:
                return false;
        }
}

/* u64(x): the unsigned decimal text of a 64-bit integer pattern. */
static void store_fn_u64(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
        char buf[24];
        uint64_t x;

        (void) argc;
        if (!store_value_pattern(argv[0], &x))
                return;
        snprintf(buf, sizeof(buf), "%" PRIu64, x);
        sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
}

/* ptr(x): '0x' lowercase hex of a 64-bit integer pattern, as the journal
 * shows pointers. */
static void store_fn_ptr(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
        char buf[24];
        uint64_t x;

        (void) argc;
        if (!store_value_pattern(argv[0], &x))
                return;
        snprintf(buf, sizeof(buf), "0x%" PRIx64, x);
        sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
}

/* u64_sum(x), an aggregate: the sum of the 64-bit patterns of X taken as
 * unsigned, skipping what u64() gives NULL for; stops at UINT64_MAX rather
 * than wrap (sum() fails with "integer overflow" past INT64_MAX, and adds
 * an unsigned value past it as a negative one).  An INTEGER up to INT64_MAX,
 * above it the decimal text, as u64() writes it; NULL when there is none. */
static void store_fn_u64_sum_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
        uint64_t *acc = sqlite3_aggregate_context(ctx, 2 * sizeof(*acc));      /* sum, seen */
        uint64_t x;

        (void) argc;
        if (!acc) {
                sqlite3_result_error_nomem(ctx);
                return;
        }
        if (!store_value_pattern(argv[0], &x))
                return;
        acc[0] = x > UINT64_MAX - acc[0] ? UINT64_MAX : acc[0] + x;
        acc[1] = 1;
}

static void store_fn_u64_sum_final(sqlite3_context *ctx)
{
        uint64_t *acc = sqlite3_aggregate_context(ctx, 0);
        char buf[24];

        if (!acc || !acc[1])
                sqlite3_result_null(ctx);
        else if (acc[0] <= (uint64_t) INT64_MAX)
                sqlite3_result_int64(ctx, (int64_t) acc[0]);
        else {
                snprintf(buf, sizeof(buf), "%" PRIu64, acc[0]);
                sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
        }
}

/* u64_gap(a, b): how many 64-bit patterns lie strictly between A and B
 * taken as unsigned, NULL when none does (B <= A + 1) or either is not a
 * pattern; an INTEGER up to INT64_MAX, above it the decimal text, as
 * u64_sum() gives it.  losses' TRACE_SEQ gaps: b - a - 1 in SQL turns into a
 * real once it passes INT64_MAX. */
static void store_fn_u64_gap(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
        uint64_t a, b, n;
        char buf[24];

        (void) argc;
        if (!store_value_pattern(argv[0], &a) || !store_value_pattern(argv[1], &b) || b <= a ||
            b - a == 1)
                return;
        n = b - a - 1;
        if (n <= (uint64_t) INT64_MAX)
                sqlite3_result_int64(ctx, (int64_t) n);
        else {
                snprintf(buf, sizeof(buf), "%" PRIu64, n);
                sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
        }
}

/* ns_time(ns): ISO 8601 UTC with nanoseconds, "2026-11-21T17:13:24.123456789Z". */
static void store_fn_ns_time(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
        char buf[64];
        struct tm tm;
        int64_t ns;
        time_t s;
        int type;

        (void) argc;
        /* a number, or text that is one; NULL for other text (SQLite would
         * read it as 0, the epoch), a blob or NULL */
        type = sqlite3_value_numeric_type(argv[0]);
        if (type != SQLITE_INTEGER && type != SQLITE_FLOAT)
                return;
        /* a real past what 64-bit nanoseconds hold (1e30; text of 20
         * digits reads as one) is no time: SQLite's conversion would clamp
         * it to 2262 or 1677 */
        if (type == SQLITE_FLOAT) {
                double d = sqlite3_value_double(argv[0]);

                if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
                        return;
        }
        ns = sqlite3_value_int64(argv[0]);
        s = (time_t) (ns / 1000000000);
        if (ns % 1000000000 < 0)
                s--;
        if (!gmtime_r(&s, &tm))
                return;
        snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%09dZ",
                 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                 tm.tm_sec, (int) (((ns % 1000000000) + 1000000000) % 1000000000));
        sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
}

static int store_register(sqlite3 *db)
{
        const int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
        int rc;

        rc = sqlite3_create_function(db, "u64", 1, flags, NULL, store_fn_u64, NULL, NULL);
        if (rc == SQLITE_OK)
                rc = sqlite3_create_function(db, "ptr", 1, flags, NULL, store_fn_ptr, NULL, NULL);
        if (rc == SQLITE_OK)
                rc = sqlite3_create_function(db, "ns_time", 1, flags, NULL, store_fn_ns_time,
                                             NULL, NULL);
        if (rc == SQLITE_OK)
                rc = sqlite3_create_function(db, "u64_sum", 1, flags, NULL, NULL,
                                             store_fn_u64_sum_step, store_fn_u64_sum_final);
        if (rc == SQLITE_OK)
                rc = sqlite3_create_function(db, "u64_gap", 2, flags, NULL, store_fn_u64_gap,
                                             NULL, NULL);
        if (rc != SQLITE_OK)
                return rc == SQLITE_NOMEM ? -ENOMEM : -EIO;
        return regexp_register(db);
}

int store_int(sqlite3 *db, const char *sql, int64_t *ret_value, struct tq_error *err)
{
        sqlite3_stmt *st = NULL;
        int rc, r = 0;

        rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
        if (rc == SQLITE_OK)
                rc = sqlite3_step(st);
        if (rc != SQLITE_ROW) {
                r = tq_error_set(err, -EIO, "%s: %s", store_name(db), sqlite3_errmsg(db));
                goto out;
        }
        *ret_value = sqlite3_column_int64(st, 0);
out:
        sqlite3_finalize(st);
        return r;
}

/* Is source ID of DB forgotten (*RET_FORGOTTEN)?  -ENOENT, said, when DB
 * has no such source. */
static int store_source_forgotten(sqlite3 *db, int64_t id, bool *ret_forgotten,
                                  struct tq_error *err)
{
        sqlite3_stmt *st = NULL;
        int rc, r = 0;

        rc = sqlite3_prepare_v2(db, "SELECT " TQ_SOURCE_FORGOTTEN " FROM sources WHERE id = ?1",
                                -1, &st, NULL);
        if (rc == SQLITE_OK) {
                sqlite3_bind_int64(st, 1, id);
                rc = sqlite3_step(st);
        }
        if (rc == SQLITE_ROW)
                *ret_forgotten = sqlite3_column_int(st, 0) != 0;
        else if (rc == SQLITE_DONE)
                r = tq_error_set(err, -ENOENT, "%s: no source %" PRId64 " ('traceql sources' "
                                 "lists them)", store_name(db), id);
        else
                r = query_error(db, rc, err);
        sqlite3_finalize(st);
        return r;
}

int store_forget(sqlite3 *db, const int64_t *ids, size_t n, bool *ret_already,
                 struct tq_error *err)
{
        sqlite3_stmt *st = NULL;
        size_t i;
        int rc, r;

        r = store_exec(db, "BEGIN IMMEDIATE", err);
        if (r < 0)
                return r;
        for (i = 0; r == 0 && i < n; i++)
                r = store_source_forgotten(db, ids[i], &ret_already[i], err);
        if (r < 0)
                goto out;
        /* the filter it had after a newline; a boot's line ("\nboot=ID",
         * no identifier) has its own */
        rc = sqlite3_prepare_v2(db, "UPDATE sources SET filter = 'forgotten ' || id || "
                                "CASE WHEN filter = '' OR substr(filter, 1, 1) = char(10) "
                                "THEN '' ELSE char(10) END || filter WHERE id = ?1", -1, &st,
                                NULL);
        for (i = 0; rc == SQLITE_OK && i < n; i++) {
                if (ret_already[i])
                        continue;
                sqlite3_bind_int64(st, 1, ids[i]);
                rc = sqlite3_step(st);
                if (rc == SQLITE_DONE)
                        rc = sqlite3_reset(st);
        }
        if (rc != SQLITE_OK) {
                r = query_error(db, rc, err);
                goto out;
        }
        r = store_exec(db, "COMMIT", err);
out:
        sqlite3_finalize(st);
        if (r < 0 && !sqlite3_get_autocommit(db))
                (void) store_exec(db, "ROLLBACK", NULL);
        return r;
}

/* Create the schema in the empty database DB; another process may have
 * done it since we looked, so look again inside the transaction. */
static int store_create(sqlite3 *db, struct tq_error *err)
{
        char sql[256];
        int64_t nobjects;
        int r;

        /* Set before the first table exists, for good.  Rows are appended by
         * the hundred thousand: with 16 KiB pages an import of 1M syslog
         * lines made a quarter as many WAL and checkpoint writes and took
         * 0.4 s less system time (0.85 s with 4 KiB); leaks and pairs ran
         * as fast.  SQLite's page caches take more memory: a journal import
         * levels off at 12.3 MB (bench/import.sh), which the 512-byte entry
         * buffers of ingest.c won back; with 4096-byte ones it was 18.5. */
        snprintf(sql, sizeof(sql), "PRAGMA page_size = %d", STORE_PAGE_SIZE);
        r = store_exec(db, sql, err);
        if (r < 0)
                return r;
        r = store_exec(db, "BEGIN IMMEDIATE", err);
        if (r < 0)
                return r;
        r = store_int(db, "SELECT count(*) FROM sqlite_schema", &nobjects, err);
        if (r == 0 && nobjects > 0)
                return store_exec(db, "COMMIT", err);   /* it was made meanwhile */
        if (r == 0)
                r = store_exec(db, tq_sql_get("schema"), err);
        if (r == 0) {
                snprintf(sql, sizeof(sql),
                         "INSERT INTO meta VALUES ('schema_version', '%d'), "
                         "('traceql_version', '%s'), ('created', '%" PRId64 "')",
                         TQ_SCHEMA_VERSION, TJ_VERSION_STRING, (int64_t) time(NULL) * 1000000000);
                r = store_exec(db, sql, err);
        }
        if (r == 0)
                r = store_exec(db, "COMMIT", err);
        if (r < 0)
                (void) store_exec(db, "ROLLBACK", NULL);
        return r;
}

/* Bring a version FROM database to FROM + 1 (sql/migrate<FROM>.sql), all
 * or nothing, unless another process did it since we looked. */
static int store_migrate(sqlite3 *db, int64_t from, struct tq_error *err)
{
        char name[32];
        int64_t version;
        int r;

        snprintf(name, sizeof(name), "migrate%" PRId64, from);
        if (!tq_sql_get(name))  /* every older version has its step: a build error */
                return tq_error_set(err, -EPROTO, "%s: no upgrade from schema version %" PRId64,
                                    store_name(db), from);
        r = store_exec(db, "BEGIN IMMEDIATE", err);
        if (r < 0)
                return r;
        r = store_int(db, "PRAGMA user_version", &version, err);
        if (r == 0 && version != from)
                return store_exec(db, "COMMIT", err);
        if (r == 0)
                r = store_exec(db, tq_sql_get(name), err);
        if (r == 0)
                r = store_exec(db, "COMMIT", err);
        if (r < 0)
                (void) store_exec(db, "ROLLBACK", NULL);
        return r;
}

/* Is it a traceql database of our version?  Create the schema in an empty
 * one when writing; upgrade an older one when writing. */
static int store_check(sqlite3 *db, const char *path, int flags, struct tq_error *err)
{
        int64_t appid, version, nobjects;
        int r, rc, sys;

        /* one snapshot: another process may be creating the schema */
        r = store_exec(db, "BEGIN", err);
        if (r == 0)
                r = store_int(db, "PRAGMA application_id", &appid, err);
        if (r == 0)
                r = store_int(db, "SELECT count(*) FROM sqlite_schema", &nobjects, err);
        rc = sqlite3_extended_errcode(db);
        sys = sqlite3_system_errno(db);
        (void) store_exec(db, r == 0 ? "COMMIT" : "ROLLBACK", NULL);
        /* A WAL database is read with its -shm file, which SQLite creates
         * beside it when no process has it open ("attempt to write a
         * readonly database").  No fallback to ?immutable=1: that reads the
         * file without locks, wrong or "malformed" while an import writes. */
        if (r < 0 && rc == SQLITE_READONLY_DIRECTORY)
                r = tq_error_set(err, -EACCES, "%s: cannot read it: its directory is not "
                                 "writable, and SQLite must create its -shm file there while "
                                 "no other process has it open", path);
        /* ... and sizes it to 32 KiB at once: on a full disk SQLite says
         * "disk I/O error" (SQLITE_IOERR_SHMSIZE, errno ENOSPC) */
        if (r < 0 && (rc & 0xff) == SQLITE_IOERR && sys == ENOSPC)
                r = tq_error_set(err, -ENOSPC, "%s: cannot read it: no space left on its disk "
                                 "for its -shm file (32 KiB), which SQLite must create there "
                                 "while no other process has it open", path);
        if (r < 0)
                goto out;
        if (appid == 0 && nobjects == 0) {
                if (!(flags & STORE_WRITE)) {
                        r = tq_error_set(err, -ENOENT, "%s: empty database, nothing imported yet",
                                         path);
                        goto out;
                }
                r = store_create(db, err);
                if (r < 0)
                        goto out;
                r = store_int(db, "PRAGMA application_id", &appid, err);
                if (r < 0)
                        goto out;
        }
        if (appid != TQ_APPLICATION_ID) {
                r = tq_error_set(err, -EMEDIUMTYPE, "%s: not a traceql database", path);
                goto out;
        }
        r = store_int(db, "PRAGMA user_version", &version, err);
        if (r < 0)
                goto out;
        /* an older version is upgraded one step at a time (sql/migrateN.sql) */
        if (version >= 1 && version < TQ_SCHEMA_VERSION && !(flags & STORE_WRITE))
                return tq_error_set(err, -EPROTO, "%s: database schema version %" PRId64 ", "
                                    "this traceql reads version %d (any import upgrades it)",
                                    path, version, TQ_SCHEMA_VERSION);
        while (version >= 1 && version < TQ_SCHEMA_VERSION) {
                r = store_migrate(db, version, err);
                if (r == 0)
                        r = store_int(db, "PRAGMA user_version", &version, err);
                if (r < 0)
                        goto out;
        }
        if (version != TQ_SCHEMA_VERSION)
                r = tq_error_set(err, -EPROTO,
                                 "%s: database schema version %" PRId64 ", this traceql "
                                 "reads version %d (import into a new database)",
                                 path, version, TQ_SCHEMA_VERSION);
out:
        return r;
}

/* Put DB in WAL mode.  Two processes switching one rollback-journal
 * database at once (a new one, or a version 1 one) can get SQLITE_BUSY
 * without the busy handler being called (SQLite's way out of a deadlock
 * when a reader wants to write), so try again for as long as the busy
 * timeout would have waited. */
static int store_wal(sqlite3 *db, struct tq_error *err)
{
        int i, rc = SQLITE_OK;

        for (i = 0; i < 1000; i++) {
                rc = sqlite3_exec(db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL);
                if ((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED)
                        break;
                usleep(10000);
        }
        if (rc != SQLITE_OK)
                return tq_error_set(err, rc == SQLITE_NOMEM ? -ENOMEM : -EIO, "%s: %s",
                                    store_name(db), sqlite3_errmsg(db));
        return store_exec(db, "PRAGMA synchronous = NORMAL", err);
}

/* The flag that ends an import's wait for its turn (store_stop_waiting()). */
static atomic_int *store_stop;

void store_stop_waiting(atomic_int *stop)
{
        store_stop = stop;
}

/* The busy handler of an import (STORE_IMPORT): another import commits a
 * batch and begins the next at once, so waiting for a gap between them
 * would fail after any timeout; imports take turns instead, the waiting one
 * saying so once.  It gives up (SQLITE_BUSY) once asked to stop. */
static int store_wait_turn(void *name, int count)
{
        static bool said;
        struct timespec ts = { 0, 20 * 1000000 };

        if (store_stop && atomic_load(store_stop))
                return 0;
        if (count == 100 && !said) {    /* about 2 s */
                said = true;
                tq_message("%s: another import is writing it: waiting for its end",
                           (const char *) name);
        }
        nanosleep(&ts, NULL);
        return 1;
}

int store_writable(const char *path, struct tq_error *err)
{
        static const char *const suffix[] = { "", "-wal", "-shm" };
        char name[PATH_MAX];
        size_t i;

        if (strcmp(path, ":memory:") == 0)
                return 0;
        for (i = 0; i < sizeof(suffix) / sizeof(*suffix); i++) {
                if (snprintf(name, sizeof(name), "%s%s", path, suffix[i]) >= (int) sizeof(name))
                        return 0;       /* SQLite will say what is wrong */
                if (access(name, W_OK) < 0 &&
                    (errno == EACCES || errno == EPERM || errno == EROFS))
                        return tq_error_set(err, -errno, "%s: not writable (%s)", name,
                                            strerror(errno));
        }
        return 0;
}

/*
 * Is DB's file still the one at PATH, which was ID before SQLite opened it?
 * A failed import that made the database removes it (store_close()),
 * holding an exclusive lock; a process that had opened the file by then
 * gets its first read lock only once it is gone, and would then write into
 * a file no name reaches.  This look, with a read lock held (in WAL mode,
 * kept for as long as the connection is open), sees it: -ESTALE, and
 * store_open_created() opens PATH again.
 */
static int store_same_file(sqlite3 *db, const char *path, const struct stat *id,
                           struct tq_error *err)
{
        struct stat now;
        int64_t n;
        int r;

        r = store_exec(db, "BEGIN", err);
        if (r == 0)
                r = store_int(db, "SELECT count(*) FROM sqlite_schema", &n, err);
        if (r == 0 && (stat(path, &now) < 0 || now.st_dev != id->st_dev ||
                       now.st_ino != id->st_ino))
                r = -ESTALE;
        (void) store_exec(db, r == 0 ? "COMMIT" : "ROLLBACK", NULL);
        return r;
}

static int store_open_once(const char *path, int flags, sqlite3 **ret_db, bool *ret_created,
                           struct tq_error *err)
{
        char *plain = NULL;    /* "./file:..." */
        sqlite3 *db = NULL;
        struct stat st, id;
        bool memory, created = false, have_id = false;
        int oflags, rc, r;

        if (!path || !ret_db)
                return -EINVAL;
        /* ":memory:" is SQLite's database in memory (the fuzzers' too): no
         * file to look for, nor to make */
        memory = strcmp(path, ":memory:") == 0;
        if (!memory && !(flags & STORE_WRITE) && access(path, F_OK) < 0) {
                r = tq_error_set(err, -errno, "%s: %s", path, strerror(errno));
                goto out;
        }
        /* SQLite says "unable to open database file", or "disk I/O error"
         * when read-only */
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
                r = tq_error_set(err, -EISDIR, "%s: %s", path, strerror(EISDIR));
                goto out;
        }
        /* A new database is its owner's alone, as the journal it copies may
         * be (the system journal is for root and the adm group): SQLite
         * makes it 0644 less the umask, and its -wal and -shm files take
         * its mode.  A file that cannot be made (a directory missing or not
         * writable) is said so here: SQLite would only say "unable to open
         * database file".  An empty name is SQLite's, a private temporary
         * database. */
        if ((flags & STORE_WRITE) && !memory && *path) {
                int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

                if (fd >= 0) {
                        created = true;
                        close(fd);
                } else if (errno != EEXIST) {
                        r = tq_error_set(err, -errno, "%s: %s", path, strerror(errno));
                        goto out;
                }
        }
        oflags = (flags & STORE_WRITE) ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
                                       : SQLITE_OPEN_READONLY;
        oflags |= SQLITE_OPEN_NOMUTEX;         /* one thread per connection */
        /* PATH is a file name, as access() and open() above read it: SQLite
         * (built with SQLITE_USE_URI) would take "file:x?mode=ro" for a URI,
         * its parameters (mode, immutable, vfs) overriding ours, and "./"
         * makes it none.  An absolute name never starts with "file:". */
        if (strncmp(path, "file:", 5) == 0) {
                plain = sqlite3_mprintf("./%s", path);
                if (!plain) {
                        r = tq_error_set(err, -ENOMEM, "out of memory");
                        goto out;
                }
        }
        if (!memory && *path && stat(path, &id) == 0)
                have_id = true;
        rc = sqlite3_open_v2(plain ? plain : path, &db, oflags, NULL);
        if (rc != SQLITE_OK) {
                r = tq_error_set(err, rc == SQLITE_NOMEM ? -ENOMEM : -EIO, "%s: %s", path,
                                 db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
                goto out;
        }
        sqlite3_extended_result_codes(db, 1);
        sqlite3_busy_timeout(db, STORE_BUSY_MS);
        sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
        sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
        sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, NULL);
        r = store_exec(db, "PRAGMA trusted_schema = OFF", err);
        if (r < 0)
                goto out;
        r = store_check(db, path, flags, err);
        if (r < 0)
                goto out;
        if (flags & STORE_WRITE) {
                r = store_wal(db, err);
                if (r < 0)
                        goto out;
        }
        if (have_id) {
                r = store_same_file(db, path, &id, err);
                if (r < 0)
                        goto out;
        }
        if (flags & STORE_IMPORT)
                sqlite3_busy_handler(db, store_wait_turn, (void *) store_name(db));
        r = store_register(db);
        if (r < 0) {
                tq_error_set(err, r, "%s: cannot register SQL functions", path);
                goto out;
        }
        *ret_db = db;
        db = NULL;
        if (ret_created)
                *ret_created = created;
out:
        /* a database this call made and could not set up goes as it came */
        if (db && created && r != -ESTALE)
                store_close(db, true);
        else
                sqlite3_close_v2(db);
        sqlite3_free(plain);
        return r;
}

int store_open_created(const char *path, int flags, sqlite3 **ret_db, bool *ret_created,
                       struct tq_error *err)
{
        int r, tries = 0;

        /* the file went while we opened it: it is another now, or none */
        do
                r = store_open_once(path, flags, ret_db, ret_created, err);
        while (r == -ESTALE && ++tries < 10);
        if (r == -ESTALE)
                r = tq_error_set(err, -EIO, "%s: removed or replaced again and again while "
                                 "being opened", path);
        return r;
}

int store_open(const char *path, int flags, sqlite3 **ret_db, struct tq_error *err)
{
        return store_open_created(path, flags, ret_db, NULL, err);
}

/* Does DB hold nothing stored: no table at all (its schema never made), or
 * a traceql schema without a row of events or journal_suppressed?  Its
 * sources may have rows: a query's sync of a new database writes the local
 * journal's even when it brings nothing (traceql_query()). */
static bool store_holds_nothing(sqlite3 *db)
{
        int64_t n = 1, appid = 0;

        if (store_int(db, "SELECT count(*) FROM sqlite_schema", &n, NULL) < 0)
                return false;
        if (n == 0)
                return true;
        if (store_int(db, "PRAGMA application_id", &appid, NULL) < 0 ||
            appid != TQ_APPLICATION_ID)
                return false;
        return store_int(db, "SELECT EXISTS (SELECT 1 FROM events) OR "
                         "EXISTS (SELECT 1 FROM journal_suppressed)", &n, NULL) == 0 && n == 0;
}

/*
 * Why the removal is safe.  DISCARD holds only when this process made the file
 * (O_CREAT | O_EXCL in store_open_once()), not a guess from its contents:
 * a database that existed before is never removed.  Another process may
 * have opened it since, though (a second import started at the same time):
 * in WAL mode every connection keeps a SHARED lock on the database file
 * from its first read until it closes, so an EXCLUSIVE lock (locking_mode
 * EXCLUSIVE, which keeps it to the close) is granted only when no other
 * connection has read it; the busy handler is off, so we do not wait for
 * one to go.  Then, holding that lock, the file must still hold nothing.
 * A process that opened the file and has not read it yet waits for our
 * lock and finds the name gone or another file (store_same_file()): it
 * opens the path again.  The -wal, -shm and -journal are removed before the
 * database, while no other process can be using them; SQLITE_FCNTL_PERSIST_WAL
 * keeps sqlite3_close() from deleting "-wal" and "-shm" by name afterwards,
 * which by then may be another database's.
 */
void store_close(sqlite3 *db, bool discard)
{
        static const char *const suffix[] = { "-wal", "-shm", "-journal", "" };
        const char *path = db ? sqlite3_db_filename(db, "main") : NULL;
        char name[PATH_MAX];
        int one = 1;
        size_t i;

        if (!discard || !path || !*path ||
            snprintf(name, sizeof(name), "%s-journal", path) >= (int) sizeof(name))
                goto out;
        sqlite3_busy_handler(db, NULL, NULL);
        if (sqlite3_get_autocommit(db) == 0)
                (void) store_exec(db, "ROLLBACK", NULL);
        if (store_exec(db, "PRAGMA locking_mode = EXCLUSIVE", NULL) < 0 ||
            store_exec(db, "BEGIN EXCLUSIVE", NULL) < 0)
                goto out;
        if (store_holds_nothing(db) &&
            sqlite3_file_control(db, "main", SQLITE_FCNTL_PERSIST_WAL, &one) == SQLITE_OK) {
                for (i = 0; i < sizeof(suffix) / sizeof(*suffix); i++) {
                        snprintf(name, sizeof(name), "%s%s", path, suffix[i]);
                        if (unlink(name) < 0 && errno != ENOENT)
                                break;  /* the database stays, whole */
                }
        }
        (void) store_exec(db, "ROLLBACK", NULL);
out:
        sqlite3_close_v2(db);
}

int store_db_arg(const char *arg)
{
        if (*arg)
                return 0;
        tq_message("--db: an empty file name");
        return -EINVAL;
}

int store_default_path(char **ret_path, struct tq_error *err)
{
        const char *env, *home;
        char *dir = NULL, *path = NULL, *p, c;
        int r = 0;

        env = getenv("TRACEQL_DB");
        if (env && *env) {
                path = strdup(env);
                if (!path)
                        r = -ENOMEM;
                goto out;
        }
        env = getenv("XDG_CACHE_HOME");
        if (env && *env == '/')
                r = asprintf(&dir, "%s/traceql", env);
        else if ((home = getenv("HOME")) && *home)
                r = asprintf(&dir, "%s/.cache/traceql", home);
        else {
                r = tq_error_set(err, -ENOENT, "no database: set --db, TRACEQL_DB or HOME");
                goto out;
        }
        if (r < 0) {
                dir = NULL;
                r = -ENOMEM;
                goto out;
        }
        /* ~/.cache, or any directory above $XDG_CACHE_HOME, may not exist
         * yet either: make each one missing, as mkdir -p */
        for (p = dir + 1;; p++) {
                if (*p != '/' && *p != '\0')
                        continue;
                c = *p;
                *p = '\0';
                if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
                        r = tq_error_set(err, -errno, "%s: %s", dir, strerror(errno));
                        goto out;
                }
                *p = c;
                if (!c)
                        break;
        }
        r = asprintf(&path, "%s/traceql.db", dir);
        if (r < 0) {
                path = NULL;
                r = -ENOMEM;
                goto out;
        }
        r = 0;
out:
        free(dir);
        if (r == 0)
                *ret_path = path;
        else
                free(path);
        if (r == -ENOMEM)
                tq_error_set(err, r, "out of memory");
        return r;
}
