/*
 * writer.c - the writer thread and the dispatch of records to the outputs.
 *
 * The writer owns the list of per-thread rings.  Each pass drains every ring
 * up to where its head was when the pass began, the rings' records merged in
 * TRACE_SEQ order (the order the threads traced them), renders each record once
 * and hands it to every asynchronous output, then reports losses (a
 * tj_dropped entry per output) and flushes the outputs.  A pass that started
 * after tj_flush() asked completes that flush.  When a pass finds nothing the
 * writer sleeps on a futex, 1 ms at first and longer while idle (at most
 * WRITER_IDLE_MAX_MS); a producer wakes it early only when its ring is more
 * than half full, so the traced threads make no system call in the common
 * case.  TJ_SYNC=1 callers go through writer_write_sync(); the outputs
 * written by the calling thread itself (log, ftrace) through
 * writer_write_caller(), without the writer's lock.
 */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "internal.h"

#define WRITER_IDLE_MAX_MS    64
#define WRITER_YIELD_MAX_MS   10
#define WRITER_MSG_STACK      1024

static const struct tj_output *const writer_known[] = {
        &out_journald, &out_syslog, &out_log, &out_nop, &out_ftrace, &out_simple,
};

#define WRITER_NKNOWN (sizeof(writer_known) / sizeof(writer_known[0]))

/* O's index in writer_known[] (every output is one of them). */
static size_t writer_known_index(const struct tj_output *o)
{
        size_t k = 0;

        while (k + 1 < WRITER_NKNOWN && writer_known[k] != o)
                k++;
        return k;
}

_Static_assert(WRITER_NKNOWN <= CONFIG_MAX_OUTPUTS, "a list may name every output");
_Static_assert(WRITER_NKNOWN < 16 && (CONFIG_MAX_OUTPUTS + 1) * 4 <= 32,
               "w.list packs the outputs in 4 bits each");

static struct {
        pthread_mutex_t lock;           /* outputs, sync writes, the writer's batches */
        const struct tj_output *outs[CONFIG_MAX_OUTPUTS];
        size_t known[CONFIG_MAX_OUTPUTS];       /* outs[i] is writer_known[known[i]] */
        size_t nouts;
        /* Cumulative, per known output, for the control endpoint's stats. */
        atomic_uint_fast64_t out_written[WRITER_NKNOWN];
        atomic_uint_fast64_t out_dropped[WRITER_NKNOWN];
        atomic_uint_fast64_t unreported[CONFIG_MAX_OUTPUTS]; /* drops to report */
        /* Per known output, writes that failed in the calling thread (log,
         * ftrace), moved into unreported by writer_report_drops(). */
        atomic_uint_fast64_t caller_lost[WRITER_NKNOWN];
        /* The outputs for the stats, read without w.lock (which the writer
         * holds through a send that may block): their number in the low 4
         * bits, then each one's writer_known index in 4 bits, in order. */
        atomic_uint_fast32_t list;
        atomic_bool has_async;          /* an output the writer thread serves */
        atomic_bool has_log;
        atomic_bool has_ftrace;         /* both written by the calling thread */

        pthread_mutex_t list_lock;      /* the ring list */
        struct ring *rings;

        pthread_t thread;
        atomic_bool running;
        atomic_bool stop;
        /* A writer thread exists, maybe one writer_shutdown() left stuck in a
         * send (running false): writer_start() takes it back instead of
         * starting a second one.  Set by writer_start(), cleared by the
         * thread as it ends, both under start_lock. */
        pthread_mutex_t start_lock;
        bool alive;
        bool joinable;                  /* not detached by writer_shutdown() */
        atomic_uint wake;               /* futex word the writer sleeps on */
        atomic_bool sleeping;
        atomic_uint flush_req;          /* tj_flush() requests ... */
        atomic_uint flush_done;         /* ... and the last one a pass completed */
        atomic_uint_fast64_t pending_drops; /* losses not yet given to the outputs */
        atomic_uint space;              /* futex word: bumped when rings got room */
        atomic_uint space_waiters;      /* producers waiting on it (TJ_ON_FULL=block) */
        atomic_uint taken;              /* records taken: is a stopping writer stuck? */
        /* Another thread wants w.lock: the writer keeps off it between
         * passes (writer_yield_lock()).  Threads waiting for it, and until
         * when (CLOCK_MONOTONIC ns) the control endpoint tries again. */
        atomic_uint lock_wanted;
        atomic_int_fast64_t lock_tried_until;

        char *msg;                      /* the writer's MESSAGE buffer */
        size_t msg_size;
        struct writer_src {             /* writer_drain_merged(): per ring, */
                struct ring *ring;
                uint64_t end;           /* where the pass stops in it */
                const struct record *r; /* its next record, NULL at END */
        } *srcs;
        size_t nsrcs;
} w = {
        .lock = PTHREAD_MUTEX_INITIALIZER,
        .list_lock = PTHREAD_MUTEX_INITIALIZER,
        .start_lock = PTHREAD_MUTEX_INITIALIZER,
};

TJ_HIDDEN atomic_bool writer_restart;

/* What the calling thread adds to w.lock_wanted and w.space_waiters: all a
 * fork child keeps of them (writer_fork_child()), the forking thread being
 * the one it has (its count is not 0 when a signal handler forked). */
static __thread struct {
        unsigned lock_wanted;
        unsigned space_waiters;
} writer_own __attribute__((tls_model("initial-exec")));

static long writer_futex(atomic_uint *word, int op, unsigned val, const struct timespec *ts)
{
        return syscall(SYS_futex, word, op, val, ts, NULL, 0);
}

void writer_wake(void)
{
        if (!atomic_load_explicit(&w.sleeping, memory_order_acquire))
                return;
        atomic_fetch_add(&w.wake, 1);
        writer_futex(&w.wake, FUTEX_WAKE_PRIVATE, 1, NULL);
}

/* Block mode: the value to pass to writer_wait_space(), read before retrying. */
unsigned writer_space_seen(void)
{
        return atomic_load(&w.space);
}

/*
 * Block mode: sleep until the writer made room somewhere (or 10 ms passed),
 * waking the writer first so that it does.
 */
void writer_wait_space(unsigned seen)
{
        struct timespec ts = { 0, 10 * 1000000 };

        writer_own.space_waiters++;
        atomic_fetch_add(&w.space_waiters, 1);
        atomic_fetch_add(&w.wake, 1);
        writer_futex(&w.wake, FUTEX_WAKE_PRIVATE, 1, NULL);
        writer_futex(&w.space, FUTEX_WAIT_PRIVATE, seen, &ts);
        atomic_fetch_sub(&w.space_waiters, 1);
        writer_own.space_waiters--;
}

