/*
 * te_format.c - the format of a trace-events line, read and checked.
 *
 * A format is one or more adjacent C string literals with PRI macros of
 * <inttypes.h> between and after them: "a %d b %" PRIx64 " c".  It is pasted
 * into the generated C code as written, so it is read here with C's rules:
 * escapes are decoded, the literals are joined into a list of units (one per
 * byte, or one per PRI macro), and the printf conversions found in those
 * units are matched, in order, with the event's arguments.  A conversion that
 * gcc's or clang's -Wformat=2 would refuse for its argument is refused here,
 * with its position, so generated code always compiles.  The portable meaning
 * is checked, not this machine's: '%lu' does not fit a uint64_t.  As in
 * tracetool, no format ends with a newline (every output ends the event
 * itself), and none has a '\n' inside unless te_list.newline_ok lets the
 * files of QEMU before 9.1 in (traceql reads those releases' logs).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "te.h"
#include "te_parse.h"

/* Length classes: the printf length modifier, or the width a PRI macro names. */
enum te_len {
        TE_LEN_NONE, TE_LEN_HH, TE_LEN_H, TE_LEN_L, TE_LEN_LL, TE_LEN_J,
        TE_LEN_Z, TE_LEN_T, TE_LEN_8, TE_LEN_16, TE_LEN_32, TE_LEN_64, TE_LEN_PTR,
};

/* One byte of the joined literals, or one PRI macro. */
struct te_unit {
        char c;                 /* the byte; the conversion for a macro */
        bool macro;
        enum te_len len;        /* a macro's length class */
        size_t off;             /* offset in the line of its first source byte */
        size_t end;             /* offset just past its source text */
};

struct te_conv {
        char conv;
        enum te_len len;
        unsigned nstars;        /* '*' width and precision, in order */
        bool star_prec[2];      /* which of the stars is the precision */
        bool prec;              /* a precision was given */
        int prec_val;           /* its value when written in digits, else -1 */
        char flags[8];          /* the flags, each once */
        size_t off, end;        /* source text, from '%' */
        size_t conv_off;        /* offset of the conversion character */
};

static const struct {
        const char *suffix;
        enum te_len len;
} te_format_pri[] = {
        { "8", TE_LEN_8 }, { "16", TE_LEN_16 }, { "32", TE_LEN_32 }, { "64", TE_LEN_64 },
        { "PTR", TE_LEN_PTR }, { "MAX", TE_LEN_J },
        { "LEAST8", TE_LEN_8 }, { "LEAST16", TE_LEN_16 }, { "LEAST32", TE_LEN_32 },
        { "LEAST64", TE_LEN_64 }, { "FAST8", TE_LEN_8 }, { "FAST64", TE_LEN_64 },
};

/* Decode a PRI macro name: its conversion and length class. */
static bool te_format_macro(const char *name, size_t n, char *ret_conv, enum te_len *ret_len)
{
        size_t i;

        if (n < 5 || strncmp(name, "PRI", 3) != 0 || !strchr("diouxX", name[3]))
                return false;
        for (i = 0; i < sizeof(te_format_pri) / sizeof(te_format_pri[0]); i++)
                if (strlen(te_format_pri[i].suffix) == n - 4 &&
                    strncmp(name + 4, te_format_pri[i].suffix, n - 4) == 0) {
                        *ret_conv = name[3];
                        *ret_len = te_format_pri[i].len;
                        return true;
                }
        return false;
}

bool te_format_is_macro(const char *name)
{
        char c;
        enum te_len l;

        return te_format_macro(name, strlen(name), &c, &l);
}

static bool te_format_is_ident(char c, bool first)
{
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
               (!first && c >= '0' && c <= '9');
}

int te_format_hex(char c)
{
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
}

