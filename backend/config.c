/*
 * config.c - tj_init() and the settings: identifier, environment, outputs.
 *
 * tj_init() reads the TJ_* variables once, applies TJ_EVENTS and
 * TJ_EVENTS_FILE, opens the outputs and starts the writer thread.  Problems in
 * the environment are reported as one line each on stderr, prefixed with
 * "tracejournal: " and silenced by TJ_QUIET=1; apart from the one-line
 * warning of an output whose daemon is absent, that is the only printing the
 * library does.  The API calls themselves never print: they return -errno.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "internal.h"

#define CONFIG_RING_DEFAULT     (128u * 1024)
#define CONFIG_RING_MIN         4096u
#define CONFIG_RING_MAX         (1024u * 1024 * 1024)
#define CONFIG_FLUSH_DEFAULT    1000u
#define CONFIG_SYSLOG_DEFAULT   "/dev/log"

TJ_HIDDEN struct config config = {
        .ring_size = CONFIG_RING_DEFAULT,
        .flush_timeout_ms = CONFIG_FLUSH_DEFAULT,
        .syslog_socket = CONFIG_SYSLOG_DEFAULT,
};
TJ_HIDDEN atomic_bool config_initialized;

static pthread_mutex_t config_lock = PTHREAD_MUTEX_INITIALIZER;
static char config_outputs[CONFIG_OUTPUTS_SIZE];       /* tj_set_outputs()'s last list */
/* Written under config_lock and this one, which the control endpoint takes
 * alone to read it (it never waits for config_lock): a leaf. */
static pthread_mutex_t config_outputs_lock = PTHREAD_MUTEX_INITIALIZER;
static bool config_atexit_done;

/*
 * One line on stderr.  The values it quotes come from the environment, a
 * file of patterns, a file name: every byte outside printable ASCII is
 * written as \xHH (as traceql ctl and tracegen write theirs), so that none
 * sends an escape sequence to the terminal or starts a line of its own.
 */
void config_warn(const char *fmt, ...)
{
        char line[1024], out[sizeof("tracejournal: \n") + 4 * sizeof(line)];
        size_t len;
        va_list ap;
        int n;

        if (atomic_load_explicit(&config.quiet, memory_order_relaxed))
                return;
        va_start(ap, fmt);
        n = vsnprintf(line, sizeof(line), fmt, ap);
        va_end(ap);
        if (n < 0)
                return;
        if ((size_t)n > sizeof(line) - 1)
                n = sizeof(line) - 1;
        len = (size_t)snprintf(out, sizeof(out), "tracejournal: ");
        for (int i = 0; i < n; i++) {
                unsigned char c = (unsigned char)line[i];

                if (c >= 0x20 && c < 0x7f)
                        out[len++] = (char)c;
                else
                        len += (size_t)snprintf(out + len, sizeof(out) - len, "\\x%02x", c);
        }
        out[len++] = '\n';
        fwrite(out, 1, len, stderr);
}

/* The host name for RFC 5424, looked up once. */
char *config_hostname(void)
{
        static char host[256];

        if (!host[0] && gethostname(host, sizeof(host) - 1) < 0)
                strcpy(host, "-");
        return host;
}

/*
 * A boolean variable: 1, yes, true or on (in any case) is true; unset, empty,
 * 0, no, false or off is false.  Anything else is false too, and *RET_BAD
 * set: config_flag() warns, TJ_SYNC=enable must not quietly mean off.
 */
static bool config_flag_value(const char *name, bool *ret_bad)
{
        static const char *const yes[] = { "1", "yes", "true", "on" };
        static const char *const no[] = { "0", "no", "false", "off" };
        const char *v = getenv(name);

        *ret_bad = false;
        if (!v || !*v)
                return false;
        for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
                if (strcasecmp(v, yes[i]) == 0)
                        return true;
                if (strcasecmp(v, no[i]) == 0)
                        return false;
        }
        *ret_bad = true;
        return false;
}

static bool config_flag(const char *name)
{
        bool bad, on = config_flag_value(name, &bad);

        if (bad)
                config_warn("%s: unknown value '%s', using '0'", name, getenv(name));
        return on;
}

/* "65536", "64K", "4M": bytes rounded up to a power of two, at least
 * CONFIG_RING_MIN; 0 when invalid, as a size of 0 is (it asks for no ring).
 * Digits first: strtoull() would take leading blanks and a sign ("-1" as
 * 2^64 - 1). */
