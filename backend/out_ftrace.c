/*
 * out_ftrace.c - the ftrace output: one line per event written to the
 * kernel's tracefs trace_marker by the thread that traced it, so that program
 * events and kernel events sit in the ftrace buffer in the order they
 * happened.
 *
 * The line is typed, in the style of kernel tracepoints, so that
 * `traceql import --ftrace` gets the event back without any other input:
 *
 *     tgb_req[1234.5]: req=0x1000 sector=0 name="r0"
 *
 * the event name, [pid.seq] (TRACE_SEQ), then NAME=VALUE per argument:
 * signed and unsigned integers in decimal, pointers as 0x hex, strings in
 * double quotes with \" \\ \n \t \r and \xHH escapes (a NULL string is
 * (null), unquoted).  Losses are "tj_dropped[pid]: dropped=N".  A line is
 * at most FTRACE_LINE_MAX bytes, a long string being cut (between two UTF-8
 * characters) so that the arguments after it still fit, and goes out as one
 * write(2): the kernel takes one marker entry per write and needs no lock of
 * ours.  A write a signal interrupted before it wrote anything is made again;
 * a short one is not continued (output_fd_writev()'s RESUME unset): the
 * kernel cuts a marker write at its limit, which a line never reaches, and
 * the rest written after it would be a second entry, the line's tail.  The
 * event is counted dropped instead.  An event whose line cannot hold every
 * argument even so (a long name, long argument names) is not written but
 * counted dropped, and the first one of each open of the marker is said on
 * stderr by the writer thread (out_ftrace_say_noted()).
 *
 * The marker is the path in TJ_FTRACE_MARKER (a plain file or a fifo for
 * tests), else /sys/kernel/tracing/trace_marker, else, as QEMU's ftrace
 * backend finds it in /proc/mounts, that of tracefs mounted elsewhere or of
 * debugfs's tracing/ (where systems whose systemd mounts only debugfs have
 * tracefs, mounted when first looked at).  Its descriptor is above 2
 * (output_fd_above_stdio()).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mntent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>

#include "internal.h"

#define FTRACE_MARKER_DEFAULT "/sys/kernel/tracing/trace_marker"
/* A marker entry's limit, newline included, on every kernel: before 6.8 the
 * kernel cut a write to trace_marker at TRACE_BUF_SIZE, 1024 bytes (since
 * then TRACE_MARKER_MAX_SIZE, 4096): a longer line was cut mid-value, and
 * its import failed (an unterminated string) or read a wrong number. */
#define FTRACE_LINE_MAX 1024

static atomic_int ftrace_fd = -1;      /* see output_fd_install() */
static atomic_bool ftrace_ok;           /* the marker is open: a write can reach it */
static atomic_uint ftrace_writing;      /* callers between their ftrace_ok check and write */
/* getpid() is a system call: cached.  Atomic (relaxed: it orders nothing),
 * as every tj_init() stores it again in ftrace_open() while another thread
 * may be building a line with it (a thread tracing through tj_shutdown() and
 * tj_init(): ThreadSanitizer reported the plain int, lib-ftrace-shutdown-busy).
 * A lock-free load, so still safe in a signal handler. */
static atomic_int ftrace_pid;
static pthread_once_t ftrace_once = PTHREAD_ONCE_INIT;

/*
 * The first event of an open whose line cannot hold its arguments, noted by
 * the thread that traced it (ftrace_note_too_long()) and said by the writer
 * thread after its pass, holding no lock (out_ftrace_say_noted()): the
 * tracing thread may be in a signal handler, where config_warn()'s
 * vsnprintf() and stdio are not safe, and a stderr that blocks (a full
 * pipe) must hold up neither the traced thread nor, under the writer's
 * lock, a change of the outputs.  Before, the event was counted dropped
 * with no word said: a name or argument names too long for the marker lost
 * every event of it, silently.  Once per open (ftrace_opens): a reopen says
 * it again.  The note is one buffer: taken (NOTE_BUSY) by one thread, read
 * by the writer once NOTE_READY, then free again.
 */
