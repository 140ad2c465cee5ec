/*
 * fuzz_xentrace.c - libFuzzer target for the xentrace importer: any input is
 * parsed into an in-memory database, in a transaction rolled back after each
 * run, once as standard input and once as a regular file (whose last record
 * may be cut short), with a small formats file so that rendering is exercised
 * too.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traceql.h"

static const char fuzz_formats[] =
        "0x00021011  CPU%(cpu)d  %(tsc)d (+%(reltsc)8d)  running_to_runnable [ dom:vcpu = 0x%(1)08x ]\n"
        "0x00081002  CPU%(cpu)d  %(tsc)d (+%(reltsc)8d)  VMEXIT [ exitcode = 0x%(1)08x, rIP = 0x%(2)08x ]\n"
        "0x00082001  %(event)x %(7)-5s %(3)c %(4)e %%\n"
        "0x00012345  %(1)5lc %(2)-3hc %(3)Lc %(reltsc)c %(4)ld\n";

static sqlite3 *fuzz_db;
static struct xen_ctx *fuzz_ctx;

/* Closed at exit, so that memcheck and LeakSanitizer see nothing left. */
static void fuzz_close(void)
{
        sqlite3_close_v2(fuzz_db);
        import_xentrace_free(fuzz_ctx);
}

static int fuzz_setup(void)
{
        struct tq_error err;
        FILE *f;
        int r;

        if (atexit(fuzz_close) != 0)
                return -1;
        if (store_open(":memory:", STORE_WRITE, &fuzz_db, &err) < 0)
                return -1;
        f = fmemopen((void *) fuzz_formats, sizeof(fuzz_formats) - 1, "r");
        if (!f)
                return -1;
        r = import_xentrace_formats(&fuzz_ctx, "fuzz.formats", f, &err);
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
        if (ingest_begin(fuzz_db, "xentrace", "fuzz", "", &ing, NULL, NULL, &err) < 0)
                __builtin_trap();
        (void) import_xentrace_parse(ing, fuzz_ctx, "fuzz", data, size, 0, NULL, &err);
        if (import_xentrace_parse(ing, fuzz_ctx, "fuzz", data, size, 0, &used, &err) == 0 &&
            used > size)
                __builtin_trap();
        ingest_end(ing, false, NULL, NULL);
        return 0;
}