static size_t config_parse_size(const char *s)
{
        char *end;
        unsigned long long v;
        size_t size = CONFIG_RING_MIN;

        if (*s < '0' || *s > '9')
                return 0;
        errno = 0;
        v = strtoull(s, &end, 10);
        if (errno || end == s || v == 0)
                return 0;
        if (v > CONFIG_RING_MAX)
                return 0;               /* before a suffix can wrap it round */
        if (*end == 'K' || *end == 'k')
                v *= 1024, end++;
        else if (*end == 'M' || *end == 'm')
                v *= 1024 * 1024, end++;
        if (*end || v > CONFIG_RING_MAX)
                return 0;
        while (size < v)
                size *= 2;
        return size;
}

static void config_read_env(const char *identifier)
{
        const char *v;
        bool block = false, quiet, bad;
        size_t ring_size = CONFIG_RING_DEFAULT;
        unsigned flush_ms = CONFIG_FLUSH_DEFAULT;
        size_t len;

        /* The defaults again: an earlier tj_init() may have read others. */
        config.syslog_rfc5424 = false;
        strcpy(config.syslog_socket, CONFIG_SYSLOG_DEFAULT);
        /* once: a thread warning meanwhile sees the old value or the new;
         * a bad TJ_QUIET is said (it means off) */
        quiet = config_flag_value("TJ_QUIET", &bad);
        atomic_store_explicit(&config.quiet, quiet, memory_order_relaxed);
        if (bad)
                config_warn("TJ_QUIET: unknown value '%s', using '0'", getenv("TJ_QUIET"));
        v = getenv("TJ_IDENTIFIER");
        if (v && *v)
                identifier = v;
        if (!identifier || !*identifier)
                identifier = program_invocation_short_name;
        len = strlen(identifier);
        if (len >= sizeof(config.identifier)) {
                /* cut before the character that does not fit whole (UTF-8) */
                len = sizeof(config.identifier) - 1;
                while (len > 0 && ((unsigned char)identifier[len] & 0xc0) == 0x80)
                        len--;
                config_warn("%s: too long (%zu bytes, at most %zu), cut to its first %zu",
                            identifier == v ? "TJ_IDENTIFIER" : "identifier",
                            strlen(identifier), sizeof(config.identifier) - 1, len);
        }
        memcpy(config.identifier, identifier, len);
        config.identifier[len] = '\0';
        atomic_store_explicit(&config.sync, config_flag("TJ_SYNC"), memory_order_relaxed);
        atomic_store_explicit(&config.log_timestamp, config_flag("TJ_LOG_TIMESTAMP"),
                              memory_order_relaxed);
        config.control = config_flag("TJ_CONTROL");
        v = getenv("TJ_ON_FULL");
        if (v && strcasecmp(v, "block") == 0)
                block = true;
        else if (v && *v && strcasecmp(v, "drop") != 0)
                config_warn("TJ_ON_FULL: unknown value '%s', using 'drop'", v);
        v = getenv("TJ_SYSLOG_FORMAT");
        if (v && strcasecmp(v, "rfc5424") == 0)
                config.syslog_rfc5424 = true;
        else if (v && *v && strcasecmp(v, "rfc3164") != 0)
                config_warn("TJ_SYSLOG_FORMAT: unknown value '%s', using 'rfc3164'", v);
        v = getenv("TJ_SYSLOG_SOCKET");
        if (v && *v) {
                if (strlen(v) < sizeof(config.syslog_socket))
                        strcpy(config.syslog_socket, v);
                else
                        config_warn("TJ_SYSLOG_SOCKET: path too long (%zu bytes, at most %zu), "
                                    "using '%s'", strlen(v), sizeof(config.syslog_socket) - 1,
                                    config.syslog_socket);
        }
        v = getenv("TJ_RING_SIZE");
        if (v && *v) {
                size_t size = config_parse_size(v);

                if (size)
                        ring_size = size;
                else
                        config_warn("TJ_RING_SIZE: invalid size '%s', using '%uK'", v,
                                    CONFIG_RING_DEFAULT / 1024);
        }
        /* once each: a thread tracing meanwhile sees the old value or the new */
        atomic_store_explicit(&config.block, block, memory_order_relaxed);
        atomic_store_explicit(&config.ring_size, ring_size, memory_order_relaxed);
        v = getenv("TJ_FLUSH_TIMEOUT_MS");
        if (v && *v) {
                char *end;
                unsigned long ms = strtoul(v, &end, 10);

                /* digits only: strtoul() takes leading blanks and a sign */
                if (*v < '0' || *v > '9' || *end || ms > 3600000)
                        config_warn("TJ_FLUSH_TIMEOUT_MS: invalid value '%s', using '%u'", v,
                                    CONFIG_FLUSH_DEFAULT);
                else
                        flush_ms = (unsigned)ms;
        }
        /* tj_flush() and the control endpoint read it at any time */
        atomic_store_explicit(&config.flush_timeout_ms, flush_ms, memory_order_relaxed);
}

