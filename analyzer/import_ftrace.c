/*
 * import_ftrace.c - trace events from the text of the kernel's tracefs
 * `trace` (or `trace_pipe`) file: kernel events and the lines programs wrote
 * to trace_marker, among them libtracejournal's ftrace output.
 *
 * After '#' comment lines (the header, '#' in the first column), each line is
 *
 *     TASK-PID [(TGID)] [CPU] [FLAGS] SECONDS.MICROS: BODY
 *
 * FLAGS (irqs-off, need-resched...) being there unless the irq-info option
 * is off, and (TGID) only with record-tgid.  TASK is whatever the task named
 * itself, brackets and spaces included.  A trace clock that does not count
 * time (x86-tsc, counter) prints a plain integer for SECONDS.MICROS.  BODY is
 *
 *   tracing_mark_write: TEXT   a marker line: when TEXT is our own layout,
 *                              "event[pid.seq]: name=value ...", the event
 *                              with its typed arguments (kinds from the
 *                              --events declarations when given, else from
 *                              the values: "quoted" text, 0x hex, -N, N);
 *                              when it is "event message" (QEMU's ftrace
 *                              backend) with the event declared in --events
 *                              and the message, as written, fitting its
 *                              format (te_pattern.c, as for --log), the
 *                              event with the values the format matched;
 *                              else event tracing_mark_write, argument buf
 *                              (TEXT is all after ": ", as the kernel
 *                              prints it, leading spaces kept)
 *   name: TEXT                 a kernel event; its arguments are the
 *                              name=value words of TEXT, or, when it has
 *                              none, "key value" pairs (kvm_exit: reason
 *                              EXIT_IO rip 0x... info 0 0 gives reason,
 *                              rip and info = "0 0")
 *   name(k: v, k: v)           a system call event
 *   sys_NAME -> 0xRET          a system call's exit: event sys_exit_NAME,
 *                              argument ret
 *   func <-parent              the function tracer
 *   <stack trace>              the stacktrace option's entry, a " => FUNC"
 *                              line per frame after it: kernel_stack (and
 *                              user_stack for <user stack trace>)
 *
 * The trace options sym-offset and sym-addr add "+0xOFF/0xLEN" and
 * " <addr>" after a marker's or trace_printk()'s function and the function
 * tracer's two: left out (fskip_sym(), fsym_name()).  The layouts of
 * latency-format, raw, hex and context-info off fail, naming the option
 * (flayout()), and so does the binary data of bin (fnul()).
 *
 * A text holding a newline (a marker's, trace_printk()'s "FUNC: TEXT", a
 * kernel event's string) goes on, as written, on the lines after
 * (ftrace_more()); the arguments are those of the first line.  Such an
 * entry, its lines joined, holds no more than a line may (IMPORT_MAX_LINE),
 * as a --log event joined from lines does: "FILE:LINE: event too long".
 * "CPU:N [LOST M EVENTS]" becomes a tj_dropped row, "CPU:N [LOST EVENTS]"
 * (how many unknown) one without a count.  The timestamp goes to
 * `mono` (nanoseconds of the trace clock: CLOCK_MONOTONIC when trace_clock
 * is mono; an integer timestamp as it is, in the clock's own unit, so rows
 * keep their order and pairs' latencies are in cycles or counts), TASK to
 * `identifier`, PID to `tid`, and to `pid` the pid of our marker lines, else
 * TGID, else PID.  A line that fits none of these fails
 * the import with "FILE:LINE: why", and nothing is imported; so does a line
 * longer than the text importers' cap, IMPORT_MAX_LINE (standard input is
 * read no further than just past the cap in it, import_file(), and fails at
 * the first wrong line as a file does).  A last line
 * without its newline is left for the next import, with the entry it may
 * go on with, as --log leaves an event whose lines are not all there: the
 * size imported is where that entry starts.  Standard input, read once, has
 * it imported as it is, with its entry.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "traceql.h"
#include "tracegen/te.h"

/* The arguments a line keeps: the first TQ_MAX_ARGS are its row's columns
 * (ingest.c says once per event when there are more); those past this many,
 * and those fentry_inferred() leaves out, fnote_args() says. */
#define FTRACE_MAX_ARGS 64
#define FTRACE_MAX_NAME 64      /* an argument name longer has no column */

/* A piece of the input (not NUL-terminated), or of the scratch buffer. */
struct fspan {
        const char *p;
        size_t n;
};

struct farg {
        struct fspan name, value;
        bool quoted;            /* the value was a "string" (already unescaped) */
        bool null;              /* (null) */
};

struct fline {
        struct fspan task, event, text;
        int64_t tid, tgid, pid, seq, ns;
        bool has_tgid, has_pid, has_seq, ours;
        bool msg_whole;         /* MESSAGE is TEXT alone (it holds the name) */
        bool declared;          /* a "<event> <message>" marker whose event is
                                 * declared: TEXT is matched against its format */
        unsigned nargs;
        unsigned nargs_all;     /* those past FTRACE_MAX_ARGS too */
        size_t cut_len;         /* a marker of ours as long as a cut one, its
                                 * event not declared: its length (the
                                 * arguments after its last may be lost) */
        struct farg args[FTRACE_MAX_ARGS];      /* last: not cleared (fline_clear()) */
};

/* L, empty: all but args[], which fadd_arg() clears one at a time. */
static void fline_clear(struct fline *l)
{
        memset(l, 0, offsetof(struct fline, args));
}

/* A warning said once the import is done (fnote_say()): FIRST, the first
 * case's ("" if none), and how many more, the last at line LAST. */
struct fnote {
        struct tq_error first;
        uint64_t more, last;
};

/* The markers fcheck_ours_args() could not check (fnote_cut()), and the
 * arguments of undeclared events that have no column, which only their
 * message holds (fnote_args()). */
struct fnotes {
        struct fnote cut, args;
};

struct ftrace {
        const struct te_catalog *cat;
        struct te_patterns *patterns;   /* --events as --log reads them, or NULL */
        struct fnotes *notes;           /* or NULL: nothing said */
        const char *name;
        uint64_t lineno;
        char *scratch;                  /* unescaped strings of the current line */
        size_t scratch_size, scratch_len;
        char *joined;                   /* a CRLF entry of several lines, CRs dropped */
        size_t joined_size;
        struct ingest_entry e;
};

static int ftrace_error(const struct ftrace *f, struct tq_error *err, const char *what)
{
        return tq_error_set(err, -EBADMSG, "%s:%" PRIu64 ": %s", f->name, f->lineno, what);
}

/* The bytes of a name or value of the input a message quotes at most, then
 * "...": a hostile trace's name of a megabyte must not fill the message
 * (a tq_error holds 1 KiB: the reason after it was lost) nor a warning
 * printed whole.  tq_error_set() writes the bytes that are no printable
 * UTF-8 as \xHH. */
#define FQUOTE_MAX 64

/* How many bytes of S a message quotes: all, or FQUOTE_MAX at most, not
 * inside a UTF-8 character (of 4 bytes at most): a character cut in two
 * was written as \xHH escapes. */
static int fquote_len(struct fspan s)
{
        size_t n = s.n;

        if (n > FQUOTE_MAX) {
                n = FQUOTE_MAX;
                for (int k = 0; k < 3 && ((unsigned char) s.p[n] & 0xc0) == 0x80; k++)
                        n--;
        }
        return (int) n;
}

static const char *fquote_more(struct fspan s)
{
        return s.n > FQUOTE_MAX ? "..." : "";
}

/* The arguments of "%.*s%s" that quote S in a message (fquote_len()). */
#define FQUOTE(s) fquote_len(s), (s).p, fquote_more(s)

static struct fspan fspan_str(const char *s)
{
        return (struct fspan) { s, strlen(s) };
}

static bool fis_digit(char c)
{
        return c >= '0' && c <= '9';
}

static bool fis_ident(char c)
{
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || fis_digit(c) || c == '_';
}

static const char *fskip_spaces(const char *p, const char *end)
{
        while (p < end && (*p == ' ' || *p == '\t'))
                p++;
        return p;
}

static bool fspan_is(struct fspan s, const char *lit)
{
        return s.n == strlen(lit) && memcmp(s.p, lit, s.n) == 0;
}

/* Parse an unsigned decimal number of P[0..N); false when it is not one. */
static bool fparse_u(const char *p, size_t n, int64_t *ret)
{
        uint64_t v = 0;
        size_t i;

        if (n == 0 || n > 20)
                return false;
        for (i = 0; i < n; i++) {
                unsigned d = (unsigned) (p[i] - '0');

                if (!fis_digit(p[i]) || v > (UINT64_MAX - d) / 10)
                        return false;
                v = v * 10 + d;
        }
        *ret = (int64_t) v;
        return true;
}