/* The calling thread waits for w.lock (WANTED) or no longer does: the
 * writer keeps off it meanwhile (writer_yield_lock()). */
static void writer_want_lock(bool wanted)
{
        if (wanted) {
                writer_own.lock_wanted++;
                atomic_fetch_add(&w.lock_wanted, 1);
        } else {
                atomic_fetch_sub(&w.lock_wanted, 1);
                writer_own.lock_wanted--;
        }
}

bool writer_running(void)
{
        return atomic_load_explicit(&w.running, memory_order_relaxed);
}

bool writer_has_async_outputs(void)
{
        return atomic_load_explicit(&w.has_async, memory_order_relaxed);
}

void writer_add_dropped(uint64_t n)
{
        atomic_fetch_add(&w.pending_drops, n);
}

void writer_attach_ring(struct ring *ring)
{
        pthread_mutex_lock(&w.list_lock);
        *ring_next(ring) = w.rings;
        w.rings = ring;
        pthread_mutex_unlock(&w.list_lock);
}

/*
 * Without a writer thread the dead RING (NULL: every dead one) is drained
 * by none until tj_init() starts one: when empty it is freed now, its
 * losses counted; otherwise its events keep waiting, in a buffer just big
 * enough (ring_shrink()).  Each thread that traced and exited after
 * tj_shutdown() left its whole ring (TJ_RING_SIZE, 128 KiB) for good.  The
 * caller holds start_lock with w.alive false (no writer starts meanwhile:
 * only a writer uses a ring out of list_lock).
 */
static void writer_release_dead_locked(struct ring *only)
{
        pthread_mutex_lock(&w.list_lock);
        for (struct ring **pp = &w.rings; *pp; ) {
                struct ring *ring = *pp;

                if ((only && ring != only) || !ring_is_dead(ring)) {
                        pp = ring_next(ring);
                        continue;
                }
                if (ring_is_empty(ring)) {
                        writer_add_dropped(ring_take_drops(ring));
                        *pp = *ring_next(ring);
                        ring_free(ring);
                } else {
                        ring_shrink(ring);
                        pp = ring_next(ring);
                }
                if (only)
                        break;
        }
        pthread_mutex_unlock(&w.list_lock);
}

/* RING's thread exited (it is dead): without a writer thread, release it
 * (writer_release_dead_locked()); a writer frees it once drained. */
void writer_ring_exited(struct ring *ring)
{
        pthread_mutex_lock(&w.start_lock);
        if (!w.alive)
                writer_release_dead_locked(ring);
        pthread_mutex_unlock(&w.start_lock);
}

/* ---- outputs ------------------------------------------------------------ */

static const struct tj_output *writer_lookup(const char *name, size_t len)
{
        for (size_t i = 0; i < sizeof(writer_known) / sizeof(writer_known[0]); i++)
                if (strlen(writer_known[i]->name) == len &&
                    memcmp(writer_known[i]->name, name, len) == 0)
                        return writer_known[i];
        return NULL;
}

/*
 * Parse LIST ("journald,syslog") into RET_OUTS.  Unknown names: -EINVAL, or
 * with FROM_ENV a warning and the name is skipped.  Returns the count, or
 * for a list that names no known output -EINVAL (-ENOENT with FROM_ENV).
 */
static int writer_parse(const char *list, bool from_env,
                        const struct tj_output **ret_outs)
{
        const struct tj_output *outs[CONFIG_MAX_OUTPUTS];
        int n = 0;

        for (const char *p = list; *p; ) {
                size_t len = strcspn(p, ","), skip = 0;
                const struct tj_output *o;
                bool dup = false;

                /* blanks around a name, as TJ_EVENTS takes them ("journald,
                 * syslog" read as an unknown output " syslog") */
                while (skip < len && (p[skip] == ' ' || p[skip] == '\t'))
                        skip++;
                while (len > skip && (p[len - 1] == ' ' || p[len - 1] == '\t'))
                        len--;
                p += skip;
                len -= skip;
                o = len ? writer_lookup(p, len) : NULL;
                if (!o && len) {
                        if (!from_env)
                                return -EINVAL;
                        config_warn("TJ_OUTPUT: unknown output '%.*s'", (int)len, p);
                }
                for (int i = 0; o && i < n; i++)
                        dup |= outs[i] == o;
                if (o && !dup)
                        outs[n++] = o;
                p += len + strcspn(p + len, ",");      /* past the blanks after it */
                if (*p == ',')
                        p++;
        }
        if (n == 0)
                return from_env ? -ENOENT : -EINVAL;
        memcpy(ret_outs, outs, sizeof(outs[0]) * (size_t)n);
        return n;
}

/*
 * Is LIST a valid tj_set_outputs() list?  0 or -EINVAL; nothing is opened.
 * RET_NORM (CONFIG_OUTPUTS_SIZE bytes, or NULL) gets the list as
 * writer_set_outputs() applies it, which is also how the open ones are
 * shown: without blanks or empty items, each name once, in the order first
 * given (" log,,nop,log" is "log,nop").  Left untouched on failure.
 */
int writer_check_outputs(const char *list, char *ret_norm)
{
        const struct tj_output *outs[CONFIG_MAX_OUTPUTS];
        char norm[CONFIG_OUTPUTS_SIZE];
        size_t len = 0;
        int n = writer_parse(list, false, outs);

        if (n < 0)
                return -EINVAL;
        /* every known name once, with commas, fits: "journald,syslog,..." */
        for (int i = 0; i < n; i++)
                len += (size_t)snprintf(norm + len, sizeof(norm) - len, "%s%s",
                                        i ? "," : "", outs[i]->name);
        if (ret_norm)
                memcpy(ret_norm, norm, len + 1);
        return 0;
}

/*
 * N records that output O (of writer_known index K) took, counted written,
 * were lost after all: counted lost.  An event another output lost too was
 * counted dropped already: the events moved from written to dropped are at
 * most those written, so that two outputs failing together (journald gone,
 * the disk full) cannot take written below zero.
 */
static void writer_move_lost(size_t k, uint64_t n)
{
        uint64_t m;
        uint_fast64_t cur;

        atomic_fetch_sub(&w.out_written[k], n);
        atomic_fetch_add(&w.out_dropped[k], n);
        cur = atomic_load(&emit_counters.written);
        do
                m = n < cur ? n : cur;
        while (!atomic_compare_exchange_weak(&emit_counters.written, &cur, cur - m));
        atomic_fetch_add(&emit_counters.dropped, m);
}