/* Decode the escape at LINE[*I] (a backslash) into *RET_C; advance *I. */
static int te_format_escape(struct te_parse_ctx *ctx, const char *line, size_t len,
                            size_t *i, char *ret_c)
{
        static const char simple[] = "\"\"''??\\\\a\ab\bf\fn\nr\rt\tv\v";
        size_t at = *i, k, n;
        unsigned v = 0;
        char c = at + 1 < len ? line[at + 1] : '\0';

        for (k = 0; simple[k]; k += 2)
                if (simple[k] == c) {
                        *ret_c = simple[k + 1];
                        *i = at + 2;
                        return 0;
                }
        if (c >= '0' && c <= '7') {
                for (n = at + 1; n < len && n < at + 4 && line[n] >= '0' && line[n] <= '7'; n++)
                        v = v * 8 + (unsigned)(line[n] - '0');
        } else if (c == 'x' && at + 2 < len && te_format_hex(line[at + 2]) >= 0) {
                for (n = at + 2; n < len && te_format_hex(line[n]) >= 0; n++) {
                        v = v * 16 + (unsigned)te_format_hex(line[n]);
                        if (v > 0xff)
                                return te_parse_error(ctx, at, "hex escape sequence out of range");
                }
        } else if (c == '\0') {
                return te_parse_error(ctx, at, "missing terminating '\"' character");
        } else {
                return te_parse_error(ctx, at, "unknown escape sequence '\\%c'", c);
        }
        if (v > 0xff)
                return te_parse_error(ctx, at, "octal escape sequence out of range");
        if (v == 0)
                return te_parse_error(ctx, at, "embedded NUL ('\\0') in format");
        *ret_c = (char)v;
        *i = n;
        return 0;
}

/*
 * The length of the UTF-8 sequence at S (N bytes there), or 0 when it is
 * not one: a stray or missing continuation byte, an overlong form, a
 * surrogate or a code point past U+10FFFF.  clang refuses such bytes in a
 * string literal (-Winvalid-source-encoding) and QEMU's tracetool cannot
 * read the file at all.
 */
static size_t te_format_utf8(const unsigned char *s, size_t n)
{
        unsigned char lo = 0x80, hi = 0xbf;
        size_t len, k;

        if (s[0] >= 0xc2 && s[0] <= 0xdf)
                len = 2;
        else if (s[0] >= 0xe0 && s[0] <= 0xef)
                len = 3;
        else if (s[0] >= 0xf0 && s[0] <= 0xf4)
                len = 4;
        else
                return 0;
        if (s[0] == 0xe0)
                lo = 0xa0;
        else if (s[0] == 0xed)
                hi = 0x9f;
        else if (s[0] == 0xf0)
                lo = 0x90;
        else if (s[0] == 0xf4)
                hi = 0x8f;
        if (n < len || s[1] < lo || s[1] > hi)
                return 0;
        for (k = 2; k < len; k++)
                if (s[k] < 0x80 || s[k] > 0xbf)
                        return 0;
        return len;
}

size_t te_format_utf8_put(unsigned long v, char *buf)
{
        static const unsigned char lead[] = { 0, 0, 0xc0, 0xe0, 0xf0 };
        size_t nb = v < 0x80 ? 1 : v < 0x800 ? 2 : v < 0x10000 ? 3 : 4, k;

        buf[0] = (char)(nb == 1 ? v : (lead[nb] | v >> (6 * (nb - 1))));
        for (k = 1; k < nb; k++)
                buf[k] = (char)(0x80 | ((v >> (6 * (nb - 1 - k))) & 0x3f));
        return nb;
}

/*
 * Decode the universal character name at LINE[*I] (a backslash, then 'u'
 * and 4 hex digits or 'U' and 8) into its UTF-8 bytes, one unit each, at
 * U[*N]; advance *I and *N.  C takes one from U+00A0 (and '$', '@', '`'),
 * not a surrogate nor past U+10FFFF, and the compilers put it in the string
 * as UTF-8, the execution character set.
 */
static int te_format_ucn(struct te_parse_ctx *ctx, const char *line, size_t len, size_t *i,
                         struct te_unit *u, size_t *n)
{
        size_t at = *i, digits = line[at + 1] == 'u' ? 4 : 8, k, nb;
        unsigned long v = 0;
        char b[4];

