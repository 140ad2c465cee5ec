/*
 * import_syslog.c - trace events from syslog files (traceql import --syslog).
 *
 * Reads the lines rsyslog and syslog-ng write, and what our syslog output
 * (backend/out_syslog.c) sends, in any of these forms:
 *
 *   [<PRI>]Mmm dd hh:mm:ss[.f] [HOST] TAG[PID]: MSG          RFC 3164, local time
 *   [<PRI>]YYYY-MM-DDThh:mm:ss[.f]±hh:mm [HOST] TAG[PID]: MSG rsyslog's file format
 *   [<PRI>]1 TIMESTAMP HOST APP PROCID MSGID [SD] MSG         RFC 5424
 *
 * The host is optional in the first two (a line written from a raw datagram
 * has none): the word after the time is the tag when it ends in ':' or holds
 * '['.  RFC 3164 times have no year: it is the year of the file's last
 * modification, or the one before when that would put the line more than a
 * day after the modification (so a file spanning New Year reads right); a
 * day its month never has (Apr 31) is an invalid timestamp, as in RFC 3339.
 * The fraction of a second is syslog-ng's, with frac-digits().
 * rsyslog's #ooo escapes of control characters are decoded.  rsyslog's
 * "message repeated N times: [MSG]" is N entries (import_syslog_message()).
 *
 * The event and its arguments come from the tj@32473 STRUCTURED-DATA element
 * our RFC 5424 output writes (event, seq, time_ns, mono_ns, tid, file, line,
 * func, arg_NAME), typed by the trace-events files when they declare the
 * event; otherwise from the message, "<event> <rendered format>", matched
 * against the event's format (te_pattern.c).  A line that yields no event is
 * kept with its message and event ''.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "traceql.h"

#define IMPORT_SYSLOG_SDID "tj@32473"
#define IMPORT_SYSLOG_NAME_MAX 32          /* RFC 5424 PARAM-NAME: 1*32 characters */
#define IMPORT_SYSLOG_REPEAT_MAX 100000    /* rows one "message repeated" line may make */

static const char import_syslog_months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";

/* A cursor over the line. */
struct import_syslog_cur {
        const char *p, *end;
};

/* The next space-separated word; false at the end of the line. */
static bool import_syslog_word(struct import_syslog_cur *c, const char **ret_w, size_t *ret_n)
{
        const char *w = c->p;

        while (c->p < c->end && *c->p != ' ')
                c->p++;
        *ret_w = w;
        *ret_n = (size_t) (c->p - w);
        if (c->p < c->end)
                c->p++;
        return *ret_n > 0;
}

/* Local time of an RFC 3164 timestamp: MON (0-11), MDAY, h:m:s, the year
 * inferred from T->ref_time.  mktime() once per hour of log. */
static int64_t import_syslog_local(struct import_text *t, int mon, int mday, int h, int m, int s)
{
        if (!t->year_base || t->year_mon != mon || t->year_mday != mday || t->year_hour != h) {
                time_t ref = (time_t) t->ref_time, v;
                struct tm tm, now;

                localtime_r(&ref, &now);
                memset(&tm, 0, sizeof(tm));
                tm.tm_year = now.tm_year;
                tm.tm_mon = mon;
                tm.tm_mday = mday;
                tm.tm_hour = h;
                tm.tm_isdst = -1;
                v = mktime(&tm);
                if (v > ref + 86400 || (mon == 1 && mday == 29 && tm.tm_mon != 1)) {
                        /* the year before; for Feb 29 the last leap year */
                        int y = now.tm_year - 1;

                        while (mon == 1 && mday == 29 && !((y + 1900) % 4 == 0 &&
                               ((y + 1900) % 100 != 0 || (y + 1900) % 400 == 0)))
                                y--;
                        memset(&tm, 0, sizeof(tm));
                        tm.tm_year = y;
                        tm.tm_mon = mon;
                        tm.tm_mday = mday;
                        tm.tm_hour = h;
                        tm.tm_isdst = -1;
                        v = mktime(&tm);
                }
                t->year_mon = mon;
                t->year_mday = mday;
                t->year_hour = h;
                t->year_base = (int64_t) v;
        }
        return (t->year_base + m * 60 + s) * 1000000000;
}