#define FTRACE_NOTE_NAME 64     /* the bytes of the event name said, then "..." */
enum { FTRACE_NOTE_FREE, FTRACE_NOTE_BUSY, FTRACE_NOTE_READY };
static atomic_uint ftrace_opens;        /* ftrace_open()s that opened the marker */
static atomic_uint ftrace_noted_open;   /* the open whose too long event was noted */
static atomic_int ftrace_note_state;
static struct {
        char name[FTRACE_NOTE_NAME + 1];
        bool cut;                       /* the name was longer */
        size_t need;                    /* the bytes its line needs at least */
} ftrace_note;

static void ftrace_set_pid(void)
{
        atomic_store_explicit(&ftrace_pid, (int)getpid(), memory_order_relaxed);
}

/* In a fork child: a note another thread of the parent was filling is
 * never finished here, and one ready is the parent's to say. */
static void ftrace_after_fork_child(void)
{
        ftrace_set_pid();
        atomic_store(&ftrace_note_state, FTRACE_NOTE_FREE);
        output_fd_after_fork_child(&ftrace_writing);
}

static void ftrace_init_once(void)
{
        pthread_atfork(NULL, NULL, ftrace_after_fork_child);
}

/* Close the marker (output_fd_close()). */
static void ftrace_close(void)
{
        output_fd_close(&ftrace_fd, &ftrace_ok, &ftrace_writing);
}

/*
 * Open the marker of the tracefs or debugfs (TYPE) mounted in /proc/mounts,
 * as QEMU's ftrace backend looks for it: the first that opens.  A
 * descriptor and *RET_OPENED its path, or -1 with *RET_ERR (unless nothing
 * was found) the error of one that did not open and *RET_PATH its path.
 */
static int ftrace_open_mounted(const char *type, char *ret_path, char *ret_opened, size_t size,
                               int *ret_err)
{
        const char *sub = strcmp(type, "debugfs") == 0 ? "/tracing" : "";
        struct mntent *m, ent;
        char buf[2 * PATH_MAX], path[PATH_MAX + 32];
        FILE *f = setmntent("/proc/self/mounts", "re");
        int fd = -1;

        if (!f)
                return -1;
        while (fd < 0 && (m = getmntent_r(f, &ent, buf, sizeof(buf)))) {
                if (strcmp(m->mnt_type, type) != 0 ||
                    (size_t)snprintf(path, sizeof(path), "%s%s/trace_marker", m->mnt_dir,
                                     sub) >= sizeof(path))
                        continue;
                fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
                if (fd >= 0)
                        snprintf(ret_opened, size, "%s", path);
                else if (*ret_err == ENOENT || *ret_err == 0) {
                        *ret_err = errno;
                        snprintf(ret_path, size, "%s", path);
                }
        }
        endmntent(f);
        return fd;
}

/*
 * Whether the tracefs file NAME in the directory of the marker MARKER holds
 * "0".  The kernel fails a write to a marker with EBADF when tracing_on is
 * 0 and with EINVAL when options/markers is 0, and the events are counted
 * dropped; its tj_dropped line is written once the marker takes lines
 * again.  False when NAME is not there (TJ_FTRACE_MARKER a plain file or a
 * fifo) or does not read.  *RET_PATH is its path.
 */
static bool ftrace_is_off(const char *marker, const char *name, char *ret_path, size_t size)
{
        const char *slash = strrchr(marker, '/');
        int dir = slash ? (int)(slash - marker) + 1 : 0;
        char c = 0;
        int fd;

        if ((size_t)snprintf(ret_path, size, "%.*s%s", dir, marker, name) >= size)
                return false;
        fd = open(ret_path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0)
                return false;
        if (read(fd, &c, 1) != 1)
                c = 0;
        close(fd);
        return c == '0';
}

/* Warn when the marker at PATH takes no line: tracing is off, or the trace
 * option markers is.  Here, at open, not on the write path, which must stay
 * async-signal-safe; the global state is the user's to change (QEMU's
 * ftrace backend writes 1 to tracing_on; we do not). */
static void ftrace_check_on(const char *path)
{
        char off[PATH_MAX + 48];

        if (ftrace_is_off(path, "tracing_on", off, sizeof(off)))
                config_warn("ftrace: tracing is off (%s is 0): events are dropped until it is on",
                            off);
        if (ftrace_is_off(path, "options/markers", off, sizeof(off)))
                config_warn("ftrace: the trace option markers is off (%s is 0): events are "
                            "dropped until it is on", off);
}

