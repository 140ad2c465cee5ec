/*
 * out_simple.c - the simple output: a binary trace file in QEMU's simpletrace
 * format, version 4 (trace/simple.c, scripts/simpletrace.py).
 *
 * All words are host-endian.  The file starts with a header of three u64:
 * ~0 (header event id), the magic 0xf2b177cb0aa429b4 and the version 4.
 * Then records, each preceded by a u64 type: 0 maps an event id to its name
 * (u64 id, u32 length, name bytes); 1 is an event (u64 id, u64 timestamp in
 * ns of CLOCK_MONOTONIC, u32 record length including these fields, u32 pid,
 * then one u64 per argument, a string being a u32 length and its bytes).
 * Lost events are an event record with id ~0 - 1 and one argument, the
 * count.  An event's mapping is written before its first event record.
 * The file is TJ_SIMPLE_FILE, default trace-<pid>, mode 0600, on a
 * descriptor above 2 (output_fd_above_stdio(): as stdout, the program's
 * printf() went in the middle of the records); the writer
 * thread writes it through a buffer of its own (simple_buf), not stdio: at
 * exit() glibc flushes every FILE without taking its lock, so a file that is
 * a FIFO whose reader stopped reading hung the process in that flush after
 * the library's bounded one had left the writer stuck, and raced with it.
 * Closing writes what the buffer holds for at most SIMPLE_CLOSE_MS; what is
 * left is lost and counted (simple_take_lost()).  QEMU writes every mapping
 * when it opens the file, we write each before its event's first record:
 * simpletrace.py reads both (checked by hand with QEMU's
 * scripts/simpletrace.py on the output of tests/lib-emit, arguments typed by
 * tests/simpletrace/tgroup.trace-events).  QEMU cuts strings at 512 bytes;
 * we do not.
 * An argument is a string by its declared type, as QEMU decides
 * (simple_is_string()), not by its conversion: where the two differ the
 * record lacks the value QEMU writes, and an empty string or address 0
 * takes its place, with a warning.  Writing by the conversion put a
 * pointer where simpletrace.py reads a string, and the rest of the file
 * out of step.
 *
 * A fork child writes a file of its own, with its own header and mappings:
 * trace-<its pid>, or TJ_SIMPLE_FILE.<its pid>.  It drops, unwritten, what
 * it inherited in the stream's buffer (the parent writes that), and opens
 * its file at its first record.  Writing on in the parent's file put the
 * child's copy of that buffer, header and all, in the middle of it.
 *
 * A write that fails (a full disk, RLIMIT_FSIZE) takes the file back to the
 * end of its last whole record known written, and what was given to the
 * stream since is lost: counted (simple_take_lost()) and reported in a
 * dropped-events record once writes go through again.  The stream had left
 * a record cut short in the file, later records went on after it and the
 * rest of the file could not be read; the records lost in the stream's
 * buffer counted written, and no loss was reported.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#define SIMPLE_HEADER_ID      UINT64_MAX
#define SIMPLE_DROPPED_ID     (UINT64_MAX - 1)
#define SIMPLE_MAGIC          0xf2b177cb0aa429b4ull
#define SIMPLE_VERSION        4
#define SIMPLE_TYPE_MAPPING   0
#define SIMPLE_TYPE_EVENT     1
#define SIMPLE_MAP_WRITTEN    1         /* an event's mapping is in the file */
#define SIMPLE_MAP_GIVEN      2         /* ... given to the stream, not flushed yet */
#define SIMPLE_MAP_STATE      3
#define SIMPLE_MAP_CHECKED    4         /* its arguments checked (simple_check_args()) */
#define SIMPLE_MAP_ODD        8         /* ... one is not written by its kind */
#define SIMPLE_BUF_SIZE       65536
#define SIMPLE_CLOSE_MS       100       /* the bound of the last write, at close */

static int simple_fd = -1;
static unsigned char simple_buf[SIMPLE_BUF_SIZE];
static size_t simple_len;               /* bytes in simple_buf */
static bool simple_err;                 /* a write failed: simple_recover() */
static uint8_t *simple_mapped;          /* by event id: SIMPLE_MAP_... */
static size_t simple_nmapped;
static bool simple_map_unsure;          /* a mapping is SIMPLE_MAP_GIVEN */
static off_t simple_done;               /* the file's bytes known written, whole records */
static off_t simple_off;                /* bytes given to the stream */
static uint64_t simple_unsure;          /* event records given since simple_done */
static uint64_t simple_unsure_reported; /* losses reported since simple_done */
static uint64_t simple_lost;            /* for simple_take_lost() */
static uint64_t simple_lost_reported;
/* A fork child of a process that had the file open: its own file
 * (simple_open()), for good, also once closed and opened again (an outputs
 * change away and back, tj_shutdown() then tj_init()).  Cleared with the
 * close, a reopen in the child truncated the parent's TJ_SIMPLE_FILE and
 * wrote the child's records into it, the parent's own going on after a
 * hole of zeros: the file could no longer be read. */
