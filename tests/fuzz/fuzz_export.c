/*
 * fuzz_export.c - libFuzzer target for traceql's journal export reader.
 *
 * The input is an export stream (what `journalctl -o export` writes).  It is
 * imported from a memory stream (import_export_stream on fmemopen) into a
 * fresh in-memory traceql database, through the same ingest path as
 * `traceql import --export`, then the per-event views are queried, since the
 * import creates them from names found in the input.
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct tq_error err;
        sqlite3 *db = NULL;
        uint64_t added = 0;
        char *copy;
        FILE *f = NULL;

        copy = malloc(size + 1);
        if (!copy)
                return 0;
        memcpy(copy, data, size);
        if (store_open(":memory:", STORE_WRITE, &db, &err) < 0)
                goto out;
        f = fmemopen(copy, size ? size : 1, "r");
        if (!f)
                goto out;
        if (size == 0)
                (void) getc(f);
        if (import_export_stream(db, f, "fuzz", "fuzz", &added, &err) == 0)
                fuzz_views(db);
out:
        if (f)
                fclose(f);
        sqlite3_close_v2(db);
        free(copy);
        return 0;
}
