/*
 * fuzz_trace_events.c - libFuzzer target for the trace-events parser, as its
 * two users load a file.
 *
 * The input is one trace-events file.  It is parsed as tracegen parses it
 * (te_parse_file on a stream, errors printed to /dev/null), and when it parses
 * cleanly the header and source are rendered in memory, since what the parser
 * accepts (names, formats) is pasted into C code by the emitter.  It is then
 * loaded as traceql's --events loads it (te_catalog.c, te_pattern.c), which
 * accepts more than tracegen (a '\n' inside a format, as QEMU before 9.1
 * wrote): into a catalog, each event looked up by name, and into a set of
 * patterns, each event's pattern compiled and matched against a message made
 * of its name and its format as written.  Nothing is printed; everything is
 * freed before the next input.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "te.h"
#include "traceql.h"

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

/* A stream over COPY (SIZE bytes); fmemopen wants a buffer of at least one
 * byte, so an empty input has its placeholder byte consumed. */
static FILE *fuzz_open(char *copy, size_t size)
{
        FILE *f = fmemopen(copy, size ? size : 1, "r");

        if (f && size == 0)
                (void) getc(f);
        return f;
}

/* tracegen's way: te_parse_file(), and the emitter when it parses. */
static void fuzz_tracegen(char *copy, size_t size)
{
        struct te_list *list;
        FILE *f = fuzz_open(copy, size);

        if (!f)
                return;
        list = te_list_new();
        if (list && te_parse_file(list, "fuzz.trace-events", f, fuzz_devnull()) == 0)
                fuzz_emit(list);
        te_list_free(list);
        fclose(f);
}

/* Match EV's pattern in P against "NAME FORMAT" (the format as written: a
 * literal one matches, one with conversions mostly not, but its pattern is
 * built and compiled either way). */
static void fuzz_match(struct te_patterns *p, const struct te_event *ev)
{
        struct ingest_entry e = { 0 };
        size_t nl = strlen(ev->name), fl = ev->fmt ? strlen(ev->fmt) : 0;
        char *msg = malloc(nl + 1 + fl);

        if (!msg)
                return;
        memcpy(msg, ev->name, nl);
        msg[nl] = ' ';
        if (fl)
                memcpy(msg + nl + 1, ev->fmt, fl);
        (void) te_patterns_signature(p, msg, nl);
        (void) te_patterns_newlines(p, msg, nl);
        (void) te_patterns_match(p, msg, nl + 1 + fl, &e);
        ingest_entry_free(&e);
        free(msg);
}

/* traceql's way (--events): the catalog and the patterns, each from its own
 * stream as import --ftrace reads the file twice; the list the events are
 * walked in is loaded as both load theirs (te_list_load()). */
static void fuzz_traceql(char *copy, size_t size)
{
        struct te_catalog *cat = NULL;
        struct te_patterns *pat = NULL;
        struct te_list *list = NULL;
        struct tq_error err;
        FILE *f = NULL;
        size_t i;

        if (te_catalog_new(&cat) < 0 || te_patterns_new(&pat) < 0)
                goto out;
        list = te_list_new();
        if (!list)
                goto out;
        f = fuzz_open(copy, size);
        if (!f || te_list_load(list, "fuzz.trace-events", f, &err) < 0)
                goto out;
        fclose(f);
        f = fuzz_open(copy, size);
        if (!f || te_catalog_add(cat, "fuzz.trace-events", f, &err) < 0)
                goto out;
        fclose(f);
        f = fuzz_open(copy, size);
        if (!f || te_patterns_add(pat, "fuzz.trace-events", f, &err) < 0)
                goto out;
        for (i = 0; i < list->n; i++) {
                const struct te_event *ev = &list->events[i];

                if (!te_catalog_find(cat, ev->name, strlen(ev->name)))
                        __builtin_trap();       /* loaded, so it is there */
                fuzz_match(pat, ev);
        }
out:
        if (f)
                fclose(f);
        te_list_free(list);
        te_patterns_free(pat);
        te_catalog_free(cat);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char *copy;

        copy = malloc(size + 1);
        if (!copy)
                return 0;
        memcpy(copy, data, size);
        fuzz_tracegen(copy, size);
        fuzz_traceql(copy, size);
        free(copy);
        return 0;
}