static bool simple_forked;
static bool simple_lazy;                /* open it at the first record (a fork child) */
static bool simple_opened;              /* a file was opened (a FIFO too): a fork child's is its own */
static struct output_files simple_files; /* the files opened: appended to when opened again */
static pthread_once_t simple_once = PTHREAD_ONCE_INIT;

static void simple_forget(void)
{
        free(simple_mapped);
        simple_mapped = NULL;
        simple_nmapped = 0;
        simple_map_unsure = false;
        simple_done = simple_off = 0;
        simple_unsure = simple_unsure_reported = 0;
        simple_lost = simple_lost_reported = 0;
}

/* In a fork child, which has one thread.  A file the parent opened, open
 * now or closed (an outputs change away, which it may come back from), is
 * the parent's: the child's goes to a name of its own.  Only when it was
 * open did the child take the name; closed, it appended to the parent's
 * file, both writing at their own offsets over each other's records. */
static void simple_fork_child(void)
{
        if (simple_opened)
                simple_forked = true;
        simple_opened = false;
        output_files_forget(&simple_files);     /* the parent's */
        if (simple_fd < 0)
                return;
        simple_len = 0;         /* the parent's bytes, which the parent writes */
        close(simple_fd);
        simple_fd = -1;
        simple_forget();
        simple_forked = simple_lazy = true;
}

static void simple_init_once(void)
{
        pthread_atfork(NULL, NULL, simple_fork_child);
}

/*
 * Write out the buffer.  The descriptor is non-blocking (a FIFO's): where it
 * would block, wait for room, for ever when TIMEOUT_MS is negative (the
 * writer thread, as a blocking write(2) would), else at most TIMEOUT_MS.
 * 0, or -1 and simple_err set, the buffer kept for simple_recover().
 */
static int simple_out(int timeout_ms)
{
        int64_t until = tj_clock_ns(CLOCK_MONOTONIC) + (int64_t)timeout_ms * 1000000;
        size_t done = 0;

        while (done < simple_len) {
                ssize_t n = write(simple_fd, simple_buf + done, simple_len - done);
                struct pollfd p = { simple_fd, POLLOUT, 0 };
                int wait = -1;

                if (n >= 0) {
                        done += (size_t)n;
                        continue;
                }
                if (errno == EINTR)
                        continue;
                if (errno != EAGAIN)
                        break;
                if (timeout_ms >= 0) {
                        int64_t left = until - tj_clock_ns(CLOCK_MONOTONIC);

                        if (left <= 0)
                                break;
                        wait = (int)((left + 999999) / 1000000);
                }
                if (poll(&p, 1, wait) < 0 && errno != EINTR)
                        break;
        }
        if (done < simple_len) {
                simple_err = true;
                return -1;
        }
        simple_len = 0;
        return 0;
}

/* Buffer N bytes at P; nothing once a write failed (simple_err). */
static void simple_put(const void *p, size_t n)
{
        const unsigned char *c = p;

        simple_off += (off_t)n;
        while (n > 0 && !simple_err) {
                size_t k = SIMPLE_BUF_SIZE - simple_len;

                if (k == 0) {
                        simple_out(-1);
                        continue;
                }
                if (k > n)
                        k = n;
                memcpy(simple_buf + simple_len, c, k);
                simple_len += k;
                c += k;
                n -= k;
        }
}

static void simple_u64(uint64_t x)
{
        simple_put(&x, sizeof(x));
}

static void simple_u32(uint32_t x)
{
        simple_put(&x, sizeof(x));
}

static void simple_header(void)
{
        simple_u64(SIMPLE_HEADER_ID);
        simple_u64(SIMPLE_MAGIC);
        simple_u64(SIMPLE_VERSION);
}

/* The mappings given since the last flush are in the file (WRITTEN), or
 * were lost with it (0: written again before their event's next record). */
static void simple_maps_settle(uint8_t to)
{
        if (!simple_map_unsure)
                return;
        for (size_t i = 0; i < simple_nmapped; i++)
                if ((simple_mapped[i] & SIMPLE_MAP_STATE) == SIMPLE_MAP_GIVEN)
                        simple_mapped[i] = (uint8_t)((simple_mapped[i] & ~SIMPLE_MAP_STATE) | to);
        simple_map_unsure = false;
}

/*
 * A write failed: what the stream holds is dropped, the file cut back to its
 * last whole record known written, and the records given since counted
 * lost.  A file that cannot be cut (a FIFO) is written on from where it is.
 */
