/*
 * emit.c - tj_emit(), the one entry point every enabled trace point calls.
 *
 * It takes the clock(s), the next TRACE_SEQ and the cached thread id, and
 * encodes the event into a record.  Normally the record goes into the calling
 * thread's ring, for the writer thread; after a thread's first event that
 * costs no system call, no shared lock and no allocation.  With TJ_SYNC=1, or
 * when no asynchronous output is configured, the record is built on the stack
 * and written by the caller.  The log and ftrace outputs are always written
 * by the caller, without a lock: with no other output, nothing else is done.
 *
 * A trace point re-entered on the same thread (a signal handler interrupting
 * tj_emit) is dropped and counted rather than corrupting the ring, which is
 * what makes trace points safe in signal handlers once the thread has a ring.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "internal.h"

struct emit_thread {
        struct ring *ring;      /* this thread's ring, created at its first event */
        pid_t tid;              /* cached gettid(), 0 until known */
        bool busy;              /* inside tj_emit: a nested call is dropped */
        bool exited;            /* its ring's cleanup ran: emit_late() */
};

static __thread struct emit_thread emit_tls __attribute__((tls_model("initial-exec")));

TJ_HIDDEN struct emit_counters emit_counters;

/* The flush at exit() is done: no writer sends what the rings hold, nor
 * what is traced from now on (tj_get_stats()). */
static atomic_bool emit_closed;

static pthread_key_t emit_key;
static pthread_once_t emit_once = PTHREAD_ONCE_INIT;
static bool emit_key_ok;

pid_t emit_gettid(void)
{
        if (emit_tls.tid == 0)
                emit_tls.tid = (pid_t)syscall(SYS_gettid);
        return emit_tls.tid;
}

/* Thread exit: the writer drains the ring, then frees it; without a writer
 * (after tj_shutdown()), it is released now (writer_ring_exited()). */
static void emit_thread_exit(void *p)
{
        struct ring *ring = p;

        emit_tls.ring = NULL;
        emit_tls.exited = true;
        if (ring) {
                ring_mark_dead(ring);
                writer_wake();
                writer_ring_exited(ring);
        }
}

static void emit_make_key(void)
{
        emit_key_ok = pthread_key_create(&emit_key, emit_thread_exit) == 0;
}

/* This thread's first event: create and register its ring (NULL: no memory). */
static struct ring *emit_attach(void)
{
        struct ring *ring;

        pthread_once(&emit_once, emit_make_key);
        if (!emit_key_ok)
                return NULL;
        ring = ring_new(atomic_load_explicit(&config.ring_size, memory_order_relaxed));
        if (!ring)
                return NULL;
        if (pthread_setspecific(emit_key, ring) != 0) {
                ring_free(ring);
                return NULL;
        }
        emit_tls.ring = ring;
        writer_attach_ring(ring);
        return ring;
}

/* Both clocks, for records built and written by the caller (emit_here). */
static void emit_header(struct record *r, uint64_t seq)
{
        r->seq = seq;
        r->realtime_ns = tj_clock_ns(CLOCK_REALTIME);
        r->mono_ns = tj_clock_ns(CLOCK_MONOTONIC);
        r->tid = emit_gettid();
}

/* The ring path reads one clock: the writer derives CLOCK_REALTIME. */
static void emit_header_async(struct record *r, uint64_t seq)
{
        r->seq = seq;
        r->realtime_ns = RECORD_TIME_DERIVED;
        r->mono_ns = tj_clock_ns(CLOCK_MONOTONIC);
        r->tid = emit_gettid();
}

/* Build the record here, in the calling thread, and write it: through every
 * output under the writer's lock (SYNC: TJ_SYNC=1 or no asynchronous output),
 * or, when only log/ftrace outputs are configured, straight to them, no lock.
 * False when the outputs it saw are gone (closed by tj_shutdown() meanwhile):
 * nothing was written nor counted, the caller puts the event in its ring.
 * The writes are cancellation points: a thread cancelled (pthread_cancel())
 * in one left the writer's lock held for ever, every trace point and the
 * writer waiting on it, and its event neither written nor counted dropped;
 * cancellation waits until the event is written and counted. */
static __attribute__((noinline)) bool emit_here(const struct tj_event *ev,
                const struct tj_site *site, const tj_value *v, uint64_t seq, bool sync)
{
        union {
                struct record r;
                unsigned char bytes[RECORD_MAX];
        } buf;
        size_t lens[TJ_MAX_ARGS];
        size_t size = record_size(ev, v, lens);
        int cancel;
        bool done;

        emit_header(&buf.r, seq);
        record_encode(&buf.r, size, ev, site, v, lens);
        pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
        done = sync ? writer_write_sync(&buf.r) : writer_write_caller_only(&buf.r);
        pthread_setcancelstate(cancel, NULL);
        return done;
}

/* Wait for room in block mode (TJ_ON_FULL=block); NULL: drop the event.
 * Not a cancellation point (the futex wait is a raw system call), as no
 * trace point is: the thread may hold a lock with no cleanup handler for
 * it.  A thread cancelled here is cancelled once it got room, or once the
 * writer stopped (the event dropped); tracejournal.3 says so. */
static struct record *emit_reserve(struct ring *ring, size_t size)
{
        struct record *r = ring_reserve(ring, size);

        while (!r && atomic_load_explicit(&config.block, memory_order_relaxed) &&
               writer_running()) {
                unsigned seen = writer_space_seen();

                r = ring_reserve(ring, size);
                if (!r)
                        writer_wait_space(seen);
        }
        return r;
}