/* Close O; what it took and lost writing it out (the simple output's last
 * write, bounded) is counted lost, with nowhere left to report it. */
static void writer_close_output(const struct tj_output *o)
{
        uint64_t reported, n;

        o->close();
        if (o->take_lost && (n = o->take_lost(&reported)) > 0)
                writer_move_lost(writer_known_index(o), n);
}

static void writer_close_outputs(void)
{
        for (size_t i = 0; i < w.nouts; i++)
                writer_close_output(w.outs[i]);
        w.nouts = 0;
        atomic_store(&w.list, 0);
        atomic_store(&w.has_async, false);
        atomic_store(&w.has_log, false);
        atomic_store(&w.has_ftrace, false);
}

/* CLOCK_REALTIME MS milliseconds from now, for the timed waits. */
static struct timespec writer_deadline(unsigned ms)
{
        struct timespec ts;

        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += ms / 1000;
        ts.tv_nsec += (long)(ms % 1000) * 1000000;
        if (ts.tv_nsec >= 1000000000) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000;
        }
        return ts;
}

/* Is O among the N outputs of OUTS? */
static bool writer_has(const struct tj_output *const *outs, size_t n,
                       const struct tj_output *o)
{
        for (size_t i = 0; i < n; i++)
                if (outs[i] == o)
                        return true;
        return false;
}

/* Make OUTS (N of them) the outputs; w.lock held. */
static void writer_apply_outputs(const struct tj_output **outs, int n)
{
        const struct tj_output *old[CONFIG_MAX_OUTPUTS];
        uint64_t old_unreported[CONFIG_MAX_OUTPUTS];
        bool async = false, log = false, ftrace = false;
        uint_fast32_t packed = (uint_fast32_t)n;
        size_t nold = w.nouts;

        for (size_t i = 0; i < nold; i++) {
                old[i] = w.outs[i];
                old_unreported[i] = atomic_load(&w.unreported[i]);
                if (!writer_has(outs, (size_t)n, old[i]))
                        writer_close_output(old[i]);
        }
        for (int i = 0; i < n; i++) {
                uint64_t unreported = 0;

                for (size_t j = 0; j < nold; j++)
                        if (old[j] == outs[i])
                                unreported = old_unreported[j];
                w.outs[i] = outs[i];
                w.known[i] = writer_known_index(outs[i]);
                if (!writer_has(old, nold, outs[i])) {
                        /* what it lost before it was closed is not reported */
                        atomic_store(&w.caller_lost[w.known[i]], 0);
                        outs[i]->open();
                }
                packed |= (uint_fast32_t)w.known[i] << (4 * (i + 1));
                atomic_store(&w.unreported[i], unreported);
                async |= !outs[i]->sync;
                log |= outs[i] == &out_log;
                ftrace |= outs[i] == &out_ftrace;
        }
        w.nouts = (size_t)n;
        atomic_store(&w.list, packed);
        atomic_store(&w.has_async, async);
        atomic_store(&w.has_log, log);
        atomic_store(&w.has_ftrace, ftrace);
}

/*
 * Replace the outputs by LIST (see writer_parse()).  An output in both the
 * old and the new set stays open, with its losses still to report: opening
 * it again would truncate the simple output's file and the log's file=.
 * Returns 0, -EINVAL, or -ETIMEDOUT when the writer thread keeps the outputs
 * busy longer than the flush timeout (a send that blocks: a stopped
 * journald), the outputs unchanged.  WAIT false: no flush first and no wait
 * (-EBUSY), for a caller that waits itself (the control endpoint, after
 * writer_flush_begin()).
 */
int writer_set_outputs(const char *list, bool from_env, bool wait)
{
        const struct tj_output *outs[CONFIG_MAX_OUTPUTS];
        struct timespec until;
        int n = writer_parse(list, from_env, outs);

        if (n < 0)
                return n;
        if (!wait) {
                if (pthread_mutex_trylock(&w.lock) != 0) {
                        /* it tries again within a millisecond or so */
                        atomic_store(&w.lock_tried_until, tj_clock_ns(CLOCK_MONOTONIC) +
                                     WRITER_YIELD_MAX_MS * 1000000);
                        return -EBUSY;
                }
                atomic_store(&w.lock_tried_until, 0);
        } else {
                int r;

                if (writer_running())
                        writer_flush(config_flush_ms());
                until = writer_deadline(config_flush_ms());
                writer_want_lock(true);
                r = pthread_mutex_timedlock(&w.lock, &until);
                writer_want_lock(false);
                if (r != 0)
                        return -ETIMEDOUT;
        }
        writer_apply_outputs(outs, n);
        pthread_mutex_unlock(&w.lock);
        return 0;
}

/*
 * The current outputs and their counters since the process started, for the
 * control endpoint.  Fills at most MAX entries; returns the number of outputs.
 * Takes no lock: the stats answer while a send blocks the writer.
 */
size_t writer_output_stats(struct writer_output_stat *ret, size_t max)
{
        uint_fast32_t packed = atomic_load(&w.list);
        size_t n = packed & 15;

        for (size_t i = 0; i < n && i < max; i++) {
                size_t k = (packed >> (4 * (i + 1))) & 15;

                ret[i].name = writer_known[k]->name;
                ret[i].written = atomic_load(&w.out_written[k]);
                ret[i].dropped = atomic_load(&w.out_dropped[k]);
        }
        return n;
}

/* How full the per-thread rings are right now. */
void writer_ring_stats(struct writer_ring_stat *ret)
{
        memset(ret, 0, sizeof(*ret));
        pthread_mutex_lock(&w.list_lock);
        for (struct ring *ring = w.rings; ring; ring = *ring_next(ring)) {
                size_t used = ring_used(ring);

                ret->rings++;
                ret->size += ring_capacity(ring);
                ret->used += used;
                if (used > ret->fullest)
                        ret->fullest = used;
        }
        pthread_mutex_unlock(&w.list_lock);
}

/* ---- writing records ---------------------------------------------------- */

/*
 * Render R's MESSAGE into BUF (SIZE bytes), or into a malloc'ed buffer put in
 * *RET_HEAP when longer.  Returns the text; on failure an empty string.
 */
static const char *writer_render(const struct record *r, const tj_value *v,
                                 char *buf, size_t size, char **ret_heap)
{
        int n = record_message(r, v, buf, size);
        char *heap;

        *ret_heap = NULL;
        if (n < 0)
                return "";
        if ((size_t)n < size)
                return buf;
        heap = malloc((size_t)n + 1);
        if (!heap)
                return buf;             /* truncated rather than lost */
        record_message(r, v, heap, (size_t)n + 1);
        *ret_heap = heap;
        return heap;
}

