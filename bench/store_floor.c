/*
 * store_floor.c - the least SQLite itself takes to keep N events as rows.
 *
 *   store_floor [--safe] SCHEMA.sql DB N journal|syslog
 *
 * Makes DB anew with traceql's schema and page size and inserts N rows into
 * events, shaped as bench/import.sh's journal entries (every common column,
 * the journal identity, 4 arguments) or as bench/syslog.sh's lines (time,
 * host, pid, event, message, identifier, 4 arguments), with values bound
 * from C through one prepared statement: no reading, no parsing, no
 * position, no catalog.  And with SQLite's cheapest settings for a new
 * file, which traceql cannot use (an import killed midway must leave the
 * database as it was): journal_mode and synchronous OFF, one transaction,
 * the indexes on event and on seq 1 dropped.  So no importer that keeps one
 * SQLite row per event can take less; bench/import.sh and bench/syslog.sh
 * set their goals against it.  Prints "N rows S seconds".
 *
 * --safe stores them as traceql must, so that an import killed at any
 * moment leaves the database consistent and queries can run beside it: WAL,
 * synchronous NORMAL, the indexes kept, a commit every 10000 rows.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sqlite3.h>

static double store_floor_now(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static int store_floor_exec(sqlite3 *db, const char *sql)
{
        char *msg = NULL;

        if (sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK)
                return 0;
        fprintf(stderr, "store_floor: %s: %s\n", sql, msg ? msg : sqlite3_errmsg(db));
        sqlite3_free(msg);
        return -1;
}

/* The file at PATH, NUL-terminated (malloc'ed), or NULL. */
static char *store_floor_slurp(const char *path)
{
        FILE *f = fopen(path, "r");
        char *buf = NULL;
        long n;

        if (!f)
                return NULL;
        if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
            (buf = malloc((size_t) n + 1)) != NULL) {
                if (fread(buf, 1, (size_t) n, f) != (size_t) n) {
                        free(buf);
                        buf = NULL;
                } else
                        buf[n] = '\0';
        }
        fclose(f);
        return buf;
}

static const char store_floor_journal_sql[] =
        "INSERT INTO events (id, time, mono, host, boot, pid, tid, event, message, seq, source,"
        " \"group\", identifier, code_file, code_line, code_func, jid, jseq, a0, a1, a2, a3)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,1,?,?,?,?,?,1,?,?,?,?,?)";
static const char store_floor_syslog_sql[] =
        "INSERT INTO events (time, host, pid, event, message, source, identifier, a0, a1, a2, a3)"
        " VALUES (?,?,?,?,?,1,?,?,?,?,?)";

/* Bind event I of bench/import.sh's shape (blk_req_submit, 4 arguments). */
static void store_floor_journal(sqlite3_stmt *st, long i, char *msg, size_t size)
{
        long long req = 0x7f0000000000LL + i;
        int n = snprintf(msg, size, "blk_req_submit req 0x%llx sector %ld nb_sectors 8 is_write %ld",
                         req, i * 8, i % 2);

        sqlite3_bind_int64(st, 1, (1LL << 44) | (1000000 + i));
        sqlite3_bind_int64(st, 2, 1700000000000000000LL + i);
        sqlite3_bind_int64(st, 3, i);
        sqlite3_bind_text(st, 4, "bench-host", -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 5, "0123456789abcdef0123456789abcdef", -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 6, 4242);
        sqlite3_bind_int(st, 7, 1);
        sqlite3_bind_text(st, 8, "blk_req_submit", -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 9, msg, n, SQLITE_STATIC);
        sqlite3_bind_int64(st, 10, i);
        sqlite3_bind_text(st, 11, "bench", -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 12, "tq-bench", -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 13, "bench.c", -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 14, 1);
        sqlite3_bind_text(st, 15, "f", -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 16, 1000000 + i);
        sqlite3_bind_int64(st, 17, req);
        sqlite3_bind_int64(st, 18, i * 8);
        sqlite3_bind_int(st, 19, 8);
        sqlite3_bind_int(st, 20, (int) (i % 2));
}

