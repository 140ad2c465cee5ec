/*
 * te.h - the parsed form of a trace-events file, shared by tracegen's parts.
 *
 * te_type.c turns an argument's type words into a struct te_type, te_format.c
 * reads the format literals and matches each conversion with its argument,
 * te_parse.c reads whole files into a struct te_list, te_emit.c writes the C
 * code, te_out.c replaces output files atomically, and tracegen.c is the CLI.
 *
 * Ownership: a struct te_list owns every string and array reachable from it;
 * te_list_free() releases all of it and accepts NULL.  Diagnostics are printed
 * by the parser to the FILE * it is given, one "tracegen: FILE:LINE:COL: msg"
 * line each; the functions themselves only return 0 or -errno.
 */
#ifndef TE_H
#define TE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define TE_MAX_ARGS 10          /* QEMU's limit */
#define TE_MAX_ARG_NAME 54      /* 64-byte journal field name minus "TRACE_ARG_" */

/* The integer (or void) type an argument's specifiers name. */
enum te_base {
        TE_VOID,
        TE_BOOL,
        TE_CHAR, TE_SCHAR, TE_UCHAR,
        TE_SHORT, TE_USHORT,
        TE_INT, TE_UINT,
        TE_LONG, TE_ULONG,
        TE_LLONG, TE_ULLONG,
        TE_INT8, TE_UINT8, TE_INT16, TE_UINT16,
        TE_INT32, TE_UINT32, TE_INT64, TE_UINT64,
        TE_SIZE, TE_SSIZE, TE_UINTPTR, TE_PTRDIFF,
};

struct te_type {
        enum te_base base;
        unsigned ptr;           /* levels of indirection, 0 for an integer */
        char *spelling;         /* normalised C spelling, e.g. "const char *" */
};

/* The value kinds of tracejournal.h's enum tj_arg_kind. */
enum te_kind {
        TE_KIND_SIGNED = 1,
        TE_KIND_UNSIGNED,
        TE_KIND_POINTER,
        TE_KIND_STRING,
};

struct te_arg {
        struct te_type type;
        char *name;
        enum te_kind kind;      /* set once the format is matched */
        int str_prec;           /* a string's precision: -1 none, -2 the '*'
                                   argument before it, else its value */
        unsigned col;           /* column of the name on its line */
};

struct te_event {
        char *name;
        bool disabled;          /* the 'disable' property */
        bool vcpu;              /* the 'vcpu' property of QEMU before 8.1: an
                                   implicit first argument 'void *__cpu' and
                                   "cpu=%p " before the format */
        char *fmt;              /* the format as written: literals and PRI macros */
        bool fmt_empty;         /* the format prints nothing at all */
        bool fmt_unfit;         /* a 'disable' event's format does not fit its
                                   argument types: kept, never compiled */
        struct te_arg args[TE_MAX_ARGS];
        unsigned nargs;
        const char *file;       /* borrowed from te_list.files */
        unsigned line;
        unsigned col;           /* column of the name */
        unsigned vcpu_col;      /* column of the 'vcpu' property */
};

struct te_list {
        struct te_event *events;
        size_t n, cap;
        char **files;           /* input file names, in order */
        size_t nfiles;
        size_t *names;          /* hash set of the events' upper-case names: an
                                   index into events plus 1, 0 for a free slot */
        size_t names_cap;       /* slots in names, a power of 2 */
        bool newline_ok;        /* accept '\n' inside a format, as QEMU before
                                   9.1 did: traceql reads those releases'
                                   files; tracegen refuses it, as tracetool */
};

/* te_type.c */
int te_type_is_allowed_word(const char *word);
bool te_type_is_signed(enum te_base base);

/* te_parse.c */
/* S on F with its control characters and bytes past ASCII as \xHH (a file
 * name in a message), and the characters of ALSO (may be NULL) too. */
void te_fputs_quoted(const char *s, const char *also, FILE *f);
/* Why NAME would be replaced by the preprocessor in the generated code (an
 * object-like macro of the compiler or of the headers it includes, or a name
 * C reserves for them), or NULL.  The dtrace backend's <sys/sdt.h> pastes a
 * probe's provider and name after expanding them. */
const char *te_parse_macro_name(const char *name);
/* Why NAME, with the ust backend, is LTTng-UST's (a macro of the headers
 * the provider is read through, or its prefix), or NULL. */
const char *te_parse_ust_name(const char *name);
/* te_format.c: the value of the hex digit C, or -1. */
int te_format_hex(char c);
/* te_format.c: code point V as UTF-8 in BUF (4 bytes at most); its length. */
size_t te_format_utf8_put(unsigned long v, char *buf);
struct te_list *te_list_new(void);
void te_list_free(struct te_list *list);
/*
 * Parse one trace-events file (PATH, read from F) and append its events to
 * LIST.  Every error is printed to ERR.  Returns 0, -EINVAL when the input
 * had errors, -ENOMEM, or -errno from reading.
 */
int te_parse_file(struct te_list *list, const char *path, FILE *f, FILE *err);

/*
 * te_emit.c: write the header / source for GROUP to OUT. Returns 0 or -errno.
 * BACKENDS is a set of enum te_backend bits; none at all is the nop backend.
 */
enum te_backend {
        TE_BACKEND_TRACEJOURNAL = 1 << 0,
        TE_BACKEND_DTRACE = 1 << 1,     /* USDT probes through <sys/sdt.h> */
        TE_BACKEND_UST = 1 << 2,        /* an LTTng-UST tracepoint provider */
};
#define TE_BACKEND_NOP 0u
struct te_emit_opts {
        const char *group;
        const char *header_include;     /* what the source #includes */
        const char *ust_include;        /* the UST provider header's #include name */
        unsigned backends;
};
/* With TE_BACKEND_UST: the tracepoint provider header, included by the header. */
int te_emit_ust_header(const struct te_list *list, const struct te_emit_opts *o, FILE *out);
int te_emit_header(const struct te_list *list, const struct te_emit_opts *o, FILE *out);
int te_emit_source(const struct te_list *list, const struct te_emit_opts *o, FILE *out);

/* te_out.c: replace PATH with DATA (temp file in the same folder, then
 * rename).  PATH is untouched on failure.  Returns 0 or -errno. */
/* Write DATA to a new temporary file beside PATH, or beside the file it
 * links to; *RET_TMP is its name, *RET_TARGET the file linked to (malloc'ed;
 * NULL: PATH itself).  Both NULL: PATH is no regular file (/dev/stdout, a
 * pipe), written at te_out_commit().  0 or -errno (-EISDIR for a folder). */
int te_out_prepare(const char *path, const char *data, size_t len, char **ret_tmp,
                   char **ret_target);
/* Move TMP over TARGET (or PATH); without TMP, write DATA into PATH.
 * Returns 0 or -errno (TMP is then left for te_out_abort()). */
int te_out_commit(const char *tmp, const char *target, const char *path, const char *data,
                  size_t len);
void te_out_abort(char *tmp);

#endif /* TE_H */
