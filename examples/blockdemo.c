/*
 * blockdemo.c - the example program: a toy block layer traced with tracejournal.
 *
 * Shaped like QEMU's block layer so the demo, the tests and the documentation
 * have real traffic to look at: two devices, several worker threads that each
 * keep a small queue of in-flight requests, submit them and complete them in
 * order, and one bounce buffer per request taken and given back through
 * qemu_vmalloc / qemu_vfree-style events.  Three buffers are deliberately never
 * freed (one header per device in bd_dev_open(), the zero page in
 * bd_zero_page_init()), so `traceql leaks` has something to find.
 *
 * Apart from pointers, thread ids and times the run is deterministic: request i
 * goes to worker i % threads, every tenth request fails with -EIO, and the
 * summary line on stdout gives the counts the tests check.  The trace
 * identifier is "qemu-trace"; events are enabled with --trace (QEMU's -trace
 * syntax) or TJ_EVENTS.  The trace points come from examples/trace-events,
 * turned into trace.h / trace.c by tracegen at build time.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace.h"

#ifndef TJ_VERSION_STRING
#define TJ_VERSION_STRING "(outside the tree)"
#endif

enum bd_exit {
        BD_EXIT_OK = 0,
        BD_EXIT_FAILURE = 1,    /* a thread could not be started */
        BD_EXIT_USAGE = 2,      /* bad option or --trace pattern */
};

#define BD_NDEVS        2
#define BD_DEV_SECTORS  (1u << 20)      /* 512 MiB devices */
#define BD_SECTOR_SIZE  512u
#define BD_QUEUE_DEPTH  4               /* in-flight requests per worker */
#define BD_MAX_THREADS  256
#define BD_MAX_REQUESTS 4000000000ul    /* a worker's count is an unsigned */
#define BD_NSIZES       4               /* request sizes: 8 << (i % 4) sectors */
#define BD_LEAKS        (BD_NDEVS + 1)  /* headers + zero page */

struct bd_dev {
        const char *name;
        void *header;           /* never freed: a deliberate leak */
};

struct bd_req {
        unsigned long id;       /* global request number */
        struct bd_dev *dev;
        uint64_t sector;
        unsigned nb_sectors;
        int is_write;
        void *buf;
};

struct bd_worker {
        pthread_t thread;
        int index;
        unsigned nb_requests;   /* how many requests this worker runs */
        unsigned failed;
        unsigned sizes[BD_NSIZES];      /* requests per size class */
};

static struct bd_dev bd_devs[BD_NDEVS] = { { "disk0", NULL }, { "disk1", NULL } };
static void *bd_zero_page;              /* never freed: a deliberate leak */
static unsigned bd_nthreads = 4;

static void bd_oom(void)
{
        fputs("blockdemo: out of memory\n", stderr);
        exit(BD_EXIT_FAILURE);
}

/* Page-aligned allocation as QEMU's qemu_memalign(); exits when out of memory. */
static void *bd_memalign(size_t size)
{
        void *p;

        if (posix_memalign(&p, 4096, size) != 0)
                bd_oom();
        return p;
}

/*
 * Allocate and free through macros so that the trace point sits at the
 * caller's line: CODE_FUNC / CODE_LINE of every qemu_vmalloc entry name the
 * place that took the buffer, which is what a leak report needs.
 */
#define bd_vmalloc(size) ({                                     \
        size_t size_ = (size);                                  \
        void *ptr_ = bd_memalign(size_);                        \
        trace_qemu_vmalloc(size_, ptr_);                        \
        ptr_; })

#define bd_vfree(ptr) do {                                      \
        void *ptr_ = (ptr);                                     \
        trace_qemu_vfree(ptr_);                                 \
        free(ptr_);                                             \
} while (0)

