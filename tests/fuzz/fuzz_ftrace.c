/*
 * fuzz_ftrace.c - libFuzzer target for the ftrace text importer: any
 * input is parsed into an in-memory database, in a transaction rolled back
 * after each run, twice: as a file (a last line without its newline left
 * alone) and as standard input (WHOLE: that line parsed as it is, the lines
 * a text goes on with up to the end).  Our marker lines are typed by the
 * events of tests/simpletrace/tgroup.trace-events.
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
static struct te_patterns *fuzz_patterns;

/* Closed at exit, so that memcheck and LeakSanitizer see nothing left. */
static void fuzz_close(void)
{
        sqlite3_close_v2(fuzz_db);
        te_catalog_free(fuzz_cat);
        te_patterns_free(fuzz_patterns);
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
        rewind(f);
        if (r == 0)
                r = te_patterns_new(&fuzz_patterns);
        if (r == 0)
                r = te_patterns_add(fuzz_patterns, "fuzz.trace-events", f, &err);
        fclose(f);
        return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct tq_error err;
        int whole;

        if (!fuzz_db && fuzz_setup() < 0)
                __builtin_trap();
        for (whole = 0; whole < 2; whole++) {
                struct ingest *ing = NULL;

                if (ingest_begin(fuzz_db, "ftrace", "fuzz", "", &ing, NULL, NULL, &err) < 0)
                        __builtin_trap();
                (void) import_ftrace_parse(ing, fuzz_cat, fuzz_patterns, "fuzz", data, size, 0,
                                           whole, &err);
                ingest_end(ing, false, NULL, NULL);
        }
        return 0;
}
