/*
 * lib-nomem.c - the library's init and first-event paths when allocations
 * fail: the program must keep running, untraced, and exit cleanly.
 *
 *     lib-nomem WHAT
 *
 * WHAT names what fails, from before tj_init() to the end: "none",
 * "memalign" (posix_memalign: the per-thread rings), "malloc" (malloc,
 * calloc, realloc, strdup: the writer's message buffer, tj_trace_opt's
 * copy), "thread" (pthread_create: the writer thread), or "all".  The
 * failures are real calls failing: the Makefile links this program with
 * -Wl,--wrap for those functions, which redirects the library's references
 * (libtracejournal.a) to the __wrap_ functions below; libc's own allocations
 * are untouched.  The program then traces 100 events from the main thread
 * and 100 from a second thread, flushes and prints
 *     init=R opt=R flush=R
 *     emitted=E written=W dropped=D
 *     failures alive         (or no-failures, when nothing was made to fail)
 * and exits through atexit's
 * tj_shutdown().
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tgroup.h"

static int fail_alloc, fail_memalign, fail_thread;
static unsigned long nfailed;

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
char *__real_strdup(const char *s);
int __real_posix_memalign(void **ret, size_t align, size_t size);
int __real_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);
char *__wrap_strdup(const char *s);
int __wrap_posix_memalign(void **ret, size_t align, size_t size);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);

static int nomem_fail(const int *which)
{
        if (!__atomic_load_n(which, __ATOMIC_RELAXED))
                return 0;
        __atomic_add_fetch(&nfailed, 1, __ATOMIC_RELAXED);
        return 1;
}

void *__wrap_malloc(size_t size)
{
        if (nomem_fail(&fail_alloc)) {
                errno = ENOMEM;
                return NULL;
        }
        return __real_malloc(size);
}

void *__wrap_calloc(size_t n, size_t size)
{
        if (nomem_fail(&fail_alloc)) {
                errno = ENOMEM;
                return NULL;
        }
        return __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t size)
{
        if (nomem_fail(&fail_alloc)) {
                errno = ENOMEM;
                return NULL;
        }
        return __real_realloc(p, size);
}

char *__wrap_strdup(const char *s)
{
        if (nomem_fail(&fail_alloc)) {
                errno = ENOMEM;
                return NULL;
        }
        return __real_strdup(s);
}

int __wrap_posix_memalign(void **ret, size_t align, size_t size)
{
        if (nomem_fail(&fail_memalign))
                return ENOMEM;
        return __real_posix_memalign(ret, align, size);
}

int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg)
{
        if (nomem_fail(&fail_thread))
                return EAGAIN;
        return __real_pthread_create(t, a, fn, arg);
}

static void *nomem_thread(void *arg)
{
        (void)arg;
        for (int i = 0; i < 100; i++)
                trace_tgb_req((void *)(uintptr_t)(0x2000 + i), (uint64_t)i, "thread");
        return NULL;
}

int main(int argc, char **argv)
{
        struct tj_stats st;
        pthread_t t;
        const char *what = argc > 1 ? argv[1] : "none";
        int ri, ro, rf;

        if (strcmp(what, "malloc") == 0 || strcmp(what, "all") == 0)
                fail_alloc = 1;
        if (strcmp(what, "memalign") == 0 || strcmp(what, "all") == 0)
                fail_memalign = 1;
        if (strcmp(what, "thread") == 0 || strcmp(what, "all") == 0)
                fail_thread = 1;
        ri = tj_init("nomem");
        ro = tj_trace_opt("enable=tgb_req");
        for (int i = 0; i < 100; i++)
                trace_tgb_req((void *)(uintptr_t)(0x1000 + i), (uint64_t)i, "main");
        /* The test's own thread is created with the real function. */
        if (__real_pthread_create(&t, NULL, nomem_thread, NULL) == 0)
                pthread_join(t, NULL);
        rf = tj_flush();
        printf("init=%d opt=%d flush=%d\n", ri, ro, rf);
        if (tj_get_stats(&st) == 0)
                printf("emitted=%llu written=%llu dropped=%llu\n",
                       (unsigned long long)st.emitted, (unsigned long long)st.written,
                       (unsigned long long)st.dropped);
        printf("%s alive\n", __atomic_load_n(&nfailed, __ATOMIC_RELAXED) ? "failures" : "no-failures");
        return 0;
}
