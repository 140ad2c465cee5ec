/*
 * lib-emit.c - a scriptable traced program for the library's shell tests.
 *
 * Each argument is one step, run in order:
 *   init[:IDENT]        tj_init(IDENT or NULL); prints "init=R" when R != 0
 *   enable:PAT          tj_enable(PAT), prints "enable PAT=R"
 *   list:PAT            tj_enable_list(PAT), prints "list PAT=R"
 *   file:PATH           tj_enable_file(PATH), prints "file PATH=R line=L"
 *   opt:STRING          tj_trace_opt(STRING), prints "opt STRING=R"
 *   outputs:LIST        tj_set_outputs(LIST), prints "outputs LIST=R"
 *   events[:PAT]        tj_event_foreach(PAT): "NAME GROUP enabled=E compiled_in=C"
 *   all                 the extreme-value tga_all events (see below)
 *   void                one tga_void and one tga_off
 *   req:N               N tgb_req events (req 0x1000+i, sector i, name "rI")
 *   threads:T:N         T threads at once, each doing req:N
 *   texit:N             a thread does req:N and exits; then wait for it
 *   park:T              T threads (at most 64) each do req:1 and wait;
 *                       returns once they all traced
 *   unpark              the parked threads exit; then wait for them
 *   keyexit:K[:R]       K times: a thread does req:1 and exits; a pthread key
 *                       of its own, made after the library's (run req:1
 *                       first), has a destructor that does req:1 and sets
 *                       the key again, in R rounds of the destructors, each
 *                       after the library's (default and at most
 *                       PTHREAD_DESTRUCTOR_ITERATIONS, all); then wait for it
 *   fork:N              fork; the child does req:N and exits; wait for it
 *   forkdo:STEPS        fork; the child runs STEPS (steps joined by '+') and
 *                       exits (the atexit flush, no tj_flush()); wait for it
 *   forkflush:N         fork; the child does req:N, then tj_flush() until it
 *                       succeeds (however long its writer is held up), and
 *                       exits; wait for it
 *   ctlstats            serve the control endpoint (tj_control_start), print
 *                       its reply to "stats" but the rings and control lines
 *   ctlstart            tj_control_start(), prints "ctlstart=R" when R != 0
 *   ctl:REQUEST         serve the control endpoint (tj_control_start) and
 *                       print "ctl REQUEST=R", its reply to REQUEST ('\n'
 *                       as '|'); it keeps serving
 *   ctlpath             prints "ctlpath=R", what tj_control_path() returns
 *                       (-107, -ENOTCONN: not serving)
 *   chdir:DIR           chdir(DIR), prints "chdir DIR=-ERRNO" when it fails
 *   waitfor:PATH        wait until PATH exists (up to 10 s); prints
 *                       "waitfor PATH=none" when it does not
 *   forkctl:N           fork; the child does req:N, tj_flush() and ctlstats,
 *                       and exits; wait for it
 *   forkbusy:T:N:K      T threads each doing req:N and, while they trace, K
 *                       forks whose children do req:10 and exit; prints
 *                       "children=K exited=E" (E: children that exited 0)
 *   flush               tj_flush(), prints "flush=R" when R != 0
 *   bgoutputs:LIST      a thread calls tj_set_outputs(LIST) (which may wait,
 *                       e.g. opening a FIFO as TJ_FTRACE_MARKER); bgjoin
 *                       waits for it and prints "bgoutputs LIST=R"
 *   bgsignal            SIGUSR2 to the bgoutputs thread, whose handler traces
 *                       tgn_nest (see nest); prints "bgsignal=stuck" and
 *                       exits 1 when the handler has not returned within 10 s
 *   nest                register group "tgn" with tgn_nest(void), whose
 *                       render function traces tgn_nest again: a trace point
 *                       nested in one (dropped and counted) whenever the log
 *                       output renders it
 *   fifo:PATH           open PATH for reading, without waiting, and keep it
 *                       open: a FIFO's writer's open() goes on
 *   fifowait            wait until a thread of the process waits in open()
 *                       for a FIFO's other end (its /proc wchan); prints
 *                       "fifowait=none" when none does within 10 s, or
 *                       where the kernel does not tell
 *   wchan:NAME          wait until a thread of the process sleeps in a
 *                       kernel function whose name holds NAME (its /proc
 *                       wchan, e.g. "futex": a mutex, "pipe_write": a full
 *                       pipe's writer, "anon_pipe_write" on newer kernels);
 *                       prints "wchan NAME=none" as fifowait does
 *   hold                register group "tgs" (see stopflush) and trace
 *                       tgs_chain, whose render function, run by the writer
 *                       under its lock, waits until release: returns once
 *                       the writer holds its lock
 *   release             let that render function return
 *   naps[:main]         prints "naps=N": the library's nanosleep() calls
 *                       (its waits that poll) by threads other than the
 *                       main one, with :main by the main one, since the
 *                       last naps step (or the fork, in forkdo's child)
 *   sleep:MS            sleep MS milliseconds
 *   fsize:N             files may grow to N bytes (setrlimit RLIMIT_FSIZE, the
 *                       soft limit; 0: as far as the hard limit lets them);
 *                       SIGXFSZ ignored, so a write past it fails with EFBIG
 *   stats               prints "emitted=E written=W dropped=D"
 *   shutdown            tj_shutdown()
 *   shutbusy:K          a thread traces tgb_req without pause while this one
 *                       calls tj_shutdown() then tj_init() K times; then the
 *                       thread stops and is joined
 *   shutnew:K           as shutbusy:K, but the thread traces from a new
 *                       thread each time (its first event makes its ring)
 *   shutflush:K         as shutbusy:K, but the thread calls tj_flush() after
 *                       each event
 *   stopflush           register group "tgs" with tgs_chain(void), whose render
 *                       function (run by the writer, under its lock) traces
 *                       tgs_chain again, so that every pass of the writer
 *                       takes one, and has one of two threads, in turn, ask
 *                       for a flush, returning once that thread waits in
 *                       tj_flush(); then tj_shutdown(): the writer's last
 *                       pass began before the flush it saw asked.  Waits for
 *                       the two threads; prints "stopflush flush=R" for each
 *                       tj_flush() that returned R != 0
 *   ctlstop:REQUEST     as stopflush, but each pass has a thread send
 *                       REQUEST (e.g. "flush") to the control endpoint on
 *                       a new connection and waits until the endpoint read
 *                       it; that thread starts the endpoint again once
 *                       tj_shutdown() stopped it, so the last REQUEST
 *                       reaches an endpoint serving while the writer
 *                       leaves.  Prints "ctlstop reply=R", the reply to
 *                       the last REQUEST, newlines as '|'
 *   setenv:NAME=VALUE   setenv(NAME, VALUE), for a later init
 *   unsetenv:NAME       unsetenv(NAME)
 *   tasks               prints "tasks=N", the process's threads
 *   exit                exit(0) at once (atexit flush)
 *   atexitstats         register an atexit handler that prints the stats
 *                       (as stats): before init, it runs after the library's
 *   atexit:N            register an atexit handler that does req:N: before
 *                       init, it traces once the library's flush is done
 *   atexitfd:PATH       register an atexit handler that prints "fd PATH=open"
 *                       when a descriptor of the process refers to PATH, else
 *                       "fd PATH=closed": before init, it runs after the
 *                       library's (were the outputs closed?)
 *   fds                 prints "fds 0=K 1=K 2=K n=N": what descriptors 0, 1
 *                       and 2 are (closed, file, socket, pipe or anon_inode:
 *                       an eventfd), and N the descriptors open
 *   bgtrace             a thread traces tgb_req without pause, never stopped
 *   bgreq:N             a thread does req:N; fifodrain waits for it,
 *                       reading what the FIFO of fifo: holds meanwhile
 *   cancel:K            K times: a thread traces tgb_req without pause, with
 *                       a pthread_testcancel() after each event, and is
 *                       cancelled (pthread_cancel) 2 ms after it started,
 *                       then joined; prints "cancel=stuck" and exits 1 when
 *                       a join has not returned within 10 s
 *   signal:N            N times: SIGUSR1 to itself while tracing req:10; the
 *                       handler traces tga_void (trace points in a handler)
 *   alarm:US            a SIGALRM every US microseconds from now on, to a
 *                       handler installed without SA_RESTART that does
 *                       nothing: a system call blocked when one comes fails
 *                       with EINTR
 *   long:N              one tga_all whose string is N bytes of 'y'
 *   str:HEX             one tga_all(1, 2, 0x3, S, 4, 5), S the bytes HEX spells
 *                       (a 00 ends S there, as any C string)
 *   two                 register group "tgc" with tgc_two(a, b), two strings
 *   twolong:N           tgc_two with two N-byte strings: the second is cut
 *   wide                register group "tgw" with tgw_wide(w, s) "%*s"
 *   wide:N              tgw_wide(N, "w"): a MESSAGE of N bytes, however short
 *                       the record (an entry bigger than a datagram)
 *   big:N:M             register group "tgz" with tgz_eee..., its name N
 *                       bytes, and 10 int64_t arguments a0xx... to a9xx...,
 *                       names of M bytes (N, M below 4096)
 *   big=V               that event with every argument V
 *   slow:N:US           N tgb_req events, US microseconds apart
 *   dup                 register group "dup" holding another "tgb_done" event
 *   abi                 register group "old" built for ABI 0 (must be ignored)
 *   walkfork[:self]     fork while a thread is inside tj_event_foreach() (its
 *                       callback waits for the fork): the child, with no
 *                       walk going on, unregisters group "tgc" (register it
 *                       first: two) and exits; with :self this thread
 *                       walks and forks from its callback, and the child
 *                       ends that walk first.  Prints "walkfork child=exit 0",
 *                       or "signal 14" when the child was still waiting
 *                       after 10 s (alarm)
 *   regwalk             a thread walks the events (tj_event_foreach) over and
 *                       over while this one registers group "tgc", as a
 *                       module loaded with dlopen does; prints "regwalk
 *                       tgc_two=S" (S: whether the walks saw the new event)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tgroup.h"

#define BIG 4096

/* naps: nanosleep() calls by the main thread and by the others.  This
 * definition takes libc's place for the library, linked in statically. */