static int import_syslog_2digits(const char *s, int max)
{
        int v;

        if (s[0] < '0' || s[0] > '9' || s[1] < '0' || s[1] > '9')
                return -1;
        v = (s[0] - '0') * 10 + (s[1] - '0');
        return v > max ? -1 : v;
}

/* ".f" after the seconds at *P (syslog-ng writes it with frac-digits()):
 * nanoseconds in *RET_NS and *P past it; digits past nanoseconds are
 * dropped, as in an RFC 3339 time.  -1 for a '.' without a digit. */
static int import_syslog_3164_frac(const char **p, const char *end, int64_t *ret_ns)
{
        const char *q = *p;
        int64_t ns = 0, scale = 100000000;

        if (q >= end || *q != '.')
                return 0;
        if (++q >= end || *q < '0' || *q > '9')
                return -1;
        for (; q < end && *q >= '0' && *q <= '9'; q++) {
                ns += (*q - '0') * scale;
                scale /= 10;
        }
        *p = q;
        *ret_ns = ns;
        return 0;
}

/* "Mmm dd hh:mm:ss[.f] " (dd may be " 1" or "01"). */
static int import_syslog_3164_time(struct import_text *t, struct import_syslog_cur *c,
                                   int64_t *ret_ns, struct tq_error *err)
{
        /* Feb 29 exists in some year: import_syslog_local() finds which */
        static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
        const char *p = c->p, *q = p + 15, *mon;
        int64_t frac = 0;
        int mday, h, m, s;

        if (c->end - p < 16 || p[3] != ' ' || p[6] != ' ' || p[9] != ':' || p[12] != ':' ||
            (p[15] != ' ' && p[15] != '.'))
                return tq_error_set(err, -EBADMSG, "not a syslog line (no timestamp)");
        mon = memmem(import_syslog_months, sizeof(import_syslog_months) - 1, p, 3);
        if (!mon || (mon - import_syslog_months) % 3)
                return tq_error_set(err, -EBADMSG, "not a syslog line (no timestamp)");
        mday = p[4] == ' ' ? import_syslog_2digits((const char[]) { '0', p[5] }, 31)
                           : import_syslog_2digits(p + 4, 31);
        h = import_syslog_2digits(p + 7, 23);
        m = import_syslog_2digits(p + 10, 59);
        s = import_syslog_2digits(p + 13, 60);
        if (mday < 1 || mday > mdays[(mon - import_syslog_months) / 3] || h < 0 || m < 0 ||
            s < 0 || import_syslog_3164_frac(&q, c->end, &frac) < 0 ||
            (q < c->end && *q != ' ')) {
                const char *sp = memchr(p + 15, ' ', (size_t) (c->end - p - 15));
                ptrdiff_t len = (sp ? sp : c->end) - p;

                return tq_error_set(err, -EBADMSG, "invalid timestamp '%.*s'",
                                    (int) (len > 40 ? 40 : len), p);
        }
        *ret_ns = import_syslog_local(t, (int) (mon - import_syslog_months) / 3, mday, h, m, s) +
                  frac;
        c->p = q < c->end ? q + 1 : c->end;
        return 0;
}

/* An RFC 3339 timestamp and the space after it. */
static int import_syslog_3339_time(struct import_syslog_cur *c, int64_t *ret_ns,
                                   struct tq_error *err)
{
        size_t used;

        if (import_text_iso8601(c->p, (size_t) (c->end - c->p), true, ret_ns, &used) < 0 ||
            (c->p + used < c->end && c->p[used] != ' ')) {
                const char *sp = memchr(c->p, ' ', (size_t) (c->end - c->p));

                return tq_error_set(err, -EBADMSG, "invalid timestamp '%.*s'",
                                    (int) ((sp ? sp : c->end) - c->p > 40 ? 40 :
                                           (sp ? sp : c->end) - c->p), c->p);
        }
        c->p += used;
        if (c->p < c->end)
                c->p++;
        return 0;
}

/* Add _PID from a decimal PROCID; anything else is not a pid. */
static int import_syslog_pid(struct import_text *t, struct ingest_entry *e, const char *s,
                             size_t n)
{
        size_t i;

        if (n == 0 || n > 10)
                return 0;
        for (i = 0; i < n; i++)
                if (s[i] < '0' || s[i] > '9')
                        return 0;
        return import_text_field(t, e, "_PID", s, n, false);
}

