/*
 * te_pattern.c - typed arguments back from text: trace-events formats as
 * PCRE2 patterns.
 *
 * A text log (syslog, QEMU's log backend, our log output) holds each event as
 * "<event> <rendered format>".  Given the trace-events files that declared the
 * events (read with tracegen's own parser, backend/tracegen/te_parse.c), the
 * first word names the event and its format, turned into an anchored PCRE2
 * pattern with one capture per argument, gives the arguments back:
 *
 *     "req %p sector %" PRIu64 " ret %d"  ->  ^req (0x[0-9a-f]+|\(nil\)) sector
 *                                             ([-+]?[0-9]+) ret ([-+]?[0-9]+)\z
 *
 * Literal text matches itself; %s matches lazily (so the literal after it
 * decides where it ends); a width allows the spaces printf pads with (on
 * the left, on the right with '-', none with '0'), and the ' ' flag one
 * before the number ("% d" writes " 5").  Captured
 * numbers are written back in the form ingest.c types (decimal; 0x-hex for
 * pointers), "(nil)" becomes 0x0 and a "(null)" string no value at all.
 * Patterns are compiled (with JIT) the first time their event is seen, so
 * loading QEMU's thousands of events costs only the parse.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <errno.h>
#include <inttypes.h>
#include <pcre2.h>
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
#include "tracegen/te.h"

struct te_pattern_event {
        const struct te_event *ev;      /* borrowed from the te_list */
        pcre2_code *code;               /* NULL until first used */
        bool failed;                    /* the pattern did not compile: never matches */
        char sig[TQ_MAX_ARGS * 64];     /* "name:k name:k", for TRACE_ARGS */
        char conv[TQ_MAX_ARGS];         /* printf conversion of each argument, 0 for none */
        unsigned char bits[TQ_MAX_ARGS];        /* its width: %x of an int -1 is 32 f's */
        unsigned group[TQ_MAX_ARGS];    /* capture group of each argument, 0 for none */
        unsigned newlines;              /* '\n' in the format, once counted */
        bool newlines_counted;
};

struct te_patterns {
        struct te_list *list;
        struct te_pattern_event *events;        /* open addressing on the name, */
        size_t size;                            /* a power of two, or 0 */
        size_t n;
        pcre2_match_data *md;
        char *field;                            /* "TRACE_ARG_name=value" scratch */
        size_t field_size;
        char *msg;                              /* the message being matched, copied: */
        size_t msg_size;                        /* adding fields may move the entry's buffer */
};

static uint64_t te_pattern_hash(const char *s, size_t n)
{
        uint64_t h = 1469598103934665603ULL;
        size_t i;

        for (i = 0; i < n; i++)
                h = (h ^ (unsigned char) s[i]) * 1099511628211ULL;
        return h;
}

int te_patterns_new(struct te_patterns **ret)
{
        struct te_patterns *p = calloc(1, sizeof(*p));

        if (!p)
                return -ENOMEM;
        p->list = te_list_new();
        p->md = pcre2_match_data_create(TQ_MAX_ARGS + 2, NULL);
        if (!p->list || !p->md) {
                te_patterns_free(p);
                return -ENOMEM;
        }
        *ret = p;
        return 0;
}

void te_patterns_free(struct te_patterns *p)
{
        size_t i;

        if (!p)
                return;
        for (i = 0; i < p->size; i++)
                pcre2_code_free(p->events[i].code);
        free(p->events);
        te_list_free(p->list);
        pcre2_match_data_free(p->md);
        free(p->field);
        free(p->msg);
        free(p);
}

static char te_pattern_kind(enum te_kind k)
{
        switch (k) {
        case TE_KIND_SIGNED: return 'i';
        case TE_KIND_UNSIGNED: return 'u';
        case TE_KIND_POINTER: return 'p';
        default: return 's';
        }
}

/* Rebuild the hash table over every event of the list (te_parse_file()
 * refuses a name declared twice; were one there, the later file's would
 * win). */