static long naps_main, naps_other;

int nanosleep(const struct timespec *req, struct timespec *rem)
{
        __atomic_add_fetch(syscall(SYS_gettid) == getpid() ? &naps_main : &naps_other, 1,
                           __ATOMIC_RELAXED);
        return (int)syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, req, rem);
}

static void emit_reqs(long n)
{
        for (long i = 0; i < n; i++) {
                char name[32];

                snprintf(name, sizeof(name), "r%ld", i);
                trace_tgb_req((void *)(uintptr_t)(0x1000 + i), (uint64_t)i, name);
        }
}

static void *thread_main(void *arg)
{
        emit_reqs((long)(intptr_t)arg);
        return NULL;
}

/* The values tests/t-lib-journald.sh and lib-roundtrip.c expect, in order. */
static void emit_all(void)
{
        static char big[BIG + 1];

        memset(big, 'x', BIG);
        big[0] = 'B';
        big[BIG - 1] = 'E';
        trace_tga_all(INT64_MIN, UINT64_MAX, NULL, "", -1, 255);
        trace_tga_all(INT64_MAX, 0, (void *)(uintptr_t)0xdeadbeefcafeULL, NULL, 0, 0);
        trace_tga_all(-42, 42, (void *)(uintptr_t)UINTPTR_MAX, "line1\nline2", INT32_MIN, 1);
        trace_tga_all(0, 1, (void *)(uintptr_t)1, "a=b\nTRACE_EVENT=forged\nMESSAGE=x", INT32_MAX, 7);
        trace_tga_all(1, 2, (void *)(uintptr_t)2, "h\xc3\xa9llo w\xc3\xb6rld \xe2\x82\xac", 3, 4);
        trace_tga_all(5, 6, (void *)(uintptr_t)7, big, 8, 9);
}

static int print_event(const struct tj_event_info *info, void *userdata)
{
        (void)userdata;
        printf("%s %s enabled=%d compiled_in=%d\n", info->name, info->group,
               info->enabled, info->compiled_in);
        return 0;
}

static void run_threads(long t, long n)
{
        pthread_t th[64];

        if (t > 64)
                t = 64;
        for (long i = 0; i < t; i++)
                pthread_create(&th[i], NULL, thread_main, (void *)(intptr_t)n);
        for (long i = 0; i < t; i++)
                pthread_join(th[i], NULL);
}

/* park:T - threads that traced, waiting until unpark. */
static pthread_t park_th[64];
static long park_n;
static int park_go, park_traced;

static void *park_main(void *arg)
{
        (void)arg;
        emit_reqs(1);
        __atomic_add_fetch(&park_traced, 1, __ATOMIC_RELEASE);
        while (!__atomic_load_n(&park_go, __ATOMIC_ACQUIRE))
                usleep(1000);
        return NULL;
}

static void run_park(long t)
{
        __atomic_store_n(&park_go, 0, __ATOMIC_RELEASE);
        __atomic_store_n(&park_traced, 0, __ATOMIC_RELEASE);
        for (park_n = 0; park_n < t && park_n < 64; park_n++)
                pthread_create(&park_th[park_n], NULL, park_main, NULL);
        while (__atomic_load_n(&park_traced, __ATOMIC_ACQUIRE) < park_n)
                usleep(1000);
}

static void run_unpark(void)
{
        __atomic_store_n(&park_go, 1, __ATOMIC_RELEASE);
        for (long i = 0; i < park_n; i++)
                pthread_join(park_th[i], NULL);
        park_n = 0;
}

static void run_fork(long n, bool flush)
{
        pid_t pid = fork();
        int status;

        if (pid == 0) {
                emit_reqs(n);
                while (flush && tj_flush() != 0)
                        ;
                exit(0);
        }
        if (pid > 0)
                waitpid(pid, &status, 0);
}

static void step(const char *s);

