/*
 * ctl.c - traceql ctl: talk to a traced program's control endpoint.
 *
 *     traceql ctl PID list [PATTERN]
 *     traceql ctl PID enable|disable PATTERN
 *     traceql ctl PID flush | stats
 *     traceql ctl PID outputs [LIST]
 *
 * The library serves DIR/PID.sock when the program runs with TJ_CONTROL=1 or
 * called tj_control_start() (backend/control.c, tracejournal(7)).  This side
 * finds the socket, checks that the process listening on it is PID (a stale
 * socket of an earlier process is not trusted), sends the words as one
 * request line, prints the reply's data lines on stdout and turns its last
 * line ("ok" or "error MESSAGE") into the exit status.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <linux/openat2.h>

#include "traceql.h"

#define CTL_REPLY_MAX   (64u << 20)     /* far more than any list of events */
#define CTL_TIMEOUT_S   60              /* a flush waits TJ_FLUSH_TIMEOUT_MS at most */

static void ctl_usage(FILE *f)
{
        fputs("usage: traceql ctl PID list [PATTERN]\n"
              "       traceql ctl PID enable|disable PATTERN\n"
              "       traceql ctl PID flush|stats\n"
              "       traceql ctl PID outputs [LIST]\n"
              "Control the tracing of a running program (TJ_CONTROL=1); see traceql(1).\n", f);
}

/* PATH when it exists; 0, or -ENOENT / -EACCES (a directory on the way that
 * we may not search) / -ENAMETOOLONG. */
static int ctl_try(char *ret_path, size_t size, const char *dir, const char *sub, long pid)
{
        struct stat st;
        int n = snprintf(ret_path, size, "%s%s/%ld.sock", dir, sub, pid);

        if (n < 0 || (size_t)n >= size)
                return -ENAMETOOLONG;
        if (lstat(ret_path, &st) == 0)
                return 0;
        return errno == EACCES ? -EACCES : -ENOENT;
}

/*
 * The number PID has in its own pid namespace, which the library names its
 * socket after: the last field of NSpid in /proc/PID/status (a process in a
 * container is 1 there, 4242 here).  PID itself when the kernel does not
 * say (before Linux 4.1) or the file cannot be read.
 */
static long ctl_own_pid(long pid)
{
        char path[64], *line = NULL, *p, *end;
        size_t cap = 0;
        long own = pid, v;
        FILE *f;

        snprintf(path, sizeof(path), "/proc/%ld/status", pid);
        f = fopen(path, "re");
        if (!f)
                return pid;
        while (getline(&line, &cap, f) > 0) {
                if (strncmp(line, "NSpid:", 6) != 0)
                        continue;
                for (p = line + 6; (v = strtol(p, &end, 10)) > 0 && end != p; p = end)
                        own = v;
                break;
        }
        free(line);
        fclose(f);
        return own;
}

/*
 * Whether PID sees other files than we do at the same paths: another mount
 * namespace (unshare -m, a container) or another root directory (chroot).
 */
static bool ctl_other_root(long pid)
{
        char path[64];
        struct stat a, b;

        snprintf(path, sizeof(path), "/proc/%ld/ns/mnt", pid);
        if (stat(path, &a) == 0 && stat("/proc/self/ns/mnt", &b) == 0 &&
            (a.st_dev != b.st_dev || a.st_ino != b.st_ino))
                return true;
        snprintf(path, sizeof(path), "/proc/%ld/root", pid);
        return stat(path, &a) == 0 && stat("/", &b) == 0 &&
               (a.st_dev != b.st_dev || a.st_ino != b.st_ino);
}

/*
 * PID's socket in its own files, for a PID that sees other files than we do
 * (ctl_other_root()): DIR/OWN.sock looked up under /proc/PID/root, DIR
 * $TJ_CONTROL_DIR when set (absolute: the program's working directory is not
 * ours), else /run/user/UID/tracejournal (UID the owner of PID, as we see it)
 * and /run/tracejournal.  The container's processes own the files on the way
 * and may make symlinks of them: the lookup is openat2() with
 * RESOLVE_IN_ROOT, so that an absolute symlink or ".." stays under PID's root
 * instead of naming our files, and RESOLVE_NO_MAGICLINKS, so that none leads
 * out through a /proc/N/root, /proc/N/cwd or /proc/N/fd (RESOLVE_IN_ROOT
 * refuses those too, today: the kernel says this may change).  The socket
 * found is an O_PATH descriptor in *RET_FD, connected to through
 * /proc/self/fd (the name is not looked up again from here); RET_PATH is
 * /proc/PID/root/DIR/OWN.sock, for messages.  0 or -ENOENT (also where the
 * kernel has no openat2(), before Linux 5.6, or we may not look at PID's
 * root).
 */
