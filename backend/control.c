/*
 * control.c - the per-process control endpoint (traceql ctl).
 *
 * tj_control_start() (or TJ_CONTROL=1 at tj_init()) binds a unix stream
 * socket DIR/PID.sock and serves it from a thread of the library, never from
 * the traced program's threads; tj_control_stop(), tj_shutdown() and exit()
 * remove it, when it is still the one bound.  DIR is $TJ_CONTROL_DIR (taken
 * from the working directory at the start when relative), else
 * $XDG_RUNTIME_DIR/tracejournal, else /run/tracejournal.  The socket file is
 * mode 0666 so that any local user reaches the SO_PEERCRED check, which
 * lets in only the process's effective uid and root: anybody else gets
 * "error permission denied: ..." and the refusal is counted in the stats.  (A directory the kernel does not let the
 * peer search, such as a 0700 $XDG_RUNTIME_DIR, refuses before that.)
 *
 * Up to CONTROL_CLIENTS connections at once, from one poll() loop, one
 * request per connection: the request line is read with a bounded size and
 * time, parsed by control_request_parse(), then carried out with the
 * library's own thread-safe entry points (tj_enable, tj_set_outputs...) and
 * answered, the reply sent within a time bound of its own; a flush, and the
 * flush and taking of the outputs that an outputs change does, are asked of
 * the writer (writer_flush_begin(), config_try_outputs()) and looked for
 * from the loop every millisecond, each up to TJ_FLUSH_TIMEOUT_MS.  A client
 * that sends or reads nothing, or waits for the writer, holds up no other.
 * Nothing a client sends can do more than get an error reply; SIGPIPE is
 * never raised (MSG_NOSIGNAL).  Every descriptor of the endpoint is above 2
 * (output_fd_above_stdio()), even when the program closed its stdio.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "control.h"
#include "internal.h"

#define CONTROL_IO_TIMEOUT_MS   2000
#define CONTROL_RETRY_MS        100     /* after accept() failed for want of a resource */
#define CONTROL_DEFAULT_DIR     "/run/tracejournal"
/* a flush asked as tj_shutdown() in another thread stopped the writer, after
 * its last pass began (the endpoint started again meanwhile) */
#define CONTROL_STOPPED \
        "the control endpoint stopped (tj_shutdown(), tj_control_stop() or exit)"
#define CONTROL_FLUSH_UNDONE \
        "error flush not done: tj_shutdown() stopped the writer thread first\n"

static struct {
        pthread_mutex_t lock;           /* start and stop */
        bool running;
        pthread_t thread;
        int fd;                         /* the listening socket */
        int stop_fd;                    /* eventfd that tells the thread to stop */
        pid_t owner;                    /* the process that bound PATH */
        dev_t dev;                      /* the socket file bound at PATH, */
        ino_t ino;                      /* removed only while it is still there */
        char path[sizeof(((struct sockaddr_un *)0)->sun_path)]; /* absolute */
        atomic_uint_fast64_t served;    /* requests answered */
        atomic_uint_fast64_t refused;   /* connections refused by SO_PEERCRED */
} ctl = {
        .lock = PTHREAD_MUTEX_INITIALIZER,
        .fd = -1,
        .stop_fd = -1,
};

/* ---- I/O with a client ---------------------------------------------------- */

static int64_t control_now_ms(void)
{
        return tj_clock_ns(CLOCK_MONOTONIC) / 1000000;
}

/*
 * One connection.  It reads its request line, with a bounded size and time,
 * then writes its reply, within its own time bound, then is closed; the
 * endpoint serves CONTROL_CLIENTS of them at once, so a client that sends
 * nothing (or reads nothing) holds up no other.
 */
struct control_client {
        int fd;                         /* -1: a free slot */
        bool writing;                   /* the reply is being sent */
        enum {
                CONTROL_DONE,           /* nothing to wait for */
                CONTROL_FLUSHING,       /* flush: for the writer's flush flush_req */
                CONTROL_OUTPUTS_FLUSH,  /* outputs: the same, then ... */
                CONTROL_OUTPUTS_TAKE,   /* ... for the writer to let go of the outputs */
        } pending;                      /* until deadline */
        unsigned flush_req;
        char outputs[CONTROL_ARG_MAX + 1];      /* outputs: the list asked for */
        int64_t deadline;               /* of what it does now, CLOCK_MONOTONIC ms */
        size_t len;                     /* request bytes in buf */
        char buf[CONTROL_REQUEST_MAX];
        char *reply;                    /* malloc'ed, a static message, or in buf */
        size_t reply_len, sent;
        bool reply_owned;
};

#define CONTROL_CLIENTS 8

/* ---- carrying out a request ------------------------------------------------ */

/* list [PATTERN[,PATTERN...]]: the events any pattern matches, each once,
 * in the registry's order, as enable takes a list. */
struct control_list {
        FILE *out;
        char items[CONTROL_ARG_MAX + 1];        /* the patterns, each ended by a NUL */
        const char *item[CONTROL_ARG_MAX / 2 + 1];
        bool matched[CONTROL_ARG_MAX / 2 + 1];
        size_t n;
};

