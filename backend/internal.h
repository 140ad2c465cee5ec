/*
 * internal.h - what the files of libtracejournal share, not installed.
 *
 * The runtime has one record path: tj_emit() (emit.c) encodes an event into a
 * compact record (record.c); the record either goes straight to the outputs
 * (TJ_SYNC=1, and always for the log output) or into the calling thread's ring
 * (ring.c), which the writer thread (writer.c) drains into the outputs.  The
 * registry (registry.c) knows the events and their state; config.c reads the
 * environment and owns the settings below; each output is one out_*.c file.
 */
#ifndef TJ_INTERNAL_H
#define TJ_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "tracejournal.h"

#define TJ_HIDDEN __attribute__((visibility("hidden")))

/* ---- records (record.c) ------------------------------------------------ */

/* A record never exceeds this; longer string arguments are truncated. */
#define RECORD_MAX            16384u
#define RECORD_ALIGN          8u

/* CLOCK_ID now, in nanoseconds. */
static inline int64_t tj_clock_ns(clockid_t id)
{
        struct timespec ts;

        clock_gettime(id, &ts);
        return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* More than trace-events allows (10); events with more are ignored. */
#define TJ_MAX_ARGS           16

enum record_kind {
        RECORD_EVENT = 1,       /* one trace point firing */
        RECORD_PAD,             /* filler up to the end of a ring */
};

enum record_flag {
        RECORD_TRUNCATED = 1 << 0,      /* a string argument was cut short */
        RECORD_LOGGED = 1 << 1,         /* the caller wrote it to log */
        RECORD_LOG_FAILED = 1 << 2,     /* ... and the write to log failed */
        RECORD_FTRACE_FAILED = 1 << 3,  /* ... the write to ftrace failed */
        RECORD_FTRACED = 1 << 4,        /* the caller wrote it to ftrace */
};

/* Value slot of a string argument that was NULL. */
#define RECORD_STR_NULL       UINT64_MAX

/*
 * The header of every record, followed by ev->nargs 8-byte value slots and then
 * the string bytes.  A string slot holds (offset << 32 | length) of its bytes,
 * the offset counted from the start of the record; the bytes end with a NUL.
 */
struct record {
        uint32_t size;                  /* whole record, multiple of 8 */
        uint32_t kind;                  /* enum record_kind */
        const struct tj_event *ev;
        const struct tj_site *site;     /* may be NULL */
        uint64_t seq;                   /* TRACE_SEQ */
        int64_t realtime_ns;            /* CLOCK_REALTIME at the call; RECORD_TIME_DERIVED
                                         * until the writer derives it from mono_ns */
        int64_t mono_ns;                /* CLOCK_MONOTONIC at the call */
        int32_t tid;
        uint32_t flags;                 /* RECORD_TRUNCATED, RECORD_LOGGED... */
        uint64_t slot[];
};

TJ_HIDDEN size_t record_size(const struct tj_event *ev, const tj_value *v,
                             size_t *ret_lens);
TJ_HIDDEN void record_encode(struct record *r, size_t size, const struct tj_event *ev,
                             const struct tj_site *site, const tj_value *v,
                             const size_t *lens);
TJ_HIDDEN void record_values(const struct record *r, tj_value *ret_v);
TJ_HIDDEN int record_message(const struct record *r, const tj_value *v,
                             char *buf, size_t size);

/* ---- outputs (out_*.c) ------------------------------------------------- */

/*
 * An output consumes records.  open() and close() run under the config lock;
 * write() and flush() run on the writer thread, or under the sync lock with
 * TJ_SYNC=1; outputs marked .sync (log) are written by the calling thread.
 * write() gets the record, its decoded values and the rendered MESSAGE text
 * ("<event> <format rendered>"); it returns 0, or -errno when the record was
 * lost (counted as dropped).
 * report_dropped() tells the destination that N events were lost.
 * take_lost() (NULL for most) gives the records write() took and the output
 * lost afterwards, writing them out (a buffered write that failed), and in
 * *RET_REPORTED the losses it had reported in what it lost, since its last
 * call; the writer counts the records as dropped and reports both again.
 */
struct tj_output {
        const char *name;
        bool sync;                      /* always written in the calling thread */
        int (*open)(void);
        int (*write)(const struct record *r, const tj_value *v, const char *msg);
        int (*report_dropped)(uint64_t n, int64_t realtime_ns, int64_t mono_ns);
        void (*flush)(void);
        uint64_t (*take_lost)(uint64_t *ret_reported);
        void (*close)(void);
};

extern TJ_HIDDEN const struct tj_output out_journald;
extern TJ_HIDDEN const struct tj_output out_syslog;
extern TJ_HIDDEN const struct tj_output out_log;
extern TJ_HIDDEN const struct tj_output out_nop;
extern TJ_HIDDEN const struct tj_output out_ftrace;
extern TJ_HIDDEN const struct tj_output out_simple;

TJ_HIDDEN void out_log_reopen(void);
/* Say on stderr the event the ftrace output dropped as too long for the
 * marker, noted since the last call (once per open); the writer thread's. */
TJ_HIDDEN void out_ftrace_say_noted(void);
TJ_HIDDEN int output_fd_above_stdio(int fd);
TJ_HIDDEN void output_fd_install(atomic_int *slot, int fd);
TJ_HIDDEN void output_fd_park(atomic_int *slot);
struct iovec;
#define OUTPUT_IOV_MAX        4       /* the iovecs of one output_fd_writev() */
TJ_HIDDEN int output_fd_writev(atomic_int *slot, atomic_bool *open, atomic_uint *writing,
                               const struct iovec *iov, int n, bool resume);
TJ_HIDDEN void output_fd_close(atomic_int *slot, atomic_bool *open, atomic_uint *writing);
TJ_HIDDEN void output_fd_after_fork_child(atomic_uint *writing);

/* The regular files an output has opened, by device and inode, the last
 * OUTPUT_FILES_MAX of them: truncated the first time, appended to after
 * (output_file_start()).  Guarded by the lock the output opens under. */
#define OUTPUT_FILES_MAX      16
struct output_files {
        struct {
                dev_t dev;
                ino_t ino;
        } seen[OUTPUT_FILES_MAX];
        unsigned n;                     /* entries of seen[] in use */
        unsigned next;                  /* the one replaced next, once all are */
};

TJ_HIDDEN int output_file_start(struct output_files *files, int fd, bool *ret_again);
TJ_HIDDEN void output_files_forget(struct output_files *files);

/* ---- configuration (config.c) ------------------------------------------ */

/* One of each output at most: a list names each once (duplicates are merged). */
#define CONFIG_MAX_OUTPUTS    6

/*
 * Written by tj_init() under its lock.  The atomic fields are read by traced
 * threads (tj_emit() and the log output it writes), and by any thread that
 * flushes or warns, which may run while another thread calls tj_shutdown()
 * and tj_init(): relaxed loads, plain moves on x86.  The others are read
 * under the lock only (the outputs' open(), which copies what its writes
 * need: the syslog output's identifier and format).
 */
struct config {
        char identifier[128];
        atomic_bool quiet;              /* TJ_QUIET=1 */
        atomic_bool sync;               /* TJ_SYNC=1 */
        atomic_bool block;              /* TJ_ON_FULL=block */
        atomic_bool log_timestamp;      /* TJ_LOG_TIMESTAMP=1 */
        bool control;                   /* TJ_CONTROL=1 */
        bool syslog_rfc5424;            /* TJ_SYSLOG_FORMAT=rfc5424 */
        atomic_size_t ring_size;        /* TJ_RING_SIZE, power of two */
        atomic_uint flush_timeout_ms;   /* TJ_FLUSH_TIMEOUT_MS */
        char log_file[4096];            /* "" = stderr */
        char syslog_socket[108];        /* TJ_SYSLOG_SOCKET or /dev/log */
};

extern TJ_HIDDEN struct config config;
extern TJ_HIDDEN atomic_bool config_initialized;

/* The bound of a flush, in milliseconds (TJ_FLUSH_TIMEOUT_MS). */
static inline unsigned config_flush_ms(void)
{
        return atomic_load_explicit(&config.flush_timeout_ms, memory_order_relaxed);
}

TJ_HIDDEN void config_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
TJ_HIDDEN char *config_hostname(void);
/* tj_set_outputs() without waiting for the writer thread: -EBUSY while it
 * holds the outputs (the control endpoint waits in its own loop). */
TJ_HIDDEN int config_try_outputs(const char *outputs);
#define CONFIG_OUTPUTS_SIZE     128     /* an outputs list and its NUL */
/* Not initialised: the outputs list kept for tj_init() in BUF (of
 * CONFIG_OUTPUTS_SIZE), true.  False while initialised. */
TJ_HIDDEN bool config_kept_outputs(char *buf);

/* ---- registry (registry.c) --------------------------------------------- */

TJ_HIDDEN bool registry_glob(const char *pattern, const char *name);
TJ_HIDDEN void registry_report_problems(void);
TJ_HIDDEN int registry_apply_list(const char *patterns, const char *warn_as);
TJ_HIDDEN int registry_apply_file(const char *path, unsigned *ret_line, const char *warn_as);

/* ---- emit path and stats (emit.c) -------------------------------------- */

struct emit_counters {
        atomic_uint_fast64_t seq;       /* last TRACE_SEQ handed out = emitted */
        atomic_uint_fast64_t written;
        atomic_uint_fast64_t dropped;
};
extern TJ_HIDDEN struct emit_counters emit_counters;

TJ_HIDDEN pid_t emit_gettid(void);
TJ_HIDDEN void emit_after_fork_child(void);
/* exit() flushed: what is not written by now counts as dropped (true), or a
 * tj_init() started again (false). */
TJ_HIDDEN void emit_set_closed(bool closed);
TJ_HIDDEN bool emit_is_closed(void);
TJ_HIDDEN struct ring *emit_thread_ring(void);

/* ---- rings (ring.c) ---------------------------------------------------- */

struct ring;

TJ_HIDDEN struct ring *ring_new(size_t size);
TJ_HIDDEN void ring_free(struct ring *ring);
TJ_HIDDEN struct record *ring_reserve(struct ring *ring, size_t size);
TJ_HIDDEN void ring_commit(struct ring *ring, struct record *r);
TJ_HIDDEN uint64_t ring_head(struct ring *ring);
TJ_HIDDEN const struct record *ring_peek(struct ring *ring, uint64_t end);
TJ_HIDDEN void ring_consume(struct ring *ring, const struct record *r);
TJ_HIDDEN bool ring_is_empty(struct ring *ring);
TJ_HIDDEN bool ring_over_half(struct ring *ring);
TJ_HIDDEN void ring_count_drop(struct ring *ring);
TJ_HIDDEN uint64_t ring_take_drops(struct ring *ring);
TJ_HIDDEN void ring_mark_dead(struct ring *ring);
TJ_HIDDEN bool ring_is_dead(struct ring *ring);
TJ_HIDDEN void ring_clear(struct ring *ring);
TJ_HIDDEN void ring_shrink(struct ring *ring);
TJ_HIDDEN size_t ring_forget_group(struct ring *ring, const struct tj_group *group);
TJ_HIDDEN struct ring **ring_next(struct ring *ring);
TJ_HIDDEN size_t ring_used(struct ring *ring);
TJ_HIDDEN size_t ring_capacity(struct ring *ring);
TJ_HIDDEN size_t ring_record_max(struct ring *ring);

/* ---- writer thread and output dispatch (writer.c) ---------------------- */

TJ_HIDDEN int writer_set_outputs(const char *list, bool from_env, bool wait);
TJ_HIDDEN int writer_check_outputs(const char *list, char *ret_norm);
TJ_HIDDEN bool writer_has_async_outputs(void);
TJ_HIDDEN void writer_attach_ring(struct ring *ring);
TJ_HIDDEN void writer_ring_exited(struct ring *ring);
TJ_HIDDEN int writer_start(void);
TJ_HIDDEN void writer_wake(void);
TJ_HIDDEN unsigned writer_space_seen(void);
TJ_HIDDEN void writer_wait_space(unsigned seen);
TJ_HIDDEN bool writer_write_sync(const struct record *r);
TJ_HIDDEN void writer_write_caller(const struct record *r);
TJ_HIDDEN bool writer_write_caller_only(const struct record *r);
/* Asynchronous records carry only CLOCK_MONOTONIC from the caller (one clock
 * read instead of two); CLOCK_REALTIME is mono_ns plus the offset between the
 * clocks that the writer samples before each pass. */
#define RECORD_TIME_DERIVED INT64_MIN
TJ_HIDDEN void writer_fix_realtime(struct record *r);
/* Wait (at most TIMEOUT_MS) until the writer has written what was traced
 * before the call: 0, or -ETIMEDOUT. */
TJ_HIDDEN int writer_flush(unsigned timeout_ms);
/* The same without waiting: ask for a flush (false when no writer runs:
 * nothing to wait for), then ask whether it is done: 1, or 0 (the writer is
 * woken again), or -ETIMEDOUT when the writer left (tj_shutdown() in
 * another thread) before it got to it, and never will. */
TJ_HIDDEN bool writer_flush_begin(unsigned *ret_req);
TJ_HIDDEN int writer_flush_check(unsigned req);
TJ_HIDDEN void writer_shutdown(void);
TJ_HIDDEN void writer_add_dropped(uint64_t n);
/* GROUP is about to be unloaded: write its events' records (bounded), and
 * turn those still in a ring into losses. */
TJ_HIDDEN void writer_forget_group(const struct tj_group *group);
TJ_HIDDEN bool writer_running(void);
TJ_HIDDEN void writer_restart_after_fork(void);
extern TJ_HIDDEN atomic_bool writer_restart;

struct writer_output_stat {
        const char *name;
        uint64_t written;               /* records the output took */
        uint64_t dropped;               /* records it failed or never got (full ring) */
};
struct writer_ring_stat {
        size_t rings;                   /* one per thread that traced */
        size_t size;                    /* bytes, all rings */
        size_t used;                    /* bytes waiting for the writer, all rings */
        size_t fullest;                 /* bytes waiting in the fullest ring */
};
TJ_HIDDEN size_t writer_output_stats(struct writer_output_stat *ret, size_t max);
TJ_HIDDEN void writer_ring_stats(struct writer_ring_stat *ret);

/* ---- control endpoint (control.c) ------------------------------------- */

/* The directory of the control sockets in BUF (TJ_CONTROL_DIR, else
 * $XDG_RUNTIME_DIR/tracejournal, else /run/tracejournal) and the mode it is
 * made with; 0, or -ENAMETOOLONG. */
TJ_HIDDEN int control_dir_name(char *buf, size_t size, mode_t *ret_mode);

#endif /* TJ_INTERNAL_H */