static void bd_dev_open(struct bd_dev *dev)
{
        trace_blk_dev_open(dev->name, BD_DEV_SECTORS);
        dev->header = bd_vmalloc(BD_SECTOR_SIZE);       /* kept until exit */
        memset(dev->header, 0, BD_SECTOR_SIZE);
}

static void bd_zero_page_init(void)
{
        bd_zero_page = bd_vmalloc(4096);                /* kept until exit */
        memset(bd_zero_page, 0, 4096);
}

static struct bd_req *bd_req_new(unsigned long id)
{
        struct bd_req *req = malloc(sizeof(*req));

        if (!req)
                bd_oom();
        req->id = id;
        req->dev = &bd_devs[id % BD_NDEVS];
        req->sector = (uint64_t)id * 64 % BD_DEV_SECTORS;
        req->nb_sectors = 8u << (id % BD_NSIZES);
        req->is_write = id % 3 == 0;
        req->buf = NULL;
        return req;
}

static void bd_req_submit(struct bd_worker *w, struct bd_req *req)
{
        size_t len = (size_t)req->nb_sectors * BD_SECTOR_SIZE;

        req->buf = bd_vmalloc(len);
        trace_blk_req_debug(req, 0);
        trace_blk_req_submit(req, req->sector, req->nb_sectors, req->is_write);
        if (req->is_write)
                memset(req->buf, (int)(req->id & 0xff), len);
        else
                memcpy(req->buf, bd_zero_page, len < 4096 ? len : 4096);
        w->sizes[req->id % BD_NSIZES]++;
}

/* Every tenth request fails, as if the medium had a bad sector there. */
static void bd_req_complete(struct bd_worker *w, struct bd_req *req)
{
        int ret = req->id % 10 == 9 ? -EIO : 0;

        trace_blk_req_debug(req, 1);
        if (ret < 0) {
                trace_blk_req_error(req, req->sector, "medium error");
                w->failed++;
        }
        trace_blk_req_complete(req, ret);
        bd_vfree(req->buf);
        free(req);
}

/*
 * The per-size counts cost a string to build, so they are only computed when
 * somebody listens: QEMU's trace_event_get_state_backends() guard.
 */
static void bd_worker_report(const struct bd_worker *w)
{
        char sizes[128];
        int n = 0;

        if (!trace_event_get_state_backends(TRACE_BLK_WORKER_STATS))
                return;
        for (unsigned i = 0; i < BD_NSIZES; i++)
                n += snprintf(sizes + n, sizeof(sizes) - (size_t)n, "%s%uk:%u",
                              i ? " " : "", (8u << i) * BD_SECTOR_SIZE / 1024, w->sizes[i]);
        trace_blk_worker_stats(w->index, sizes);
}

/* A worker runs requests index, index + threads, ...; BD_QUEUE_DEPTH of them
 * in flight, completed in submission order. */
static void *bd_worker_run(void *arg)
{
        struct bd_worker *w = arg;
        struct bd_req *queue[BD_QUEUE_DEPTH];
        unsigned head = 0, inflight = 0;

        trace_blk_worker_start(w->index, w->nb_requests);
        for (unsigned n = 0; n < w->nb_requests; n++) {
                unsigned long id = (unsigned long)n * bd_nthreads + (unsigned)w->index;

                if (inflight == BD_QUEUE_DEPTH) {
                        bd_req_complete(w, queue[head]);
                        head = (head + 1) % BD_QUEUE_DEPTH;
                        inflight--;
                }
                queue[(head + inflight) % BD_QUEUE_DEPTH] = bd_req_new(id);
                bd_req_submit(w, queue[(head + inflight) % BD_QUEUE_DEPTH]);
                inflight++;
        }
        for (; inflight > 0; inflight--) {
                bd_req_complete(w, queue[head]);
                head = (head + 1) % BD_QUEUE_DEPTH;
        }
        bd_worker_report(w);
        return NULL;
}

