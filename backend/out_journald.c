/*
 * out_journald.c - the journald output: one journal entry per event.
 *
 * Sends the fields of the DESIGN.md contract with sd_journal_sendv(), one
 * iovec per "FIELD=value", which is binary-safe: a value holding a newline is
 * sent in the length-prefixed form and '=' after the field name is data, so
 * an argument can never forge a field.  Besides the contract, TRACE_ARGS
 * carries the event's argument signature (name:kind ...), so an entry
 * describes itself.  Runs on the writer thread (or under the sync lock), so
 * the scratch buffer below needs no lock of its own.  When journald is absent
 * the entry is lost, counted as dropped, and one warning is printed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
/* Else sd_journal_sendv() adds CODE_* fields naming this file. */
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>

#include "internal.h"

#define JOURNALD_SOCKET "/run/systemd/journal/socket"
#define JOURNALD_FIXED  16      /* iovecs besides the arguments */
#define JOURNALD_NUM    128     /* room for one numeric field */

static struct {
        char *buf;              /* "FIELD=value" texts the iovecs point into */
        size_t size;
        bool warned;
        char ident[160];        /* "SYSLOG_IDENTIFIER=..." */
} jd;

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

static int journald_send(struct iovec *iov, int n)
{
        int r = sd_journal_sendv(iov, n);

        if (r < 0)
                journald_warn(-r);
        return r;
}

static int journald_write(const struct record *r, const tj_value *v, const char *msg)
{
        const struct tj_event *ev = r->ev;
        struct iovec iov[JOURNALD_FIXED + 16];
        size_t need = strlen(msg) + 8 + (JOURNALD_FIXED + 16) * JOURNALD_NUM + strlen(ev->name) + 16, pos = 0;
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
