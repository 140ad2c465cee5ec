/*
 * fuzz_xentrace.c - libFuzzer target for the xentrace importer: a formats
 * file and a trace in one input, the trace parsed into an in-memory
 * database, in a transaction rolled back after each run, once as standard
 * input and once as a regular file (whose last record may be cut short).
 *
 * The input is a 16-bit little-endian length N, N bytes of formats file,
 * then the trace: the fuzzer mutates the split like any other byte.  N 0 (or
 * an input under 2 bytes, all trace) takes the small formats file below;
 * formats that fail to load are followed by the trace with the small file
 * too, so that every input reaches the trace parser.  A length past the end
 * takes the rest as formats and leaves the trace empty.
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

/* The formats file of the input, N bytes at DATA: NULL when it does not
 * load (the error is the one traceql would print, not printed here). */
static struct xen_ctx *fuzz_formats_load(const uint8_t *data, size_t n)
{
        struct xen_ctx *c = NULL;
        struct tq_error err;
        char *copy;
        FILE *f;

        copy = malloc(n);
        if (!copy)
                return NULL;
        memcpy(copy, data, n);
        f = fmemopen(copy, n, "r");
        if (f) {
                if (import_xentrace_formats(&c, "fuzz.formats", f, &err) < 0)
                        c = NULL;
                fclose(f);
        }
        free(copy);
        return c;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct xen_ctx *own = NULL;
        struct ingest *ing = NULL;
        struct tq_error err;
        size_t n = 0, used;

        if (!fuzz_db && fuzz_setup() < 0)
                __builtin_trap();
        if (size >= 2) {
                n = (size_t) data[0] | (size_t) data[1] << 8;
                data += 2;
                size -= 2;
                if (n > size)
                        n = size;
                if (n > 0)
                        own = fuzz_formats_load(data, n);
                data += n;
                size -= n;
        }
        used = size;
        if (ingest_begin(fuzz_db, "xentrace", "fuzz", "", &ing, NULL, NULL, &err) < 0)
                __builtin_trap();
        (void) import_xentrace_parse(ing, own ? own : fuzz_ctx, "fuzz", data, size, 0, NULL, &err);
        if (import_xentrace_parse(ing, own ? own : fuzz_ctx, "fuzz", data, size, 0, &used,
                                  &err) == 0 && used > size)
                __builtin_trap();
        ingest_end(ing, false, NULL, NULL);
        import_xentrace_free(own);
        return 0;
}
