/*
 * lib-sigsafe.c - which functions that are not async-signal-safe the
 * library calls when a trace point fires in a signal handler.
 *
 *     lib-sigsafe
 *
 * The outputs come from TJ_OUTPUT as usual.  The program traces one
 * tgb_req (its thread's ring exists then), then raises SIGUSR1, whose
 * handler traces one tga_all and one tgb_req, flushes and prints
 *     in-handler malloc=M free=F snprintf=S vsnprintf=V
 * the calls the library made from the handler.  The Makefile links this
 * program with -Wl,--wrap for those functions, which redirects the
 * library's references (libtracejournal.a) to the __wrap_ functions below;
 * a call counts when the calling thread is in the handler.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tgroup.h"

static __thread int in_handler;
static unsigned long n_malloc, n_free, n_snprintf, n_vsnprintf;

void *__real_malloc(size_t size);
void __real_free(void *p);
int __real_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
void *__wrap_malloc(size_t size);
void __wrap_free(void *p);
int __wrap_snprintf(char *buf, size_t size, const char *fmt, ...);
int __wrap_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);

static void count(unsigned long *n)
{
        if (in_handler)
                __atomic_add_fetch(n, 1, __ATOMIC_RELAXED);
}

void *__wrap_malloc(size_t size)
{
        count(&n_malloc);
        return __real_malloc(size);
}

void __wrap_free(void *p)
{
        count(&n_free);
        __real_free(p);
}

int __wrap_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
        count(&n_vsnprintf);
        return __real_vsnprintf(buf, size, fmt, ap);
}

int __wrap_snprintf(char *buf, size_t size, const char *fmt, ...)
{
        va_list ap;
        int n;

        count(&n_snprintf);
        va_start(ap, fmt);
        n = __real_vsnprintf(buf, size, fmt, ap);
        va_end(ap);
        return n;
}

static void on_usr1(int sig)
{
        (void)sig;
        in_handler = 1;
        trace_tga_all(INT64_MIN, UINT64_MAX, (void *)(uintptr_t)0xbeef, "a\"b\n", -7, 200);
        trace_tgb_req((void *)(uintptr_t)0x2000, 9, "h");
        in_handler = 0;
}

int main(void)
{
        struct sigaction sa = { .sa_handler = on_usr1 };

        tj_init(NULL);
        trace_tgb_req((void *)(uintptr_t)0x1000, 0, "r0");
        sigaction(SIGUSR1, &sa, NULL);
        raise(SIGUSR1);
        tj_flush();
        printf("in-handler malloc=%lu free=%lu snprintf=%lu vsnprintf=%lu\n",
               n_malloc, n_free, n_snprintf, n_vsnprintf);
        return 0;
}