static int control_list_one(const struct tj_event_info *info, void *userdata)
{
        struct control_list *l = userdata;
        bool any = l->n == 0;

        for (size_t i = 0; i < l->n; i++)
                if (registry_glob(l->item[i], info->name))
                        any = l->matched[i] = true;
        if (any)
                fprintf(l->out, "%s %s %s\n", info->name, info->group,
                        !info->compiled_in ? "compiled-out" : info->enabled ? "on" : "off");
        return 0;
}

static int control_list(const char *arg, FILE *out, char *err, size_t errsize)
{
        struct control_list l = { .out = out };
        char *p;
        int r;

        snprintf(l.items, sizeof(l.items), "%s", arg);
        for (p = l.items; *p; ) {
                size_t len = strcspn(p, ",");

                if (len > 0)
                        l.item[l.n++] = p;
                p += len;
                if (*p == ',')
                        *p++ = '\0';
        }
        if (*arg && l.n == 0) {
                snprintf(err, errsize, "missing PATTERN");
                return -EINVAL;
        }
        r = tj_event_foreach(NULL, control_list_one, &l);
        if (r < 0)
                return r;
        for (size_t i = 0; i < l.n; i++)
                if (!l.matched[i]) {
                        snprintf(err, errsize, "no event matches '%s'", l.item[i]);
                        return -ENOENT;
                }
        return 0;
}

static int control_stats(FILE *out)
{
        struct writer_output_stat os[CONFIG_MAX_OUTPUTS];
        struct writer_ring_stat rs;
        struct tj_stats st;
        size_t n;

        tj_get_stats(&st);
        fprintf(out, "emitted %" PRIu64 "\nwritten %" PRIu64 "\ndropped %" PRIu64 "\n",
                st.emitted, st.written, st.dropped);
        n = writer_output_stats(os, CONFIG_MAX_OUTPUTS);
        for (size_t i = 0; i < n && i < CONFIG_MAX_OUTPUTS; i++)
                fprintf(out, "output %s written %" PRIu64 " dropped %" PRIu64 "\n",
                        os[i].name, os[i].written, os[i].dropped);
        writer_ring_stats(&rs);
        fprintf(out, "rings %zu size %zu used %zu fullest %zu\n",
                rs.rings, rs.size, rs.used, rs.fullest);
        fprintf(out, "control served %" PRIu64 " refused %" PRIu64 "\n",
                atomic_load(&ctl.served), atomic_load(&ctl.refused));
        return 0;
}

static void control_bad_outputs(char *err, size_t errsize, const char *list)
{
        snprintf(err, errsize, "bad output list '%s' (known: journald, syslog, log, nop, "
                 "ftrace, simple)", list);
}

/* The data line of outputs: "outputs NAME[,NAME...]", those open; before
 * tj_init() and after tj_shutdown(), none is: those kept for tj_init(). */
static void control_outputs_line(FILE *out)
{
        struct writer_output_stat os[CONFIG_MAX_OUTPUTS];
        char kept[CONFIG_OUTPUTS_SIZE];
        size_t n;

        if (config_kept_outputs(kept)) {
                fprintf(out, "outputs %s\n", kept);
                return;
        }
        n = writer_output_stats(os, CONFIG_MAX_OUTPUTS);
        fputs("outputs ", out);
        for (size_t i = 0; i < n && i < CONFIG_MAX_OUTPUTS; i++)
                fprintf(out, "%s%s", i ? "," : "", os[i].name);
        fputc('\n', out);
}

/*
 * outputs [LIST]: with a list, as tj_set_outputs(): what was traced before
 * goes to the old outputs (a flush), then the writer thread lets go of them
 * and LIST replaces them.  Both are waited for from the poll loop
 * (control_pending_check()), each up to TJ_FLUSH_TIMEOUT_MS, as
 * tj_set_outputs() waits; 1 when the reply comes later.
 */
static int control_outputs(struct control_client *c, const char *list, FILE *out, char *err,
                           size_t errsize)
{
        if (*list) {
                if (writer_check_outputs(list, NULL) < 0) {
                        control_bad_outputs(err, errsize, list);
                        return -EINVAL;
                }
                snprintf(c->outputs, sizeof(c->outputs), "%s", list);
                c->pending = writer_flush_begin(&c->flush_req) ? CONTROL_OUTPUTS_FLUSH :
                             CONTROL_OUTPUTS_TAKE;
                c->deadline = control_now_ms() + config_flush_ms();
                return 1;
        }
        control_outputs_line(out);
        return 0;
}

/*
 * enable/disable PATTERN[,PATTERN...]: a pattern that starts with '-' (the
 * other command's) refuses the whole list, before any is applied (the
 * patterns before it were); otherwise every pattern is applied, as
 * tj_enable_list() does, the events matched are counted, and a pattern that
 * matches none is the error, naming the first such.
 */
