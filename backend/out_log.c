/*
 * out_log.c - the log output: one text line per event, as QEMU's log backend.
 *
 * "<event> <message>\n" on stderr, or in the file given by tj_trace_opt()'s
 * "file=" (created or truncated, as QEMU's -D does; appended to when the
 * process opens it again, log_open()).  TJ_LOG_TIMESTAMP=1 puts
 * QEMU's prefix before it: "<tid>@<sec>.<usec>:" from the event's own clock.
 * Unlike the other outputs it is written by the calling thread, with one
 * writev() per line so that lines of concurrent threads do not interleave (in
 * a pipe, up to PIPE_BUF bytes: output_fd_writev()); one interrupted by a
 * signal or short is continued until the line is out whole.
 * Control characters in arguments are written as they are, as QEMU does.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include "internal.h"

static atomic_int log_fd = 2;
static atomic_bool log_active;          /* the log output is selected */
static atomic_uint log_writing;         /* callers between their log_active check and write */
/* The *WRITING of output_fd_writev() the calling thread is counted in. */
static __thread atomic_uint *output_fd_in __attribute__((tls_model("initial-exec")));

/*
 * FD, or, when it is 0, 1 or 2, a copy of it above 2 (FD closed): a program
 * started with standard input, output or error closed gets one of those
 * from open(), and its own use of stdio would reach the output's file (its
 * printf() into the trace), while output_fd_install() takes a descriptor
 * below 3 for stdio's own and never parks nor closes it (a leak at each
 * reopen).  FD when it is -1; -1 with errno, FD closed, when the copy fails.
 * The outputs' files, sockets and memfd and the control endpoint's
 * descriptors all go through it (not the events file tj_enable_file() reads
 * and closes at once): a datagram socket as stdout made
 * the program's printf() fail, the simple output's file as stdout took it
 * in the middle of its records, a socket as stdin was what it read.
 */
int output_fd_above_stdio(int fd)
{
        int copy, err;

        if (fd < 0 || fd > 2)
                return fd;
        copy = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        err = errno;
        close(fd);
        errno = err;
        return copy;
}

/*
 * Make *SLOT refer to FD's file (FD is consumed unless it is below 3: the
 * stdio descriptor given as such, stderr for the log output; a file opened
 * goes through output_fd_above_stdio() first).  Once
 * *SLOT holds a descriptor of our own its number never changes: dup3() swaps
 * the file under it atomically, so a thread writing while the outputs are
 * switched (the control endpoint does it at any time) writes to the old file
 * or the new one, never to a closed descriptor or one reused by the program.
 * Shared by the outputs the calling threads write themselves (log, ftrace).
 */
void output_fd_install(atomic_int *slot, int fd)
{
        int cur = atomic_load(slot);

        if (cur > 2 && cur != fd && fd >= 0 && dup3(fd, cur, O_CLOEXEC) >= 0) {
                if (fd > 2)
                        close(fd);
                return;
        }
        if (cur <= 2)
                atomic_store(slot, fd);
        else if (fd > 2 && cur != fd)
                close(fd);      /* dup3 failed: keep writing to the old file */
}

/* Park *SLOT's own descriptor on /dev/null: the file is closed, the number
 * stays valid for a thread still writing (output_fd_install). */
void output_fd_park(atomic_int *slot)
{
        int null;

        if (atomic_load(slot) <= 2)
                return;
        null = output_fd_above_stdio(open("/dev/null", O_WRONLY | O_CLOEXEC));
        if (null >= 0)
                output_fd_install(slot, null);
}

/*
 * The whole of IOV (N of them, at most OUTPUT_IOV_MAX) to FD, while *OPEN
 * stays set: 0, or -errno.  A write that a signal interrupted before it wrote
 * anything (EINTR: a handler the program installed without SA_RESTART, while
 * the write waited for a stopped or slow reader of a pipe) is made again.
 * When RESUME is set, a short write goes on with the rest: a pipe takes a
 * line over PIPE_BUF in parts as room comes, and a signal coming then ended
 * the writev() with part of it written, which was counted a success: the
 * line cut, and the next one went on after it.  Once part of the line is out
 * its rest is waited for on a descriptor that is not blocking (EAGAIN; a
 * line left cut would take the next one with it); any other failure then
 * leaves it cut, and the event is counted dropped.  Without RESUME a short
 * write fails (-EMSGSIZE): for trace_marker, whose every write is one entry
 * that the kernel cuts to its limit, writing the rest would make a second
 * entry of the line's tail (out_ftrace.c).  No lock: async-signal-safe.
 */
