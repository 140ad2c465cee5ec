/*
 * regexp.c - the SQL REGEXP operator for traceql, backed by PCRE2 with JIT.
 *
 * SQLite turns `X REGEXP P` into regexp(P, X).  Each connection keeps the
 * last REGEXP_CACHE patterns it compiled, so a pattern is compiled once, not
 * once per row, whether it is a constant or comes from a column or a
 * subquery (SQLite's auxiliary data only lasts for a constant); the JIT
 * makes the match itself cheap (not under valgrind, which cannot follow JIT
 * code).  Patterns are UTF-8 (PCRE2_UTF with PCRE2_MATCH_INVALID_UTF so
 * invalid bytes in journal strings do not abort the query).  A bad pattern,
 * and a match past PCRE2's limits, is an SQL error naming the pattern
 * (escaped, as the table shows text) and PCRE2's reason.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <errno.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifndef RUNNING_ON_VALGRIND
#define RUNNING_ON_VALGRIND 0
#endif

#include "traceql.h"

#define REGEXP_CACHE 16
/* The heap PCRE2's interpreter may take for one match's backtracking, KiB
 * (its default is 20 GB): '^(a|b)*$' on a subject of 1 MB takes 330 MB. */
#define REGEXP_HEAP_KIB (256 * 1024)

/* A compiled pattern, its text, its match data and context. */
struct regexp {
        pcre2_code *code;
        pcre2_match_data *match;
        pcre2_match_context *mctx;
        int len;
        char pattern[];
};

/* A connection's compiled patterns: slot NEXT is replaced next, LAST
 * matched last. */
struct regexp_cache {
        struct regexp *re[REGEXP_CACHE];
        unsigned next, last;
};

static void regexp_free(struct regexp *re)
{
        if (!re)
                return;
        pcre2_match_data_free(re->match);
        pcre2_match_context_free(re->mctx);
        pcre2_code_free(re->code);
        sqlite3_free(re);
}

static void regexp_cache_free(void *p)
{
        struct regexp_cache *c = p;
        unsigned i;

        for (i = 0; c && i < REGEXP_CACHE; i++)
                regexp_free(c->re[i]);
        sqlite3_free(c);
}

/* Set the SQL error "REGEXP 'PATTERN': REASON".  The message quotes the
 * pattern's first REGEXP_QUOTE bytes through query_escape(), so invalid
 * UTF-8 and control bytes (a NUL too) show as \xHH, and a cut inside a
 * character cannot leave a broken one. */
#define REGEXP_QUOTE 128
static void regexp_error(sqlite3_context *ctx, const char *pattern, int len, const char *reason)
{
        char msg[4 * REGEXP_QUOTE + 256];
        char *quote;

        quote = query_escape((const unsigned char *) pattern,
                             len > REGEXP_QUOTE ? REGEXP_QUOTE : (size_t) len);
        if (!quote) {
                sqlite3_result_error_nomem(ctx);
                return;
        }
        snprintf(msg, sizeof(msg), "REGEXP '%s%s': %s", quote, len > REGEXP_QUOTE ? "..." : "",
                 reason);
        sqlite3_result_error(ctx, msg, -1);
        free(quote);
}

/* Compile PATTERN; on failure set the SQL error and return NULL. */
static struct regexp *regexp_compile(sqlite3_context *ctx, const char *pattern, int len)
{
        char reason[160], where[200];
        struct regexp *re;
        PCRE2_SIZE erroff;
        int errcode;

        re = sqlite3_malloc64(sizeof(*re) + (size_t) len + 1);
        if (!re) {
                sqlite3_result_error_nomem(ctx);
                return NULL;
        }
        re->match = NULL;
        re->mctx = NULL;
        re->len = len;
        memcpy(re->pattern, pattern, (size_t) len);
        re->pattern[len] = '\0';
        re->code = pcre2_compile((PCRE2_SPTR) pattern, (PCRE2_SIZE) len,
                                 PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, &errcode, &erroff, NULL);
        if (!re->code) {
                pcre2_get_error_message(errcode, (PCRE2_UCHAR *) reason, sizeof(reason));
                snprintf(where, sizeof(where), "%s at offset %zu", reason, (size_t) erroff);
                regexp_error(ctx, pattern, len, where);
                regexp_free(re);
                return NULL;
        }
        /* Without JIT PCRE2 interprets the pattern; under valgrind JIT code
         * only gives false reports. */
        if (!RUNNING_ON_VALGRIND)
                (void) pcre2_jit_compile(re->code, PCRE2_JIT_COMPLETE);
        re->match = pcre2_match_data_create_from_pattern(re->code, NULL);
        re->mctx = pcre2_match_context_create(NULL);
        if (re->mctx)
                (void) pcre2_set_heap_limit(re->mctx, REGEXP_HEAP_KIB);
        if (!re->match || !re->mctx) {
                sqlite3_result_error_nomem(ctx);
                regexp_free(re);
                return NULL;
        }
        return re;
}