static void simple_recover(void)
{
        simple_len = 0;
        simple_err = false;
        if (ftruncate(simple_fd, simple_done) == 0)
                lseek(simple_fd, simple_done, SEEK_SET);
        simple_off = simple_done;
        simple_lost += simple_unsure;
        simple_lost_reported += simple_unsure_reported;
        simple_unsure = simple_unsure_reported = 0;
        simple_maps_settle(0);
        if (simple_done == 0)
                simple_header();
}

/*
 * Open the simple output.  Its file is truncated the first time the process
 * opens it, and opened again (tj_shutdown() then tj_init(), an outputs
 * change away and back, TJ_SIMPLE_FILE changed to another file and back) it
 * goes on after its last record, with no second header, as the log output's
 * file= does (output_file_start()): truncating it lost the events written
 * before, counted written.  A fork child forgets the files its parent
 * opened: its own has a name of its own.  The writer's lock is held, or no
 * writer runs.
 */
static int simple_open(void)
{
        const char *path = getenv("TJ_SIMPLE_FILE");
        char def[64], *own = NULL;
        off_t end = 0;
        bool again = false;
        int fd, ret = 0;

        pthread_once(&simple_once, simple_init_once);
        if (!path || !path[0]) {
                snprintf(def, sizeof(def), "trace-%d", (int)getpid());
                path = def;
        } else if (simple_forked) {
                if (asprintf(&own, "%s.%d", path, (int)getpid()) < 0)
                        return -ENOMEM;
                path = own;
        }
        fd = output_fd_above_stdio(open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
        ret = fd < 0 ? -errno : output_file_start(&simple_files, fd, &again);
        if (ret < 0) {
                config_warn("simple: %s: %s", path, strerror(-ret));
                if (fd >= 0)
                        close(fd);
                goto out;
        }
        if (again) {
                end = lseek(fd, 0, SEEK_END);
                if (end < 0)
                        end = 0;        /* a FIFO: a stream of its own */
        }
        /* after open(): a FIFO's open() still waits for its reader */
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
        simple_fd = fd;
        simple_opened = true;
        simple_len = 0;
        simple_err = false;
        simple_forget();
        simple_done = simple_off = end;
        if (end == 0)
                simple_header();
out:
        free(own);
        return ret;
}

/* The file is open: in a fork child, its own is opened now. */
static int simple_ready(void)
{
        if (simple_fd < 0 && simple_lazy && simple_open() < 0)
                simple_lazy = false;    /* said once: the output gives up */
        return simple_fd >= 0 ? 0 : -EBADF;
}

/*
 * Does QEMU's simple backend record argument A as a string (a u32 length
 * and the bytes)?  It decides by the type as written (tracetool's
 * is_string(): it begins with 'const char*', 'char*', 'const char *' or
 * 'char *' and has one '*'), not by the conversion, and simpletrace.py
 * reads by the same rule.  An argument with no type given is a string by
 * its kind.
 */
static bool simple_is_string(const struct tj_arg_desc *a)
{
        const char *t = a->ctype, *star;

        if (!t)
                return a->kind == TJ_ARG_STRING;
        t += strspn(t, " \t");
        star = strchr(t, '*');
        if (!star || strchr(star + 1, '*'))
                return false;
        return strncmp(t, "const char*", 11) == 0 || strncmp(t, "char*", 5) == 0 ||
               strncmp(t, "const char *", 12) == 0 || strncmp(t, "char *", 6) == 0;
}

/* Say the arguments of EV whose value the record does not hold as QEMU
 * writes it (a string printed with %p, an address printed with %s), once a
 * file, when EV is mapped; true when there is one.  Only then does
 * simple_write() ask simple_is_string() of each argument of each record. */
static bool simple_check_args(const struct tj_event *ev)
{
        bool odd = false;

        for (unsigned i = 0; i < ev->nargs; i++) {
                const struct tj_arg_desc *a = &ev->args[i];
                bool str = a->kind == TJ_ARG_STRING;

                if (str == simple_is_string(a))
                        continue;
                odd = true;
                config_warn("simple: %s: argument '%s' ('%s' printed with %%%c) is written as %s, "
                            "as QEMU's simpletrace reads %s there", ev->name, a->name, a->ctype,
                            str ? 's' : 'p', str ? "address 0" : "an empty string",
                            str ? "an address" : "a string");
        }
        return odd;
}

/* Is A written as a string?  By its kind, unless its event is ODD. */
static bool simple_arg_string(const struct tj_arg_desc *a, bool odd)
{
        return odd ? simple_is_string(a) : a->kind == TJ_ARG_STRING;
}

static int simple_map(const struct tj_event *ev)
{
        size_t len = strlen(ev->name), n;
        uint8_t *p;
        int ret = 0;

        if (ev->id >= simple_nmapped) {
                n = ev->id + 64;
                p = realloc(simple_mapped, n);
                if (!p) {
                        ret = -ENOMEM;
                        goto out;
                }
                memset(p + simple_nmapped, 0, n - simple_nmapped);
                simple_mapped = p;
                simple_nmapped = n;
        }
        if (simple_mapped[ev->id] & SIMPLE_MAP_STATE)
                goto out;
        if (!(simple_mapped[ev->id] & SIMPLE_MAP_CHECKED))
                simple_mapped[ev->id] |= SIMPLE_MAP_CHECKED |
                                         (simple_check_args(ev) ? SIMPLE_MAP_ODD : 0);
        simple_u64(SIMPLE_TYPE_MAPPING);
        simple_u64(ev->id);
        simple_u32((uint32_t)len);
        simple_put(ev->name, len);
        simple_mapped[ev->id] |= SIMPLE_MAP_GIVEN;
        simple_map_unsure = true;
out:
        return ret;
}

static int simple_write(const struct record *r, const tj_value *v, const char *msg)
{
        const struct tj_event *ev = r->ev;
        uint32_t size = 8 + 8 + 4 + 4;
        bool odd;
        int ret;

        (void)msg;
        ret = simple_ready();
        if (ret < 0)
                return ret;
        ret = simple_map(ev);
        if (ret < 0)
                goto out;
        odd = simple_mapped[ev->id] & SIMPLE_MAP_ODD;
        for (unsigned i = 0; i < ev->nargs; i++)
                if (!simple_arg_string(&ev->args[i], odd))
                        size += 8;
                else if (ev->args[i].kind == TJ_ARG_STRING)
                        size += 4 + (uint32_t)(v[i].s ? strlen(v[i].s) : 0);
                else
                        size += 4;
        simple_u64(SIMPLE_TYPE_EVENT);
        simple_u64(ev->id);
        simple_u64((uint64_t)r->mono_ns);
        simple_u32(size);
        simple_u32((uint32_t)getpid());
        for (unsigned i = 0; i < ev->nargs; i++) {
                bool str = ev->args[i].kind == TJ_ARG_STRING;

                if (simple_arg_string(&ev->args[i], odd)) {
                        /* printed with %p, the record has its address
                         * only: written as "" */
                        uint32_t len = (uint32_t)(str && v[i].s ? strlen(v[i].s) : 0);

                        simple_u32(len);
                        if (len)
                                simple_put(v[i].s, len);
                } else {
                        /* printed with %s, the record has its bytes, not
                         * its address: written as 0 */
                        simple_u64(str ? 0 : v[i].u);
                }
        }
        if (simple_err) {
                simple_recover();
                return -EIO;
        }
        simple_unsure++;
out:
        return ret;
}

static int simple_report_dropped(uint64_t n, int64_t realtime_ns, int64_t mono_ns)
{
        (void)realtime_ns;
        if (simple_ready() < 0)
                return -EBADF;
        simple_u64(SIMPLE_TYPE_EVENT);
        simple_u64(SIMPLE_DROPPED_ID);
        simple_u64((uint64_t)mono_ns);
        simple_u32(8 + 8 + 4 + 4 + 8);
        simple_u32((uint32_t)getpid());
        simple_u64(n);
        if (simple_err) {
                simple_recover();
                return -EIO;
        }
        simple_unsure_reported += n;
        return 0;
}

static void simple_flush(void)
{
        if (simple_fd < 0)
                return;
        if (simple_err || simple_out(-1) < 0) {
                simple_recover();
                return;
        }
        simple_done = simple_off;
        simple_unsure = simple_unsure_reported = 0;
        simple_maps_settle(SIMPLE_MAP_WRITTEN);
}

static uint64_t simple_take_lost(uint64_t *ret_reported)
{
        uint64_t n = simple_lost;

        *ret_reported = simple_lost_reported;
        simple_lost = simple_lost_reported = 0;
        return n;
}

/* What the buffer holds is written for at most SIMPLE_CLOSE_MS (a FIFO
 * whose reader stopped reading must not hold up tj_shutdown() and exit());
 * what is not is lost, for the writer to take with simple_take_lost(). */
static void simple_close(void)
{
        uint64_t lost = 0;

        if (simple_fd >= 0) {
                if (simple_err || simple_out(SIMPLE_CLOSE_MS) < 0)
                        simple_recover();
                else
                        simple_unsure = 0;
                lost = simple_lost;
                close(simple_fd);
        }
        simple_fd = -1;
        simple_len = 0;
        simple_err = false;
        simple_forget();
        simple_lost = lost;
        simple_lazy = false;
}

TJ_HIDDEN const struct tj_output out_simple = {
        .name = "simple",
        .open = simple_open,
        .write = simple_write,
        .report_dropped = simple_report_dropped,
        .flush = simple_flush,
        .take_lost = simple_take_lost,
        .close = simple_close,
};