/* Tell each output the losses it has not reported yet.  Under w.lock. */
static void writer_report_drops(void)
{
        uint64_t d = atomic_exchange(&w.pending_drops, 0);
        struct timespec rt, mono;

        if (d) {
                atomic_fetch_add(&emit_counters.dropped, d);
                for (size_t i = 0; i < w.nouts; i++) {
                        atomic_fetch_add(&w.unreported[i], d);
                        atomic_fetch_add_explicit(&w.out_dropped[w.known[i]], d,
                                                  memory_order_relaxed);
                }
        }
        for (size_t i = 0; i < w.nouts; i++) {
                uint64_t c = atomic_exchange(&w.caller_lost[w.known[i]], 0);

                if (c)
                        atomic_fetch_add(&w.unreported[i], c);
        }
        clock_gettime(CLOCK_REALTIME, &rt);
        clock_gettime(CLOCK_MONOTONIC, &mono);
        for (size_t i = 0; i < w.nouts; i++) {
                uint64_t n = atomic_load(&w.unreported[i]);

                if (n == 0 || !w.outs[i]->report_dropped)
                        continue;
                if (w.outs[i]->report_dropped(n,
                                (int64_t)rt.tv_sec * 1000000000 + rt.tv_nsec,
                                (int64_t)mono.tv_sec * 1000000000 + mono.tv_nsec) == 0)
                        atomic_fetch_sub(&w.unreported[i], n);
        }
}

/* The flag telling that the caller's write of R to O failed (O is .sync). */
static uint32_t writer_caller_failed(const struct tj_output *o)
{
        return o == &out_ftrace ? RECORD_FTRACE_FAILED : RECORD_LOG_FAILED;
}

/* The flag telling that the caller wrote R to O (O is .sync).  One flag for
 * both skipped the log output the outputs gained between the caller's write
 * of ftrace and the writer's pass: counted written, never written. */
static uint32_t writer_caller_wrote(const struct tj_output *o)
{
        return o == &out_ftrace ? RECORD_FTRACED : RECORD_LOGGED;
}

/* Count one event written to, or lost by, output O (for the stats). */
static void writer_count(const struct tj_output *o, bool failed)
{
        size_t k = writer_known_index(o);

        atomic_fetch_add_explicit(failed ? &w.out_dropped[k] : &w.out_written[k], 1,
                                  memory_order_relaxed);
}

/*
 * Give R to the outputs: the asynchronous ones, plus the log and ftrace
 * outputs unless the caller wrote them already (ALL: all of them).  Under
 * w.lock.
 */
static void writer_dispatch(const struct record *r, bool all)
{
        tj_value v[TJ_MAX_ARGS];
        char *heap;
        const char *msg;
        bool lost = r->flags & (RECORD_LOG_FAILED | RECORD_FTRACE_FAILED);

        if (!w.msg) {
                w.msg = malloc(RECORD_MAX + 1024);
                w.msg_size = w.msg ? RECORD_MAX + 1024 : 0;
        }
        record_values(r, v);
        msg = w.msg ? writer_render(r, v, w.msg, w.msg_size, &heap) :
                      (heap = NULL, r->ev->name);
        for (size_t i = 0; i < w.nouts; i++) {
                bool failed;

                if (w.outs[i]->sync && !all && (r->flags & writer_caller_wrote(w.outs[i])))
                        failed = r->flags & writer_caller_failed(w.outs[i]);
                else if (w.outs[i]->write(r, v, msg) < 0) {
                        atomic_fetch_add(&w.unreported[i], 1);
                        failed = lost = true;
                } else
                        failed = false;
                atomic_fetch_add_explicit(failed ? &w.out_dropped[w.known[i]] :
                                          &w.out_written[w.known[i]], 1,
                                          memory_order_relaxed);
        }
        free(heap);
        if (lost)
                atomic_fetch_add(&emit_counters.dropped, 1);
        else
                atomic_fetch_add(&emit_counters.written, 1);
}

/*
 * The offset CLOCK_REALTIME - CLOCK_MONOTONIC, sampled by the writer before
 * each pass (the realtime reads bracket the monotonic one; their midpoint is
 * used).  A record's CLOCK_REALTIME is its mono_ns plus the offset sampled
 * after it was traced, which is exact unless the wall clock was stepped or
 * slewed in between (then it is off by that step, at most one pass).
 */
static _Atomic int64_t writer_rt_offset;
static atomic_bool writer_rt_sampled;

static void writer_sample_offset(void)
{
        int64_t a = tj_clock_ns(CLOCK_REALTIME);
        int64_t m = tj_clock_ns(CLOCK_MONOTONIC);
        int64_t b = tj_clock_ns(CLOCK_REALTIME);

        atomic_store_explicit(&writer_rt_offset, a + (b - a) / 2 - m, memory_order_relaxed);
        atomic_store_explicit(&writer_rt_sampled, true, memory_order_release);
}

void writer_fix_realtime(struct record *r)
{
        if (r->realtime_ns != RECORD_TIME_DERIVED)
                return;
        if (!atomic_load_explicit(&writer_rt_sampled, memory_order_acquire))
                writer_sample_offset();
        r->realtime_ns = r->mono_ns + atomic_load_explicit(&writer_rt_offset, memory_order_relaxed);
}

/*
 * TJ_SYNC=1: the caller writes R to every output.  False when there is none:
 * tj_shutdown() closed them after the caller saw the library initialised
 * (the caller puts R in its ring then, as it would a moment later).
 */
bool writer_write_sync(const struct record *r)
{
        bool any;

        pthread_mutex_lock(&w.lock);
        any = w.nouts > 0;
        if (any)
                writer_dispatch(r, true);
        if (atomic_load_explicit(&w.pending_drops, memory_order_relaxed))
                writer_report_drops();
        pthread_mutex_unlock(&w.lock);
        return any;
}

/*
 * Output O (log, ftrace) lost a record the calling thread wrote: the writer
 * reports it to O with its own losses (writer_report_drops()).  They were
 * counted in the stats only, and a log file that had been full held no
 * tj_dropped line once it took lines again.
 */
static void writer_caller_lost(const struct tj_output *o)
{
        atomic_fetch_add_explicit(&w.caller_lost[writer_known_index(o)], 1, memory_order_relaxed);
}