/* "TAG[PID]: MSG" or "TAG: MSG" (W the first word); false when W is no tag. */
static bool import_syslog_is_tag(const char *w, size_t n)
{
        return n > 0 && (w[n - 1] == ':' || memchr(w, '[', n));
}

static int import_syslog_tag(struct import_text *t, struct ingest_entry *e, const char *w,
                             size_t n)
{
        const char *br = memchr(w, '[', n);
        int r;

        if (n > 0 && w[n - 1] == ':')
                n--;
        if (!br) {
                return n ? import_text_field(t, e, "SYSLOG_IDENTIFIER", w, n, false) : 0;
        }
        r = import_text_field(t, e, "SYSLOG_IDENTIFIER", w, (size_t) (br - w), false);
        if (r == 0 && w[n - 1] == ']')
                r = import_syslog_pid(t, e, br + 1, (size_t) (w + n - 1 - br - 1));
        return r;
}

/* "TAG[PID]:MSG", no space after the colon (RFC 3164 allows it): end the
 * word W (N bytes) at "]:", and put C back to the message. */
static void import_syslog_tag_split(struct import_syslog_cur *c, const char *w, size_t *n)
{
        const char *end = w + *n, *q = memchr(w, ']', *n);

        if (q && q + 2 < end && q[1] == ':') {
                *n = (size_t) (q + 2 - w);
                c->p = q + 2;
        }
}

/* Is the word at C an event the --events files declare? */
static bool import_syslog_is_event(const struct import_text *t, struct import_syslog_cur c)
{
        const char *w;
        size_t n;

        return t->patterns && import_syslog_word(&c, &w, &n) &&
               te_patterns_signature(t->patterns, w, n) != NULL;
}

/*
 * rsyslog's reduction of repeated messages ($RepeatedMsgReduction, on in
 * Ubuntu's rsyslog.conf) writes, after the first of identical messages of a
 * program, one line "message repeated N times: [MSG]" for the N (2 or more)
 * that followed; MSG keeps at most 800 bytes ("%.800s", the blank rsyslog
 * keeps after an RFC 3164 tag counted).  Such a line holds N entries, each
 * with the message MSG (T->repeat), and one whose MSG has the 800 bytes may
 * have been cut: no event is read from it (*RET_CUT).  When STRUCTURED-DATA
 * gave the event, it is that of the last of them, and the others' are lost:
 * one entry.  Anybody may log that text, so a count above
 * IMPORT_SYSLOG_REPEAT_MAX, which would make one short line that many rows,
 * is not taken for one.  Otherwise MESSAGE is P[0..N) as it is.
 */
static int import_syslog_message(struct import_text *t, struct ingest_entry *e, const char *p,
                                 size_t n, bool *ret_cut)
{
        static const char head[] = "message repeated ", mid[] = " times: [";
        size_t hl = sizeof(head) - 1, ml = sizeof(mid) - 1, i = hl;
        uint64_t v = 0;

        *ret_cut = false;
        if (n > hl && memcmp(p, head, hl) == 0 && p[n - 1] == ']') {
                for (; i < n && i - hl < 7 && p[i] >= '0' && p[i] <= '9'; i++)
                        v = v * 10 + (uint64_t) (p[i] - '0');
                if (i > hl && p[hl] != '0' && v >= 2 && v <= IMPORT_SYSLOG_REPEAT_MAX &&
                    n - i > ml && memcmp(p + i, mid, ml) == 0) {
                        p += i + ml;
                        n -= i + ml + 1;
                        *ret_cut = n >= 800;
                        if (n > 0 && *p == ' ') {
                                p++;
                                n--;
                        }
                        if (!(e->event.set && e->event.len > 0))
                                t->repeat = (unsigned) v;
                }
        }
        return import_text_field(t, e, "MESSAGE", p, n, true);
}

/* The part after the time of an RFC 3164 or rsyslog file line: [HOST] [TAG] MSG. */
static int import_syslog_3164_rest(struct import_text *t, struct import_syslog_cur *c,
                                   struct ingest_entry *e, bool *ret_cut)
{
        struct import_syslog_cur save = *c;
        const char *w;
        size_t n;
        int r = 0;

