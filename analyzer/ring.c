/*
 * ring.c - entries handed from a reader thread to the writer.
 *
 * An importer whose reading costs about as much as writing SQLite reads in a
 * thread of its own and leaves the database to the calling thread.  The two
 * share a ring of slots, each an ingest_entry that keeps its buffer, so no
 * malloc per entry.  One reader, one writer.
 *
 * They meet on the lock once per RING_HANDOFF slots, not once per entry: the
 * reader publishes what it filled every RING_HANDOFF slots (or when it runs
 * out of slots it knows are free), and the writer takes up to RING_HANDOFF
 * at a time, so slots go back to the reader while the writer is busy with
 * the rest.  A ring that is large enough absorbs the writer's pause at each
 * commit.  A writer that caught up naps for RING_WAKE_MS, woken early only
 * when RING_WAKE slots wait for it (or the reader notes, ends or waits for
 * room), not at each RING_HANDOFF; after a nap that found nothing it sleeps
 * until the next publish wakes it.
 *
 * Either side can stop the other: the writer with ring_quit() (the reader's
 * next ring_get() gives NULL), the reader with ring_end().
 *
 * The slots are allocated 64 at a time, as the reader first reaches them: a
 * small import (a fuzzer's input) does not allocate 2048 of them (1.4 MB,
 * which ASan's allocator poisons and quarantines: the syslog fuzz target's
 * first 3000 inputs took 16.4 s with one array of 2048, 9.4 s in chunks).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "traceql.h"

/* With 512 slots the journal reader, the slower of the two, waited for room
 * 16 to 49 times (40 to 113 ms) in an import of 100k entries, with 2048 at
 * most 5 times.  For a syslog file 256 and 512 slots were slower than 2048
 * (300k lines, 5 rounds each: 1.48-2.32 s and 1.28-1.67 s against 1.12-1.66
 * s), with more system time: the threads wait on each other more often.  A slot keeps its buffer: a journal entry's fields, about 1
 * KiB, or a text line's, a few hundred bytes. */
#define RING_SLOTS 2048
#define RING_HANDOFF 64
#define RING_CHUNK 64                   /* slots allocated at a time */
/* Waking the writer is a futex call that, in a VM, interrupts the other
 * CPU: the journal reader, which is the slower of the two, spent 6% of the
 * bare sd-journal loop's time in it, waking the writer after each
 * RING_HANDOFF (100k entries: about 1300 wake-ups; with RING_WAKE 512 about
 * 260, and the import 3 to 6% faster).  RING_WAKE_MS is the most a published
 * slot waits more than it did, when entries trickle in. */
#define RING_WAKE 512
#define RING_WAKE_MS 10
enum { RING_BUSY, RING_NAPPING, RING_SLEEPING };
/* Memory, whatever the input: the reader stops when the buffers of the
 * slots it filled and the writer has not given back pass RING_BYTES (a file
 * of 1 MB lines would otherwise have 2048 of them in the ring), and a slot
 * given back with a buffer above RING_KEEP frees it, so the buffers the ring
 * keeps stay under RING_SLOTS * RING_KEEP, 32 MiB.  Normal entries fill 1 to
 * 4 MiB of the ring and never meet the first limit. */
#define RING_BYTES (16 << 20)
/* With a side ring (ring_side()) the writer takes from either, and naps so
 * long when both are empty. */
#define RING_SIDE_NAP_MS 1
#define RING_KEEP 16384

struct ring {
        pthread_mutex_t lock;
        pthread_cond_t filled, emptied;
        struct ring_slot *chunks[RING_SLOTS / RING_CHUNK];     /* NULL until reached */
        size_t head, count;             /* next slot to take, slots filled */
        size_t bytes;                   /* buffer bytes of the filled slots */
        size_t next;                    /* the reader's: the slot it fills next */
        size_t pending;                 /* the reader's: filled, not yet published */
        size_t pending_bytes;           /* the reader's: their buffer bytes */
        size_t room;                    /* the reader's: free slots it knows of */
        size_t known_bytes;             /* the reader's: bytes filled, as it knows */
        bool quit;                      /* writer to reader: stop */
        bool ended;                     /* reader to writer: no more slots */
        bool waiting;                   /* the reader waits for half the ring to be free */
        int taking;                     /* the writer waits: RING_NAPPING, RING_SLEEPING */
        int error;                      /* the reader's: -ENOMEM when a chunk was not there */
        struct ring *side;              /* a second reader's (ring_side()), freed with this */
        size_t chunk_limit;             /* $TRACEQL_TEST_RING_CHUNKS: no memory past so many */
};