static int output_fd_writev_all(int fd, atomic_bool *open, const struct iovec *iov, int n,
                                bool resume)
{
        struct iovec rest[OUTPUT_IOV_MAX];
        struct iovec *v = rest;
        bool started = false;           /* part of the line is out */
        ssize_t r;

        if (n < 0 || n > OUTPUT_IOV_MAX)
                return -EINVAL;
        memcpy(rest, iov, (size_t)n * sizeof(*iov));
        while (n > 0 && v[n - 1].iov_len == 0)
                n--;            /* so that a write that took all ends the loop */
        if (n == 0)
                return 0;
        for (;;) {
                r = writev(fd, v, n);
                if (r > 0) {
                        started = true;
                        for (; n > 0 && (size_t)r >= v->iov_len; v++, n--)
                                r -= (ssize_t)v->iov_len;
                        if (n == 0)
                                break;
                        if (!resume)
                                return -EMSGSIZE;
                        v->iov_base = (char *)v->iov_base + r;
                        v->iov_len -= (size_t)r;
                } else if (r == 0)
                        return -EIO;    /* nothing taken, and no error said */
                else if (errno == EAGAIN && started) {
                        if (poll(&(struct pollfd){ .fd = fd, .events = POLLOUT }, 1, -1) < 0 &&
                            errno != EINTR)
                                return -errno;
                } else if (errno != EINTR)
                        return -errno;
                /* once output_fd_close() gave up waiting, FD is on /dev/null */
                if (!atomic_load(open))
                        return -EBADF;
        }
        return 0;
}

/*
 * Write IOV (N of them) to *SLOT whole (output_fd_writev_all(), RESUME as
 * there), unless *OPEN was cleared: -EBADF then, and the caller counts the
 * line dropped, as it does for any failure.  A caller counts a line written
 * when this says so, so it must not land on /dev/null: output_fd_close()
 * clears *OPEN, then waits for the callers counted in *WRITING, which saw it
 * set, to finish their write before it parks the descriptor.  Both sides go
 * through seq_cst operations, so either the caller sees *OPEN cleared or the
 * close sees the caller in *WRITING.  Lines of concurrent threads do not mix
 * in a file (O_APPEND: one writev() is one append) nor in a pipe up to
 * PIPE_BUF bytes, which a pipe takes whole; a longer one a pipe takes in
 * parts, between which another thread's line may come.  Shared by log and
 * ftrace.
 */
int output_fd_writev(atomic_int *slot, atomic_bool *open, atomic_uint *writing,
                     const struct iovec *iov, int n, bool resume)
{
        atomic_uint *outer = output_fd_in;
        int r = -EBADF;

        output_fd_in = writing;
        atomic_fetch_add(writing, 1);
        if (atomic_load(open))
                r = output_fd_writev_all(atomic_load(slot), open, iov, n, resume);
        atomic_fetch_sub(writing, 1);
        output_fd_in = outer;
        return r;
}

/*
 * In a fork child: the callers counted in *WRITING were threads it does not
 * have, but for the forking thread (a signal handler forked in the middle
 * of its write).  Left counted, they made every output_fd_close() wait its
 * 100 ms for writes that never end.
 */
void output_fd_after_fork_child(atomic_uint *writing)
{
        atomic_store(writing, output_fd_in == writing ? 1 : 0);
}

/* No caller writes to *SLOT from now on, and those already writing finish
 * first (at most 100 ms: a FIFO's writer may wait for its reader); then its
 * descriptor is parked on /dev/null. */
void output_fd_close(atomic_int *slot, atomic_bool *open, atomic_uint *writing)
{
        atomic_store(open, false);
        for (int i = 0; i < 2000 && atomic_load(writing); i++)
                nanosleep(&(struct timespec){ .tv_nsec = 50000 }, NULL);
        output_fd_park(slot);
}

/*
 * FD, just opened without O_TRUNC, is an output's file: truncate it when the
 * output has not opened that file before (the same device and inode, under
 * any name), and remember it in FILES; *RET_AGAIN says it had (the caller
 * appends).  Only the file truncated last was remembered, so an output
 * switched from file A to B and back (tj_trace_opt()'s file=, TJ_SIMPLE_FILE,
 * an outputs change) truncated A again, losing what it wrote there first.
 * A FIFO or a device is never truncated nor remembered.  Once FILES holds
 * OUTPUT_FILES_MAX files, the one remembered longest is forgotten: opened
 * again, it starts empty.  RET_AGAIN may be NULL.  0, or -errno (fstat() or
 * ftruncate() failed, FILES and *RET_AGAIN unchanged).
 */
