/*
 * ring.c - the per-thread ring of records.
 *
 * One producer (the traced thread) and one consumer (the writer thread) share
 * a power-of-two byte buffer through two monotonically increasing positions:
 * head, advanced by the producer after it wrote a record (release), and tail,
 * advanced by the consumer after it used one.  No lock, no system call, no
 * allocation on either side.  A record never wraps: when it does not fit
 * before the end of the buffer, the producer fills the rest with a RECORD_PAD
 * record and starts again at offset 0.  Losses (full ring) are counted in the
 * ring and collected by the writer, which reports them as tj_dropped entries.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/*
 * Each side has its own cache line, with its own copy of the read-only size
 * and buffer address: the producer reads the consumer's line only when its
 * cached view of tail says the ring is full or over half full, the consumer
 * reads the producer's head once per drain.
 */
struct ring {
        /* producer side */
        _Alignas(64) atomic_uint_fast64_t head;
        uint64_t tail_cache;            /* producer's last view of tail */
        atomic_uint_fast64_t drops;     /* events lost because the ring was full */
        size_t size;
        unsigned char *buf;
        /* consumer side */
        _Alignas(64) atomic_uint_fast64_t tail;
        atomic_bool dead;               /* the thread exited; free once drained */
        size_t csize;
        unsigned char *cbuf;
        struct ring *next;              /* writer's list */
};

/* A ring of SIZE bytes (a power of two); NULL when out of memory. */
struct ring *ring_new(size_t size)
{
        struct ring *ring = NULL;

        if (posix_memalign((void **)&ring, 64, sizeof(*ring)) != 0)
                return NULL;
        memset(ring, 0, sizeof(*ring));
        ring->size = ring->csize = size;
        if (posix_memalign((void **)&ring->buf, 64, size) != 0) {
                free(ring);
                return NULL;
        }
        /* Fault the pages in now rather than in the middle of trace points. */
        memset(ring->buf, 0, size);
        ring->cbuf = ring->buf;
        return ring;
}

/* Accepts NULL. */
void ring_free(struct ring *ring)
{
        if (!ring)
                return;
        free(ring->buf);
        free(ring);
}

/*
 * Room for a record of SIZE bytes (a multiple of 8, at most size / 4), or
 * NULL when the ring is full.  The record becomes visible at ring_commit().
 */
struct record *ring_reserve(struct ring *ring, size_t size)
{
        uint64_t head = atomic_load_explicit(&ring->head, memory_order_relaxed);
        size_t off = head & (ring->size - 1);
        size_t contig = ring->size - off;
        size_t need = size <= contig ? size : contig + size;

        if (head + need - ring->tail_cache > ring->size) {
                ring->tail_cache = atomic_load_explicit(&ring->tail, memory_order_acquire);
                if (head + need - ring->tail_cache > ring->size)
                        return NULL;
        }
        if (size > contig) {
                struct record *pad = (struct record *)(ring->buf + off);

                pad->size = (uint32_t)contig;
                pad->kind = RECORD_PAD;
                atomic_store_explicit(&ring->head, head + contig, memory_order_release);
                off = 0;
        }
        return (struct record *)(ring->buf + off);
}

void ring_commit(struct ring *ring, struct record *r)
{
        uint64_t head = atomic_load_explicit(&ring->head, memory_order_relaxed);

        atomic_store_explicit(&ring->head, head + r->size, memory_order_release);
}

/* Consumer side: the producer's position now; records before it are complete. */
uint64_t ring_head(struct ring *ring)
{
        return atomic_load_explicit(&ring->head, memory_order_acquire);
}

/*
 * The oldest unconsumed record (never a pad) that starts before position END
 * (from ring_head()), or NULL when there is none.
 */
const struct record *ring_peek(struct ring *ring, uint64_t end)
{
        for (;;) {
                uint64_t tail = atomic_load_explicit(&ring->tail, memory_order_relaxed);
                const struct record *r;

                if (tail >= end)
                        return NULL;
                r = (const struct record *)(ring->cbuf + (tail & (ring->csize - 1)));
                if (r->kind != RECORD_PAD)
                        return r;
                atomic_store_explicit(&ring->tail, tail + r->size, memory_order_release);
        }
}

void ring_consume(struct ring *ring, const struct record *r)
{
        uint64_t tail = atomic_load_explicit(&ring->tail, memory_order_relaxed);

        atomic_store_explicit(&ring->tail, tail + r->size, memory_order_release);
}

bool ring_is_empty(struct ring *ring)
{
        return atomic_load_explicit(&ring->tail, memory_order_acquire) ==
               atomic_load_explicit(&ring->head, memory_order_acquire);
}

