/*
 * bench.c - the figures of 'make bench' (bench/run prints them as one table).
 *
 *   tjbench disabled N            ns per disabled trace point (and an empty loop)
 *   tjbench callgrind N           the disabled loop alone, for callgrind
 *   tjbench enabled N [THREADS]   p50/p99 ns in the caller, with the TJ_* setup
 *                                 of the environment (TJ_OUTPUT, TJ_SYNC); with
 *                                 THREADS, each thread measures its own calls
 *                                 (median of their p50, worst of their p99)
 *   tjbench sd_journal_send N     the same fields through sd_journal_send()
 *   tjbench syslog N              the same text through glibc syslog()
 *   tjbench sustained N THREADS   events/s stored by journald through the
 *                                 library (TJ_ON_FULL=block), in rounds
 *                                 alternating with a bare sd_journal_sendv()
 *                                 loop sending the same fields
 *   tjbench memory THREADS        RSS a thread costs, and what tracing adds
 *
 * Each mode runs ROUNDS rounds and prints the median of each figure, as
 * "key value" lines.  Per-call times are clock_gettime() pairs around one
 * call minus the median cost of an empty pair.  Enabled calls go in bursts
 * of BURST with a tj_flush() between (not timed), so the ring never fills and
 * what is measured is the caller's cost, not the drop path.  Sustained rates
 * (the library and the bare sendv loop alike) count until a marker entry sent
 * after the last event is readable in the journal, so both include the time
 * journald needs to store what was queued: journald is the ceiling.
 */
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <systemd/sd-journal.h>

#include "tgroup.h"

#define ROUNDS  5
#define BURST   100

