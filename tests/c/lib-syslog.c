/*
 * lib-syslog.c - the syslog output's datagrams, byte for byte.
 *
 *   lib-syslog SOCKET-PATH rfc3164|rfc5424
 *
 * Binds a datagram socket at SOCKET-PATH, points the library at it with
 * TJ_SYSLOG_SOCKET, traces a few events and compares every datagram received
 * with the exact RFC 3164 (glibc syslog(3) with LOG_PID) or RFC 5424 text.
 * What only the library knows (the clocks) is taken from the datagram, checked
 * to lie within the call, and then used to build the whole expected text.
 * With TJ_TEST_BIND_DEVLOG=1 (run under 'unshare -m' as root), the socket is
 * also bind-mounted on /dev/log and glibc's own syslog(3) sends the first
 * event's text: its datagram must equal ours, which proves "as glibc sends".
 * Prints PASS:/FAIL: lines for tests/run.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <syslog.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>

#include "tgroup.h"

static const char *format;
static int sock;
static int failures;

static int64_t now_ns(clockid_t id)
{
        struct timespec ts;

        clock_gettime(id, &ts);
        return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int receive(char *buf, size_t size)
{
        ssize_t n = recv(sock, buf, size - 1, 0);

        if (n < 0)
                return -1;
        buf[n] = '\0';
        return (int)n;
}

static void check(const char *name, const char *expected, const char *got)
{
        if (strcmp(expected, got) == 0)
                printf("PASS: lib-syslog-%s-%s\n", format, name);
        else {
                printf("FAIL: lib-syslog-%s-%s (datagram differs)\n    expected [%s]\n    got      [%s]\n",
                       format, name, expected, got);
                failures++;
        }
}

/* RFC 3164: the header for the second the datagram names, if in [LO, HI]. */
static void expect_3164(char *out, size_t size, int64_t lo, int64_t hi, const char *got,
                        const char *msg)
{
        static const char *mon[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                     "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };

        out[0] = '\0';
        for (time_t t = (time_t)(lo / 1000000000); t <= (time_t)(hi / 1000000000); t++) {
                struct tm tm;

                localtime_r(&t, &tm);
                snprintf(out, size, "<30>%s %2d %02d:%02d:%02d tjsys[%d]: %s", mon[tm.tm_mon],
                         tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)getpid(), msg);
                if (strcmp(out, got) == 0)
                        return;
        }
}

/* A numeric SD param of the datagram, -1 when absent. */
static int64_t param(const char *got, const char *name)
{
        char key[64];
        const char *p;

        snprintf(key, sizeof(key), " %s=\"", name);
        p = strstr(got, key);
        return p ? strtoll(p + strlen(key), NULL, 10) : -1;
}

/* RFC 5424: header with the datagram's time; SD = params after the clocks. */
static void expect_5424(char *out, size_t size, const char *got, int64_t lo, int64_t hi,
                        int64_t mlo, int64_t mhi, const char *event, const char *sd_head,
                        const char *sd_tail, const char *msg)
{
        int64_t t = param(got, "time_ns"), m = param(got, "mono_ns");
        char host[256] = "";
        time_t sec = (time_t)(t / 1000000000);
        struct tm tm;

        if (t < lo || t > hi || m < mlo || m > mhi) {
                snprintf(out, size, "(clocks outside the call: time_ns %" PRId64 " mono_ns %" PRId64 ")",
                         t, m);
                return;
        }
        gethostname(host, sizeof(host) - 1);
        gmtime_r(&sec, &tm);
        snprintf(out, size, "<30>1 %04d-%02d-%02dT%02d:%02d:%02d.%06dZ %s tjsys %d %s "
                 "[tj@32473 event=\"%s\" %s time_ns=\"%" PRId64 "\" mono_ns=\"%" PRId64 "\" "
                 "tid=\"%d\" %s] %s",
                 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                 tm.tm_sec, (int)(t % 1000000000 / 1000), host, (int)getpid(), event, event,
                 sd_head, t, m, (int)syscall(SYS_gettid), sd_tail, msg);
}