static int bd_list_one(const struct tj_event_info *info, void *userdata)
{
        (void)userdata;
        printf("%-20s %-10s %s\n", info->name, info->group,
               !info->compiled_in ? "compiled-out" : info->enabled ? "on" : "off");
        return 0;
}

static void bd_usage(FILE *f)
{
        fputs("Usage: blockdemo [OPTION]...\n"
              "Run a toy block layer that traces its requests with tracejournal.\n"
              "\n"
              "  -t, --threads N     worker threads (1-256, default 4)\n"
              "  -r, --requests N    requests in all (default 1000)\n"
              "  -T, --trace OPT     QEMU -trace option: [enable=]PATTERN, events=FILE,\n"
              "                      file=FILE; may be repeated\n"
              "  -l, --list          list the trace events and their state, then exit\n"
              "  -s, --stats         print tracejournal's counters on stderr at exit\n"
              "  -h, --help          show this help\n"
              "  -V, --version       show the version\n"
              "\n"
              "Trace identifier: qemu-trace (TJ_IDENTIFIER overrides it).  Output:\n"
              "TJ_OUTPUT (default journald).  See tracejournal(7).\n", f);
}

/* Parse a decimal count in [MIN, MAX]; returns 0 or -EINVAL. */
static int bd_parse_count(const char *s, unsigned long min, unsigned long max,
                          unsigned long *ret_n)
{
        char *end;
        unsigned long n;

        if (*s < '0' || *s > '9')
                return -EINVAL;
        errno = 0;
        n = strtoul(s, &end, 10);
        if (errno || *end || n < min || n > max)
                return -EINVAL;
        *ret_n = n;
        return 0;
}

/*
 * The first events=FILE item of OPT whose FILE does not exist, copied into
 * BUF, or NULL.  Items are split as tj_trace_opt() splits them: at each ','
 * but a doubled one, which is a ',' of the item.
 */
static const char *bd_missing_events_file(const char *opt, char *buf, size_t size)
{
        for (const char *p = opt; *p; ) {
                size_t n = 0;

                for (; *p && (*p != ',' || p[1] == ','); p++) {
                        if (*p == ',')
                                p++;
                        if (n + 1 < size)
                                buf[n++] = *p;
                }
                buf[n] = '\0';
                if (*p)
                        p++;
                if (strncmp(buf, "events=", 7) == 0 && access(buf + 7, F_OK) < 0 &&
                    errno == ENOENT)
                        return buf + 7;
        }
        return NULL;
}

/* Apply one --trace option; prints the error and returns -errno. */
static int bd_apply_trace(const char *opt)
{
        int r = tj_trace_opt(opt);
        char buf[4096];
        const char *missing;

        /* -ENOENT is also an events= file that does not exist: name it */
        if (r == -ENOENT && (missing = bd_missing_events_file(opt, buf, sizeof(buf))))
                fprintf(stderr, "blockdemo: --trace %s: %s: %s\n", opt, missing,
                        strerror(ENOENT));
        else if (r == -ENOENT)
                fprintf(stderr, "blockdemo: --trace %s: no event matches\n", opt);
        else if (r < 0)
                fprintf(stderr, "blockdemo: --trace %s: %s\n", opt, strerror(-r));
        return r;
}

