/*
 * import_xentrace.c - Xen hypervisor trace records, as xentrace(8) writes
 * them, named and formatted through a xentrace `formats` file.
 *
 * The file is a sequence of struct t_rec (xen/include/public/trace.h), in
 * host byte order (the writer's and this one's: a file whose first record is
 * a byte-swapped CPU change record is an error that says so), 32-bit words:
 *
 *     u32 header     event id in bits 0-27, the count N of data words in
 *                    bits 28-30, bit 31 set when a TSC follows
 *     [u32 tsc_lo, u32 tsc_hi]
 *     u32 data[N]
 *
 * xentrace copies one per-CPU buffer window at a time, each preceded by a
 * TRC_TRACE_CPU_CHANGE record (0x0001f003, two data words: the CPU and the
 * byte count of the window that follows, no TSC: one with a TSC is an
 * error, as in xenalyze); records carry their CPU only through it.  One inside a window (its byte count too large, or not a
 * multiple of 4) is an error: xentrace writes the window whole after it.
 * TRC_LOST_RECORDS (0x0001f001, lost count in data[0]) becomes a tj_dropped
 * row; one without data words is an error, not 0 lost.
 * TRC_TRACE_WRAP_BUFFER (0x0001f002) is no row: Xen (insert_wrap_record() in
 * xen/common/trace.c) writes it to pad a buffer's last bytes, its header and
 * TSC only, its data words whatever the buffer held there (no data is
 * copied); xenalyze skips it.  Its TSC is a record's, for the next reltsc,
 * as xentrace_format counts it; the records skipped are counted, and
 * import_xentrace() says how many.
 *
 * A formats file (tools/xentrace/formats) has one line per event id:
 * "0x00021011  CPU%(cpu)d  %(tsc)d (+%(reltsc)8d)  running_to_runnable
 * [ dom:vcpu = 0x%(1)08x ]", a Python %-format over cpu, tsc, reltsc (TSC
 * since the previous record of that CPU), event and 1..7 (the data words),
 * as xentrace_format renders it (reltsc negative when the TSC stepped back,
 * as Python's is).  The row's MESSAGE is that text, its event
 * name the words after the CPU/TSC prefix up to '[' or a conversion, made an
 * identifier ("running_to_runnable", "csched:tickle" -> csched_tickle: see
 * xen_format_name()); an id without a line is "xen_<id in hex>", its
 * MESSAGE rendered by the line of id 0 when there is one (real formats
 * files have "0x00000000 ... unknown (0x%(event)016x) [ ... ]"), as
 * xentrace_format does.
 * Arguments: cpu, tsc (absent when the record has none) and d1..dN.  `seq`
 * counts the rows in file order (time order within one CPU); `mono` is
 * left empty, the TSC not being nanoseconds.
 *
 * Errors are "FILE:OFFSET: why" for the trace and "FILE:LINE: why" for the
 * formats file; nothing is imported.  xentrace writes a window at a time,
 * the file often ends inside one, and inside a record: the records of the
 * window there are imported, and a last record cut short by the end of the
 * file, what there is of it valid, is left for the next import (-ENODATA
 * inside); standard input is read once, and either is an error there.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "traceql.h"

#define XEN_CPU_CHANGE          0x0001f003u
#define XEN_LOST_RECORDS        0x0001f001u
#define XEN_WRAP_BUFFER         0x0001f002u
#define XEN_MAX_CPUS            65536
#define XEN_FORMAT_MAX          1024
/* A formats file's line: an id and a format of XEN_FORMAT_MAX bytes at most
 * take far less (Xen's own lines are under 200 bytes), a comment as long is
 * room enough; a text import's 256 MiB would be read into memory for none. */
#define XEN_FORMATS_MAX_LINE    ((size_t) 64 << 10)
#define XEN_WIDTH_MAX           255     /* of a conversion's width and precision */

struct xen_format {
        uint32_t id;
        char *fmt;
        char name[64];
};

struct xen_formats {
        struct xen_format *v;
        size_t n;
};

/* ---- the formats file ---- */

static bool xen_is_word_char(char c)
{
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_';
}

/* The key of a "%(key)" at P (after "%("): index into the values, -1 if bad. */
static int xen_key(const char *p, size_t n)
{
        static const char *const keys[] = { "cpu", "tsc", "reltsc", "event" };
        size_t i;

        for (i = 0; i < 4; i++)
                if (strlen(keys[i]) == n && memcmp(p, keys[i], n) == 0)
                        return (int) i;
        if (n == 1 && p[0] >= '1' && p[0] <= '7')
                return 4 + (p[0] - '1');
        return -1;
}

