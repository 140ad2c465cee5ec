/*
 * import_text.c - the driver of the line-oriented text importers.
 *
 * Syslog files (import_syslog.c) and log backend output (import_log.c) are
 * both one event per line.  This file reads the lines, hands each to the
 * format's line parser, which fills a journal-style `struct ingest_entry`,
 * and gives the entries to ingest.c.  The parsers share the helpers here:
 * fields with rsyslog's #ooo escapes decoded, ISO 8601 times, and the
 * recognition of "<event> <rendered format>" messages through te_pattern.c.
 *
 * A whole run is one transaction: a bad line fails with "PATH:LINE: why" and
 * nothing is imported.  For a regular file the byte offset after the last
 * complete line is stored, and the next import of the same file starts there,
 * so appended lines are imported once; a last line without its newline is
 * left for the next import (a writer may be in the middle of it).  Standard
 * input, a pipe, are read once and never resumed: their last line is
 * imported with or without its newline.  With the offset the source keeps,
 * in its cursor, a fingerprint of the bytes before it (as import_file.c
 * does): a file whose first bytes no longer have it was replaced or rotated,
 * and is imported from the start, saying so.  A UTF-8 byte order mark at the
 * start of the input is skipped.  A line holds at most IMPORT_MAX_LINE bytes,
 * as an export stream's (import_getline()): a longer one fails the import;
 * so does an event of several lines (import_text_join()) longer than that.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "traceql.h"

/* ---- helpers for the line parsers ------------------------------------ */

static int import_text_reserve(struct import_text *t, size_t need)
{
        char *f;

        if (need <= t->field_size)
                return 0;
        f = realloc(t->field, need * 2);
        if (!f)
                return -ENOMEM;
        t->field = f;
        t->field_size = need * 2;
        return 0;
}

/* rsyslog writes a control character C as '#' and three octal digits (and
 * an 8-bit byte with $Escape8BitCharactersOnReceive; our syslog output a byte
 * outside well-formed UTF-8 in an RFC 5424 param value). */
static bool import_text_escape(const char *s, size_t n, char *ret_c)
{
        unsigned v;

        if (n < 4 || s[0] != '#' || s[1] < '0' || s[1] > '3' || s[2] < '0' || s[2] > '7' ||
            s[3] < '0' || s[3] > '7')
                return false;
        v = (unsigned) (s[1] - '0') * 64 + (unsigned) (s[2] - '0') * 8 + (unsigned) (s[3] - '0');
        if (v >= 0x20 && v < 0x7f)
                return false;
        if (v == 0)
                return false;   /* a NUL cannot be in a field */
        *ret_c = (char) v;
        return true;
}

int import_text_field(struct import_text *t, struct ingest_entry *e, const char *name,
                      const char *s, size_t n, bool unescape)
{
        size_t nl = strlen(name), i, k;
        const char *hash;
        char c;
        int r;

        r = import_text_reserve(t, nl + 1 + n);
        if (r < 0)
                return r;
        memcpy(t->field, name, nl);
        t->field[nl] = '=';
        k = nl + 1;
        if (n == 0)     /* S may be NULL: an empty value before any other */
                return ingest_entry_add(e, t->field, k);
        if (!unescape || !(hash = memchr(s, '#', n))) {
                memcpy(t->field + k, s, n);
                return ingest_entry_add(e, t->field, k + n);
        }
        i = (size_t) (hash - s);
        memcpy(t->field + k, s, i);
        k += i;
        while (i < n) {
                if (s[i] == '#' && import_text_escape(s + i, n - i, &c)) {
                        t->field[k++] = c;
                        i += 4;
                } else
                        t->field[k++] = s[i++];
        }
        return ingest_entry_add(e, t->field, k);
}

int import_text_field_int(struct import_text *t, struct ingest_entry *e, const char *name,
                          int64_t v)
{
        char num[24], *p = num + sizeof(num);
        uint64_t u = v < 0 ? 0 - (uint64_t) v : (uint64_t) v;

        do
                *--p = (char) ('0' + u % 10);
        while ((u /= 10));
        if (v < 0)
                *--p = '-';
        return import_text_field(t, e, name, p, (size_t) (num + sizeof(num) - p), false);
}

/* The library's own "tj_dropped N events dropped" line, in any output:
 * event tj_dropped with TRACE_DROPPED, as from the journal.  1 when it is. */