static int control_enable(const struct control_request *req, FILE *out, char *err,
                          size_t errsize)
{
        char pattern[CONTROL_ARG_MAX + 2];
        const char *p = req->arg, *dash;
        int n = 0, nitems = 0, r, ret = 0;

        for (dash = p; *dash; dash += strcspn(dash, ","), dash += *dash == ',')
                if (*dash == '-') {
                        snprintf(err, errsize, "a PATTERN cannot start with '-': '%.*s'",
                                 (int) strcspn(dash, ","), dash);
                        return -EINVAL;
                }
        while (*p) {
                size_t len = strcspn(p, ",");  /* no blanks: the request has none */

                if (len > 0) {
                        nitems++;
                        snprintf(pattern, sizeof(pattern), "%s%.*s",
                                 req->cmd == CONTROL_DISABLE ? "-" : "", (int) len, p);
                        r = tj_enable(pattern);
                        if (r >= 0)
                                n += r;
                        else if (ret == 0) {
                                ret = r;
                                /* -ENOENT: tj_enable() kept it, as TJ_EVENTS's */
                                snprintf(err, errsize, r == -ENOENT ? "no event matches "
                                         "'%.*s' (kept for modules loaded later)" :
                                         "'%.*s': out of memory", (int) len, p);
                        }
                }
                p += len;
                if (*p == ',')
                        p++;
        }
        if (ret == 0 && nitems == 0) {
                snprintf(err, errsize, "missing PATTERN");
                ret = -EINVAL;
        }
        if (ret < 0)
                return ret;
        fprintf(out, "%s %d\n", req->cmd == CONTROL_DISABLE ? "disabled" : "enabled", n);
        return 0;
}

/* Carry out REQ for C, writing the data lines to OUT.  0, or -errno with ERR
 * set, or 1: the reply comes later (a flush or an outputs change,
 * control_pending_check()). */
static int control_execute(struct control_client *c, const struct control_request *req,
                           FILE *out, char *err, size_t errsize)
{
        switch (req->cmd) {
        case CONTROL_LIST:
                return control_list(req->arg, out, err, errsize);
        case CONTROL_ENABLE:
        case CONTROL_DISABLE:
                return control_enable(req, out, err, errsize);
        case CONTROL_FLUSH:
                /* waited for from the poll loop: the other clients are served
                 * meanwhile (the flush waited here, holding up every other
                 * for up to TJ_FLUSH_TIMEOUT_MS) */
                if (!writer_flush_begin(&c->flush_req)) {
                        /* an endpoint started before tj_init() or after
                         * tj_shutdown() (or in a fork child after it): what
                         * was traced waits in the rings, written by none
                         * (tj_flush() returns 0 then, as it has nothing to
                         * wait for) */
                        snprintf(err, errsize, "flush not done: no writer thread (before "
                                 "tj_init() or after tj_shutdown())");
                        return -ESRCH;
                }
                c->pending = CONTROL_FLUSHING;
                c->deadline = control_now_ms() + config_flush_ms();
                return 1;
        case CONTROL_STATS:
                return control_stats(out);
        case CONTROL_OUTPUTS:
                return control_outputs(c, req->arg, out, err, errsize);
        }
        snprintf(err, errsize, "unknown command");
        return -EINVAL;
}

static void control_reply_static(struct control_client *c, const char *msg)
{
        c->reply = (char *)msg;
        c->reply_len = strlen(msg);
        c->reply_owned = false;
}

/* Make the memstream OUT (of *REPLY, *SIZE) C's reply. */
static void control_reply_end(struct control_client *c, FILE *out, char **reply, size_t *size)
{
        if (fclose(out) != 0) {
                free(*reply);
                control_reply_static(c, "error out of memory\n");
                return;
        }
        c->reply = *reply;
        c->reply_len = *size;
        c->reply_owned = true;
}

/* The reply to the request in C's buffer: data lines, then "ok" or "error
 * MESSAGE".  False when it comes later (C waits for the writer). */
static bool control_answer(struct control_client *c)
{
        struct control_request req;
        char err[CONTROL_ARG_MAX + 256] = "";
        char *reply = NULL;
        size_t size = 0;
        FILE *out = open_memstream(&reply, &size);
        int r;

        /* a connection closed before sending a byte (another process's start
         * checking that this endpoint is live, control_sock_live()) asked
         * nothing: it is answered, not counted */
        if (c->len > 0)
                atomic_fetch_add(&ctl.served, 1);
        if (!out) {
                control_reply_static(c, "error out of memory\n");
                return true;
        }
        r = control_request_parse(c->buf, c->len, &req, err, sizeof(err));
        if (r == 0)
                r = control_execute(c, &req, out, err, sizeof(err));
        if (r > 0) {
                fclose(out);
                free(reply);
                return false;
        }
        if (r < 0)
                fprintf(out, "error %s\n", err[0] ? err : strerror(-r));
        else
                fputs("ok\n", out);
        control_reply_end(c, out, &reply, &size);
        return true;
}