/* Parse V as 0x hex, -decimal or decimal; false when it is none. */
static bool fparse_int(struct fspan v, uint64_t *ret)
{
        int64_t x;
        size_t i;

        if (v.n > 2 && v.p[0] == '0' && (v.p[1] | 0x20) == 'x' && v.n <= 18) {
                uint64_t h = 0;

                for (i = 2; i < v.n; i++) {
                        char c = (char) (v.p[i] | 0x20);

                        if (fis_digit(v.p[i]))
                                h = h << 4 | (uint64_t) (v.p[i] - '0');
                        else if (c >= 'a' && c <= 'f')
                                h = h << 4 | (uint64_t) (c - 'a' + 10);
                        else
                                return false;
                }
                *ret = h;
                return true;
        }
        if (v.n > 1 && v.p[0] == '-') {
                if (!fparse_u(v.p + 1, v.n - 1, &x) || (uint64_t) x > (uint64_t) INT64_MAX + 1)
                        return false;
                *ret = 0 - (uint64_t) x;
                return true;
        }
        if (!fparse_u(v.p, v.n, &x))
                return false;
        *ret = (uint64_t) x;
        return true;
}

/* The kind a value's text shows: 'i', 'u', 'p' (0x hex) or 's'. */
static char fkind_of(struct fspan v)
{
        size_t i, start = 0;

        if (v.n > 2 && v.p[0] == '0' && (v.p[1] == 'x' || v.p[1] == 'X') && v.n <= 18) {
                for (i = 2; i < v.n; i++)
                        if (!fis_digit(v.p[i]) && !((v.p[i] | 0x20) >= 'a' && (v.p[i] | 0x20) <= 'f'))
                                return 's';
                return 'p';
        }
        if (v.n > 1 && v.p[0] == '-')
                start = 1;
        if (v.n == start || v.n - start > 20)
                return 's';
        for (i = start; i < v.n; i++)
                if (!fis_digit(v.p[i]))
                        return 's';
        return start ? 'i' : 'u';
}

/* ---- the line prefix ---- */

/* TASK-PID [(TGID)], from P to LEFT_END (where the [CPU] field starts) ->
 * L's task, tid, tgid; NULL, or why it is not that. */
static const char *fparse_task(const char *p, const char *left_end, struct fline *l)
{
        const char *dash;

        while (left_end > p && left_end[-1] == ' ')
                left_end--;
        if (left_end > p && left_end[-1] == ')') {
                const char *open = memrchr(p, '(', (size_t) (left_end - p));
                const char *t;

                if (!open)
                        return "not a trace line (unbalanced TGID field)";
                t = fskip_spaces(open + 1, left_end - 1);
                l->has_tgid = fparse_u(t, (size_t) (left_end - 1 - t), &l->tgid);
                left_end = open;
                while (left_end > p && left_end[-1] == ' ')
                        left_end--;
        }
        p = fskip_spaces(p, left_end);
        dash = left_end > p ? memrchr(p, '-', (size_t) (left_end - p)) : NULL;
        if (!dash || !fparse_u(dash + 1, (size_t) (left_end - dash - 1), &l->tid))
                return "not a trace line (no TASK-PID)";
        l->task = (struct fspan) { p, (size_t) (dash - p) };
        return NULL;
}

/* [FLAGS] TIMESTAMP: from Q (after the [CPU] field) -> L's ns, *RET_BODY;
 * NULL, or why it is not that.  TIMESTAMP is SECONDS.FRACTION, or a plain
 * integer from a clock that does not count time (x86-tsc, counter), kept
 * as it is. */
static const char *fparse_time(const char *q, const char *end, struct fline *l,
                               const char **ret_body)
{
        const char *ts, *dot, *colon;
        int64_t sec, frac;
        size_t i, nfrac;

        q = fskip_spaces(q, end);
        for (i = 0;; i++) {
                ts = q;
                while (q < end && *q != ' ')
                        q++;
                if (q > ts && q[-1] == ':')
                        break;
                if (i == 1 || q == end)
                        return "not a trace line (no timestamp)";
                q = fskip_spaces(q, end);
        }
        colon = q - 1;
        dot = memchr(ts, '.', (size_t) (colon - ts));
        if (!dot) {
                if (!fparse_u(ts, (size_t) (colon - ts), &l->ns) || l->ns < 0)
                        return "not a trace line (bad timestamp)";
                *ret_body = fskip_spaces(q, end);
                return NULL;
        }
        nfrac = (size_t) (colon - dot - 1);
        if (!fparse_u(ts, (size_t) (dot - ts), &sec) || nfrac > 9 ||
            !fparse_u(dot + 1, nfrac, &frac) ||
            (uint64_t) sec > INT64_MAX / 1000000000 - 1)        /* above INT64_MAX: < 0 */
                return "not a trace line (bad timestamp)";
        for (i = nfrac; i < 9; i++)
                frac *= 10;
        l->ns = sec * 1000000000 + frac;
        *ret_body = fskip_spaces(q, end);
        return NULL;
}

static bool fis_xdigit(char c)
{
        return fis_digit(c) || (c >= 'a' && c <= 'f');
}

/* Past LIT and the 1 to MAX hex digits after it at *PP (and ends there
 * when EXACT, MAX digits); false, *PP as it was, when they are not there. */
static bool fskip_hex(const char **pp, const char *end, const char *lit, size_t max, bool exact)
{
        size_t n = strlen(lit), i;
        const char *q = *pp;

        if ((size_t) (end - q) < n || memcmp(q, lit, n) != 0)
                return false;
        q += n;
        for (i = 0; i < max && q + i < end && fis_xdigit(q[i]); i++)
                ;
        if (i == 0 || (exact && i != max))
                return false;
        *pp = q + i;
        return true;
}

/*
 * The trace options sym-offset and sym-addr print the address of the
 * function that wrote a marker or trace_printk() line after its name:
 * "tracing_mark_write+0x8a/0x170: ", "tracing_mark_write <ffffffff81498b1a>: "
 * or both, "tracing_mark_write+0x8a/0x170 <ffffffff81498b1a>: ".  Where they
 * end when P (after the name) is followed by them and ':', else P.
 */
static const char *fskip_sym(const char *p, const char *end)
{
        const char *q = p;

        if (fskip_hex(&q, end, "+0x", 16, false) && !fskip_hex(&q, end, "/0x", 16, false))
                return p;
        if (fskip_hex(&q, end, " <", 16, false)) {
                if (q == end || *q != '>')
                        return p;
                q++;
        }
        return q < end && *q == ':' ? q : p;
}

/* The function P to END without the "+0xOFF/0xLEN" that sym-offset puts
 * after it. */
static struct fspan fsym_name(const char *p, const char *end)
{
        const char *plus = memrchr(p, '+', (size_t) (end - p)), *q = plus;

        if (plus && plus > p && fskip_hex(&q, end, "+0x", 16, false) &&
            fskip_hex(&q, end, "/0x", 16, false) && q == end)
                end = plus;
        return (struct fspan) { p, (size_t) (end - p) };
}

/* Past the decimal number at *PP and the space after it; false when they
 * are not there. */
static bool fskip_number(const char **pp, const char *end)
{
        const char *q = *pp;

        while (q < end && fis_digit(*q))
                q++;
        if (q == *pp || q == end || *q != ' ')
                return false;
        *pp = q + 1;
        return true;
}

/*
 * The layouts that trace options give `trace` and that are not read
 * (traceql.1): why the line P to END, which has no [CPU] field, fails, or
 * NULL when it is none of them.
 *   hex               "PID CPU TS" in 8, 8 and 16 hex digits
 *   raw               "PID CPU NS # ..."
 *   latency-format    "TASK-PID  CPU#FLAGS  TIMEus : BODY" (or, verbose,
 *                     "... MS.MSms (+MS.MSms): BODY"): times from the
 *                     start of the trace
 *   context-info off  "BODY" alone: no task, pid, CPU nor time
 */
static const char *flayout(const char *p, const char *end)
{
        const char *q = p;

        if (fskip_hex(&q, end, "", 8, true) && fskip_hex(&q, end, " ", 8, true) &&
            fskip_hex(&q, end, " ", 16, true) && q < end && *q == ' ')
                return "a hex line (the trace option hex is on): not supported";
        q = p;
        if (fskip_number(&q, end) && fskip_number(&q, end) && fskip_number(&q, end))
                return "a raw line (the trace option raw is on): not supported";
        for (q = p + 1; q + 4 <= end; q++)
                if (q[0] == 'u' && q[1] == 's' && fis_digit(q[-1]) && q[3] == ':' &&
                    q[2] != '\0' && strchr(" !#$%@*+", q[2]))
                        return "a latency-format line (the trace option latency-format is on): "
                               "not supported";
        q = memmem(p, (size_t) (end - p), "ms (+", 5);
        if (q && memmem(q, (size_t) (end - q), "ms): ", 5))
                return "a latency-format line (the trace option latency-format is on): "
                       "not supported";
        for (q = p; q < end && fis_ident(*q); q++)
                ;
        if (q > p && (q = fskip_sym(q, end)) < end && *q == ':' && (q + 1 == end || q[1] == ' '))
                return "a line with no task, CPU nor time (the trace option context-info is "
                       "off): not supported";
        return NULL;
}