static int import_text_dropped(struct import_text *t, struct ingest_entry *e)
{
        static const char head[] = "tj_dropped ", tail[] = " events dropped";
        const char *m = e->buf + e->message.off, *p;
        size_t n = e->message.len, hl = sizeof(head) - 1, tl = sizeof(tail) - 1;
        char num[24];
        int r;

        if (n <= hl + tl || n - hl - tl >= sizeof(num) || memcmp(m, head, hl) != 0 ||
            memcmp(m + n - tl, tail, tl) != 0)
                return 0;
        for (p = m + hl; p < m + n - tl; p++)
                if (*p < '0' || *p > '9')
                        return 0;
        memcpy(num, m + hl, n - hl - tl);       /* E's buffer moves as fields are added */
        r = ingest_entry_add(e, "TRACE_EVENT=tj_dropped", 22);
        if (r == 0)
                r = import_text_field(t, e, "TRACE_DROPPED", num, n - hl - tl, false);
        return r < 0 ? r : 1;
}

int import_text_recognise(struct import_text *t, struct ingest_entry *e)
{
        int r = 0;

        if (e->event.set && e->event.len > 0) {
                /* from STRUCTURED-DATA: type it by the declaration, if any */
                const char *sig = te_patterns_signature(t->patterns, e->buf + e->event.off,
                                                        e->event.len);

                t->recovered++;
                if (!sig || e->argsig.set)
                        return 0;
                return import_text_field(t, e, "TRACE_ARGS", sig, strlen(sig), false);
        }
        if (e->message.set)
                r = import_text_dropped(t, e);
        if (r == 0 && e->message.set)
                r = te_patterns_match(t->patterns, e->buf + e->message.off, e->message.len, e);
        if (r < 0)
                return r;
        if (r == 1) {
                t->recovered++;
                return 0;
        }
        t->unmatched++;
        return ingest_entry_add(e, "TRACE_EVENT=", 12);
}

/* Days from 1970-01-01 to Y-M-D in the proleptic Gregorian calendar. */
static int64_t import_text_days(int64_t y, unsigned m, unsigned d)
{
        int64_t era, yoe, doy, doe;

        y -= m <= 2;
        era = (y >= 0 ? y : y - 399) / 400;
        yoe = y - era * 400;
        doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
        doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        return era * 146097 + doe - 719468;
}

/* N decimal digits at S as a number, or -1. */
static int import_text_digits(const char *s, size_t n)
{
        int v = 0;
        size_t i;

        for (i = 0; i < n; i++) {
                if (s[i] < '0' || s[i] > '9')
                        return -1;
                v = v * 10 + (s[i] - '0');
        }
        return v;
}

int import_text_iso8601(const char *s, size_t len, bool need_zone, int64_t *ret_ns,
                        size_t *ret_used)
{
        static const unsigned mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
        int y, mo, d, h, mi, sec, oh = 0, om = 0;
        int64_t ns = 0, scale = 100000000, off = 0, secs;
        size_t i = 19;

        if (len < 19 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != ' ') ||
            s[13] != ':' || s[16] != ':')
                return -EINVAL;
        y = import_text_digits(s, 4);
        mo = import_text_digits(s + 5, 2);
        d = import_text_digits(s + 8, 2);
        h = import_text_digits(s + 11, 2);
        mi = import_text_digits(s + 14, 2);
        sec = import_text_digits(s + 17, 2);
        if (y < 0 || mo < 1 || mo > 12 || d < 1 || (unsigned) d > mdays[mo - 1] || h < 0 ||
            h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 60)
                return -EINVAL;
        if (mo == 2 && d == 29 && (y % 4 != 0 || (y % 100 == 0 && y % 400 != 0)))
                return -EINVAL;         /* 29 February of a common year */
        if (i < len && (s[i] == '.' || s[i] == ',')) {
                if (++i >= len || s[i] < '0' || s[i] > '9')
                        return -EINVAL;
                for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
                        ns += (s[i] - '0') * scale;
                        scale /= 10;
                }
        }
        if (i < len && s[i] == 'Z')
                i++;
        else if (i < len && (s[i] == '+' || s[i] == '-')) {
                int sign = s[i] == '-' ? -1 : 1;

                oh = len - i >= 3 ? import_text_digits(s + i + 1, 2) : -1;
                if (oh < 0 || oh > 23)
                        return -EINVAL;
                i += 3;
                if (i < len && s[i] == ':') {
                        om = len - i >= 3 ? import_text_digits(s + i + 1, 2) : -1;
                        i += 3;
                } else if (len - i >= 2 && s[i] >= '0' && s[i] <= '9') {
                        om = import_text_digits(s + i, 2);
                        i += 2;
                }
                if (om < 0 || om > 59)
                        return -EINVAL;
                off = sign * (oh * 3600 + om * 60);
        } else if (need_zone)
                return -EINVAL;
        /* nanoseconds since the epoch fit in 64 bits until 2262: a later
         * (or much earlier) year is not a time this importer can store */
        secs = import_text_days(y, (unsigned) mo, (unsigned) d) * 86400 + h * 3600 + mi * 60 +
               sec - off;
        if (__builtin_mul_overflow(secs, (int64_t) 1000000000, &secs) ||
            __builtin_add_overflow(secs, (int64_t) ns, ret_ns))
                return -EINVAL;
        *ret_used = i;
        return 0;
}