/* Go on to sending C's reply, within a time bound of its own. */
static void control_start_reply(struct control_client *c)
{
        c->writing = true;
        c->sent = 0;
        c->deadline = control_now_ms() + CONTROL_IO_TIMEOUT_MS;
}

/* shutdown() first: a fork child of the program holds a copy of the
 * connection, and close() alone would not end the client's stream while the
 * child lives (the client waits for its end after the reply). */
static void control_client_close(struct control_client *c)
{
        if (c->reply_owned)
                free(c->reply);
        c->reply = NULL;
        c->reply_owned = false;
        (void)shutdown(c->fd, SHUT_RDWR);
        close(c->fd);
        c->fd = -1;
}

/* A new connection in slot C: check who it is; the owner's uid and root
 * may send a request, anybody else gets the refusal. */
static void control_client_open(struct control_client *c, int fd)
{
        struct ucred cred;
        socklen_t credlen = sizeof(cred);

        c->fd = fd;
        c->writing = false;
        c->pending = CONTROL_DONE;
        c->len = 0;
        c->reply = NULL;
        c->reply_owned = false;
        c->deadline = control_now_ms() + CONTROL_IO_TIMEOUT_MS;
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &credlen) < 0) {
                atomic_fetch_add(&ctl.refused, 1);
                control_reply_static(c, "error permission denied: no peer credentials\n");
                control_start_reply(c);
        } else if (cred.uid != 0 && cred.uid != geteuid()) {
                /* no request is read from it: its buffer holds the reply */
                atomic_fetch_add(&ctl.refused, 1);
                snprintf(c->buf, sizeof(c->buf), "error permission denied: uid %u is neither "
                         "the owner (uid %u) nor root\n", (unsigned)cred.uid,
                         (unsigned)geteuid());
                control_reply_static(c, c->buf);
                control_start_reply(c);
        }
}

/* C's socket can be read: take what came.  The request is complete at its
 * '\n' (what came with it is the parser's to judge), at the peer's end of
 * stream, or when the buffer is full (the parser says it is too long). */
static void control_client_read(struct control_client *c)
{
        ssize_t n = recv(c->fd, c->buf + c->len, CONTROL_REQUEST_MAX - c->len, MSG_DONTWAIT);

        if (n < 0 && (errno == EAGAIN || errno == EINTR))
                return;
        if (n < 0) {
                control_client_close(c);
                return;
        }
        if (n > 0 && !memchr(c->buf + c->len, '\n', (size_t)n) &&
            c->len + (size_t)n < CONTROL_REQUEST_MAX) {
                c->len += (size_t)n;
                return;
        }
        c->len += (size_t)n;
        if (control_answer(c))
                control_start_reply(c);
}

/* The reply to an outputs change, once it is made: the outputs line and
 * "ok". */
static void control_reply_outputs(struct control_client *c)
{
        char *reply = NULL;
        size_t size = 0;
        FILE *out = open_memstream(&reply, &size);

        if (!out) {
                control_reply_static(c, "error out of memory\n");
                return;
        }
        control_outputs_line(out);
        fputs("ok\n", out);
        control_reply_end(c, out, &reply, &size);
}

/* C waits for the writer (a flush, an outputs change): reply once it is
 * done, or at the time-out; false while it waits. */
static bool control_pending_check(struct control_client *c, int64_t now)
{
        char err[CONTROL_ARG_MAX + 256];
        int r;

        switch (c->pending) {
        case CONTROL_DONE:
                return true;
        case CONTROL_FLUSHING:
                r = writer_flush_check(c->flush_req);
                if (r > 0)
                        control_reply_static(c, "ok\n");
                else if (r < 0)
                        /* as tj_flush(): no pass of a writer that left will
                         * do it; waiting for the deadline only held the
                         * client */
                        control_reply_static(c, CONTROL_FLUSH_UNDONE);
                else if (c->deadline > now)
                        return false;
                else {
                        snprintf(c->buf, sizeof(c->buf), "error flush timed out after %u ms\n",
                                 config_flush_ms());
                        control_reply_static(c, c->buf);
                }
                break;
        case CONTROL_OUTPUTS_FLUSH:
                /* as tj_set_outputs(): a flush that times out, or that a
                 * writer stopped by tj_shutdown() left undone, changes them
                 * anyway */
                if (writer_flush_check(c->flush_req) == 0 && c->deadline > now)
                        return false;
                c->pending = CONTROL_OUTPUTS_TAKE;
                c->deadline = now + config_flush_ms();
                /* fall through */
        case CONTROL_OUTPUTS_TAKE:
                r = config_try_outputs(c->outputs);
                if (r == -EBUSY && c->deadline > now)
                        return false;
                if (r == 0)
                        control_reply_outputs(c);
                else if (r == -EBUSY) {
                        snprintf(c->buf, sizeof(c->buf), "error outputs busy for %u ms (an output "
                                 "does not take events): unchanged\n", config_flush_ms());
                        control_reply_static(c, c->buf);
                } else {        /* -EINVAL: a list too long for tj_set_outputs() */
                        control_bad_outputs(err, sizeof(err), c->outputs);
                        snprintf(c->buf, sizeof(c->buf), "error %s\n", err);
                        control_reply_static(c, c->buf);
                }
                break;
        }
        c->pending = CONTROL_DONE;
        control_start_reply(c);
        return true;
}