static int te_patterns_index(struct te_patterns *p)
{
        size_t size = 64, i, j, mask;
        struct te_pattern_event *t;

        while (size < p->list->n * 2)
                size *= 2;
        t = calloc(size, sizeof(*t));
        if (!t) {
                /* no index rather than one into a list that may have moved */
                for (i = 0; i < p->size; i++)
                        pcre2_code_free(p->events[i].code);
                free(p->events);
                p->events = NULL;
                p->size = p->n = 0;
                return -ENOMEM;
        }
        mask = size - 1;
        p->n = 0;
        for (i = 0; i < p->list->n; i++) {
                const struct te_event *ev = &p->list->events[i];
                size_t len = strlen(ev->name);
                struct te_pattern_event *pe;

                for (j = te_pattern_hash(ev->name, len) & mask; t[j].ev; j = (j + 1) & mask)
                        if (strcmp(t[j].ev->name, ev->name) == 0)
                                break;
                pe = &t[j];
                if (!pe->ev)
                        p->n++;
                memset(pe, 0, sizeof(*pe));
                pe->ev = ev;
                for (unsigned a = 0; a < ev->nargs; a++)
                        snprintf(pe->sig + strlen(pe->sig), sizeof(pe->sig) - strlen(pe->sig),
                                 "%s%s:%c", a ? " " : "", ev->args[a].name,
                                 te_pattern_kind(ev->args[a].kind));
        }
        for (i = 0; i < p->size; i++)
                pcre2_code_free(p->events[i].code);
        free(p->events);
        p->events = t;
        p->size = size;
        return 0;
}

int te_patterns_add(struct te_patterns *p, const char *path, FILE *f, struct tq_error *err)
{
        int r = te_list_load(p->list, path, f, err);

        /* even when the file failed: the events it added before the error
         * may have moved the list the index points into */
        if (te_patterns_index(p) < 0 && r == 0)
                r = tq_error_set(err, -ENOMEM, "out of memory");
        return r;
}

int te_patterns_load(struct te_patterns *p, char *const *files, struct tq_error *err)
{
        int r = 0;

        for (; files && *files && r == 0; files++) {
                const char *name;
                FILE *f;

                r = te_events_open(*files, &f, &name, err);
                if (r < 0)
                        return r;
                r = te_patterns_add(p, name, f, err);
                fclose(f);
        }
        return r;
}

size_t te_patterns_count(const struct te_patterns *p)
{
        return p ? p->n : 0;
}

/* ---- format -> pattern ------------------------------------------------ */

static int te_pattern_hexdigit(char c)
{
        if (c >= '0' && c <= '9')
                return c - '0';
        if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
                return (c | 0x20) - 'a' + 10;
        return -1;
}

/* The byte of the C escape at *PP (just after its backslash); *PP is left
 * on the escape's last character. */
static unsigned te_pattern_escape(const char **pp)
{
        static const char simple[] = "a\ab\bf\fn\nr\rt\tv\v";
        const char *p = *pp;
        unsigned v = 0, k;

        for (k = 0; simple[k]; k += 2)
                if (simple[k] == *p)
                        return (unsigned char) simple[k + 1];
        if (*p == 'x') {
                for (; p[1] && te_pattern_hexdigit(p[1]) >= 0; p++)
                        v = v * 16 + (unsigned) te_pattern_hexdigit(p[1]);
        } else if (*p >= '0' && *p <= '7') {
                for (k = 0; k < 3 && *p >= '0' && *p <= '7'; k++, p++)
                        v = v * 8 + (unsigned) (*p - '0');
                p--;
        } else
                v = (unsigned char) *p;
        *pp = p;
        return v;
}

/* Decode the format as written (C literals and PRI macros) into the string
 * printf sees, a PRI macro becoming the length modifier of its width and its
 * conversion.  The format was checked by te_format.c, so this only has to be
 * right on valid input. */