/* Bind line I of bench/syslog.sh's shape (four events in turn). */
static void store_floor_syslog(sqlite3_stmt *st, long i, char *msg, size_t size)
{
        static const char *const names[] = {
                "blk_req_submit", "blk_req_complete", "qemu_vmalloc", "blk_req_error"
        };
        const char *name = names[i % 4];
        long long req = 94355079544832LL + i * 64;
        int n = snprintf(msg, size, "%s req 0x%012llx sector %ld reason medium error %ld", name,
                         req, i * 64, i % 7);

        sqlite3_bind_int64(st, 1, 1700000000000000000LL + i * 37000000LL);
        sqlite3_bind_text(st, 2, "central-server-01", -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 3, (int) (4000 + i % 13));
        sqlite3_bind_text(st, 4, name, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 5, msg, n, SQLITE_STATIC);
        sqlite3_bind_text(st, 6, "blockdemo", -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 7, req);
        sqlite3_bind_int64(st, 8, i * 64);
        sqlite3_bind_int(st, 9, 8);
        sqlite3_bind_int(st, 10, (int) (i % 3 == 0));
}

int main(int argc, char **argv)
{
        sqlite3 *db = NULL;
        sqlite3_stmt *st = NULL;
        char msg[256], *schema;
        bool journal, safe;
        double t0;
        long i, n;

        safe = argc > 1 && strcmp(argv[1], "--safe") == 0;
        argv += safe;
        argc -= safe;
        if (argc != 5 || (strcmp(argv[4], "journal") != 0 && strcmp(argv[4], "syslog") != 0)) {
                fputs("usage: store_floor [--safe] SCHEMA.sql DB N journal|syslog\n", stderr);
                return 2;
        }
        journal = strcmp(argv[4], "journal") == 0;
        n = atol(argv[3]);
        schema = store_floor_slurp(argv[1]);
        if (!schema) {
                fprintf(stderr, "store_floor: cannot read %s\n", argv[1]);
                return 1;
        }
        remove(argv[2]);
        snprintf(msg, sizeof(msg), "%s-wal", argv[2]);
        remove(msg);
        snprintf(msg, sizeof(msg), "%s-shm", argv[2]);
        remove(msg);
        t0 = store_floor_now();
        if (sqlite3_open(argv[2], &db) != SQLITE_OK) {
                fprintf(stderr, "store_floor: %s: %s\n", argv[2], sqlite3_errmsg(db));
                return 1;
        }
        if (store_floor_exec(db, safe ? "PRAGMA page_size = 16384; PRAGMA journal_mode = WAL;"
                                        " PRAGMA synchronous = NORMAL" :
                                        "PRAGMA page_size = 16384; PRAGMA journal_mode = OFF;"
                                        " PRAGMA synchronous = OFF") < 0 ||
            store_floor_exec(db, schema) < 0 ||
            (!safe && store_floor_exec(db, "DROP INDEX events_event; DROP INDEX events_seq1") < 0) ||
            store_floor_exec(db, "INSERT INTO seqnum_ids (id, seqnum_id) VALUES (1, 'bench');"
                                 " INSERT INTO sources (id, kind, location, filter)"
                                 " VALUES (1, 'bench', '', ''); BEGIN") < 0)
                return 1;
        if (sqlite3_prepare_v2(db, journal ? store_floor_journal_sql : store_floor_syslog_sql, -1,
                               &st, NULL) != SQLITE_OK) {
                fprintf(stderr, "store_floor: %s\n", sqlite3_errmsg(db));
                return 1;
        }
        for (i = 0; i < n; i++) {
                if (journal)
                        store_floor_journal(st, i, msg, sizeof(msg));
                else
                        store_floor_syslog(st, i, msg, sizeof(msg));
                if (sqlite3_step(st) != SQLITE_DONE) {
                        fprintf(stderr, "store_floor: row %ld: %s\n", i, sqlite3_errmsg(db));
                        return 1;
                }
                sqlite3_reset(st);
                if (safe && i % 10000 == 9999 && store_floor_exec(db, "COMMIT; BEGIN") < 0)
                        return 1;
        }
        sqlite3_finalize(st);
        if (store_floor_exec(db, "COMMIT") < 0)
                return 1;
        sqlite3_close(db);
        printf("%ld rows %.3f seconds\n", n, store_floor_now() - t0);
        free(schema);
        return 0;
}
