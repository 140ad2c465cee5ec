/*
 * te_parse.c - read trace-events files into a struct te_list.
 *
 * The grammar is QEMU's (scripts/tracetool/__init__.py): whole-line '#'
 * comments and blank lines are skipped; every other line is
 *     [disable ]name(type name, ...) "format" [PRI macros / more literals]
 * with '(void)' for no argument and at most 10 arguments.  An argument that
 * holds a '*' is split at its last '*' (type to the left, name to the right),
 * any other at its last blank, as tracetool does.  Beyond tracetool, what the
 * generated C would not compile or would get wrong is refused here: bad
 * identifiers, duplicate events, formats that do not fit the arguments.
 * Errors go to the caller's FILE * as "tracegen: FILE:LINE:COL: message",
 * column 1-based and pointing at the offending byte; parsing goes on with the
 * next line so one run shows every bad line.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "te.h"
#include "te_parse.h"

/* The line being parsed, for the column of errors. */
struct te_parse_line {
        const char *text;
        size_t len;
};

void te_fputs_quoted(const char *s, const char *also, FILE *f)
{
        for (; *s; s++) {
                unsigned char c = (unsigned char)*s;

                if (c >= 0x20 && c < 0x7f && !(also && strchr(also, c)))
                        fputc(c, f);
                else
                        fprintf(f, "\\x%02x", c);
        }
}

/* What a message quotes from the line (a type, a conversion, a byte), and
 * the file's name, show their control characters as \xHH, as traceql's
 * messages do: a hostile file sends no escape sequence to the terminal, nor
 * makes a message two lines.  So are bytes past ASCII: 0x9b is CSI to a
 * terminal with 8-bit controls, and a message does not depend on the
 * terminal's charset to read right. */
int te_parse_error(struct te_parse_ctx *ctx, size_t off, const char *fmt, ...)
{
        char *msg = NULL;
        va_list ap;
        int n;

        fputs("tracegen: ", ctx->err);
        te_fputs_quoted(ctx->path, NULL, ctx->err);
        fprintf(ctx->err, ":%u:%zu: ", ctx->line, off + 1);
        va_start(ap, fmt);
        n = vasprintf(&msg, fmt, ap);
        va_end(ap);
        te_fputs_quoted(n < 0 ? "out of memory" : msg, NULL, ctx->err);
        if (n >= 0)
                free(msg);
        fputc('\n', ctx->err);
        ctx->nerrors++;
        return -EINVAL;
}

struct te_list *te_list_new(void)
{
        return calloc(1, sizeof(struct te_list));
}

static void te_parse_event_free(struct te_event *ev)
{
        unsigned i;

        for (i = 0; i < ev->nargs; i++) {
                free(ev->args[i].name);
                free(ev->args[i].type.spelling);
        }
        free(ev->name);
        free(ev->fmt);
}

void te_list_free(struct te_list *list)
{
        size_t i;

        if (!list)
                return;
        for (i = 0; i < list->n; i++)
                te_parse_event_free(&list->events[i]);
        for (i = 0; i < list->nfiles; i++)
                free(list->files[i]);
        free(list->events);
        free(list->files);
        free(list->names);
        free(list);
}

static bool te_parse_is_word(char c)
{
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
               (c >= '0' && c <= '9') || c == '_';
}

