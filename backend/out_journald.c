/*
 * out_journald.c - the journald output: one journal entry per event.
 *
 * Sends the fields of the DESIGN.md contract in journald's native protocol,
 * one datagram per entry on our own socket to /run/systemd/journal/socket
 * (what sd_journal_sendv() does, except that it silently reports success when
 * journald is absent, and we must count those losses).  A value without a
 * newline goes as "FIELD=value\n"; a value with one in the binary form
 * "FIELD\n" + 64-bit little-endian length + value + "\n", so an argument can
 * never forge a field.  An entry too big for one datagram (a MESSAGE rendered
 * with a wide field width) goes in a sealed memfd whose descriptor an empty
 * datagram carries (SCM_RIGHTS), as sd_journal_sendv() sends it.  Besides
 * the contract, TRACE_ARGS carries the event's argument signature
 * (name:kind ...), so an entry describes itself.  The socket and the memfd
 * are above descriptor 2 (output_fd_above_stdio()).  Runs on
 * the writer thread (or under the sync lock), so the state below needs no lock
 * of its own.  When journald is absent the entry is lost, counted as dropped,
 * and one warning is printed; sending resumes by itself when journald is back.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <endian.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "internal.h"

#define JOURNALD_SOCKET "/run/systemd/journal/socket"
#define JOURNALD_FIXED  16      /* iovecs besides the arguments */
#define JOURNALD_NUM    128     /* room for one numeric field */

static struct {
        int fd;                 /* our datagram socket, -1 until opened */
        char *buf;              /* "FIELD=value" texts the iovecs point into */
        size_t size;
        bool warned;
        char ident[160];        /* "SYSLOG_IDENTIFIER=..." */
} jd = { .fd = -1 };

static void journald_warn(int err)
{
        if (jd.warned)
                return;
        jd.warned = true;
        config_warn("journald: cannot send to %s: %s; events are counted as dropped",
                    JOURNALD_SOCKET, strerror(err));
}