/* Write R to the log output (LOG) and the ftrace output (FTRACE).  Not
 * cancelled in a write(2): a thread cancelled there left its record
 * reserved, never committed, the event neither written nor counted
 * dropped; the cancellation comes at the application's next point. */
static void writer_caller_outputs(struct record *r, bool log, bool ftrace)
{
        char buf[WRITER_MSG_STACK], *heap = NULL;
        tj_value v[TJ_MAX_ARGS];
        int cancel;

        if (!log && !ftrace)
                return;
        pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
        record_values(r, v);
        if (ftrace)
                r->flags |= RECORD_FTRACED;
        if (log)
                r->flags |= RECORD_LOGGED;
        if (ftrace && out_ftrace.write(r, v, NULL) < 0) {
                r->flags |= RECORD_FTRACE_FAILED;
                writer_caller_lost(&out_ftrace);
        }
        if (log) {
                const char *msg;

                writer_fix_realtime(r);
                msg = writer_render(r, v, buf, sizeof(buf), &heap);
                if (out_log.write(r, v, msg) < 0) {
                        r->flags |= RECORD_LOG_FAILED;
                        writer_caller_lost(&out_log);
                }
                free(heap);
        }
        pthread_setcancelstate(cancel, NULL);
}

/* The log and ftrace outputs are written by the caller, before R enters the
 * ring (or instead of it); each does one write(2) per event.  The writer
 * counts them for the stats when it dispatches R. */
void writer_write_caller(const struct record *r)
{
        writer_caller_outputs((struct record *)r,
                              atomic_load_explicit(&w.has_log, memory_order_relaxed),
                              atomic_load_explicit(&w.has_ftrace, memory_order_relaxed));
}

/* No asynchronous output: the caller's outputs are all there is, and the
 * writer's lock is taken only to report losses, when it is free: the caller
 * may be a signal handler that interrupted its own thread holding it
 * (tj_set_outputs() opening an output), and the writer's next pass reports
 * them otherwise.  False when there is none either: the outputs were closed
 * (tj_shutdown()) or are being switched to asynchronous ones since the
 * caller looked, and R goes to its ring. */
bool writer_write_caller_only(const struct record *r_const)
{
        struct record *r = (struct record *)r_const;
        bool log = atomic_load_explicit(&w.has_log, memory_order_relaxed);
        bool ftrace = atomic_load_explicit(&w.has_ftrace, memory_order_relaxed);

        if (!log && !ftrace)
                return false;
        writer_caller_outputs(r, log, ftrace);
        if (log)
                writer_count(&out_log, r->flags & RECORD_LOG_FAILED);
        if (ftrace)
                writer_count(&out_ftrace, r->flags & RECORD_FTRACE_FAILED);
        if (r->flags & (RECORD_LOG_FAILED | RECORD_FTRACE_FAILED))
                atomic_fetch_add(&emit_counters.dropped, 1);
        else
                atomic_fetch_add(&emit_counters.written, 1);
        if (TJ_UNLIKELY(atomic_load_explicit(&w.pending_drops, memory_order_relaxed)) &&
            pthread_mutex_trylock(&w.lock) == 0) {
                writer_report_drops();
                pthread_mutex_unlock(&w.lock);
        }
        return true;
}

/* ---- the writer thread -------------------------------------------------- */

/* N records were taken from the rings: let producers blocked on a full one go on. */
static void writer_space(size_t n)
{
        if (n && atomic_load(&w.space_waiters)) {
                atomic_fetch_add(&w.space, 1);
                writer_futex(&w.space, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL);
        }
}

/* Write R, the next record of RING, the Nth of this drain, and take it out. */
static void writer_take(struct ring *ring, const struct record *r, size_t n)
{
        writer_fix_realtime((struct record *)r);
        writer_dispatch(r, false);
        ring_consume(ring, r);
        /* the writer alone counts: a plain add, no locked one per record */
        atomic_store_explicit(&w.taken, atomic_load_explicit(&w.taken, memory_order_relaxed) + 1,
                              memory_order_relaxed);
        if ((n & 127) == 0)
                writer_space(n);        /* blocked producers go on once there is room */
}

/*
 * Drain RING up to where its producer was when we started (so a busy thread
 * cannot keep the writer from the other rings, and a pass that started after
 * a tj_flush() request covers every event traced before it).  Under w.lock.
 * Returns the number of records written.
 */
static size_t writer_drain(struct ring *ring)
{
        uint64_t end = ring_head(ring);
        size_t n = 0;
        const struct record *r;

        while ((r = ring_peek(ring, end)))
                writer_take(ring, r, ++n);
        writer_space(n);
        writer_add_dropped(ring_take_drops(ring));
        return n;
}

/* writer_drain_merged()'s heap of the rings with records left, the lowest
 * next TRACE_SEQ on top: move the source at I down to its place. */
static void writer_heap_down(size_t i, size_t n)
{
        struct writer_src *h = w.srcs, t;

        for (;;) {
                size_t l = 2 * i + 1, m = i;

                if (l < n && h[l].r->seq < h[m].r->seq)
                        m = l;
                if (l + 1 < n && h[l + 1].r->seq < h[m].r->seq)
                        m = l + 1;
                if (m == i)
                        return;
                t = h[i];
                h[i] = h[m];
                h[m] = t;
                i = m;
        }
}

/*
 * Drain the rings from FIRST on, each up to where its producer was when the
 * pass began, in TRACE_SEQ order across them: the record of the lowest
 * sequence number among the rings' next ones goes first (a heap of the rings
 * with records left, so a program of many threads costs log2 of the busy
 * ones per record).  Draining one ring after another wrote a thread's events
 * of a whole pass before those another thread had traced earlier, so the
 * outputs that keep the writer's order (simple, syslog) had a free before the
 * allocation another thread made first.
 *
 * Only records numbered up to the last TRACE_SEQ handed out when the pass
 * began (UPTO, read before any ring's head) are taken; later ones wait for
 * the next pass.  A record that another thread had taken its number for but
 * not yet put in its ring when its ring's head was read goes out in the next
 * pass too, and without that bound a record traced after it, by a thread
 * that came later (started or joined after it), whose ring's head was read
 * after, went out before it (a simple file out of time order, about one run
 * in a hundred of t-lib-simple.sh's threads-in-order).  With it, such a
 * later record was numbered after UPTO was read, and waits too.  Only
 * records traced at the same time by two threads may still come out of
 * order.  UPTO is read before the list of rings too (writer_pass()): a
 * thread's first record is numbered before its ring joins the list, so a
 * ring the pass does not have may hold a record numbered up to UPTO, but
 * not one that another record up to UPTO was traced after.  Read after the
 * list, a thread's first record, its ring made after the list was read,
 * went out in the next pass, after a record traced once that thread was
 * joined (seen with the writer held up between the two reads).  Under
 * w.lock; returns the number of records written, or SIZE_MAX when there is
 * no memory for the merge (the caller drains ring by ring).
 */
