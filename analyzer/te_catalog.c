/*
 * te_catalog.c - trace-events files loaded for the binary and text importers.
 *
 * A simpletrace file names its events but does not say what their arguments
 * are; an ftrace marker line or a xentrace record carries values without
 * types.  The importers take the declarations from the trace-events files
 * given with --events, parsed by tracegen's own parser (te_parse.c), so that
 * an imported event gets the same TRACE_ARGS signature and the same MESSAGE
 * ("<event> <format rendered>") as one that went through journald.
 *
 * It also holds the small helpers the importers share to build an
 * ingest_entry from values rather than from "NAME=value" journal fields.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "traceql.h"
#include "tracegen/te.h"

struct te_catalog {
        struct te_list *list;
        uint32_t *index;                /* open addressing: event number + 1, 0 empty */
        size_t index_size;              /* a power of two, over twice the events */
};

int te_catalog_new(struct te_catalog **ret_cat)
{
        struct te_catalog *cat = calloc(1, sizeof(*cat));

        if (!cat)
                return -ENOMEM;
        cat->list = te_list_new();
        if (!cat->list) {
                free(cat);
                return -ENOMEM;
        }
        *ret_cat = cat;
        return 0;
}

void te_catalog_free(struct te_catalog *cat)
{
        if (!cat)
                return;
        te_list_free(cat->list);
        free(cat->index);
        free(cat);
}

/* The parser prints "tracegen: FILE:LINE:COL: msg" lines: keep the first,
 * without the prefix and the newline. */
static void te_catalog_first_error(const char *text, struct tq_error *err, const char *path)
{
        const char *p = text;
        size_t n;

        if (strncmp(p, "tracegen: ", 10) == 0)
                p += 10;
        n = strcspn(p, "\n");
        if (n == 0)
                tq_error_set(err, -EINVAL, "%s: invalid trace-events file", path);
        else
                tq_error_set(err, -EINVAL, "%.*s", (int) n, p);
}

static uint64_t te_catalog_hash(const char *s, size_t n)
{
        uint64_t h = 1469598103934665603ULL;

        while (n--)
                h = (h ^ (unsigned char) *s++) * 1099511628211ULL;
        return h;
}

/* Rebuild the name index over every event (te_parse_file() refuses a name
 * declared twice; were one there, the later declaration would win, as in
 * te_pattern.c). */
static int te_catalog_reindex(struct te_catalog *cat)
{
        size_t size = 64, i, j;
        uint32_t *index;

        while (size < cat->list->n * 2 + 2)
                size *= 2;
        index = calloc(size, sizeof(*index));
        if (!index)
                return -ENOMEM;
        for (i = 0; i < cat->list->n; i++) {
                const char *name = cat->list->events[i].name;
                size_t n = strlen(name);

                for (j = te_catalog_hash(name, n) & (size - 1); index[j]; j = (j + 1) & (size - 1))
                        if (strcmp(cat->list->events[index[j] - 1].name, name) == 0)
                                break;
                index[j] = (uint32_t) i + 1;
        }
        free(cat->index);
        cat->index = index;
        cat->index_size = size;
        return 0;
}

int te_list_load(struct te_list *list, const char *path, FILE *f, struct tq_error *err)
{
        char *text = NULL;
        size_t size = 0;
        FILE *msgs;
        int r;

        msgs = open_memstream(&text, &size);
        if (!msgs)
                return tq_error_set(err, -ENOMEM, "out of memory");
        /* logs of QEMU before 9.1 hold events whose format has a newline */
        list->newline_ok = true;
        r = te_parse_file(list, path, f, msgs);
        fclose(msgs);
        if (r == -ENOMEM)
                tq_error_set(err, r, "out of memory");
        else if (r == -EINVAL)
                te_catalog_first_error(text ? text : "", err, path);
        else if (r < 0)
                tq_error_set(err, r, "%s: %s", path, strerror(-r));
        free(text);
        return r;
}