int main(int argc, char **argv)
{
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        struct timeval tv = { 20, 0 };
        static char got[65536], exp[65536], tail[4096];
        int64_t lo, hi, mlo, mhi;
        int line;

        if (argc != 3) {
                fprintf(stderr, "usage: lib-syslog SOCKET rfc3164|rfc5424\n");
                return 2;
        }
        format = argv[2];
        sock = socket(AF_UNIX, SOCK_DGRAM, 0);
        snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", argv[1]);
        unlink(argv[1]);
        if (bind(sock, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
                printf("FAIL: lib-syslog-%s-bind (%s)\n", format, strerror(errno));
                return 1;
        }
        setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        setenv("TJ_SYSLOG_SOCKET", argv[1], 1);
        setenv("TJ_SYSLOG_FORMAT", format, 1);
        setenv("TJ_OUTPUT", "syslog", 1);
        setenv("TJ_IDENTIFIER", "tjsys", 1);
        tj_init("ignored");
        tj_enable("tg?_*");

        /* 1: a plain event */
        lo = now_ns(CLOCK_REALTIME), mlo = now_ns(CLOCK_MONOTONIC);
        line = __LINE__; trace_tgb_req((void *)0x1000, 7, "disk0");
        tj_flush();
        hi = now_ns(CLOCK_REALTIME), mhi = now_ns(CLOCK_MONOTONIC);
        if (receive(got, sizeof(got)) < 0)
                strcpy(got, "(nothing received)");
        if (strcmp(format, "rfc3164") == 0)
                expect_3164(exp, sizeof(exp), lo, hi, got,
                            "tgb_req req 0x1000 sector 7 name disk0");
        else {
                snprintf(tail, sizeof(tail), "file=\"tests/c/lib-syslog.c\" line=\"%d\" "
                         "func=\"main\" arg_req=\"0x1000\" arg_sector=\"7\" arg_name=\"disk0\"",
                         line);
                expect_5424(exp, sizeof(exp), got, lo, hi, mlo, mhi, "tgb_req",
                            "group=\"tgb\" seq=\"1\"", tail,
                            "tgb_req req 0x1000 sector 7 name disk0");
        }
        check("plain", exp, got);

        /* 2: control characters and the SD specials in a string */
        lo = now_ns(CLOCK_REALTIME), mlo = now_ns(CLOCK_MONOTONIC);
        line = __LINE__; trace_tga_all(-5, 5, NULL, "a\"b\\c]d\ne\tf\x7fg\xc3\xa9", -1, 200);
        tj_flush();
        hi = now_ns(CLOCK_REALTIME), mhi = now_ns(CLOCK_MONOTONIC);
        if (receive(got, sizeof(got)) < 0)
                strcpy(got, "(nothing received)");
        if (strcmp(format, "rfc3164") == 0)
                expect_3164(exp, sizeof(exp), lo, hi, got,
                            "tga_all i64 -5 u64 5 ptr (nil) s a\"b\\c]d#012e#011f#177g\xc3\xa9 i32 -1 u8 200");
        else {
                snprintf(tail, sizeof(tail), "file=\"tests/c/lib-syslog.c\" line=\"%d\" "
                         "func=\"main\" arg_i64=\"-5\" arg_u64=\"5\" arg_ptr=\"0x0\" "
                         "arg_s=\"a\\\"b\\\\c\\]d#012e#011f#177g\xc3\xa9\" arg_i32=\"-1\" arg_u8=\"200\"",
                         line);
                expect_5424(exp, sizeof(exp), got, lo, hi, mlo, mhi, "tga_all",
                            "group=\"tga\" seq=\"2\"", tail,
                            "tga_all i64 -5 u64 5 ptr (nil) s a\"b\\c]d#012e#011f#177g\xc3\xa9 i32 -1 u8 200");
        }
        check("escapes", exp, got);

        /* 3: a NULL string: no param, "(null)" in the text as printf has it */
        lo = now_ns(CLOCK_REALTIME), mlo = now_ns(CLOCK_MONOTONIC);
        line = __LINE__; trace_tgb_req(NULL, 0, NULL);
        tj_flush();
        hi = now_ns(CLOCK_REALTIME), mhi = now_ns(CLOCK_MONOTONIC);
        if (receive(got, sizeof(got)) < 0)
                strcpy(got, "(nothing received)");
        if (strcmp(format, "rfc3164") == 0)
                expect_3164(exp, sizeof(exp), lo, hi, got,
                            "tgb_req req (nil) sector 0 name (null)");
        else {
                snprintf(tail, sizeof(tail), "file=\"tests/c/lib-syslog.c\" line=\"%d\" "
                         "func=\"main\" arg_req=\"0x0\" arg_sector=\"0\"", line);
                expect_5424(exp, sizeof(exp), got, lo, hi, mlo, mhi, "tgb_req",
                            "group=\"tgb\" seq=\"3\"", tail,
                            "tgb_req req (nil) sector 0 name (null)");
        }
        check("null", exp, got);

        if (strcmp(format, "rfc3164") == 0 && getenv("TJ_TEST_BIND_DEVLOG")) {
                if (mount(argv[1], "/dev/log", NULL, MS_BIND, NULL) < 0) {
                        printf("FAIL: lib-syslog-glibc (mount: %s)\n", strerror(errno));
                        failures++;
                } else {
                        lo = now_ns(CLOCK_REALTIME);
                        openlog("tjsys", LOG_PID, LOG_DAEMON);
                        syslog(LOG_INFO, "%s", "tgb_req req 0x1000 sector 7 name disk0");
                        closelog();
                        hi = now_ns(CLOCK_REALTIME);
                        if (receive(got, sizeof(got)) < 0)
                                strcpy(got, "(nothing received)");
                        expect_3164(exp, sizeof(exp), lo, hi, got,
                                    "tgb_req req 0x1000 sector 7 name disk0");
                        check("same-as-glibc", exp, got);
                }
        }
        tj_shutdown();
        unlink(argv[1]);
        return failures != 0;
}