/*
 * The flags, width and precision of the conversion at *PP, as printf wants
 * them, into SPEC (32 bytes, after its '%'); *PP left on the conversion
 * character, past a length modifier (one h, l or L, which Python accepts
 * and ignores: "%(1)ld" is "%(1)d"; "%(1)lld" is an error there, and here
 * the second 'l' is no conversion).  Python takes every '0' before the
 * width as a flag, and so does this: "0000000008" is flag 0, width 8.
 * -ERANGE when the width or the precision is over XEN_WIDTH_MAX.
 */
static int xen_spec(const char **pp, char *spec)
{
        const char *p = *pp;
        unsigned long w;
        size_t n = 0;

        for (; *p && strchr("-+ #0", *p); p++)
                if (!memchr(spec, *p, n))
                        spec[n++] = *p;
        for (w = 0; *p >= '0' && *p <= '9'; p++)
                if ((w = w * 10 + (unsigned long) (*p - '0')) > XEN_WIDTH_MAX)
                        return -ERANGE;
        if (w)
                n += (size_t) snprintf(spec + n, 8, "%lu", w);
        if (*p == '.') {
                for (w = 0, p++; *p >= '0' && *p <= '9'; p++)
                        if ((w = w * 10 + (unsigned long) (*p - '0')) > XEN_WIDTH_MAX)
                                return -ERANGE;
                n += (size_t) snprintf(spec + n, 9, ".%lu", w);
        }
        if (*p == 'h' || *p == 'l' || *p == 'L')
                p++;
        spec[n] = '\0';
        *pp = p;
        return 0;
}

/* Walk FMT's conversions; false with *RET_BAD when one is not understood,
 * and *RET_WHY what is wrong with it: XEN_BAD_KEY (no key, or not one of
 * them), XEN_BAD_WIDE (its width or precision is too large), XEN_BAD_LENGTH
 * (a second length modifier: "%(1)lld") or XEN_BAD_CONV (no conversion
 * character, or one Python has not). */
enum { XEN_BAD_KEY, XEN_BAD_WIDE, XEN_BAD_LENGTH, XEN_BAD_CONV };

static bool xen_check_format(const char *fmt, const char **ret_bad, int *ret_why)
{
        const char *p;

        for (p = fmt; (p = strchr(p, '%')); ) {
                const char *k, *close;
                char spec[32];

                if (p[1] == '%') {
                        p += 2;
                        continue;
                }
                *ret_bad = p;
                *ret_why = XEN_BAD_KEY;
                if (p[1] != '(')
                        return false;
                k = p + 2;
                close = strchr(k, ')');
                if (!close || xen_key(k, (size_t) (close - k)) < 0)
                        return false;
                p = close + 1;
                if (xen_spec(&p, spec) < 0) {
                        *ret_why = XEN_BAD_WIDE;
                        return false;
                }
                if (!*p || !strchr("diouxXeEfFgGcrs", *p)) {
                        *ret_why = *p && strchr("hlL", *p) && strchr("hlL", p[-1]) ?
                                   XEN_BAD_LENGTH : XEN_BAD_CONV;
                        return false;
                }
                p++;
        }
        return true;
}

/*
 * The event name: after the words that hold a conversion (the prefix,
 * "CPU%(cpu)d %(tsc)d (+%(reltsc)8d)"), the words up to one that starts with
 * '[' or holds a conversion, each run of characters other than letters,
 * digits and '_' made one '_' ("csched:tickle" -> csched_tickle,
 * "csched2:credit burn" -> csched2_credit_burn); "xen_<id>" when none.
 */
static void xen_format_name(struct xen_format *f)
{
        const char *p = f->fmt;
        bool named = false, sep = false;
        size_t n = 0;

        for (;;) {
                const char *w;

                p += strspn(p, " \t");
                w = p;
                p += strcspn(p, " \t");
                if (w == p || *w == '[' || (named && memchr(w, '%', (size_t) (p - w))))
                        break;
                if (memchr(w, '%', (size_t) (p - w)))
                        continue;
                named = true;
                for (; w < p && n < sizeof(f->name) - 2; w++) {
                        if (!xen_is_word_char(*w)) {
                                sep = n > 0;
                                continue;
                        }
                        if (sep)
                                f->name[n++] = '_';
                        f->name[n++] = *w;
                        sep = false;
                }
                sep = n > 0;
        }
        f->name[n] = '\0';
        if (n == 0)
                snprintf(f->name, sizeof(f->name), "xen_%08" PRIx32, f->id);
}