/* Slot I (0 <= I < RING_SLOTS), whose chunk exists. */
static struct ring_slot *ring_slot(struct ring *r, size_t i)
{
        return &r->chunks[i / RING_CHUNK][i % RING_CHUNK];
}

/* Whether the reader, waiting, can go on: half the ring free, in slots and
 * in bytes.  Called locked. */
static bool ring_roomy(const struct ring *r)
{
        return r->count <= RING_SLOTS / 2 && r->bytes <= RING_BYTES / 2;
}

static int ring_new(struct ring **ret)
{
        struct ring *r = calloc(1, sizeof(*r));
        pthread_condattr_t attr;

        if (!r)
                return -ENOMEM;
        r->room = RING_SLOTS;
        r->chunk_limit = RING_SLOTS / RING_CHUNK;
        if (getenv("TRACEQL_TEST_RING_CHUNKS"))
                r->chunk_limit = strtoul(getenv("TRACEQL_TEST_RING_CHUNKS"), NULL, 10);
        pthread_mutex_init(&r->lock, NULL);
        pthread_condattr_init(&attr);
        (void) pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
        pthread_cond_init(&r->filled, &attr);
        pthread_condattr_destroy(&attr);
        pthread_cond_init(&r->emptied, NULL);
        *ret = r;
        return 0;
}

static void ring_free(struct ring *r)
{
        size_t c, i;

        if (!r)
                return;
        ring_free(r->side);
        for (c = 0; c < RING_SLOTS / RING_CHUNK && r->chunks[c]; c++) {
                for (i = 0; i < RING_CHUNK; i++)
                        ingest_entry_free(&r->chunks[c][i].e);
                free(r->chunks[c]);
        }
        pthread_cond_destroy(&r->filled);
        pthread_cond_destroy(&r->emptied);
        pthread_mutex_destroy(&r->lock);
        free(r);
}

/* ---- the reader's side ---- */

/* Hand the filled slots to the writer; wake it if it sleeps, or if it naps
 * and FORCE or RING_WAKE slots wait for it.  Called locked. */
static void ring_publish_locked(struct ring *r, bool force)
{
        r->count += r->pending;
        r->bytes += r->pending_bytes;
        r->pending = r->pending_bytes = 0;
        r->room = RING_SLOTS - r->count;
        r->known_bytes = r->bytes;
        if (r->count > 0 && (r->taking == RING_SLEEPING ||
                             (r->taking == RING_NAPPING && (force || r->count >= RING_WAKE)))) {
                pthread_cond_signal(&r->filled);
                r->taking = RING_BUSY;  /* once: it is on its way */
        }
}

static void ring_publish(struct ring *r, bool force)
{
        pthread_mutex_lock(&r->lock);
        ring_publish_locked(r, force);
        pthread_mutex_unlock(&r->lock);
}

struct ring_slot *ring_get(struct ring *r)
{
        bool quit = false;

        if (r->pending >= RING_HANDOFF)
                ring_publish(r, false);
        if (r->room == 0 || r->known_bytes > RING_BYTES) {
                pthread_mutex_lock(&r->lock);
                ring_publish_locked(r, true);
                /* wait for half the ring, not a slot: the threads then
                 * meet less often (300k syslog lines: 0.12-0.19 s of system
                 * time against 0.17-0.23 s, 5 rounds each) */
                r->waiting = true;
                while (!ring_roomy(r) && !r->quit)
                        pthread_cond_wait(&r->emptied, &r->lock);
                r->waiting = false;
                r->room = RING_SLOTS - r->count;
                r->known_bytes = r->bytes;
                quit = r->quit;
                pthread_mutex_unlock(&r->lock);
        }
        if (quit)
                return NULL;
        if (!r->chunks[r->next / RING_CHUNK]) {
                /* the reader reaches the chunks in order, and only it
                 * allocates them: the writer sees a chunk after a publish */
                if (r->next / RING_CHUNK < r->chunk_limit)
                        r->chunks[r->next / RING_CHUNK] = calloc(RING_CHUNK,
                                                                 sizeof(struct ring_slot));
                if (!r->chunks[r->next / RING_CHUNK]) {
                        r->error = -ENOMEM;
                        return NULL;
                }
        }
        return ring_slot(r, r->next);
}