static int ctl_find_in_root(long pid, long own, char *ret_path, size_t size, int *ret_fd)
{
        struct open_how how = {
                .flags = O_PATH | O_CLOEXEC,
                .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
        };
        const char *v = getenv("TJ_CONTROL_DIR"), *dirs[2];
        char root[64], user[64], name[PATH_MAX];
        struct stat st;
        size_t n = 0;
        int rootfd, fd;

        if (v && *v && *v != '/')
                return -ENOENT;
        snprintf(root, sizeof(root), "/proc/%ld", pid);
        if (v && *v)
                dirs[n++] = v;
        else {
                if (stat(root, &st) == 0) {
                        snprintf(user, sizeof(user), "/run/user/%u/tracejournal",
                                 (unsigned)st.st_uid);
                        dirs[n++] = user;
                }
                dirs[n++] = "/run/tracejournal";
        }
        snprintf(root, sizeof(root), "/proc/%ld/root", pid);
        rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (rootfd < 0)
                return -ENOENT;
        for (size_t i = 0; i < n; i++) {
                int len = snprintf(name, sizeof(name), "%s/%ld.sock", dirs[i], own);

                if (len < 0 || (size_t)len >= sizeof(name))
                        continue;
                fd = (int)syscall(SYS_openat2, rootfd, name, &how, sizeof(how));
                if (fd < 0)
                        continue;
                len = snprintf(ret_path, size, "%s%s", root, name);
                if (fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode) && len > 0 &&
                    (size_t)len < size) {
                        close(rootfd);
                        *ret_fd = fd;
                        return 0;
                }
                close(fd);
        }
        close(rootfd);
        return -ENOENT;
}

/*
 * Where PID's socket is: $TJ_CONTROL_DIR alone when set, else the first of
 * $XDG_RUNTIME_DIR/tracejournal, /run/user/UID/tracejournal (UID the owner of
 * PID) and /run/tracejournal that holds it.  The socket is named after PID's
 * number in its own pid namespace (ctl_own_pid()).  When none is there and
 * PID sees other files than we do (a container), the same under its root
 * (ctl_find_in_root(): then *RET_FD is the socket's descriptor).  0, or
 * -ENOENT, or -EACCES with the first path we may not look at in RET_PATH
 * (the socket may be there: "no control endpoint" would send the user
 * looking for TJ_CONTROL).
 */
static int ctl_find(long pid, char *ret_path, size_t size, int *ret_fd)
{
        const char *v = getenv("TJ_CONTROL_DIR"), *dirs[3];
        char proc[64], user[64], denied[PATH_MAX] = "";
        long own = ctl_own_pid(pid);
        struct stat st;
        size_t n = 0;

        if (v && *v) {
                int r = ctl_try(ret_path, size, v, "", own);

                if (r == -ENOENT && ctl_other_root(pid))
                        r = ctl_find_in_root(pid, own, ret_path, size, ret_fd);
                return r;
        }
        v = getenv("XDG_RUNTIME_DIR");
        if (v && *v)
                dirs[n++] = v;
        snprintf(proc, sizeof(proc), "/proc/%ld", pid);
        if (stat(proc, &st) == 0) {
                snprintf(user, sizeof(user), "/run/user/%u", (unsigned)st.st_uid);
                dirs[n++] = user;
        }
        dirs[n++] = "/run";
        for (size_t i = 0; i < n; i++) {
                int r = ctl_try(ret_path, size, dirs[i], "/tracejournal", own);

                if (r == 0)
                        return 0;
                if (r == -EACCES && !denied[0])
                        snprintf(denied, sizeof(denied), "%s", ret_path);
        }
        if (!denied[0])
                return ctl_other_root(pid) ? ctl_find_in_root(pid, own, ret_path, size, ret_fd) :
                       -ENOENT;
        snprintf(ret_path, size, "%s", denied);
        return -EACCES;
}

/* How long a request waits for its answer: CTL_TIMEOUT_S, or for the tests
 * $TRACEQL_TEST_CTL_TIMEOUT_S. */
static int ctl_timeout_s(void)
{
        const char *t = getenv("TRACEQL_TEST_CTL_TIMEOUT_S");

        return t && atoi(t) > 0 ? atoi(t) : CTL_TIMEOUT_S;
}