/*
 * TASK-PID [(TGID)] [CPU] [FLAGS] TS: -> L's task, tid, tgid, ns; *RET_BODY.
 * TASK is any text (prctl() sets it), "[1]" and spaces included, so the
 * [CPU] field is the first " [digits]" with TASK-PID before it and a
 * timestamp after it; the error is that of the candidate that came closest.
 */
static int fparse_prefix(struct ftrace *f, const char *p, const char *end, struct fline *l,
                         const char **ret_body, struct tq_error *err)
{
        const char *why = "not a trace line (no [CPU] field)", *q;
        int stage = 0;          /* of WHY: 1 no TASK-PID before, 2 no timestamp after */
        size_t i;

        for (q = p; q < end; q++) {
                const char *w;
                int s = 1;

                if (*q != '[' || q == p || q[-1] != ' ')
                        continue;
                for (i = 1; q + i < end && fis_digit(q[i]); i++)
                        ;
                if (i == 1 || q + i == end || q[i] != ']')
                        continue;
                l->has_tgid = false;
                w = fparse_task(p, q, l);
                if (!w) {
                        w = fparse_time(q + i + 1, end, l, ret_body);
                        if (!w)
                                return 0;
                        s = 2;
                }
                if (s > stage) {
                        stage = s;
                        why = w;
                }
        }
        q = flayout(p, end);
        return ftrace_error(f, err, q ? q : why);
}

/* ---- arguments ---- */

/* A string of our marker line that runs to the end of the line: the
 * kernel cut the marker (tracing_mark_write() keeps what fits in a ring
 * buffer entry, about 4 KiB; TRACE_BUF_SIZE, 1024 bytes, before Linux 6.8),
 * or another program wrote it so. */
#define FTRACE_CUT_WHY "(the line cut short? the kernel cuts a marker past about 4 KiB, " \
                       "1 KiB before Linux 6.8)"

/* The fewest bytes a marker the kernel cut holds: TRACE_BUF_SIZE, before
 * Linux 6.8 (since then what fits in a ring buffer entry, about 4 KiB).
 * libtracejournal writes fewer (at most 1023 and a newline), so a marker of
 * ours this long was cut, or written by another program. */
#define FTRACE_CUT_MIN 1024

/* Argument NAME of L, a marker of ours, is wrong: WHY.  Every message about
 * an argument names it and its event ("bad escape in a string" named
 * neither, in a line of many).  -EBADMSG with ERR set. */
static int fbad_arg(const struct ftrace *f, const struct fline *l, struct fspan name,
                    const char *why, struct tq_error *err)
{
        return tq_error_set(err, -EBADMSG, "%s:%" PRIu64 ": argument %.*s%s of %.*s%s: %s",
                            f->name, f->lineno, FQUOTE(name), FQUOTE(l->event), why);
}

/* The string value of argument NAME of L runs to the end of the marker.
 * It names the argument and the event, as the other cuts do ("unterminated
 * string" alone named neither).  -EBADMSG with ERR set. */
static int fcut_string(const struct ftrace *f, const struct fline *l, struct fspan name,
                       struct tq_error *err)
{
        return fbad_arg(f, l, name, "unterminated string " FTRACE_CUT_WHY, err);
}

/* Unescape the quoted string at *PP (after its '"'), the value of argument
 * NAME of L, into the scratch buffer. */
static int fparse_string(struct ftrace *f, const struct fline *l, struct fspan name,
                         const char **pp, const char *end, struct fspan *ret,
                         struct tq_error *err)
{
        const char *p = *pp;
        char *out = f->scratch + f->scratch_len;
        size_t n = 0;

        while (p < end && *p != '"') {
                char c = *p++;

                if (c == '\\') {
                        if (p == end)
                                break;
                        c = *p++;
                        switch (c) {
                        case 'n': c = '\n'; break;
                        case 't': c = '\t'; break;
                        case 'r': c = '\r'; break;
                        case '"': case '\\': break;
                        case 'x': {
                                unsigned v = 0, k;

                                for (k = 0; k < 2; k++, p++) {
                                        char h = p < end ? (char) (*p | 0x20) : 0;

                                        if (fis_digit(h))
                                                v = v * 16 + (unsigned) (h - '0');
                                        else if (h >= 'a' && h <= 'f')
                                                v = v * 16 + (unsigned) (h - 'a' + 10);
                                        else if (p == end)
                                                return fcut_string(f, l, name, err);
                                        else
                                                return fbad_arg(f, l, name, "bad \\x escape "
                                                                "in a string", err);
                                }
                                c = (char) v;
                                break;
                        }
                        default:
                                return fbad_arg(f, l, name, "bad escape in a string", err);
                        }
                }
                out[n++] = c;
        }
        if (p == end)
                return fcut_string(f, l, name, err);
        *pp = p + 1;
        *ret = (struct fspan) { out, n };
        f->scratch_len += n;
        return 0;
}

static struct farg *fadd_arg(struct fline *l, const char *name, size_t n)
{
        struct farg *a;

        l->nargs_all++;
        if (l->nargs >= FTRACE_MAX_ARGS)
                return NULL;
        a = &l->args[l->nargs++];
        memset(a, 0, sizeof(*a));
        a->name = (struct fspan) { name, n };
        return a;
}

/* Why a marker of ours too short to be cut lacks arguments: the library,
 * before it dropped such events, wrote them without the arguments that did
 * not fit in 1 KiB after the name, the argument names and the numbers (its
 * strings cut to ""); or the trace-events file given is not the one the
 * program was built with; or another program wrote it. */
#define FTRACE_SHORT_WHY "(written by a libtracejournal that left out what did not fit in 1 KiB, " \
                         "or declared otherwise in --events than in the program that traced it?)"

/* Why a marker of ours holds an argument its declaration lacks: the
 * library writes those of the program's own declaration. */
#define FTRACE_OTHER_WHY "(declared otherwise in --events than in the program that traced it?)"

/* The names of EV's arguments, those L holds left out unless L is NULL,
 * into LIST as "a, b" (cut to "..." past its SIZE bytes): how many. */
static unsigned flist_args(const struct te_event *ev, const struct fline *l, char *list,
                           size_t size)
{
        size_t len = 0;
        unsigned i, j, n = 0;

        list[0] = '\0';
        for (i = 0; i < ev->nargs; i++) {
                for (j = 0; l && j < l->nargs && !fspan_is(l->args[j].name, ev->args[i].name);
                     j++)
                        ;
                if (l && j < l->nargs)
                        continue;
                if (len < size)
                        len += (size_t) snprintf(list + len, size - len, "%s%.*s%s",
                                                 n ? ", " : "",
                                                 FQUOTE(fspan_str(ev->args[i].name)));
                n++;
        }
        if (len >= size)
                memcpy(list + size - 4, "...", 4);
        return n;
}

/* Argument NAME of L, a marker of ours whose event EV (or NULL) --events
 * declares: one the declaration lacks would be in no column of the row,
 * and one given twice in one column, the other value lost, without a word
 * either way (and it would make up, in the count fcheck_ours_args() goes
 * by, for an argument missing).  The kernel's cut takes the end of a
 * marker, never a name that an '=' follows, so neither is a cut's doing:
 * it fails whatever the marker's length.  0, or -EBADMSG with ERR set. */
static int fcheck_ours_name(const struct ftrace *f, const struct te_event *ev,
                            const struct fline *l, struct fspan name, struct tq_error *err)
{
        char declared[256];
        unsigned i;

        if (!ev)
                return 0;
        for (i = 0; i < l->nargs; i++)
                if (l->args[i].name.n == name.n && memcmp(l->args[i].name.p, name.p, name.n) == 0)
                        return fbad_arg(f, l, name, "given twice, in a tracejournal marker line",
                                        err);
        for (i = 0; i < ev->nargs; i++)
                if (fspan_is(name, ev->args[i].name))
                        return 0;
        if (flist_args(ev, NULL, declared, sizeof(declared)) == 0)
                strcpy(declared, "no arguments");
        return tq_error_set(err, -EBADMSG, "%s:%" PRIu64 ": argument %.*s%s of %.*s%s not in its "
                            "declaration: %s:%u declares %s " FTRACE_OTHER_WHY, f->name,
                            f->lineno, FQUOTE(name), FQUOTE(l->event), ev->file, ev->line,
                            declared);
}