/* C's socket can be written: send what is left of the reply; closed once
 * it is all sent, or when the peer is gone. */
static void control_client_write(struct control_client *c)
{
        ssize_t n = send(c->fd, c->reply + c->sent, c->reply_len - c->sent,
                         MSG_DONTWAIT | MSG_NOSIGNAL);

        if (n < 0 && (errno == EAGAIN || errno == EINTR))
                return;
        if (n <= 0) {
                control_client_close(c);
                return;
        }
        c->sent += (size_t)n;
        if (c->sent == c->reply_len)
                control_client_close(c);
}

/* The endpoint stops (tj_control_stop(), tj_shutdown(), exit()) while C
 * waits for the writer: it is told so, in one try that does not wait,
 * rather than see the connection end with no reply ("the reply ended
 * early", as if the endpoint had failed).  A reply decided already (the
 * writer got there, or left, as the stop came: the loop left before the
 * poll() that would have sent it) goes out the same way. */
static void control_client_stopped(struct control_client *c)
{
        const char *msg;

        if (c->writing) {
                if (c->sent < c->reply_len)
                        (void)send(c->fd, c->reply + c->sent, c->reply_len - c->sent,
                                   MSG_DONTWAIT | MSG_NOSIGNAL);
                return;
        }
        if (c->pending == CONTROL_DONE)
                return;
        if (c->pending == CONTROL_FLUSHING) {
                /* the writer may have got there, or left (tj_shutdown()
                 * stops an endpoint started during it once the writer is
                 * stopped), since the loop last looked */
                int r = writer_flush_check(c->flush_req);

                msg = r > 0 ? "ok\n" : r < 0 ? CONTROL_FLUSH_UNDONE :
                      "error flush not done: " CONTROL_STOPPED "\n";
        } else
                msg = "error outputs unchanged: " CONTROL_STOPPED "\n";
        (void)send(c->fd, msg, strlen(msg), MSG_DONTWAIT | MSG_NOSIGNAL);
}

/* Past its deadline: a request that did not come whole gets the time-out
 * error; a reply the peer does not read is given up. */
static void control_client_expire(struct control_client *c)
{
        if (c->writing) {
                control_client_close(c);
                return;
        }
        control_reply_static(c, "error timed out waiting for the request\n");
        control_start_reply(c);
}

/*
 * accept() failed: out of descriptors (the traced program's limit) or of
 * memory.  The connection stays queued and poll() reports it again at once:
 * wait a little, or until asked to stop, rather than spin on a core.
 */
static void control_accept_failed(int error)
{
        struct pollfd p = { ctl.stop_fd, POLLIN, 0 };

        if (error == EAGAIN || error == EINTR || error == ECONNABORTED)
                return;
        (void)poll(&p, 1, CONTROL_RETRY_MS);
}

static void *control_main(void *arg)
{
        struct control_client clients[CONTROL_CLIENTS];
        size_t i;

        (void)arg;
        for (i = 0; i < CONTROL_CLIENTS; i++)
                clients[i].fd = -1;
        for (;;) {
                struct pollfd p[2 + CONTROL_CLIENTS];
                size_t which[2 + CONTROL_CLIENTS];      /* the client of p[k] */
                int64_t now = control_now_ms(), wait = -1;
                size_t n = 2, k, slot = CONTROL_CLIENTS;
                int r;

                p[0] = (struct pollfd){ ctl.stop_fd, POLLIN, 0 };
                p[1] = (struct pollfd){ -1, POLLIN, 0 };        /* -1: ignored by poll() */
                for (i = 0; i < CONTROL_CLIENTS; i++) {
                        struct control_client *c = &clients[i];

                        /* the writer's progress is not an event poll() sees:
                         * look every millisecond */
                        if (c->fd >= 0 && c->pending && !control_pending_check(c, now)) {
                                wait = 1;
                                continue;
                        }
                        if (c->fd >= 0 && c->deadline <= now)
                                control_client_expire(c);
                        if (c->fd < 0) {
                                if (slot == CONTROL_CLIENTS)
                                        slot = i;
                                continue;
                        }
                        if (wait < 0 || c->deadline - now < wait)
                                wait = c->deadline - now;
                }
                /* a connection waits in the listen queue while every slot is taken */
                if (slot < CONTROL_CLIENTS)
                        p[1].fd = ctl.fd;
                for (i = 0; i < CONTROL_CLIENTS; i++)
                        if (clients[i].fd >= 0 && !clients[i].pending) {
                                which[n] = i;
                                p[n++] = (struct pollfd){ clients[i].fd,
                                                          clients[i].writing ? POLLOUT : POLLIN, 0 };
                        }
                r = poll(p, n, wait < 0 ? -1 : (int)(wait > INT32_MAX ? INT32_MAX : wait));
                if (r < 0 && errno == EINTR)
                        continue;
                if (r < 0 || p[0].revents)
                        break;
                for (k = 2; k < n; k++) {
                        struct control_client *c = &clients[which[k]];

                        if (!p[k].revents)
                                continue;
                        if (c->writing)
                                control_client_write(c);
                        else
                                control_client_read(c);
                }
                if (p[1].revents && slot < CONTROL_CLIENTS) {
                        int fd = output_fd_above_stdio(accept4(ctl.fd, NULL, NULL,
                                                               SOCK_CLOEXEC | SOCK_NONBLOCK));

                        if (fd < 0)
                                control_accept_failed(errno);
                        else
                                control_client_open(&clients[slot], fd);
                }
        }
        for (i = 0; i < CONTROL_CLIENTS; i++)
                if (clients[i].fd >= 0) {
                        control_client_stopped(&clients[i]);
                        control_client_close(&clients[i]);
                }
        return NULL;
}