static int64_t now_ns(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp_i64(const void *a, const void *b)
{
        int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

        return (x > y) - (x < y);
}

static int64_t pct(int64_t *v, size_t n, double p)
{
        qsort(v, n, sizeof(v[0]), cmp_i64);
        return v[(size_t)(p * (double)(n - 1))];
}

static double median_d(double *v, int n)
{
        for (int i = 0; i < n; i++)
                for (int j = i + 1; j < n; j++)
                        if (v[j] < v[i]) {
                                double t = v[i];

                                v[i] = v[j];
                                v[j] = t;
                        }
        return v[n / 2];
}

static void *xmalloc(size_t n)
{
        void *p = malloc(n);

        if (!p) {
                fprintf(stderr, "tjbench: out of memory\n");
                exit(1);
        }
        return p;
}

/* ---- disabled ---------------------------------------------------------- */

/* Both loops start on a 64-byte boundary: where the linker happened to put
 * them moved the disabled loop's compare-and-branch across a cache line, and
 * the figure with it (0.6 against 0.3 ns for the same instructions). */
__attribute__((noinline, aligned(64))) void bench_empty_loop(long n);
__attribute__((noinline, aligned(64))) void bench_empty_loop(long n)
{
        for (long i = 0; i < n; i++)
                __asm__ volatile("" ::: "memory");
}

__attribute__((noinline, aligned(64))) void bench_disabled_loop(long n);
__attribute__((noinline, aligned(64))) void bench_disabled_loop(long n)
{
        for (long i = 0; i < n; i++) {
                __asm__ volatile("" ::: "memory");     /* reload dstate each time */
                trace_tgb_req((void *)i, (uint64_t)i, "x");
        }
}

static void mode_disabled(long n)
{
        double dis[ROUNDS], emp[ROUNDS];

        for (int r = 0; r < ROUNDS; r++) {
                int64_t t0 = now_ns();

                bench_empty_loop(n);
                int64_t t1 = now_ns();
                bench_disabled_loop(n);
                int64_t t2 = now_ns();
                emp[r] = (double)(t1 - t0) / (double)n;
                dis[r] = (double)(t2 - t1) / (double)n;
        }
        printf("disabled_ns %.3f\nempty_loop_ns %.3f\n", median_d(dis, ROUNDS),
               median_d(emp, ROUNDS));
}

/* ---- per-call latency --------------------------------------------------- */

static int64_t pair_cost(void)
{
        int64_t v[1000];

        for (int i = 0; i < 1000; i++) {
                int64_t a = now_ns();

                v[i] = now_ns() - a;
        }
        return pct(v, 1000, 0.5);
}

enum call { CALL_TRACE, CALL_SDJ, CALL_SYSLOG };

static void one_call(enum call c, long i)
{
        char msg[256];
        struct timespec rt, mono;

        switch (c) {
        case CALL_TRACE:
                trace_tgb_req((void *)(0x1000 + i), (uint64_t)i, "disk0");
                break;
        case CALL_SDJ:
                /* What the library sends, built and sent in the caller. */
                clock_gettime(CLOCK_REALTIME, &rt);
                clock_gettime(CLOCK_MONOTONIC, &mono);
                snprintf(msg, sizeof(msg), "tgb_req req %p sector %ld name %s",
                         (void *)(0x1000 + i), i, "disk0");
                sd_journal_send("MESSAGE=%s", msg, "PRIORITY=6", "SYSLOG_FACILITY=3",
                                "SYSLOG_IDENTIFIER=tjbench", "TRACE_EVENT=tgb_req",
                                "TRACE_GROUP=tgb", "TRACE_SEQ=%ld", i,
                                "TRACE_TIME_NS=%lld", (long long)rt.tv_sec * 1000000000 + rt.tv_nsec,
                                "TRACE_MONO_NS=%lld", (long long)mono.tv_sec * 1000000000 + mono.tv_nsec,
                                "TID=%d", (int)syscall(SYS_gettid),
                                "CODE_FILE=bench/bench.c", "CODE_LINE=%d", __LINE__,
                                "CODE_FUNC=%s", __func__,
                                "TRACE_ARGS=req:p sector:u name:s",
                                "TRACE_ARG_REQ=%p", (void *)(0x1000 + i),
                                "TRACE_ARG_SECTOR=%ld", i, "TRACE_ARG_NAME=%s", "disk0", NULL);
                break;
        case CALL_SYSLOG:
                syslog(LOG_INFO, "tgb_req req %p sector %ld name %s", (void *)(0x1000 + i), i,
                       "disk0");
                break;
        }
}

struct lat {
        enum call c;
        long n;
        int64_t pc;
        double p50, p99;
};

static void *latency_thread(void *arg)
{
        struct lat *l = arg;
        double p50[ROUNDS], p99[ROUNDS];
        int64_t *v = xmalloc(sizeof(int64_t) * (size_t)l->n);

        for (int r = 0; r < ROUNDS; r++) {
                for (long i = 0; i < l->n; i++) {
                        int64_t a = now_ns();

                        one_call(l->c, i);
                        v[i] = now_ns() - a - l->pc;
                        if (l->c == CALL_TRACE && i % BURST == BURST - 1)
                                tj_flush();
                }
                p50[r] = (double)pct(v, (size_t)l->n, 0.50);
                p99[r] = (double)pct(v, (size_t)l->n, 0.99);
        }
        l->p50 = median_d(p50, ROUNDS);
        l->p99 = median_d(p99, ROUNDS);
        free(v);
        return NULL;
}

static void mode_latency(enum call c, long n, int threads)
{
        struct lat l[16];
        pthread_t th[16];
        double p50[16], worst = 0;
        int64_t pc;
        struct tj_stats st;

        if (c == CALL_TRACE) {
                tj_init("tjbench");
                tj_enable("tgb_req");
        } else if (c == CALL_SYSLOG)
                openlog("tjbench", LOG_PID, LOG_DAEMON);
        if (threads < 1 || threads > 16)
                threads = 1;
        pc = pair_cost();
        for (int i = 0; i < threads; i++) {
                l[i] = (struct lat){ .c = c, .n = n, .pc = pc };
                pthread_create(&th[i], NULL, latency_thread, &l[i]);
        }
        for (int i = 0; i < threads; i++) {
                pthread_join(th[i], NULL);
                p50[i] = l[i].p50;
                if (l[i].p99 > worst)
                        worst = l[i].p99;
        }
        printf("p50_ns %.0f\np99_ns %.0f\n", median_d(p50, threads), worst);
        if (c == CALL_TRACE) {
                tj_flush();
                tj_get_stats(&st);
                printf("dropped %" PRIu64 "\n", st.dropped);
        }
}

/* ---- sustained ---------------------------------------------------------- */

/*
 * Send a marker entry after everything sent so far (journald reads one queue
 * in order) and wait until it can be read back: all before it is stored.
 */
static void wait_stored(void)
{
        static int k;
        char mark[64];
        sd_journal *j;

        snprintf(mark, sizeof(mark), "TJBENCH_MARK=%d-%d", (int)getpid(), k++);
        sd_journal_send("MESSAGE=tjbench marker", "%s", mark, NULL);
        if (sd_journal_open(&j, SD_JOURNAL_LOCAL_ONLY) < 0)
                return;
        sd_journal_add_match(j, mark, 0);
        sd_journal_seek_head(j);
        for (int tries = 0; tries < 600; tries++) {
                if (sd_journal_next(j) > 0)
                        break;
                sd_journal_wait(j, 100000);
        }
        sd_journal_close(j);
}

struct worker {
        long n;
        pthread_barrier_t *go;
        int64_t p50, p99;
};

static void *sustained_thread(void *arg)
{
        struct worker *w = arg;

        pthread_barrier_wait(w->go);
        for (long i = 0; i < w->n; i++)
                trace_tgb_req((void *)(0x1000 + i), (uint64_t)i, "disk0");
        return NULL;
}

/* One round of a bare sd_journal_sendv() loop with the library's fields. */
static double sendv_round(long n)
{
        char seq[32], msg[128], tm[48], mo[48], tid[32], req[48], sec[48];
        struct iovec iov[19] = {
                { NULL, 0 },
                { (char *)"PRIORITY=6", 10 }, { (char *)"SYSLOG_FACILITY=3", 17 },
                { (char *)"SYSLOG_IDENTIFIER=tjbench", 25 },
                { (char *)"TRACE_EVENT=tgb_req", 19 }, { (char *)"TRACE_GROUP=tgb", 15 },
                { NULL, 0 },
                { (char *)"TRACE_TIME_NS=1795282043640547281", 33 },
                { (char *)"TRACE_MONO_NS=2431717057968", 27 },
                { (char *)"TID=12345", 9 },
                { (char *)"CODE_FILE=bench/bench.c", 23 }, { (char *)"CODE_LINE=42", 12 },
                { (char *)"CODE_FUNC=sustained_thread", 26 },
                { (char *)"TRACE_ARGS=req:p sector:u name:s", 32 },
                { (char *)"TRACE_ARG_REQ=0x1000", 20 }, { (char *)"TRACE_ARG_SECTOR=0", 18 },
                { (char *)"TRACE_ARG_NAME=disk0", 20 },
        };
        int64_t t0 = now_ns();

        /* The same values the library sends: nothing journald can share. */
        for (long i = 0; i < n; i++) {
                struct timespec rt, mono;

                clock_gettime(CLOCK_REALTIME, &rt);
                clock_gettime(CLOCK_MONOTONIC, &mono);
                iov[0].iov_base = msg;
                iov[0].iov_len = (size_t)snprintf(msg, sizeof(msg),
                        "MESSAGE=tgb_req req 0x%lx sector %ld name disk0", 0x1000 + i, i);
                iov[6].iov_base = seq;
                iov[6].iov_len = (size_t)snprintf(seq, sizeof(seq), "TRACE_SEQ=%ld", i);
                iov[7].iov_base = tm;
                iov[7].iov_len = (size_t)snprintf(tm, sizeof(tm), "TRACE_TIME_NS=%lld",
                        (long long)rt.tv_sec * 1000000000 + rt.tv_nsec);
                iov[8].iov_base = mo;
                iov[8].iov_len = (size_t)snprintf(mo, sizeof(mo), "TRACE_MONO_NS=%lld",
                        (long long)mono.tv_sec * 1000000000 + mono.tv_nsec);
                iov[9].iov_base = tid;
                iov[9].iov_len = (size_t)snprintf(tid, sizeof(tid), "TID=%d",
                                                  (int)syscall(SYS_gettid));
                iov[14].iov_base = req;
                iov[14].iov_len = (size_t)snprintf(req, sizeof(req), "TRACE_ARG_REQ=0x%lx",
                                                   0x1000 + i);
                iov[15].iov_base = sec;
                iov[15].iov_len = (size_t)snprintf(sec, sizeof(sec), "TRACE_ARG_SECTOR=%ld", i);
                sd_journal_sendv(iov, 17);
        }
        wait_stored();
        return (double)n * 1e9 / (double)(now_ns() - t0);
}

/* One round of N events through the library from THREADS threads. */
static double sustained_round(long n, int threads)
{
        pthread_t th[16];
        struct worker w[16];
        pthread_barrier_t go;
        int64_t t0;

        pthread_barrier_init(&go, NULL, (unsigned)threads + 1);
        for (int i = 0; i < threads; i++) {
                w[i] = (struct worker){ .n = n / threads, .go = &go };
                pthread_create(&th[i], NULL, sustained_thread, &w[i]);
        }
        pthread_barrier_wait(&go);
        t0 = now_ns();
        for (int i = 0; i < threads; i++)
                pthread_join(th[i], NULL);
        while (tj_flush() != 0)
                ;
        wait_stored();
        pthread_barrier_destroy(&go);
        return (double)n * 1e9 / (double)(now_ns() - t0);
}

/*
 * Rounds alternate between the bare sendv loop and the library, so both see
 * the same journald (whose speed drifts as its files grow).
 */
static void mode_sustained(long n, int threads)
{
        double lib[ROUNDS], raw[ROUNDS], ratio[ROUNDS];

        tj_init("tjbench");
        tj_enable("tgb_req");
        if (threads < 1 || threads > 16)
                threads = 1;
        wait_stored();          /* start with journald idle */
        for (int r = 0; r < ROUNDS; r++) {
                raw[r] = sendv_round(n);
                lib[r] = sustained_round(n, threads);
                ratio[r] = lib[r] / raw[r];
        }
        printf("events_per_s %.0f\nsendv_events_per_s %.0f\nratio %.2f\n",
               median_d(lib, ROUNDS), median_d(raw, ROUNDS), median_d(ratio, ROUNDS));
}

/* ---- memory -------------------------------------------------------------- */

static pthread_barrier_t mem_filled, mem_done;

static long rss_bytes(void)
{
        long pages = 0, rss = 0;
        FILE *f = fopen("/proc/self/statm", "r");

        if (f) {
                if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
                        rss = 0;
                fclose(f);
        }
        return rss * sysconf(_SC_PAGESIZE);
}

static void *mem_thread(void *arg)
{
        (void)arg;
        /* Enough events to wrap the ring once: every page of it touched. */
        for (long i = 0; i < 4000; i++) {
                trace_tgb_req((void *)(0x1000 + i), (uint64_t)i, "disk0");
                if (i % 200 == 199)
                        tj_flush();
        }
        pthread_barrier_wait(&mem_filled);
        pthread_barrier_wait(&mem_done);
        return NULL;
}

static void *idle_thread(void *arg)
{
        (void)arg;
        pthread_barrier_wait(&mem_filled);
        pthread_barrier_wait(&mem_done);
        return NULL;
}

/* RSS of THREADS threads that traced, minus THREADS threads that did not. */
static long mem_round(int threads, void *(*fn)(void *))
{
        pthread_t th[64];
        long before, after;

        pthread_barrier_init(&mem_filled, NULL, (unsigned)threads + 1);
        pthread_barrier_init(&mem_done, NULL, (unsigned)threads + 1);
        before = rss_bytes();
        for (int i = 0; i < threads; i++)
                pthread_create(&th[i], NULL, fn, NULL);
        pthread_barrier_wait(&mem_filled);
        after = rss_bytes();
        pthread_barrier_wait(&mem_done);
        for (int i = 0; i < threads; i++)
                pthread_join(th[i], NULL);
        tj_flush();
        pthread_barrier_destroy(&mem_filled);
        pthread_barrier_destroy(&mem_done);
        return after - before;
}

/*
 * One round only, in a fresh process: freed rings are reused by malloc, so a
 * second round would not show them.  Idle threads first, which also leaves
 * their stacks cached for the traced ones: the second figure is what tracing
 * adds to a thread.
 */
static void mode_memory(int threads)
{
        double traced, idle;

        tj_init("tjbench");
        tj_enable("tgb_req");
        if (threads > 64)
                threads = 64;
        idle = (double)mem_round(threads, idle_thread) / threads;
        traced = (double)mem_round(threads, mem_thread) / threads;
        printf("rss_per_traced_thread %.0f\nrss_per_idle_thread %.0f\n", traced, idle);
}

int main(int argc, char **argv)
{
        long n = argc > 2 ? atol(argv[2]) : 1000;

        if (argc < 2) {
                fprintf(stderr, "usage: tjbench MODE [N] [THREADS]\n");
                return 2;
        }
        if (strcmp(argv[1], "disabled") == 0)
                mode_disabled(n);
        else if (strcmp(argv[1], "callgrind") == 0) {
                bench_empty_loop(n);
                bench_disabled_loop(n);
        } else if (strcmp(argv[1], "enabled") == 0)
                mode_latency(CALL_TRACE, n, argc > 3 ? atoi(argv[3]) : 1);
        else if (strcmp(argv[1], "sd_journal_send") == 0)
                mode_latency(CALL_SDJ, n, 1);
        else if (strcmp(argv[1], "syslog") == 0)
                mode_latency(CALL_SYSLOG, n, 1);
        else if (strcmp(argv[1], "sustained") == 0)
                mode_sustained(n, argc > 3 ? atoi(argv[3]) : 1);
        else if (strcmp(argv[1], "memory") == 0)
                mode_memory((int)n);
        else {
                fprintf(stderr, "tjbench: unknown mode '%s'\n", argv[1]);
                return 2;
        }
        return 0;
}