/* forkdo:STEPS - the child runs STEPS, joined by '+', then exit(). */
static void run_forkdo(const char *steps)
{
        pid_t pid;
        int status;

        fflush(stdout);         /* or the child writes the parent's lines again */
        pid = fork();
        if (pid == 0) {
                char *copy = strdup(steps), *save = NULL;

                __atomic_store_n(&naps_main, 0, __ATOMIC_RELAXED);
                __atomic_store_n(&naps_other, 0, __ATOMIC_RELAXED);

                for (char *p = copy ? strtok_r(copy, "+", &save) : NULL; p;
                     p = strtok_r(NULL, "+", &save))
                        step(p);
                free(copy);
                exit(0);
        }
        if (pid > 0)
                waitpid(pid, &status, 0);
}

/* Send REQ and a newline to the endpoint at SA on a new connection, and
 * read its reply into BUF (SIZE bytes, NUL-terminated; "" when it answered
 * nothing).  send(MSG_NOSIGNAL): the endpoint may stop between connect()
 * and the send (tj_shutdown() in ctlstop), which then fails with EPIPE
 * rather than raise SIGPIPE.  False when no socket could be made. */
static bool ctl_exchange(const struct sockaddr_un *sa, const char *req, char *buf, size_t size)
{
        size_t got = 0, len = strlen(req);
        ssize_t n;
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

        buf[0] = '\0';
        if (fd < 0)
                return false;
        if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0 &&
            send(fd, req, len, MSG_NOSIGNAL) == (ssize_t)len &&
            send(fd, "\n", 1, MSG_NOSIGNAL) == 1)
                while (got < size - 1 && (n = read(fd, buf + got, size - 1 - got)) > 0)
                        got += (size_t)n;
        close(fd);
        buf[got] = '\0';
        return true;
}

/* Ask our own control endpoint (started when it is not serving) REQ; its
 * reply in BUF, or false when there is no endpoint. */
static bool ctl_ask(const char *req, char *buf, size_t size)
{
        struct sockaddr_un sa = { .sun_family = AF_UNIX };

        return tj_control_start() >= 0 && tj_control_path(sa.sun_path, sizeof(sa.sun_path)) >= 0 &&
               ctl_exchange(&sa, req, buf, size);
}

/* ctlstats: ask our own control endpoint for its stats. */
static void run_ctlstats(void)
{
        char buf[4096];

        if (!ctl_ask("stats", buf, sizeof(buf))) {
                printf("ctlstats: no endpoint\n");
                return;
        }
        for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
                if (strncmp(line, "rings ", 6) != 0 && strncmp(line, "control ", 8) != 0)
                        printf("%s\n", line);
        tj_control_stop();
}

/* ctl:REQUEST: its reply, '\n' as '|'; the endpoint keeps serving. */
static void run_ctl(const char *req)
{
        char buf[4096];

        if (!ctl_ask(req, buf, sizeof(buf))) {
                printf("ctl %s: no endpoint\n", req);
                return;
        }
        for (char *p = buf; *p; p++)
                if (*p == '\n')
                        *p = '|';
        printf("ctl %s=%s\n", req, buf);
}

static void run_forkctl(long n)
{
        pid_t pid = fork();
        int status;

        if (pid == 0) {
                emit_reqs(n);
                tj_flush();
                run_ctlstats();
                fflush(stdout);
                exit(0);
        }
        if (pid > 0)
                waitpid(pid, &status, 0);
}

/* fork() while other threads are in the middle of tracing: locks or rings
 * they hold at that instant must not hang or corrupt the child. */
static void run_forkbusy(long t, long n, long k)
{
        pthread_t th[64];
        long exited = 0;

        if (t > 64)
                t = 64;
        for (long i = 0; i < t; i++)
                pthread_create(&th[i], NULL, thread_main, (void *)(intptr_t)n);
        for (long i = 0; i < k; i++) {
                pid_t pid = fork();
                int status;

                if (pid == 0) {
                        emit_reqs(10);
                        exit(0);
                }
                if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
                    WEXITSTATUS(status) == 0)
                        exited++;
        }
        for (long i = 0; i < t; i++)
                pthread_join(th[i], NULL);
        printf("children=%ld exited=%ld\n", k, exited);
}

/* str:HEX - any bytes as tga_all's string argument. */
static void run_str(const char *hex)
{
        char buf[4096];
        size_t n = 0;
        unsigned byte;

        while (n + 1 < sizeof(buf) && sscanf(hex, "%2x", &byte) == 1 && hex[1]) {
                buf[n++] = (char)byte;
                hex += 2;
        }
        buf[n] = '\0';
        trace_tga_all(1, 2, (void *)(uintptr_t)3, buf, 4, 5);
}

static uint16_t dup_dstate;
static struct tj_event dup_event = {
        .name = "tgb_done", .fmt = "\"\"", .argsig = "TRACE_ARGS=",
        .dstate = &dup_dstate, .compiled_in = true,
};
static struct tj_event *const dup_events[] = { &dup_event };
static struct tj_group dup_group = {
        .abi = TJ_ABI_VERSION, .name = "dup", .events = dup_events, .nevents = 1,
};
static struct tj_group old_group = {
        .abi = 0, .name = "old", .events = dup_events, .nevents = 1,
};

static pthread_t bg_thread;
static char bg_outputs[256];

static uint16_t nest_dstate;
static struct tj_event nest_event;

static int nest_render(char *buf, size_t size, const tj_value *v)
{
        (void)v;
        tj_emit(&nest_event, NULL, NULL);
        return snprintf(buf, size, "nested");
}
static struct tj_event nest_event = {
        .name = "tgn_nest", .fmt = "\"nested\"", .argsig = "TRACE_ARGS=",
        .dstate = &nest_dstate, .compiled_in = true, .render = nest_render,
};
static struct tj_event *const nest_events[] = { &nest_event };
static struct tj_group nest_group = {
        .abi = TJ_ABI_VERSION, .name = "tgn", .events = nest_events, .nevents = 1,
};
static int bgsignal_done;

static void on_usr2(int sig)
{
        (void)sig;
        tj_emit(&nest_event, NULL, NULL);
        __atomic_store_n(&bgsignal_done, 1, __ATOMIC_RELEASE);
}

/* bgsignal: the bgoutputs thread, inside tj_set_outputs(), traces in a
 * signal handler; the open() it waits in goes on afterwards (SA_RESTART). */
static void run_bgsignal(void)
{
        struct sigaction sa = { .sa_handler = on_usr2, .sa_flags = SA_RESTART };
        int i = 0;

        sigaction(SIGUSR2, &sa, NULL);
        pthread_kill(bg_thread, SIGUSR2);
        while (!__atomic_load_n(&bgsignal_done, __ATOMIC_ACQUIRE) && ++i < 1000)
                usleep(10000);
        if (i == 1000) {
                printf("bgsignal=stuck\n");
                fflush(stdout);
                _exit(1);
        }
}

static void *bg_main(void *arg)
{
        (void)arg;
        return (void *)(intptr_t)tj_set_outputs(bg_outputs);
}

/* Does a thread of ours sleep in a kernel function whose name holds NAME
 * (fifowait: "wait_for_partner", in open() for a FIFO's reader)? */