/*
 * The event id S (N bytes), as xentrace_format's eval() of Python 3 reads
 * it: an integer literal, 0x, 0o or 0b and its digits, or decimal without
 * leading zeros ("010" is a syntax error there, no octal 8; "0" and "00"
 * are 0), a '_' between two digits or after the prefix ("0x_1f", "1_000").
 * -EINVAL when it is none, -EDOM for a decimal with a leading zero, -ERANGE
 * when it is over the 28 bits of an event id.
 */
static int xen_event_id(const char *s, size_t n, uint32_t *ret)
{
        unsigned base = 10, d;
        uint64_t v = 0;
        bool digits = false, after = false;     /* a digit, a digit or the prefix */
        size_t i = 0;

        if (n > 2 && s[0] == '0' && strchr("xXoObB", s[1])) {
                base = (s[1] | 0x20) == 'x' ? 16 : (s[1] | 0x20) == 'o' ? 8 : 2;
                i = 2;
                after = true;
        }
        for (; i < n; i++) {
                if (s[i] == '_' && after && i + 1 < n && s[i + 1] != '_') {
                        after = false;
                        continue;
                }
                if (s[i] >= '0' && s[i] <= '9')
                        d = (unsigned) (s[i] - '0');
                else if ((s[i] | 0x20) >= 'a' && (s[i] | 0x20) <= 'f')
                        d = (unsigned) ((s[i] | 0x20) - 'a') + 10;
                else
                        return -EINVAL;
                if (d >= base)
                        return -EINVAL;
                if (v <= 0x0fffffff)
                        v = v * base + d;
                digits = after = true;
        }
        if (!digits)
                return -EINVAL;
        if (base == 10 && s[0] == '0' && v != 0)
                return -EDOM;
        if (v > 0x0fffffff)
                return -ERANGE;
        *ret = (uint32_t) v;
        return 0;
}

static void xen_formats_free(struct xen_formats *fs)
{
        size_t i;

        for (i = 0; i < fs->n; i++)
                free(fs->v[i].fmt);
        free(fs->v);
        fs->v = NULL;
        fs->n = 0;
}

/*
 * One line, LEN bytes with its newline: "ID  FORMAT"; blank and '#' lines
 * are skipped.  Its end, LF or CR LF (or a last line's CR), goes; a CR
 * before it is an error, in a comment too: a file with CR line ends would
 * be read as one line, and a format cut there, silently; so is a NUL, which
 * would end the C string there.
 */
static int xen_formats_line(struct xen_formats *fs, const char *path, unsigned lineno,
                            char *line, size_t len, struct tq_error *err)
{
        struct xen_format *f, *v;
        const char *bad = NULL;
        int why = XEN_BAD_KEY;
        char *id_at, *fmt;
        size_t id_len;
        uint32_t id;
        int r, shown;

        if (len > 0 && line[len - 1] == '\n')
                len--;
        if (len > 0 && line[len - 1] == '\r')
                len--;
        line[len] = '\0';
        if (memchr(line, '\r', len))
                return tq_error_set(err, -EBADMSG, "%s:%u: carriage return inside the line "
                                    "(lines end in LF or CR LF)", path, lineno);
        if (memchr(line, '\0', len))
                return tq_error_set(err, -EBADMSG, "%s:%u: NUL byte in a line", path, lineno);
        if (line[0] == '#' || line[strspn(line, " \t")] == '\0')
                return 0;
        id_at = line + strspn(line, " \t");
        id_len = strcspn(id_at, " \t");
        shown = (int) (id_len > 24 ? 24 : id_len);
        r = xen_event_id(id_at, id_len, &id);
        if (r == -EDOM)
                return tq_error_set(err, -EBADMSG, "%s:%u: bad event id '%.*s': a decimal "
                                    "with a leading zero, which Python 3 refuses (0o for "
                                    "octal)", path, lineno, shown, id_at);
        if (r == -ERANGE)
                return tq_error_set(err, -EBADMSG, "%s:%u: event id '%.*s' over 0x0fffffff "
                                    "(28 bits)", path, lineno, shown, id_at);
        if (r < 0)
                return tq_error_set(err, -EBADMSG, "%s:%u: bad event id '%.*s' (a Python "
                                    "integer: decimal, 0x, 0o or 0b)", path, lineno,
                                    shown, id_at);
        fmt = id_at + id_len + strspn(id_at + id_len, " \t");
        if (!*fmt)
                return tq_error_set(err, -EBADMSG, "%s:%u: no format", path, lineno);
        if (strlen(fmt) > XEN_FORMAT_MAX)
                return tq_error_set(err, -EBADMSG, "%s:%u: format longer than %d bytes", path,
                                    lineno, XEN_FORMAT_MAX);
        if (!xen_check_format(fmt, &bad, &why)) {
                if (why == XEN_BAD_WIDE)
                        return tq_error_set(err, -EBADMSG, "%s:%u: width or precision over %d "
                                            "in '%.24s'", path, lineno, XEN_WIDTH_MAX, bad);
                if (why == XEN_BAD_LENGTH)
                        return tq_error_set(err, -EBADMSG, "%s:%u: bad conversion '%.12s': one "
                                            "length modifier (h, l or L) at most, as Python "
                                            "takes", path, lineno, bad);
                if (why == XEN_BAD_CONV)
                        return tq_error_set(err, -EBADMSG, "%s:%u: bad conversion '%.12s': missing "
                                            "or unknown conversion character (one of "
                                            "diouxXeEfFgGcrs)", path, lineno, bad);
                return tq_error_set(err, -EBADMSG, "%s:%u: bad conversion '%.12s' (keys: cpu, "
                                    "tsc, reltsc, event, 1 to 7)", path, lineno, bad);
        }
        v = realloc(fs->v, (fs->n + 1) * sizeof(*v));
        if (!v)
                return tq_error_set(err, -ENOMEM, "out of memory");
        fs->v = v;
        f = &fs->v[fs->n];
        f->id = (uint32_t) id;
        f->fmt = strdup(fmt);
        if (!f->fmt)
                return tq_error_set(err, -ENOMEM, "out of memory");
        fs->n++;
        xen_format_name(f);
        return 0;
}