        if (!import_syslog_word(c, &w, &n)) {
                *c = save;
                n = 0;
        } else if (!import_syslog_is_tag(w, n)) {
                r = import_text_field(t, e, "_HOSTNAME", w, n, false);
                save = *c;
                if (!(import_syslog_word(c, &w, &n) && import_syslog_is_tag(w, n))) {
                        *c = save;      /* no tag: the rest is the message */
                        n = 0;
                        /* unless it is a tag without ':' or '[' (a relay cut
                         * it to 32 characters; an RFC 5424 line without
                         * PROCID): a word before a declared event */
                        if (import_syslog_word(c, &w, &n) && !import_syslog_is_event(t, save) &&
                            import_syslog_is_event(t, *c))
                                r = import_text_field(t, e, "SYSLOG_IDENTIFIER", w, n, false);
                        else
                                *c = save;
                        n = 0;
                }
        }
        if (r == 0 && n) {
                import_syslog_tag_split(c, w, &n);
                r = import_syslog_tag(t, e, w, n);
        }
        if (c->end - c->p >= 3 && memcmp(c->p, "\xef\xbb\xbf", 3) == 0)
                c->p += 3;      /* the BOM of a UTF-8 MSG an RFC 5424 line had */
        if (r == 0)
                r = import_syslog_message(t, e, c->p, (size_t) (c->end - c->p), ret_cut);
        return r;
}

/* ---- RFC 5424 STRUCTURED-DATA ---------------------------------------- */

/* Journal field of a tj@32473 parameter, NULL when traceql keeps none. */
static const char *import_syslog_sd_field(const char *name, size_t n, bool *ret_arg)
{
        static const struct {
                const char *param, *field;
        } map[] = {
                { "event", "TRACE_EVENT" }, { "group", "TRACE_GROUP" },
                { "seq", "TRACE_SEQ" }, { "time_ns", "TRACE_TIME_NS" },
                { "mono_ns", "TRACE_MONO_NS" }, { "tid", "TID" },
                { "file", "CODE_FILE" }, { "line", "CODE_LINE" }, { "func", "CODE_FUNC" },
                { "dropped", "TRACE_DROPPED" },
        };
        size_t i;

        *ret_arg = n > 4 && memcmp(name, "arg_", 4) == 0;
        if (*ret_arg)
                return "TRACE_ARG_";
        for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
                if (strlen(map[i].param) == n && memcmp(map[i].param, name, n) == 0)
                        return map[i].field;
        return NULL;
}

/* A PARAM-VALUE from after its '"' up to the closing '"', with \" \\ \]
 * undone, into T->value; *RET_N its length.  -EBADMSG when unterminated. */
static int import_syslog_sd_value(struct import_text *t, struct import_syslog_cur *c,
                                  size_t *ret_n)
{
        size_t k = 0;

        for (; c->p < c->end && *c->p != '"'; c->p++) {
                if (k + 1 > t->value_size) {
                        char *v = realloc(t->value, (k + 1) * 2 + 64);

                        if (!v)
                                return -ENOMEM;
                        t->value = v;
                        t->value_size = (k + 1) * 2 + 64;
                }
                if (*c->p == '\\' && c->p + 1 < c->end &&
                    (c->p[1] == '"' || c->p[1] == '\\' || c->p[1] == ']'))
                        c->p++;
                t->value[k++] = *c->p;
        }
        if (c->p >= c->end)
                return -EBADMSG;
        c->p++;
        *ret_n = k;
        return 0;
}

/* An argument name NAME (N bytes) that fills a PARAM-NAME's 32 characters
 * with its "arg_" was cut there (RFC 5424 allows no more): the declared
 * argument of the event it begins, when only one does, named whole in
 * FNAME; else as it is. */
static void import_syslog_sd_long_name(const struct import_text *t, const struct ingest_entry *e,
                                       const char *name, size_t n, char *fname, size_t size)
{
        const char *sig = NULL, *p, *colon, *whole = name;
        size_t wn = n, k, pn;
        bool two = false;

        if (t->patterns && e->event.set)
                sig = te_patterns_signature(t->patterns, e->buf + e->event.off, e->event.len);
        /* SIG is "name:kind name:kind ..." */
        for (p = sig; p && *p; p += k + strspn(p + k, " ")) {
                k = strcspn(p, " ");
                colon = memchr(p, ':', k);
                pn = colon ? (size_t) (colon - p) : k;
                if (pn > n && memcmp(p, name, n) == 0) {
                        two = whole != name;    /* two begin so: it stays cut */
                        whole = p;
                        wn = pn;
                }
        }
        if (two) {
                whole = name;
                wn = n;
        }
        snprintf(fname, size, "TRACE_ARG_%.*s", (int) wn, whole);
}

