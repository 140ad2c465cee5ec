/*
 * control.h - the control endpoint's request parser (control_request.c), a
 * pure function on a buffer so that the fuzz target (tests/fuzz/fuzz_ctl.c)
 * can call it, and the server (control.c).  The protocol is in
 * tracejournal(7): one request line per connection, "COMMAND [ARGUMENT]\n";
 * the reply is zero or more data lines, then "ok" or "error MESSAGE".
 */
#ifndef TJ_CONTROL_H
#define TJ_CONTROL_H

#include <stddef.h>

/* A request line, its '\n' included, is at most this long. */
#define CONTROL_REQUEST_MAX     4096u
/* A pattern or an output list. */
#define CONTROL_ARG_MAX         511u

enum control_cmd {
        CONTROL_LIST = 1,       /* [PATTERN] */
        CONTROL_ENABLE,         /* PATTERN */
        CONTROL_DISABLE,        /* PATTERN */
        CONTROL_FLUSH,
        CONTROL_STATS,
        CONTROL_OUTPUTS,        /* [LIST] */
};

struct control_request {
        enum control_cmd cmd;
        char arg[CONTROL_ARG_MAX + 1];  /* "" when none was given */
};

/*
 * Parse the request in BUF (LEN bytes: one line, with or without its '\n';
 * nothing may follow the '\n').  Reads nothing beyond BUF + LEN, allocates
 * nothing, keeps no state.  Returns 0 with *RET filled, or -EINVAL (malformed)
 * / -E2BIG (too long) with a one-line message in ERRBUF (ERRSIZE bytes, at
 * least 1) and *RET untouched.
 */
__attribute__((visibility("hidden")))
int control_request_parse(const char *buf, size_t len, struct control_request *ret,
                          char *errbuf, size_t errsize);

#endif /* TJ_CONTROL_H */
