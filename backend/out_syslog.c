/*
 * out_syslog.c - the syslog output: LOG_DAEMON|LOG_INFO messages.
 *
 * The library has its own datagram socket to /dev/log (or TJ_SYSLOG_SOCKET)
 * instead of calling syslog(3), so the application's openlog() settings stay
 * untouched.  When the daemon's socket is a stream one (sendto() fails with
 * EPROTOTYPE), it connects a stream socket instead, as glibc's syslog(3)
 * does, and ends each message with a NUL, syslog(3)'s record terminator on a
 * stream; a connection that breaks (the daemon restarted) is made again once
 * for the message at hand.  Either socket is above descriptor 2
 * (output_fd_above_stdio()).  The default form is RFC 3164 byte for byte as
 * glibc's syslog(3) sends it with LOG_PID:
 *
 *     <30>Nov  1 17:13:11 ident[pid]: event message
 *
 * TJ_SYSLOG_FORMAT=rfc5424 sends RFC 5424 instead, with the event, its
 * sequence number, times, thread, call site and arguments as STRUCTURED-DATA
 * in the SD-ID tj@32473, so they survive forwarding to a central server:
 *
 *     <30>1 2026-11-21T17:13:11.123456Z host ident pid event [tj@32473 ...] event message
 *
 * Param values escape '"', '\' and ']' with a backslash (RFC 5424 6.3.3).  In
 * both forms a control character (below 0x20, and 0x7f) is written as '#'
 * and three octal digits, as rsyslog does on reception (a newline becomes
 * #012), so no argument can split a line in a text log.  In a param value, a
 * byte that is not part of well-formed UTF-8 is written the same way, as
 * RFC 5424 wants PARAM-VALUE in UTF-8.  The identifier is RFC 5424's
 * APP-NAME in both forms (syslog_add_identifier()).
 *
 * A send that fails counts the event dropped and is said once per cause
 * (syslog_warn()): a message too long for the socket, the daemon absent,
 * any other error.
 *
 * A fork child starts with an empty message: fork() may come while the
 * writer thread has one built in sl.buf, not yet sent (its send blocks on a
 * daemon that reads nothing), and the parent sends that one itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "internal.h"

#define SYSLOG_PRI      30      /* LOG_DAEMON | LOG_INFO */
#define SYSLOG_SDID     "tj@32473"

/* Why a send failed, each said once (syslog_warn()). */
#define SYSLOG_FAIL_TOO_LONG    1       /* EMSGSIZE: past the socket's send buffer */
#define SYSLOG_FAIL_ABSENT      2       /* no daemon: no socket, nobody reading it */
#define SYSLOG_FAIL_OTHER       4

static struct {
        int fd;                 /* datagram socket, or connected stream one */
        bool stream;            /* the daemon's socket is a stream one */
        pid_t pid;              /* who connected the stream: not a fork child */
        struct sockaddr_un addr;
        socklen_t addrlen;
        unsigned warned;        /* SYSLOG_FAIL_...: the causes said already */
        char *buf;
        size_t size, len;
        bool oom;               /* an append did not fit */
        /* Copied at open(), under the config lock: tj_init() rewrites the
         * settings while a writer tj_shutdown() left stuck in a send may
         * still write with this output. */
        char ident[sizeof(config.identifier)];
        bool rfc5424;           /* TJ_SYSLOG_FORMAT=rfc5424 */
} sl = { .fd = -1 };

static pthread_once_t syslog_once = PTHREAD_ONCE_INIT;

static const char syslog_months[12][4] = {
        "Jan", "Feb", "Mar", "Apr", "May", "Jun",
        "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
};

/* In a fork child: the message the parent's writer was sending when the
 * child was made is the parent's to send; the child's first one would have
 * gone after it in the same datagram. */
static void syslog_fork_child(void)
{
        sl.len = 0;
        sl.oom = false;
}

static void syslog_init_once(void)
{
        pthread_atfork(NULL, NULL, syslog_fork_child);
}

static int syslog_open(void)
{
        pthread_once(&syslog_once, syslog_init_once);
        memset(&sl.addr, 0, sizeof(sl.addr));
        sl.addr.sun_family = AF_UNIX;
        /* config.c keeps the path shorter than sun_path */
        memcpy(sl.addr.sun_path, config.syslog_socket, strlen(config.syslog_socket) + 1);
        memcpy(sl.ident, config.identifier, sizeof(sl.ident));
        sl.rfc5424 = config.syslog_rfc5424;
        sl.addrlen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
                                 strlen(sl.addr.sun_path) + 1);
        if (sl.fd < 0 && !sl.stream)
                sl.fd = output_fd_above_stdio(socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
        if (sl.fd < 0 && !sl.stream)
                return -errno;
        return 0;
}