/* ---- the driver ------------------------------------------------------ */

struct import_text_file {
        FILE *f;
        const char *name;               /* for messages: the path, or "<stdin>" */
        bool whole;                     /* not a regular file: read once, never resumed */
        char *line;
        size_t line_size;
        size_t max_line;                /* import_max_line() */
        char *more, *joined;            /* import_text_join()'s lines */
        size_t more_size, joined_size;
        int64_t offset;                 /* bytes consumed from the start of the file */
        uint64_t lineno;
};

static int import_text_open(struct import_text_file *x, const char *path, char *real,
                            int64_t *ret_mtime, struct tq_error *err)
{
        struct stat st;
        int r;

        *ret_mtime = time(NULL);
        r = import_open(path, &x->f, &x->name, real, err);
        if (r == 0 && x->f != stdin && fstat(fileno(x->f), &st) == 0 && S_ISREG(st.st_mode))
                *ret_mtime = st.st_mtime;
        return r;
}

/* Resume a regular file where import_resume() says (its stored offset, or
 * where it was imported under another name), when that is a line start;
 * else start over, saying so on stderr.  The lines before are counted, for
 * messages. */
static int import_text_resume(struct import_text_file *x, struct ingest *ing, int64_t offset,
                              const char *cursor, struct tq_error *err)
{
        char buf[65536];
        int64_t left;
        uint64_t lines = 0;
        struct stat st;
        size_t n;
        int r;

        if (x->whole || fstat(fileno(x->f), &st) < 0)
                return 0;
        r = import_resume(ing, fileno(x->f), st.st_size, offset, cursor, x->name, &left, err);
        if (r < 0 || left == 0)
                return r;
        offset = left;
        while (left > 0 && (n = fread(buf, 1, left < (int64_t) sizeof(buf) ? (size_t) left :
                                      sizeof(buf), x->f)) > 0) {
                const char *p = buf, *end = buf + n;

                while ((p = memchr(p, '\n', (size_t) (end - p)))) {
                        lines++;
                        p++;
                }
                left -= (int64_t) n;
                if (left == 0 && buf[n - 1] == '\n') {
                        x->offset = offset;
                        x->lineno = lines;
                        return 0;
                }
        }
        (void) fseeko(x->f, 0, SEEK_SET);
        import_not_same(x->name, false);        /* the offset is not a line start */
        return 0;
}

/* What the reader thread of one run works with. */
struct import_text_run {
        struct import_text_file *x;
        struct import_text *t;
        const struct import_text_format *fmt;
        struct import_text_stats *st;
};

/*
 * The entry whose first line is *LINE (*N bytes) goes on over the next K
 * lines: read them and join them to it with newlines, in x->joined, and
 * point *LINE there; *RAW and the counts grow by what was read.  1 when the
 * file ends first (a writer may be in the middle: the entry is left for the
 * next import; read whole, what there is is the entry), -ENOMEM, -EBADMSG
 * with ERR set when one of the lines is too long, or the joined entry is:
 * it holds no more than a line may (x->max_line), else a format with K
 * newlines would have K + 1 lines at the cap read into memory.
 */
