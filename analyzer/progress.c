/*
 * progress.c - the import progress bar on a terminal's stderr.
 *
 * One import runs at a time in a traceql process, so the bar is a single
 * state here, not a field of each importer.  traceql.c turns it on when
 * stderr is a terminal (and the import ends: not with --follow); an importer
 * says how much there is to read (tq_progress_begin()), its writer says how
 * far it got after each entry (tq_progress()), and ingest_end() takes the bar
 * away.  Only a long import shows it: the first drawing waits
 * TQ_PROGRESS_DELAY_MS from the start, so a query's sync that finds a few
 * entries does not flash a bar before its table.  Then it is drawn again at
 * most every TQ_PROGRESS_EVERY_MS, the clock read every TQ_PROGRESS_CHECK
 * entries.
 *
 * A message printed while the bar is up (tq_message(), from either thread of
 * an import) first clears its line, so the two never share one; the next
 * drawing puts the bar back below the message.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "traceql.h"

#define TQ_PROGRESS_DELAY_MS 500
#define TQ_PROGRESS_EVERY_MS 100
#define TQ_PROGRESS_CHECK 64            /* entries between two readings of the clock */
#define TQ_PROGRESS_WIDTH 30

static struct {
        bool on;                        /* tq_progress_enable(): stderr is a terminal */
        bool running;                   /* between tq_progress_begin() and _end() */
        uint64_t from, to;              /* what there is to read; to <= from: unknown */
        uint64_t calls;                 /* tq_progress() calls since the last check */
        int64_t next_ms;                /* when to draw next */
        int64_t delay_ms;
        pthread_mutex_t lock;           /* drawn, and stderr while it is set */
        bool drawn;                     /* the bar is on the line */
        char label[64];                 /* tq_progress_label(), with a blank before it */
} progress = { .lock = PTHREAD_MUTEX_INITIALIZER, .delay_ms = TQ_PROGRESS_DELAY_MS };

static int64_t tq_progress_now_ms(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void tq_progress_enable(bool on)
{
        const char *s = getenv("TRACEQL_TEST_PROGRESS_DELAY_MS");
        char *end;
        long v;

        progress.on = on;
        if (s && *s) {
                v = strtol(s, &end, 10);
                if (!*end && v >= 0)
                        progress.delay_ms = v;
        }
}

void tq_progress_range(uint64_t from, uint64_t to)
{
        progress.from = from;
        progress.to = to;
}

void tq_progress_label(const char *label)
{
        pthread_mutex_lock(&progress.lock);
        snprintf(progress.label, sizeof(progress.label), "%s%s", label && *label ? " " : "",
                 label ? label : "");
        pthread_mutex_unlock(&progress.lock);
}

bool tq_progress_begin(uint64_t from, uint64_t to)
{
        if (!progress.on)
                return false;
        progress.running = true;
        tq_progress_range(from, to);
        progress.calls = 0;
        progress.next_ms = tq_progress_now_ms() + progress.delay_ms;
        return true;
}

/* "importing [####      ]  42% 12345 new events" at AT of the range, or
 * without one "importing 12345 new events", the label after "importing". */
static void tq_progress_draw(uint64_t at, uint64_t added)
{
        static const char bar[] = "##############################";
        uint64_t done = at > progress.from ? at - progress.from : 0;
        uint64_t total = progress.to - progress.from, pct;
        int width;

        pthread_mutex_lock(&progress.lock);
        if (progress.to > progress.from) {
                pct = done >= total ? 100 : done > UINT64_MAX / 100 ?
                      done / (total / 100) : done * 100 / total;
                width = (int) (pct * TQ_PROGRESS_WIDTH / 100);
                fprintf(stderr, "\r\033[Ktraceql: importing%s [%-*.*s] %3d%% %" PRIu64
                        " new events", progress.label, TQ_PROGRESS_WIDTH, width, bar, (int) pct,
                        added);
        } else
                fprintf(stderr, "\r\033[Ktraceql: importing%s %" PRIu64 " new events",
                        progress.label, added);
        fflush(stderr);
        progress.drawn = true;
        pthread_mutex_unlock(&progress.lock);
}

void tq_progress(uint64_t at, const struct ingest *ing)
{
        int64_t now;

        if (!progress.running || ++progress.calls < TQ_PROGRESS_CHECK)
                return;
        progress.calls = 0;
        now = tq_progress_now_ms();
        if (now < progress.next_ms)
                return;
        progress.next_ms = now + TQ_PROGRESS_EVERY_MS;
        tq_progress_draw(at, ingest_added(ing));
}

/* Take the bar off its line, then print LINE (NULL: nothing). */
void tq_progress_say(const char *line)
{
        if (!progress.on) {
                if (line)
                        fputs(line, stderr);
                return;
        }
        pthread_mutex_lock(&progress.lock);
        if (progress.drawn) {
                fputs("\r\033[K", stderr);
                progress.drawn = false;
        }
        if (line)
                fputs(line, stderr);
        fflush(stderr);
        pthread_mutex_unlock(&progress.lock);
}

void tq_progress_end(void)
{
        progress.running = false;
        tq_progress_say(NULL);
}