int ring_error(const struct ring *r)
{
        return r->error < 0 ? r->error : -ECANCELED;
}

void ring_put(struct ring *r)
{
        struct ring_slot *slot = ring_slot(r, r->next);

        slot->held = slot->e.size;
        r->pending_bytes += slot->held;
        r->known_bytes += slot->held;
        r->next = (r->next + 1) % RING_SLOTS;
        r->pending++;
        r->room--;
}

bool ring_note(struct ring *r, int kind)
{
        struct ring_slot *slot = ring_get(r);

        if (!slot)
                return false;
        slot->kind = kind;
        ring_put(r);
        ring_publish(r, true);
        return true;
}

void ring_end(struct ring *r)
{
        pthread_mutex_lock(&r->lock);
        ring_publish_locked(r, true);
        r->ended = true;
        pthread_cond_signal(&r->filled);
        pthread_mutex_unlock(&r->lock);
}

bool ring_quitting(struct ring *r)
{
        bool quit;

        pthread_mutex_lock(&r->lock);
        quit = r->quit;
        pthread_mutex_unlock(&r->lock);
        return quit;
}

/* ---- the writer's side ---- */

static size_t ring_take(struct ring *r)
{
        struct timespec nap;
        bool napped = false;
        size_t n;

        pthread_mutex_lock(&r->lock);
        while (r->count == 0 && !r->ended) {
                if (napped) {
                        r->taking = RING_SLEEPING;
                        pthread_cond_wait(&r->filled, &r->lock);
                        continue;
                }
                clock_gettime(CLOCK_MONOTONIC, &nap);
                nap.tv_nsec += RING_WAKE_MS * 1000000L;
                if (nap.tv_nsec >= 1000000000L) {
                        nap.tv_sec++;
                        nap.tv_nsec -= 1000000000L;
                }
                r->taking = RING_NAPPING;
                while (r->taking == RING_NAPPING && !r->ended &&
                       pthread_cond_timedwait(&r->filled, &r->lock, &nap) == 0)
                        ;
                napped = true;
        }
        r->taking = RING_BUSY;
        n = r->count < RING_HANDOFF ? r->count : RING_HANDOFF;
        pthread_mutex_unlock(&r->lock);
        return n;
}

/* Slots to take now, without waiting (at most RING_HANDOFF); *RET_ENDED: the
 * reader ended and none is left. */
static size_t ring_poll(struct ring *r, bool *ret_ended)
{
        size_t n;

        pthread_mutex_lock(&r->lock);
        n = r->count < RING_HANDOFF ? r->count : RING_HANDOFF;
        *ret_ended = n == 0 && r->ended;
        pthread_mutex_unlock(&r->lock);
        return n;
}

static struct ring_slot *ring_at(struct ring *r, size_t i)
{
        return ring_slot(r, (r->head + i) % RING_SLOTS);
}

static void ring_done(struct ring *r, size_t n)
{
        size_t i, bytes = 0;

        for (i = 0; i < n; i++) {
                struct ring_slot *slot = ring_at(r, i);

                bytes += slot->held;
                if (slot->e.size > RING_KEEP)
                        ingest_entry_free(&slot->e);
        }
        pthread_mutex_lock(&r->lock);
        r->head = (r->head + n) % RING_SLOTS;
        r->count -= n;
        r->bytes -= bytes;
        if (r->waiting && ring_roomy(r))
                pthread_cond_signal(&r->emptied);
        pthread_mutex_unlock(&r->lock);
}