/* A marker of ours, MARKER_LEN bytes long, whose event EV (or NULL)
 * --events declares with more arguments than L holds: the arguments
 * missing would be absent from its row without a word.  When it is as long
 * as a cut one, the kernel cut it between two arguments or just after a
 * string's closing quote; when shorter, it was written so.  It fails naming
 * those missing, with the reason that fits its length.  L holds none twice
 * nor any undeclared (fcheck_ours_name()), so fewer than declared is one
 * missing.  When no declaration tells, such a marker as long as a cut one
 * is imported as it is, and L->cut_len set for fnote_cut() to say so.  0,
 * or -EBADMSG with ERR set. */
static int fcheck_ours_args(struct ftrace *f, const struct te_event *ev, size_t marker_len,
                            struct fline *l, struct tq_error *err)
{
        bool cut = marker_len >= FTRACE_CUT_MIN;
        char missing[256];
        unsigned n;

        if (!ev && cut)
                l->cut_len = marker_len;
        if (!ev || l->nargs >= ev->nargs)
                return 0;
        n = flist_args(ev, l, missing, sizeof(missing));
        if (n == 0)
                return 0;
        if (cut)
                return tq_error_set(err, -EBADMSG, "%s:%" PRIu64 ": argument%s %s of %.*s%s "
                                    "missing: a marker of %zu bytes ends before %s "
                                    FTRACE_CUT_WHY, f->name, f->lineno, n > 1 ? "s" : "",
                                    missing, FQUOTE(fspan_str(ev->name)), marker_len,
                                    n > 1 ? "them" : "it");
        return tq_error_set(err, -EBADMSG, "%s:%" PRIu64 ": argument%s %s of %.*s%s missing: "
                            "a marker of %zu bytes, too short to be cut, lacks %s "
                            FTRACE_SHORT_WHY, f->name, f->lineno, n > 1 ? "s" : "", missing,
                            FQUOTE(fspan_str(ev->name)), marker_len, n > 1 ? "them" : "it");
}

/* The value VAL of argument NAME, not a string, ends L, a marker of ours
 * MARKER_LEN bytes long, as long as a cut one: "sector=12" may be what the
 * kernel kept of sector=1234, or the value may be whole and the cut fell
 * just after it, the arguments after it lost.  Nothing tells which: it fails
 * saying both.  -EBADMSG with ERR set. */
static int fcut_value(const struct ftrace *f, const struct fline *l, struct fspan name,
                      struct fspan val, size_t marker_len, struct tq_error *err)
{
        return tq_error_set(err, -EBADMSG, "%s:%" PRIu64 ": argument %.*s%s=%.*s%s of %.*s%s, "
                            "not a string, ends a marker of %zu bytes: its value may be cut short "
                            "and arguments after it missing " FTRACE_CUT_WHY, f->name, f->lineno,
                            FQUOTE(name), FQUOTE(val), FQUOTE(l->event), marker_len);
}

/* The name NAME of an argument, with no "=value", ends L, a marker of ours
 * as long as a cut one: the kernel cut it in the name ("u" of u8=255) or
 * just before its '='.  It fails as a cut value does, not as a malformed
 * argument.  -EBADMSG with ERR set. */
static int fcut_name(const struct ftrace *f, const struct fline *l, struct fspan name,
                     size_t marker_len, struct tq_error *err)
{
        return tq_error_set(err, -EBADMSG, "%s:%" PRIu64 ": argument %.*s%s of %.*s%s, with "
                            "no value, ends a marker of %zu bytes: its name may be cut short, its "
                            "value and arguments after it missing " FTRACE_CUT_WHY, f->name,
                            f->lineno, FQUOTE(name), FQUOTE(l->event), marker_len);
}

/* Our marker arguments: " name=value" ..., strings quoted, from P to END,
 * the end of the marker, MARKER_LEN bytes long.  A value that is no string
 * at the end of a marker that long may be cut short, as an unterminated
 * string is: a number the kernel cut, "sector=12" of sector=1234, would be
 * imported wrong without a word.  It fails as the string does, and so do
 * a name that ends a marker that long (fcut_name()), and, the event
 * declared, a marker of any length with an argument its declaration lacks
 * or one given twice (fcheck_ours_name(), checked as each name is read:
 * past FTRACE_MAX_ARGS fadd_arg() keeps none) or with fewer arguments than
 * its declaration (fcheck_ours_args()). */
static int fparse_ours(struct ftrace *f, const char *p, const char *end, size_t marker_len,
                       struct fline *l, struct tq_error *err)
{
        const struct te_event *ev = te_catalog_find(f->cat, l->event.p, l->event.n);

        while ((p = fskip_spaces(p, end)) < end) {
                const char *name = p, *v;
                struct farg *a;
                struct fspan val;
                int r;

                while (p < end && fis_ident(*p))
                        p++;
                if (p == end && marker_len >= FTRACE_CUT_MIN)
                        return fcut_name(f, l, (struct fspan) { name, (size_t) (p - name) },
                                         marker_len, err);
                if (p == name || p == end || *p != '=') {
                        /* quoted to the next space: "se-ctor=1", "=5" */
                        while (p < end && *p != ' ')
                                p++;
                        return fbad_arg(f, l, (struct fspan) { name, (size_t) (p - name) },
                                        "not name=value, in a tracejournal marker line", err);
                }
                r = fcheck_ours_name(f, ev, l, (struct fspan) { name, (size_t) (p - name) },
                                     err);
                if (r < 0)
                        return r;
                a = fadd_arg(l, name, (size_t) (p - name));
                v = ++p;
                if (p < end && *p == '"') {
                        p++;
                        r = fparse_string(f, l, (struct fspan) { name,
                                          (size_t) (v - 1 - name) }, &p, end, &val, err);
                        if (r < 0)
                                return r;
                        if (p < end && *p != ' ')
                                return fbad_arg(f, l, (struct fspan) { name,
                                                (size_t) (v - 1 - name) }, "text after its "
                                                "string's closing quote, in a tracejournal "
                                                "marker line", err);
                } else {
                        while (p < end && *p != ' ')
                                p++;
                        val = (struct fspan) { v, (size_t) (p - v) };
                        if (p == end && marker_len >= FTRACE_CUT_MIN)
                                return fcut_value(f, l, (struct fspan) { name,
                                                  (size_t) (v - 1 - name) }, val, marker_len,
                                                  err);
                }
                if (a) {
                        a->value = val;
                        a->quoted = v < end && *v == '"';
                        a->null = !a->quoted && fspan_is(val, "(null)");
                }
        }
        return fcheck_ours_args(f, ev, marker_len, l, err);
}

/* Kernel event text: its name=value words, else "key value..." pairs. */
static void fparse_kernel(const char *p, const char *end, struct fline *l)
{
        const char *eq = memchr(p, '=', (size_t) (end - p));

        while ((p = fskip_spaces(p, end)) < end) {
                const char *w = p, *k;
                size_t wn;

                while (p < end && *p != ' ' && *p != '\t')
                        p++;
                wn = (size_t) (p - w);
                if (w[wn - 1] == ',')
                        wn--;
                if (eq) {
                        const char *e = memchr(w, '=', wn);
                        struct farg *a;

                        if (!e || e == w)
                                continue;
                        for (k = w; k < e && fis_ident(*k); k++)
                                ;
                        if (k != e || fis_digit(*w) || !(a = fadd_arg(l, w, (size_t) (e - w))))
                                continue;
                        a->value = (struct fspan) { e + 1, (size_t) (w + wn - e - 1) };
                        continue;
                }
                /* "key value [more values]": a key starts with a letter or '_' */
                for (k = w; k < w + wn && fis_ident(*k); k++)
                        ;
                if (k == w + wn && wn && !fis_digit(*w) && fkind_of((struct fspan) { w, wn }) == 's') {
                        const char *v0 = fskip_spaces(p, end), *ve = v0, *q = v0;
                        struct farg *a;

                        if (v0 == end)
                                break;
                        /* the value: one word, then the numbers after it */
                        while (q < end && *q != ' ')
                                q++;
                        ve = q;
                        for (;;) {
                                const char *n0 = fskip_spaces(q, end), *n1 = n0;

                                while (n1 < end && *n1 != ' ')
                                        n1++;
                                if (n0 == end || fkind_of((struct fspan) { n0, (size_t) (n1 - n0) }) == 's')
                                        break;
                                ve = q = n1;
                        }
                        if (ve > v0 && ve[-1] == ',')
                                ve--;
                        a = fadd_arg(l, w, wn);
                        if (a)
                                a->value = (struct fspan) { v0, (size_t) (ve - v0) };
                        p = q;
                }
        }
}