/* The lines of IN, read as a text import's (import_getline()): one longer
 * than XEN_FORMATS_MAX_LINE (or import_max_line(), a test's smaller cap)
 * fails at its line rather than being read whole into memory, for a formats
 * file is input too. */
static int xen_formats_load(struct xen_formats *fs, const char *path, FILE *in,
                            struct tq_error *err)
{
        size_t size = 0, max = import_max_line();
        char *line = NULL;
        unsigned lineno = 0;
        ssize_t n = 0;
        int r = 0;

        if (max > XEN_FORMATS_MAX_LINE)
                max = XEN_FORMATS_MAX_LINE;

        while (r == 0 && (n = import_getline(in, &line, &size, max, true)) > 0)
                r = xen_formats_line(fs, path, ++lineno, line, (size_t) n, err);
        if (r == 0 && n == -ENOMEM)
                r = tq_error_set(err, -ENOMEM, "out of memory");
        else if (r == 0 && n == -E2BIG)
                r = import_line_too_long(path, lineno + 1, max, err);
        else if (r == 0 && ferror(in))  /* the read left the cause, e.g. EISDIR */
                r = tq_error_set(err, errno > 0 ? -errno : -EIO, "%s: %s", path,
                                 errno > 0 ? strerror(errno) : "read error");
        free(line);
        return r;
}

/* The last line for ID wins, as in xentrace_format's dictionary. */
static const struct xen_format *xen_formats_find(const struct xen_formats *fs, uint32_t id)
{
        size_t i;

        for (i = fs->n; i > 0; i--)
                if (fs->v[i - 1].id == id)
                        return &fs->v[i - 1];
        return NULL;
}

/*
 * Into OUT (SIZE bytes), the integer -MAG (NEG) or MAG by the conversion
 * CONV (d i u x X o s r) with SPEC's flags, width and precision (SPEC after
 * its '%'), as Python renders it, which C's conversions of an unsigned
 * number do not: a sign, '-', or '+' or ' ' under those flags; the '#'
 * prefix of x and X, for 0 too (o's is C's '0', Python 2's); the digits, at
 * least one and as many as the precision asks; all that padded to the width
 * with spaces, after it under the flag '-', or with zeros after the sign and
 * the prefix under '0', a precision or not.  s and r render the number as
 * text: the sign only '-', the precision cutting it, no zeros.
 */
