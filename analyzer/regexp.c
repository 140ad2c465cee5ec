/*
 * regexp.c - the SQL REGEXP operator for traceql, backed by PCRE2 with JIT.
 *
 * SQLite turns `X REGEXP P` into regexp(P, X).  The pattern is compiled once
 * and kept as SQLite auxiliary data on the pattern argument, so a constant
 * pattern is compiled once per statement, not once per row; the JIT makes the
 * match itself cheap (not under valgrind, which cannot follow JIT code).  Patterns are UTF-8 (PCRE2_UTF with PCRE2_MATCH_INVALID_UTF
 * so invalid bytes in journal strings do not abort the query).  A bad pattern
 * is an SQL error naming the pattern and PCRE2's reason.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <errno.h>
#include <pcre2.h>
#include <stdio.h>
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifndef RUNNING_ON_VALGRIND
#define RUNNING_ON_VALGRIND 0
#endif

#include "traceql.h"

/* The compiled pattern and its match data, freed by SQLite. */
struct regexp {
        pcre2_code *code;
        pcre2_match_data *match;
};

static void regexp_free(void *p)
{
        struct regexp *re = p;

        if (!re)
                return;
        pcre2_match_data_free(re->match);
        pcre2_code_free(re->code);
        sqlite3_free(re);
}

/* Compile PATTERN; on failure set the SQL error and return NULL. */
static struct regexp *regexp_compile(sqlite3_context *ctx, const char *pattern, int len)
{
        char msg[256], reason[160];
        struct regexp *re;
        PCRE2_SIZE erroff;
        int errcode;

        re = sqlite3_malloc(sizeof(*re));
        if (!re) {
                sqlite3_result_error_nomem(ctx);
                return NULL;
        }
        re->match = NULL;
        re->code = pcre2_compile((PCRE2_SPTR) pattern, (PCRE2_SIZE) len,
                                 PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, &errcode, &erroff, NULL);
        if (!re->code) {
                pcre2_get_error_message(errcode, (PCRE2_UCHAR *) reason, sizeof(reason));
                snprintf(msg, sizeof(msg), "REGEXP '%s': %s at offset %zu", pattern, reason,
                         (size_t) erroff);
                sqlite3_result_error(ctx, msg, -1);
                regexp_free(re);
                return NULL;
        }
        /* Without JIT PCRE2 interprets the pattern; under valgrind JIT code
         * only gives false reports. */
        if (!RUNNING_ON_VALGRIND)
                (void) pcre2_jit_compile(re->code, PCRE2_JIT_COMPLETE);
        re->match = pcre2_match_data_create_from_pattern(re->code, NULL);
        if (!re->match) {
                sqlite3_result_error_nomem(ctx);
                regexp_free(re);
                return NULL;
        }
        return re;
}

static void regexp_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
        struct regexp *re;
        const unsigned char *subject;
        int rc;

        (void) argc;
        if (sqlite3_value_type(argv[0]) == SQLITE_NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL)
                return;
        re = sqlite3_get_auxdata(ctx, 0);
        if (!re) {
                re = regexp_compile(ctx, (const char *) sqlite3_value_text(argv[0]),
                                    sqlite3_value_bytes(argv[0]));
                if (!re)
                        return;
                sqlite3_set_auxdata(ctx, 0, re, regexp_free);
                re = sqlite3_get_auxdata(ctx, 0);       /* SQLite may have freed it already */
                if (!re) {
                        sqlite3_result_error_nomem(ctx);
                        return;
                }
        }
        subject = sqlite3_value_text(argv[1]);
        if (!subject) {
                sqlite3_result_error_nomem(ctx);
                return;
        }
        rc = pcre2_match(re->code, subject, (PCRE2_SIZE) sqlite3_value_bytes(argv[1]), 0, 0,
                         re->match, NULL);
        if (rc >= 0)
                sqlite3_result_int(ctx, 1);
        else if (rc == PCRE2_ERROR_NOMATCH)
                sqlite3_result_int(ctx, 0);
        else
                sqlite3_result_error(ctx, "REGEXP: match failed (resource limit)", -1);
}

int regexp_register(sqlite3 *db)
{
        int rc;

        rc = sqlite3_create_function(db, "regexp", 2,
                                     SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
                                     NULL, regexp_fn, NULL, NULL);
        if (rc == SQLITE_NOMEM)
                return -ENOMEM;
        return rc == SQLITE_OK ? 0 : -EIO;
}