        for (k = 0; k < digits; k++) {
                if (at + 2 + k >= len || te_format_hex(line[at + 2 + k]) < 0)
                        return te_parse_error(ctx, at, "incomplete universal character name "
                                              "'%.*s'", (int)(k + 2), line + at);
                v = v * 16 + (unsigned long)te_format_hex(line[at + 2 + k]);
        }
        if ((v < 0xa0 && v != '$' && v != '@' && v != '`') || (v >= 0xd800 && v <= 0xdfff) ||
            v > 0x10ffff)
                return te_parse_error(ctx, at, "'%.*s' is not a valid universal character",
                                      (int)(digits + 2), line + at);
        nb = te_format_utf8_put(v, b);
        *i = at + 2 + digits;
        for (k = 0; k < nb; k++)
                u[(*n)++] = (struct te_unit){ .c = b[k], .off = at, .end = *i };
        return 0;
}

/* Split the format text into units; set *RET_END past the last token. */
static int te_format_units(struct te_parse_ctx *ctx, const char *line, size_t start,
                           size_t len, struct te_unit *u, size_t *ret_n, size_t *ret_end)
{
        size_t i = start, n = 0, open, k, end = start, cont = 0;
        int r;

        while (i < len) {
                if (line[i] == ' ' || line[i] == '\t' || line[i] == '\r' || line[i] == '\f' ||
                    line[i] == '\v') {
                        i++;
                } else if (line[i] == '"') {
                        open = i++;
                        while (i < len && line[i] != '"') {
                                u[n] = (struct te_unit){ .off = i };
                                if (line[i] == '\\' && i + 1 < len &&
                                    (line[i + 1] == 'u' || line[i + 1] == 'U')) {
                                        r = te_format_ucn(ctx, line, len, &i, u, &n);
                                        if (r < 0)
                                                return r;
                                        continue;
                                } else if (line[i] == '\\') {
                                        r = te_format_escape(ctx, line, len, &i, &u[n].c);
                                        if (r < 0)
                                                return r;
                                } else if (line[i] == '\r') {
                                        /* C compilers take it for a line end. */
                                        return te_parse_error(ctx, i, "carriage return inside a "
                                                              "string literal (write it as '\\r')");
                                } else if (line[i] == '?' && i + 2 < len && line[i + 1] == '?' &&
                                           strchr("=(/)'<!>-", line[i + 2])) {
                                        /* ignored in GNU C, with a warning (-Wall);
                                         * replaced in ISO C: '??/' escapes the next byte */
                                        return te_parse_error(ctx, i, "trigraph '??%c' in format "
                                                              "(write it as '?\\?%c')",
                                                              line[i + 2], line[i + 2]);
                                } else if ((unsigned char)line[i] >= 0x80 && cont == 0 &&
                                           (cont = te_format_utf8((const unsigned char *)line + i,
                                                                  len - i)) == 0) {
                                        return te_parse_error(ctx, i, "byte \\x%02x in format is not "
                                                              "UTF-8 (write it as '\\%03o')",
                                                              (unsigned char)line[i],
                                                              (unsigned char)line[i]);
                                } else {
                                        if (cont > 0)
                                                cont--;
                                        u[n].c = line[i++];
                                }
                                u[n].end = i;
                                n++;
                        }
                        if (i >= len || line[i] != '"')
                                return te_parse_error(ctx, open, "missing terminating '\"' character");
                        end = ++i;
                } else if (te_format_is_ident(line[i], true)) {
                        for (k = i; k < len && te_format_is_ident(line[k], false); k++)
                                ;
                        u[n] = (struct te_unit){ .macro = true, .off = i, .end = k };
                        if (!te_format_macro(line + i, k - i, &u[n].c, &u[n].len))
                                return te_parse_error(ctx, i, "unknown macro '%.*s' in format "
                                                      "(only PRIx64-style macros are allowed)",
                                                      (int)(k - i), line + i);
                        n++;
                        end = i = k;
                } else {
                        return te_parse_error(ctx, i, "unexpected '%c' after the format", line[i]);
                }
        }
        *ret_n = n;
        *ret_end = end;
        return 0;
}

/* Which flags each conversion takes, as gcc's and clang's format checks do. */
static const char *te_format_flags_ok(char conv)
{
        switch (conv) {
        case 'd': case 'i': return "-+ 0'";
        case 'u': return "-0'";
        case 'o': case 'x': case 'X': return "-0#";
        default: return "-";
        }
}

/* Skip the digits of a width or precision at U[*K], their value (0 for
 * none) in *RET_V if not NULL; false when it is above INT_MAX, which printf()
 * cannot take (gcc warns about it). */