static bool task_in_wchan(const char *name)
{
        DIR *d = opendir("/proc/self/task");
        struct dirent *de;
        bool found = false;

        while (d && !found && (de = readdir(d))) {
                char path[300], wchan[64] = "";
                FILE *f;

                if (de->d_name[0] == '.')
                        continue;
                snprintf(path, sizeof(path), "/proc/self/task/%s/wchan", de->d_name);
                f = fopen(path, "r");
                if (f) {
                        found = fgets(wchan, sizeof(wchan), f) &&
                                strstr(wchan, name);
                        fclose(f);
                }
        }
        if (d)
                closedir(d);
        return found;
}

static void on_usr1(int sig)
{
        (void)sig;
        trace_tga_void();
}

static int shutbusy_stop;

static void *shutbusy_main(void *arg)
{
        (void)arg;
        while (!__atomic_load_n(&shutbusy_stop, __ATOMIC_RELAXED))
                emit_reqs(1);
        return NULL;
}

static void *shutnew_one(void *arg)
{
        (void)arg;
        emit_reqs(1);
        return NULL;
}

static void *shutnew_main(void *arg)
{
        (void)arg;
        while (!__atomic_load_n(&shutbusy_stop, __ATOMIC_RELAXED)) {
                pthread_t th;

                if (pthread_create(&th, NULL, shutnew_one, NULL) == 0)
                        pthread_join(th, NULL);
        }
        return NULL;
}

static void *shutflush_main(void *arg)
{
        (void)arg;
        while (!__atomic_load_n(&shutbusy_stop, __ATOMIC_RELAXED)) {
                emit_reqs(1);
                tj_flush();
        }
        return NULL;
}

/* stopflush: the two threads that flush when the chain asks them to. */
static struct stopflush {
        pthread_t th;
        pid_t tid;
        int go;                 /* asked for a flush, not returned yet */
        int in;                 /* in tj_flush() */
        int r;                  /* the last non-zero return */
        int failed;
} stopflush[2];
static int stopflush_armed, stopflush_quit;
static int hold_armed, hold_held;      /* hold: the render function waits */
static unsigned stopflush_next;
static uint16_t chain_dstate;
static struct tj_event chain_event;