static bool te_parse_is_blank(char c)
{
        return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static bool te_parse_is_ident(const char *s, size_t n)
{
        size_t i;

        if (n == 0 || (s[0] >= '0' && s[0] <= '9'))
                return false;
        for (i = 0; i < n; i++)
                if (!te_parse_is_word(s[i]))
                        return false;
        return true;
}

static const char *const te_parse_keywords[] = {
        "auto", "break", "case", "char", "const", "continue", "default", "do", "double",
        "else", "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long",
        "register", "restrict", "return", "short", "signed", "sizeof", "static", "struct",
        "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "_Alignas",
        "_Alignof", "_Atomic", "_Bool", "_Complex", "_Generic", "_Imaginary", "_Noreturn",
        "_Static_assert", "_Thread_local", "asm", "typeof", "__asm__", "__typeof__",
        "__attribute__", "__extension__", "__inline__", "__restrict__", "__volatile__",
        "__func__", "__FUNCTION__", "__FILE__", "__LINE__",
};

static const char *const te_parse_macros[] = {
        /* macros or globals of the headers the generated code includes */
        "bool", "true", "false", "NULL", "EOF", "errno", "stdin", "stdout", "stderr",
        /* object-like macros of <stdio.h>, <stdint.h> and glibc's <sys/types.h>
         * (included for ssize_t): an argument so named would be replaced */
        "BUFSIZ", "FILENAME_MAX", "FOPEN_MAX", "L_ctermid", "L_tmpnam", "P_tmpdir",
        "SEEK_CUR", "SEEK_END", "SEEK_SET", "TMP_MAX", "PTRDIFF_MIN", "PTRDIFF_MAX",
        "SIG_ATOMIC_MIN", "SIG_ATOMIC_MAX", "SIZE_MAX", "WCHAR_MIN", "WCHAR_MAX",
        "WINT_MIN", "WINT_MAX", "BYTE_ORDER", "LITTLE_ENDIAN", "BIG_ENDIAN", "PDP_ENDIAN",
        "FD_SETSIZE", "NFDBITS",
};

/* Function-like macros of those headers: no argument can be named by them,
 * but a probe can (a name not followed by '(' is not expanded). */
static const char *const te_parse_fn_macros[] = { "offsetof", "assert" };

/* C reserves these for <stdint.h>'s macros: INT or UINT, then _MAX, _MIN,
 * _WIDTH or _C at the end (INT64_MAX, UINT_LEAST8_MAX, INT8_C). */
static bool te_parse_is_stdint_macro(const char *name)
{
        static const char *const ends[] = { "_MAX", "_MIN", "_WIDTH", "_C" };
        size_t n = strlen(name), e, i;

        if (strncmp(name, "INT", 3) != 0 && strncmp(name, "UINT", 4) != 0)
                return false;
        for (i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
                e = strlen(ends[i]);
                if (n > e && strcmp(name + n - e, ends[i]) == 0)
                        return true;
        }
        return false;
}

/* ... and these for <inttypes.h>'s: PRI or SCN, then a lower-case letter or
 * X (PRIx64, SCNd32, PRIxFAST16, all of them, not only those of formats). */
static bool te_parse_is_inttypes_macro(const char *name)
{
        return (strncmp(name, "PRI", 3) == 0 || strncmp(name, "SCN", 3) == 0) &&
               ((name[3] >= 'a' && name[3] <= 'z') || name[3] == 'X');
}

/* Why NAME, an event's or a group's, would be replaced by a macro of the
 * headers the generated code includes or of the compiler, or NULL. */
const char *te_parse_macro_name(const char *name)
{
        size_t i;

        for (i = 0; i < sizeof(te_parse_macros) / sizeof(te_parse_macros[0]); i++)
                if (strcmp(name, te_parse_macros[i]) == 0)
                        return "is a standard macro";
        if (te_format_is_macro(name) || te_parse_is_inttypes_macro(name))
                return "is an <inttypes.h> macro";
        if (te_parse_is_stdint_macro(name))
                return "is a <stdint.h> macro";
        /* gcc and clang define them as 1 in GNU C (-std=gnu11, QEMU's) */
        if (strcmp(name, "linux") == 0 || strcmp(name, "unix") == 0)
                return "is a macro the compiler predefines";
        /* _LP64, _IOFBF, _SDT_HAS_SEMAPHORES: the compiler's and the headers' */
        if (name[0] == '_' && name[1] >= 'A' && name[1] <= 'Z')
                return "is reserved for the C implementation ('_' and an upper-case letter)";
        return NULL;
}

/*
 * Object-like macros of <lttng/tracepoint.h> and of the headers the ust
 * backend's provider is read through (LTTng-UST 2.13's old API, kept
 * under LTTNG_UST_COMPAT_API): an event named 'tracepoint' registered as
 * GROUP:lttng_ust_tracepoint, and beside dtrace failed to compile.
 */
static const char *const te_parse_ust_macros[] = {
        "tracepoint", "do_tracepoint", "tracepoint_enabled", "tp_rcu_dereference",
        "tp_rcu_read_lock", "tp_rcu_read_unlock", "static_assert",
        "ctf_array", "ctf_array_hex", "ctf_array_network", "ctf_array_network_hex",
        "ctf_array_network_nowrite", "ctf_array_network_nowrite_hex", "ctf_array_nowrite",
        "ctf_array_nowrite_hex", "ctf_array_text", "ctf_array_text_nowrite", "ctf_enum",
        "ctf_enum_auto", "ctf_enum_nowrite", "ctf_enum_range", "ctf_enum_value", "ctf_float",
        "ctf_float_nowrite", "ctf_integer", "ctf_integer_hex", "ctf_integer_network",
        "ctf_integer_network_hex", "ctf_integer_nowrite", "ctf_sequence", "ctf_sequence_hex",
        "ctf_sequence_network", "ctf_sequence_network_hex", "ctf_sequence_network_nowrite",
        "ctf_sequence_network_nowrite_hex", "ctf_sequence_nowrite", "ctf_sequence_nowrite_hex",
        "ctf_sequence_text", "ctf_sequence_text_nowrite", "ctf_string", "ctf_string_nowrite",
        "ctf_unused", "ctf_unused_nowrite",
        "TP_ARGS", "TP_ENUM_VALUES", "TP_FIELDS", "TP_RCU_LINK_TEST", "TRACEPOINT_ENUM",
        "TRACEPOINT_EVENT", "TRACEPOINT_EVENT_CLASS", "TRACEPOINT_HEADER_MULTI_READ",
        "TRACEPOINT_LOGLEVEL", "TRACEPOINT_MODEL_EMF_URI", "TRACE_EMERG", "TRACE_ALERT",
        "TRACE_CRIT", "TRACE_ERR", "TRACE_WARNING", "TRACE_NOTICE", "TRACE_INFO", "TRACE_DEBUG",
        "TRACE_DEBUG_SYSTEM", "TRACE_DEBUG_PROGRAM", "TRACE_DEBUG_PROCESS", "TRACE_DEBUG_MODULE",
        "TRACE_DEBUG_UNIT", "TRACE_DEBUG_FUNCTION", "TRACE_DEBUG_LINE",
};

/* Why NAME, an event's, an argument's or the group's, is LTTng-UST's with
 * the ust backend, or NULL: a macro of its headers, or a name of its
 * prefixes, which its macros and the globals its probe code uses have
 * (an argument 'lttng_ust_tracepoint_dlopen_ptr' failed to compile). */
const char *te_parse_ust_name(const char *name)
{
        size_t i;

        for (i = 0; i < sizeof(te_parse_ust_macros) / sizeof(te_parse_ust_macros[0]); i++)
                if (strcmp(name, te_parse_ust_macros[i]) == 0)
                        return "is a macro of LTTng-UST's headers";
        if (strncmp(name, "lttng_ust_", 10) == 0 || strncmp(name, "LTTNG_UST_", 10) == 0)
                return "has LTTng-UST's prefix, that of its macros";
        return NULL;
}

/* Why NAME cannot name an argument, or NULL when it can. */
static const char *te_parse_bad_arg_name(const char *name)
{
        static const char *const reserved[] = { "_tj", "_TJ", "tj_", "TJ_", "_TRACE_", "TRACE_", "__" };
        const char *why;
        size_t i;

        for (i = 0; i < sizeof(te_parse_keywords) / sizeof(te_parse_keywords[0]); i++)
                if (strcmp(name, te_parse_keywords[i]) == 0)
                        return "is a C keyword or a standard macro";
        for (i = 0; i < sizeof(te_parse_fn_macros) / sizeof(te_parse_fn_macros[0]); i++)
                if (strcmp(name, te_parse_fn_macros[i]) == 0)
                        return "is a C keyword or a standard macro";
        if (te_type_is_allowed_word(name))
                return "is a type name";
        for (i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
                if (strncmp(name, reserved[i], strlen(reserved[i])) == 0)
                        return "is reserved for tracegen's generated code";
        why = te_parse_macro_name(name);
        if (why)
                return why;
        if (strlen(name) > TE_MAX_ARG_NAME)
                return "is too long for a journal field (54 characters at most)";
        return NULL;
}

/* NAME upper-cased into DST: ASCII only (a name is; and no locale is set,
 * so strcasecmp() compares names the same way). */
static void te_parse_upper(char *dst, const char *src)
{
        for (; *src; src++)
                *dst++ = (*src >= 'a' && *src <= 'z') ? (char)(*src - 'a' + 'A') : *src;
        *dst = '\0';
}

/* Check the name of argument EV->args[I] against the others. */
static int te_parse_check_arg_name(struct te_parse_ctx *ctx, const struct te_event *ev,
                                   unsigned i, size_t off)
{
        const char *name = ev->args[i].name, *why = te_parse_bad_arg_name(name);
        char up[TE_MAX_ARG_NAME + 1], up2[TE_MAX_ARG_NAME + 1];
        unsigned j;

        if (why)
                return te_parse_error(ctx, off, "argument name '%s' %s", name, why);
        te_parse_upper(up, name);
        for (j = 0; j < i; j++) {
                if (strcmp(ev->args[j].name, name) == 0)
                        return te_parse_error(ctx, off, "duplicate argument name '%s'", name);
                te_parse_upper(up2, ev->args[j].name);
                if (strcmp(up, up2) == 0)
                        return te_parse_error(ctx, off, "arguments '%s' and '%s' would share the "
                                              "journal field TRACE_ARG_%s",
                                              ev->args[j].name, name, up);
        }
        return 0;
}

/* Parse one argument, LINE[S, E) with blanks trimmed, into EV->args[EV->nargs]. */
static int te_parse_arg(struct te_parse_ctx *ctx, const char *line, size_t s, size_t e,
                        struct te_event *ev, size_t *ret_off)
{
        struct te_arg *a = &ev->args[ev->nargs];
        size_t k, ts = s, te, ns, end;
        int r;

        for (k = e; k > s && line[k - 1] != '*'; k--)
                ;
        if (k > s) {
                te = k;
                ns = k;
        } else {
                for (k = e; k > s && !te_parse_is_blank(line[k - 1]); k--)
                        ;
                if (k == s) {
                        if (te_parse_is_ident(line + s, e - s) && (k = e - s) < 64) {
                                char w[64];

                                memcpy(w, line + s, k);
                                w[k] = '\0';
                                if (te_type_is_allowed_word(w) || strcmp(w, "const") == 0)
                                        return te_parse_error(ctx, e, "missing argument name "
                                                              "after type '%s'", w);
                        }
                        return te_parse_error(ctx, s, "unknown type '%.*s'", (int)(e - s), line + s);
                }
                te = k;
                ns = k;
        }
        while (ns < e && te_parse_is_blank(line[ns]))
                ns++;
        if (ns == e)
                return te_parse_error(ctx, e, "missing argument name after type '%.*s'",
                                      (int)(te - ts), line + ts);
        /* tracetool splits a type at spaces only ('unsigned<TAB>int' is one
         * unknown word there); the blanks before the name are not the type's */
        for (end = te; end > ts && te_parse_is_blank(line[end - 1]); end--)
                ;
        for (k = ts; k < end; k++)
                if (te_parse_is_blank(line[k]) && line[k] != ' ')
                        return te_parse_error(ctx, k, "type '%.*s' holds a blank other than a "
                                              "space: QEMU's tracetool refuses it (it splits "
                                              "types at spaces only)", (int)(end - ts), line + ts);
        r = te_type_parse(ctx, line, ts, te, &a->type);
        if (r < 0)
                return r;
        ev->nargs++;            /* the type is owned by EV from here on */
        if (!te_parse_is_ident(line + ns, e - ns))
                return te_parse_error(ctx, ns, "invalid argument name '%.*s'",
                                      (int)(e - ns), line + ns);
        a->name = strndup(line + ns, e - ns);
        if (!a->name)
                return -ENOMEM;
        a->col = (unsigned)ns + 1;
        *ret_off = ns;
        return te_parse_check_arg_name(ctx, ev, ev->nargs - 1, ns);
}

/* Parse the argument list LINE(OPEN, CLOSE) into EV. */
static int te_parse_args(struct te_parse_ctx *ctx, const char *line, size_t open, size_t close,
                         struct te_event *ev, size_t *arg_off)
{
        size_t s = open + 1, e, ts, te;
        unsigned count = 0;
        bool is_void = false;
        int r;

        for (;;) {
                for (e = s; e < close && line[e] != ','; e++)
                        ;
                for (ts = s; ts < e && te_parse_is_blank(line[ts]); ts++)
                        ;
                for (te = e; te > ts && te_parse_is_blank(line[te - 1]); te--)
                        ;
                if (ts == te)
                        return te_parse_error(ctx, e, "empty argument (did you forget 'void'?)");
                if (is_void || (te - ts == 4 && strncmp(line + ts, "void", 4) == 0 &&
                                (count > 0 || e < close)))
                        return te_parse_error(ctx, ts, "'void' must be the only argument");
                count++;
                if (te - ts == 4 && strncmp(line + ts, "void", 4) == 0) {
                        is_void = true;
                } else if (ev->nargs == TE_MAX_ARGS) {
                        return te_parse_error(ctx, ts, "too many arguments (at most %d)",
                                              TE_MAX_ARGS);
                } else {
                        r = te_parse_arg(ctx, line, ts, te, ev, &arg_off[ev->nargs]);
                        if (r < 0)
                                return r;
                }
                if (e >= close)
                        return 0;
                s = e + 1;
        }
}

/* Read the properties and the name; set *RET_OPEN to the offset of '('. */
static int te_parse_head(struct te_parse_ctx *ctx, const char *line, size_t len,
                         struct te_event *ev, size_t *ret_open)
{
        size_t i = 0, w;

        for (;;) {
                while (i < len && te_parse_is_blank(line[i]))
                        i++;
                if (i >= len)
                        return te_parse_error(ctx, i, "expected an event name");
                if (!te_parse_is_word(line[i]))
                        return te_parse_error(ctx, i, "expected an event name, found '%c'", line[i]);
                for (w = i; w < len && te_parse_is_word(line[w]); w++)
                        ;
                if (w < len && line[w] == '(')
                        break;
                if (w - i == 7 && strncmp(line + i, "disable", 7) == 0 &&
                    w < len && te_parse_is_blank(line[w])) {
                        if (ev->disabled)
                                return te_parse_error(ctx, i, "duplicate property 'disable'");
                        ev->disabled = true;
                } else if (w - i == 4 && strncmp(line + i, "vcpu", 4) == 0 &&
                           w < len && te_parse_is_blank(line[w])) {
                        if (ev->vcpu)
                                return te_parse_error(ctx, i, "duplicate property 'vcpu'");
                        ev->vcpu = true;
                        ev->vcpu_col = (unsigned)i + 1;
                } else if (w < len && te_parse_is_blank(line[w])) {
                        size_t n = w;

                        while (n < len && te_parse_is_blank(line[n]))
                                n++;
                        if (n < len && te_parse_is_word(line[n]))
                                return te_parse_error(ctx, i, "unknown property '%.*s'",
                                                      (int)(w - i), line + i);
                        return te_parse_error(ctx, w, "expected '(' right after the event name");
                } else {
                        return te_parse_error(ctx, w, "expected '(' after the event name");
                }
                i = w;
        }
        /* Any run of word characters, as QEMU's \w+: one that begins with a
         * digit is no C identifier, but every name made of it has a prefix
         * (trace_1foo, _TRACE_1FOO_DSTATE, _tj_trace_1foo). */
        /* The library's own events (tj_dropped) are told apart by name. */
        if (w - i >= 3 && strncmp(line + i, "tj_", 3) == 0)
                return te_parse_error(ctx, i, "event name '%.*s' is reserved for the library's own "
                                      "events (tj_...)", (int)(w - i), line + i);
        if (w - i == 24 && strncmp(line + i, "event_get_state_backends", 24) == 0)
                return te_parse_error(ctx, i, "event name 'event_get_state_backends' would redefine "
                                      "trace_event_get_state_backends()");
        ev->name = strndup(line + i, w - i);
        if (!ev->name)
                return -ENOMEM;
        ev->col = (unsigned)i + 1;
        *ret_open = w;
        return 0;
}

/*
 * The 'vcpu' property, as QEMU's tracetool had it until 8.1
 * (scripts/tracetool/vcpu.py): the event takes 'void *__cpu' (the CPUState
 * the caller passes) before its declared arguments, and its format is
 * "cpu=%p " followed by the declared one.  Called once the declared
 * arguments and format were read and matched.
 */
static int te_parse_vcpu(struct te_parse_ctx *ctx, struct te_event *ev)
{
        struct te_arg cpu = { .kind = TE_KIND_POINTER, .col = ev->vcpu_col };
        const char *rest;
        char *fmt;

        if (ev->nargs >= TE_MAX_ARGS)
                return te_parse_error(ctx, ev->vcpu_col - 1, "a 'vcpu' event takes at most %d "
                                      "arguments: the property adds 'void *__cpu' before them",
                                      TE_MAX_ARGS - 1);
        /* no declared argument can be '__cpu': names beginning with "__" are
         * the generated code's (te_parse_bad_arg_name()) */
        rest = ev->fmt_empty ? "" : ev->fmt;
        if (asprintf(&fmt, "\"cpu=%%p \"%s%s", *rest ? " " : "", rest) < 0)
                return -ENOMEM;
        cpu.name = strdup("__cpu");
        cpu.type.spelling = strdup("void *");
        if (!cpu.name || !cpu.type.spelling) {
                free(fmt);
                free(cpu.name);
                free(cpu.type.spelling);
                return -ENOMEM;
        }
        free(ev->fmt);
        ev->fmt = fmt;
        ev->fmt_empty = false;
        cpu.type.base = TE_VOID;
        cpu.type.ptr = 1;
        memmove(&ev->args[1], &ev->args[0], ev->nargs * sizeof(ev->args[0]));
        ev->args[0] = cpu;
        ev->nargs++;
        return 0;
}

/* Parse the event line LINE (LEN bytes, no newline) into EV. */
static int te_parse_event(struct te_parse_ctx *ctx, const char *line, size_t len,
                          struct te_event *ev)
{
        size_t open = 0, close, f, arg_off[TE_MAX_ARGS] = { 0 };
        int r;

        r = te_parse_head(ctx, line, len, ev, &open);
        if (r < 0)
                return r;
        for (close = open + 1; close < len && line[close] != ')'; close++)
                ;
        if (close >= len)
                return te_parse_error(ctx, open, "missing ')' to close the argument list");
        r = te_parse_args(ctx, line, open, close, ev, arg_off);
        if (r < 0)
                return r;
        for (f = close + 1; f < len && te_parse_is_blank(line[f]); f++)
                ;
        if (f >= len && ev->nargs == 0) {
                /* QEMU has events without a format; they print nothing. */
                ev->fmt = strdup("\"\"");
                ev->fmt_empty = true;
                if (!ev->fmt)
                        return -ENOMEM;
                return ev->vcpu ? te_parse_vcpu(ctx, ev) : 0;
        }
        if (f >= len)
                return te_parse_error(ctx, f, "expected a format string after ')'");
        if (line[f] != '"')
                return te_parse_error(ctx, f, "expected a format string after ')', found '%c'",
                                      line[f]);
        r = te_format_parse(ctx, line, f, len, ev, arg_off);
        if (r == 0 && ev->vcpu)
                r = te_parse_vcpu(ctx, ev);
        return r;
}

static int te_parse_grow(struct te_list *list)
{
        struct te_event *p;
        size_t cap;

        if (list->n < list->cap)
                return 0;
        cap = list->cap ? list->cap * 2 : 64;
        p = realloc(list->events, cap * sizeof(*p));
        if (!p)
                return -ENOMEM;
        list->events = p;
        list->cap = cap;
        return 0;
}

/* FNV-1a of NAME upper-cased: names that differ only in case collide. */
static size_t te_parse_name_hash(const char *name)
{
        uint64_t h = 14695981039346656037u;

        for (; *name; name++) {
                unsigned char c = (unsigned char)*name;

                h = (h ^ (c >= 'a' && c <= 'z' ? c - 32u : c)) * 1099511628211u;
        }
        return (size_t)h;
}

/* The slot of LIST->names holding the event named NAME in upper case, or the
 * free slot where it would go.  The table is never full (te_parse_index()). */
static size_t te_parse_slot(const struct te_list *list, const char *name)
{
        size_t mask = list->names_cap - 1, s = te_parse_name_hash(name) & mask;

        while (list->names[s] &&
               strcasecmp(list->events[list->names[s] - 1].name, name) != 0)
                s = (s + 1) & mask;
        return s;
}

/* Add event LIST->events[I] to the set of names, growing it to keep it at
 * most half full.  0 or -ENOMEM (the set unchanged). */
static int te_parse_index(struct te_list *list, size_t i)
{
        if (2 * (i + 1) > list->names_cap) {
                size_t cap = list->names_cap ? list->names_cap * 2 : 128, *old = list->names,
                       old_cap = list->names_cap, k;

                list->names = calloc(cap, sizeof(*list->names));
                if (!list->names) {
                        list->names = old;
                        return -ENOMEM;
                }
                list->names_cap = cap;
                for (k = 0; k < old_cap; k++)
                        if (old[k])
                                list->names[te_parse_slot(list, list->events[old[k] - 1].name)] =
                                        old[k];
                free(old);
        }
        list->names[te_parse_slot(list, list->events[i].name)] = i + 1;
        return 0;
}

/* Refuse an event whose name (or upper-case name) an earlier one has.  The
 * earlier events' upper-case names are all distinct, so one at most is found. */
static int te_parse_check_dup(struct te_parse_ctx *ctx, const struct te_list *list,
                              const struct te_event *ev)
{
        const struct te_event *o;
        size_t s;

        if (list->names_cap == 0)
                return 0;
        s = te_parse_slot(list, ev->name);
        if (!list->names[s])
                return 0;
        o = &list->events[list->names[s] - 1];
        if (strcmp(o->name, ev->name) == 0)
                return te_parse_error(ctx, ev->col - 1, "duplicate event '%s' "
                                      "(first defined at %s:%u)", ev->name, o->file, o->line);
        return te_parse_error(ctx, ev->col - 1, "event '%s' clashes with event '%s' "
                              "at %s:%u (the same name in upper case)",
                              ev->name, o->name, o->file, o->line);
}

/* Parse one line; blank and comment lines are skipped.  0, -EINVAL, -ENOMEM. */
static int te_parse_line(struct te_parse_ctx *ctx, struct te_list *list, const char *file,
                         const char *line, size_t len)
{
        struct te_event *ev;
        size_t i;
        int r;

        for (i = 0; i < len && te_parse_is_blank(line[i]); i++)
                ;
        if (i == len || line[i] == '#')
                return 0;
        if (memchr(line, '\0', len))
                return te_parse_error(ctx, (size_t)((const char *)memchr(line, '\0', len) - line),
                                      "NUL byte in line");
        r = te_parse_grow(list);
        if (r < 0)
                return r;
        ev = &list->events[list->n];
        memset(ev, 0, sizeof(*ev));
        ev->file = file;
        ev->line = ctx->line;
        r = te_parse_event(ctx, line, len, ev);
        if (r == 0)
                r = te_parse_check_dup(ctx, list, ev);
        if (r == 0)
                r = te_parse_index(list, list->n);
        if (r < 0) {
                te_parse_event_free(ev);
                return r;
        }
        list->n++;
        return 0;
}

int te_parse_file(struct te_list *list, const char *path, FILE *f, FILE *err)
{
        struct te_parse_ctx ctx = { .path = path, .err = err, .newline_ok = list->newline_ok };
        char *line = NULL, *name = NULL, **files;
        size_t cap = 0, len;
        ssize_t n;
        int r = 0, rl;

        name = strdup(path);
        files = realloc(list->files, (list->nfiles + 1) * sizeof(*files));
        if (!name || !files) {
                free(name);
                if (files)
                        list->files = files;
                return -ENOMEM;
        }
        list->files = files;
        list->files[list->nfiles++] = name;
        errno = 0;
        while ((n = getline(&line, &cap, f)) > 0) {
                ctx.line++;
                len = (size_t)n;
                if (line[len - 1] != '\n') {
                        te_parse_error(&ctx, len, "missing newline at the end of the file");
                        break;
                }
                len--;
                if (len > 0 && line[len - 1] == '\r')
                        len--;
                rl = te_parse_line(&ctx, list, name, line, len);
                if (rl == -ENOMEM) {
                        r = rl;
                        goto out;
                }
                errno = 0;
        }
        /* glibc's getline() gives -1 for a line it has no memory for, as at
         * the end, without setting the stream's error: the rest unread */
        if (n < 0 && errno == ENOMEM) {
                r = -ENOMEM;
                goto out;
        }
        if (ferror(f)) {
                /* getline() left the cause, e.g. EISDIR for a folder. */
                r = errno > 0 ? -errno : -EIO;
                goto out;
        }
        if (ctx.nerrors > 0)
                r = -EINVAL;
out:
        free(line);
        return r;
}