int te_catalog_add(struct te_catalog *cat, const char *path, FILE *f, struct tq_error *err)
{
        int r = te_list_load(cat->list, path, f, err);

        if (r == 0 && te_catalog_reindex(cat) < 0)
                r = tq_error_set(err, -ENOMEM, "out of memory");
        return r;
}

/* Standard input as a trace-events file, read whole the first time it is
 * opened: import --ftrace loads its --events twice (its catalog here, its
 * patterns in te_pattern.c).  Kept until the process ends. */
static char *te_stdin_text;
static size_t te_stdin_size;
static bool te_stdin_read;

int te_events_open(const char *path, FILE **ret_f, const char **ret_name, struct tq_error *err)
{
        char buf[65536];
        FILE *m;
        size_t n;

        if (strcmp(path, "-") != 0) {
                *ret_name = path;
                *ret_f = fopen(path, "re");
                if (!*ret_f)
                        return tq_error_set(err, -errno, "%s: %s", path, strerror(errno));
                return 0;
        }
        *ret_name = "<stdin>";
        if (!te_stdin_read) {
                m = open_memstream(&te_stdin_text, &te_stdin_size);
                if (!m)
                        return tq_error_set(err, -ENOMEM, "out of memory");
                while ((n = fread(buf, 1, sizeof(buf), stdin)) > 0)
                        if (fwrite(buf, 1, n, m) != n)
                                break;
                if (ferror(stdin)) {
                        int e = errno ? errno : EIO;

                        fclose(m);
                        return tq_error_set(err, -e, "<stdin>: %s", strerror(e));
                }
                if (fclose(m) != 0 || n > 0)
                        return tq_error_set(err, -ENOMEM, "out of memory");
                te_stdin_read = true;
        }
        *ret_f = fmemopen(te_stdin_text, te_stdin_size, "r");
        if (!*ret_f)
                return tq_error_set(err, -ENOMEM, "out of memory");
        return 0;
}

int te_catalog_add_path(struct te_catalog *cat, const char *path, struct tq_error *err)
{
        const char *name;
        FILE *f;
        int r;

        r = te_events_open(path, &f, &name, err);
        if (r < 0)
                return r;
        r = te_catalog_add(cat, name, f, err);
        fclose(f);
        return r;
}

const struct te_event *te_catalog_find(const struct te_catalog *cat, const char *name, size_t len)
{
        size_t j, mask;

        if (!cat || !cat->index)
                return NULL;
        mask = cat->index_size - 1;
        for (j = te_catalog_hash(name, len) & mask; cat->index[j]; j = (j + 1) & mask) {
                const struct te_event *ev = &cat->list->events[cat->index[j] - 1];

                if (strlen(ev->name) == len && memcmp(ev->name, name, len) == 0)
                        return ev;
        }
        return NULL;
}

char te_catalog_kind(const struct te_arg *a)
{
        switch (a->kind) {
        case TE_KIND_SIGNED: return 'i';
        case TE_KIND_UNSIGNED: return 'u';
        case TE_KIND_POINTER: return 'p';
        default: return 's';
        }
}

/*
 * Is A written as a string (u32 length, bytes) in a simpletrace file?  As
 * QEMU's simple backend decides (tracetool's is_string()): by the type as
 * written, one that begins with 'const char *' or 'char *' and has one '*',
 * the conversion not looked at.  'char const *', 'unsigned char *', 'signed
 * char *' and 'char **' are addresses there, a u64, even when printed with
 * %s; a 'const char *' printed with %p is a string.  tracegen's spelling has
 * one space between words and before the first '*'.
 */
bool te_catalog_is_string(const struct te_arg *a)
{
        const char *t = a->type.spelling;

        return a->type.ptr == 1 && t &&
               (strncmp(t, "const char *", 12) == 0 || strncmp(t, "char *", 6) == 0);
}

/* ---- rendering the format ---- */