static int import_text_join(struct import_text_run *run, char **line, ssize_t *n, int64_t *raw,
                            unsigned k, struct tq_error *err)
{
        struct import_text_file *x = run->x;
        size_t len = (size_t) *n;
        int64_t more = 0;
        unsigned lines = 0;
        ssize_t m;
        char *p;

        if (len + 1 > x->joined_size) {
                p = realloc(x->joined, len + 1);
                if (!p)
                        return -ENOMEM;
                x->joined = p;
                x->joined_size = len + 1;
        }
        memcpy(x->joined, *line, len + 1);
        for (; lines < k; lines++) {
                m = import_getline(x->f, &x->more, &x->more_size, x->max_line, true);
                if (m == -ENOMEM)
                        return -ENOMEM;
                if (m == -E2BIG)
                        return import_line_too_long(x->name, x->lineno + lines + 1, x->max_line,
                                                    err);
                if (m == 0 || (x->more[m - 1] != '\n' && !x->whole)) {
                        if (!x->whole)
                                return 1;
                        break;
                }
                more += m;
                if (x->more[m - 1] == '\n')
                        m--;
                if (m > 0 && x->more[m - 1] == '\r')
                        m--;
                if (len + 1 + (size_t) m > x->max_line)
                        return tq_error_set(err, -EBADMSG, "%s:%" PRIu64 ": event too long (more "
                                            "than %zu bytes joined from lines %" PRIu64 " to %"
                                            PRIu64 ")", x->name, x->lineno, x->max_line,
                                            x->lineno, x->lineno + lines + 1);
                if (len + 1 + (size_t) m + 1 > x->joined_size) {
                        size_t size = 2 * (len + 1 + (size_t) m + 1);

                        if (size > x->max_line + 1)
                                size = x->max_line + 1;
                        p = realloc(x->joined, size);
                        if (!p)
                                return -ENOMEM;
                        x->joined = p;
                        x->joined_size = size;
                }
                x->joined[len++] = '\n';
                memcpy(x->joined + len, x->more, (size_t) m);
                len += (size_t) m;
                x->joined[len] = '\0';
        }
        x->lineno += lines;
        run->st->lines += lines;
        *raw += more;
        *line = x->joined;
        *n = (ssize_t) len;
        return 0;
}

/* The reader (ring_run()): parse every complete line into a slot. */
static int import_text_reader(struct ring *ring, void *userdata, struct tq_error *err)
{
        struct import_text_run *run = userdata;
        struct import_text_file *x = run->x;
        struct ring_slot *slot;
        unsigned copy, copies;
        ssize_t n;
        int r;

        while ((n = import_getline(x->f, &x->line, &x->line_size, x->max_line, true)) > 0) {
                int64_t raw = n;
                char *line = x->line;
                uint64_t at;
                unsigned k;

                if (line[n - 1] == '\n')
                        n--;
                else if (!x->whole) {
                        run->st->incomplete = true;     /* a writer may be in the middle */
                        break;
                }
                at = ++x->lineno;
                run->st->lines++;
                if (n > 0 && line[n - 1] == '\r')
                        n--;
                line[n] = '\0';
                if (x->offset == 0 && n >= 3 && memcmp(line, "\xef\xbb\xbf", 3) == 0) {
                        line += 3;      /* a UTF-8 byte order mark */
                        n -= 3;
                }
                k = run->fmt->more && !memchr(line, '\0', (size_t) n) ?
                    run->fmt->more(run->t, line, (size_t) n) : 0;
                if (k > 0 && (r = import_text_join(run, &line, &n, &raw, k, err)) != 0) {
                        if (r == -ENOMEM)
                                return tq_error_set(err, r, "out of memory");
                        if (r < 0)
                                return r;
                        x->lineno--;
                        run->st->lines--;
                        run->st->incomplete = run->st->incomplete_event = true;
                        break;
                }
                /* a line that holds several entries alike (t->repeat) is
                 * parsed again for each */
                for (copy = 0, copies = 1; copy < copies; copy++) {
                        slot = ring_get(ring);
                        if (!slot)
                                return ring_error(ring);        /* the writer failed, or no memory */
                        ingest_entry_reset(&slot->e);
                        run->t->repeat = 0;
                        if (memchr(line, '\0', (size_t) n))
                                r = tq_error_set(err, -EBADMSG, "NUL byte in the line");
                        else
                                r = run->fmt->line(run->t, line, (size_t) n, &slot->e, err);
                        if (r == -ENOMEM)
                                return tq_error_set(err, r, "out of memory");
                        if (r < 0) {
                                char why[sizeof(err->msg)];

                                snprintf(why, sizeof(why), "%s", err->msg);
                                return tq_error_set(err, r, "%s:%" PRIu64 ": %s", x->name, at,
                                                    why);
                        }
                        if (r == 1)
                                break;  /* no entry: the slot is filled again */
                        if (copy == 0 && run->t->repeat > 1)
                                copies = run->t->repeat;
                        if (slot->e.bad_int.set)        /* for ingest_end()'s note */
                                slot->e.bad_int_line = at;
                        slot->kind = RING_ENTRY;
                        slot->aux = (uint64_t) (x->offset + raw);      /* tq_progress() */
                        ring_put(ring);
                }
                x->offset += raw;
        }
        if (n == -ENOMEM)
                return tq_error_set(err, -ENOMEM, "out of memory");
        if (n == -E2BIG)
                return import_line_too_long(x->name, x->lineno + 1, x->max_line, err);
        if (n == 0 && ferror(x->f))
                return tq_error_set(err, -EIO, "%s: %s", x->name, strerror(errno));
        return 0;
}