static int ftrace_open(void)
{
        const char *path = getenv("TJ_FTRACE_MARKER");
        char failed[PATH_MAX + 32], opened[PATH_MAX + 32];
        int fd, err;

        pthread_once(&ftrace_once, ftrace_init_once);
        ftrace_set_pid();
        if (path && path[0])
                fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
        else {
                /* the error said is that of the usual place, unless a
                 * marker found elsewhere failed otherwise (EACCES) */
                path = FTRACE_MARKER_DEFAULT;
                fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
                err = fd < 0 ? errno : 0;
                if (fd < 0 && err == ENOENT) {
                        fd = ftrace_open_mounted("tracefs", failed, opened, sizeof(failed),
                                                 &err);
                        if (fd < 0)
                                fd = ftrace_open_mounted("debugfs", failed, opened,
                                                         sizeof(failed), &err);
                        if (fd < 0 && err != ENOENT)
                                path = failed;
                        else if (fd >= 0)
                                path = opened;
                }
                errno = err;
        }
        fd = output_fd_above_stdio(fd);
        if (fd < 0) {
                err = errno;
                config_warn("ftrace: %s: %s", path, strerror(err));
                ftrace_close();
                return -err;
        }
        ftrace_check_on(path);
        output_fd_install(&ftrace_fd, fd);
        atomic_fetch_add(&ftrace_opens, 1);     /* a too long event is said again */
        atomic_store(&ftrace_ok, true);
        return 0;
}

/* A line being built in a fixed buffer.  Once something did not fit, FULL
 * is set and nothing more is added, so a line is never cut inside a value
 * except a string, which is closed.  A full line is not sent: it lacks an
 * argument (ftrace_write()). */
struct ftrace_line {
        char buf[FTRACE_LINE_MAX];
        size_t len;
        bool full;
};

/* Append the LEN bytes of S whole, or set FULL. */
static void ftrace_add(struct ftrace_line *l, const char *s, size_t len)
{
        size_t room = sizeof(l->buf) - 1 - l->len;      /* keep one byte for '\n' */

        if (l->full || len > room) {
                l->full = true;
                return;
        }
        memcpy(l->buf + l->len, s, len);
        l->len += len;
}

static void ftrace_add_str(struct ftrace_line *l, const char *s)
{
        ftrace_add(l, s, strlen(s));
}

/*
 * The numbers are written here, not with snprintf(): the line is built by
 * the thread that traced, maybe in a signal handler, and the printf family
 * is not async-signal-safe (it reads the locale, and may allocate).
 */
static void ftrace_add_u64(struct ftrace_line *l, uint64_t u, unsigned base)
{
        static const char digits[] = "0123456789abcdef";
        char buf[20];
        size_t i = sizeof(buf);

        do {
                buf[--i] = digits[u % base];
                u /= base;
        } while (u);
        ftrace_add(l, buf + i, sizeof(buf) - i);
}

static void ftrace_add_i64(struct ftrace_line *l, int64_t i)
{
        if (i < 0)
                ftrace_add(l, "-", 1);
        /* the magnitude in unsigned arithmetic: -INT64_MIN does not fit */
        ftrace_add_u64(l, i < 0 ? 0 - (uint64_t)i : (uint64_t)i, 10);
}

/* The string being added from START was cut before a UTF-8 continuation
 * byte: take back the bytes of that character already added (its lead byte
 * and up to 2 continuation bytes), so that the line does not end a string
 * with part of a character.  Bytes that are no UTF-8 are left as they are. */
static void ftrace_cut_utf8(struct ftrace_line *l, size_t start)
{
        size_t i = l->len;

        while (i > start && l->len - i < 3 && ((unsigned char)l->buf[i - 1] & 0xc0) == 0x80)
                i--;
        if (i > start && ((unsigned char)l->buf[i - 1] & 0xc0) == 0xc0)
                l->len = i - 1;
}

/* Append S quoted and escaped, cut to what fits with its closing quote and
 * RESERVE bytes more (the arguments after it, ftrace_arg_min()), and at a
 * character boundary when S is UTF-8.  A line with a string is as long as
 * one without: 1024 bytes at most (the closing quote was counted twice, and
 * a line that needed 1024 bytes was cut to 1023, or dropped). */