/*
 * Producer side: is the ring more than half full (time to wake the writer)?
 * Reads the consumer's position only when the cached one says so.
 */
bool ring_over_half(struct ring *ring)
{
        uint64_t head = atomic_load_explicit(&ring->head, memory_order_relaxed);

        if (head - ring->tail_cache <= ring->size / 2)
                return false;
        ring->tail_cache = atomic_load_explicit(&ring->tail, memory_order_acquire);
        return head - ring->tail_cache > ring->size / 2;
}

void ring_count_drop(struct ring *ring)
{
        atomic_fetch_add_explicit(&ring->drops, 1, memory_order_relaxed);
}

/* Consumer side: the losses counted since the last call. */
uint64_t ring_take_drops(struct ring *ring)
{
        if (atomic_load_explicit(&ring->drops, memory_order_relaxed) == 0)
                return 0;
        return atomic_exchange_explicit(&ring->drops, 0, memory_order_relaxed);
}

void ring_mark_dead(struct ring *ring)
{
        atomic_store_explicit(&ring->dead, true, memory_order_release);
}

bool ring_is_dead(struct ring *ring)
{
        return atomic_load_explicit(&ring->dead, memory_order_acquire);
}

/* Forget the contents (in a fork child: the parent sends them). */
void ring_clear(struct ring *ring)
{
        uint64_t head = atomic_load_explicit(&ring->head, memory_order_relaxed);

        atomic_store_explicit(&ring->tail, head, memory_order_relaxed);
        ring->tail_cache = head;
        atomic_store_explicit(&ring->drops, 0, memory_order_relaxed);
}

/*
 * Consumer side, under the writer's lock: every record not yet consumed
 * whose event is one of GROUP's becomes a pad, which the writer skips (its
 * module is being unloaded: the event, its render function and its call
 * site go away).  Returns how many.
 */
size_t ring_forget_group(struct ring *ring, const struct tj_group *group)
{
        uint64_t end = atomic_load_explicit(&ring->head, memory_order_acquire);
        uint64_t pos = atomic_load_explicit(&ring->tail, memory_order_relaxed);
        size_t n = 0;

        while (pos < end) {
                struct record *r = (struct record *)(ring->cbuf + (pos & (ring->csize - 1)));

                if (r->kind == RECORD_EVENT && r->ev->group == group) {
                        r->kind = RECORD_PAD;
                        n++;
                }
                pos += r->size;
        }
        return n;
}

/*
 * A dead ring nobody consumes (no writer thread: writer_ring_exited()):
 * its records not yet consumed, pads left out, move to a buffer just big
 * enough for what it holds, a power of two from RING_SHRUNK_MIN bytes, and
 * the thread's buffer is freed.  Nothing changes when that would not be
 * smaller or there is no memory for it.  Its losses stay counted in it.
 */
#define RING_SHRUNK_MIN 64

void ring_shrink(struct ring *ring)
{
        uint64_t end = atomic_load_explicit(&ring->head, memory_order_acquire);
        uint64_t tail = atomic_load_explicit(&ring->tail, memory_order_relaxed);
        size_t used = 0, size = RING_SHRUNK_MIN;
        unsigned char *buf;

        while (size < end - tail)       /* the records and their pads: enough */
                size *= 2;
        if (size >= ring->csize || posix_memalign((void **)&buf, 64, size) != 0)
                return;
        for (uint64_t pos = tail; pos < end; ) {
                const struct record *r = (const struct record *)(ring->cbuf +
                                                                (pos & (ring->csize - 1)));

                if (r->kind != RECORD_PAD) {
                        memcpy(buf + used, r, r->size);
                        used += r->size;
                }
                pos += r->size;
        }
        free(ring->buf);
        ring->buf = ring->cbuf = buf;
        ring->size = ring->csize = size;
        atomic_store_explicit(&ring->tail, 0, memory_order_relaxed);
        ring->tail_cache = 0;
        atomic_store_explicit(&ring->head, used, memory_order_release);
}

/* The writer's list link lives in the ring; writer.c walks it. */
struct ring **ring_next(struct ring *ring)
{
        return &ring->next;
}

/* Bytes written by the producer and not yet consumed (a snapshot). */
size_t ring_used(struct ring *ring)
{
        uint64_t tail = atomic_load_explicit(&ring->tail, memory_order_acquire);
        uint64_t head = atomic_load_explicit(&ring->head, memory_order_acquire);

        return head > tail ? (size_t)(head - tail) : 0;
}

size_t ring_capacity(struct ring *ring)
{
        return ring->csize;
}

/* The largest record RING takes, a quarter of it (read on the producer's
 * side: a ring made before TJ_RING_SIZE changed keeps its size). */
size_t ring_record_max(struct ring *ring)
{
        return ring->size / 4;
}