static void xen_render_int(char *out, size_t size, const char *spec, char conv, bool neg,
                           uint64_t mag)
{
        char fmt[40], digits[XEN_WIDTH_MAX + 24];
        bool left = false, zero = false, alt = false, plus = false, space = false;
        bool text = conv == 's' || conv == 'r';
        const char *p = spec, *sign = "", *pfx = "";
        unsigned long width = 0, prec = 0;
        size_t n;

        for (; *p && strchr("-+ #0", *p); p++) {
                left |= *p == '-';
                zero |= *p == '0';
                alt |= *p == '#';
                plus |= *p == '+';
                space |= *p == ' ';
        }
        for (; *p >= '0' && *p <= '9'; p++)
                width = width * 10 + (unsigned long) (*p - '0');
        if (*p == '.')
                prec = strtoul(p + 1, NULL, 10);
        if (text) {
                snprintf(digits, sizeof(digits), "%s%llu", neg ? "-" : "",
                         (unsigned long long) mag);
                if (*p == '.' && prec < strlen(digits))
                        digits[prec] = '\0';
                zero = false;
        } else {
                if (conv == 'd' || conv == 'i')
                        conv = 'u';
                snprintf(fmt, sizeof(fmt), "%%%s.%lull%c", alt && conv == 'o' ? "#" : "",
                         prec ? prec : 1, conv);
                snprintf(digits, sizeof(digits), fmt, (unsigned long long) mag);
                sign = neg ? "-" : plus ? "+" : space ? " " : "";
                if (alt && conv != 'o')
                        pfx = conv == 'X' ? "0X" : "0x";
        }
        n = strlen(sign) + strlen(pfx) + strlen(digits);
        if (width <= n)
                snprintf(out, size, "%s%s%s", sign, pfx, digits);
        else if (left)
                snprintf(out, size, "%s%s%s%*s", sign, pfx, digits, (int) (width - n), "");
        else if (zero)
                snprintf(out, size, "%s%s%0*d%s", sign, pfx, (int) (width - n), 0, digits);
        else
                snprintf(out, size, "%*s%s%s%s", (int) (width - n), "", sign, pfx, digits);
}

/*
 * Into OUT (SIZE bytes, XEN_WIDTH_MAX + 5 at least), the character of code
 * point NEG ? -MAG : MAG by "%c" with SPEC's flags and width (SPEC after its
 * '%'), as Python 3 renders it: UTF-8, padded with spaces to the width in
 * characters (after it under '-'), other flags and the precision ignored.
 * What Python cannot render, a negative number or one past U+10FFFF
 * (OverflowError) or a surrogate (UnicodeEncodeError on output), and 0,
 * which would end the message there, is U+FFFD.
 */
static void xen_render_char(char *out, size_t size, const char *spec, bool neg, uint64_t mag)
{
        char u[5];
        bool left = false;
        unsigned long width;
        uint64_t c = neg || mag == 0 || mag > 0x10ffff || (mag >= 0xd800 && mag <= 0xdfff)
                     ? 0xfffd : mag;

        for (; *spec && strchr("-+ #0", *spec); spec++)
                left |= *spec == '-';
        width = strtoul(spec, NULL, 10);
        if (c < 0x80) {
                u[0] = (char) c;
                u[1] = '\0';
        } else if (c < 0x800) {
                u[0] = (char) (0xc0 | c >> 6);
                u[1] = (char) (0x80 | (c & 0x3f));
                u[2] = '\0';
        } else if (c < 0x10000) {
                u[0] = (char) (0xe0 | c >> 12);
                u[1] = (char) (0x80 | (c >> 6 & 0x3f));
                u[2] = (char) (0x80 | (c & 0x3f));
                u[3] = '\0';
        } else {
                u[0] = (char) (0xf0 | c >> 18);
                u[1] = (char) (0x80 | (c >> 12 & 0x3f));
                u[2] = (char) (0x80 | (c >> 6 & 0x3f));
                u[3] = (char) (0x80 | (c & 0x3f));
                u[4] = '\0';
        }
        if (width < 2)
                snprintf(out, size, "%s", u);
        else if (left)
                snprintf(out, size, "%s%*s", u, (int) (width - 1), "");
        else
                snprintf(out, size, "%*s%s", (int) (width - 1), "", u);
}

/* Render F with VALS (cpu, tsc, reltsc, event, d1..d7), Python's way; the
 * reltsc is negative, -VALS[2], when NEG_RELTSC. */
static char *xen_render(const struct xen_format *f, const uint64_t *vals, bool neg_reltsc)
{
        sqlite3_str *s = sqlite3_str_new(NULL);
        const char *p = f->fmt;

        while (*p) {
                const char *k, *close;
                char spec[40], out[XEN_WIDTH_MAX + 64];
                size_t n;
                uint64_t v;
                bool neg;
                int key;

                if (*p != '%') {
                        sqlite3_str_appendchar(s, 1, *p++);
                        continue;
                }
                if (p[1] == '%') {
                        sqlite3_str_appendchar(s, 1, '%');
                        p += 2;
                        continue;
                }
                k = p + 2;
                close = strchr(k, ')');         /* checked at load */
                key = xen_key(k, (size_t) (close - k));
                v = vals[key];
                neg = key == 2 && neg_reltsc && v != 0;
                p = close + 1;
                spec[0] = '%';
                (void) xen_spec(&p, spec + 1);          /* checked at load */
                n = strlen(spec);
                switch (*p) {
                case 'd': case 'i': case 'u': case 's': case 'r': case 'x': case 'X': case 'o':
                        /* the words and the TSC are unsigned (a TSC from
                         * 2^63 up is not negative); reltsc can be negative */
                        xen_render_int(out, sizeof(out), spec + 1, *p, neg, v);
                        break;
                case 'c':
                        xen_render_char(out, sizeof(out), spec + 1, neg, v);
                        break;
                default:        /* e E f F g G */
                        spec[n++] = *p;
                        spec[n] = '\0';
                        snprintf(out, sizeof(out), spec, neg ? -(double) v : (double) v);
                        break;
                }
                sqlite3_str_appendall(s, out);
                p++;
        }
        return sqlite3_str_finish(s);
}