/* Connect to PATH (or to the socket FOUND, an O_PATH descriptor, when not
 * -1) and check that PID is the one listening: SO_PEERCRED gives its pid in
 * our namespace, as PID is, whatever number names the socket.  The fd or
 * -1. */
static int ctl_connect(const char *who, const char *path, int found, long pid)
{
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        struct timeval tv = { ctl_timeout_s(), 0 };
        struct ucred cred;
        socklen_t len = sizeof(cred);
        int fd;

        if (found >= 0)
                snprintf(sa.sun_path, sizeof(sa.sun_path), "/proc/self/fd/%d", found);
        else if (strlen(path) >= sizeof(sa.sun_path)) {
                fprintf(stderr, "traceql: ctl %s: %s: %s\n", who, path, strerror(ENAMETOOLONG));
                return -1;
        } else
                strcpy(sa.sun_path, path);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) {
                fprintf(stderr, "traceql: ctl %s: socket: %s\n", who, strerror(errno));
                return -1;
        }
        if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
                fprintf(stderr, "traceql: ctl %s: %s: %s%s\n", who, path, strerror(errno),
                        errno == ECONNREFUSED ? " (stale socket: the process is gone?)" : "");
                close(fd);
                return -1;
        }
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
                fprintf(stderr, "traceql: ctl %s: %s: cannot tell which process serves it: %s\n",
                        who, path, strerror(errno));
                close(fd);
                return -1;
        }
        if (cred.pid != pid) {
                fprintf(stderr, "traceql: ctl %s: %s is served by pid %ld, not %ld\n", who,
                        path, (long)cred.pid, pid);
                close(fd);
                return -1;
        }
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
        return fd;
}

/* Send REQ whole.  The endpoint may answer and close early (a request it
 * refuses), so a failed send is not an error by itself: the reply says. */
static void ctl_send(int fd, const char *req, size_t len)
{
        while (len > 0) {
                ssize_t n = send(fd, req, len, MSG_NOSIGNAL);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        break;
                req += n;
                len -= (size_t)n;
        }
        shutdown(fd, SHUT_WR);
}

/* Read the reply until the end of stream into *RET (NUL-terminated).
 * 0 or -errno.  A reset after data is an end of stream: the endpoint closed
 * with our unread request bytes still queued. */
static int ctl_recv(int fd, char **ret, size_t *ret_len)
{
        char *buf = NULL;
        size_t len = 0, cap = 0;

        for (;;) {
                ssize_t n;

                if (cap - len < 4096) {
                        char *p;

                        if (cap >= CTL_REPLY_MAX) {
                                free(buf);
                                return -EMSGSIZE;
                        }
                        p = realloc(buf, cap ? cap * 2 : 8192);
                        if (!p) {
                                free(buf);
                                return -ENOMEM;
                        }
                        buf = p;
                        cap = cap ? cap * 2 : 8192;
                }
                n = recv(fd, buf + len, cap - len - 1, 0);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && errno == ECONNRESET && len > 0)
                        break;
                if (n < 0) {
                        int r = -errno;

                        free(buf);
                        return r;
                }
                if (n == 0)
                        break;
                len += (size_t)n;
        }
        buf[len] = '\0';
        *ret = buf;
        *ret_len = len;
        return 0;
}

/* Write S[0..N) with every byte but a newline that is not printable ASCII
 * as \xHH: the endpoint speaks ASCII (event and group names are C
 * identifiers), and a program served by another user (root asking a user's
 * process) must not reach the terminal with escape sequences. */
static void ctl_put(FILE *f, const char *s, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                unsigned char c = (unsigned char)s[i];

                if (c == '\n' || (c >= 0x20 && c < 0x7f))
                        fputc(c, f);
                else
                        fprintf(f, "\\x%02x", c);
        }
}

/* Print the data lines, judge the status line.  Returns an exit code. */
static int ctl_reply(const char *who, char *reply, size_t len)
{
        char *last;

        if (len == 0 || reply[len - 1] != '\n' || memchr(reply, '\0', len)) {
                fprintf(stderr, "traceql: ctl %s: the reply ended early\n", who);
                return TQ_EXIT_CTL;
        }
        reply[len - 1] = '\0';
        last = strrchr(reply, '\n');
        last = last ? last + 1 : reply;
        ctl_put(stdout, reply, (size_t)(last - reply));
        if (strcmp(last, "ok") == 0)
                return TQ_EXIT_OK;
        if (strncmp(last, "error ", 6) == 0) {
                fprintf(stderr, "traceql: ctl %s: ", who);
                ctl_put(stderr, last + 6, strlen(last + 6));
                fputc('\n', stderr);
                return TQ_EXIT_CTL_REQUEST;
        }
        fprintf(stderr, "traceql: ctl %s: unexpected reply '", who);
        ctl_put(stderr, last, strlen(last));
        fputs("'\n", stderr);
        return TQ_EXIT_CTL;
}

