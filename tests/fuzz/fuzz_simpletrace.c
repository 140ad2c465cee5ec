/*
 * fuzz_simpletrace.c - libFuzzer target for the simpletrace importer: any
 * input is parsed into an in-memory database, in a transaction rolled back
 * after each run, once as standard input and once as a regular file (whose
 * last record may be cut short).  The events are those of
 * tests/simpletrace/tgroup.trace-events.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traceql.h"

static const char fuzz_events[] =
        "tga_all(int64_t i64, uint64_t u64, void *ptr, const char *s, int i32, uint8_t u8) "
        "\"i64 %\" PRId64 \" u64 %\" PRIu64 \" ptr %p s %s i32 %d u8 %u\"\n"
        "tga_void(void) \"nothing\"\n"
        "tgb_req(void *req, uint64_t sector, const char *name) "
        "\"req %p sector %\" PRIu64 \" name %s\"\n"
        "tgb_done(void *req) \"req %p\"\n";

static sqlite3 *fuzz_db;
static struct te_catalog *fuzz_cat;

/* Closed at exit, so that memcheck and LeakSanitizer see nothing left. */
static void fuzz_close(void)
{
        sqlite3_close_v2(fuzz_db);
        te_catalog_free(fuzz_cat);
}

static int fuzz_setup(void)
{
        struct tq_error err;
        FILE *f;
        int r;

        if (atexit(fuzz_close) != 0)
                return -1;
        if (store_open(":memory:", STORE_WRITE, &fuzz_db, &err) < 0 || te_catalog_new(&fuzz_cat) < 0)
                return -1;
        f = fmemopen((void *) fuzz_events, sizeof(fuzz_events) - 1, "r");
        if (!f)
                return -1;
        r = te_catalog_add(fuzz_cat, "fuzz.trace-events", f, &err);
        fclose(f);
        return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct ingest *ing = NULL;
        struct tq_error err;
        size_t used = size;

        if (!fuzz_db && fuzz_setup() < 0)
                __builtin_trap();
        if (ingest_begin(fuzz_db, "simpletrace", "fuzz", "", &ing, NULL, NULL, &err) < 0)
                __builtin_trap();
        (void) import_simpletrace_parse(ing, fuzz_cat, "fuzz", data, size, 0, NULL, &err);
        if (import_simpletrace_parse(ing, fuzz_cat, "fuzz", data, size, 0, &used, &err) == 0 &&
            used > size)
                __builtin_trap();
        ingest_end(ing, false, NULL, NULL);
        return 0;
}