/* exit(): flush what was traced (bounded), stop the writer, close outputs;
 * what that leaves unwritten is counted dropped (emit_set_closed()). */
static void config_atexit(void)
{
        tj_shutdown();
        emit_set_closed(true);
}

int tj_init(const char *identifier)
{
        const char *v;
        int ret = 0, r;

        pthread_mutex_lock(&config_lock);
        if (atomic_load(&config_initialized)) {
                ret = -EALREADY;
                goto out;
        }
        emit_set_closed(false);         /* tj_init() in a later atexit handler */
        config_read_env(identifier);
        registry_report_problems();
        v = getenv("TJ_EVENTS");
        if (v && *v)
                ret = registry_apply_list(v, "TJ_EVENTS");
        v = getenv("TJ_EVENTS_FILE");
        if (v && *v) {
                r = registry_apply_file(v, NULL, "TJ_EVENTS_FILE");
                if (ret == 0)
                        ret = r;
        }
        v = getenv("TJ_OUTPUT");
        if (!v || !*v)
                v = config_outputs[0] ? config_outputs : "journald";
        r = writer_set_outputs(v, true, true);
        if (r == -ENOENT) {
                /* a typo must not send the events nowhere, counted written */
                v = config_outputs[0] ? config_outputs : "journald";
                config_warn("TJ_OUTPUT: no known output, using '%s'", v);
                r = writer_set_outputs(v, false, true);
        }
        if (r == -ETIMEDOUT) {
                /* a writer tj_shutdown() left stuck in a send keeps them */
                config_warn("outputs unchanged: the writer is blocked in a send");
                if (ret == 0)
                        ret = r;
        }
        atomic_store(&config_initialized, true);
        r = writer_start();
        if (r < 0 && ret == 0)
                ret = r;
        if (config.control) {
                r = tj_control_start();
                if (r < 0) {
                        char dir[256];

                        if (control_dir_name(dir, sizeof(dir), NULL) < 0)
                                snprintf(dir, sizeof(dir), "its directory");
                        config_warn("TJ_CONTROL: cannot serve the control endpoint in %s: %s",
                                    dir, strerror(-r));
                }
                if (r < 0 && ret == 0)
                        ret = r;
        }
        if (!config_atexit_done && atexit(config_atexit) == 0)
                config_atexit_done = true;
out:
        pthread_mutex_unlock(&config_lock);
        return ret;
}

/*
 * The endpoint stops first, outside the lock: a request may be waiting for
 * it.  Another thread may start it again (tj_control_start()) before the
 * writer is stopped: that one is stopped too, under the lock, so that it
 * serves no further than tj_shutdown() (a flush there after the writer
 * left was answered "ok" with nothing written), and so that an endpoint
 * tj_init() in another thread starts after it is not.  The endpoint never
 * waits for config_lock (config_try_outputs() only tries it): joining it
 * under the lock cannot deadlock.
 */
void tj_shutdown(void)
{
        tj_control_stop();
        pthread_mutex_lock(&config_lock);
        if (atomic_load(&config_initialized)) {
                writer_shutdown();
                atomic_store(&config_initialized, false);
        }
        tj_control_stop();
        pthread_mutex_unlock(&config_lock);
}

/* tj_set_outputs(); WAIT false: without waiting, for the control endpoint:
 * -EBUSY while the writer thread holds the outputs, or another thread is in
 * tj_init(), tj_shutdown() or tj_set_outputs(). */