/* Read and import every complete line: a reader thread reads and parses
 * the lines (a third of the work), the calling thread writes the rows.
 * x->offset is after the last complete line once it returns. */
static int import_text_lines(struct import_text_file *x, struct import_text *t,
                             struct ingest *ing, const struct import_text_format *fmt,
                             struct import_text_stats *st, struct tq_error *err)
{
        struct import_text_run run = { .x = x, .t = t, .fmt = fmt, .st = st };

        return ring_run(import_text_reader, &run, ring_write_entry, ing, err);
}

int import_text_stream(sqlite3 *db, const struct import_text_format *fmt, FILE *f,
                       const char *name, const char *location, struct te_patterns *patterns,
                       int64_t ref_time, struct import_text_stats *ret_stats,
                       struct tq_error *err)
{
        struct import_text_file x = { .f = f, .name = name };
        struct import_text_stats st = { 0 };
        struct import_text t = { .patterns = patterns, .ref_time = ref_time };
        struct ingest *ing = NULL;
        char print[IMPORT_PRINT_SIZE], *cursor = NULL;
        int64_t offset = -1;
        struct stat fs;
        int r;

        x.whole = f == stdin || fstat(fileno(f), &fs) < 0 || !S_ISREG(fs.st_mode);
        x.max_line = import_max_line();
        r = ingest_begin(db, fmt->kind, location, "", &ing, &cursor, &offset, err);
        if (r < 0)
                goto out;
        ingest_set_name(ing, name);
        r = import_text_resume(&x, ing, offset, cursor, err);
        if (r < 0)
                goto out;
        tq_progress_begin((uint64_t) x.offset, !x.whole && fstat(fileno(f), &fs) == 0 ?
                          (uint64_t) fs.st_size : 0);
        r = import_text_lines(&x, &t, ing, fmt, &st, err);
        if (r < 0)
                goto out;
        if (!x.whole && import_print_fd(fileno(f), x.offset, print) < 0) {
                r = tq_error_set(err, -EIO, "%s: the file shrank while being read: nothing "
                                 "imported", name);
                goto out;
        }
        /* a pipe, named or not, is read once from its start: an offset kept
         * for its path, without a fingerprint, would have a regular file put
         * there later resumed at it, unchecked */
        r = ingest_set_position(ing, x.whole ? NULL : print, x.whole ? -1 : x.offset);
        if (r < 0) {
                tq_error_set(err, r, "out of memory");
                goto out;
        }
        st.recovered = t.recovered;
        st.unmatched = t.unmatched;
        st.cut = t.cut;
        r = ingest_end(ing, true, &st.added, err);
        ing = NULL;
        if (r == 0 && ret_stats)
                *ret_stats = st;
out:
        (void) ingest_end(ing, false, NULL, NULL);
        free(cursor);
        free(x.line);
        free(x.more);
        free(x.joined);
        free(t.field);
        free(t.value);
        return r;
}

int import_text_file(sqlite3 *db, const struct import_text_format *fmt, const char *path,
                     char *const *events, struct import_text_stats *ret_stats,
                     struct tq_error *err)
{
        struct import_text_file x = { 0 };
        struct te_patterns *patterns = NULL;
        char real[PATH_MAX];
        int64_t ref_time;
        int r;

        r = te_patterns_new(&patterns);
        if (r < 0) {
                tq_error_set(err, r, "out of memory");
                goto out;
        }
        r = te_patterns_load(patterns, events, err);
        if (r < 0)
                goto out;
        r = import_text_open(&x, path, real, &ref_time, err);
        if (r < 0)
                goto out;
        r = import_text_stream(db, fmt, x.f, x.name, real, patterns, ref_time, ret_stats, err);
out:
        if (x.f && x.f != stdin)
                fclose(x.f);
        te_patterns_free(patterns);
        return r;
}