/* ---- the trace ---- */

struct xen {
        const struct xen_formats *fs;
        const char *name;
        const uint8_t *data;
        size_t size;
        bool live;                      /* a regular file: its end may cut a window short */
        int64_t cpu;                    /* -1 before the first CPU change */
        size_t window_end;
        uint64_t *last_tsc;             /* by CPU */
        size_t nlast;
        int64_t seq;
        uint64_t wraps;                 /* wrap records skipped, of those stored */
        struct ingest_entry e;
};

static uint32_t xen_u32(const uint8_t *p)
{
        uint32_t x;

        memcpy(&x, p, sizeof(x));
        return x;
}

static int xen_error(const struct xen *x, size_t off, struct tq_error *err, const char *what)
{
        return tq_error_set(err, -EBADMSG, "%s:%zu: %s", x->name, off, what);
}

/* The record at OFF runs past the end of the file, and the part there is
 * valid: -ENODATA, with the error for an input read once. */
static int xen_cut(const struct xen *x, size_t off, struct tq_error *err, const char *what)
{
        return tq_error_set(err, -ENODATA, "%s:%zu: %s", x->name, off, what);
}

/*
 * The file ends at OFF inside a record's header word: -ENODATA when its bytes
 * can start a record there (any record inside a CPU window with room for its
 * header, else a CPU change record), else the error the whole word gets.
 */
static int xen_cut_header(const struct xen *x, size_t off, struct tq_error *err)
{
        /* its first 3 bytes: the TSC bit is in the 4th */
        static const uint32_t change = XEN_CPU_CHANGE | 2u << 28;

        if ((x->cpu >= 0 && off + 4 <= x->window_end) ||
            memcmp(x->data + off, &change, x->size - off) == 0)
                return xen_cut(x, off, err, "truncated record");
        if (x->cpu < 0)
                return xen_error(x, off, err, "record before the first CPU change record");
        return xen_error(x, off, err, "record crosses the end of its CPU window");
}

/* A CPU change record at OFF, whole, its data words D checked but for the
 * window's size; NEXT is past it. */
static int xen_cpu_change(struct xen *x, size_t off, size_t next, const uint32_t *d,
                          struct tq_error *err)
{
        if (d[1] > x->size - next && !x->live)
                return xen_error(x, off, err, "CPU window runs past the end of the file");
        if ((size_t) d[0] >= x->nlast) {
                size_t nlast = (size_t) d[0] + 1;
                uint64_t *p = realloc(x->last_tsc, nlast * sizeof(*p));

                if (!p)
                        return tq_error_set(err, -ENOMEM, "out of memory");
                memset(p + x->nlast, 0, (nlast - x->nlast) * sizeof(*p));
                x->last_tsc = p;
                x->nlast = nlast;
        }
        x->cpu = d[0];
        x->window_end = next + d[1];
        return 0;
}

/* Fill the entry for one record and store it; its reltsc is -RELTSC when
 * BACK (the TSC stepped back on its CPU). */
static int xen_store(struct xen *x, struct ingest *ing, uint32_t id, bool has_tsc, uint64_t tsc,
                     uint64_t reltsc, bool back, const uint32_t *d, unsigned n,
                     struct tq_error *err)
{
        const struct xen_format *f = xen_formats_find(x->fs, id);
        uint64_t vals[11] = { (uint64_t) x->cpu, has_tsc ? tsc : 0, reltsc, id };
        char sig[128] = "cpu:u tsc:u", field[32], name[64], *msg;
        unsigned i;
        int r;