static int config_set_outputs(const char *outputs, bool wait)
{
        char norm[CONFIG_OUTPUTS_SIZE];
        int ret;

        /* Kept as applied (writer_check_outputs()), not as given: the
         * outputs reply shows the list kept as it shows the open ones. */
        if (!outputs || strlen(outputs) >= sizeof(config_outputs) ||
            writer_check_outputs(outputs, norm) < 0)
                return -EINVAL;
        if (wait)
                pthread_mutex_lock(&config_lock);
        else if (pthread_mutex_trylock(&config_lock) != 0)
                return -EBUSY;
        if (atomic_load(&config_initialized))
                ret = writer_set_outputs(norm, false, wait);
        else
                ret = 0;        /* validated above, opened at tj_init() */
        /* Kept for the next tj_init() either way: the outputs in use at
         * tj_shutdown() are the ones it opens again, not those chosen
         * before the earlier tj_init().  Not when they stay unchanged. */
        if (ret == 0) {
                pthread_mutex_lock(&config_outputs_lock);
                strcpy(config_outputs, norm);
                pthread_mutex_unlock(&config_outputs_lock);
        }
        pthread_mutex_unlock(&config_lock);
        return ret;
}

/*
 * While the library is not initialised (before tj_init(), after
 * tj_shutdown()), no output is open: the list kept for the next tj_init()
 * (what tj_set_outputs() or an outputs change last chose, before or after
 * an earlier tj_init(); "" when none: tj_init() takes TJ_OUTPUT, else
 * journald) is copied to BUF, of CONFIG_OUTPUTS_SIZE, and
 * true returned.  False while initialised.  For the control endpoint.
 */
bool config_kept_outputs(char *buf)
{
        bool kept;

        pthread_mutex_lock(&config_outputs_lock);
        kept = !atomic_load(&config_initialized);
        if (kept)
                memcpy(buf, config_outputs, CONFIG_OUTPUTS_SIZE);
        pthread_mutex_unlock(&config_outputs_lock);
        return kept;
}

int tj_set_outputs(const char *outputs)
{
        return config_set_outputs(outputs, true);
}

int config_try_outputs(const char *outputs)
{
        return config_set_outputs(outputs, false);
}

/* One item of a -trace option string. */
static int config_trace_item(const char *item)
{
        const char *eq = strchr(item, '=');
        int r;

        /* a bad pattern ('-') is -EINVAL as with "enable=", not -ENOENT */
        if (!eq)
                r = tj_enable(item);
        else if (strncmp(item, "enable=", 7) == 0)
                r = tj_enable(eq + 1);
        else if (strncmp(item, "events=", 7) == 0)
                r = tj_enable_file(eq + 1, NULL);
        else if (strncmp(item, "file=", 5) == 0) {
                /* '' is no file, as in QEMU; it sent the log back to stderr */
                if (!eq[1])
                        return -EINVAL;
                if (strlen(eq + 1) >= sizeof(config.log_file))
                        return -ENAMETOOLONG;
                pthread_mutex_lock(&config_lock);
                strcpy(config.log_file, eq + 1);
                if (atomic_load(&config_initialized))
                        out_log_reopen();
                pthread_mutex_unlock(&config_lock);
                r = 0;
        } else
                r = -EINVAL;
        return r < 0 ? r : 0;
}

/*
 * The items are split at each ',' but a doubled one, which is a ',' of the
 * item, as QEMU's option parser (get_opt_value()) has it: "file=a,,b.log"
 * names the file a,b.log.  Empty items are skipped.
 */
int tj_trace_opt(const char *opt)
{
        char *copy;
        int ret = 0;

        if (!opt || !*opt)
                return -EINVAL;
        copy = strdup(opt);
        if (!copy) {
                ret = -ENOMEM;
                goto out;
        }
        for (const char *p = opt; *p; ) {
                char *w = copy;
                int r;

                for (; *p && (*p != ',' || p[1] == ','); p++)
                        *w++ = *p == ',' ? *++p : *p;
                *w = '\0';
                if (*p)
                        p++;
                if (!*copy)
                        continue;
                r = config_trace_item(copy);
                if (r < 0 && ret == 0)
                        ret = r;
        }
out:
        free(copy);
        return ret;
}

/* A fork child may inherit the lock held by a thread it does not have. */
static void config_fork_child(void)
{
        pthread_mutex_init(&config_lock, NULL);
        pthread_mutex_init(&config_outputs_lock, NULL);
}

__attribute__((constructor)) static void config_init_fork(void)
{
        pthread_atfork(NULL, NULL, config_fork_child);
}

int tj_flush(void)
{
        return writer_flush(config_flush_ms());
}