/* The request line: the words after PID, joined by spaces, with a '\n'. */
static char *ctl_request(int argc, char **argv, size_t *ret_len)
{
        size_t len = 0;
        char *req, *p;

        for (int i = 0; i < argc; i++)
                len += strlen(argv[i]) + 1;
        req = malloc(len + 1);
        if (!req)
                return NULL;
        p = req;
        for (int i = 0; i < argc; i++) {
                size_t n = strlen(argv[i]);

                memcpy(p, argv[i], n);
                p += n;
                *p++ = i + 1 < argc ? ' ' : '\n';
        }
        *p = '\0';
        *ret_len = len;
        return req;
}

int ctl_main(int argc, char **argv)
{
        char path[PATH_MAX], *req = NULL, *reply = NULL;
        size_t req_len, reply_len = 0;
        const char *who;
        long pid;
        int fd = -1, found = -1, r, ret;

        if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
                ctl_usage(stdout);
                return tq_stdout_done();
        }
        if (argc < 3) {
                ctl_usage(stderr);
                return TQ_EXIT_USAGE;
        }
        who = argv[1];
        /* digits only: strtol() alone takes leading blanks and a sign, and
         * who is printed below as given */
        errno = 0;
        pid = strtol(who, NULL, 10);
        if (who[strspn(who, "0123456789")] != '\0' || errno || pid <= 0 || pid > INT_MAX) {
                tq_message("ctl: '%s' is not a process id", who);
                return TQ_EXIT_USAGE;
        }
        /* the request is the words joined by blanks, a line: an empty word
         * would vanish ("list ''" listed every event), one with a blank
         * would be two, one with a newline two requests */
        for (int i = 2; i < argc; i++) {
                const char *bad = argv[i] + strcspn(argv[i], " \t\n\r\v\f");

                if (!*argv[i]) {
                        tq_message("ctl: an empty argument (after '%s')", argv[i - 1]);
                        return TQ_EXIT_USAGE;
                }
                if (*bad) {
                        tq_message("ctl: argument '%s' holds a %s: give each word as an "
                                   "argument of its own", argv[i],
                                   *bad == ' ' || *bad == '\t' ? "blank" : "line break");
                        return TQ_EXIT_USAGE;
                }
        }
        if (kill((pid_t)pid, 0) < 0 && errno == ESRCH) {
                fprintf(stderr, "traceql: ctl %s: no such process\n", who);
                return TQ_EXIT_CTL;
        }
        r = ctl_find(pid, path, sizeof(path), &found);
        if (r == -EACCES) {
                fprintf(stderr, "traceql: ctl %s: %s: %s\n", who, path, strerror(EACCES));
                return TQ_EXIT_CTL;
        }
        if (r < 0) {
                fprintf(stderr, "traceql: ctl %s: no control endpoint (start the program "
                        "with TJ_CONTROL=1)\n", who);
                return TQ_EXIT_CTL;
        }
        req = ctl_request(argc - 2, argv + 2, &req_len);
        if (!req) {
                fputs("traceql: out of memory\n", stderr);
                ret = TQ_EXIT_NOMEM;
                goto out;
        }
        fd = ctl_connect(who, path, found, pid);
        if (fd < 0) {
                ret = TQ_EXIT_CTL;
                goto out;
        }
        ctl_send(fd, req, req_len);
        r = ctl_recv(fd, &reply, &reply_len);
        if (r == -EAGAIN || r == -EWOULDBLOCK)
                fprintf(stderr, "traceql: ctl %s: %s: no answer within %d s\n", who, path,
                        ctl_timeout_s());
        else if (r < 0)
                fprintf(stderr, "traceql: ctl %s: %s: %s\n", who, path, strerror(-r));
        if (r < 0) {
                ret = r == -ENOMEM ? TQ_EXIT_NOMEM : TQ_EXIT_CTL;
                goto out;
        }
        ret = ctl_reply(who, reply, reply_len);
out:
        if (fd >= 0)
                close(fd);
        if (found >= 0)
                close(found);
        free(req);
        free(reply);
        return ret;
}