static void *stopflush_main(void *arg)
{
        struct stopflush *f = arg;

        __atomic_store_n(&f->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
        for (;;) {
                int r;

                while (!__atomic_load_n(&f->go, __ATOMIC_ACQUIRE) &&
                       !__atomic_load_n(&stopflush_quit, __ATOMIC_ACQUIRE))
                        usleep(100);
                if (!__atomic_load_n(&f->go, __ATOMIC_ACQUIRE))
                        return NULL;
                __atomic_store_n(&f->in, 1, __ATOMIC_RELEASE);
                r = tj_flush();
                if (r != 0) {
                        f->r = r;
                        f->failed++;
                }
                __atomic_store_n(&f->in, 0, __ATOMIC_RELEASE);
                __atomic_store_n(&f->go, 0, __ATOMIC_RELEASE);
        }
}

/* Is thread TID asleep (state S)?  After f->in, tj_flush() is the one place
 * it sleeps, polling once it has asked for its flush. */
static bool task_sleeping(pid_t tid)
{
        char path[64], state = 0;
        FILE *f;

        snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
        f = fopen(path, "r");
        if (f) {
                if (fscanf(f, "%*d (%*[^)]) %c", &state) != 1)
                        state = 0;
                fclose(f);
        }
        return state == 'S';
}

/*
 * ctlstop:REQUEST: a thread that, each time the chain asks, sends REQUEST
 * on a new connection to the control endpoint, started again (by this
 * thread) when tj_shutdown() stopped it, and returns once the endpoint has
 * read it: the "control served" count of a stats asked after it counts it.
 */
static struct ctlstop {
        const char *req;
        int armed, go, quit;
        int fd;                 /* the last connection that sent REQUEST */
        int start_failed;       /* tj_control_start()'s last error */
} ctlstop = { .fd = -1 };

/* The endpoint's "control served N", from a stats request; -1 when it
 * does not answer (stopped meanwhile). */
static long ctlstop_served(const struct sockaddr_un *sa)
{
        char buf[4096], *line;

        if (!ctl_exchange(sa, "stats", buf, sizeof(buf)))
                return -1;
        line = strstr(buf, "control served ");
        return line ? atol(line + 15) : -1;
}

/* Send ctlstop.req on a new connection, confirmed read; false when the
 * endpoint stopped meanwhile.  send(MSG_NOSIGNAL), as in ctl_exchange(). */
static bool ctlstop_send(void)
{
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        long s0, s;
        int fd, r;

        if (tj_control_path(sa.sun_path, sizeof(sa.sun_path)) < 0) {
                r = tj_control_start();
                if (r < 0) {
                        ctlstop.start_failed = r;
                        return true;
                }
                if (tj_control_path(sa.sun_path, sizeof(sa.sun_path)) < 0)
                        return false;
        }
        s0 = ctlstop_served(&sa);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (s0 < 0 || fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
            send(fd, ctlstop.req, strlen(ctlstop.req), MSG_NOSIGNAL) !=
            (ssize_t)strlen(ctlstop.req) || send(fd, "\n", 1, MSG_NOSIGNAL) != 1)
                goto fail;
        /* the K-th stats after s0's counts s0 + K, + 1 once REQUEST was read */
        for (long k = 1; k < 10000; k++) {
                s = ctlstop_served(&sa);
                if (s < 0)
                        break;
                if (s == s0 + k + 1) {
                        if (ctlstop.fd >= 0)
                                close(ctlstop.fd);
                        ctlstop.fd = fd;
                        return true;
                }
                usleep(100);
        }
fail:
        if (fd >= 0)
                close(fd);
        return false;
}

static void *ctlstop_main(void *arg)
{
        (void)arg;
        for (;;) {
                while (!__atomic_load_n(&ctlstop.go, __ATOMIC_ACQUIRE) &&
                       !__atomic_load_n(&ctlstop.quit, __ATOMIC_ACQUIRE))
                        usleep(100);
                if (!__atomic_load_n(&ctlstop.go, __ATOMIC_ACQUIRE))
                        return NULL;
                while (!ctlstop_send())
                        ;
                __atomic_store_n(&ctlstop.go, 0, __ATOMIC_RELEASE);
        }
}

static int chain_render(char *buf, size_t size, const tj_value *v)
{
        (void)v;
        if (__atomic_load_n(&hold_armed, __ATOMIC_ACQUIRE)) {
                __atomic_store_n(&hold_held, 1, __ATOMIC_RELEASE);
                while (__atomic_load_n(&hold_armed, __ATOMIC_ACQUIRE))
                        usleep(100);
        }
        if (__atomic_load_n(&ctlstop.armed, __ATOMIC_ACQUIRE)) {
                __atomic_store_n(&ctlstop.go, 1, __ATOMIC_RELEASE);
                while (__atomic_load_n(&ctlstop.go, __ATOMIC_ACQUIRE))
                        usleep(100);
                tj_emit(&chain_event, NULL, NULL);      /* for the next pass */
        }
        if (__atomic_load_n(&stopflush_armed, __ATOMIC_ACQUIRE)) {
                struct stopflush *f = &stopflush[stopflush_next++ % 2];

                /* its flush, asked in the pass before last, is done */
                while (__atomic_load_n(&f->go, __ATOMIC_ACQUIRE))
                        usleep(100);
                __atomic_store_n(&f->go, 1, __ATOMIC_RELEASE);
                while (!__atomic_load_n(&f->in, __ATOMIC_ACQUIRE) || !task_sleeping(f->tid))
                        usleep(100);
                tj_emit(&chain_event, NULL, NULL);      /* for the next pass */
        }
        return snprintf(buf, size, "chain");
}
static struct tj_event chain_event = {
        .name = "tgs_chain", .fmt = "\"chain\"", .argsig = "TRACE_ARGS=",
        .dstate = &chain_dstate, .compiled_in = true, .render = chain_render,
};
static struct tj_event *const chain_events[] = { &chain_event };
static struct tj_group chain_group = {
        .abi = TJ_ABI_VERSION, .name = "tgs", .events = chain_events, .nevents = 1,
};

/* hold: the writer's render of tgs_chain waits, under its lock, until
 * release. */
static void run_hold(void)
{
        tj_group_register(&chain_group);
        __atomic_store_n(&hold_armed, 1, __ATOMIC_RELEASE);
        tj_emit(&chain_event, NULL, NULL);
        while (!__atomic_load_n(&hold_held, __ATOMIC_ACQUIRE))
                usleep(100);
}

static void run_stopflush(void)
{
        tj_group_register(&chain_group);
        for (int i = 0; i < 2; i++) {
                if (pthread_create(&stopflush[i].th, NULL, stopflush_main, &stopflush[i]) != 0)
                        exit(2);
                while (!__atomic_load_n(&stopflush[i].tid, __ATOMIC_ACQUIRE))
                        usleep(100);
        }
        __atomic_store_n(&stopflush_armed, 1, __ATOMIC_RELEASE);
        tj_emit(&chain_event, NULL, NULL);
        tj_shutdown();
        __atomic_store_n(&stopflush_armed, 0, __ATOMIC_RELEASE);
        __atomic_store_n(&stopflush_quit, 1, __ATOMIC_RELEASE);
        for (int i = 0; i < 2; i++) {
                pthread_join(stopflush[i].th, NULL);
                for (int k = 0; k < stopflush[i].failed; k++)
                        printf("stopflush flush=%d\n", stopflush[i].r);
        }
}

/*
 * ctlstop:REQUEST: each pass of the writer (the chain) has the ctlstop
 * thread send REQUEST to the endpoint, and waits until it was read; then
 * tj_shutdown(), whose tj_control_stop() comes first: the thread starts the
 * endpoint again, and the writer's last pass began before the REQUEST it
 * saw sent.  Then the reply to that last REQUEST ('\n' as '|').
 */
static void run_ctlstop(const char *req)
{
        char buf[4096];
        size_t got = 0;
        ssize_t n;
        pthread_t th;
        struct timeval tv = { 30, 0 };

        ctlstop.req = req;
        tj_group_register(&chain_group);
        if (pthread_create(&th, NULL, ctlstop_main, NULL) != 0)
                exit(2);
        __atomic_store_n(&ctlstop.armed, 1, __ATOMIC_RELEASE);
        tj_emit(&chain_event, NULL, NULL);
        tj_shutdown();
        __atomic_store_n(&ctlstop.armed, 0, __ATOMIC_RELEASE);
        __atomic_store_n(&ctlstop.quit, 1, __ATOMIC_RELEASE);
        pthread_join(th, NULL);
        if (ctlstop.start_failed)
                printf("ctlstop start=%d\n", ctlstop.start_failed);
        if (ctlstop.fd < 0)
                return;
        setsockopt(ctlstop.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        while (got < sizeof(buf) - 1 &&
               (n = read(ctlstop.fd, buf + got, sizeof(buf) - 1 - got)) > 0)
                got += (size_t)n;
        buf[got] = '\0';
        for (char *p = buf; *p; p++)
                if (*p == '\n')
                        *p = '|';
        printf("ctlstop reply=%s\n", buf);
        close(ctlstop.fd);
        ctlstop.fd = -1;
}

static long atexit_reqs;

static void atexit_stats(void)
{
        step("stats");
}

static void atexit_trace(void)
{
        emit_reqs(atexit_reqs);
}

static char *atexit_fd_path;

/* Does a descriptor of the process refer to atexit_fd_path? */
static void atexit_fd(void)
{
        DIR *d = opendir("/proc/self/fd");
        struct dirent *de;
        bool open = false;

        while (d && !open && (de = readdir(d))) {
                char link[300], target[4096];
                ssize_t n;

                if (de->d_name[0] == '.')
                        continue;
                snprintf(link, sizeof(link), "/proc/self/fd/%s", de->d_name);
                n = readlink(link, target, sizeof(target) - 1);
                if (n > 0) {
                        target[n] = '\0';
                        open = strcmp(target, atexit_fd_path) == 0;
                }
        }
        if (d)
                closedir(d);
        printf("fd %s=%s\n", atexit_fd_path, open ? "open" : "closed");
        fflush(stdout);
}

/* What descriptor FD is: "closed", "file", or the kind /proc names before
 * ":[": "socket", "pipe", "anon_inode". */
static const char *fd_kind(int fd, char *buf, size_t size)
{
        char link[64];
        ssize_t n;
        char *c;

        snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
        n = readlink(link, buf, size - 1);
        if (n <= 0)
                return "closed";
        buf[n] = '\0';
        c = strstr(buf, ":[");
        if (!c)
                return "file";
        *c = '\0';
        return buf;
}

/* fds: descriptors 0-2 and how many are open (the listing's own left out). */
static void run_fds(void)
{
        char b[3][4096];
        const char *k[3];
        struct dirent *de;
        DIR *d;
        int n = 0;

        for (int i = 0; i < 3; i++)     /* before opendir() takes one */
                k[i] = fd_kind(i, b[i], sizeof(b[i]));
        d = opendir("/proc/self/fd");
        while (d && (de = readdir(d)))
                if (de->d_name[0] != '.' && atoi(de->d_name) != dirfd(d))
                        n++;
        if (d)
                closedir(d);
        printf("fds 0=%s 1=%s 2=%s n=%d\n", k[0], k[1], k[2], n);
}

static pthread_key_t keyexit_key;

/* Runs after the library's own key destructor in each round (its key was
 * made first): the thread traces after its ring's cleanup.  P: the rounds
 * left, this one included. */
static void keyexit_dtor(void *p)
{
        uintptr_t left = (uintptr_t)p;

        emit_reqs(1);
        if (left > 1)
                pthread_setspecific(keyexit_key, (void *)(left - 1));
}

static void *keyexit_main(void *arg)
{
        emit_reqs(1);
        pthread_setspecific(keyexit_key, arg);
        return NULL;
}

static void run_keyexit(long k, long rounds)
{
        pthread_t th;

        if (rounds <= 0 || rounds > PTHREAD_DESTRUCTOR_ITERATIONS)
                rounds = PTHREAD_DESTRUCTOR_ITERATIONS;
        if (pthread_key_create(&keyexit_key, keyexit_dtor) != 0)
                return;
        for (long i = 0; i < k; i++)
                if (pthread_create(&th, NULL, keyexit_main, (void *)(uintptr_t)rounds) == 0)
                        pthread_join(th, NULL);
}

/* bgreq:N and fifodrain. */
static pthread_t bgreq_thread;
static int bgreq_done, fifo_fd = -1;

static void *bgreq_main(void *arg)
{
        emit_reqs((long)(intptr_t)arg);
        __atomic_store_n(&bgreq_done, 1, __ATOMIC_RELEASE);
        return NULL;
}

static void run_fifodrain(void)
{
        char buf[4096];

        while (!__atomic_load_n(&bgreq_done, __ATOMIC_ACQUIRE))
                if (fifo_fd < 0 || read(fifo_fd, buf, sizeof(buf)) <= 0)
                        usleep(1000);
        pthread_join(bgreq_thread, NULL);
}

static void *bgtrace_main(void *arg)
{
        (void)arg;
        for (;;)
                emit_reqs(1);
        return NULL;
}

static void *cancel_main(void *arg)
{
        (void)arg;
        for (;;) {
                emit_reqs(1);
                pthread_testcancel();
        }
        return NULL;
}

static void *cancel_watchdog(void *arg)
{
        (void)arg;
        sleep(10);
        printf("cancel=stuck\n");
        fflush(stdout);
        _exit(1);
}

static void run_cancel(long k)
{
        pthread_t th, dog;

        if (pthread_create(&dog, NULL, cancel_watchdog, NULL) != 0)
                return;
        for (long i = 0; i < k; i++) {
                if (pthread_create(&th, NULL, cancel_main, NULL) != 0)
                        break;
                usleep(2000);
                pthread_cancel(th);
                pthread_join(th, NULL);
        }
        pthread_cancel(dog);
        pthread_join(dog, NULL);
}

static void run_shutbusy(long k, void *(*fn)(void *))
{
        pthread_t th;

        if (pthread_create(&th, NULL, fn, NULL) != 0)
                return;
        for (long i = 0; i < k; i++) {
                tj_shutdown();
                tj_init(NULL);
        }
        __atomic_store_n(&shutbusy_stop, 1, __ATOMIC_RELAXED);
        pthread_join(th, NULL);
}

static void run_signals(long n)
{
        struct sigaction sa = { .sa_handler = on_usr1 };

        sigaction(SIGUSR1, &sa, NULL);
        for (long i = 0; i < n; i++) {
                emit_reqs(5);
                raise(SIGUSR1);
                emit_reqs(5);
        }
}

static uint16_t two_dstate;
static const struct tj_arg_desc two_args[] = {
        { "a", "TRACE_ARG_A=", "const char *", TJ_ARG_STRING },
        { "b", "TRACE_ARG_B=", "const char *", TJ_ARG_STRING },
};
static int two_render(char *buf, size_t size, const tj_value *v)
{
        return snprintf(buf, size, "a %zu b %zu", strlen(v[0].s), strlen(v[1].s));
}
static struct tj_event two_event = {
        .name = "tgc_two", .fmt = "\"a %zu b %zu\"", .argsig = "TRACE_ARGS=a:s b:s",
        .args = two_args, .nargs = 2, .dstate = &two_dstate, .compiled_in = true,
        .render = two_render,
};
static struct tj_event *const two_events[] = { &two_event };
static struct tj_group two_group = {
        .abi = TJ_ABI_VERSION, .name = "tgc", .events = two_events, .nevents = 1,
};

static uint16_t wide_dstate;
static const struct tj_arg_desc wide_args[] = {
        { "w", "TRACE_ARG_W=", "int", TJ_ARG_SIGNED },
        { "s", "TRACE_ARG_S=", "const char *", TJ_ARG_STRING },
};
static int wide_render(char *buf, size_t size, const tj_value *v)
{
        return snprintf(buf, size, "%*s", (int)v[0].i, v[1].s);
}
static struct tj_event wide_event = {
        .name = "tgw_wide", .fmt = "\"%*s\"", .argsig = "TRACE_ARGS=w:i s:s",
        .args = wide_args, .nargs = 2, .dstate = &wide_dstate, .compiled_in = true,
        .render = wide_render,
};
static struct tj_event *const wide_events[] = { &wide_event };
static struct tj_group wide_group = {
        .abi = TJ_ABI_VERSION, .name = "tgw", .events = wide_events, .nevents = 1,
};

/* big: an event whose name and argument names are as long as asked, built
 * at the first big step (names of at most 4095 bytes) */
static uint16_t big_dstate;
static char big_name[4096], big_argnames[10][4096];
static struct tj_arg_desc big_args[10];
static int big_render(char *buf, size_t size, const tj_value *v)
{
        (void)v;
        return snprintf(buf, size, "big");
}
static struct tj_event big_event = {
        .fmt = "\"big\"", .argsig = "TRACE_ARGS=", .args = big_args, .nargs = 10,
        .dstate = &big_dstate, .compiled_in = true, .render = big_render,
};
static struct tj_event *const big_events[] = { &big_event };
static struct tj_group big_group = {
        .abi = TJ_ABI_VERSION, .name = "tgz", .events = big_events, .nevents = 1,
};

static void run_big(const char *arg)
{
        size_t n = (size_t)atol(arg), m = strchr(arg, ':') ? (size_t)atol(strchr(arg, ':') + 1) : 0;

        if (n < 4 || n >= sizeof(big_name) || m < 2 || m >= sizeof(big_argnames[0]))
                exit(2);
        memset(big_name, 'e', n);
        memcpy(big_name, "tgz_", 4);
        big_event.name = big_name;
        for (int i = 0; i < 10; i++) {
                memset(big_argnames[i], 'x', m);
                big_argnames[i][0] = 'a';
                big_argnames[i][1] = (char)('0' + i);
                big_args[i] = (struct tj_arg_desc){ big_argnames[i], "TRACE_ARG_X=", "int64_t",
                                                    TJ_ARG_SIGNED };
        }
        tj_group_register(&big_group);
}

static int regwalk_stop, regwalk_seen;

static int regwalk_event(const struct tj_event_info *info, void *userdata)
{
        (void)userdata;
        if (strcmp(info->name, "tgc_two") == 0)
                __atomic_store_n(&regwalk_seen, 1, __ATOMIC_RELAXED);
        return 0;
}

static void *regwalk_main(void *arg)
{
        (void)arg;
        while (!__atomic_load_n(&regwalk_stop, __ATOMIC_ACQUIRE))
                tj_event_foreach(NULL, regwalk_event, NULL);
        tj_event_foreach(NULL, regwalk_event, NULL);
        return NULL;
}

/* alarm:US - signals that interrupt blocked system calls (no SA_RESTART) */
static void alarm_handler(int sig)
{
        (void)sig;
}

static void run_alarm(long us)
{
        struct sigaction sa = { .sa_handler = alarm_handler };
        struct itimerval it = { { us / 1000000, us % 1000000 }, { us / 1000000, us % 1000000 } };

        sigemptyset(&sa.sa_mask);
        sigaction(SIGALRM, &sa, NULL);
        setitimer(ITIMER_REAL, &it, NULL);
}

/* walkfork: a fork while a thread walks the events */
static int walkfork_inside, walkfork_forked;
static bool walkfork_self;
static pid_t walkfork_parent, walkfork_child;

/* The child of walkfork: unregister group "tgc", with a hang guard. */
static void walkfork_in_child(void)
{
        alarm(10);
        tj_group_unregister(&two_group);
        exit(0);
}

static int walkfork_event(const struct tj_event_info *info, void *userdata)
{
        (void)info;
        (void)userdata;
        if (__atomic_exchange_n(&walkfork_inside, 1, __ATOMIC_ACQ_REL))
                return 0;
        if (walkfork_self) {
                fflush(stdout);
                walkfork_child = fork();
                return 0;
        }
        while (!__atomic_load_n(&walkfork_forked, __ATOMIC_ACQUIRE))
                usleep(1000);
        return 0;
}

static void *walkfork_main(void *arg)
{
        (void)arg;
        tj_event_foreach(NULL, walkfork_event, NULL);
        if (getpid() != walkfork_parent)
                walkfork_in_child();
        return NULL;
}

static void walkfork_print(pid_t pid)
{
        int status = 0;

        if (pid < 0 || waitpid(pid, &status, 0) != pid)
                printf("walkfork child=none\n");
        else if (WIFSIGNALED(status))
                printf("walkfork child=signal %d\n", WTERMSIG(status));
        else
                printf("walkfork child=exit %d\n", WEXITSTATUS(status));
}

static void run_walkfork(const char *arg)
{
        pthread_t th;
        pid_t pid = -1;

        walkfork_self = arg && strcmp(arg, "self") == 0;
        walkfork_parent = getpid();
        if (walkfork_self) {
                /* this thread walks and forks: no thread the child lacks */
                walkfork_main(NULL);
                walkfork_print(walkfork_child);
                return;
        }
        pthread_create(&th, NULL, walkfork_main, NULL);
        while (!__atomic_load_n(&walkfork_inside, __ATOMIC_ACQUIRE))
                usleep(1000);
        fflush(stdout);
        pid = fork();
        if (pid == 0)
                walkfork_in_child();
        __atomic_store_n(&walkfork_forked, 1, __ATOMIC_RELEASE);
        pthread_join(th, NULL);
        walkfork_print(pid);
}

/* regwalk: a group registered while another thread walks the list */
static void run_regwalk(void)
{
        pthread_t th;

        pthread_create(&th, NULL, regwalk_main, NULL);
        usleep(20000);
        tj_group_register(&two_group);
        usleep(20000);
        __atomic_store_n(&regwalk_stop, 1, __ATOMIC_RELEASE);
        pthread_join(th, NULL);
        printf("regwalk tgc_two=%d\n", regwalk_seen);
}

static void step(const char *s)
{
        const char *arg = strchr(s, ':') ? strchr(s, ':') + 1 : NULL;
        struct tj_stats st;
        unsigned line = 0;
        int r;

        if (strncmp(s, "init", 4) == 0) {
                r = tj_init(arg);
                if (r != 0)
                        printf("init=%d\n", r);
        } else if (strncmp(s, "enable:", 7) == 0)
                printf("enable %s=%d\n", arg, tj_enable(arg));
        else if (strncmp(s, "list:", 5) == 0)
                printf("list %s=%d\n", arg, tj_enable_list(arg));
        else if (strncmp(s, "file:", 5) == 0) {
                r = tj_enable_file(arg, &line);
                printf("file %s=%d line=%u\n", arg, r, line);
        } else if (strncmp(s, "opt:", 4) == 0)
                printf("opt %s=%d\n", arg, tj_trace_opt(arg));
        else if (strncmp(s, "outputs:", 8) == 0)
                printf("outputs %s=%d\n", arg, tj_set_outputs(arg));
        else if (strncmp(s, "events", 6) == 0)
                printf("count=%d\n", tj_event_foreach(arg, print_event, NULL));
        else if (strcmp(s, "all") == 0)
                emit_all();
        else if (strcmp(s, "void") == 0) {
                trace_tga_void();
                if (_TRACE_TGA_OFF_EVENT.compiled_in && _TRACE_TGA_OFF_DSTATE)
                        tj_emit(&_TRACE_TGA_OFF_EVENT, TJ_SITE(), NULL);
        } else if (strncmp(s, "req:", 4) == 0)
                emit_reqs(atol(arg));
        else if (strncmp(s, "threads:", 8) == 0)
                run_threads(atol(arg), atol(strchr(arg, ':') + 1));
        else if (strncmp(s, "texit:", 6) == 0)
                run_threads(1, atol(arg));
        else if (strncmp(s, "park:", 5) == 0)
                run_park(atol(arg));
        else if (strcmp(s, "unpark") == 0)
                run_unpark();
        else if (strncmp(s, "keyexit:", 8) == 0)
                run_keyexit(atol(arg), strchr(arg, ':') ? atol(strchr(arg, ':') + 1) : 0);
        else if (strncmp(s, "fork:", 5) == 0)
                run_fork(atol(arg), false);
        else if (strcmp(s, "ctlstats") == 0)
                run_ctlstats();
        else if (strncmp(s, "ctl:", 4) == 0)
                run_ctl(arg);
        else if (strcmp(s, "ctlpath") == 0) {
                char path[108];

                printf("ctlpath=%d\n", tj_control_path(path, sizeof(path)));
        }
        else if (strcmp(s, "ctlstart") == 0) {
                r = tj_control_start();
                if (r != 0)
                        printf("ctlstart=%d\n", r);
        } else if (strncmp(s, "chdir:", 6) == 0) {
                if (chdir(arg) < 0)
                        printf("chdir %s=%d\n", arg, -errno);
        } else if (strncmp(s, "waitfor:", 8) == 0) {
                int i = 0;

                while (access(arg, F_OK) < 0 && ++i < 1000)
                        usleep(10000);
                if (i == 1000)
                        printf("waitfor %s=none\n", arg);
        } else if (strncmp(s, "forkctl:", 8) == 0)
                run_forkctl(atol(arg));
        else if (strncmp(s, "forkdo:", 7) == 0)
                run_forkdo(arg);
        else if (strncmp(s, "forkflush:", 10) == 0)
                run_fork(atol(arg), true);
        else if (strncmp(s, "str:", 4) == 0)
                run_str(arg);
        else if (strncmp(s, "forkbusy:", 9) == 0) {
                const char *a2 = strchr(arg, ':') + 1;

                run_forkbusy(atol(arg), atol(a2), atol(strchr(a2, ':') + 1));
        }
        else if (strncmp(s, "bgoutputs:", 10) == 0) {
                snprintf(bg_outputs, sizeof(bg_outputs), "%s", arg);
                pthread_create(&bg_thread, NULL, bg_main, NULL);
        } else if (strcmp(s, "bgjoin") == 0) {
                void *ret = NULL;

                pthread_join(bg_thread, &ret);
                printf("bgoutputs %s=%d\n", bg_outputs, (int)(intptr_t)ret);
        } else if (strcmp(s, "bgsignal") == 0)
                run_bgsignal();
        else if (strcmp(s, "nest") == 0)
                tj_group_register(&nest_group);
        else if (strncmp(s, "fifo:", 5) == 0) {
                if ((fifo_fd = open(arg, O_RDONLY | O_NONBLOCK)) < 0)
                        printf("fifo %s=%d\n", arg, -errno);
        } else if (strcmp(s, "fifowait") == 0) {
                int i = 0;

                while (!task_in_wchan("wait_for_partner") && ++i < 1000)
                        usleep(10000);
                if (i == 1000)
                        printf("fifowait=none\n");
        } else if (strncmp(s, "wchan:", 6) == 0) {
                int i = 0;

                while (!task_in_wchan(arg) && ++i < 1000)
                        usleep(10000);
                if (i == 1000)
                        printf("wchan %s=none\n", arg);
        } else if (strcmp(s, "hold") == 0)
                run_hold();
        else if (strncmp(s, "bgreq:", 6) == 0)
                pthread_create(&bgreq_thread, NULL, bgreq_main, (void *)(intptr_t)atol(arg));
        else if (strcmp(s, "fifodrain") == 0)
                run_fifodrain();
        else if (strcmp(s, "release") == 0)
                __atomic_store_n(&hold_armed, 0, __ATOMIC_RELEASE);
        else if (strncmp(s, "naps", 4) == 0) {
                long *naps = strcmp(s, "naps:main") == 0 ? &naps_main : &naps_other;

                printf("naps=%ld\n", __atomic_exchange_n(naps, 0, __ATOMIC_RELAXED));
        } else if (strncmp(s, "fsize:", 6) == 0) {
                struct rlimit rl;

                signal(SIGXFSZ, SIG_IGN);
                getrlimit(RLIMIT_FSIZE, &rl);
                rl.rlim_cur = atol(arg) > 0 ? (rlim_t)atol(arg) : rl.rlim_max;
                if (setrlimit(RLIMIT_FSIZE, &rl) < 0)
                        printf("fsize %s=%d\n", arg, -errno);
        } else if (strncmp(s, "sleep:", 6) == 0)
                usleep((useconds_t)atol(arg) * 1000);
        else if (strcmp(s, "flush") == 0) {
                r = tj_flush();
                if (r != 0)
                        printf("flush=%d\n", r);
        } else if (strcmp(s, "stats") == 0) {
                tj_get_stats(&st);
                printf("emitted=%llu written=%llu dropped=%llu\n",
                       (unsigned long long)st.emitted, (unsigned long long)st.written,
                       (unsigned long long)st.dropped);
        } else if (strncmp(s, "long:", 5) == 0) {
                size_t n = (size_t)atol(arg);
                char *y = malloc(n + 1);

                if (!y)
                        exit(2);
                memset(y, 'y', n);
                y[n] = '\0';
                trace_tga_all(1, 2, NULL, y, 3, 4);
                free(y);
        } else if (strncmp(s, "twolong:", 8) == 0) {
                size_t n = (size_t)atol(arg);
                char *y = malloc(n + 1);

                if (!y)
                        exit(2);
                memset(y, 'y', n);
                y[n] = '\0';
                if (two_dstate) {
                        tj_value v[2] = { { .s = y }, { .s = y } };

                        tj_emit(&two_event, TJ_SITE(), v);
                }
                free(y);
        } else if (strncmp(s, "wide:", 5) == 0) {
                if (wide_dstate) {
                        tj_value v[2] = { { .i = atol(arg) }, { .s = "w" } };

                        tj_emit(&wide_event, TJ_SITE(), v);
                }
        } else if (strncmp(s, "slow:", 5) == 0) {
                for (long i = 0, n = atol(arg); i < n; i++) {
                        emit_reqs(1);
                        usleep((useconds_t)atol(strchr(arg, ':') + 1));
                }
        } else if (strncmp(s, "signal:", 7) == 0)
                run_signals(atol(arg));
        else if (strcmp(s, "two") == 0)
                tj_group_register(&two_group);
        else if (strcmp(s, "wide") == 0)
                tj_group_register(&wide_group);
        else if (strncmp(s, "big:", 4) == 0)
                run_big(arg);
        else if (strncmp(s, "big=", 4) == 0) {
                tj_value v[10];

                for (int i = 0; i < 10; i++)
                        v[i].i = atol(s + 4);
                if (big_dstate)
                        tj_emit(&big_event, TJ_SITE(), v);
        }
        else if (strcmp(s, "dup") == 0)
                tj_group_register(&dup_group);
        else if (strncmp(s, "alarm:", 6) == 0)
                run_alarm(atol(arg));
        else if (strncmp(s, "walkfork", 8) == 0)
                run_walkfork(arg);
        else if (strcmp(s, "regwalk") == 0)
                run_regwalk();
        else if (strcmp(s, "abi") == 0)
                tj_group_register(&old_group);
        else if (strncmp(s, "shutbusy:", 9) == 0)
                run_shutbusy(atol(arg), shutbusy_main);
        else if (strncmp(s, "shutnew:", 8) == 0)
                run_shutbusy(atol(arg), shutnew_main);
        else if (strncmp(s, "shutflush:", 10) == 0)
                run_shutbusy(atol(arg), shutflush_main);
        else if (strcmp(s, "stopflush") == 0)
                run_stopflush();
        else if (strncmp(s, "ctlstop:", 8) == 0)
                run_ctlstop(arg);
        else if (strcmp(s, "atexitstats") == 0)
                atexit(atexit_stats);
        else if (strncmp(s, "atexit:", 7) == 0) {
                atexit_reqs = atol(arg);
                atexit(atexit_trace);
        } else if (strncmp(s, "atexitfd:", 9) == 0) {
                atexit_fd_path = strdup(arg);
                if (atexit_fd_path)
                        atexit(atexit_fd);
        } else if (strcmp(s, "fds") == 0)
                run_fds();
        else if (strcmp(s, "bgtrace") == 0) {
                pthread_t th;

                pthread_create(&th, NULL, bgtrace_main, NULL);
        } else if (strncmp(s, "cancel:", 7) == 0)
                run_cancel(atol(arg));
        else if (strcmp(s, "shutdown") == 0)
                tj_shutdown();
        else if (strncmp(s, "setenv:", 7) == 0 && strchr(arg, '=')) {
                const char *eq = strchr(arg, '=');
                char *name = strndup(arg, (size_t)(eq - arg));

                if (name)
                        setenv(name, eq + 1, 1);
                free(name);
        } else if (strncmp(s, "unsetenv:", 9) == 0)
                unsetenv(arg);
        else if (strcmp(s, "tasks") == 0) {
                DIR *d = opendir("/proc/self/task");
                struct dirent *de;
                int n = 0;

                while (d && (de = readdir(d)))
                        n += de->d_name[0] != '.';
                if (d)
                        closedir(d);
                printf("tasks=%d\n", n);
        }
        else if (strcmp(s, "exit") == 0) {
                fflush(stdout);
                exit(0);
        } else {
                fprintf(stderr, "lib-emit: unknown step '%s'\n", s);
                exit(2);
        }
        fflush(stdout);
}

int main(int argc, char **argv)
{
        for (int i = 1; i < argc; i++)
                step(argv[i]);
        return 0;
}
