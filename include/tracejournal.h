/*
 * tracejournal.h - structured tracing for C programs.
 *
 * A program declares trace points in a QEMU-style trace-events file; tracegen
 * turns them into trace_<event>() functions that call into this library.  The
 * library keeps the registry of events (all disabled at start), lets the
 * application or the environment enable them by name or glob, and sends every
 * enabled event to the configured outputs (journald with typed fields, syslog,
 * stderr, ...).
 *
 * Conventions: functions return 0 (or a count) on success and a negative errno
 * on failure.  Strings passed in are borrowed for the duration of the call
 * unless said otherwise.  Output parameters are named ret_* and are left
 * untouched on failure.  See tracejournal(3) and tracejournal(7).
 */
#ifndef TRACEJOURNAL_H
#define TRACEJOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define TJ_EXPORT __attribute__((visibility("default")))
#else
#define TJ_EXPORT
#endif

/* ---- Application API -------------------------------------------------- */

/*
 * Initialise tracing: set the identifier (SYSLOG_IDENTIFIER, syslog tag;
 * TJ_IDENTIFIER overrides it; NULL means the program name), read TJ_OUTPUT,
 * TJ_EVENTS, TJ_EVENTS_FILE and the other TJ_* variables, open the outputs.
 * Call once from main(), after every group is registered (generated code
 * registers its group from a constructor).  Returns 0 or -errno; tracing of
 * already enabled events keeps working whatever it returns.
 */
TJ_EXPORT int tj_init(const char *identifier);

/* Release outputs after flushing what was traced. Safe to call twice. */
TJ_EXPORT void tj_shutdown(void);

/*
 * Enable the events matching PATTERN (a name or a glob with '*' and '?',
 * case-sensitive); a leading '-' disables them instead.  Returns the number of
 * events matched, or -ENOENT when the pattern matches no event, -EINVAL for an
 * empty pattern.
 */
TJ_EXPORT int tj_enable(const char *pattern);

/* Apply a comma-separated list of patterns, as TJ_EVENTS does.
 * Returns 0, or the first error (the other patterns are still applied). */
TJ_EXPORT int tj_enable_list(const char *patterns);

/*
 * Apply an events file: one pattern per line, '#' comments, blank lines.
 * On failure, *ret_line (when not NULL) is set to the offending line number
 * (0 when the file could not be read).  Returns 0, -errno from open/read, or
 * -ENOENT for a pattern that matches no event.
 */
TJ_EXPORT int tj_enable_file(const char *path, unsigned *ret_line);

/*
 * Take QEMU's -trace option string: "[enable=]PATTERN", "events=FILE",
 * "file=FILE" (comma-separated; ",," is a comma within an item, as in
 * QEMU).  "file=" selects the log output's file.
 * Returns 0 or -errno (-EINVAL for an unknown key).
 */
TJ_EXPORT int tj_trace_opt(const char *optarg);

/*
 * Select the outputs: a comma-separated list of journald, syslog, log, ftrace,
 * simple, nop.  Replaces the current set.  Returns 0, or -EINVAL for an
 * unknown name or a list that names none.
 */
TJ_EXPORT int tj_set_outputs(const char *outputs);

/* Flush everything traced so far to the outputs (bounded wait). */
TJ_EXPORT int tj_flush(void);

/* One event as listed by tj_event_foreach(). Borrowed, valid while the
 * program runs, or until the module holding the event is unloaded. */
struct tj_event_info {
        const char *name;
        const char *group;
        bool enabled;           /* dynamically enabled right now */
        bool compiled_in;       /* false for 'disable' events */
};

/*
 * Call FN for every registered event whose name matches PATTERN (NULL: all),
 * in registration order.  Stops early when FN returns non-zero and returns that
 * value; otherwise returns the number of events visited.
 */
TJ_EXPORT int tj_event_foreach(const char *pattern,
                     int (*fn)(const struct tj_event_info *info, void *userdata),
                     void *userdata);

/* Counters, cumulative since start. */
struct tj_stats {
        uint64_t emitted;       /* trace points that fired while enabled */
        uint64_t written;       /* events delivered to every output */
        uint64_t dropped;       /* events lost (buffer full, output down) */
};
TJ_EXPORT int tj_get_stats(struct tj_stats *ret_stats);

/*
 * Serve the control endpoint that `traceql ctl PID ...` talks to: a unix
 * socket DIR/PID.sock (DIR is $TJ_CONTROL_DIR, else
 * $XDG_RUNTIME_DIR/tracejournal, else /run/tracejournal), served by a thread
 * of the library and open to the same effective uid and root only; see
 * tracejournal(7).  TJ_CONTROL=1 makes tj_init() call it.  Returns 0 (also
 * when already serving) or -errno when the socket cannot be made.
 */
