/*
 * out_ftrace.c - the ftrace output: one "<event> <message>" line per event
 * written to the kernel's tracefs trace_marker, so that program events show
 * up interleaved with kernel events in the ftrace buffer.
 *
 * The marker is /sys/kernel/tracing/trace_marker, or the path in
 * TJ_FTRACE_MARKER (a plain file or a fifo for tests).  Each line is one
 * write(), as the kernel takes one marker entry per write.  For now the
 * lines are written by the writer thread, not the calling thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>

#include "internal.h"

#define FTRACE_MARKER_DEFAULT "/sys/kernel/tracing/trace_marker"

static int ftrace_fd = -1;

static int ftrace_open(void)
{
        const char *path = getenv("TJ_FTRACE_MARKER");

        if (!path || !path[0])
                path = FTRACE_MARKER_DEFAULT;
        ftrace_fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
        if (ftrace_fd < 0) {
                config_warn("ftrace: %s: %s", path, strerror(errno));
                return -errno;
        }
        return 0;
}

static int ftrace_line(const char *msg)
{
        struct iovec iov[2] = {
                { (char *)msg, strlen(msg) },
                { (char *)"\n", 1 },
        };

        if (ftrace_fd < 0)
                return -EBADF;
        return writev(ftrace_fd, iov, 2) < 0 ? -errno : 0;
}

static int ftrace_write(const struct record *r, const tj_value *v, const char *msg)
{
        (void)r;
        (void)v;
        return ftrace_line(msg);
}

static int ftrace_report_dropped(uint64_t n, int64_t realtime_ns, int64_t mono_ns)
{
        char msg[64];

        (void)realtime_ns;
        (void)mono_ns;
        snprintf(msg, sizeof(msg), "tj_dropped %" PRIu64 " events dropped", n);
        return ftrace_line(msg);
}

static void ftrace_close(void)
{
        if (ftrace_fd >= 0)
                close(ftrace_fd);
        ftrace_fd = -1;
}

TJ_HIDDEN const struct tj_output out_ftrace = {
        .name = "ftrace",
        .open = ftrace_open,
        .write = ftrace_write,
        .report_dropped = ftrace_report_dropped,
        .close = ftrace_close,
};