static void ftrace_add_string(struct ftrace_line *l, const char *s, size_t reserve)
{
        static const char hex[] = "0123456789abcdef";
        size_t end = sizeof(l->buf) - 2;        /* the length before the closing '"',
                                                 * which leaves room for '\n' */
        size_t start;                           /* where S's bytes begin */

        end = reserve < end ? end - reserve : 0;
        if (!s) {
                ftrace_add_str(l, "(null)");
                return;
        }
        if (l->full || l->len + 1 > end) {
                l->full = true;
                return;
        }
        l->buf[l->len++] = '"';
        start = l->len;
        for (; *s; s++) {
                unsigned char c = (unsigned char)*s;
                char e[4];
                size_t n = 0;

                if (c == '"' || c == '\\')
                        e[n++] = '\\', e[n++] = (char)c;
                else if (c == '\n')
                        e[n++] = '\\', e[n++] = 'n';
                else if (c == '\t')
                        e[n++] = '\\', e[n++] = 't';
                else if (c == '\r')
                        e[n++] = '\\', e[n++] = 'r';
                else if (c < 0x20 || c == 0x7f)
                        e[0] = '\\', e[1] = 'x', e[2] = hex[c >> 4], e[3] = hex[c & 15], n = 4;
                else
                        e[n++] = (char)c;
                if (l->len + n > end) {
                        /* cut: what comes after has its room */
                        if ((c & 0xc0) == 0x80)
                                ftrace_cut_utf8(l, start);
                        break;
                }
                memcpy(l->buf + l->len, e, n);
                l->len += n;
        }
        l->buf[l->len++] = '"';
}

/* The digits of U in BASE. */
static size_t ftrace_u64_len(uint64_t u, unsigned base)
{
        size_t n = 1;

        while (u >= base) {
                u /= base;
                n++;
        }
        return n;
}

/* The bytes argument A of value V takes at least, " name=value": a number
 * whole, a string as "" (it is cut to fit) or (null).  A long string is cut
 * to leave this room to the arguments after it (it used to take the whole
 * line, and the numbers after it were left out: absent once imported). */
static size_t ftrace_arg_min(const struct tj_arg_desc *a, const tj_value *v)
{
        size_t n = 2 + strlen(a->name);

        switch (a->kind) {
        case TJ_ARG_SIGNED:
                return n + (v->i < 0) +
                       ftrace_u64_len(v->i < 0 ? 0 - (uint64_t)v->i : (uint64_t)v->i, 10);
        case TJ_ARG_UNSIGNED:
                return n + ftrace_u64_len(v->u, 10);
        case TJ_ARG_POINTER:
                return n + 2 + ftrace_u64_len((uintptr_t)v->p, 16);
        default:
                return n + (v->s ? 2 : 6);
        }
}

/* Write the line, unless the marker was closed (output_fd_writev()): a
 * short write is not continued, the event dropped (see the top). */
static int ftrace_send(struct ftrace_line *l)
{
        struct iovec iov;

        l->buf[l->len++] = '\n';
        iov = (struct iovec){ l->buf, l->len };
        return output_fd_writev(&ftrace_fd, &ftrace_ok, &ftrace_writing, &iov, 1, false);
}

/*
 * Note that EV's line needs NEED bytes, more than the marker takes, unless
 * an event was noted since the marker was opened (or the last note is not
 * said yet: this one is not, either).  Lock-free: the caller may be a signal
 * handler (no printf family, no allocation).
 */
static void ftrace_note_too_long(const struct tj_event *ev, size_t need)
{
        unsigned open = atomic_load(&ftrace_opens), noted = atomic_load(&ftrace_noted_open);
        int state = FTRACE_NOTE_FREE;
        size_t n = strlen(ev->name);

        if (noted == open || !atomic_compare_exchange_strong(&ftrace_noted_open, &noted, open) ||
            !atomic_compare_exchange_strong(&ftrace_note_state, &state, FTRACE_NOTE_BUSY))
                return;
        ftrace_note.cut = n > FTRACE_NOTE_NAME;
        if (ftrace_note.cut) {
                /* not inside a UTF-8 character (of 4 bytes at most) */
                n = FTRACE_NOTE_NAME;
                for (int k = 0; k < 3 && ((unsigned char)ev->name[n] & 0xc0) == 0x80; k++)
                        n--;
        }
        memcpy(ftrace_note.name, ev->name, n);
        ftrace_note.name[n] = '\0';
        ftrace_note.need = need;
        atomic_store(&ftrace_note_state, FTRACE_NOTE_READY);
}

