/*
 * fuzz_export.c - libFuzzer target for traceql's journal export reader.
 *
 * The input is an export stream (what `journalctl -o export` writes).  It is
 * imported from a memory stream (import_export_stream on fmemopen) into an
 * in-memory traceql database, through the same ingest path as `traceql
 * import --export`, then the per-event views are queried, since the import
 * creates them from names found in the input.  The database is opened once
 * (creating the schema costs more than most inputs) and emptied after each
 * input: rows deleted, the views the input created dropped, so every input
 * starts from the same state.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traceql.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Read every per-event view the import created (names come from the input). */
static void fuzz_views(sqlite3 *db)
{
        sqlite3_stmt *st = NULL;
        char *sql;

        if (sqlite3_prepare_v2(db, "SELECT name FROM sqlite_schema WHERE type = 'view'",
                               -1, &st, NULL) != SQLITE_OK)
                goto out;
        while (sqlite3_step(st) == SQLITE_ROW) {
                sql = sqlite3_mprintf("SELECT * FROM \"%w\"", (const char *) sqlite3_column_text(st, 0));
                if (sql)
                        (void) sqlite3_exec(db, sql, NULL, NULL, NULL);
                sqlite3_free(sql);
        }
out:
        sqlite3_finalize(st);
}

/* Empty every table but meta, drop the views the last input created. */
static int fuzz_reset(sqlite3 *db)
{
        static const char sql[] =
                "SELECT 'DELETE FROM \"' || name || '\"' FROM sqlite_schema "
                "WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'meta' "
                "UNION ALL SELECT 'DROP VIEW \"' || name || '\"' FROM sqlite_schema "
                "WHERE type = 'view' AND name NOT IN (SELECT name FROM temp.fuzz_views)";
        sqlite3_stmt *st = NULL;
        char *stmts[64];
        int n = 0, r = 0;

        if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
                return -1;
        while (n < 64 && sqlite3_step(st) == SQLITE_ROW)
                stmts[n++] = sqlite3_mprintf("%s", (const char *) sqlite3_column_text(st, 0));
        if (sqlite3_step(st) == SQLITE_ROW)
                r = -1;         /* more than 64: start afresh */
        sqlite3_finalize(st);
        for (int i = 0; i < n; i++) {
                if (!stmts[i] || sqlite3_exec(db, stmts[i], NULL, NULL, NULL) != SQLITE_OK)
                        r = -1;
                sqlite3_free(stmts[i]);
        }
        return r;
}

static sqlite3 *db;

/* At exit, so that leak checkers see a clean end. */
static void fuzz_close(void)
{
        sqlite3_close_v2(db);
        db = NULL;
}

static sqlite3 *fuzz_db(void)
{
        static bool registered;
        struct tq_error err;

        if (db && fuzz_reset(db) == 0)
                return db;
        sqlite3_close_v2(db);
        db = NULL;
        if (!registered)
                registered = atexit(fuzz_close) == 0;
        if (store_open(":memory:", STORE_WRITE, &db, &err) < 0)
                return NULL;
        if (sqlite3_exec(db, "CREATE TEMP TABLE fuzz_views AS "
                         "SELECT name FROM sqlite_schema WHERE type = 'view'",
                         NULL, NULL, NULL) != SQLITE_OK) {
                sqlite3_close_v2(db);
                db = NULL;
        }
        return db;
}

static char fuzz_buf[127];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct tq_error err;
        uint64_t added = 0;
        char *copy;
        FILE *f = NULL;

        copy = malloc(size + 1);
        if (!copy)
                return 0;
        memcpy(copy, data, size);
        if (!fuzz_db())
                goto out;
        f = fmemopen(copy, size ? size : 1, "r");
        if (!f)
                goto out;
        /* An input of odd length is read through a stdio buffer of 1 to
         * 127 bytes, so that its lines straddle the buffer's ends, as a
         * file's do at 4096-byte boundaries (import_getline() takes a line
         * a run at a time from the buffer); an even one through stdio's
         * own (BUFSIZ: a fuzzer's input fits in it). */
        if (size % 2 == 1 && setvbuf(f, fuzz_buf, _IOFBF, 1 + size % 127) != 0)
                goto out;
        if (size == 0)
                (void) getc(f);
        if (import_export_stream(db, f, "fuzz", "fuzz", &added, &err) == 0)
                fuzz_views(db);
out:
        if (f)
                fclose(f);
        free(copy);
        return 0;
}