/*
 * The thread traces after its ring's cleanup ran (emit_thread_exit()): from
 * a pthread key destructor that runs after the library's.  The event gets a
 * ring of its own, just big enough, dead once it is committed: the writer
 * sends it and frees the ring.  Such a ring registered with the key again
 * was freed at the destructors' next round, but one made in their last
 * round (PTHREAD_DESTRUCTOR_ITERATIONS) stayed in the writer's list for
 * ever, one per such thread.
 */
static __attribute__((noinline)) void emit_late(const struct tj_event *ev,
                const struct tj_site *site, const tj_value *v, uint64_t seq)
{
        size_t lens[TJ_MAX_ARGS], size = record_size(ev, v, lens);
        size_t max = atomic_load_explicit(&config.ring_size, memory_order_relaxed) / 4;
        size_t ring_size = 256;
        struct ring *ring;
        struct record *r;

        if (size > max)
                size = max;
        while (ring_size < 4 * size)
                ring_size *= 2;
        ring = ring_new(ring_size);
        if (!ring) {
                writer_add_dropped(1);
                return;
        }
        r = ring_reserve(ring, size);   /* empty: never NULL */
        emit_header_async(r, seq);
        record_encode(r, size, ev, site, v, lens);
        writer_write_caller(r);
        ring_commit(ring, r);
        ring_mark_dead(ring);
        writer_attach_ring(ring);
}

static void emit_async(const struct tj_event *ev, const struct tj_site *site,
                       const tj_value *v, uint64_t seq)
{
        struct ring *ring = emit_tls.ring;
        struct record *r;
        size_t size, max, lens[TJ_MAX_ARGS];

        if (TJ_UNLIKELY(!ring)) {
                if (emit_tls.exited) {
                        emit_late(ev, site, v, seq);
                        return;
                }
                ring = emit_attach();
                if (!ring) {
                        writer_add_dropped(1);
                        return;
                }
        }
        size = record_size(ev, v, lens);
        max = ring_record_max(ring);
        if (size > max)
                size = max;
        r = emit_reserve(ring, size);
        if (!r) {
                ring_count_drop(ring);
                return;
        }
        emit_header_async(r, seq);
        record_encode(r, size, ev, site, v, lens);
        writer_write_caller(r);
        ring_commit(ring, r);
        if (ring_over_half(ring))
                writer_wake();
}

void tj_emit(const struct tj_event *ev, const struct tj_site *site, const tj_value *v)
{
        uint64_t seq;
        bool here, sync;

        if (!ev || (ev->nargs > 0 && !v) || ev->nargs > TJ_MAX_ARGS)
                return;
        /* release: whatever happened before (another thread's record, put
         * in its ring before this thread was started or joined) is seen by a
         * writer that reads this number or a later one (writer_drain_merged()) */
        seq = atomic_fetch_add_explicit(&emit_counters.seq, 1, memory_order_release) + 1;
        if (emit_tls.busy) {
                writer_add_dropped(1);
                return;
        }
        emit_tls.busy = true;
        atomic_signal_fence(memory_order_seq_cst);
        /* A fork child's first event starts its writer, whatever the outputs:
         * with only log and ftrace, which the caller writes, it is still the
         * writer that sends what went to the ring and reports the losses. */
        if (TJ_UNLIKELY(atomic_load_explicit(&writer_restart, memory_order_relaxed)))
                writer_restart_after_fork();
        here = atomic_load_explicit(&config_initialized, memory_order_acquire);
        if (here) {
                sync = atomic_load_explicit(&config.sync, memory_order_relaxed);
                here = (sync || !writer_has_async_outputs()) &&
                       emit_here(ev, site, v, seq, sync);
        }
        if (!here)
                emit_async(ev, site, v, seq);
        atomic_signal_fence(memory_order_seq_cst);
        emit_tls.busy = false;
}

/*
 * In a fork child: the thread id changed, the sequence restarts (TRACE_SEQ is
 * per process), and the ring of the forking thread keeps working but loses
 * what the parent will send itself.
 */
void emit_after_fork_child(void)
{
        emit_tls.tid = 0;
        emit_tls.busy = false;
        atomic_store(&emit_closed, false);
        atomic_store(&emit_counters.seq, 0);
        atomic_store(&emit_counters.written, 0);
        atomic_store(&emit_counters.dropped, 0);
}

/* The ring of the calling thread, for the fork child handler in writer.c. */
struct ring *emit_thread_ring(void)
{
        return emit_tls.ring;
}

void emit_set_closed(bool closed)
{
        atomic_store(&emit_closed, closed);
}

bool emit_is_closed(void)
{
        return atomic_load(&emit_closed);
}

/*
 * Once exit() flushed (emit_closed), every event not written is dropped: the
 * records the flush left in a ring (committed after the writer's last pass,
 * by a thread tracing while the process exits), those traced later (by an
 * atexit handler that runs after the library's), and the losses not yet
 * counted, as no writer will send or count them.  WRITTEN is read first:
 * every event it counts was numbered before, so it is at most EMITTED.
 */
int tj_get_stats(struct tj_stats *ret_stats)
{
        uint64_t written, emitted, dropped;

        if (!ret_stats)
                return -EINVAL;
        written = atomic_load(&emit_counters.written);
        emitted = atomic_load(&emit_counters.seq);
        dropped = atomic_load(&emit_counters.dropped);
        if (atomic_load(&emit_closed))
                dropped = emitted - written;
        ret_stats->emitted = emitted;
        ret_stats->written = written;
        ret_stats->dropped = dropped;
        return 0;
}
