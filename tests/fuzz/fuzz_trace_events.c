/*
 * fuzz_trace_events.c - libFuzzer target for tracegen's trace-events parser.
 *
 * The input is one trace-events file.  It is parsed as tracegen parses it
 * (te_parse_file on a stream, errors printed to /dev/null), and when it parses
 * cleanly the header and source are rendered in memory, since what the parser
 * accepts (names, formats) is pasted into C code by the emitter.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "te.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *fuzz_devnull(void)
{
        static FILE *null;

        if (!null)
                null = fopen("/dev/null", "we");
        return null;
}

/* Render the generated code into a memory stream and throw it away. */
static void fuzz_emit(const struct te_list *list)
{
        const struct te_emit_opts o = { .group = "fuzz", .header_include = "trace.h" };
        char *buf = NULL;
        size_t len = 0;
        FILE *out;

        out = open_memstream(&buf, &len);
        if (!out)
                return;
        (void) te_emit_header(list, &o, out);
        (void) te_emit_source(list, &o, out);
        fclose(out);
        free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct te_list *list;
        char *copy;
        FILE *f;

        /* fmemopen wants a buffer of at least one byte. */
        copy = malloc(size + 1);
        if (!copy)
                return 0;
        memcpy(copy, data, size);
        f = fmemopen(copy, size ? size : 1, "r");
        if (!f)
                goto out;
        if (size == 0)
                (void) getc(f);         /* an empty file: consume the placeholder byte */
        list = te_list_new();
        if (list && te_parse_file(list, "fuzz.trace-events", f, fuzz_devnull()) == 0)
                fuzz_emit(list);
        te_list_free(list);
        fclose(f);
out:
        free(copy);
        return 0;
}