static void te_pattern_decode(const char *fmt, sqlite3_str *out)
{
        const char *p = fmt;

        while (*p) {
                if (*p == '"') {
                        for (p++; *p && *p != '"'; p++) {
                                unsigned v = (unsigned char) *p;
                                char u[4];

                                if (*p == '\\' && (p[1] == 'u' || p[1] == 'U')) {
                                        sqlite3_str_append(out, u, (int) te_catalog_ucn(p, u));
                                        p += p[1] == 'u' ? 5 : 9;
                                        continue;
                                }
                                if (*p == '\\') {
                                        p++;
                                        if (!*p)
                                                return;
                                        v = te_pattern_escape(&p);
                                }
                                sqlite3_str_appendchar(out, 1, (char) v);
                        }
                        if (*p)
                                p++;
                } else if (*p == 'P' && strncmp(p, "PRI", 3) == 0 && p[3]) {
                        const char *m = p, *d, *text;
                        char conv = p[3];

                        while ((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                               (*p >= 'a' && *p <= 'z') || *p == '_')
                                p++;
                        /* (sqlite3_str_value() is NULL only for length 0) */
                        text = te_catalog_in_conv(sqlite3_str_value(out),
                                                  (size_t) sqlite3_str_length(out)) ? NULL :
                               te_catalog_pri_text(m, (size_t) (p - m));
                        if (text) {
                                /* outside a conversion: the text it stands for */
                                sqlite3_str_appendall(out, text);
                                continue;
                        }
                        for (d = p; d > m && d[-1] >= '0' && d[-1] <= '9'; d--)
                                ;
                        /* the length modifier of the macro's width */
                        sqlite3_str_appendf(out, "%s%c", p - d == 1 ? "hh" :
                                            p - d == 2 && d[0] == '1' ? "h" :
                                            p - d == 2 && d[0] == '3' ? "" : "ll", conv);
                } else
                        p++;
        }
}

/* Append byte C to the pattern, matching itself. */
static void te_pattern_literal(sqlite3_str *re, unsigned char c)
{
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            c >= 0x80)
                sqlite3_str_appendchar(re, 1, (char) c);
        else if (c < 0x20 || c == 0x7f || c == ' ')
                sqlite3_str_appendf(re, "\\x%02x", c);
        else {
                sqlite3_str_appendchar(re, 1, '\\');
                sqlite3_str_appendchar(re, 1, (char) c);
        }
}

/* The subpattern of one conversion. */
static const char *te_pattern_conv(char conv, bool hash)
{
        switch (conv) {
        case 'd': case 'i': case 'u':
                return "([-+]?[0-9]+)";
        case 'x': case 'X':
                return hash ? "((?:0[xX])?[0-9a-fA-F]+)" : "([0-9a-fA-F]+)";
        case 'o':
                return "([0-7]+)";
        case 'p':
                return "(0x[0-9a-fA-F]+|\\(nil\\))";
        case 'c':
                return "(.)";
        case 's':
                return "(.*?)";
        default:
                return "(\\S+?)";
        }
}

/*
 * Turn the printf format S into a pattern in RE; record in PE which group
 * holds which argument.  A '*' width or precision takes an argument that the
 * output does not show: that argument gets no group.
 */
static void te_pattern_build(struct te_pattern_event *pe, const char *s, sqlite3_str *re)
{
        unsigned arg = 0, group = 0;

        sqlite3_str_appendall(re, "^");
        while (*s) {
                bool hash = false, space = false, minus = false, zero = false, width = false;
                unsigned bits = 32;

                if (*s != '%' || s[1] == '%') {
                        te_pattern_literal(re, (unsigned char) *s);
                        s += *s == '%' ? 2 : 1;
                        continue;
                }
                for (s++; *s && strchr("-+ #0'", *s); s++) {
                        hash |= *s == '#';
                        space |= *s == ' ';
                        minus |= *s == '-';
                        zero |= *s == '0';
                }
                if (*s == '*') {
                        arg++;
                        s++;
                        width = true;
                }
                for (; *s >= '0' && *s <= '9'; s++)
                        width = true;
                if (*s == '.') {
                        for (s++; *s >= '0' && *s <= '9'; s++)
                                ;
                        if (*s == '*') {
                                arg++;
                                s++;
                        }
                }
                for (; *s && strchr("hljztLq", *s); s++)
                        bits = *s == 'h' ? (bits == 16 ? 8 : 16) : 64;
                if (!*s)
                        break;
                /* a width pads with spaces on the left, on the right with
                 * '-', with zeros (which the number takes) with '0': no
                 * more, or a neighbouring %s would lose its own spaces */
                if (width && !minus && !(zero && strchr("diouxX", *s)))
                        sqlite3_str_appendall(re, " *");
                else if (space)
                        sqlite3_str_appendall(re, " ?");        /* "% d": " 5", "-5" */
                sqlite3_str_appendall(re, te_pattern_conv(*s, hash));
                if (width && minus)
                        sqlite3_str_appendall(re, " *");
                group++;
                if (arg < TQ_MAX_ARGS) {
                        pe->conv[arg] = *s;
                        pe->bits[arg] = (unsigned char) bits;
                        pe->group[arg] = group;
                }
                arg++;
                s++;
        }
        sqlite3_str_appendall(re, "\\z");
}