/* System call text: "k: v, k: v)". */
static void fparse_syscall(const char *p, const char *end, struct fline *l)
{
        while (p < end) {
                const char *k = fskip_spaces(p, end), *c = k, *v, *ve;
                struct farg *a;

                while (c < end && fis_ident(*c))
                        c++;
                if (c == k || c + 1 >= end || *c != ':')
                        return;
                v = fskip_spaces(c + 1, end);
                ve = v;
                while (ve < end && *ve != ',' && *ve != ')')
                        ve++;
                a = fadd_arg(l, k, (size_t) (c - k));
                if (a)
                        a->value = (struct fspan) { v, (size_t) (ve - v) };
                p = ve + 1;
        }
}

/* A marker "<event> <message>" (QEMU's ftrace backend writes these) whose
 * event is declared in --events: fstore() matches it against the format; it
 * is event tracing_mark_write with argument buf when it does not fit. */
static void fparse_declared(struct ftrace *f, const char *name, const char *p, const char *end,
                            struct fline *l)
{
        l->declared = p > name && (p == end || *p == ' ') &&
                      te_catalog_find(f->cat, name, (size_t) (p - name));
        fadd_arg(l, "buf", 3)->value = l->text;
}

/* BODY of a line: which event, and its arguments. */
static int fparse_body(struct ftrace *f, const char *p, const char *end, struct fline *l,
                       struct tq_error *err)
{
        const char *name = p, *q, *mark_end, *func_end;

        mark_end = end;         /* a marker's text is as written, spaces and all */
        while (end > p && end[-1] == ' ')
                end--;
        /* the stacktrace and userstacktrace options' entries, their frames
         * on the lines after (" => FUNC"): the stack is the message */
        if ((size_t) (end - p) >= 13 && (memcmp(p, "<stack trace>", 13) == 0 ||
            ((size_t) (end - p) >= 18 && memcmp(p, "<user stack trace>", 18) == 0))) {
                l->event = p[1] == 's' ? (struct fspan) { "kernel_stack", 12 } :
                                         (struct fspan) { "user_stack", 10 };
                l->text = (struct fspan) { p, (size_t) (end - p) };
                l->msg_whole = true;
                return 0;
        }
        while (p < end && fis_ident(*p))
                p++;
        if (p == name)
                return ftrace_error(f, err, "not a trace line (no event name)");
        l->event = (struct fspan) { name, (size_t) (p - name) };
        p = fskip_sym(p, end);
        if (p < end && *p == '(') {
                l->text = (struct fspan) { name, (size_t) (end - name) };
                l->msg_whole = true;
                fparse_syscall(p + 1, end, l);
                return 0;
        }
        /* the function tracer's FUNC may be a compiler's clone of a
         * function, "rw_verify_area.isra.0", "vfs_read.part.0" */
        for (q = p; q < end && *q != ' ' && *q != ':' && *q != '('; q++)
                ;
        func_end = q;
        /* sym-offset, sym-addr: "func+0x4/0x170 <addr> <-parent+0x65/0xe0
         * <addr>", the offsets and addresses left out of ip and parent */
        if (fskip_hex(&q, end, " <", 16, false))
                q = q < end && *q == '>' ? q + 1 : func_end;
        if (q + 3 <= end && memcmp(q, " <-", 3) == 0) {
                struct farg *a = fadd_arg(l, "ip", 2);
                const char *pe = memrchr(q + 3, ' ', (size_t) (end - q - 3)), *r = pe;

                if (!pe || !fskip_hex(&r, end, " <", 16, false) || r + 1 != end || *r != '>')
                        pe = end;
                a->value = fsym_name(name, func_end);
                a = fadd_arg(l, "parent", 6);
                a->value = fsym_name(q + 3, pe);
                l->text = (struct fspan) { name, (size_t) (end - name) };
                l->event = (struct fspan) { "function", 8 };
                return 0;
        }
        if (p + 4 <= end && memcmp(p, " -> ", 4) == 0 && p - name > 4 &&
            memcmp(name, "sys_", 4) == 0) {
                /* a system call's exit, "sys_NAME -> 0xRET": the kernel's
                 * event sys_exit_NAME (its entry is "sys_NAME(...)") */
                char *ev = f->scratch + f->scratch_len;
                struct farg *a = fadd_arg(l, "ret", 3);

                memcpy(ev, "sys_exit_", 9);
                memcpy(ev + 9, name + 4, (size_t) (p - name - 4));
                l->event = (struct fspan) { ev, (size_t) (p - name + 5) };
                f->scratch_len += l->event.n;
                a->value = (struct fspan) { p + 4, (size_t) (end - p - 4) };
                l->text = (struct fspan) { name, (size_t) (end - name) };
                l->msg_whole = true;
                return 0;
        }
        if (p == end || *p != ':')
                return ftrace_error(f, err, "not a trace line (no event name)");
        q = p + 1;
        p = fskip_spaces(p + 1, end);
        l->text = (struct fspan) { p, (size_t) (end - p) };
        if (!fspan_is(l->event, "tracing_mark_write")) {
                /* the arguments are on the first line; the lines after it
                 * (ftrace_more()) are the message's alone */
                const char *nl = memchr(p, '\n', (size_t) (end - p));

                fparse_kernel(p, nl ? nl : end, l);
                return 0;
        }
        /* the kernel prints a marker as ": %s": its text is what follows
         * that one space, its own leading spaces kept (an empty one is "",
         * not " ") */
        end = mark_end;
        p = q < end && *q == ' ' ? q + 1 : q;
        l->text = (struct fspan) { p, (size_t) (end - p) };
        /* a marker: ours is "event[pid.seq]: args", or "tj_dropped[pid]: args";
         * "name[pid]: text" is what syslog-style programs write */
        name = p;
        while (p < end && fis_ident(*p))
                p++;
        q = p;
        if (q > name && q < end && *q == '[') {
                struct fspan ev = { name, (size_t) (p - name) };
                const char *n0 = ++q;

                while (q < end && fis_digit(*q))
                        q++;
                l->has_pid = fparse_u(n0, (size_t) (q - n0), &l->pid);
                if (q < end && *q == '.') {
                        n0 = ++q;
                        while (q < end && fis_digit(*q))
                                q++;
                        l->has_seq = fparse_u(n0, (size_t) (q - n0), &l->seq);
                }
                /* "]:" then a space or the end */
                if (l->has_pid && (l->has_seq || fspan_is(ev, "tj_dropped")) && end - q >= 2 &&
                    q[0] == ']' && q[1] == ':' && (end - q == 2 || q[2] == ' ')) {
                        l->ours = true;
                        l->event = ev;
                        q = fskip_spaces(q + 2, end);
                        l->text = (struct fspan) { q, (size_t) (end - q) };
                        return fparse_ours(f, q, end, (size_t) (end - name), l, err);
                }
                l->has_pid = l->has_seq = false;
        }
        fparse_declared(f, name, p, end, l);
        return 0;
}

/* ---- rows ---- */

/* Is the current line N's first case, whose warning the caller sets in
 * N->first?  A later one is counted. */
static bool fnote_first(const struct ftrace *f, struct fnote *n)
{
        if (!n->first.msg[0])
                return true;
        n->more++;
        n->last = f->lineno;
        return false;
}

/* Say N's warning, if any, with how many more cases: ONE and MANY end
 * "N more ... so". */
static void fnote_say(const struct fnote *n, const char *one, const char *many)
{
        if (!n->first.msg[0])
                return;
        if (!n->more)
                fprintf(stderr, "traceql: %s\n", n->first.msg);
        else
                fprintf(stderr, "traceql: %s; %" PRIu64 " more %s so, the last at line %" PRIu64
                        "\n", n->first.msg, n->more, n->more > 1 ? many : one, n->last);
}

/* L, stored, is a marker of ours that fcheck_ours_args() could not check:
 * the first is noted for import_ftrace() to warn of, the others counted. */
static void fnote_cut(const struct ftrace *f, const struct fline *l)
{
        const struct farg *last = l->nargs ? &l->args[l->nargs - 1] : NULL;
        struct fspan lname = last ? last->name : (struct fspan) { "", 0 };

        if (!f->notes || !fnote_first(f, &f->notes->cut))
                return;
        tq_error_set(&f->notes->cut.first, 0, "%s:%" PRIu64 ": a marker of %zu bytes ends "
                     "%s%.*s%s of %.*s%s, with no declaration (--events) to tell what follows: "
                     "arguments after it may be missing from its row " FTRACE_CUT_WHY, f->name,
                     f->lineno, l->cut_len, last ? "after argument " : "before any argument",
                     FQUOTE(lname), FQUOTE(l->event));
}