static size_t writer_drain_merged(struct ring *first, uint64_t upto)
{
        size_t n = 0, k = 0, i;
        struct writer_src *top;
        struct ring *ring;

        for (ring = first; ring; ring = *ring_next(ring))
                k++;
        if (k > w.nsrcs) {
                void *v = realloc(w.srcs, k * sizeof(*w.srcs));

                if (!v)
                        return SIZE_MAX;
                w.srcs = v;
                w.nsrcs = k;
        }
        k = 0;
        for (ring = first; ring; ring = *ring_next(ring)) {
                uint64_t end = ring_head(ring);
                const struct record *r = ring_peek(ring, end);

                if (r && r->seq <= upto)
                        w.srcs[k++] = (struct writer_src) { .ring = ring, .end = end, .r = r };
        }
        for (i = k / 2; i-- > 0; )
                writer_heap_down(i, k);
        while (k > 0) {
                top = &w.srcs[0];
                writer_take(top->ring, top->r, ++n);
                top->r = ring_peek(top->ring, top->end);
                if (!top->r || top->r->seq > upto)
                        w.srcs[0] = w.srcs[--k];
                writer_heap_down(0, k);
        }
        writer_space(n);
        for (ring = first; ring; ring = *ring_next(ring))
                writer_add_dropped(ring_take_drops(ring));
        return n;
}

/*
 * Records an output took (counted written) and lost when it wrote them out
 * (take_lost(): the simple output's buffered writes that failed) are counted
 * lost now (writer_move_lost()), and reported to it with the losses it had
 * reported in what it lost, at the next pass.  Under w.lock.
 */
static void writer_take_late_losses(void)
{
        for (size_t i = 0; i < w.nouts; i++) {
                uint64_t reported = 0, n;

                if (!w.outs[i]->take_lost)
                        continue;
                n = w.outs[i]->take_lost(&reported);
                atomic_fetch_add(&w.unreported[i], n + reported);
                if (n)
                        writer_move_lost(w.known[i], n);
        }
}

/*
 * GROUP's module is being unloaded (tj_group_unregister()): what its events
 * traced is written first, as tj_flush() would; the records a ring still
 * holds then (the flush timed out, or no writer runs yet) become pads,
 * counted dropped.  The writer's lock orders this with its passes, which
 * take records only under it; the list lock keeps writer_reap() from
 * freeing a ring meanwhile (nothing takes w.lock under it).
 */
void writer_forget_group(const struct tj_group *group)
{
        uint64_t n = 0;

        /* At exit the destructors run after the library's flush: nothing is
         * written any more nor unmapped, and a writer left stuck in a send
         * (a stopped journald, a full pipe) holds w.lock: exit() hung. */
        if (emit_is_closed())
                return;
        if (writer_running())
                writer_flush(config_flush_ms());
        /* Not timed: the module's records must not outlive it.  Counted
         * wanted, as in writer_set_outputs(), so that the writer lets it in
         * between two passes (writer_yield_lock()).  No deadlock: under
         * w.lock the writer never calls into the dynamic loader, whose lock
         * dlclose() holds here (its TLS is initial-exec). */
        writer_want_lock(true);
        pthread_mutex_lock(&w.lock);
        writer_want_lock(false);
        pthread_mutex_lock(&w.list_lock);
        for (struct ring *ring = w.rings; ring; ring = *ring_next(ring))
                n += ring_forget_group(ring, group);
        pthread_mutex_unlock(&w.list_lock);
        pthread_mutex_unlock(&w.lock);
        if (n)
                writer_add_dropped(n);
}

/* Free the rings of exited threads once drained. */
static void writer_reap(void)
{
        pthread_mutex_lock(&w.list_lock);
        for (struct ring **pp = &w.rings; *pp; ) {
                struct ring *ring = *pp;

                if (ring_is_dead(ring) && ring_is_empty(ring)) {
                        writer_add_dropped(ring_take_drops(ring));
                        *pp = *ring_next(ring);
                        ring_free(ring);
                } else
                        pp = ring_next(ring);
        }
        pthread_mutex_unlock(&w.list_lock);
}

/*
 * Another thread waits for w.lock to change the outputs (tj_set_outputs(),
 * an outputs request) or to unload a module (writer_forget_group()): keep
 * off it until that thread had it.  A mutex is not fair, and the writer
 * took it again as soon as a pass ended: while threads traced faster than
 * journald took entries, every pass went through, yet the change timed out,
 * said busy, and a dlclose() waited seconds.  At most
 * WRITER_YIELD_MAX_MS at a time: a waiter gone meanwhile stops nothing.
 */
static void writer_yield_lock(void)
{
        for (int i = 0; i < WRITER_YIELD_MAX_MS * 10; i++) {
                int_fast64_t tried = atomic_load(&w.lock_tried_until);

                /* the usual pass: nobody waits, and no clock is read */
                if (!atomic_load(&w.lock_wanted) &&
                    (tried == 0 || tj_clock_ns(CLOCK_MONOTONIC) >= tried))
                        break;
                nanosleep(&(struct timespec){ .tv_nsec = 100000 }, NULL);
        }
}

/* One pass over every ring.  Returns the number of records written. */
static size_t writer_pass(void)
{
        size_t n = 0;
        bool dead = false;
        struct ring *first, *ring;
        /* acquire: pairs with tj_emit()'s release, so every record put in,
         * and every ring made, before one of these numbers was handed out
         * is seen; read before the list (writer_drain_merged()) */
        uint64_t upto = atomic_load_explicit(&emit_counters.seq, memory_order_acquire);

        pthread_mutex_lock(&w.list_lock);
        first = w.rings;
        pthread_mutex_unlock(&w.list_lock);
        writer_sample_offset();
        writer_yield_lock();
        pthread_mutex_lock(&w.lock);
        /* Only the writer removes rings, and new ones go in front: safe.
         * One ring is merged too, for the bound: the thread of a ring made
         * after the list was read may have traced before this one's last. */
        n = writer_drain_merged(first, upto);
        if (n == SIZE_MAX) {
                n = 0;
                for (ring = first; ring; ring = *ring_next(ring))
                        n += writer_drain(ring);
        }
        for (ring = first; ring; ring = *ring_next(ring))
                dead |= ring_is_dead(ring);
        writer_report_drops();
        for (size_t i = 0; i < w.nouts; i++)
                if (w.outs[i]->flush)
                        w.outs[i]->flush();
        writer_take_late_losses();
        pthread_mutex_unlock(&w.lock);
        /* out of the lock: stderr may block, a change of outputs may not */
        out_ftrace_say_noted();
        if (dead)
                writer_reap();
        return n;
}