static bool regexp_is(const struct regexp *re, const char *pattern, int len)
{
        return re && re->len == len && memcmp(re->pattern, pattern, (size_t) len) == 0;
}

/* The compiled PATTERN, from the cache or compiled into it; NULL with the
 * SQL error set. */
static struct regexp *regexp_get(sqlite3_context *ctx, const char *pattern, int len)
{
        struct regexp_cache *c = sqlite3_user_data(ctx);
        struct regexp *re;
        unsigned i;

        if (regexp_is(c->re[c->last], pattern, len))
                return c->re[c->last];
        for (i = 0; i < REGEXP_CACHE; i++)
                if (regexp_is(c->re[i], pattern, len)) {
                        c->last = i;
                        return c->re[i];
                }
        re = regexp_compile(ctx, pattern, len);
        if (!re)
                return NULL;
        i = c->next;
        c->next = (i + 1) % REGEXP_CACHE;
        regexp_free(c->re[i]);
        c->re[i] = re;
        c->last = i;
        return re;
}

static void regexp_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
        const unsigned char *pattern, *subject;
        struct regexp *re;
        int rc;

        (void) argc;
        if (sqlite3_value_type(argv[0]) == SQLITE_NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL)
                return;
        pattern = sqlite3_value_text(argv[0]);
        if (!pattern) {
                sqlite3_result_error_nomem(ctx);
                return;
        }
        re = regexp_get(ctx, (const char *) pattern, sqlite3_value_bytes(argv[0]));
        if (!re)
                return;
        subject = sqlite3_value_text(argv[1]);
        if (!subject) {
                sqlite3_result_error_nomem(ctx);
                return;
        }
        rc = pcre2_match(re->code, subject, (PCRE2_SIZE) sqlite3_value_bytes(argv[1]), 0, 0,
                         re->match, re->mctx);
        /* JIT code backtracks on a stack of its own, 32 KiB: a group repeated
         * over a long subject ('^(.)*$' on 1500 bytes) fills it.  PCRE2's
         * interpreter keeps its backtracking on the heap, within the same
         * match limit and REGEXP_HEAP_KIB: it answers then. */
        if (rc == PCRE2_ERROR_JIT_STACKLIMIT)
                rc = pcre2_match(re->code, subject, (PCRE2_SIZE) sqlite3_value_bytes(argv[1]), 0,
                                 PCRE2_NO_JIT, re->match, re->mctx);
        if (rc >= 0)
                sqlite3_result_int(ctx, 1);
        else if (rc == PCRE2_ERROR_NOMATCH)
                sqlite3_result_int(ctx, 0);
        else if (rc == PCRE2_ERROR_NOMEMORY)
                sqlite3_result_error_nomem(ctx);
        else {
                /* a limit: "match limit exceeded" for a pattern that
                 * backtracks without end, '(a+)+$' on a long run of a's */
                char reason[160];

                pcre2_get_error_message(rc, (PCRE2_UCHAR *) reason, sizeof(reason));
                regexp_error(ctx, re->pattern, re->len, reason);
        }
}

int regexp_register(sqlite3 *db)
{
        struct regexp_cache *c = sqlite3_malloc(sizeof(*c));
        int rc;

        if (!c)
                return -ENOMEM;
        memset(c, 0, sizeof(*c));
        /* on failure SQLite calls regexp_cache_free() itself */
        rc = sqlite3_create_function_v2(db, "regexp", 2,
                                        SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
                                        c, regexp_fn, NULL, NULL, regexp_cache_free);
        if (rc == SQLITE_NOMEM)
                return -ENOMEM;
        return rc == SQLITE_OK ? 0 : -EIO;
}