/* Argument A (NULL: those past FTRACE_MAX_ARGS) of L, an undeclared
 * event, has no column, as WHY says: the first is noted for import_ftrace() to
 * say, the others counted. */
static void fnote_args(const struct ftrace *f, const struct fline *l, const struct farg *a,
                       const char *why)
{
        if (!f->notes || !fnote_first(f, &f->notes->args))
                return;
        if (a)
                tq_error_set(&f->notes->args.first, 0, "%s:%" PRIu64 ": argument %.*s%s of %.*s%s "
                             "%s", f->name, f->lineno, FQUOTE(a->name), FQUOTE(l->event), why);
        else
                tq_error_set(&f->notes->args.first, 0, "%s:%" PRIu64 ": %.*s%s has %u arguments, "
                             "more than %d: those after the %dth are in the row's message only",
                             f->name, f->lineno, FQUOTE(l->event), l->nargs_all,
                             FTRACE_MAX_ARGS, FTRACE_MAX_ARGS);
}

static int fadd_field(struct ftrace *f, const char *name, struct fspan v)
{
        return te_catalog_field(&f->e, name, v.p, v.n);
}

/* V as a value of KIND, as a journal entry's TRACE_ARG_ is read (ingest.c,
 * ingest_val_arg()), which is how libtracejournal's ftrace output writes it:
 * 'i' decimal from INT64_MIN to INT64_MAX, 'u' decimal from 0 to
 * UINT64_MAX, 'p' 0x hex.  Other text (a signed value past INT64_MAX, an
 * unsigned one below 0, a pointer in decimal) stays text: read as a number
 * of another kind, its 64-bit pattern would be stored as this kind shows it
 * (9223372036854775808 as INT64_MIN). */
static bool fvalue_of_kind(struct fspan v, char kind, uint64_t *ret)
{
        char k = fkind_of(v);

        if (kind == 'p' ? k != 'p' : k != 'u' && !(kind == 'i' && k == 'i'))
                return false;
        if (!fparse_int(v, ret))
                return false;
        return kind != 'i' || k == 'i' || *ret <= (uint64_t) INT64_MAX;
}

/* Declared event: values in declaration order, kinds from the catalog. */
static int fentry_declared(struct ftrace *f, const struct te_event *ev, const struct fline *l)
{
        struct tq_value v[TE_MAX_ARGS];
        unsigned i, j;

        for (i = 0; i < ev->nargs; i++) {
                const struct te_arg *ta = &ev->args[i];
                char kind = te_catalog_kind(ta);

                memset(&v[i], 0, sizeof(v[i]));
                v[i].absent = true;
                for (j = 0; j < l->nargs; j++) {
                        const struct farg *a = &l->args[j];
                        if (!fspan_is(a->name, ta->name) || a->null)
                                continue;
                        if (kind == 's' || a->quoted || !fvalue_of_kind(a->value, kind, &v[i].u)) {
                                v[i].str = a->value.p;  /* kept as text */
                                v[i].len = a->value.n;
                        }
                        v[i].absent = false;
                        break;
                }
        }
        return te_catalog_entry(&f->e, ev, v);
}

/* Undeclared event: kinds from the values. */
static int fentry_inferred(struct ftrace *f, const struct fline *l)
{
        char sig[FTRACE_MAX_ARGS * (FTRACE_MAX_NAME + 8)], field[10 + FTRACE_MAX_NAME + 1];
        size_t k = 0;
        unsigned i, j;
        int r;

        r = fadd_field(f, "TRACE_EVENT", l->event);
        for (i = 0; r == 0 && i < l->nargs; i++) {
                const struct farg *a = &l->args[i];
                char kind = a->quoted || a->null ? 's' : fkind_of(a->value);
                size_t n;

                for (j = 0; j < i; j++)
                        if (l->args[j].name.n == a->name.n &&
                            memcmp(l->args[j].name.p, a->name.p, a->name.n) == 0)
                                break;
                if (j < i) {
                        /* its column would show the first value (they
                         * are matched by name) */
                        fnote_args(f, l, a, "given again: its column holds the first value, "
                                   "this one is in the row's message only");
                        continue;
                }
                if (a->name.n > FTRACE_MAX_NAME) {
                        fnote_args(f, l, a, "has a name longer than 64 bytes: no column, it is "
                                   "in the row's message only");
                        continue;
                }
                k += (size_t) snprintf(sig + k, sizeof(sig) - k, "%s%.*s:%c", k ? " " : "",
                                       (int) a->name.n, a->name.p, kind);
                snprintf(field, sizeof(field), "TRACE_ARG_%.*s", (int) a->name.n, a->name.p);
                for (n = 10; field[n]; n++)
                        if (field[n] >= 'a' && field[n] <= 'z')
                                field[n] = (char) (field[n] - 32);
                if (!a->null)
                        r = fadd_field(f, field, a->value);
        }
        if (l->nargs_all > l->nargs)
                fnote_args(f, l, NULL, NULL);
        if (r == 0)
                r = te_catalog_field(&f->e, "TRACE_ARGS", sig, k);
        f->e.argsig_guessed = true;     /* not the program's word: no kind change to tell */
        if (r == 0) {
                size_t n = l->event.n + 1 + l->text.n;
                char *msg = malloc(n);

                if (!msg)
                        return -ENOMEM;
                memcpy(msg, l->event.p, l->event.n);
                msg[l->event.n] = ' ';
                memcpy(msg + l->event.n + 1, l->text.p, l->text.n);
                if (l->msg_whole)
                        r = fadd_field(f, "MESSAGE", l->text);
                else
                        r = te_catalog_field(&f->e, "MESSAGE", msg, l->text.n ? n : l->event.n);
                free(msg);
        }
        return r;
}

static int fstore(struct ftrace *f, struct ingest *ing, const struct fline *l, bool again,
                  struct tq_error *err)
{
        const struct te_event *ev = NULL;
        int r;

        ingest_entry_reset(&f->e);
        if (l->ours)
                ev = te_catalog_find(f->cat, l->event.p, l->event.n);
        r = l->declared && f->patterns ?
                te_patterns_match(f->patterns, l->text.p, l->text.n, &f->e) : 0;
        if (r == 1)
                r = fadd_field(f, "MESSAGE", l->text);
        else if (r == 0)
                r = ev ? fentry_declared(f, ev, l) : fentry_inferred(f, l);
        if (r == 0)
                r = te_catalog_field_int(&f->e, "TID", l->tid);
        if (r == 0)
                r = te_catalog_field_int(&f->e, "_PID", l->has_pid ? l->pid :
                                         l->has_tgid ? l->tgid : l->tid);
        if (r == 0 && l->has_seq)
                r = te_catalog_field_int(&f->e, "TRACE_SEQ", l->seq);
        if (r == 0)
                r = te_catalog_field_int(&f->e, "TRACE_MONO_NS", l->ns);
        if (r == 0)
                r = fadd_field(f, "SYSLOG_IDENTIFIER", l->task);
        if (r == 0 && l->ours && fspan_is(l->event, "tj_dropped"))
                for (unsigned i = 0; r == 0 && i < l->nargs; i++)
                        if (fspan_is(l->args[i].name, "dropped"))
                                r = fadd_field(f, "TRACE_DROPPED", l->args[i].value);
        if (r < 0)
                return tq_error_set(err, r, "out of memory");
        if (again)
                r = ingest_unstore(ing, &f->e, err);
        if (r >= 0)
                r = ingest_entry(ing, &f->e, err);
        return r < 0 ? r : 0;
}

/* "CPU:N [LOST M EVENTS]": a tj_dropped row; "CPU:N [LOST EVENTS]", which
 * the kernel writes when it does not know how many (the trace file read while
 * tracing goes on, the writer past the reader), one without a count. */