/* ---- start and stop ---------------------------------------------------------- */

int control_dir_name(char *buf, size_t size, mode_t *ret_mode)
{
        const char *v = getenv("TJ_CONTROL_DIR");
        mode_t mode = 0700;
        int n;

        if (v && *v)
                n = snprintf(buf, size, "%s", v);
        else if ((v = getenv("XDG_RUNTIME_DIR")) && *v)
                n = snprintf(buf, size, "%s/tracejournal", v);
        else {
                n = snprintf(buf, size, "%s", CONTROL_DEFAULT_DIR);
                mode = 0755;    /* others may reach the socket, and be refused */
        }
        if (ret_mode)
                *ret_mode = mode;
        return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* The directory of the sockets, created when missing.  0 or -errno. */
static int control_dir(char *buf, size_t size)
{
        mode_t mode;

        if (control_dir_name(buf, size, &mode) < 0)
                return -ENAMETOOLONG;
        if (mkdir(buf, mode) == 0)
                (void)chmod(buf, mode); /* as documented, whatever the umask */
        else if (errno != EEXIST)
                return -errno;
        return 0;
}

/*
 * DIR/PID.sock in SA, absolute: a relative TJ_CONTROL_DIR is taken from the
 * working directory now, so that a program that changes it later still
 * removes its own socket at exit.  0 or -errno.
 */
static int control_sock_name(struct sockaddr_un *sa)
{
        char dir[sizeof(sa->sun_path)], cwd[sizeof(sa->sun_path)] = "";
        int r, n;

        r = control_dir(dir, sizeof(dir));
        if (r < 0)
                return r;
        if (dir[0] != '/' && !getcwd(cwd, sizeof(cwd)))
                return errno == ERANGE ? -ENAMETOOLONG : -errno;
        n = snprintf(sa->sun_path, sizeof(sa->sun_path), "%s%s%s/%d.sock", cwd,
                     cwd[0] ? "/" : "", dir, (int)getpid());
        return n < 0 || (size_t)n >= sizeof(sa->sun_path) ? -ENAMETOOLONG : 0;
}

/*
 * Whether a process serves SA: it takes a connection, or its queue is full.
 * A live socket of our name is another process's with our pid number, in
 * another pid namespace sharing the directory: it is left alone.  (That
 * endpoint sees a connection that sends nothing, and answers it with an
 * error nobody reads, without counting it served.)
 */
static bool control_sock_live(const struct sockaddr_un *sa)
{
        int fd = output_fd_above_stdio(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC |
                                              SOCK_NONBLOCK, 0));
        bool live;

        if (fd < 0)
                return false;
        live = connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0 || errno == EAGAIN;
        close(fd);
        return live;
}

/*
 * Make the socket file just bound at PATH mode 0666 and record its device and
 * inode.  chmod(PATH) would follow a symlink: in a directory others may
 * write without the sticky bit, one could put a symlink to a file of ours
 * in the socket's place between bind() and chmod(), and have that file made
 * world-writable.  The file is opened with O_PATH | O_NOFOLLOW instead (a
 * symlink is opened as itself), must be a socket of our user, and is chmod'ed
 * through /proc/self/fd, which reaches that inode whatever the path holds
 * by then (fchmod() refuses an O_PATH descriptor; this is glibc's own
 * fchmodat(AT_SYMLINK_NOFOLLOW)).  A umask around bind() would do without
 * the chmod, but the umask is the whole process's, and the program's
 * threads create files meanwhile.  Without /proc the mode the umask left is
 * kept: the owner and root are served all the same, other users are refused
 * by the kernel instead of by the SO_PEERCRED check.  0, or -errno
 * (-EEXIST: the path holds something else by now).
 */