static bool te_format_number(const struct te_unit *u, size_t n, size_t *k, int *ret_v)
{
        unsigned long v = 0;

        for (; *k < n && !u[*k].macro && u[*k].c >= '0' && u[*k].c <= '9'; (*k)++) {
                v = v * 10 + (unsigned long)(u[*k].c - '0');
                if (v > INT_MAX)
                        return false;
        }
        if (ret_v)
                *ret_v = (int)v;
        return true;
}

/* Read the conversion whose '%' is U[*I]; advance *I past it. */
static int te_format_conv(struct te_parse_ctx *ctx, const char *line, const struct te_unit *u,
                          size_t n, size_t *i, struct te_conv *ret)
{
        struct te_conv cv = { .off = u[*i].off, .len = TE_LEN_NONE, .prec_val = -1 };
        size_t k = *i + 1, d;
        char *p;

#define TE_CH(j) ((j) < n && !u[j].macro ? u[j].c : '\0')
        for (d = k; TE_CH(d) >= '0' && TE_CH(d) <= '9'; d++)
                ;
        if (d > k && TE_CH(d) == '$')
                return te_parse_error(ctx, cv.off, "positional conversions ('%%N$') are not supported");
        while (TE_CH(k) && strchr("-+ #0'I", TE_CH(k))) {
                if (strchr(cv.flags, TE_CH(k)))
                        return te_parse_error(ctx, u[k].off, "repeated '%c' flag in format", TE_CH(k));
                p = cv.flags + strlen(cv.flags);
                p[0] = TE_CH(k);
                p[1] = '\0';
                k++;
        }
        if (TE_CH(k) == '*') {
                cv.star_prec[cv.nstars++] = false;
                k++;
        } else if (!te_format_number(u, n, &k, NULL)) {
                return te_parse_error(ctx, cv.off, "field width out of range (at most %d)", INT_MAX);
        }
        if (TE_CH(k) == '.') {
                cv.prec = true;
                k++;
                if (TE_CH(k) == '*') {
                        cv.star_prec[cv.nstars++] = true;
                        k++;
                } else if (!te_format_number(u, n, &k, &cv.prec_val)) {
                        return te_parse_error(ctx, cv.off, "precision out of range (at most %d)",
                                              INT_MAX);
                }
        }
        if (k < n && u[k].macro) {
                cv.conv = u[k].c;
                cv.len = u[k].len;
        } else {
                switch (TE_CH(k)) {
                case 'h': cv.len = TE_CH(k + 1) == 'h' ? TE_LEN_HH : TE_LEN_H; break;
                case 'l': cv.len = TE_CH(k + 1) == 'l' ? TE_LEN_LL : TE_LEN_L; break;
                case 'j': cv.len = TE_LEN_J; break;
                case 'z': cv.len = TE_LEN_Z; break;
                case 't': cv.len = TE_LEN_T; break;
                case 'L': case 'q': case 'Z':
                        return te_parse_error(ctx, u[k].off, "length modifier '%c' is not supported",
                                              TE_CH(k));
                }
                k += cv.len == TE_LEN_HH || cv.len == TE_LEN_LL ? 2 : cv.len != TE_LEN_NONE;
                if (k < n && u[k].macro)
                        return te_parse_error(ctx, u[k].off, "'%.*s' follows a length modifier",
                                              (int)(u[k].end - u[k].off), line + u[k].off);
                cv.conv = TE_CH(k);
        }
        if (k >= n)
                return te_parse_error(ctx, cv.off, "incomplete conversion at the end of the format");
        cv.end = u[k].end;
        cv.conv_off = u[k].off;
        *i = k + 1;
#undef TE_CH
        *ret = cv;
        return 0;
}