static int journald_open(void)
{
        if (jd.fd < 0) {
                int size = 8 * 1024 * 1024;

                jd.fd = output_fd_above_stdio(socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
                if (jd.fd < 0)
                        return -errno;
                /* Entries are up to ~40 KiB; the default buffer holds few. */
                setsockopt(jd.fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
        }
        snprintf(jd.ident, sizeof(jd.ident), "SYSLOG_IDENTIFIER=%s", config.identifier);
        return 0;
}

/* Make room for SIZE bytes of field text.  0 or -ENOMEM. */
static int journald_reserve(size_t size)
{
        char *p;

        if (size <= jd.size)
                return 0;
        p = realloc(jd.buf, size);
        if (!p)
                return -ENOMEM;
        jd.buf = p;
        jd.size = size;
        return 0;
}

/* Append "PREFIX" + VALUE at *POS in jd.buf and point IOV at it. */
static void journald_put(struct iovec *iov, size_t *pos, const char *prefix,
                         const char *value, size_t vlen)
{
        size_t pl = strlen(prefix);

        memcpy(jd.buf + *pos, prefix, pl);
        memcpy(jd.buf + *pos + pl, value, vlen);
        iov->iov_base = jd.buf + *pos;
        iov->iov_len = pl + vlen;
        *pos += pl + vlen;
}

static void journald_num(struct iovec *iov, size_t *pos, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
static void journald_num(struct iovec *iov, size_t *pos, const char *fmt, ...)
{
        va_list ap;
        int n;

        va_start(ap, fmt);
        n = vsnprintf(jd.buf + *pos, JOURNALD_NUM, fmt, ap);
        va_end(ap);
        if (n < 0)
                n = 0;
        else if (n >= JOURNALD_NUM)
                n = JOURNALD_NUM - 1;
        iov->iov_base = jd.buf + *pos;
        iov->iov_len = (size_t)n;
        *pos += (size_t)n;
}

/*
 * Send MH on our socket: 0 or -errno.  A send that waited for room (journald
 * busy or stopped) and was interrupted by a signal is sent again: with
 * TJ_SYNC=1 the calling thread sends, and a handler of the program's
 * installed without SA_RESTART (a timer's, SIGCHLD's) made it fail with
 * EINTR, the event counted lost and "Interrupted system call" the one
 * warning said.  (The writer thread blocks every signal.)
 */
static int journald_sendmsg(const struct msghdr *mh)
{
        while (sendmsg(jd.fd, mh, MSG_NOSIGNAL) < 0)
                if (errno != EINTR)
                        return -errno;
        return 0;
}

/*
 * The datagram MH was too big for the socket: write its bytes into a sealed
 * memfd and send that instead, in an empty datagram.  0 or -errno.
 */
static int journald_send_memfd(struct msghdr *mh)
{
        union {
                struct cmsghdr h;
                char buf[CMSG_SPACE(sizeof(int))];
        } ctl;
        struct cmsghdr *c;
        int fd, err = 0;

        /* above 2: a thread of the program printing to a closed stdout
         * would write into the entry */
        fd = output_fd_above_stdio(memfd_create("tracejournal",
                                                MFD_CLOEXEC | MFD_ALLOW_SEALING));
        if (fd < 0)
                return -errno;
        for (size_t i = 0; i < mh->msg_iovlen && !err; i++) {
                const char *p = mh->msg_iov[i].iov_base;
                size_t left = mh->msg_iov[i].iov_len;

                while (left > 0) {
                        ssize_t n = write(fd, p, left);

                        if (n < 0 && errno == EINTR)
                                continue;
                        if (n <= 0) {
                                err = n < 0 ? -errno : -EIO;
                                break;
                        }
                        p += n;
                        left -= (size_t)n;
                }
        }
        /* journald maps a memfd sealed so, and refuses other files of ours */
        if (!err && fcntl(fd, F_ADD_SEALS,
                          F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0)
                err = -errno;
        if (!err) {
                memset(&ctl, 0, sizeof(ctl));
                mh->msg_iov = NULL;
                mh->msg_iovlen = 0;
                mh->msg_control = ctl.buf;
                mh->msg_controllen = sizeof(ctl.buf);
                c = CMSG_FIRSTHDR(mh);
                c->cmsg_level = SOL_SOCKET;
                c->cmsg_type = SCM_RIGHTS;
                c->cmsg_len = CMSG_LEN(sizeof(int));
                memcpy(CMSG_DATA(c), &fd, sizeof(int));
                err = journald_sendmsg(mh);
        }
        close(fd);
        return err;
}

/*
 * Send the "FIELD=value" iovecs IOV[N] as one native-protocol datagram.
 * Returns 0 or -errno (the entry is lost).
 */
static int journald_send(const struct iovec *iov, int n)
{
        static const struct sockaddr_un sa = {
                .sun_family = AF_UNIX, .sun_path = JOURNALD_SOCKET,
        };
        struct iovec w[(JOURNALD_FIXED + TJ_MAX_ARGS) * 5];
        uint64_t lens[JOURNALD_FIXED + TJ_MAX_ARGS];
        struct msghdr mh = {
                .msg_name = (void *)&sa, .msg_namelen = sizeof(sa), .msg_iov = w,
        };
        size_t k = 0;
        int err;

        if (jd.fd < 0 && journald_open() < 0)
                return -EBADF;
        for (int i = 0; i < n; i++) {
                const char *f = iov[i].iov_base;
                const char *eq = memchr(f, '=', iov[i].iov_len);
                size_t nl = (size_t)(eq - f);

                if (!memchr(eq + 1, '\n', iov[i].iov_len - nl - 1)) {
                        w[k++] = iov[i];
                        w[k++] = (struct iovec){ (char *)"\n", 1 };
                        continue;
                }
                lens[i] = htole64(iov[i].iov_len - nl - 1);
                w[k++] = (struct iovec){ (char *)f, nl };
                w[k++] = (struct iovec){ (char *)"\n", 1 };
                w[k++] = (struct iovec){ &lens[i], sizeof(lens[i]) };
                w[k++] = (struct iovec){ (char *)eq + 1, iov[i].iov_len - nl - 1 };
                w[k++] = (struct iovec){ (char *)"\n", 1 };
        }
        mh.msg_iovlen = k;
        err = -journald_sendmsg(&mh);
        /* too big for a datagram: EMSGSIZE, or ENOBUFS when the kernel
         * could not allocate one that size */
        if (err == EMSGSIZE || err == ENOBUFS)
                err = -journald_send_memfd(&mh);
        if (err) {
                journald_warn(err);
                return -err;
        }
        return 0;
}

static int journald_write(const struct record *r, const tj_value *v, const char *msg)
{
        const struct tj_event *ev = r->ev;
        struct iovec iov[JOURNALD_FIXED + TJ_MAX_ARGS];
        size_t need = strlen(msg) + 8 + (JOURNALD_FIXED + TJ_MAX_ARGS) * JOURNALD_NUM + strlen(ev->name) + 16, pos = 0;
        int n = 0;

        if (ev->group)
                need += strlen(ev->group->name);
        if (r->site)
                need += strlen(r->site->file) + strlen(r->site->func) + 32;
        for (unsigned i = 0; i < ev->nargs; i++)
                if (ev->args[i].kind == TJ_ARG_STRING && v[i].s)
                        need += strlen(ev->args[i].field) + strlen(v[i].s);
        if (journald_reserve(need) < 0)
                return -ENOMEM;
        journald_put(&iov[n++], &pos, "MESSAGE=", msg, strlen(msg));
        iov[n++] = (struct iovec){ (char *)"PRIORITY=6", 10 };
        iov[n++] = (struct iovec){ (char *)"SYSLOG_FACILITY=3", 17 };
        iov[n++] = (struct iovec){ jd.ident, strlen(jd.ident) };
        journald_put(&iov[n++], &pos, "TRACE_EVENT=", ev->name, strlen(ev->name));
        if (ev->group)
                journald_put(&iov[n++], &pos, "TRACE_GROUP=", ev->group->name,
                             strlen(ev->group->name));
        journald_num(&iov[n++], &pos, "TRACE_SEQ=%" PRIu64, r->seq);
        journald_num(&iov[n++], &pos, "TRACE_TIME_NS=%" PRId64, r->realtime_ns);
        journald_num(&iov[n++], &pos, "TRACE_MONO_NS=%" PRId64, r->mono_ns);
        journald_num(&iov[n++], &pos, "TID=%" PRId32, r->tid);
        if (r->site) {
                journald_put(&iov[n++], &pos, "CODE_FILE=", r->site->file,
                             strlen(r->site->file));
                journald_num(&iov[n++], &pos, "CODE_LINE=%u", r->site->line);
                journald_put(&iov[n++], &pos, "CODE_FUNC=", r->site->func,
                             strlen(r->site->func));
        }
        if (ev->argsig)
                iov[n++] = (struct iovec){ (char *)ev->argsig, strlen(ev->argsig) };
        for (unsigned i = 0; i < ev->nargs; i++) {
                const struct tj_arg_desc *a = &ev->args[i];

                switch (a->kind) {
                case TJ_ARG_STRING:
                        if (v[i].s)
                                journald_put(&iov[n++], &pos, a->field, v[i].s,
                                             strlen(v[i].s));
                        break;
                case TJ_ARG_POINTER:
                        journald_num(&iov[n++], &pos, "%s0x%" PRIxPTR, a->field,
                                     (uintptr_t)v[i].p);
                        break;
                case TJ_ARG_SIGNED:
                        journald_num(&iov[n++], &pos, "%s%" PRId64, a->field, v[i].i);
                        break;
                default:
                        journald_num(&iov[n++], &pos, "%s%" PRIu64, a->field, v[i].u);
                        break;
                }
        }
        return journald_send(iov, n);
}

static int journald_report_dropped(uint64_t dropped, int64_t realtime_ns, int64_t mono_ns)
{
        struct iovec iov[10];
        size_t pos = 0;
        int n = 0;

        if (journald_reserve(8 * JOURNALD_NUM) < 0)
                return -ENOMEM;
        journald_num(&iov[n++], &pos, "MESSAGE=tj_dropped %" PRIu64 " events dropped",
                     dropped);
        iov[n++] = (struct iovec){ (char *)"PRIORITY=4", 10 };
        iov[n++] = (struct iovec){ (char *)"SYSLOG_FACILITY=3", 17 };
        iov[n++] = (struct iovec){ jd.ident, strlen(jd.ident) };
        iov[n++] = (struct iovec){ (char *)"TRACE_EVENT=tj_dropped", 22 };
        iov[n++] = (struct iovec){ (char *)"TRACE_GROUP=tracejournal", 24 };
        journald_num(&iov[n++], &pos, "TRACE_DROPPED=%" PRIu64, dropped);
        journald_num(&iov[n++], &pos, "TRACE_TIME_NS=%" PRId64, realtime_ns);
        journald_num(&iov[n++], &pos, "TRACE_MONO_NS=%" PRId64, mono_ns);
        journald_num(&iov[n++], &pos, "TID=%" PRId32, (int32_t)emit_gettid());
        return journald_send(iov, n);
}

static void journald_close(void)
{
        if (jd.fd >= 0)
                close(jd.fd);
        jd.fd = -1;
        free(jd.buf);
        jd.buf = NULL;
        jd.size = 0;
}

TJ_HIDDEN const struct tj_output out_journald = {
        .name = "journald",
        .open = journald_open,
        .write = journald_write,
        .report_dropped = journald_report_dropped,
        .close = journald_close,
};