/* Compile PE's pattern on first use; false when it has none. */
static bool te_pattern_compile(struct te_pattern_event *pe)
{
        sqlite3_str *fmt, *re;
        char *f, *pat;
        PCRE2_SIZE erroff;
        int errcode;

        if (pe->code || pe->failed)
                return pe->code != NULL;
        pe->failed = true;
        fmt = sqlite3_str_new(NULL);
        te_pattern_decode(pe->ev->fmt ? pe->ev->fmt : "", fmt);
        /* an empty format ("") finishes as NULL too: only the error code
         * tells it from a string that could not be allocated */
        if (sqlite3_str_errcode(fmt) != SQLITE_OK) {
                sqlite3_free(sqlite3_str_finish(fmt));
                return false;
        }
        f = sqlite3_str_finish(fmt);
        re = sqlite3_str_new(NULL);
        te_pattern_build(pe, f ? f : "", re);
        sqlite3_free(f);
        pat = sqlite3_str_finish(re);
        if (!pat)
                return false;
        pe->code = pcre2_compile((PCRE2_SPTR) pat, PCRE2_ZERO_TERMINATED, PCRE2_DOTALL,
                                 &errcode, &erroff, NULL);
        sqlite3_free(pat);
        if (!pe->code)
                return false;
        if (!RUNNING_ON_VALGRIND)       /* as in regexp.c: memcheck cannot follow JIT code */
                (void) pcre2_jit_compile(pe->code, PCRE2_JIT_COMPLETE);
        pe->failed = false;
        return true;
}

/* ---- matching --------------------------------------------------------- */

static struct te_pattern_event *te_patterns_find(const struct te_patterns *p, const char *name,
                                                 size_t n)
{
        size_t i, mask;

        if (!p || p->size == 0)
                return NULL;
        mask = p->size - 1;
        for (i = te_pattern_hash(name, n) & mask; p->events[i].ev; i = (i + 1) & mask) {
                const char *en = p->events[i].ev->name;

                /* NAME may hold a NUL: compare lengths, then bytes */
                if (strnlen(en, n + 1) == n && memcmp(en, name, n) == 0)
                        return &p->events[i];
        }
        return NULL;
}

const char *te_patterns_signature(const struct te_patterns *p, const char *event, size_t len)
{
        const struct te_pattern_event *pe = te_patterns_find(p, event, len);

        return pe ? pe->sig : NULL;
}

unsigned te_patterns_newlines(struct te_patterns *p, const char *event, size_t len)
{
        struct te_pattern_event *pe = p ? te_patterns_find(p, event, len) : NULL;
        sqlite3_str *s;
        const char *f;

        if (!pe)
                return 0;
        if (!pe->newlines_counted) {
                s = sqlite3_str_new(NULL);
                te_pattern_decode(pe->ev->fmt, s);
                f = sqlite3_str_value(s);
                for (pe->newlines = 0; f && (f = strchr(f, '\n')); f++)
                        pe->newlines++;
                pe->newlines_counted = sqlite3_str_errcode(s) == SQLITE_OK;
                sqlite3_free(sqlite3_str_finish(s));
        }
        return pe->newlines;
}