/* Refuse a conversion gcc's or clang's format checks would warn about. */
static int te_format_check_conv(struct te_parse_ctx *ctx, const char *line,
                                const struct te_conv *cv)
{
        const char *p;

        if (cv->conv == 'm')
                return te_parse_error(ctx, cv->off, "'%%m' is not allowed in a format; "
                                      "pass the error as an explicit argument");
        if (cv->conv == 'n')
                return te_parse_error(ctx, cv->off, "'%%n' is not allowed in a format");
        if (strchr("eEfFgGaA", cv->conv))
                return te_parse_error(ctx, cv->off, "conversion '%.*s' needs a floating-point "
                                      "argument, which trace-events cannot declare",
                                      (int)(cv->end - cv->off), line + cv->off);
        if (cv->conv == '%')
                return te_parse_error(ctx, cv->off, "'%%%%' cannot take flags, a width or a precision");
        if (!strchr("diouxXcsp", cv->conv))
                return te_parse_error(ctx, cv->conv_off, "unknown conversion type character '%c' in format",
                                      cv->conv);
        if (cv->len != TE_LEN_NONE && strchr("csp", cv->conv))
                return te_parse_error(ctx, cv->off, "length modifier used with '%%%c'", cv->conv);
        for (p = cv->flags; *p; p++)
                if (!strchr(te_format_flags_ok(cv->conv), *p))
                        return te_parse_error(ctx, cv->off, "'%c' flag used with '%%%c'", *p, cv->conv);
        if (strchr(cv->flags, '-') && strchr(cv->flags, '0'))
                return te_parse_error(ctx, cv->off, "'0' flag ignored with '-' flag");
        if (strchr(cv->flags, '+') && strchr(cv->flags, ' '))
                return te_parse_error(ctx, cv->off, "' ' flag ignored with '+' flag");
        if (cv->prec && strchr(cv->flags, '0'))
                return te_parse_error(ctx, cv->off, "'0' flag ignored with precision and '%%%c'",
                                      cv->conv);
        if (cv->prec && strchr("cp", cv->conv))
                return te_parse_error(ctx, cv->off, "precision used with '%%%c'", cv->conv);
        return 0;
}

/* The type a conversion expects, as gcc names it in its warnings. */
static const char *te_format_expects(const struct te_conv *cv)
{
        static const char *const names[][2] = {
                [TE_LEN_NONE] = { "int", "unsigned int" },
                [TE_LEN_HH] = { "signed char", "unsigned char" },
                [TE_LEN_H] = { "short", "unsigned short" },
                [TE_LEN_L] = { "long", "unsigned long" },
                [TE_LEN_LL] = { "long long", "unsigned long long" },
                [TE_LEN_J] = { "intmax_t", "uintmax_t" },
                [TE_LEN_Z] = { "ssize_t", "size_t" },
                [TE_LEN_T] = { "ptrdiff_t", "ptrdiff_t" },
                [TE_LEN_8] = { "int8_t", "uint8_t" },
                [TE_LEN_16] = { "int16_t", "uint16_t" },
                [TE_LEN_32] = { "int32_t", "uint32_t" },
                [TE_LEN_64] = { "int64_t", "uint64_t" },
                [TE_LEN_PTR] = { "intptr_t", "uintptr_t" },
        };

        if (cv->conv == 's')
                return "char *";
        if (cv->conv == 'p')
                return "void *";
        if (cv->conv == 'c')
                return "int";
        return names[cv->len][cv->conv != 'd' && cv->conv != 'i'];
}

/* Integer types narrower than int, or int itself: what an int conversion takes. */
static bool te_format_is_intish(enum te_base b)
{
        return b == TE_BOOL || b == TE_CHAR || b == TE_SCHAR || b == TE_UCHAR ||
               b == TE_SHORT || b == TE_USHORT || b == TE_INT8 || b == TE_UINT8 ||
               b == TE_INT16 || b == TE_UINT16 || b == TE_INT || b == TE_UINT ||
               b == TE_INT32 || b == TE_UINT32;
}