TJ_EXPORT int tj_control_start(void);

/* Stop serving and remove the socket; tj_shutdown() and exit() do it too. */
TJ_EXPORT void tj_control_stop(void);

/* Copy the socket's path into BUF (SIZE bytes).  0, -ENOTCONN when not
 * serving, -ENAMETOOLONG when BUF is too small. */
TJ_EXPORT int tj_control_path(char *buf, size_t size);

/* ---- Interface between tracegen's generated code and the library ------ */
/*
 * Not for direct use: the generated trace.h/trace.c rely on it.  A change here
 * bumps TJ_ABI_VERSION, which tj_group_register() checks.
 */
#define TJ_ABI_VERSION 1

enum tj_arg_kind {
        TJ_ARG_SIGNED = 1,      /* any signed integer type, stored in .i */
        TJ_ARG_UNSIGNED,        /* unsigned integers and bool, in .u */
        TJ_ARG_POINTER,         /* any pointer printed as an address, in .p */
        TJ_ARG_STRING           /* char pointer printed with %s, in .s (may be NULL) */
};

typedef union tj_value {
        int64_t i;
        uint64_t u;
        const void *p;
        const char *s;
} tj_value;

struct tj_arg_desc {
        const char *name;       /* declared name, e.g. "req" */
        const char *field;      /* journal field with '=', e.g. "TRACE_ARG_REQ=" */
        const char *ctype;      /* declared C type, e.g. "uint64_t" */
        unsigned char kind;     /* enum tj_arg_kind */
};

struct tj_site {
        const char *file;       /* __FILE__ of the trace_<event>() call */
        const char *func;       /* __func__ */
        unsigned line;          /* __LINE__ */
};

struct tj_group;

struct tj_event {
        const char *name;
        const char *fmt;                /* the format, C literal text as written */
        /* "TRACE_ARGS=req:p sector:u nb:i name:s": the arguments in declared
         * order with their kind (i signed, u unsigned, p pointer, s string),
         * so the journal entry describes itself; prebuilt by tracegen. */
        const char *argsig;
        const struct tj_arg_desc *args;
        unsigned nargs;
        uint16_t *dstate;               /* the guard the generated code tests */
        bool compiled_in;               /* false for 'disable' events */
        /* snprintf(buf, size, fmt, args...) with the values in V */
        int (*render)(char *buf, size_t size, const tj_value *v);
        /* Filled by the library at registration. */
        const struct tj_group *group;
        uint32_t id;                    /* process-wide, registration order */
};

struct tj_group {
        unsigned abi;                   /* TJ_ABI_VERSION of the generator */
        const char *name;               /* --group */
        const char *source;             /* trace-events file(s) it came from */
        struct tj_event *const *events;
        size_t nevents;
        struct tj_group *next;          /* library's list link */
};

/* Register a group (called from the generated constructor). */
TJ_EXPORT void tj_group_register(struct tj_group *group);

/*
 * Forget a group (called from the generated destructor, as dlclose()
 * unloads the module that holds it): its events are disabled and leave the
 * registry, and what they traced is written first (bounded by
 * TJ_FLUSH_TIMEOUT_MS) or, when still unwritten, counted dropped; no record
 * points into the module once it returns.
 */
TJ_EXPORT void tj_group_unregister(struct tj_group *group);

/* Record one event; V holds ev->nargs values.  Never blocks by default. */
TJ_EXPORT void tj_emit(const struct tj_event *ev, const struct tj_site *site,
             const tj_value *v);

#define TJ_LIKELY(x)   __builtin_expect(!!(x), 1)
#define TJ_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* The call site of the trace_<event>() macro, as a pointer to a static.
 * __extension__ keeps -Wpedantic quiet about the statement expression. */
#define TJ_SITE() \
        __extension__ ({ \
                static const struct tj_site _tj_site_ = { __FILE__, __func__, __LINE__ }; \
                &_tj_site_; })

/* QEMU-compatible guard: is the event compiled in and enabled right now? */
#ifndef trace_event_get_state_backends
#define trace_event_get_state_backends(id) \
        ((id ## _ENABLED) && TJ_UNLIKELY(id ## _BACKEND_DSTATE()))
#endif

#ifdef __cplusplus
}
#endif
#endif /* TRACEJOURNAL_H */