/* Parse S[0..N) in BASE (optional sign, optional 0x for 16); false when it
 * is not a whole number. */
static bool te_pattern_number(const char *s, size_t n, unsigned base, bool *ret_neg,
                              uint64_t *ret_v)
{
        uint64_t v = 0;
        size_t i = 0;

        *ret_neg = false;
        if (i < n && (s[i] == '-' || s[i] == '+'))
                *ret_neg = s[i++] == '-';
        if (base == 16 && n - i > 2 && s[i] == '0' && (s[i + 1] | 0x20) == 'x')
                i += 2;
        if (i == n)
                return false;
        for (; i < n; i++) {
                unsigned c = (unsigned char) s[i], d;

                if (c >= '0' && c <= '9')
                        d = c - '0';
                else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
                        d = (c | 0x20) - 'a' + 10;
                else
                        return false;
                if (d >= base || v > (UINT64_MAX - d) / base)
                        return false;
                v = v * base + d;
        }
        *ret_v = v;
        return true;
}

/* Write PREFIX and V in BASE (10 or 16, lower case) into BUF (32 bytes);
 * returns the length.  One call per captured number: no snprintf. */
static size_t te_pattern_format(char *buf, const char *prefix, uint64_t v, unsigned base)
{
        char digits[24];
        size_t n = 0, k = strlen(prefix);

        memcpy(buf, prefix, k);
        do {
                digits[n++] = "0123456789abcdef"[v % base];
                v /= base;
        } while (v);
        while (n)
                buf[k++] = digits[--n];
        buf[k] = '\0';
        return k;
}

/*
 * The value of one argument as ingest.c wants it: in *RET_V (BUF, SIZE >= 32
 * bytes, or the text itself), its length in *RET_N; *RET_V NULL for no value
 * (a "(null)" string).  False when printf could not have written S[0..N)
 * for conversion CONV of BITS bits: a number that does not parse (a pointer
 * of more than 64 bits) or is out of the conversion's range ("ret
 * 4294967296" for "ret %d"), or a '-' before an unsigned conversion, is none
 * of the event's values, and the line no event of this format, rather than
 * an event whose argument is text or a value its type cannot hold.
 */
static bool te_pattern_value(char conv, unsigned bits, char kind, const char *s, size_t n,
                             char *buf, size_t size, const char **ret_v, size_t *ret_n)
{
        unsigned base = conv == 'x' || conv == 'X' || conv == 'p' ? 16 : conv == 'o' ? 8 : 10;
        bool integer = conv && strchr("diouxXp", conv);
        unsigned width = bits > 64 || conv == 'p' ? 64 : bits;
        uint64_t v;
        bool neg;

        *ret_n = n;
        *ret_v = s;
        if (conv == 's') {
                if (n == 6 && memcmp(s, "(null)", 6) == 0)
                        *ret_v = NULL;
                return true;
        }
        if (conv == 'p' && n == 5 && memcmp(s, "(nil)", 5) == 0) {
                v = 0, neg = false;
        } else if (conv == 'c' && n == 1 && kind != 's') {
                /* a char argument is a number, as the library sends it */
                int c = kind == 'i' ? (signed char) s[0] : (unsigned char) s[0];

                *ret_n = (size_t) snprintf(buf, size, "%d", c);
                *ret_v = buf;
                return true;
        } else if (conv == 'c' || !te_pattern_number(s, n, base, &neg, &v)) {
                return !integer;
        } else if (integer && (conv == 'd' || conv == 'i'
                               ? v > (UINT64_C(1) << (width - 1)) - !neg
                               : neg || (width < 64 && v > (UINT64_C(1) << width) - 1))) {
                return false;
        }
        if (kind == 'i' && (base != 10 || conv == 'u') && !neg && (v >> (bits - 1)) & 1) {
                /* %x or %u of a negative int: sign-extend from its width
                 * (64 bits too: PRIx64 of an int64_t -1 is 16 f's) */
                v = (0 - v) & (bits < 64 ? (UINT64_C(1) << bits) - 1 : UINT64_MAX);
                neg = true;
        } else if (kind != 'i' && neg && bits < 64) {
                /* %d of an unsigned above INT_MAX: the unsigned value */
                v = (0 - v) & ((UINT64_C(1) << bits) - 1);
                neg = false;
        }
        if (kind == 'p')
                *ret_n = te_pattern_format(buf, "0x", neg ? 0 - v : v, 16);
        else if (neg && kind == 'i')
                *ret_n = te_pattern_format(buf, "-", v, 10);
        else
                *ret_n = te_pattern_format(buf, "", neg ? 0 - v : v, 10);
        *ret_v = buf;
        return true;
}