/* One PARAM, name="value", after its leading space; ours go into E.
 * Returns 2 when the line ends inside its value. */
static int import_syslog_sd_param(struct import_text *t, struct import_syslog_cur *c, bool ours,
                                  struct ingest_entry *e, struct tq_error *err)
{
        const char *name = c->p, *field;
        char fname[80];
        size_t nlen, vlen;
        bool arg;
        int r;

        while (c->p < c->end && *c->p != '=' && *c->p != ' ' && *c->p != ']' && *c->p != '"')
                c->p++;
        nlen = (size_t) (c->p - name);
        if (nlen == 0 || c->end - c->p < 2 || c->p[0] != '=' || c->p[1] != '"')
                return tq_error_set(err, -EBADMSG, "malformed STRUCTURED-DATA");
        c->p += 2;
        r = import_syslog_sd_value(t, c, &vlen);
        if (r == -EBADMSG)
                return 2;       /* cut at the end of the line: import_syslog_5424() */
        if (r < 0)
                return r;
        /* a longer name of ours was dropped without a word (up to 63 bytes
         * it was read): RFC 5424 allows none, and the library writes none */
        if (ours && nlen > IMPORT_SYSLOG_NAME_MAX)
                return tq_error_set(err, -EBADMSG, "malformed STRUCTURED-DATA: a %s parameter "
                                    "name of %zu characters (RFC 5424 allows %d)",
                                    IMPORT_SYSLOG_SDID, nlen, IMPORT_SYSLOG_NAME_MAX);
        field = ours ? import_syslog_sd_field(name, nlen, &arg) : NULL;
        if (!field)
                return 0;
        if (arg && nlen == IMPORT_SYSLOG_NAME_MAX)
                import_syslog_sd_long_name(t, e, name + 4, nlen - 4, fname, sizeof(fname));
        else if (arg)
                snprintf(fname, sizeof(fname), "TRACE_ARG_%.*s", (int) (nlen - 4), name + 4);
        else
                snprintf(fname, sizeof(fname), "%s", field);
        return import_text_field(t, e, fname, t->value, vlen, true);
}

/* One SD-ELEMENT "[ID name="value" ...]"; tj@32473 params go into E. */
static int import_syslog_sd_element(struct import_text *t, struct import_syslog_cur *c,
                                    struct ingest_entry *e, bool *seen, struct tq_error *err)
{
        const char *id = ++c->p;
        bool ours;
        int r;

        while (c->p < c->end && *c->p != ' ' && *c->p != ']')
                c->p++;
        if (c->p == id || c->p >= c->end)
                return tq_error_set(err, -EBADMSG, "malformed STRUCTURED-DATA");
        ours = (size_t) (c->p - id) == sizeof(IMPORT_SYSLOG_SDID) - 1 &&
               memcmp(id, IMPORT_SYSLOG_SDID, sizeof(IMPORT_SYSLOG_SDID) - 1) == 0;
        /* a second one overwrote the first one's event */
        if (ours && *seen)
                return tq_error_set(err, -EBADMSG, "malformed STRUCTURED-DATA: %s twice "
                                    "(RFC 5424 allows an SD-ID once)", IMPORT_SYSLOG_SDID);
        *seen |= ours;
        while (c->p < c->end && *c->p == ' ') {
                c->p++;
                r = import_syslog_sd_param(t, c, ours, e, err);
                if (r != 0)
                        return r;
        }
        if (c->p >= c->end || *c->p != ']')
                return tq_error_set(err, -EBADMSG, "malformed STRUCTURED-DATA");
        c->p++;
        return 0;
}

/* "1 TIMESTAMP HOST APP-NAME PROCID MSGID SD [MSG]", after the version. */
static int import_syslog_5424(struct import_text *t, struct import_syslog_cur *c,
                              struct ingest_entry *e, bool *ret_cut, struct tq_error *err)
{
        const char *w;
        size_t n;
        int64_t ns;
        int r = 0;