int output_file_start(struct output_files *files, int fd, bool *ret_again)
{
        struct stat st;
        bool again = false;

        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                goto out;
        for (unsigned i = 0; i < files->n && !again; i++)
                again = files->seen[i].dev == st.st_dev && files->seen[i].ino == st.st_ino;
        if (again)
                goto out;
        if (ftruncate(fd, 0) < 0)
                return -errno;
        files->seen[files->next].dev = st.st_dev;
        files->seen[files->next].ino = st.st_ino;
        files->next = (files->next + 1) % OUTPUT_FILES_MAX;
        if (files->n < OUTPUT_FILES_MAX)
                files->n++;
out:
        if (ret_again)
                *ret_again = again;
        return 0;
}

/* Forget every file of FILES: each is truncated when next opened. */
void output_files_forget(struct output_files *files)
{
        files->n = files->next = 0;
}

/*
 * Open the log output.  The file of file= is truncated the first time the
 * process opens it, and appended to when opened again (output_file_start()):
 * the output closed and opened again (an outputs change away and back,
 * which the control endpoint makes at any time; tj_shutdown() and
 * tj_init()) or file= changed away and back goes on after what it wrote, as
 * QEMU's log file does (it truncated the whole trace so far).  A fork child
 * goes on with its parent's list: it appends to the files the parent
 * truncated, as the descriptor it inherited does.  Called with config_lock
 * held (tj_init(), tj_set_outputs(), tj_trace_opt()), which guards
 * log_files.
 */
static int log_open(void)
{
        static struct output_files log_files;
        int fd = 2, r;

        if (config.log_file[0]) {
                fd = open(config.log_file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
                          0600);        /* trace data: the owner's only */
                fd = output_fd_above_stdio(fd);
                r = fd < 0 ? -errno : output_file_start(&log_files, fd, NULL);
                if (r < 0) {
                        config_warn("log: %s: %s", config.log_file, strerror(-r));
                        if (fd >= 0)
                                close(fd);
                        fd = 2;
                }
        }
        output_fd_install(&log_fd, fd);
        atomic_store(&log_active, true);
        return 0;
}

/* tj_trace_opt("file=..."): switch files when the log output is in use. */
void out_log_reopen(void)
{
        if (atomic_load(&log_active))
                log_open();
}

/* Write the line whole, unless the output was closed (output_fd_writev()). */
static int log_line(const char *prefix, size_t plen, const char *msg)
{
        struct iovec iov[3] = {
                { (char *)prefix, plen },
                { (char *)msg, strlen(msg) },
                { (char *)"\n", 1 },
        };

        return output_fd_writev(&log_fd, &log_active, &log_writing, iov, 3, true);
}

static size_t log_prefix(char *buf, size_t size, int32_t tid, int64_t realtime_ns)
{
        int n;

        if (!atomic_load_explicit(&config.log_timestamp, memory_order_relaxed))
                return 0;
        n = snprintf(buf, size, "%" PRId32 "@%" PRId64 ".%06" PRId64 ":", tid,
                     realtime_ns / 1000000000, realtime_ns % 1000000000 / 1000);
        return n > 0 ? (size_t)n : 0;
}

static int log_write(const struct record *r, const tj_value *v, const char *msg)
{
        char prefix[64];

        (void)v;
        return log_line(prefix, log_prefix(prefix, sizeof(prefix), r->tid, r->realtime_ns),
                        msg);
}

static int log_report_dropped(uint64_t n, int64_t realtime_ns, int64_t mono_ns)
{
        char prefix[64], msg[64];

        (void)mono_ns;
        snprintf(msg, sizeof(msg), "tj_dropped %" PRIu64 " events dropped", n);
        return log_line(prefix, log_prefix(prefix, sizeof(prefix), emit_gettid(),
                                           realtime_ns), msg);
}

static void log_close(void)
{
        output_fd_close(&log_fd, &log_active, &log_writing);
}

static void log_fork_child(void)
{
        output_fd_after_fork_child(&log_writing);
}

__attribute__((constructor)) static void log_init_fork(void)
{
        pthread_atfork(NULL, NULL, log_fork_child);
}

TJ_HIDDEN const struct tj_output out_log = {
        .name = "log",
        .sync = true,
        .open = log_open,
        .write = log_write,
        .report_dropped = log_report_dropped,
        .close = log_close,
};