        for (i = 0; i < n; i++)
                vals[4 + i] = d[i];
        ingest_entry_reset(&x->e);
        if (id == XEN_LOST_RECORDS) {
                snprintf(name, sizeof(name), "tj_dropped");
                r = te_catalog_field_int(&x->e, "TRACE_DROPPED", d[0]);
        } else {
                if (f)
                        snprintf(name, sizeof(name), "%s", f->name);
                else
                        snprintf(name, sizeof(name), "xen_%08" PRIx32, id);
                r = te_catalog_field_int(&x->e, "TRACE_ARG_CPU", x->cpu);
                if (r == 0 && has_tsc)
                        r = te_catalog_field_int(&x->e, "TRACE_ARG_TSC", (int64_t) tsc);
                for (i = 0; r == 0 && i < n; i++) {
                        snprintf(field, sizeof(field), "TRACE_ARG_D%u", i + 1);
                        snprintf(sig + strlen(sig), sizeof(sig) - strlen(sig), " d%u:u", i + 1);
                        r = te_catalog_field_int(&x->e, field, d[i]);
                }
                if (r == 0)
                        r = te_catalog_field(&x->e, "TRACE_ARGS", sig, strlen(sig));
        }
        if (r == 0)
                r = te_catalog_field(&x->e, "TRACE_EVENT", name, strlen(name));
        if (r == 0)
                r = te_catalog_field_int(&x->e, "TRACE_SEQ", x->seq);
        if (r < 0)
                return tq_error_set(err, r, "out of memory");
        if (!f && id != 0)
                f = xen_formats_find(x->fs, 0);  /* xentrace_format's "unknown" line */
        if (f)
                msg = xen_render(f, vals, back);
        else {
                sqlite3_str *s = sqlite3_str_new(NULL);

                sqlite3_str_appendf(s, "%s cpu %lld", name, (long long) x->cpu);
                if (has_tsc)
                        sqlite3_str_appendf(s, " tsc %llu", (unsigned long long) tsc);
                for (i = 0; i < n; i++)
                        sqlite3_str_appendf(s, " 0x%08x", d[i]);
                msg = sqlite3_str_finish(s);
        }
        if (!msg)
                return tq_error_set(err, -ENOMEM, "out of memory");
        r = te_catalog_field(&x->e, "MESSAGE", msg, strlen(msg));
        sqlite3_free(msg);
        if (r < 0)
                return tq_error_set(err, r, "out of memory");
        r = ingest_entry(ing, &x->e, err);
        return r < 0 ? r : 0;
}

/* One record at OFF; *RET_NEXT past it. */
static int xen_record(struct xen *x, struct ingest *ing, size_t off, bool store,
                      size_t *ret_next, struct tq_error *err)
{
        uint32_t h, id, d[7];
        unsigned n, i;
        bool has_tsc, back = false;
        uint64_t tsc = 0, reltsc = 0;
        size_t len, words, p;

        h = xen_u32(x->data + off);
        id = h & 0x0fffffff;
        n = (h >> 28) & 7;
        has_tsc = h >> 31;
        words = 4 + (has_tsc ? 8 : 0);          /* where the data words start */
        len = words + 4 * (size_t) n;
        if (id == XEN_CPU_CHANGE && x->cpu >= 0 && off < x->window_end)
                return tq_error_set(err, -EBADMSG, "%s:%zu: CPU change record inside the "
                                    "window of CPU %lld (which ends at byte %zu)", x->name,
                                    off, (long long) x->cpu, x->window_end);
        /* xentrace writes its header as the id and 2 words, no TSC, and
         * xenalyze fails on one with a TSC ("Unexpected record event") */
        if (id == XEN_CPU_CHANGE && has_tsc)
                return xen_error(x, off, err, "CPU change record with a TSC (xentrace writes "
                                 "none)");
        if (id == XEN_CPU_CHANGE && n != 2)
                return xen_error(x, off, err, "CPU change record without its 2 data words");
        if (id == XEN_CPU_CHANGE && x->size - off >= words + 4 &&
            xen_u32(x->data + off + words) >= XEN_MAX_CPUS)
                return xen_error(x, off, err, "CPU change to an impossible CPU number");
        if (id == XEN_LOST_RECORDS && n == 0)
                return xen_error(x, off, err, "lost records record without the count lost");
        if (id != XEN_CPU_CHANGE && x->cpu < 0 &&
            __builtin_bswap32(h) == (XEN_CPU_CHANGE | 2u << 28))
                return xen_error(x, off, err, "byte-swapped CPU change record (the trace of a "
                                 "host of the other byte order)");
        if (id != XEN_CPU_CHANGE && x->cpu < 0)
                return xen_error(x, off, err, "record before the first CPU change record");
        if (id != XEN_CPU_CHANGE && off + len > x->window_end)
                return xen_error(x, off, err, "record crosses the end of its CPU window");
        if (x->size - off < len)
                return xen_cut(x, off, err, "truncated record");
        p = off + 4;
        if (has_tsc) {
                tsc = (uint64_t) xen_u32(x->data + p) | (uint64_t) xen_u32(x->data + p + 4) << 32;
                p += 8;
        }
        for (i = 0; i < n; i++, p += 4)
                d[i] = xen_u32(x->data + p);
        *ret_next = off + len;
        if (id == XEN_CPU_CHANGE)
                return xen_cpu_change(x, off, off + len, d, err);
        if (has_tsc) {
                uint64_t *last = &x->last_tsc[x->cpu];

                /* a difference, signed: Python's, which has no overflow */
                back = tsc < *last;
                reltsc = !*last ? 0 : back ? *last - tsc : tsc - *last;
                *last = tsc;
        }
        if (id == XEN_WRAP_BUFFER) {    /* padding: its words were never written */
                x->wraps += store;
                return 0;
        }
        x->seq++;
        if (!store)
                return 0;
        return xen_store(x, ing, id, has_tsc, tsc, reltsc, back, d, n, err);
}