bool te_catalog_in_conv(const char *s, size_t n)
{
        size_t i = n, k;

        while (i > 0 && s[i - 1] && strchr("#0- +'123456789.*", s[i - 1]))
                i--;
        if (i == 0 || s[i - 1] != '%')
                return false;
        /* "%%" is a percent sign: an odd run of '%' opens a conversion */
        for (k = i - 1; k > 0 && s[k - 1] == '%'; k--)
                ;
        return (i - k) % 2 == 1;
}

#define TE_CATALOG_PRI(w) { "PRId" #w, PRId##w }, { "PRIi" #w, PRIi##w }, \
        { "PRIo" #w, PRIo##w }, { "PRIu" #w, PRIu##w }, { "PRIx" #w, PRIx##w }, \
        { "PRIX" #w, PRIX##w }

/* The PRI macros tracegen takes (te_format.c), as this <inttypes.h> spells them. */
static const struct {
        const char *name;
        const char *text;
} te_catalog_pri[] = {
        TE_CATALOG_PRI(8), TE_CATALOG_PRI(16), TE_CATALOG_PRI(32), TE_CATALOG_PRI(64),
        TE_CATALOG_PRI(PTR), TE_CATALOG_PRI(MAX), TE_CATALOG_PRI(LEAST8),
        TE_CATALOG_PRI(LEAST16), TE_CATALOG_PRI(LEAST32), TE_CATALOG_PRI(LEAST64),
        TE_CATALOG_PRI(FAST8), TE_CATALOG_PRI(FAST64),
};

const char *te_catalog_pri_text(const char *name, size_t len)
{
        for (size_t i = 0; i < sizeof(te_catalog_pri) / sizeof(te_catalog_pri[0]); i++)
                if (strlen(te_catalog_pri[i].name) == len &&
                    strncmp(te_catalog_pri[i].name, name, len) == 0)
                        return te_catalog_pri[i].text;
        return NULL;
}

size_t te_catalog_ucn(const char *p, char *buf)
{
        unsigned digits = p[1] == 'u' ? 4 : 8, k;
        unsigned long v = 0;

        for (k = 0; k < digits; k++)
                v = v * 16 + (unsigned long) te_format_hex(p[2 + k]);
        return te_format_utf8_put(v, buf);
}

/* Decode the format as written (C literals and PRI macros) into a plain
 * printf format in BUF; a PRI macro becomes its conversion letter, after
 * "ll" when it names a 64-bit type (PRIx64, PRIxPTR, PRIxMAX), as glibc's
 * "lx" on LP64: the length says how many bits the conversion prints. */
static void te_catalog_decode(const char *fmt, char *buf, size_t size)
{
        const char *p = fmt, *suffix;
        size_t n = 0;
        bool in = false;

        while (*p && n + 3 < size) {
                if (!in) {
                        if (*p == '"')
                                in = true;
                        else if (strncmp(p, "PRI", 3) == 0 && p[3]) {
                                const char *name = p, *text;
                                char conv = p[3];

                                p += 3;
                                suffix = p + 1;
                                while (p[1] && (p[1] == '_' || (p[1] >= 'A' && p[1] <= 'Z') ||
                                                (p[1] >= '0' && p[1] <= '9')))
                                        p++;
                                text = te_catalog_in_conv(buf, n) ? NULL :
                                       te_catalog_pri_text(name, (size_t) (p + 1 - name));
                                if (text) {
                                        while (*text && n + 3 < size)
                                                buf[n++] = *text++;
                                } else if ((p + 1 - suffix >= 2 && strncmp(p - 1, "64", 2) == 0) ||
                                    (p + 1 - suffix == 3 && (strncmp(suffix, "PTR", 3) == 0 ||
                                                             strncmp(suffix, "MAX", 3) == 0))) {
                                        buf[n++] = 'l';
                                        buf[n++] = 'l';
                                        buf[n++] = conv;
                                } else {
                                        buf[n++] = conv;
                                }
                        }
                        p++;
                        continue;
                }
                if (*p == '"') {
                        in = false;
                        p++;
                        continue;
                }
                if (*p == '\\' && (p[1] == 'u' || p[1] == 'U')) {
                        if (n + 5 > size)
                                break;
                        n += te_catalog_ucn(p, buf + n);
                        p += p[1] == 'u' ? 6 : 10;
                        continue;
                }
                if (*p == '\\' && p[1] >= '0' && p[1] <= '7') {
                        /* octal, up to 3 digits (tracegen took it: not 0,
                         * not past \377) */
                        unsigned v = 0, k;

                        for (k = 0, p++; k < 3 && *p >= '0' && *p <= '7'; k++, p++)
                                v = v * 8 + (unsigned) (*p - '0');
                        buf[n++] = (char) v;
                        continue;
                }
                if (*p == '\\' && p[1] == 'x' && te_format_hex(p[2]) >= 0) {
                        unsigned v = 0;

                        for (p += 2; te_format_hex(*p) >= 0; p++)
                                v = v * 16 + (unsigned) te_format_hex(*p);
                        buf[n++] = (char) v;
                        continue;
                }
                if (*p == '\\' && p[1]) {
                        static const char simple[] = "a\ab\bf\fn\nr\rt\tv\v";
                        const char *e = strchr(simple, p[1]);

                        /* the others (\\ \" \' \?) are the character */
                        buf[n++] = e && (e - simple) % 2 == 0 ? e[1] : p[1];
                        p += 2;
                        continue;
                }
                buf[n++] = *p++;
        }
        buf[n] = '\0';
}

/* Append TEXT (LEN bytes) as printf's %s or %p writes it under SPEC (from
 * '%' to the letter, lengths removed, a star's value written in): at most
 * the precision's bytes (%s), padded with spaces to the width, on the right
 * with the '-' flag. */
static void te_catalog_pad(sqlite3_str *s, const char *spec, const char *text, size_t len)
{
        const char *q = spec + 1;
        unsigned long width, prec;
        bool left = false;
        char *end;

        len = strnlen(text, len);       /* a C string's, as printf reads it */
        for (; *q && strchr("#0- +'", *q); q++)
                left |= *q == '-';
        width = strtoul(q, &end, 10);
        if (*end == '.') {
                prec = strtoul(end + 1, NULL, 10);
                if (prec < len)
                        len = (size_t) prec;
        }
        if (!left && width > len)
                sqlite3_str_appendchar(s, (int) (width - len), ' ');
        sqlite3_str_append(s, text, (int) len);
        if (left && width > len)
                sqlite3_str_appendchar(s, (int) (width - len), ' ');
}

/* Render one conversion SPEC (from '%' to the letter, lengths removed, a
 * star's value written in) with V, an integer conversion on BITS bits as
 * printf reads its argument: %x of an int -1 is ffffffff, %hd of 65535 is
 * -1.  False when out of memory. */
static bool te_catalog_conv(sqlite3_str *s, const char *spec, char conv, unsigned bits,
                            const struct tq_value *v)
{
        char f[64], out[128], *big = NULL;
        uint64_t u = v->u;
        int len;

        /* a simpletrace file holds what QEMU's simple backend decides by
         * the type (te_catalog_is_string()): the address of a %s argument
         * ('unsigned char *'), the string of a %p one ('const char *') */
        if (conv == 's' || conv == 'p') {
                const char *text = out;
                size_t n;

                if (v->str && !v->absent) {
                        text = v->str;
                        n = v->len;
                } else if (v->u && (!v->absent || conv == 'p')) {
                        n = (size_t) snprintf(out, sizeof(out), "0x%llx",
                                              (unsigned long long) v->u);
                } else if (conv == 'p') {
                        text = "(nil)";
                        n = 5;
                } else {
                        /* glibc writes "(null)" only when the precision
                         * leaves room for all of it, nothing otherwise */
                        const char *dot = strchr(spec, '.');

                        text = "(null)";
                        n = dot && strtoul(dot + 1, NULL, 10) < 6 ? 0 : 6;
                }
                te_catalog_pad(s, spec, text, n);
                return true;
        }
        /* a number kept as text, which its kind cannot have (an ftrace
         * marker's i64=9223372036854775808): as written, not as 0 or as the
         * pattern another kind would make of it */
        if (v->str && !v->absent) {
                /* the width pads it; a precision, digits to a number, does
                 * not cut it */
                snprintf(f, sizeof(f), "%.*s", (int) strcspn(spec, "."), spec);
                te_catalog_pad(s, f, v->str, v->len);
                return true;
        }
        /* d i u x X o: cut to BITS, sign-extended for d and i; then widen
         * to long long */
        if (bits < 64) {
                u &= (UINT64_C(1) << bits) - 1;
                if ((conv == 'd' || conv == 'i') && (u >> (bits - 1)) & 1)
                        u |= ~((UINT64_C(1) << bits) - 1);
        }
        snprintf(f, sizeof(f), "%.*s%s%c", (int) strlen(spec) - 1, spec,
                 conv == 'c' ? "" : "ll", conv);
        /* a width past the buffer (%200d) is written whole, as printf does */
        for (int pass = 0; pass < 2; pass++) {
                char *buf = pass ? big : out;
                size_t size = pass ? (size_t) len + 1 : sizeof(out);

                if (conv == 'c')
                        len = snprintf(buf, size, f, (int) v->u);
                else if (conv == 'd' || conv == 'i')
                        len = snprintf(buf, size, f, (long long) u);
                else
                        len = snprintf(buf, size, f, (unsigned long long) u);
                if (len < 0)
                        break;          /* a width past INT_MAX: nothing, as printf */
                if ((size_t) len < sizeof(out) || pass) {
                        sqlite3_str_appendall(s, buf);  /* %c of 0: nothing */
                        break;
                }
                big = malloc((size_t) len + 1);
                if (!big)
                        return false;
        }
        free(big);
        return true;
}

char *te_catalog_render(const struct te_event *ev, const struct tq_value *v, unsigned n)
{
        sqlite3_str *s = sqlite3_str_new(NULL);
        char local[1024], *fmt = local, spec[64];
        const char *p;
        unsigned i = 0;

        /* "name " even when the format prints nothing, as the library writes
         * MESSAGE (record_message()) and QEMU's log backend its lines */
        sqlite3_str_appendall(s, ev->name);
        sqlite3_str_appendchar(s, 1, ' ');
        if (!ev->fmt_empty) {
                /* no step writes more than it reads (PRIx64 is "lx" or "llx",
                 * \U0001F600 4 bytes), so the format as written, with room
                 * for te_catalog_decode()'s margin, holds it whole; one
                 * row after another, on the stack unless it is long */
                size_t size = strlen(ev->fmt) + 8;

                if (size > sizeof(local))
                        fmt = malloc(size);
                if (!fmt) {
                        sqlite3_free(sqlite3_str_finish(s));
                        return NULL;
                }
                te_catalog_decode(ev->fmt, fmt, size);
                for (p = fmt; *p; p++) {
                        size_t k = 0, nl = 0, nh = 0;

                        if (*p != '%') {
                                sqlite3_str_appendchar(s, 1, *p);
                                continue;
                        }
                        if (p[1] == '%') {
                                sqlite3_str_appendchar(s, 1, '%');
                                p++;
                                continue;
                        }
                        spec[k++] = *p++;
                        while (*p && strchr("#0- +'123456789.*hlLqjzt", *p) && k + 14 < sizeof(spec)) {
                                if (*p == '*' && i < n) {
                                        /* the width or precision is the
                                         * next value, an int: written in
                                         * as printf reads it, a negative
                                         * width the '-' flag, a negative
                                         * precision none */
                                        long long w = (int) v[i++].u;
                                        bool prec = spec[k - 1] == '.';

                                        if (prec && w < 0)
                                                k--;
                                        else
                                                k += (size_t) snprintf(spec + k, sizeof(spec) - k,
                                                                       "%s%lld", w < 0 ? "-" : "",
                                                                       w < 0 ? -w : w);
                                } else if (*p == 'h')
                                        nh++;
                                else if (strchr("lLqjzt", *p))
                                        nl++;
                                else if (*p != '*')
                                        spec[k++] = *p;
                                p++;
                        }
                        if (!*p)
                                break;
                        spec[k++] = *p;
                        spec[k] = '\0';
                        if (i < n && strchr("diouxXcsp", *p) &&
                            !te_catalog_conv(s, spec, *p, nl ? 64 : nh > 1 ? 8 : nh ? 16 : 32,
                                             &v[i++])) {
                                if (fmt != local)
                                        free(fmt);
                                sqlite3_free(sqlite3_str_finish(s));
                                return NULL;
                        }
                }
        }
        if (fmt != local)
                free(fmt);
        return sqlite3_str_finish(s);
}

/* ---- entries ---- */

int te_catalog_field(struct ingest_entry *e, const char *name, const char *value, size_t len)
{
        size_t nlen = strlen(name);
        char small[256], *buf = small;
        int r;

        if (nlen + 1 + len > sizeof(small)) {
                buf = malloc(nlen + 1 + len);
                if (!buf)
                        return -ENOMEM;
        }
        memcpy(buf, name, nlen);
        buf[nlen] = '=';
        memcpy(buf + nlen + 1, value, len);
        r = ingest_entry_add(e, buf, nlen + 1 + len);
        if (buf != small)
                free(buf);
        return r;
}

int te_catalog_field_int(struct ingest_entry *e, const char *name, int64_t v)
{
        char num[32];

        return te_catalog_field(e, name, num, (size_t) snprintf(num, sizeof(num), "%" PRId64, v));
}

int te_catalog_entry(struct ingest_entry *e, const struct te_event *ev, const struct tq_value *v)
{
        char sig[TE_MAX_ARGS * 64], field[80], num[32];
        char *msg;
        size_t k = 0;
        unsigned i;
        int r = 0;

        r = te_catalog_field(e, "TRACE_EVENT", ev->name, strlen(ev->name));
        for (i = 0; r == 0 && i < ev->nargs; i++) {
                const struct te_arg *a = &ev->args[i];
                char kind = te_catalog_kind(a);
                size_t n;

                k += (size_t) snprintf(sig + k, sizeof(sig) - k, "%s%s:%c", i ? " " : "",
                                       a->name, kind);
                snprintf(field, sizeof(field), "TRACE_ARG_%s", a->name);
                for (n = 10; field[n]; n++)
                        if (field[n] >= 'a' && field[n] <= 'z')
                                field[n] = (char) (field[n] - 32);
                if (v[i].absent)
                        continue;
                if (v[i].str || kind == 's') {
                        if (v[i].str)
                                r = te_catalog_field(e, field, v[i].str, v[i].len);
                        continue;
                }
                if (kind == 'p')
                        n = (size_t) snprintf(num, sizeof(num), "0x%" PRIx64, v[i].u);
                else if (kind == 'i')
                        n = (size_t) snprintf(num, sizeof(num), "%" PRId64, (int64_t) v[i].u);
                else
                        n = (size_t) snprintf(num, sizeof(num), "%" PRIu64, v[i].u);
                r = te_catalog_field(e, field, num, n);
        }
        if (r == 0)
                r = te_catalog_field(e, "TRACE_ARGS", sig, k);
        if (r < 0)
                return r;
        msg = te_catalog_render(ev, v, ev->nargs);
        if (!msg)
                return -ENOMEM;
        r = te_catalog_field(e, "MESSAGE", msg, strlen(msg));
        sqlite3_free(msg);
        return r;
}
