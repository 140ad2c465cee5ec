/*
 * te_parse.h - what te_parse.c shares with the parts it calls while reading a
 * line: the error context, and the type and format readers.
 */
#ifndef TE_PARSE_H
#define TE_PARSE_H

#include "te.h"

/* Where the parser is; errors are printed to ERR as FILE:LINE:COL. */
struct te_parse_ctx {
        const char *path;
        unsigned line;
        FILE *err;
        unsigned nerrors;
        bool newline_ok;        /* te_list.newline_ok */
};

/*
 * Print "tracegen: PATH:LINE:COL: message" for the byte at offset OFF of the
 * current line.  Returns -EINVAL, so callers can write 'return te_parse_error()'.
 */
int te_parse_error(struct te_parse_ctx *ctx, size_t off, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/* te_type.c: parse LINE[START, END) as a type. 0, -EINVAL (reported), -ENOMEM. */
int te_type_parse(struct te_parse_ctx *ctx, const char *line, size_t start, size_t end,
                  struct te_type *ret_type);

/* te_format.c: true for the name of a PRI macro tracegen understands. */
bool te_format_is_macro(const char *name);

/*
 * te_format.c: read the format that starts at LINE[START] (the first '"') and
 * ends the line, check it against EV's arguments and set their kinds; set
 * EV->fmt and EV->fmt_empty.  ARG_OFF[i] is the offset of argument i's name,
 * for errors.  Returns 0, -EINVAL (reported) or -ENOMEM.
 */
int te_format_parse(struct te_parse_ctx *ctx, const char *line, size_t start, size_t len,
                    struct te_event *ev, const size_t *arg_off);

#endif /* TE_PARSE_H */