        if (c->p < c->end && *c->p == '-')
                c->p += c->end - c->p > 1 ? 2 : 1;
        else {
                r = import_syslog_3339_time(c, &ns, err);
                if (r == 0)
                        r = import_text_field_int(t, e, "TRACE_TIME_NS", ns);
                if (r < 0)
                        return r;
        }
        if (!import_syslog_word(c, &w, &n))
                return tq_error_set(err, -EBADMSG, "RFC 5424 line without HOSTNAME");
        if (!(n == 1 && w[0] == '-'))
                r = import_text_field(t, e, "_HOSTNAME", w, n, false);
        if (r == 0 && !import_syslog_word(c, &w, &n))
                return tq_error_set(err, -EBADMSG, "RFC 5424 line without APP-NAME");
        if (r == 0 && !(n == 1 && w[0] == '-'))
                r = import_text_field(t, e, "SYSLOG_IDENTIFIER", w, n, false);
        if (r == 0 && !import_syslog_word(c, &w, &n))
                return tq_error_set(err, -EBADMSG, "RFC 5424 line without PROCID");
        if (r == 0)
                r = import_syslog_pid(t, e, w, n);
        if (r == 0 && !import_syslog_word(c, &w, &n))
                return tq_error_set(err, -EBADMSG, "RFC 5424 line without MSGID");
        if (r < 0)
                return r;
        if (c->p >= c->end)
                return tq_error_set(err, -EBADMSG, "RFC 5424 line without STRUCTURED-DATA");
        if (*c->p == '-')
                c->p++;
        else if (*c->p == '[') {
                bool seen = false;

                while (r == 0 && c->p < c->end && *c->p == '[')
                        r = import_syslog_sd_element(t, c, e, &seen, err);
                if (r == 2) {
                        t->cut++;       /* cut inside a value (a relay's size limit):
                                         * what came before it, and no message */
                        return 0;
                }
                if (r < 0)
                        return r;
        } else
                return tq_error_set(err, -EBADMSG, "malformed STRUCTURED-DATA");
        if (c->p < c->end && *c->p != ' ')
                return tq_error_set(err, -EBADMSG, "malformed STRUCTURED-DATA");
        if (c->p < c->end)
                c->p++;
        if (c->end - c->p >= 3 && memcmp(c->p, "\xef\xbb\xbf", 3) == 0)
                c->p += 3;      /* the BOM of a UTF-8 MSG */
        while (c->p < c->end && *c->p == ' ')
                c->p++;         /* rsyslog keeps the space after an RFC 3164 tag */
        return import_syslog_message(t, e, c->p, (size_t) (c->end - c->p), ret_cut);
}

static int import_syslog_line(struct import_text *t, const char *line, size_t len,
                              struct ingest_entry *e, struct tq_error *err)
{
        struct import_syslog_cur c = { line, line + len };
        bool cut = false;
        int64_t ns;
        int r;

        if (len == 0)
                return 1;
        if (*c.p == '<') {
                int pri = 0;

                for (c.p++; c.p < c.end && *c.p >= '0' && *c.p <= '9' && pri < 1000; c.p++)
                        pri = pri * 10 + (*c.p - '0');
                if (c.p >= c.end || *c.p != '>' || c.p == line + 1 || pri > 191) {
                        int shown = (int) (c.p - line) + (c.p < c.end);

                        return tq_error_set(err, -EBADMSG, "invalid PRI '%.*s'",
                                            shown > 8 ? 8 : shown, line);
                }
                c.p++;
        }
        if (c.end - c.p >= 2 && c.p[0] == '1' && c.p[1] == ' ')
                r = import_syslog_5424(t, (c.p += 2, &c), e, &cut, err);
        else {
                if (c.end - c.p >= 5 && c.p[0] >= '0' && c.p[0] <= '9' && c.p[4] == '-')
                        r = import_syslog_3339_time(&c, &ns, err);
                else
                        r = import_syslog_3164_time(t, &c, &ns, err);
                if (r == 0)
                        r = import_text_field_int(t, e, "TRACE_TIME_NS", ns);
                if (r == 0)
                        r = import_syslog_3164_rest(t, &c, e, &cut);
        }
        if (r < 0)
                return r;
        if (cut && !(e->event.set && e->event.len > 0)) {
                t->unmatched++;         /* a message rsyslog may have cut */
                return ingest_entry_add(e, "TRACE_EVENT=", 12);
        }
        return import_text_recognise(t, e);
}

const struct import_text_format import_syslog_format = {
        .kind = "syslog", .line = import_syslog_line,
};