/* Does an argument of type T fit conversion CV (signedness may differ)? */
static bool te_format_fits(const struct te_conv *cv, const struct te_type *t)
{
        enum te_base b = t->base;

        if (cv->conv == 'p')
                return t->ptr > 0;
        if (cv->conv == 's')
                return t->ptr == 1 && (b == TE_CHAR || b == TE_SCHAR || b == TE_UCHAR ||
                                       b == TE_INT8 || b == TE_UINT8);
        if (t->ptr > 0)
                return false;
        if (cv->conv == 'c')
                return b != TE_BOOL && te_format_is_intish(b);
        switch (cv->len) {
        case TE_LEN_NONE: case TE_LEN_8: case TE_LEN_16: case TE_LEN_32:
                return te_format_is_intish(b);
        case TE_LEN_HH:
                return b == TE_BOOL || b == TE_CHAR || b == TE_SCHAR || b == TE_UCHAR ||
                       b == TE_INT8 || b == TE_UINT8;
        case TE_LEN_H:
                return b == TE_BOOL || b == TE_CHAR || b == TE_SCHAR || b == TE_UCHAR ||
                       b == TE_INT8 || b == TE_UINT8 || b == TE_SHORT || b == TE_USHORT ||
                       b == TE_INT16 || b == TE_UINT16;
        case TE_LEN_L: return b == TE_LONG || b == TE_ULONG;
        case TE_LEN_LL: return b == TE_LLONG || b == TE_ULLONG;
        case TE_LEN_Z: return b == TE_SIZE || b == TE_SSIZE;
        case TE_LEN_T: return b == TE_PTRDIFF;
        case TE_LEN_64: return b == TE_INT64 || b == TE_UINT64;
        case TE_LEN_PTR: return b == TE_UINTPTR;
        case TE_LEN_J: return false;
        }
        return false;
}

/* "; use PRIx64" and the like, for an integer argument given the wrong length. */
static const char *te_format_hint(const struct te_conv *cv, const struct te_type *t)
{
        static char hint[32];
        const char *fmt;

        if (t->ptr > 0 || !strchr("diouxX", cv->conv))
                return "";
        switch (t->base) {
        case TE_INT64: case TE_UINT64: fmt = "; use PRI%c64"; break;
        case TE_UINTPTR: fmt = "; use PRI%cPTR"; break;
        case TE_SIZE: case TE_SSIZE: fmt = "; use %%z%c"; break;
        case TE_PTRDIFF: fmt = "; use %%t%c"; break;
        case TE_LONG: case TE_ULONG: fmt = "; use %%l%c"; break;
        case TE_LLONG: case TE_ULLONG: fmt = "; use %%ll%c"; break;
        default: fmt = "; use %%%c"; break;
        }
        snprintf(hint, sizeof(hint), fmt, cv->conv);
        return hint;
}

static enum te_kind te_format_int_kind(const struct te_type *t)
{
        return te_type_is_signed(t->base) ? TE_KIND_SIGNED : TE_KIND_UNSIGNED;
}

/* Match CV with the next arguments of EV from *NEXT on; set their kinds. */
static int te_format_match(struct te_parse_ctx *ctx, const char *line, const struct te_conv *cv,
                           struct te_event *ev, unsigned *next)
{
        int w = (int)(cv->end - cv->off);
        const char *text = line + cv->off;
        struct te_arg *a;
        unsigned s;

        for (s = 0; s <= cv->nstars; s++) {
                if (*next >= ev->nargs)
                        return te_parse_error(ctx, cv->off, "conversion '%.*s' has no matching argument",
                                              w, text);
                a = &ev->args[*next];
                if (s < cv->nstars) {
                        if (a->type.ptr > 0 || !te_format_is_intish(a->type.base))
                                return te_parse_error(ctx, cv->off, "%s '*' in '%.*s' expects an "
                                                      "argument of type 'int', but argument '%s' "
                                                      "has type '%s'",
                                                      cv->star_prec[s] ? "precision" : "field width",
                                                      w, text, a->name, a->type.spelling);
                        a->kind = te_format_int_kind(&a->type);
                } else if (!te_format_fits(cv, &a->type)) {
                        /* QEMU compiles no code from a 'disable' event's
                         * format (target/hppa has %lx for uint64_t there):
                         * neither does tracegen; the type gives the kind */
                        if (!ev->disabled)
                                return te_parse_error(ctx, cv->off, "format '%.*s' expects an argument "
                                                      "of type '%s', but argument '%s' has type '%s'%s",
                                                      w, text, te_format_expects(cv), a->name,
                                                      a->type.spelling, te_format_hint(cv, &a->type));
                        ev->fmt_unfit = true;
                        a->kind = a->type.ptr > 0 ? TE_KIND_POINTER : te_format_int_kind(&a->type);
                } else if (a->type.ptr > 0) {
                        a->kind = cv->conv == 's' ? TE_KIND_STRING : TE_KIND_POINTER;
                        a->str_prec = !cv->prec ? -1 :
                                      cv->nstars && cv->star_prec[cv->nstars - 1] ? -2 :
                                      cv->prec_val;
                } else {
                        a->kind = te_format_int_kind(&a->type);
                }
                (*next)++;
        }
        return 0;
}

