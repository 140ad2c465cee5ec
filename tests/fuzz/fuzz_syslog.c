/*
 * fuzz_syslog.c - libFuzzer target for traceql's syslog importer.
 *
 * The input is a syslog file (RFC 3164, rsyslog's file format, RFC 5424 with
 * STRUCTURED-DATA).  It is imported from a memory stream (import_text_stream
 * on fmemopen) into a fresh in-memory traceql database through the same path
 * as `traceql import --syslog`, with the patterns of a fixed trace-events
 * text (blockdemo's events, plus formats with widths, hex, chars and '*'), so
 * both the line parser and the format -> pattern matching are exercised.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traceql.h"

#define FUZZ_FORMAT (&import_syslog_format)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char fuzz_events[] =
        "blk_dev_open(const char *name, uint64_t nb_sectors) \"name %s nb_sectors %\" PRIu64\n"
        "blk_req_submit(void *req, uint64_t sector, unsigned nb_sectors, int is_write) "
        "\"req %p sector %\" PRIu64 \" nb_sectors %u is_write %d\"\n"
        "blk_req_complete(void *req, int ret) \"req %p ret %d\"\n"
        "blk_req_error(void *req, uint64_t sector, const char *reason) "
        "\"req %p sector %\" PRIu64 \" reason %s\"\n"
        "blk_drain_all(void) \"all requests done\"\n"
        "fz_hex(uint32_t v, uint64_t p, char c) \"v=%08x p=0x%\" PRIx64 \" c=%c\"\n"
        "fz_width(int a, unsigned b, const char *s) \"[%-5d|%5u|%.3s] (%%)\"\n"
        "fz_star(int w, int v, unsigned o) \"%*d o%#o\"\n";

static struct te_patterns *fuzz_patterns(void)
{
        static struct te_patterns *p;
        struct tq_error err;
        FILE *f;

        if (p)
                return p;
        if (te_patterns_new(&p) < 0)
                abort();
        f = fmemopen((void *) fuzz_events, sizeof(fuzz_events) - 1, "r");
        if (!f || te_patterns_add(p, "fuzz-events", f, &err) < 0)
                abort();
        fclose(f);
        return p;
}

static char fuzz_buf[127];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct import_text_stats st;
        struct tq_error err;
        sqlite3 *db = NULL;
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
        /* An input of odd length is read through a stdio buffer of 1 to
         * 127 bytes, so that its lines straddle the buffer's ends, as a
         * file's do at 4096-byte boundaries (import_getline() takes a line
         * a run at a time from the buffer); an even one through stdio's
         * own (BUFSIZ: a fuzzer's input fits in it). */
        if (size % 2 == 1 && setvbuf(f, fuzz_buf, _IOFBF, 1 + size % 127) != 0)
                goto out;
        if (size == 0)
                (void) getc(f);
        (void) import_text_stream(db, FUZZ_FORMAT, f, "fuzz", "fuzz", fuzz_patterns(),
                                  1795305600, &st, &err);
        (void) sqlite3_exec(db, "SELECT * FROM args", NULL, NULL, NULL);
out:
        if (f)
                fclose(f);
        sqlite3_close_v2(db);
        free(copy);
        return 0;
}