static bool writer_any_pending(void)
{
        bool any = false;

        pthread_mutex_lock(&w.list_lock);
        for (struct ring *ring = w.rings; ring && !any; ring = *ring_next(ring))
                any = !ring_is_empty(ring);
        pthread_mutex_unlock(&w.list_lock);
        return any || atomic_load(&w.pending_drops) ||
               atomic_load(&w.flush_req) != atomic_load(&w.flush_done);
}

static void writer_sleep(unsigned ms)
{
        unsigned seen = atomic_load(&w.wake);
        struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

        atomic_store(&w.sleeping, true);
        if (!writer_any_pending() && !atomic_load(&w.stop))
                writer_futex(&w.wake, FUTEX_WAIT_PRIVATE, seen, &ts);
        atomic_store(&w.sleeping, false);
}

/*
 * Asked to stop, the writer leaves once a pass found nothing left, or after
 * two passes begun since it saw the request: the first takes what was
 * committed when it began, the second the records numbered before that but
 * committed during it (writer_drain_merged()) and the flushes asked for
 * meanwhile.  Waiting for the rings to be empty never ended while a thread
 * traced faster than the outputs took its events: writer_shutdown()'s join
 * failed, and at exit the outputs stayed open.  What is left stays in the
 * rings: the next writer sends it (tj_init() again), or at exit it counts
 * dropped (emit_set_closed()).
 */
#define WRITER_STOP_PASSES 2

static void *writer_main(void *arg)
{
        unsigned idle_ms = 1, stop_passes = 0;

        (void)arg;
        for (;;) {
                unsigned req = atomic_load(&w.flush_req);
                bool stop = atomic_load(&w.stop);
                size_t n = writer_pass();

                atomic_store(&w.flush_done, req);
                if (!stop)
                        stop_passes = 0;
                /* a pass may take nothing yet leave records (numbered after
                 * it began, writer_drain_merged()): those go out first, in
                 * the bound */
                else if ((n == 0 && !writer_any_pending()) ||
                         ++stop_passes >= WRITER_STOP_PASSES) {
                        bool leave;

                        /* unless writer_start() took this thread back */
                        pthread_mutex_lock(&w.start_lock);
                        leave = atomic_load(&w.stop);
                        if (leave) {
                                w.alive = false;
                                /* those it leaves, as their threads'
                                 * exit does from now on */
                                writer_release_dead_locked(NULL);
                        }
                        pthread_mutex_unlock(&w.start_lock);
                        if (leave)
                                break;
                        stop_passes = 0;
                        continue;
                }
                if (n > 0) {
                        idle_ms = 1;
                        continue;
                }
                writer_sleep(idle_ms);
                if (idle_ms < WRITER_IDLE_MAX_MS)
                        idle_ms *= 2;
        }
        return NULL;
}

/* writer_start(), under start_lock. */
static int writer_start_locked(void)
{
        sigset_t all, old;
        int r = 0;

        if (writer_running())
                goto out;
        atomic_store(&w.stop, false);
        if (!w.alive) {
                sigfillset(&all);
                pthread_sigmask(SIG_SETMASK, &all, &old);
                r = -pthread_create(&w.thread, NULL, writer_main, NULL);
                pthread_sigmask(SIG_SETMASK, &old, NULL);
                if (r < 0)
                        goto out;
                w.alive = w.joinable = true;
        }
        atomic_store(&w.running, true);
out:
        return r;
}

/*
 * Start the writer thread, with every signal blocked in it.  A writer that
 * writer_shutdown() left stuck in a send is taken back instead: two would
 * both remove dead rings.  0 or -errno.
 */
int writer_start(void)
{
        int r;

        pthread_mutex_lock(&w.start_lock);
        r = writer_start_locked();
        pthread_mutex_unlock(&w.start_lock);
        return r;
}

/* Ask for a flush: the next pass that starts completes it.  False without a
 * writer thread (before tj_init()): the events stay in the rings, there is
 * nothing to wait for. */
bool writer_flush_begin(unsigned *ret_req)
{
        if (atomic_load(&writer_restart))
                writer_restart_after_fork();
        if (!writer_running())
                return false;
        *ret_req = atomic_fetch_add(&w.flush_req, 1) + 1;
        atomic_store(&w.sleeping, true);        /* force the wake-up */
        writer_wake();
        return true;
}

/* Is flush REQ done?  If not, wake the writer again (it may have gone to
 * sleep between the request and its pass). */
static bool writer_flush_reached(unsigned req)
{
        if ((int)(atomic_load(&w.flush_done) - req) >= 0)
                return true;
        writer_wake();
        return false;
}

/*
 * Has the writer thread left (writer_main() cleared w.alive)?  A flush asked
 * while tj_shutdown() stops it, after its last pass began, is completed by
 * no pass: writer_running() stays true until tj_shutdown() joined it.
 */
static bool writer_gone(void)
{
        bool gone;

        pthread_mutex_lock(&w.start_lock);
        gone = !w.alive;
        pthread_mutex_unlock(&w.start_lock);
        return gone;
}

/*
 * Is flush REQ (writer_flush_begin()) done?  1: done; 0: not yet, the writer
 * woken again; -ETIMEDOUT: never, the writer left (stopped by tj_shutdown()
 * in another thread) before it got to it.  A writer left stuck in a send
 * has not left: 0 until the caller's own bound.
 */
int writer_flush_check(unsigned req)
{
        if (writer_flush_reached(req))
                return 1;
        if (!writer_gone())
                return 0;
        /* its last pass stored flush_done before it left: the lock orders
         * that store before this second look */
        return writer_flush_reached(req) ? 1 : -ETIMEDOUT;
}

/*
 * Wait until everything traced before the call went through the outputs, at
 * most TIMEOUT_MS.  Returns 0, or -ETIMEDOUT, at once when the writer left
 * (stopped by tj_shutdown() in another thread) before it got to the flush.
 * Without a writer thread, returns 0 at once.
 */
