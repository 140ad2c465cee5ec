/*
 * backends.c - the cost of tracegen's dtrace and ust backends, for the rows
 * bench/backends.sh adds to the 'make bench' table beside the library's own.
 *
 *   tjbackends disabled N        ns per disabled trace point: USDT probe
 *                                (semaphore down), LTTng-UST tracepoint (no
 *                                session), and an empty loop
 *   tjbackends enabled-dtrace N  ns per call with a tracer on the USDT probe
 *   tjbackends enabled-ust N     ns per call with an LTTng session on it
 *
 * bench/backends.sh builds it from bench/backends.events generated twice,
 * group bdt with --backend=dtrace and group bust with --backend=ust, and runs
 * the enabled modes under bpftrace and an LTTng session.  Each figure is the
 * median of ROUNDS rounds of N calls, printed as "key value" lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bdt.h"
#include "bust.h"

#define ROUNDS 5

static int64_t now_ns(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
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

__attribute__((noinline)) void backends_empty_loop(long n);
__attribute__((noinline)) void backends_empty_loop(long n)
{
        for (long i = 0; i < n; i++)
                __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void backends_dtrace_loop(long n);
__attribute__((noinline)) void backends_dtrace_loop(long n)
{
        for (long i = 0; i < n; i++) {
                __asm__ volatile("" ::: "memory");     /* reload the semaphore */
                trace_bench_req_dt((void *)i, (uint64_t)i, "x");
        }
}

__attribute__((noinline)) void backends_ust_loop(long n);
__attribute__((noinline)) void backends_ust_loop(long n)
{
        for (long i = 0; i < n; i++) {
                __asm__ volatile("" ::: "memory");
                trace_bench_req_ust((void *)i, (uint64_t)i, "x");
        }
}

/* Median ns per call of LOOP over N calls. */
static double backends_time(void (*loop)(long), long n)
{
        double v[ROUNDS];

        for (int r = 0; r < ROUNDS; r++) {
                int64_t t0 = now_ns();

                loop(n);
                v[r] = (double)(now_ns() - t0) / (double)n;
        }
        return median_d(v, ROUNDS);
}

int main(int argc, char **argv)
{
        long n = argc > 2 ? atol(argv[2]) : 0;

        if (argc < 3 || n <= 0) {
                fputs("usage: tjbackends disabled|enabled-dtrace|enabled-ust N\n", stderr);
                return 2;
        }
        if (strcmp(argv[1], "disabled") == 0) {
                printf("empty_loop_ns %.3f\n", backends_time(backends_empty_loop, n));
                printf("dtrace_disabled_ns %.3f\n", backends_time(backends_dtrace_loop, n));
                printf("ust_disabled_ns %.3f\n", backends_time(backends_ust_loop, n));
        } else if (strcmp(argv[1], "enabled-dtrace") == 0) {
                printf("dtrace_enabled_ns %.1f\n", backends_time(backends_dtrace_loop, n));
        } else if (strcmp(argv[1], "enabled-ust") == 0) {
                printf("ust_enabled_ns %.1f\n", backends_time(backends_ust_loop, n));
        } else {
                fprintf(stderr, "tjbackends: unknown mode '%s'\n", argv[1]);
                return 2;
        }
        return 0;
}