static int flost(struct ftrace *f, struct ingest *ing, const char *p, const char *end,
                 bool store, struct tq_error *err)
{
        const char *q = memchr(p, '[', (size_t) (end - p)), *n0;
        int64_t m;
        bool unknown;
        int r;

        if (!q || end - q < 7 || memcmp(q, "[LOST ", 6) != 0)
                return ftrace_error(f, err, "not a trace line (bad CPU line)");
        n0 = q + 6;
        for (q = n0; q < end && fis_digit(*q); q++)
                ;
        unknown = q == n0 && end - q >= 7 && memcmp(q, "EVENTS]", 7) == 0;
        if (!unknown && !fparse_u(n0, (size_t) (q - n0), &m))
                return ftrace_error(f, err, "not a trace line (bad CPU line)");
        if (!store)
                return 0;
        ingest_entry_reset(&f->e);
        r = te_catalog_field(&f->e, "TRACE_EVENT", "tj_dropped", 10);
        /* without a count its argument is declared all the same, null: the
         * event's arguments must not depend on which report comes first */
        if (r == 0)
                r = unknown ? te_catalog_field(&f->e, "TRACE_ARGS", "dropped:u", 9) :
                              te_catalog_field_int(&f->e, "TRACE_DROPPED", m);
        if (r == 0)
                r = te_catalog_field(&f->e, "MESSAGE", p, (size_t) (end - p));
        if (r < 0)
                return tq_error_set(err, r, "out of memory");
        r = ingest_entry(ing, &f->e, err);
        return r < 0 ? r : 0;
}

/* Is P to END, which begins with a space, a trace line, well formed or not:
 * a " [digits]" field with TASK-PID before it or a timestamp after it? */
static bool flooks_traced(const char *p, const char *end)
{
        const char *q, *body;
        struct fline l;
        size_t i;

        for (q = p; q < end; q++) {
                if (*q != '[' || q == p || q[-1] != ' ')
                        continue;
                for (i = 1; q + i < end && fis_digit(q[i]); i++)
                        ;
                if (i == 1 || q + i == end || q[i] != ']')
                        continue;
                if (!fparse_task(p, q, &l) || !fparse_time(q + i + 1, end, &l, &body))
                        return true;
        }
        return false;
}

/*
 * Why the line P to END, which holds a NUL byte, fails.  The trace option
 * bin writes each entry as binary data, no text: the pid, the CPU and the
 * timestamp as 4-, 4- and 8-byte integers, then the event's own binary
 * layout, for most "type: N\n" (trace_nop_print()).  A text trace holds no
 * NUL (the kernel prints strings with %s), so a line with one is bin's,
 * unless what comes before the NUL starts a trace line or the line is all
 * NULs (a file zeroed by a crash).
 */
static int fnul(struct ftrace *f, const char *p, const char *end, struct tq_error *err)
{
        const char *nul = memchr(p, '\0', (size_t) (end - p)), *q;

        for (q = p; q < end && *q == '\0'; q++)
                ;
        if (q == end || flooks_traced(p, nul))
                return ftrace_error(f, err, "NUL byte in a line");
        return ftrace_error(f, err, "binary data (the trace option bin is on): not supported");
}

/* An entry of several lines at *P (its first ending at *LINE_END, the last
 * at *END) from a CRLF file: a copy without the CR before each newline, as
 * --log drops a CR at the end of each line it joins.  0 or -ENOMEM. */
static int fjoin_crlf(struct ftrace *f, const char **p, const char **line_end, const char **end)
{
        size_t n = 0, first = (size_t) (*line_end - *p);
        const char *q;

        if (*line_end == *end || !memmem(*p, (size_t) (*end - *p), "\r\n", 2))
                return 0;
        if ((size_t) (*end - *p) > f->joined_size) {
                char *j = realloc(f->joined, (size_t) (*end - *p));

                if (!j)
                        return -ENOMEM;
                f->joined = j;
                f->joined_size = (size_t) (*end - *p);
        }
        if (first > 0 && (*line_end)[-1] == '\r')
                first--;
        for (q = *p; q < *end; q++)
                if (*q != '\r' || q + 1 == *end || q[1] != '\n')
                        f->joined[n++] = *q;
        *p = f->joined;
        *line_end = f->joined + first;
        *end = f->joined + n;
        return 0;
}

/* The entry at P: its first line ends at LINE_END, the lines that go on
 * with it (ftrace_more()) at END. */
static int fline(struct ftrace *f, struct ingest *ing, const char *p, const char *line_end,
                 const char *end, bool store, bool again, struct tq_error *err)
{
        struct fline l;
        const char *body = end, *line = p;
        int r;

        /* before the '#' lines are passed over: bin's binary data may
         * begin with '#' (a pid of 0x..23) */
        if (memchr(p, '\0', (size_t) (end - p)))
                return fnul(f, p, end, err);
        /* the header's '#' lines and "CPU:N [LOST M EVENTS]" begin in the
         * first column, a trace line never does (the kernel right-aligns
         * TASK, 15 bytes at most, in 16 columns): its TASK may begin with
         * '#' or be "CPU:..." all the same, as prctl() names it */
        if (p < end && *p == '#')
                return 0;
        /* a CRLF file's lines lose their CR, as --log's do (an empty one
         * is passed over) */
        if (end > p && end[-1] == '\r') {
                if (line_end == end)
                        line_end--;
                end--;
        }
        p = fskip_spaces(p, end);
        if (p == end)
                return 0;
        if (p == line && end - p > 4 && memcmp(p, "CPU:", 4) == 0)
                return flost(f, ing, p, end, store, err);
        if (fjoin_crlf(f, &p, &line_end, &end) < 0)
                return tq_error_set(err, -ENOMEM, "out of memory");
        if ((size_t) (end - p) > f->scratch_size) {
                char *s = realloc(f->scratch, (size_t) (end - p));

                if (!s)
                        return tq_error_set(err, -ENOMEM, "out of memory");
                f->scratch = s;
                f->scratch_size = (size_t) (end - p);
        }
        f->scratch_len = 0;
        fline_clear(&l);
        r = fparse_prefix(f, p, line_end, &l, &body, err);
        if (r == 0)
                r = fparse_body(f, body, end, &l, err);
        if (r == 0 && store)
                r = fstore(f, ing, &l, again, err);
        if (r == 0 && store && l.cut_len)
                fnote_cut(f, &l);
        return r;
}

/* ---- the file ---- */

/* What may go on after an entry's first line (ftrace_more()). */
enum fmore {
        FMORE_UNKNOWN,  /* not yet found out */
        FMORE_NONE,     /* nothing: a function tracer or system call line, a
                         * loss, the header, a line that fails */
        FMORE_FRAMES,   /* the " => FUNC" lines of a stack trace */
        FMORE_TEXT,     /* "name: TEXT" (a marker, trace_printk, a kernel
                         * event): the lines of a TEXT that holds a newline */
};

/* The kind of the entry whose first line is P to END. */
static enum fmore fmore_kind(struct ftrace *f, const char *p, const char *end)
{
        struct tq_error err;
        struct fline l;
        const char *body;

        fline_clear(&l);
        if (fparse_prefix(f, p, end, &l, &body, &err) < 0)
                return FMORE_NONE;
        if ((size_t) (end - body) >= 13 && (memcmp(body, "<stack trace>", 13) == 0 ||
            ((size_t) (end - body) >= 18 && memcmp(body, "<user stack trace>", 18) == 0)))
                return FMORE_FRAMES;
        for (p = body; p < end && fis_ident(*p); p++)
                ;
        return p > body && p < end && *p == ':' ? FMORE_TEXT : FMORE_NONE;
}

/* Does P to END begin with LIT, then digits, then end with TAIL? */
static bool fis_numbered(const char *p, const char *end, const char *lit, const char *tail)
{
        size_t n = strlen(lit), t = strlen(tail);
        const char *q;

        if ((size_t) (end - p) < n + 1 + t || memcmp(p, lit, n) != 0 ||
            memcmp(end - t, tail, t) != 0)
                return false;
        for (q = p + n; q < end - t; q++)
                if (!fis_digit(*q))
                        return false;
        return true;
}

/* "CPU:N [LOST M EVENTS]" or "CPU:N [LOST EVENTS]", exactly. */
static bool fis_lost(const char *p, const char *end)
{
        const char *q;

        if (end - p < 5 || memcmp(p, "CPU:", 4) != 0)
                return false;
        for (q = p + 4; q < end && fis_digit(*q); q++)
                ;
        return q > p + 4 && (fis_numbered(q, end, " [LOST ", " EVENTS]") ||
                             (end - q == 14 && memcmp(q, " [LOST EVENTS]", 14) == 0));
}

/* The annotate option's "##### CPU N buffer started ####", which the
 * kernel writes before the first line of a CPU whose buffer overran: among
 * the lines, not in the header. */
static bool fis_annotation(const char *p, const char *end)
{
        return fis_numbered(p, end, "##### CPU ", " buffer started ####");
}

/* Does the line at P (to END, the end of the data) go on with an entry of
 * KIND?  The kernel prints a text holding a newline as written (a marker, a
 * trace_printk(), an event's string), so the lines of it after the first
 * follow with no prefix, and the frames of a stack trace (the stacktrace
 * and userstacktrace options) as " => FUNC" lines.  After a text, a line
 * is the text going on unless it is a trace line (it begins with a space,
 * TASK being right-aligned in 16 columns, 15 bytes at most, and has the
 * [CPU] field with TASK-PID before it or a timestamp after it), a loss
 * ("CPU:N [LOST M EVENTS]" exactly), the annotation of a CPU's buffer, or
 * "# tracer: NAME", the first line of a header (a capture appended after
 * another): the kernel writes its header's '#' lines before the first
 * entry, and no other. */