/* RET_WRAPS (may be NULL): the wrap records skipped where rows are stored. */
static int xen_parse(struct ingest *ing, const struct xen_formats *fs, const char *name,
                     const uint8_t *data, size_t size, int64_t skip, size_t *ret_used,
                     uint64_t *ret_wraps, struct tq_error *err)
{
        struct xen x = { .fs = fs, .name = name, .data = data, .size = size,
                         .live = ret_used != NULL, .cpu = -1 };
        size_t off = 0, rec = 0;
        int r = 0;

        while (r == 0 && off < size) {
                rec = off;
                if (size - off < 4) {
                        r = xen_cut_header(&x, off, err);
                        break;
                }
                r = xen_record(&x, ing, off, (int64_t) off >= skip, &off, err);
                tq_progress(off, ing);
        }
        if (r == -ENODATA && ret_used) {
                *ret_used = rec;        /* where the record cut short starts */
                r = 0;
        }
        if (r == 0 && ret_wraps)
                *ret_wraps = x.wraps;
        free(x.last_tsc);
        ingest_entry_free(&x.e);
        return r;
}

/* The context import_file hands to the parser. */
struct xen_ctx {
        struct xen_formats fs;
        uint64_t *wraps;                /* where a parse counts the wrap records, or NULL */
};

int import_xentrace_parse(struct ingest *ing, const void *ctx, const char *name,
                          const uint8_t *data, size_t size, int64_t skip, size_t *ret_used,
                          struct tq_error *err)
{
        static const struct xen_formats none;
        const struct xen_ctx *c = ctx;

        return xen_parse(ing, c ? &c->fs : &none, name, data, size, skip, ret_used,
                         c ? c->wraps : NULL, err);
}

int import_xentrace_formats(struct xen_ctx **ret_ctx, const char *path, FILE *f,
                            struct tq_error *err)
{
        struct xen_ctx *c = calloc(1, sizeof(*c));
        FILE *own = NULL;
        int r;

        if (!c)
                return tq_error_set(err, -ENOMEM, "out of memory");
        if (path && !f) {
                f = own = fopen(path, "re");
                if (!f) {
                        r = tq_error_set(err, -errno, "%s: %s", path, strerror(errno));
                        free(c);
                        return r;
                }
        }
        r = f ? xen_formats_load(&c->fs, path, f, err) : 0;
        if (own)
                fclose(own);
        if (r < 0) {
                import_xentrace_free(c);
                return r;
        }
        *ret_ctx = c;
        return 0;
}

void import_xentrace_free(struct xen_ctx *c)
{
        if (!c)
                return;
        xen_formats_free(&c->fs);
        free(c);
}

int import_xentrace(sqlite3 *db, const char *path, const char *formats, uint64_t *ret_added,
                    struct tq_error *err)
{
        struct xen_ctx *c = NULL;
        uint64_t wraps = 0;
        int r;

        /* "-": standard input, as for the trace (traceql refuses both) */
        if (formats && strcmp(formats, "-") == 0)
                r = import_xentrace_formats(&c, "<stdin>", stdin, err);
        else
                r = import_xentrace_formats(&c, formats, NULL, err);
        if (r == 0) {
                c->wraps = &wraps;
                r = import_file(db, "xentrace", path, 0, import_xentrace_parse, c, ret_added, err);
        }
        import_xentrace_free(c);
        if (r == 0 && wraps)
                tq_message("%s: %" PRIu64 " buffer wrap record%s skipped (Xen's padding, its "
                           "data words never written)", strcmp(path, "-") == 0 ? "<stdin>" : path,
                           wraps, wraps == 1 ? "" : "s");
        return r;
}