static int control_sock_claim(const char *path)
{
        char proc[64];
        struct stat st;
        int fd, r = 0;

        fd = output_fd_above_stdio(open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC));
        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0)
                r = -errno;
        else if (!S_ISSOCK(st.st_mode) || st.st_uid != geteuid())
                r = -EEXIST;
        else if ((st.st_mode & 07777) != 0666) {
                snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
                if (chmod(proc, 0666) < 0 && errno != ENOENT)
                        r = -errno;
        }
        close(fd);
        if (r == 0) {
                ctl.dev = st.st_dev;
                ctl.ino = st.st_ino;
        }
        return r;
}

/*
 * The name beside PATH (DIR/PID.sock) numbered N: DIR/.PID~XXX, as long as
 * PATH, so that it fits a sockaddr_un too.  The socket is bound under such a
 * name and a file is moved to one before it is removed (control_sock_put(),
 * control_sock_remove()); bind() and renameat2(RENAME_NOREPLACE) refuse a
 * name that exists, so while a file is there no other process puts its own
 * there: what this process checks under that name stays what it checked.
 * Another process of our pid number (another pid namespace, one directory)
 * may pick the same N: one of the two is refused, and takes the next.
 */
static void control_side_name(char *buf, size_t size, const char *path, unsigned n)
{
        const char *base = strrchr(path, '/') + 1;     /* the path is absolute */
        size_t len = strlen(base) - strlen(".sock");

        n += (unsigned)getpid() * 2654435761u + (unsigned)control_now_ms();
        snprintf(buf, size, "%.*s.%.*s~%03x", (int)(base - path), path, (int)len, base,
                 n & 0xfff);
}

#define CONTROL_SIDE_TRIES      16

/*
 * Remove PATH when it is OURS (the socket file of that device and inode) or,
 * OURS NULL, when nobody serves it (a stale socket).  There is no unlink of
 * an inode, and what PATH holds may change between a check and an unlink()
 * of PATH: another process of our pid number (another pid namespace sharing
 * the directory) may put its live socket there, once ours is gone (removed by
 * hand, or taken as stale).  So the file is moved aside first, atomically
 * (renameat2() RENAME_NOREPLACE), to a name only this process uses
 * (control_side_name()), judged there, where it no longer changes, and then
 * removed, or put back when it is not to be removed (without replacing what
 * came to PATH meanwhile: then it stays aside, but is not removed).  The
 * file at PATH is away for that long only when it was not ours to remove,
 * which needed a race to come there.  Without RENAME_NOREPLACE (a filesystem
 * that refuses it) PATH is left: a stale socket, which the next process of
 * that pid number replaces and traceql ctl calls stale.
 */
static void control_sock_remove(const char *path, const struct stat *ours)
{
        struct sockaddr_un side = { .sun_family = AF_UNIX };
        struct stat st;
        bool keep;
        int r = -1;

        for (unsigned i = 0; i < CONTROL_SIDE_TRIES; i++) {
                control_side_name(side.sun_path, sizeof(side.sun_path), path, i);
                r = renameat2(AT_FDCWD, path, AT_FDCWD, side.sun_path, RENAME_NOREPLACE);
                if (r == 0 || errno != EEXIST)
                        break;
        }
        if (r < 0)
                return;
        if (ours)
                keep = lstat(side.sun_path, &st) < 0 || st.st_dev != ours->st_dev ||
                       st.st_ino != ours->st_ino;
        else
                keep = control_sock_live(&side);
        if (!keep)
                (void)unlink(side.sun_path);
        else
                (void)renameat2(AT_FDCWD, side.sun_path, AT_FDCWD, path, RENAME_NOREPLACE);
}

/*
 * Put the socket bound and listening at TMP in its place at PATH: link(),
 * which refuses a PATH that exists, then TMP goes (our name); or, where
 * link() is refused, renameat2() RENAME_NOREPLACE.  A PATH that
 * nobody serves is stale and removed first (control_sock_remove()).  0 or
 * -errno (-EADDRINUSE: another process serves PATH by now).
 */
static int control_sock_put(const char *tmp, const char *path)
{
        struct sockaddr_un sa = { .sun_family = AF_UNIX };

        snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
        for (unsigned i = 0; i < CONTROL_SIDE_TRIES; i++) {
                int r = link(tmp, path) < 0 ? -errno : 0;

                if (r == 0) {
                        (void)unlink(tmp);
                        return 0;
                }
                /* a filesystem without hard links: a move that refuses the
                 * same */
                if (r != -EEXIST)
                        r = renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) < 0 ?
                            -errno : 0;
                if (r != -EEXIST)
                        return r;
                if (control_sock_live(&sa))
                        return -EADDRINUSE;
                control_sock_remove(path, NULL);
        }
        return -EADDRINUSE;
}

/*
 * Bind and listen on DIR/PID.sock, replacing a stale one.  0 or -errno
 * (-EADDRINUSE: another process serves that name).  The socket is bound
 * under a name beside it (control_side_name()), its device and inode taken
 * there, and it is put at DIR/PID.sock only once it listens: bound there
 * directly, it was not yet listening after the bind(), and another process
 * of our pid number (another pid namespace) could take it as stale, remove
 * it and bind its own, whose inode control_sock_claim() then recorded as
 * ours, and which our exit removed.
 */