/* Say the event ftrace_note_too_long() noted, if any.  Called by the writer
 * thread alone, after each pass, holding no lock. */
void out_ftrace_say_noted(void)
{
        if (atomic_load(&ftrace_note_state) != FTRACE_NOTE_READY)
                return;
        config_warn("ftrace: event %s%s needs at least %zu bytes, over the marker's limit of %d: "
                    "dropped (said once per open)", ftrace_note.name,
                    ftrace_note.cut ? "..." : "", ftrace_note.need, FTRACE_LINE_MAX);
        atomic_store(&ftrace_note_state, FTRACE_NOTE_FREE);
}

static int ftrace_write(const struct record *r, const tj_value *v, const char *msg)
{
        const struct tj_event *ev = r->ev;
        struct ftrace_line l;
        size_t after = 0;       /* ftrace_arg_min() of the arguments not yet added */
        size_t need;            /* the line's bytes with its strings cut to "" */
        int pid = atomic_load_explicit(&ftrace_pid, memory_order_relaxed);

        (void)msg;
        l.len = 0;
        l.full = false;
        for (unsigned i = 0; i < ev->nargs; i++)
                after += ftrace_arg_min(&ev->args[i], &v[i]);
        need = after;
        ftrace_add_str(&l, ev->name);
        ftrace_add(&l, "[", 1);
        ftrace_add_i64(&l, pid);
        ftrace_add(&l, ".", 1);
        ftrace_add_u64(&l, r->seq, 10);
        ftrace_add(&l, "]:", 2);
        for (unsigned i = 0; i < ev->nargs; i++) {
                const struct tj_arg_desc *a = &ev->args[i];

                after -= ftrace_arg_min(a, &v[i]);
                ftrace_add(&l, " ", 1);
                ftrace_add_str(&l, a->name);
                ftrace_add(&l, "=", 1);
                switch (a->kind) {
                case TJ_ARG_SIGNED:
                        ftrace_add_i64(&l, v[i].i);
                        break;
                case TJ_ARG_UNSIGNED:
                        ftrace_add_u64(&l, v[i].u, 10);
                        break;
                case TJ_ARG_POINTER:
                        ftrace_add(&l, "0x", 2);
                        ftrace_add_u64(&l, (uintptr_t)v[i].p, 16);
                        break;
                default:
                        ftrace_add_string(&l, v[i].s, after);
                        break;
                }
        }
        /* The name, the argument names and the numbers take more than the
         * line, with every string cut to "": the arguments that did not fit
         * were left out, and the line went out as if whole (an import read
         * them as absent; a name of 1023 bytes made an empty line).  The
         * event is lost, counted and reported so, and said once per open. */
        if (l.full) {
                /* "NAME[PID.SEQ]:", the arguments, '\n' */
                need += strlen(ev->name) + ftrace_u64_len((uint64_t)pid, 10) +
                        ftrace_u64_len(r->seq, 10) + 4 + 1;
                ftrace_note_too_long(ev, need);
                return -EMSGSIZE;
        }
        return ftrace_send(&l);
}

static int ftrace_report_dropped(uint64_t n, int64_t realtime_ns, int64_t mono_ns)
{
        struct ftrace_line l;

        (void)realtime_ns;
        (void)mono_ns;
        l.len = 0;
        l.full = false;
        ftrace_add_str(&l, "tj_dropped[");
        ftrace_add_i64(&l, atomic_load_explicit(&ftrace_pid, memory_order_relaxed));
        ftrace_add_str(&l, "]: dropped=");
        ftrace_add_u64(&l, n, 10);
        return ftrace_send(&l);
}

TJ_HIDDEN const struct tj_output out_ftrace = {
        .name = "ftrace",
        .sync = true,
        .open = ftrace_open,
        .write = ftrace_write,
        .report_dropped = ftrace_report_dropped,
        .close = ftrace_close,
};