/*
 * Current tracetool refuses the two characters '\' 'n' anywhere in the
 * format's text (QEMU 9.1 removed the last formats with a newline inside):
 * a newline escape, but also "\\n", an escaped backslash and an 'n'.  As
 * for "%m", a file QEMU refuses is not one.  A newline written otherwise
 * ("\012") passes there, and so it does here.
 */
static int te_format_check_newline(struct te_parse_ctx *ctx, const char *line, size_t start,
                                   size_t end)
{
        const char *p = memmem(line + start, end - start, "\\n", 2);
        size_t at, k;

        if (!p || ctx->newline_ok)
                return 0;
        at = (size_t)(p - line);
        /* the backslash at AT begins an escape after an even run of them */
        for (k = at; k > start && line[k - 1] == '\\'; k--)
                ;
        if ((at - k) % 2 == 0)
                return te_parse_error(ctx, at, "newline ('\\n') in the format: QEMU's "
                                      "tracetool refuses it (every output ends the event "
                                      "itself)");
        return te_parse_error(ctx, at, "'\\n' in the text of the format (here not a "
                              "newline): QEMU's tracetool refuses it");
}

int te_format_parse(struct te_parse_ctx *ctx, const char *line, size_t start, size_t len,
                    struct te_event *ev, const size_t *arg_off)
{
        struct te_unit *u = NULL;
        struct te_conv cv = { 0 };
        size_t n = 0, i = 0, end = start;
        unsigned next = 0;
        const char *pm;
        int r;

        u = calloc(len - start + 1, sizeof(*u));
        if (!u) {
                r = -ENOMEM;
                goto out;
        }
        r = te_format_units(ctx, line, start, len, u, &n, &end);
        if (r < 0)
                goto out;
        /* tracetool's rule: the backends add the line end themselves. */
        if (n > 0 && !u[n - 1].macro && u[n - 1].c == '\n') {
                r = te_parse_error(ctx, u[n - 1].off, "format must not end with a newline");
                goto out;
        }
        while (i < n) {
                /* a macro outside a conversion is the text it stands for, as
                 * C reads it: QEMU's hw/timer has "... + %u" PRIx8 ("%ux") */
                if (u[i].macro || u[i].c != '%') {
                        i++;
                        continue;
                }
                if (i + 1 < n && !u[i + 1].macro && u[i + 1].c == '%') {
                        i += 2;
                        continue;
                }
                if (i + 1 == n) {
                        r = te_parse_error(ctx, u[i].off, "spurious trailing '%%' in format");
                        goto out;
                }
                r = te_format_conv(ctx, line, u, n, &i, &cv);
                if (r == 0)
                        r = te_format_check_conv(ctx, line, &cv);
                if (r < 0)
                        goto out;
                r = te_format_match(ctx, line, &cv, ev, &next);
                if (r < 0)
                        goto out;
        }
        if (next < ev->nargs) {
                r = te_parse_error(ctx, arg_off[next], "argument '%s' is not used by the format",
                                   ev->args[next].name);
                goto out;
        }
        /* tracetool looks for "%m" in the format's text, not its conversions:
         * "100%%m" is refused there, and a file QEMU refuses is not one */
        pm = memmem(line + start, len - start, "%m", 2);
        if (pm) {
                r = te_parse_error(ctx, (size_t)(pm - line), "'%%m' in the text of the format "
                                   "(here not a conversion): QEMU's tracetool refuses it");
                goto out;
        }
        r = te_format_check_newline(ctx, line, start, end);
        if (r < 0)
                goto out;
        ev->fmt = strndup(line + start, end - start);
        if (!ev->fmt) {
                r = -ENOMEM;
                goto out;
        }
        ev->fmt_empty = n == 0;
out:
        free(u);
        return r;
}