void ring_quit(struct ring *r)
{
        struct ring *side;

        pthread_mutex_lock(&r->lock);
        r->quit = true;
        pthread_cond_broadcast(&r->emptied);
        side = r->side;
        pthread_mutex_unlock(&r->lock);
        if (side)
                ring_quit(side);
}

struct ring *ring_side(struct ring *r)
{
        struct ring *side;
        bool quit;

        if (r->side || ring_new(&side) < 0)
                return NULL;
        pthread_mutex_lock(&r->lock);
        quit = r->quit;
        if (!quit)
                r->side = side;
        pthread_mutex_unlock(&r->lock);
        if (quit) {
                ring_free(side);
                return NULL;
        }
        /* the writer takes it when it reaches this note; a writer that
         * failed before never does, and ring_quit() stopped it already */
        return ring_note(r, RING_SIDE) ? side : NULL;
}

/* ---- an importer's two threads ---- */

struct ring_job {
        struct ring *ring;
        ring_reader_fn read;
        void *read_data;
        int error;                      /* the reader's result */
        struct tq_error err;
};

static void *ring_reader_main(void *userdata)
{
        struct ring_job *job = userdata;

        job->error = job->read(job->ring, job->read_data, &job->err);
        if (job->error == -ENOMEM)
                tq_error_set(&job->err, -ENOMEM, "out of memory");
        ring_end(job->ring);
        return NULL;
}

int ring_run(ring_reader_fn read, void *read_data, ring_writer_fn write, void *write_data,
             struct tq_error *err)
{
        struct ring_job job = { .read = read, .read_data = read_data };
        const struct timespec nap = { .tv_nsec = RING_SIDE_NAP_MS * 1000000L };
        struct ring *from, *side = NULL;
        struct ring_slot *slot;
        bool draining = false, turn = false, ended;
        pthread_t reader;
        size_t n, m, i;
        int r;

        r = ring_new(&job.ring);
        if (r < 0)
                return tq_error_set(err, r, "out of memory");
        r = -pthread_create(&reader, NULL, ring_reader_main, &job);
        if (r < 0) {
                tq_error_set(err, r, "cannot start a thread: %s", strerror(-r));
                goto out;
        }
        while (r == 0) {
                from = job.ring;
                if (side && draining) {
                        /* the side's slots only, to its end */
                        from = side;
                        n = ring_take(side);
                        if (n == 0) {
                                side = NULL;
                                draining = false;
                                continue;
                        }
                } else if (side) {
                        /* both, in turns, waiting for neither: the two
                         * readers go on at once only while neither ring
                         * is full */
                        n = ring_poll(job.ring, &ended);
                        if (ended) {
                                draining = true;
                                continue;
                        }
                        if (n == 0 || turn) {
                                m = ring_poll(side, &ended);
                                if (m > 0 || n == 0) {
                                        from = side;
                                        n = m;
                                }
                        }
                        turn = from == job.ring;
                        if (n == 0) {
                                nanosleep(&nap, NULL);
                                continue;
                        }
                } else if ((n = ring_take(job.ring)) == 0) {
                        break;
                }
                for (i = 0; i < n && r == 0; i++) {
                        slot = ring_at(from, i);
                        if (slot->kind == RING_SIDE) {
                                side = job.ring->side;  /* set before the note was put */
                                continue;
                        }
                        r = write(slot, write_data, err);
                        if (slot->kind == RING_SIDE_END) {
                                draining = true;
                                i++;
                                break;
                        }
                }
                ring_done(from, i);
        }
        if (r == -ENOMEM)
                tq_error_set(err, r, "out of memory");
        if (r < 0)
                ring_quit(job.ring);    /* the reader may wait for room, or for its input */
        pthread_join(reader, NULL);
        if (r == 0 && job.error < 0) {
                *err = job.err;
                r = job.error;
        }
out:
        ring_free(job.ring);
        return r;
}

int ring_write_entry(struct ring_slot *slot, void *ing, struct tq_error *err)
{
        int r;

        if (slot->kind != RING_ENTRY)
                return 0;
        r = ingest_entry(ing, &slot->e, err);
        tq_progress(slot->aux, ing);
        return r;
}
