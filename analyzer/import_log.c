/*
 * import_log.c - trace events from log backend text (traceql import --log).
 *
 * One event per line, "<event> <rendered format>", as our log output
 * (backend/out_log.c) and QEMU's log backend write it, with one of the
 * prefixes either puts before it:
 *
 *   TID@SEC.USEC:event ...          ours with TJ_LOG_TIMESTAMP=1, and QEMU's
 *                                   log backend up to 10.0 ("%d@%zu.%06zu:")
 *   2025-06-03T11:22:33.123456Z event ...
 *                                   QEMU's qemu_log() with -msg timestamp=on
 *                                   (g_date_time_format_iso8601, then a space)
 *
 * A line that starts like a prefix (four digits and '-', or digits and '@')
 * must be a valid one.  The event's arguments come from its format in the
 * trace-events files given with --events (te_pattern.c); a line that yields
 * no event is kept with its message and event ''.  A format with newlines
 * inside (QEMU's grammar allows them before the end, and both write them as
 * they are) takes that many lines more: import_log_more().
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "traceql.h"

/* "TID@SEC.USEC:" at the start of LINE: *RET_USED bytes, 0 when there is
 * none, -EBADMSG when it is broken. */
static int import_log_tid_prefix(struct import_text *t, const char *line, size_t len,
                                 struct ingest_entry *e, size_t *ret_used, struct tq_error *err)
{
        uint64_t tid = 0, sec = 0, usec = 0;
        size_t i = 0, k;
        int r;

        *ret_used = 0;
        /* every digit, however many: a TID past INT32_MAX (12 digits but
         * leading zeros) is a bad prefix, not a line without one (the count
         * stops past INT32_MAX); leading zeros are the same TID, as in a
         * TID field (ingest_parse_i64()) */
        for (; i < len && line[i] >= '0' && line[i] <= '9'; i++)
                if (tid <= INT32_MAX)
                        tid = tid * 10 + (uint64_t) (line[i] - '0');
        if (i == 0 || i >= len || line[i] != '@')
                return 0;
        for (k = ++i; i < len && i - k < 12 && line[i] >= '0' && line[i] <= '9'; i++)
                sec = sec * 10 + (uint64_t) (line[i] - '0');
        if (i == k || i >= len || line[i] != '.')
                goto bad;
        for (k = ++i; i < len && i - k < 6 && line[i] >= '0' && line[i] <= '9'; i++)
                usec = usec * 10 + (uint64_t) (line[i] - '0');
        if (i - k != 6 || i >= len || line[i] != ':' || tid > INT32_MAX ||
            sec > INT64_MAX / 1000000000 - 1)   /* past 2262 in nanoseconds */
                goto bad;
        r = import_text_field_int(t, e, "TID", (int64_t) tid);
        if (r == 0)
                r = import_text_field_int(t, e, "TRACE_TIME_NS",
                                          (int64_t) (sec * 1000000000 + usec * 1000));
        *ret_used = i + 1;
        return r;
bad:
        /* up to where it went wrong, the quote cut at 64 bytes */
        k = i + 1 < len ? i + 1 : len;
        return tq_error_set(err, -EBADMSG, "invalid 'TID@SEC.USEC:' prefix '%.*s%s'",
                            (int) (k < 64 ? k : 64), line, k > 64 ? "..." : "");
}

static unsigned import_log_more(struct import_text *t, const char *line, size_t len)
{
        const char *end = line + len, *p = line, *name;

        if (len >= 5 && line[0] >= '0' && line[0] <= '9' && line[4] == '-') {
                p = memchr(line, ' ', len);     /* the ISO 8601 prefix */
                if (!p)
                        return 0;
                p++;
        }
        for (name = p; p < end && *p >= '0' && *p <= '9'; p++)
                ;
        if (p > name && p < end && *p == '@') {
                p = memchr(p, ':', (size_t) (end - p));     /* "TID@SEC.USEC:" */
                if (!p)
                        return 0;
                p++;
        } else {
                p = name;
        }
        for (name = p; p < end && *p != ' '; p++)
                ;
        return te_patterns_newlines(t->patterns, name, (size_t) (p - name));
}

static int import_log_line(struct import_text *t, const char *line, size_t len,
                           struct ingest_entry *e, struct tq_error *err)
{
        size_t used = 0;
        int64_t ns;
        int r;

        if (len == 0)
                return 1;
        if (len >= 5 && line[0] >= '0' && line[0] <= '9' && line[4] == '-') {
                const char *sp = memchr(line, ' ', len);

                if (import_text_iso8601(line, len, true, &ns, &used) < 0 || used >= len ||
                    line[used] != ' ')
                        return tq_error_set(err, -EBADMSG, "invalid timestamp '%.*s'",
                                            (int) ((sp ? (size_t) (sp - line) : len) > 40 ? 40 :
                                                   (sp ? (size_t) (sp - line) : len)), line);
                r = import_text_field_int(t, e, "TRACE_TIME_NS", ns);
                if (r < 0)
                        return r;
                line += used + 1;
                len -= used + 1;
        }
        r = import_log_tid_prefix(t, line, len, e, &used, err);
        if (r < 0)
                return r;
        r = import_text_field(t, e, "MESSAGE", line + used, len - used, false);
        if (r < 0)
                return r;
        return import_text_recognise(t, e);
}

const struct import_text_format import_log_format = {
        .kind = "log", .line = import_log_line, .more = import_log_more,
};