static int control_bind(void)
{
        struct sockaddr_un sa = { .sun_family = AF_UNIX }, tmp = sa;
        bool claimed = false;
        int fd, r;

        r = control_sock_name(&sa);
        if (r < 0)
                return r;
        if (control_sock_live(&sa))
                return -EADDRINUSE;
        fd = output_fd_above_stdio(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC |
                                          SOCK_NONBLOCK, 0));
        if (fd < 0)
                return -errno;
        r = -EADDRINUSE;
        for (unsigned i = 0; i < CONTROL_SIDE_TRIES && r == -EADDRINUSE; i++) {
                control_side_name(tmp.sun_path, sizeof(tmp.sun_path), sa.sun_path, i);
                r = bind(fd, (struct sockaddr *)&tmp, sizeof(tmp)) < 0 ? -errno : 0;
        }
        if (r == 0)
                r = control_sock_claim(tmp.sun_path);
        claimed = r == 0;
        if (r == 0 && listen(fd, 8) < 0)
                r = -errno;
        if (r == 0)
                r = control_sock_put(tmp.sun_path, sa.sun_path);
        if (r < 0) {
                if (claimed) {
                        struct stat ours = { .st_dev = ctl.dev, .st_ino = ctl.ino };

                        control_sock_remove(tmp.sun_path, &ours);
                }
                close(fd);
                return r;
        }
        ctl.fd = fd;
        ctl.owner = getpid();
        memcpy(ctl.path, sa.sun_path, sizeof(ctl.path));
        return 0;
}

/*
 * The socket file is removed only when it is the one we bound: another
 * process of our pid number (another pid namespace) may have put its own
 * there since ours was removed, by hand or as stale.  It is looked at first,
 * so that another's is not even moved, then removed by control_sock_remove(),
 * which judges it again where it cannot change.  Before close(): our bound
 * socket holds its inode, so no other file can have its number meanwhile.
 */
static void control_close(void)
{
        struct stat st;

        if (ctl.fd >= 0) {
                if (getpid() == ctl.owner && lstat(ctl.path, &st) == 0 &&
                    st.st_dev == ctl.dev && st.st_ino == ctl.ino)
                        control_sock_remove(ctl.path, &st);
                close(ctl.fd);
        }
        if (ctl.stop_fd >= 0)
                close(ctl.stop_fd);
        ctl.fd = ctl.stop_fd = -1;
        ctl.path[0] = '\0';
}

static void control_atexit(void)
{
        tj_control_stop();
}

int tj_control_start(void)
{
        static bool atexit_done;
        sigset_t all, old;
        int r = 0;

        pthread_mutex_lock(&ctl.lock);
        if (ctl.running)
                goto out;
        if (!atexit_done && atexit(control_atexit) == 0)
                atexit_done = true;
        ctl.stop_fd = output_fd_above_stdio(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
        if (ctl.stop_fd < 0) {
                r = -errno;
                goto out;
        }
        r = control_bind();
        if (r < 0)
                goto fail;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        r = -pthread_create(&ctl.thread, NULL, control_main, NULL);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (r == 0) {
                ctl.running = true;
                goto out;
        }
fail:
        control_close();
out:
        pthread_mutex_unlock(&ctl.lock);
        return r;
}

void tj_control_stop(void)
{
        uint64_t one = 1;

        pthread_mutex_lock(&ctl.lock);
        if (ctl.running) {
                if (write(ctl.stop_fd, &one, sizeof(one)) == sizeof(one))
                        pthread_join(ctl.thread, NULL);
                else
                        pthread_detach(ctl.thread);
                ctl.running = false;
                control_close();
        }
        pthread_mutex_unlock(&ctl.lock);
}

int tj_control_path(char *buf, size_t size)
{
        int r = -ENOTCONN;

        if (!buf || size == 0)
                return -EINVAL;
        pthread_mutex_lock(&ctl.lock);
        if (ctl.running) {
                r = strlen(ctl.path) < size ? 0 : -ENAMETOOLONG;
                if (r == 0)
                        strcpy(buf, ctl.path);
        }
        pthread_mutex_unlock(&ctl.lock);
        return r;
}

/*
 * A fork child has no control thread: it closes its copies of the parent's
 * descriptors and never removes the parent's socket.  It may call
 * tj_control_start() for an endpoint of its own.
 */
static void control_fork_child(void)
{
        pthread_mutex_init(&ctl.lock, NULL);
        if (ctl.fd >= 0)
                close(ctl.fd);
        if (ctl.stop_fd >= 0)
                close(ctl.stop_fd);
        ctl.fd = ctl.stop_fd = -1;
        ctl.path[0] = '\0';
        ctl.running = false;
        atomic_store(&ctl.served, 0);
        atomic_store(&ctl.refused, 0);
}

__attribute__((constructor)) static void control_init_fork(void)
{
        pthread_atfork(NULL, NULL, control_fork_child);
}