static void syslog_close_fd(void)
{
        if (sl.fd >= 0)
                close(sl.fd);
        sl.fd = -1;
}

/* ---- building the datagram in sl.buf ------------------------------------ */

static void syslog_grow(size_t more)
{
        size_t want = sl.len + more + 1;
        char *p;

        if (want <= sl.size || sl.oom)
                return;
        if (want < 4096)
                want = 4096;
        p = realloc(sl.buf, want * 2);
        if (!p) {
                sl.oom = true;
                return;
        }
        sl.buf = p;
        sl.size = want * 2;
}

static void syslog_add(const char *s, size_t n)
{
        syslog_grow(n);
        if (sl.oom)
                return;
        memcpy(sl.buf + sl.len, s, n);
        sl.len += n;
}

static void syslog_addf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void syslog_addf(const char *fmt, ...)
{
        char tmp[512];
        va_list ap;
        int n;

        va_start(ap, fmt);
        n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
        va_end(ap);
        if (n > 0)
                syslog_add(tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

/* The length of the well-formed UTF-8 sequence at S (RFC 3629: no overlong
 * form, no surrogate, nothing above U+10FFFF), 0 when there is none. */
static size_t syslog_utf8_len(const unsigned char *s)
{
        size_t n, i;
        unsigned char lo = 0x80, hi = 0xbf;

        if (s[0] < 0x80)
                return 1;
        if (s[0] >= 0xc2 && s[0] <= 0xdf)
                n = 2;
        else if (s[0] >= 0xe0 && s[0] <= 0xef) {
                n = 3;
                if (s[0] == 0xe0)
                        lo = 0xa0;
                else if (s[0] == 0xed)
                        hi = 0x9f;
        } else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
                n = 4;
                if (s[0] == 0xf0)
                        lo = 0x90;
                else if (s[0] == 0xf4)
                        hi = 0x8f;
        } else
                return 0;
        for (i = 1; i < n; i++) {
                if (s[i] < lo || s[i] > hi)
                        return 0;
                lo = 0x80;
                hi = 0xbf;
        }
        return n;
}

static void syslog_add_octal(unsigned char c)
{
        char esc[5] = { '#', (char)('0' + (c >> 6)), (char)('0' + ((c >> 3) & 7)),
                        (char)('0' + (c & 7)), 0 };

        syslog_add(esc, 4);
}

/* Append S with control characters as #ooo; SD also escapes '"', '\', ']',
 * and writes a byte that is not part of well-formed UTF-8 as #ooo, since an
 * RFC 5424 PARAM-VALUE is UTF-8. */
static void syslog_add_escaped(const char *s, bool sd)
{
        size_t n;

        while (*s) {
                unsigned char c = (unsigned char)*s;

                if (c < 0x20 || c == 0x7f) {
                        syslog_add_octal(c);
                        s++;
                } else if (sd && (c == '"' || c == '\\' || c == ']')) {
                        char esc[2] = { '\\', (char)c };

                        syslog_add(esc, 2);
                        s++;
                } else if (c < 0x80 || !sd) {
                        syslog_add(s, 1);
                        s++;
                } else if ((n = syslog_utf8_len((const unsigned char *)s)) > 0) {
                        syslog_add(s, n);
                        s += n;
                } else {
                        syslog_add_octal(c);
                        s++;
                }
        }
}

/* Printable US-ASCII without spaces, for HOSTNAME and APP-NAME; every other
 * byte, and those in ALSO, written '_'. */
static void syslog_add_token(const char *s, size_t max, const char *also)
{
        size_t n = 0;

        for (; *s && n < max; s++, n++) {
                char c = *s > 32 && *s < 127 && !strchr(also, *s) ? *s : '_';

                syslog_add(&c, 1);
        }
        if (n == 0)
                syslog_add("-", 1);
}

/* The identifier, in both forms, as RFC 5424's APP-NAME, and with '_' for
 * ':', '[' and ']' too, which end RFC 3164's TAG and its [PID].  So
 * TJ_IDENTIFIER cannot add a field to the header, end the line, or send a
 * pid of its own, and an event's identifier reads the same whichever form
 * carried it. */
static void syslog_add_identifier(void)
{
        syslog_add_token(sl.ident, 48, ":[]");
}

static void syslog_header_3164(int64_t realtime_ns)
{
        time_t t = (time_t)(realtime_ns / 1000000000);
        struct tm tm;

        localtime_r(&t, &tm);
        syslog_addf("<%d>%s %2d %02d:%02d:%02d ", SYSLOG_PRI, syslog_months[tm.tm_mon],
                    tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
        syslog_add_identifier();
        syslog_addf("[%d]: ", (int)getpid());
}

static void syslog_header_5424(int64_t realtime_ns, const char *msgid)
{
        time_t t = (time_t)(realtime_ns / 1000000000);
        struct tm tm;

        gmtime_r(&t, &tm);
        syslog_addf("<%d>1 %04d-%02d-%02dT%02d:%02d:%02d.%06dZ ", SYSLOG_PRI,
                    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                    tm.tm_min, tm.tm_sec, (int)(realtime_ns % 1000000000 / 1000));
        syslog_add_token(config_hostname(), 255, "");
        syslog_add(" ", 1);
        syslog_add_identifier();
        syslog_addf(" %d ", (int)getpid());
        if (strlen(msgid) <= 32)
                syslog_add_token(msgid, 32, "");
        else
                syslog_add("-", 1);
        syslog_add(" [" SYSLOG_SDID, sizeof(SYSLOG_SDID) + 1);
}

static void syslog_param(const char *name, const char *value)
{
        syslog_addf(" %.32s=\"", name);
        syslog_add_escaped(value, true);
        syslog_add("\"", 1);
}

static void syslog_param_args(const struct record *r, const tj_value *v)
{
        const struct tj_event *ev = r->ev;

        for (unsigned i = 0; i < ev->nargs; i++) {
                const struct tj_arg_desc *a = &ev->args[i];
                char name[40], num[32];

                snprintf(name, sizeof(name), "arg_%s", a->name);
                switch (a->kind) {
                case TJ_ARG_STRING:
                        if (!v[i].s)
                                continue;
                        syslog_param(name, v[i].s);
                        continue;
                case TJ_ARG_POINTER:
                        snprintf(num, sizeof(num), "0x%" PRIxPTR, (uintptr_t)v[i].p);
                        break;
                case TJ_ARG_SIGNED:
                        snprintf(num, sizeof(num), "%" PRId64, v[i].i);
                        break;
                default:
                        snprintf(num, sizeof(num), "%" PRIu64, v[i].u);
                        break;
                }
                syslog_param(name, num);
        }
}

static void syslog_params(const struct record *r, const tj_value *v)
{
        char num[32];

        syslog_param("event", r->ev->name);
        if (r->ev->group)
                syslog_param("group", r->ev->group->name);
        snprintf(num, sizeof(num), "%" PRIu64, r->seq);
        syslog_param("seq", num);
        snprintf(num, sizeof(num), "%" PRId64, r->realtime_ns);
        syslog_param("time_ns", num);
        snprintf(num, sizeof(num), "%" PRId64, r->mono_ns);
        syslog_param("mono_ns", num);
        snprintf(num, sizeof(num), "%" PRId32, r->tid);
        syslog_param("tid", num);
        if (r->site) {
                syslog_param("file", r->site->file);
                snprintf(num, sizeof(num), "%u", r->site->line);
                syslog_param("line", num);
                syslog_param("func", r->site->func);
        }
        syslog_param_args(r, v);
        syslog_add("] ", 2);
}

/* Send sl.buf as one datagram.  0 or -errno.  A send that waited for room
 * (the daemon busy or stopped) and was interrupted by a signal is sent
 * again: with TJ_SYNC=1 the calling thread sends, and a handler installed
 * without SA_RESTART made it fail with EINTR, the event lost. */
static int syslog_send_dgram(void)
{
        if (sl.fd < 0 && syslog_open() < 0)
                return -EBADF;
        while (sendto(sl.fd, sl.buf, sl.len, MSG_NOSIGNAL, (struct sockaddr *)&sl.addr,
                      sl.addrlen) < 0)
                if (errno != EINTR)
                        return -errno;
        return 0;
}

/* Send sl.buf and its NUL on the stream, connected first when it is not (or
 * was by the parent of a fork child: their records would mix).  0 or -errno;
 * on failure the connection is closed, so that a record cut short is not
 * continued by the next one. */
static int syslog_send_stream(void)
{
        size_t done = 0, len = sl.len + 1;      /* syslog_grow() left room */
        int r;

        if (sl.fd >= 0 && sl.pid != getpid())
                syslog_close_fd();
        if (sl.fd < 0) {
                sl.fd = output_fd_above_stdio(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
                if (sl.fd < 0)
                        return -errno;
                if (connect(sl.fd, (struct sockaddr *)&sl.addr, sl.addrlen) < 0) {
                        r = -errno;
                        syslog_close_fd();
                        return r;
                }
                sl.pid = getpid();
        }
        sl.buf[sl.len] = '\0';
        while (done < len) {
                ssize_t n = send(sl.fd, sl.buf + done, len - done, MSG_NOSIGNAL);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0) {
                        r = -errno;
                        syslog_close_fd();
                        return r;
                }
                done += (size_t)n;
        }
        return 0;
}

/* Send what sl.buf holds in the form the daemon's socket takes.  0 or -errno. */
static int syslog_deliver(void)
{
        bool connected = sl.stream && sl.fd >= 0 && sl.pid == getpid();
        int r = sl.stream ? syslog_send_stream() : syslog_send_dgram();

        if (r < 0 && connected)         /* the daemon restarted: connect again */
                r = syslog_send_stream();
        if (r == -EPROTOTYPE) {         /* its socket is of the other type */
                syslog_close_fd();
                sl.stream = !sl.stream;
                r = sl.stream ? syslog_send_stream() : syslog_send_dgram();
        }
        return r;
}

/*
 * Say once per cause that a send failed with R (-errno).  A message too
 * long for the socket and a daemon absent are causes of their own: a single
 * warning for all, used up by one event too long, left a daemon gone later
 * unsaid, every event after dropped without a word.
 */
static void syslog_warn(int r)
{
        unsigned cause;

        switch (r) {
        case -EMSGSIZE:
                cause = SYSLOG_FAIL_TOO_LONG;
                break;
        case -ENOENT:
        case -ECONNREFUSED:
        case -ECONNRESET:
        case -ENOTCONN:
        case -EPIPE:
                cause = SYSLOG_FAIL_ABSENT;
                break;
        default:
                cause = SYSLOG_FAIL_OTHER;
                break;
        }
        if (sl.warned & cause)
                return;
        sl.warned |= cause;
        if (cause == SYSLOG_FAIL_TOO_LONG)
                config_warn("syslog: cannot send to %s: %s; events whose message is longer than "
                            "the socket's send buffer are counted as dropped",
                            sl.addr.sun_path, strerror(-r));
        else
                config_warn("syslog: cannot send to %s: %s; events are counted as dropped",
                            sl.addr.sun_path, strerror(-r));
}

/* Send what sl.buf holds.  0, or -errno (the event counts as dropped). */
static int syslog_send(void)
{
        int r = 0;

        if (sl.oom) {
                r = -ENOMEM;
                goto out;
        }
        r = syslog_deliver();
        if (r < 0 && r != -EBADF)
                syslog_warn(r);
out:
        sl.len = 0;
        sl.oom = false;
        return r;
}

static int syslog_write(const struct record *r, const tj_value *v, const char *msg)
{
        if (sl.rfc5424) {
                syslog_header_5424(r->realtime_ns, r->ev->name);
                syslog_params(r, v);
        } else
                syslog_header_3164(r->realtime_ns);
        syslog_add_escaped(msg, false);
        return syslog_send();
}

static int syslog_report_dropped(uint64_t n, int64_t realtime_ns, int64_t mono_ns)
{
        if (sl.rfc5424) {
                char num[32];

                syslog_header_5424(realtime_ns, "tj_dropped");
                syslog_param("event", "tj_dropped");
                snprintf(num, sizeof(num), "%" PRIu64, n);
                syslog_param("dropped", num);
                snprintf(num, sizeof(num), "%" PRId64, realtime_ns);
                syslog_param("time_ns", num);
                snprintf(num, sizeof(num), "%" PRId64, mono_ns);
                syslog_param("mono_ns", num);
                syslog_add("] ", 2);
        } else
                syslog_header_3164(realtime_ns);
        syslog_addf("tj_dropped %" PRIu64 " events dropped", n);
        return syslog_send();
}

static void syslog_close(void)
{
        syslog_close_fd();
        sl.stream = false;
        free(sl.buf);
        sl.buf = NULL;
        sl.size = sl.len = 0;
}

TJ_HIDDEN const struct tj_output out_syslog = {
        .name = "syslog",
        .open = syslog_open,
        .write = syslog_write,
        .report_dropped = syslog_report_dropped,
        .close = syslog_close,
};