int writer_flush(unsigned timeout_ms)
{
        unsigned req;
        struct timespec start, now;
        int r;

        if (!writer_flush_begin(&req))
                return 0;
        clock_gettime(CLOCK_MONOTONIC, &start);
        while ((r = writer_flush_check(req)) == 0) {
                struct timespec ts = { 0, 200000 };
                long ms;

                clock_gettime(CLOCK_MONOTONIC, &now);
                ms = (now.tv_sec - start.tv_sec) * 1000 +
                     (now.tv_nsec - start.tv_nsec) / 1000000;
                if (ms >= (long)timeout_ms)
                        return -ETIMEDOUT;
                nanosleep(&ts, NULL);
        }
        return r < 0 ? r : 0;
}

/* Stop the writer (bounded by the flush timeout) and close the outputs. */
void writer_shutdown(void)
{
        bool joined = true;

        /* A fork child that had no writer yet starts none after this: one
         * with no outputs counted written what it drained.  Under start_lock,
         * as writer_restart_after_fork() takes it: a restart is either done
         * (the writer is running, stopped below) or refused. */
        pthread_mutex_lock(&w.start_lock);
        atomic_store(&writer_restart, false);
        pthread_mutex_unlock(&w.start_lock);
        if (writer_running()) {
                struct timespec ts;

                writer_flush(config_flush_ms());
                atomic_store(&w.stop, true);
                atomic_store(&w.sleeping, true);
                writer_wake();
                /* The flush had its bound; a writer stuck in a send (no
                 * record taken for TJ_FLUSH_TIMEOUT_MS, 100 ms at least:
                 * the bound of a wait for an output that takes nothing) is
                 * left.  One still taking records is waited for: it leaves
                 * within WRITER_STOP_PASSES passes, each bounded by what the
                 * rings held when it began.  A journald busy for a moment
                 * (another program's burst, a rotation) is not stuck: with
                 * a fixed 100 ms, one such pause left the writer running and
                 * the outputs open at exit. */
                pthread_mutex_lock(&w.start_lock);
                if (w.joinable) {
                        unsigned seen, now = atomic_load(&w.taken);
                        unsigned quiet_ms = config_flush_ms() > 100 ? config_flush_ms() : 100;

                        pthread_mutex_unlock(&w.start_lock);
                        do {
                                seen = now;
                                ts = writer_deadline(quiet_ms);
                                joined = pthread_timedjoin_np(w.thread, NULL, &ts) == 0;
                                now = atomic_load(&w.taken);
                        } while (!joined && now != seen);
                        pthread_mutex_lock(&w.start_lock);
                        w.joinable = false;
                        if (!joined)
                                pthread_detach(w.thread);
                } else {
                        /* taken back after a shutdown left it: detached */
                        pthread_mutex_unlock(&w.start_lock);
                        joined = false;
                        for (int i = 0; i < 100 && !joined; i++) {
                                struct timespec ms = { 0, 1000000 };

                                nanosleep(&ms, NULL);
                                pthread_mutex_lock(&w.start_lock);
                                joined = !w.alive;
                                pthread_mutex_unlock(&w.start_lock);
                        }
                        pthread_mutex_lock(&w.start_lock);
                }
                atomic_store(&w.running, false);
                pthread_mutex_unlock(&w.start_lock);
        }
        if (!joined)
                return;         /* a stuck writer may still use the outputs */
        pthread_mutex_lock(&w.lock);
        writer_close_outputs();
        free(w.msg);
        w.msg = NULL;
        free(w.srcs);
        w.srcs = NULL;
        w.nsrcs = 0;
        pthread_mutex_unlock(&w.lock);
}

/* ---- fork --------------------------------------------------------------- */

static void writer_fork_prepare(void)
{
        pthread_mutex_lock(&w.start_lock);
        pthread_mutex_lock(&w.list_lock);
}

static void writer_fork_parent(void)
{
        pthread_mutex_unlock(&w.list_lock);
        pthread_mutex_unlock(&w.start_lock);
}

/*
 * The child has no writer thread and only the forking thread: its ring is
 * emptied (the parent sends those records), the others are freed, and a new
 * writer starts at the child's first event or tj_flush().
 */
static void writer_fork_child(void)
{
        struct ring *mine = emit_thread_ring();
        struct ring *ring = w.rings;

        pthread_mutex_init(&w.start_lock, NULL);
        pthread_mutex_init(&w.list_lock, NULL);
        pthread_mutex_init(&w.lock, NULL);
        w.alive = w.joinable = false;   /* the child has no writer thread */
        while (ring) {
                struct ring *next = *ring_next(ring);

                if (ring != mine)
                        ring_free(ring);
                ring = next;
        }
        w.rings = NULL;
        if (mine) {
                ring_clear(mine);
                *ring_next(mine) = NULL;
                w.rings = mine;
        }
        atomic_store(&w.pending_drops, 0);
        for (size_t i = 0; i < CONFIG_MAX_OUTPUTS; i++)
                atomic_store(&w.unreported[i], 0);
        for (size_t k = 0; k < WRITER_NKNOWN; k++) {
                /* counted since the child started, as emit_after_fork_child()
                 * and control.c count theirs: ctl stats in a child had the
                 * parent's events in its outputs' lines, not in 'written' */
                atomic_store(&w.out_written[k], 0);
                atomic_store(&w.out_dropped[k], 0);
                atomic_store(&w.caller_lost[k], 0);
        }
        atomic_store(&w.flush_req, 0);
        atomic_store(&w.flush_done, 0);
        atomic_store(&w.sleeping, false);
        /* Threads the child does not have waited for w.lock or for room:
         * its writer paused 10 ms each pass for good (writer_yield_lock())
         * for a tj_set_outputs() under way at the fork.  And none asked the
         * control endpoint's retry. */
        atomic_store(&w.lock_wanted, writer_own.lock_wanted);
        atomic_store(&w.space_waiters, writer_own.space_waiters);
        atomic_store(&w.lock_tried_until, 0);
        emit_after_fork_child();
        if (atomic_load(&w.running)) {
                atomic_store(&w.running, false);
                atomic_store(&writer_restart, true);
        }
}

/* A fork child's first event or tj_flush(): start its writer, unless
 * tj_shutdown() came first (writer_shutdown() cleared writer_restart). */
void writer_restart_after_fork(void)
{
        pthread_mutex_lock(&w.start_lock);
        if (atomic_exchange(&writer_restart, false))
                writer_start_locked();
        pthread_mutex_unlock(&w.start_lock);
}

__attribute__((constructor)) static void writer_init(void)
{
        pthread_atfork(writer_fork_prepare, writer_fork_parent, writer_fork_child);
}