static bool ftrace_more(struct ftrace *f, const char *line, const char *line_end,
                        enum fmore *kind, const char *p, const char *end)
{
        const char *nl;
        bool frame;

        if (p >= end || *line != ' ')
                return false;
        nl = memchr(p, '\n', (size_t) (end - p));
        if (nl)
                end = nl;
        if (end > p && end[-1] == '\r')
                end--;          /* a CRLF file's */
        /* what this line is first: most often a trace line, found without
         * the entry's kind */
        if ((*p == ' ' && flooks_traced(p, end)) ||
            (*p == '#' && (fis_annotation(p, end) ||
                           (end - p >= 10 && memcmp(p, "# tracer: ", 10) == 0))) ||
            fis_lost(p, end))
                return false;
        frame = end - p >= 4 && memcmp(p, " => ", 4) == 0;
        if (*kind == FMORE_UNKNOWN)
                *kind = fmore_kind(f, line, line_end);
        return *kind == FMORE_TEXT || (frame && *kind == FMORE_FRAMES);
}

/* The bytes of the line P to NL (its newline, or the end of the data), a CR
 * before the newline not counted: a CRLF line holds as much as its LF twin,
 * as in the text importers (import_getline()). */
static size_t fline_len(const char *p, const char *nl)
{
        return (size_t) (nl - p) - (nl > p && nl[-1] == '\r');
}

/* What ftrace_parse() left for the next import. */
enum fleft {
        FLEFT_NONE,
        FLEFT_LINE,     /* an unfinished last line, an entry's first */
        FLEFT_ENTRY,    /* an entry of several lines, its last unfinished */
};

/*
 * Parse every complete line, none longer than import_max_line() (else
 * "NAME:LINE: line too long"); when the file does not end in a newline yet,
 * the last line, a line being written, is left alone, and with it the entry
 * it may go on with (it may be the next line of a text or a frame yet):
 * neither is stored, *RET_USED (unless NULL) is where that entry starts, and
 * *RET_LEFT says what was left.  import_file() records *RET_USED, so the
 * next import parses the entry whole once the line is complete, and stores
 * it once.  Entries are stored when their first line's newline is at or
 * after SKIP (an older traceql recorded the whole size, an unfinished line
 * in it), and stored again, the row of before deleted (ingest_unstore()),
 * when lines at or after SKIP go on with one before it.  WHOLE (standard
 * input, a pipe: read once, never resumed): the last line is parsed with or
 * without its newline, as the text importers do, the entry it goes on with
 * included.  NOTES (unless NULL) gets the
 * markers that may have lost arguments to a cut (fnote_cut()) and the
 * arguments of undeclared events that have no column (fnote_args()).
 */
static int ftrace_parse(struct ingest *ing, const struct te_catalog *cat,
                        struct te_patterns *patterns, const char *name, const uint8_t *data,
                        size_t size, int64_t skip, bool whole, size_t *ret_used,
                        enum fleft *ret_left, struct fnotes *notes, struct tq_error *err)
{
        struct ftrace f = { .cat = cat, .patterns = patterns, .notes = notes, .name = name };
        const char *p = (const char *) data, *end = p + size;
        size_t max_line = import_max_line();
        enum fleft left = FLEFT_NONE;
        int r = 0;

        while (r == 0 && p < end) {
                const char *nl = memchr(p, '\n', (size_t) (end - p)), *first, *next;
                enum fmore kind = FMORE_UNKNOWN;
                uint64_t more = 0;
                size_t joined;  /* the entry's bytes, its lines joined with newlines */
                bool is_new, again;

                /* as the text importers: an unfinished line too */
                if (fline_len(p, nl ? nl : end) > max_line) {
                        r = import_line_too_long(name, f.lineno + 1, max_line, err);
                        break;
                }
                if (!nl && whole)
                        nl = end;
                else if (!nl) {
                        left = FLEFT_LINE;
                        break;
                }
                /* the lines that go on with this one; an unfinished one is
                 * left with the entry, as --log leaves an event whose lines
                 * are not all there.  The entry holds no more than a line
                 * may, as a --log event joined from lines does
                 * (import_text_join()). */
                first = nl;
                joined = fline_len(p, nl);
                while (nl < end && ftrace_more(&f, p, first, &kind, nl + 1, end)) {
                        next = memchr(nl + 1, '\n', (size_t) (end - nl - 1));
                        if (fline_len(nl + 1, next ? next : end) > max_line) {
                                r = import_line_too_long(name, f.lineno + more + 2, max_line,
                                                         err);
                                break;
                        }
                        if (!next && !whole) {
                                left = FLEFT_ENTRY;
                                break;
                        }
                        joined += 1 + fline_len(nl + 1, next ? next : end);
                        if (joined > max_line) {
                                r = tq_error_set(err, -EBADMSG, "%s:%" PRIu64 ": event too long "
                                                 "(more than %zu bytes joined from lines %"
                                                 PRIu64 " to %" PRIu64 ")", name, f.lineno + 1,
                                                 max_line, f.lineno + 1, f.lineno + more + 2);
                                break;
                        }
                        nl = next ? next : end;
                        more++;
                }
                if (r < 0 || left)
                        break;
                f.lineno++;
                /* stored when its first line is new; an entry stored before
                 * whose lines went on since (the trace appended to while it
                 * was being written) is stored again whole, in place of
                 * what was stored of it */
                is_new = (int64_t) (first - (const char *) data) >= skip;
                again = !is_new && (int64_t) (nl - (const char *) data) >= skip;
                r = fline(&f, ing, p, first, nl, is_new || again, again, err);
                f.lineno += more;
                p = nl < end ? nl + 1 : end;    /* a last line without its newline */
                tq_progress((uint64_t) (p - (const char *) data), ing);
        }
        if (r == 0 && left && ret_used)
                *ret_used = (size_t) (p - (const char *) data);
        if (r == 0 && ret_left)
                *ret_left = left;
        free(f.scratch);
        free(f.joined);
        ingest_entry_free(&f.e);
        return r;
}

int import_ftrace_parse(struct ingest *ing, const struct te_catalog *cat,
                        struct te_patterns *patterns, const char *name, const uint8_t *data,
                        size_t size, int64_t skip, bool whole, struct tq_error *err)
{
        return ftrace_parse(ing, cat, patterns, name, data, size, skip, whole, NULL, NULL, NULL,
                            err);
}

/* What import_ftrace() hands import_file() for ftrace_run(). */
struct ftrace_run {
        const struct te_catalog *cat;
        struct te_patterns *patterns;
        enum fleft *left;
        struct fnotes *notes;
};

static int ftrace_run(struct ingest *ing, const void *ctx, const char *name, const uint8_t *data,
                      size_t size, int64_t skip, size_t *ret_used, struct tq_error *err)
{
        const struct ftrace_run *run = ctx;

        /* RET_USED NULL: read once, nothing left */
        return ftrace_parse(ing, run->cat, run->patterns, name, data, size, skip, !ret_used,
                            ret_used, run->left, run->notes, err);
}

int import_ftrace(sqlite3 *db, const char *path, const struct te_catalog *cat,
                  char *const *events, uint64_t *ret_added, struct tq_error *err)
{
        enum fleft left = FLEFT_NONE;
        struct fnotes notes = { .cut.more = 0 };
        struct ftrace_run run = { .cat = cat, .left = &left, .notes = &notes };
        int r = 0;

        /* QEMU's ftrace backend markers are matched as --log matches lines */
        if (events) {
                r = te_patterns_new(&run.patterns);
                if (r < 0)
                        return tq_error_set(err, r, "out of memory");
                r = te_patterns_load(run.patterns, events, err);
        }
        if (r == 0)
                r = import_file(db, "ftrace", path, import_max_line(), ftrace_run, &run,
                                ret_added, err);
        te_patterns_free(run.patterns);
        /* as the text importers' summary says it (import_file() does not,
         * for a text format) */
        if (r == 0 && left)
                tq_message("%s: an unfinished last %s is left for the next import",
                           strcmp(path, "-") == 0 ? "<stdin>" : path,
                           left == FLEFT_ENTRY ? "entry (its last line is unfinished)" : "line");
        /* imported, the rows as the markers hold them: said once */
        if (r == 0) {
                fnote_say(&notes.cut, "marker ends", "markers end");
                fnote_say(&notes.args, "argument", "arguments");
        }
        return r;
}