static int bd_run(unsigned long nrequests, bool stats)
{
        struct bd_worker *workers = calloc(bd_nthreads, sizeof(*workers));
        unsigned started = 0, failed = 0;
        int ret = BD_EXIT_OK;

        if (!workers)
                bd_oom();
        bd_zero_page_init();
        for (unsigned i = 0; i < BD_NDEVS; i++)
                bd_dev_open(&bd_devs[i]);
        for (; started < bd_nthreads; started++) {
                struct bd_worker *w = &workers[started];
                int r;

                w->index = (int)started;
                w->nb_requests = (unsigned)(nrequests / bd_nthreads +
                                            (started < nrequests % bd_nthreads));
                r = pthread_create(&w->thread, NULL, bd_worker_run, w);
                if (r) {
                        fprintf(stderr, "blockdemo: pthread_create: %s\n", strerror(r));
                        ret = BD_EXIT_FAILURE;
                        goto out;
                }
        }
out:
        for (unsigned i = 0; i < started; i++) {
                pthread_join(workers[i].thread, NULL);
                failed += workers[i].failed;
        }
        if (ret == BD_EXIT_OK) {
                trace_blk_drain_all();
                printf("blockdemo: %u devices, %u threads, %lu requests (%u failed), "
                       "%u buffers never freed\n", BD_NDEVS, bd_nthreads, nrequests,
                       failed, BD_LEAKS);
        }
        if (stats) {
                struct tj_stats st;

                tj_flush();
                if (tj_get_stats(&st) == 0)
                        fprintf(stderr, "blockdemo: events emitted %" PRIu64 ", written %"
                                PRIu64 ", dropped %" PRIu64 "\n",
                                st.emitted, st.written, st.dropped);
        }
        free(workers);
        return ret;
}

int main(int argc, char **argv)
{
        static const struct option options[] = {
                { "threads",  required_argument, NULL, 't' },
                { "requests", required_argument, NULL, 'r' },
                { "trace",    required_argument, NULL, 'T' },
                { "list",     no_argument,       NULL, 'l' },
                { "stats",    no_argument,       NULL, 's' },
                { "help",     no_argument,       NULL, 'h' },
                { "version",  no_argument,       NULL, 'V' },
                { NULL, 0, NULL, 0 },
        };
        unsigned long nrequests = 1000, n;
        bool list = false, stats = false;
        int c, ret;

        /*
         * Set up tracing first, as QEMU does, so --trace sees every event.  A
         * problem with TJ_* (unknown pattern, output) is reported by the
         * library itself, once, and tracing goes on: nothing to add here.
         */
        (void)tj_init("qemu-trace");

        while ((c = getopt_long(argc, argv, "t:r:T:lshV", options, NULL)) != -1) {
                switch (c) {
                case 't':
                        if (bd_parse_count(optarg, 1, BD_MAX_THREADS, &n) < 0) {
                                fprintf(stderr, "blockdemo: --threads: '%s' is not a number "
                                        "from 1 to %d\n", optarg, BD_MAX_THREADS);
                                ret = BD_EXIT_USAGE;
                                goto out;
                        }
                        bd_nthreads = (unsigned)n;
                        break;
                case 'r':
                        if (bd_parse_count(optarg, 0, BD_MAX_REQUESTS, &nrequests) < 0) {
                                fprintf(stderr, "blockdemo: --requests: '%s' is not a number "
                                        "from 0 to %lu\n", optarg, BD_MAX_REQUESTS);
                                ret = BD_EXIT_USAGE;
                                goto out;
                        }
                        break;
                case 'T':
                        if (bd_apply_trace(optarg) < 0) {
                                ret = BD_EXIT_USAGE;
                                goto out;
                        }
                        break;
                case 'l':
                        list = true;
                        break;
                case 's':
                        stats = true;
                        break;
                case 'h':
                        bd_usage(stdout);
                        ret = BD_EXIT_OK;
                        goto out;
                case 'V':
                        printf("blockdemo (tracejournal) %s\n", TJ_VERSION_STRING);
                        ret = BD_EXIT_OK;
                        goto out;
                default:
                        bd_usage(stderr);
                        ret = BD_EXIT_USAGE;
                        goto out;
                }
        }
        if (optind < argc) {
                fprintf(stderr, "blockdemo: unexpected argument '%s'\n", argv[optind]);
                ret = BD_EXIT_USAGE;
                goto out;
        }
        if (list) {
                tj_event_foreach(NULL, bd_list_one, NULL);
                ret = BD_EXIT_OK;
                goto out;
        }
        ret = bd_run(nrequests, stats);
out:
        fflush(stdout);
        tj_shutdown();
        return ret;
}