/* Add "PREFIX" + S[0..N) to E as one field. */
static int te_patterns_field(struct te_patterns *p, struct ingest_entry *e, const char *prefix,
                             const char *name, const char *s, size_t n)
{
        size_t pl = strlen(prefix), nl = strlen(name), need = pl + nl + 1 + n;

        if (need > p->field_size) {
                char *f = realloc(p->field, need * 2);

                if (!f)
                        return -ENOMEM;
                p->field = f;
                p->field_size = need * 2;
        }
        memcpy(p->field, prefix, pl);
        memcpy(p->field + pl, name, nl);
        p->field[pl + nl] = '=';
        memcpy(p->field + pl + nl + 1, s, n);
        return ingest_entry_add(e, p->field, need);
}

int te_patterns_match(struct te_patterns *p, const char *msg, size_t len, struct ingest_entry *e)
{
        const char *sp = memchr(msg, ' ', len), *rest;
        struct te_pattern_event *pe;
        size_t nlen = sp ? (size_t) (sp - msg) : len, rlen, vlens[TQ_MAX_ARGS];
        const char *vals[TQ_MAX_ARGS];
        char bufs[TQ_MAX_ARGS][32];
        PCRE2_SIZE *ov;
        unsigned i;
        int rc, r;

        pe = te_patterns_find(p, msg, nlen);
        if (!pe || !te_pattern_compile(pe))
                return 0;
        if (len + 1 > p->msg_size) {
                char *m = realloc(p->msg, len * 2 + 1);

                if (!m)
                        return -ENOMEM;
                p->msg = m;
                p->msg_size = len * 2 + 1;
        }
        memcpy(p->msg, msg, len);
        sp = sp ? p->msg + (sp - msg) : NULL;
        msg = p->msg;
        rest = sp ? sp + 1 : msg + len;
        rlen = (size_t) (msg + len - rest);
        rc = pcre2_match(pe->code, (PCRE2_SPTR) rest, rlen, 0, 0, p->md, NULL);
        if (rc < 0)
                return 0;
        ov = pcre2_get_ovector_pointer(p->md);
        /* every value first: one that printf could not have written makes
         * the line no event (te_pattern_value()) */
        for (i = 0; i < pe->ev->nargs && i < TQ_MAX_ARGS; i++) {
                unsigned g = pe->group[i];

                vals[i] = NULL;
                if (g && (int) g < rc && ov[2 * g] != PCRE2_UNSET &&
                    !te_pattern_value(pe->conv[i], pe->bits[i],
                                      te_pattern_kind(pe->ev->args[i].kind), rest + ov[2 * g],
                                      ov[2 * g + 1] - ov[2 * g], bufs[i], sizeof(bufs[i]),
                                      &vals[i], &vlens[i]))
                        return 0;
        }
        r = te_patterns_field(p, e, "", "TRACE_EVENT", msg, nlen);
        if (r == 0)
                r = te_patterns_field(p, e, "", "TRACE_ARGS", pe->sig, strlen(pe->sig));
        for (i = 0; r == 0 && i < pe->ev->nargs && i < TQ_MAX_ARGS; i++)
                if (vals[i])
                        r = te_patterns_field(p, e, "TRACE_ARG_", pe->ev->args[i].name, vals[i],
                                              vlens[i]);
        return r < 0 ? r : 1;
}
