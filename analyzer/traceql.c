/*
 * traceql.c - the traceql command: import trace events into SQLite, query them.
 *
 *   traceql [--db FILE] [--no-sync] [--write] [--format F] SQL|-
 *   traceql [--db FILE] import [--identifier NAME]... [--since T] [--until T]
 *           [--boot[=ID]] [--directory DIR | --file FILE... | --export FILE|-] [--follow]
 *   traceql [--db FILE] import --syslog FILE|- | --log FILE|- [--events TRACE-EVENTS]...
 *   traceql [--db FILE] [--no-sync] [--format F] events|losses
 *   traceql [--db FILE] [--format F] sources
 *   traceql [--db FILE] forget ID...
 *   traceql [--db FILE] [--no-sync] [--write] leaks|pairs ...   (correlate.c)
 *
 * This file only parses the command line, picks the database, and maps
 * failures to the exit codes of enum tq_exit (documented in traceql.1); the
 * work is in store.c, import_*.c and query.c.  Every error is one line on
 * stderr, "traceql: " followed by a message that names the file.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <systemd/sd-id128.h>

#include "traceql.h"

struct traceql_opts {
        const char *db;                 /* --db, or NULL for the default */
        bool no_sync, write, follow, have_format;
        bool operands;                  /* forget: the words after the subcommand are its */
        const char *sql_word;           /* the SQL when it begins with a "--" comment
                                         * (tq_option_is_sql()), else NULL */
        enum query_format format;
        char **identifiers;             /* NULL-terminated */
        size_t nidentifiers;
        char **files;
        size_t nfiles;
        const char *directory, *export_path;
        const char *syslog_path, *log_path;     /* --syslog, --log */
        char **events;                  /* --events, NULL-terminated */
        size_t nevents;
        const char *since, *until;
        const char *boot;               /* "" for the current boot */
        const char *simpletrace, *ftrace, *xentrace, *formats;
};

/* Set by the handler in the main thread, read by import_journal.c's reader
 * thread: an atomic (lock-free, so safe in a handler), not a volatile. */
static atomic_int traceql_stop;

static void traceql_on_signal(int sig)
{
        (void) sig;
        atomic_store(&traceql_stop, 1);
}

/* The options of traceql itself (leaks and pairs have theirs, correlate.c).
 * The import options come last, from OPT_IDENTIFIER on:
 * traceql_import_misplaced() refuses them with another subcommand. */
enum {
        OPT_DB = 256, OPT_NO_SYNC, OPT_WRITE, OPT_FORMAT, OPT_HELP, OPT_VERSION,
        OPT_IDENTIFIER, OPT_SINCE, OPT_UNTIL, OPT_BOOT, OPT_DIRECTORY, OPT_FILE, OPT_EXPORT,
        OPT_FOLLOW, OPT_SYSLOG, OPT_LOG, OPT_EVENTS, OPT_SIMPLETRACE, OPT_FTRACE,
        OPT_XENTRACE, OPT_FORMATS,
};

static const struct option traceql_longopts[] = {
        { "db", required_argument, NULL, OPT_DB },
        { "no-sync", no_argument, NULL, OPT_NO_SYNC },
        { "write", no_argument, NULL, OPT_WRITE },
        { "format", required_argument, NULL, OPT_FORMAT },
        { "identifier", required_argument, NULL, OPT_IDENTIFIER },
        { "since", required_argument, NULL, OPT_SINCE },
        { "until", required_argument, NULL, OPT_UNTIL },
        { "boot", optional_argument, NULL, OPT_BOOT },
        { "directory", required_argument, NULL, OPT_DIRECTORY },
        { "file", required_argument, NULL, OPT_FILE },
        { "export", required_argument, NULL, OPT_EXPORT },
        { "follow", no_argument, NULL, OPT_FOLLOW },
        { "syslog", required_argument, NULL, OPT_SYSLOG },
        { "log", required_argument, NULL, OPT_LOG },
        { "events", required_argument, NULL, OPT_EVENTS },
        { "simpletrace", required_argument, NULL, OPT_SIMPLETRACE },
        { "ftrace", required_argument, NULL, OPT_FTRACE },
        { "xentrace", required_argument, NULL, OPT_XENTRACE },
        { "formats", required_argument, NULL, OPT_FORMATS },
        { "help", no_argument, NULL, OPT_HELP },
        { "version", no_argument, NULL, OPT_VERSION },
        { 0, 0, 0, 0 },
};

/* The option of traceql_longopts that the word ARG ("--name" or
 * "--name=value") gives, as getopt_long() reads it; NULL for any other
 * word, an ambiguous abbreviation too (tq_option_find()). */
static const struct option *traceql_option(const char *arg)
{
        return tq_option_find(arg, traceql_longopts, NULL);
}

/* The option of leaks or pairs that the word ARG gives when it is none of
 * traceql's, nor an abbreviation of several of them: before leaks or pairs
 * the options are traceql's first. */
static const struct option *traceql_correlate_option(const char *arg)
{
        bool ambiguous;

        if (tq_option_find(arg, traceql_longopts, &ambiguous) || ambiguous)
                return NULL;
        return correlate_option(arg);
}

/* Does the word ARG, an option that takes a value without '=', make the
 * next word its value?  An option of traceql_longopts, else one of leaks'
 * and pairs' (traceql_correlate_option()): they may come before their
 * subcommand, and getopt_long() takes their value there as anywhere.  (Once
 * traceql_parse() has read the words before the SQL or another subcommand,
 * they are traceql's options only.) */
static bool traceql_takes_value(const char *arg)
{
        const struct option *lo = traceql_option(arg);

        if (!lo)
                lo = traceql_correlate_option(arg);
        return lo && lo->has_arg == required_argument && !strchr(arg, '=');
}

/* Is there a -h, --help or --version among ARGV[1] to ARGV[N - 1], not as
 * an option's value nor after "--"? */
static bool traceql_asks_help(char **argv, int n)
{
        for (int i = 1; i < n && strcmp(argv[i], "--") != 0; i++) {
                const struct option *lo = traceql_option(argv[i]);

                if (traceql_takes_value(argv[i]))
                        i++;
                else if (strcmp(argv[i], "-h") == 0 ||
                         (lo && (lo->val == OPT_HELP || lo->val == OPT_VERSION)))
                        return true;
        }
        return false;
}

/*
 * Is there an import option among ARGV[1] to ARGV[N - 1], not as an
 * option's value, while the subcommand WHAT is not import?  Said, once, on
 * stderr.  The one test of it: on the words before leaks or pairs, which
 * are theirs (traceql_parse() reads them only for a help there, passing
 * over leaks' and pairs' own), and on traceql's options once
 * traceql_parse() has put them first, before the SQL or the subcommand.
 * An import option is one from OPT_IDENTIFIER on.
 */
static bool traceql_import_misplaced(char **argv, int n, const char *what)
{
        if (strcmp(what, "import") == 0)
                return false;
        for (int i = 1; i < n; i++) {
                const struct option *lo = traceql_option(argv[i]);

                if (lo && lo->val >= OPT_IDENTIFIER) {
                        fputs("traceql: import options given without 'import'\n", stderr);
                        return true;
                }
                if (traceql_takes_value(argv[i]))
                        i++;
        }
        return false;
}

static void traceql_usage(FILE *f)
{
        fputs("usage: traceql [--db FILE] [--no-sync] [--write]\n"
              "               [--format table|csv|json|jsonl] SQL|-\n"
              "       traceql [--db FILE] import [--identifier NAME]... [--since TIME]\n"
              "               [--until TIME] [--boot[=ID]]\n"
              "               [--directory DIR | --file FILE... | --export FILE|-] [--follow]\n"
              "       traceql [--db FILE] import --syslog FILE|- | --log FILE|-\n"
              "               [--events TRACE-EVENTS|-]...\n"
              "       traceql [--db FILE] import --simpletrace FILE|-\n"
              "               --events TRACE-EVENTS|-...\n"
              "       traceql [--db FILE] import --ftrace FILE|- [--events TRACE-EVENTS|-]...\n"
              "       traceql [--db FILE] import --xentrace FILE|- [--formats FILE|-]\n"
              "       traceql [--db FILE] [--no-sync] [--format F] events|losses\n"
              "       traceql [--db FILE] [--format F] sources\n"
              "       traceql [--db FILE] forget ID...\n"
              "       traceql [--db FILE] [--no-sync] [--write] leaks\n"
              "               --alloc EVENT[:FIELD][,...] --free EVENT[:FIELD][,...]\n"
              "               [--size FIELD] [--format table|csv|json|jsonl] [--sql SQL]\n"
              "       traceql [--db FILE] [--no-sync] [--write] pairs --begin EVENT[:FIELD]\n"
              "               --end EVENT[:FIELD] [--by FIELD] [--histogram]\n"
              "               [--format table|csv|json|jsonl] [--sql SQL]\n"
              "       traceql ctl PID list [PATTERN] | enable|disable PATTERN | flush | stats |\n"
              "               outputs [LIST]\n"
              "       traceql -h | --help | --version\n"
              "Import trace events from journald into SQLite and query them with SQL.\n"
              "The database is $TRACEQL_DB, else $XDG_CACHE_HOME/traceql/traceql.db, else\n"
              "~/.cache/traceql/traceql.db.\n"
              "See traceql(1).\n", f);
}

static _Noreturn void traceql_nomem(void)
{
        fputs("traceql: out of memory\n", stderr);
        exit(TQ_EXIT_NOMEM);
}

/* Say why R failed and return the exit status: EXIT_CODE, or for no memory
 * TQ_EXIT_NOMEM.  It returns, that too, so that the caller closes the
 * database (and removes one it made: store_close()) as for any failure. */
static int traceql_fail(int exit_code, int r, const struct tq_error *err)
{
        if (r == -ENOMEM) {
                fputs("traceql: out of memory\n", stderr);
                return TQ_EXIT_NOMEM;
        }
        fprintf(stderr, "traceql: %s\n", err->msg);
        return exit_code;
}

static char **traceql_push(char **v, size_t *n, char *s)
{
        v = realloc(v, (*n + 2) * sizeof(*v));
        if (!v)
                traceql_nomem();
        v[(*n)++] = s;
        v[*n] = NULL;
        return v;
}

static int traceql_strcmp(const void *a, const void *b)
{
        return strcmp(*(char *const *) a, *(char *const *) b);
}

/* Sort the identifiers of O and drop the repeated ones: "--identifier y
 * --identifier x", "x x y" and "x y" are one filter, "x,y", so one source
 * with one position, not three that walk the same entries each (and that
 * every query's sync replays).  A source stored with another order keeps
 * its filter, replayed as it is. */
static void traceql_identifiers_normalize(struct traceql_opts *o)
{
        size_t i, n = 0;

        if (!o->identifiers)
                return;
        qsort(o->identifiers, o->nidentifiers, sizeof(*o->identifiers), traceql_strcmp);
        for (i = 0; i < o->nidentifiers; i++)
                if (n == 0 || strcmp(o->identifiers[n - 1], o->identifiers[i]) != 0)
                        o->identifiers[n++] = o->identifiers[i];
        o->identifiers[n] = NULL;
        o->nidentifiers = n;
}

/* The last second of 9999-12-31 UTC: a later --since or --until is a typo. */
#define TRACEQL_MAX_SECONDS 253402300799ULL

/* Do A and B show the same time of day? */
static bool traceql_same_clock(const struct tm *a, const struct tm *b)
{
        return a->tm_hour == b->tm_hour && a->tm_min == b->tm_min && a->tm_sec == b->tm_sec;
}

/* Parse a time as journalctl does: "YYYY-MM-DD[ HH:MM[:SS]]" (local time, 'T'
 * also accepted; a day the month does not have is refused, -EINVAL; a time
 * a daylight saving gap skips is refused, -ENOENT; one the clocks go back
 * over is its first occurrence), "@SECONDS[.FRACTION]" (microseconds; finer
 * digits are cut off), "now".  Returns microseconds. */
static int traceql_parse_time(const char *s, uint64_t *ret_us)
{
        static const char *const fmts[] = {
                "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M",
                "%Y-%m-%d",
        };
        struct tm tm, asked;
        size_t i;

        if (strcmp(s, "now") == 0) {
                struct timespec ts;

                clock_gettime(CLOCK_REALTIME, &ts);
                *ret_us = (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
                return 0;
        }
        if (s[0] == '@') {
                /* digits, not strtod(): exact microseconds, no inf or nan, and
                 * no seconds whose microseconds overflow */
                uint64_t sec = 0, us = 0;
                const char *p = s + 1;
                int n;

                for (n = 0; *p >= '0' && *p <= '9'; p++, n++) {
                        if (sec > TRACEQL_MAX_SECONDS / 10)
                                return -ERANGE;
                        sec = sec * 10 + (uint64_t) (*p - '0');
                }
                if (*p == '.') {
                        p++;
                        for (i = 0; p[i] >= '0' && p[i] <= '9'; i++)
                                if (i < 6)
                                        us = us * 10 + (uint64_t) (p[i] - '0');
                        if (i == 0 && n == 0)
                                return -EINVAL;
                        for (; i < 6; i++)
                                us *= 10;
                        while (*p >= '0' && *p <= '9')
                                p++;    /* below a microsecond: cut off */
                } else if (n == 0)
                        return -EINVAL;
                if (*p || sec > TRACEQL_MAX_SECONDS)
                        return *p ? -EINVAL : -ERANGE;
                *ret_us = sec * 1000000 + us;
                return 0;
        }
        for (i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
                const char *end;

                memset(&tm, 0, sizeof(tm));
                end = strptime(s, fmts[i], &tm);
                if (end && *end == '\0') {
                        struct tm other;
                        time_t t, t2;

                        tm.tm_isdst = -1;
                        asked = tm;
                        t = mktime(&tm);
                        /* mktime() moves 2025-02-30 to March 2: refuse it */
                        if (t < 0 || tm.tm_mday != asked.tm_mday || tm.tm_mon != asked.tm_mon ||
                            tm.tm_year != asked.tm_year)
                                return -EINVAL;
                        /* ... and 02:30 in a daylight saving gap to 03:30;
                         * strptime() takes a second 60 (a leap second, which
                         * the clock does not count): invalid, not a gap */
                        if (asked.tm_sec > 59)
                                return -EINVAL;
                        if (!traceql_same_clock(&tm, &asked))
                                return -ENOENT;
                        /* 02:30 when the clocks go back is there twice: the
                         * first, the earlier instant, whatever mktime() chose */
                        other = asked;
                        other.tm_isdst = !tm.tm_isdst;
                        t2 = mktime(&other);
                        if (t2 >= 0 && t2 < t && other.tm_isdst == !tm.tm_isdst &&
                            traceql_same_clock(&other, &asked))
                                t = t2;
                        *ret_us = (uint64_t) t * 1000000;
                        return 0;
                }
        }
        return -EINVAL;
}

/* The edit distance of A and B (Levenshtein), at most 3 counted: enough to
 * tell a word one or two typing mistakes away. */
static unsigned traceql_distance(const char *a, const char *b)
{
        size_t la = strlen(a), lb = strlen(b), i, j;
        unsigned d[16], prev, cur;

        if (la >= sizeof(d) / sizeof(d[0]) || lb >= sizeof(d) / sizeof(d[0]))
                return 3;
        for (j = 0; j <= lb; j++)
                d[j] = (unsigned) j;
        for (i = 1; i <= la; i++) {
                prev = d[0];
                d[0] = (unsigned) i;
                for (j = 1; j <= lb; j++) {
                        cur = d[j];
                        d[j] = prev + (a[i - 1] != b[j - 1]);
                        if (d[j - 1] + 1 < d[j])
                                d[j] = d[j - 1] + 1;
                        if (cur + 1 < d[j])
                                d[j] = cur + 1;
                        prev = cur;
                }
        }
        return d[lb] < 3 ? d[lb] : 3;
}

/*
 * Is WHAT, given where the SQL or a subcommand goes, a subcommand mistyped?
 * One word, a letter or two from a subcommand's name, is no SQL (a lone word
 * is a syntax error but BEGIN, END and a few others): said at once, as a
 * usage error, before the sync a query starts with, which a large journal
 * makes long, and before the words after it are looked at.  "traceql --
 * WORD" always runs WORD as SQL.
 */
static bool traceql_mistyped(const char *what)
{
        static const char *const subs[] = { "import", "events", "losses", "sources", "forget",
                                            "leaks", "pairs", "ctl" };
        const char *best = NULL;
        unsigned d, bd = 3;
        size_t i;

        for (i = 0; what[i]; i++)
                if (!isalpha((unsigned char) what[i]))
                        return false;
        if (i < 3)
                return false;
        for (i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
                d = traceql_distance(what, subs[i]);
                if (d < bd) {
                        bd = d;
                        best = subs[i];
                }
        }
        if (!best || bd == 0 || bd > (strlen(best) > 4 ? 2u : 1u))
                return false;   /* a subcommand, or no name near */
        fprintf(stderr, "traceql: unknown subcommand '%s'; did you mean '%s'? (as SQL: "
                "traceql -- %s)\n", what, best, what);
        return true;
}

/*
 * Say why the option ARG, one of leaks' and pairs' that is none of
 * traceql's, is refused in ARGV: neither subcommand is there, or the value
 * of such an option took it ("--size leaks": getopt_long() takes the word
 * after an option that needs a value for that value, whatever it is).
 */
static void traceql_correlate_misplaced(int argc, char **argv, const char *arg)
{
        for (int i = 1; i + 1 < argc && strcmp(argv[i], "--") != 0; i++) {
                if (!traceql_takes_value(argv[i]))
                        continue;
                if (traceql_correlate_option(argv[i]) &&
                    (strcmp(argv[i + 1], "leaks") == 0 || strcmp(argv[i + 1], "pairs") == 0)) {
                        tq_message("option '%s' took '%s' for its value: give it one",
                                   argv[i], argv[i + 1]);
                        return;
                }
                i++;
        }
        tq_message("option '%.*s' is for leaks or pairs, and the command is neither",
                   (int) strcspn(arg, "="), arg);
}

/* --boot without an id: the current boot, told from --boot= */
static const char traceql_boot_current[] = "";

/* An import option whose value C names a file or directory, given ARG
 * empty: said, as an empty --db is (store_db_arg()), rather than opening
 * "" ("traceql: : No such file or directory", exit 4).  -EINVAL, or 0. */
static int traceql_name_arg(int c, const char *arg)
{
        const struct option *lo;

        if (*arg || (c != OPT_DIRECTORY && c != OPT_FILE && c != OPT_EXPORT && c != OPT_SYSLOG &&
                     c != OPT_LOG && c != OPT_EVENTS && c != OPT_SIMPLETRACE && c != OPT_FTRACE &&
                     c != OPT_XENTRACE && c != OPT_FORMATS))
                return 0;
        for (lo = traceql_longopts; lo->name && lo->val != c; lo++)
                ;
        tq_message("--%s: an empty %s name", lo->name ? lo->name : "?",
                   c == OPT_DIRECTORY ? "directory" : "file");
        return -EINVAL;
}

/* Put SQL_WORD, the SQL that getopt_long() took for an option and put
 * among them in ARGV, last of them at optind - 1, the SQL's index
 * *RET_FIRST: the options come before it (traceql_import_misplaced() reads
 * them there).  -EINVAL, said, when a word not an option is left after
 * them, before ARGC: a second SQL. */
static int traceql_parse_sql_word(int argc, char **argv, const char *sql_word, int *ret_first)
{
        int k;

        for (k = 1; k < optind && argv[k] != sql_word; k++)
                ;
        if (k < optind) {
                memmove(argv + k, argv + k + 1, (size_t) (optind - 1 - k) * sizeof(*argv));
                argv[optind - 1] = (char *) sql_word;
                *ret_first = optind - 1;
        }
        if (optind < argc) {
                tq_message("unexpected argument '%s' (quote the SQL as one argument)",
                           argv[optind]);
                return -EINVAL;
        }
        return 0;
}

/* Read traceql's options in ARGV[1] to ARGV[ARGC - 1], and the SQL or the
 * subcommand (*RET_FIRST, its index; with O->operands, the words after it
 * are the subcommand's, from *RET_FIRST + 1 to the end once getopt_long()
 * put them there).  BEFORE_CORRELATE: ARGV ends before leaks or pairs, whose
 * own options there (and their values) are passed over, left to them.
 * -EINVAL, said, on a bad command line. */
static int traceql_parse(int argc, char **argv, struct traceql_opts *o, bool before_correlate,
                         int *ret_first)
{
        const struct option *lo;
        int c;

        opterr = 0;
        /* long options only, but -h: as tracegen and ctl take it */
        while ((c = getopt_long(argc, argv, "h", traceql_longopts, NULL)) != -1) {
                if (optarg && traceql_name_arg(c, optarg) < 0)
                        return -EINVAL;
                switch (c) {
                case OPT_DB:
                        if (store_db_arg(optarg) < 0)
                                return -EINVAL;
                        o->db = optarg;
                        break;
                case OPT_NO_SYNC: o->no_sync = true; break;
                case OPT_WRITE: o->write = true; break;
                case OPT_FORMAT:
                        if (query_format_parse(optarg, &o->format) < 0) {
                                tq_message("unknown format '%s' (table, csv, json, jsonl)",
                                           optarg);
                                return -EINVAL;
                        }
                        o->have_format = true;
                        break;
                case OPT_IDENTIFIER:
                        o->identifiers = traceql_push(o->identifiers, &o->nidentifiers, optarg);
                        break;
                case OPT_SINCE: o->since = optarg; break;
                case OPT_UNTIL: o->until = optarg; break;
                case OPT_BOOT: o->boot = optarg ? optarg : traceql_boot_current; break;
                case OPT_DIRECTORY: o->directory = optarg; break;
                case OPT_FILE: o->files = traceql_push(o->files, &o->nfiles, optarg); break;
                case OPT_EXPORT: o->export_path = optarg; break;
                case OPT_FOLLOW: o->follow = true; break;
                case OPT_SYSLOG: o->syslog_path = optarg; break;
                case OPT_LOG: o->log_path = optarg; break;
                case OPT_EVENTS: o->events = traceql_push(o->events, &o->nevents, optarg); break;
                case OPT_SIMPLETRACE: o->simpletrace = optarg; break;
                case OPT_FTRACE: o->ftrace = optarg; break;
                case OPT_XENTRACE: o->xentrace = optarg; break;
                case OPT_FORMATS: o->formats = optarg; break;
                case 'h':
                case OPT_HELP:
                        traceql_usage(stdout);
                        exit(tq_stdout_done());
                case OPT_VERSION:
                        printf("traceql %s\n", TJ_VERSION_STRING);
                        exit(tq_stdout_done());
                default:
                        /* SQL that begins with a "--" comment is no option:
                         * put in its place below, or a second SQL */
                        if (argv[optind - 1] == o->sql_word)
                                break;
                        if (tq_option_is_sql(argv[optind - 1])) {
                                tq_message("unexpected argument '%s' (quote the SQL as one "
                                           "argument)", argv[optind - 1]);
                                return -EINVAL;
                        }
                        /* optopt 0: an unknown long option (or ambiguous) */
                        lo = optopt ? NULL : traceql_correlate_option(argv[optind - 1]);
                        if (lo && before_correlate) {
                                if (traceql_takes_value(argv[optind - 1]) && optind < argc)
                                        optind++;       /* its value */
                                break;
                        }
                        if (lo)
                                traceql_correlate_misplaced(argc, argv, argv[optind - 1]);
                        else
                                tq_option_error(argv, traceql_longopts);
                        return -EINVAL;
                }
        }
        /* getopt_long permuted the arguments: what is left is the subcommand
         * or the SQL, which may thus come anywhere ("--" ends the options).
         * SQL that begins with "--" it took for an option and put among
         * them: it goes last of them, where the SQL is. */
        if (o->sql_word)
                return traceql_parse_sql_word(argc, argv, o->sql_word, ret_first);
        if (optind < argc)
                *ret_first = optind++;
        if (optind < argc && !o->operands) {
                tq_message("unexpected argument '%s' (quote the SQL as one argument)",
                           argv[optind]);
                return -EINVAL;
        }
        return 0;
}

/* The SQL on standard input; NULL, said, with *RET_STATUS the exit status,
 * when it holds a NUL byte (the SQL would end there, and the statements after
 * it would not run, unsaid) or cannot be read (a directory, a closed
 * descriptor: the SQL would be empty, and nothing run, unsaid). */
static char *traceql_read_stdin(int *ret_status)
{
        size_t len = 0, size = 4096, n;
        char *buf = malloc(size), *nul;

        if (!buf)
                traceql_nomem();
        errno = 0;
        while ((n = fread(buf + len, 1, size - len - 1, stdin)) > 0) {
                len += n;
                if (size - len < 2) {
                        buf = realloc(buf, size *= 2);
                        if (!buf)
                                traceql_nomem();
                }
        }
        if (ferror(stdin)) {
                fprintf(stderr, "traceql: <stdin>: %s\n", strerror(errno ? errno : EIO));
                free(buf);
                *ret_status = TQ_EXIT_INPUT;
                return NULL;
        }
        buf[len] = '\0';
        nul = memchr(buf, '\0', len);
        if (nul) {
                fprintf(stderr, "traceql: <stdin>: a NUL byte in the SQL (byte %zu)\n",
                        (size_t) (nul - buf) + 1);
                free(buf);
                *ret_status = TQ_EXIT_SQL;
                return NULL;
        }
        return buf;
}

/* The current boot id as 32 hex digits, for a bare --boot. */
static int traceql_boot(const char *arg, char *buf)
{
        sd_id128_t id;
        int r;

        if (*arg) {
                r = sd_id128_from_string(arg, &id);
                if (r < 0)
                        return r;
        } else {
                r = sd_id128_get_boot(&id);
                if (r < 0)
                        return r;
        }
        sd_id128_to_string(id, buf);
        return 0;
}

/* "--events -" reads standard input: once, and not when it is the trace.
 * Returns an exit status. */
static int traceql_events_stdin(const struct traceql_opts *o)
{
        const char *const trace[][2] = {
                { "--syslog", o->syslog_path }, { "--log", o->log_path },
                { "--simpletrace", o->simpletrace }, { "--ftrace", o->ftrace },
        };
        size_t i, n = 0;

        for (i = 0; i < o->nevents; i++)
                n += strcmp(o->events[i], "-") == 0;
        if (n > 1) {
                fputs("traceql: --events -: standard input given twice\n", stderr);
                return TQ_EXIT_USAGE;
        }
        for (i = 0; n && i < sizeof(trace) / sizeof(trace[0]); i++)
                if (trace[i][1] && strcmp(trace[i][1], "-") == 0) {
                        fprintf(stderr, "traceql: --events -: standard input is the trace "
                                "(%s -)\n", trace[i][0]);
                        return TQ_EXIT_USAGE;
                }
        return TQ_EXIT_OK;
}

/* import --syslog / --log: a text file, with a summary line on stderr that
 * counts the lines whose event was not recognised. */
static int traceql_import_text(const char *path, struct traceql_opts *o)
{
        bool is_syslog = o->syslog_path != NULL;
        const char *file = is_syslog ? o->syslog_path : o->log_path;
        struct import_text_stats st = { 0 };
        struct tq_error err = { "" }, name;
        sqlite3 *db = NULL;
        bool created = false;
        int r, ret = TQ_EXIT_OK;

        if (o->identifiers || o->since || o->until || o->boot || o->follow || o->files ||
            o->directory || o->export_path || (o->syslog_path && o->log_path) ||
            o->simpletrace || o->ftrace || o->xentrace || o->formats) {
                fprintf(stderr, "traceql: --%s takes no other source, filter or --follow\n",
                        is_syslog ? "syslog" : "log");
                return TQ_EXIT_USAGE;
        }
        ret = traceql_events_stdin(o);
        if (ret != TQ_EXIT_OK)
                return ret;
        r = store_open_created(path, STORE_WRITE | STORE_IMPORT, &db, &created, &err);
        if (r < 0) {
                ret = traceql_fail(TQ_EXIT_DB, r, &err);
                goto out;
        }
        r = import_text_file(db, is_syslog ? &import_syslog_format : &import_log_format, file,
                             o->events, &st, &err);
        if (r < 0) {
                ret = traceql_fail(TQ_EXIT_INPUT, r, &err);
                goto out;
        }
        tq_error_set(&name, 0, "%s", strcmp(file, "-") == 0 ? "<stdin>" : file);
        fprintf(stderr, "traceql: %s: %llu line%s, %llu new event%s, %llu of them without a "
                "known event", name.msg,
                (unsigned long long) st.lines, st.lines == 1 ? "" : "s",
                (unsigned long long) st.added, st.added == 1 ? "" : "s",
                (unsigned long long) st.unmatched);
        if (st.cut)
                fprintf(stderr, ", %llu cut short inside STRUCTURED-DATA",
                        (unsigned long long) st.cut);
        fprintf(stderr, "%s\n", !st.incomplete ? "" : st.incomplete_event ?
                "; an unfinished last event (its format goes on over more lines) is left for "
                "the next import" : "; an unfinished last line is left for the next import");
out:
        store_close(db, created && ret != TQ_EXIT_OK);  /* a database it made goes */
        return ret;
}

/* import --simpletrace / --ftrace / --xentrace: a trace file in one transaction. */
static int traceql_import_file(sqlite3 *db, const struct traceql_opts *o, uint64_t *ret_added,
                               struct tq_error *err)
{
        struct te_catalog *cat = NULL;
        int r;

        r = te_catalog_new(&cat);
        if (r < 0)
                return tq_error_set(err, r, "out of memory");
        for (size_t i = 0; r == 0 && i < o->nevents; i++)
                r = te_catalog_add_path(cat, o->events[i], err);
        if (r == 0 && o->simpletrace)
                r = import_simpletrace(db, o->simpletrace, cat, ret_added, err);
        else if (r == 0 && o->ftrace)
                r = import_ftrace(db, o->ftrace, cat, o->events, ret_added, err);
        else if (r == 0 && o->xentrace)
                r = import_xentrace(db, o->xentrace, o->formats, ret_added, err);
        te_catalog_free(cat);
        return r;
}

static int traceql_import(const char *path, struct traceql_opts *o)
{
        struct import_journal_opts jo = { 0 };
        struct tq_error err = { "" };
        char bootbuf[SD_ID128_STRING_MAX];
        sqlite3 *db = NULL;
        uint64_t added = 0;
        bool created = false;
        int r, ret = TQ_EXIT_OK;
        size_t i;

        if (o->syslog_path || o->log_path)
                return traceql_import_text(path, o);
        if ((o->export_path != NULL) + (o->directory != NULL) + (o->files != NULL) > 1) {
                fputs("traceql: --export, --directory and --file exclude each other\n", stderr);
                return TQ_EXIT_USAGE;
        }
        for (i = 0; i < 2; i++) {
                const char *t = i == 0 ? o->since : o->until;

                r = t ? traceql_parse_time(t, i == 0 ? &jo.since_us : &jo.until_us) : 0;
                if (r == -ENOENT) {
                        tq_message("%s: '%s' does not exist in the local time zone (a daylight "
                                   "saving gap)", i == 0 ? "--since" : "--until", t);
                        return TQ_EXIT_USAGE;
                }
                if (r < 0) {
                        tq_message("invalid time '%s' (YYYY-MM-DD [HH:MM[:SS]], @SECONDS up "
                                   "to @%llu, now)", t, (unsigned long long) TRACEQL_MAX_SECONDS);
                        return TQ_EXIT_USAGE;
                }
        }
        if (o->since && o->until && jo.since_us > jo.until_us) {
                /* swapped, most likely: an empty window would import nothing, exit 0 */
                tq_message("--since '%s' is after --until '%s'", o->since, o->until);
                return TQ_EXIT_USAGE;
        }
        jo.has_until = o->until != NULL;
        /* --boot= names no boot, not the current one as --boot alone does */
        if (o->boot && o->boot != traceql_boot_current && !*o->boot) {
                tq_message("invalid boot id '' (32 hex digits, as journalctl --list-boots "
                           "shows)");
                return TQ_EXIT_USAGE;
        }
        if (o->boot && (r = traceql_boot(o->boot, bootbuf)) < 0) {
                if (*o->boot)
                        tq_message("invalid boot id '%s' (32 hex digits, as journalctl "
                                   "--list-boots shows)", o->boot);
                else
                        tq_message("--boot: cannot get the current boot id: %s", strerror(-r));
                return *o->boot ? TQ_EXIT_USAGE : TQ_EXIT_INPUT;
        }
        if ((o->export_path != NULL) + (o->directory != NULL) + (o->files != NULL) +
            (o->simpletrace != NULL) + (o->ftrace != NULL) + (o->xentrace != NULL) > 1) {
                fputs("traceql: import takes one source (--export, --directory, --file, "
                      "--simpletrace, --ftrace or --xentrace)\n", stderr);
                return TQ_EXIT_USAGE;
        }
        for (i = 0; i < o->nidentifiers; i++) {
                if (strchr(o->identifiers[i], ',')) {
                        /* the source's filter lists them with commas */
                        tq_message("--identifier '%s': an identifier with a comma cannot be "
                                   "imported", o->identifiers[i]);
                        return TQ_EXIT_USAGE;
                }
                if (strncmp(o->identifiers[i], "forgotten ", 10) == 0 &&
                    o->identifiers[i][10] &&
                    strspn(o->identifiers[i] + 10, "0123456789") == strlen(o->identifiers[i] + 10)) {
                        /* the filter a forgotten source gets: 'forgotten ID' */
                        tq_message("--identifier '%s': an identifier 'forgotten N' cannot be "
                                   "imported (it is how a forgotten source is marked)",
                                   o->identifiers[i]);
                        return TQ_EXIT_USAGE;
                }
                if (strchr(o->identifiers[i], '\n')) {
                        /* and a line of its own says the boot: 'boot=ID' */
                        tq_message("--identifier '%s': an identifier with a newline cannot be "
                                   "imported", o->identifiers[i]);
                        return TQ_EXIT_USAGE;
                }
                if (!*o->identifiers[i]) {
                        /* alone, its filter would be '', the unfiltered
                         * source's, whose position it would take */
                        fputs("traceql: --identifier '': an empty identifier cannot be "
                              "imported\n", stderr);
                        return TQ_EXIT_USAGE;
                }
        }
        traceql_identifiers_normalize(o);
        for (i = 0; i < o->nfiles; i++) {
                char real[PATH_MAX];

                if (strchr(o->files[i], '\n') ||
                    (realpath(o->files[i], real) && strchr(real, '\n'))) {
                        /* the source's location lists them one a line */
                        tq_message("--file '%s': a file whose path holds a newline cannot be "
                                   "imported", o->files[i]);
                        return TQ_EXIT_USAGE;
                }
        }
        if (o->simpletrace && !o->events) {
                fputs("traceql: --simpletrace needs --events TRACE-EVENTS\n", stderr);
                return TQ_EXIT_USAGE;
        }
        if ((o->events && !o->simpletrace && !o->ftrace) || (o->formats && !o->xentrace)) {
                fprintf(stderr, "traceql: %s\n", o->formats && !o->xentrace
                        ? "--formats goes with --xentrace"
                        : "--events goes with --syslog, --log, --simpletrace or --ftrace");
                return TQ_EXIT_USAGE;
        }
        if (o->formats && strcmp(o->formats, "-") == 0 && strcmp(o->xentrace, "-") == 0) {
                fputs("traceql: --formats -: standard input is the trace (--xentrace -)\n",
                      stderr);
                return TQ_EXIT_USAGE;
        }
        ret = traceql_events_stdin(o);
        if (ret != TQ_EXIT_OK)
                return ret;
        if ((o->simpletrace || o->ftrace || o->xentrace) &&
            (o->identifiers || o->since || o->until || o->boot || o->follow)) {
                fputs("traceql: a trace file import takes no filter and no --follow\n", stderr);
                return TQ_EXIT_USAGE;
        }
        if (o->export_path && (o->identifiers || o->since || o->until || o->boot || o->follow)) {
                fputs("traceql: --export takes no filter and no --follow\n", stderr);
                return TQ_EXIT_USAGE;
        }
        r = store_open_created(path, STORE_WRITE | STORE_IMPORT, &db, &created, &err);
        if (r < 0) {
                ret = traceql_fail(TQ_EXIT_DB, r, &err);
                goto out;
        }
        if (o->export_path)
                r = import_export(db, o->export_path, &added, &err);
        else if (o->simpletrace || o->ftrace || o->xentrace)
                r = traceql_import_file(db, o, &added, &err);
        else {
                jo.directory = o->directory;
                jo.files = o->files;
                jo.identifiers = o->identifiers;
                jo.boot = o->boot ? bootbuf : NULL;
                jo.follow = o->follow;
                if (o->follow)
                        tq_progress_enable(false);      /* it never ends */
                jo.stop = &traceql_stop;
                if (o->follow) {
                        struct sigaction sa = { .sa_handler = traceql_on_signal }, old;

                        sigaction(SIGINT, &sa, NULL);
                        sigaction(SIGTERM, &sa, NULL);
                        /* its terminal closed; unless nohup said to go on */
                        if (sigaction(SIGHUP, NULL, &old) == 0 && old.sa_handler != SIG_IGN)
                                sigaction(SIGHUP, &sa, NULL);
                        store_stop_waiting(&traceql_stop);
                }
                r = import_journal(db, &jo, &added, &err);
        }
        if (r < 0) {
                ret = traceql_fail(r == -ESTALE ? TQ_EXIT_DB : TQ_EXIT_INPUT, r, &err);
                goto out;
        }
        if (isatty(STDERR_FILENO))
                tq_message("%llu new events in %s", (unsigned long long) added, path);
out:
        store_close(db, created && ret != TQ_EXIT_OK);  /* a database it made goes */
        return ret;
}

/* Bring the database up to date from the journal sources it was built from.
 * When it made the database and RET_MADE is not NULL, *RET_MADE is its
 * connection, kept open so that the caller can remove the database again
 * with store_close(*RET_MADE, true) (the file it made, still: the
 * connection holds it); else NULL. */
static int traceql_sync(const char *path, sqlite3 **ret_made)
{
        struct tq_error err = { "" };
        sqlite3 *db = NULL;
        bool any, created = false;
        int r, ret = TQ_EXIT_OK;

        r = store_open_created(path, STORE_WRITE, &db, &created, &err);
        if (r < 0) {
                ret = traceql_fail(TQ_EXIT_DB, r, &err);
                goto out;
        }
        r = import_journal_sync(db, &any, &err);
        if (r < 0)
                ret = traceql_fail(r == -ESTALE ? TQ_EXIT_DB : TQ_EXIT_INPUT, r, &err);
out:
        if (ret_made)
                *ret_made = NULL;
        if (ret_made && created && ret == TQ_EXIT_OK)
                *ret_made = db;
        else
                store_close(db, created && ret != TQ_EXIT_OK);  /* a database it made goes */
        return ret;
}

static int traceql_query(const char *path, const char *sql, const struct traceql_opts *o)
{
        struct tq_error err = { "" }, unwritable = { "" };
        enum query_format format;
        sqlite3 *db = NULL, *made = NULL;
        int r, ret = TQ_EXIT_OK;

        /* a database this user may only read is queried as it is (said
         * once it opens); --write asks to write it, and the sync fails.  A
         * query that fails removes the database its sync made, as a failed
         * import does; not with --write, whose statements before the one
         * that failed are the user's, kept. */
        if (!o->no_sync && (o->write || store_writable(path, &unwritable) == 0)) {
                ret = traceql_sync(path, o->write ? NULL : &made);
                if (ret != TQ_EXIT_OK)
                        return ret;
        }
        format = o->have_format ? o->format : isatty(STDOUT_FILENO) ? QUERY_TABLE : QUERY_CSV;
        r = store_open(path, o->write ? STORE_WRITE : STORE_READONLY, &db, &err);
        if (r < 0) {
                ret = traceql_fail(TQ_EXIT_DB, r, &err);
                goto out;
        }
        if (unwritable.msg[0])
                fprintf(stderr, "traceql: %s: not synced, the query reads the database as it "
                        "is\n", unwritable.msg);
        r = query_run(db, sql, format, stdout, &err);
        if (r < 0 && ferror(stdout))
                ret = traceql_fail(TQ_EXIT_OUTPUT, r, &err);
        else if (r == -ENOSPC || r == -ENXIO)
                ret = traceql_fail(TQ_EXIT_INPUT, r, &err);
        else if (r < 0)
                ret = traceql_fail(r == -EIO || r == -EROFS ? TQ_EXIT_SQL : TQ_EXIT_DB, r, &err);
out:
        sqlite3_close_v2(db);
        store_close(made, ret != TQ_EXIT_OK);   /* after the query's: no lock of ours left */
        return ret;
}

/* traceql sources: the sources table as sql/sources.sql shows it; never
 * synced, so that it lists a source whose journal is gone, which a query's
 * sync fails on. */
static int traceql_sources(const char *path, const struct traceql_opts *o)
{
        struct traceql_opts so = *o;

        so.no_sync = true;
        return traceql_query(path, tq_sql_get("sources"), &so);
}

/* The source id WORD (digits, 1 to INT64_MAX) in *RET_ID; -EINVAL for any
 * other word. */
static int traceql_source_id(const char *word, int64_t *ret_id)
{
        int64_t id = 0;
        const char *p;

        for (p = word; *p >= '0' && *p <= '9'; p++) {
                if (id > (INT64_MAX - (*p - '0')) / 10)
                        return -EINVAL;
                id = id * 10 + (*p - '0');
        }
        if (p == word || *p)
                return -EINVAL;
        *ret_id = id;
        return 0;
}

/* traceql forget ID...: detach the sources WORDS[0..N) (store_forget()),
 * in one transaction: a word that is no number is a usage error, an id with
 * no source fails it whole (exit 4, as leaks' unknown event), nothing
 * changed.  A source forgotten already is said, not an error. */
static int traceql_forget(const char *path, char **words, size_t n)
{
        struct tq_error err = { "" };
        int64_t *ids = NULL;
        bool *already = NULL;
        size_t i, j, m = 0;
        sqlite3 *db = NULL;
        int r, ret = TQ_EXIT_OK;

        if (n == 0) {
                fputs("traceql: forget: no source id given (traceql forget ID..., with the "
                      "ids 'traceql sources' lists)\n", stderr);
                return TQ_EXIT_USAGE;
        }
        ids = calloc(n, sizeof(*ids));
        already = calloc(n, sizeof(*already));
        if (!ids || !already)
                traceql_nomem();
        for (i = 0; i < n; i++) {
                if (traceql_source_id(words[i], &ids[m]) < 0) {
                        tq_message("forget: '%s' is not a source id (a number 'traceql sources' "
                                   "lists)", words[i]);
                        ret = TQ_EXIT_USAGE;
                        goto out;
                }
                for (j = 0; j < m && ids[j] != ids[m]; j++)
                        ;
                m += j == m;    /* an id given twice is forgotten once */
        }
        /* forget writes a database it finds, and makes none */
        if (access(path, F_OK) < 0) {
                tq_message("%s: %s", path, strerror(errno));
                ret = TQ_EXIT_DB;
                goto out;
        }
        r = store_open(path, STORE_WRITE | STORE_IMPORT, &db, &err);
        if (r < 0) {
                ret = traceql_fail(TQ_EXIT_DB, r, &err);
                goto out;
        }
        r = store_forget(db, ids, m, already, &err);
        if (r < 0) {
                ret = traceql_fail(r == -ENOENT || r == -ENOSPC || r == -ENXIO ?
                                   TQ_EXIT_INPUT : TQ_EXIT_DB, r, &err);
                goto out;
        }
        for (i = 0; i < m; i++)
                if (already[i])
                        tq_message("%s: source %" PRId64 " is forgotten already",
                                   store_name(db), ids[i]);
out:
        sqlite3_close_v2(db);
        free(ids);
        free(already);
        return ret;
}

/* The option of O that the subcommand SUB (CTL: ctl) has no use for, NULL
 * when none: import, ctl and forget neither sync nor query; events, losses
 * and sources only read, and sources never syncs. */
static const char *traceql_unused_option(const char *sub, bool ctl, const struct traceql_opts *o)
{
        bool writes = ctl || strcmp(sub, "import") == 0 || strcmp(sub, "forget") == 0;
        bool reads = strcmp(sub, "events") == 0 || strcmp(sub, "losses") == 0 ||
                     strcmp(sub, "sources") == 0;

        if (o->no_sync && (writes || strcmp(sub, "sources") == 0))
                return "--no-sync";
        if (o->write && (writes || reads))
                return "--write";
        if (o->have_format && writes)
                return "--format";
        return NULL;
}

int main(int argc, char **argv)
{
        struct traceql_opts o = { 0 };
        struct tq_error err = { "" };
        char *path = NULL, *sql = NULL;
        const char *what, *sub, *unused;
        int first = -1, ctl = 0, r, ret;
        bool dashdash = false;

        /* No SQLite memory statistics: traceql never reads them, and keeping
         * them takes a global mutex on every allocation.  (Before any other
         * SQLite call; it fails harmlessly after one.) */
        (void) sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
        /* a long import, or a query's sync, draws its progress on a terminal */
        tq_progress_enable(isatty(STDERR_FILENO));

        /* leaks and pairs have options of their own: hand them the rest.
         * The word after an option that takes a value (not given with '=')
         * is that value, not the subcommand or the SQL, nor an option: it is
         * passed over as getopt_long() takes it ("--db --format leaks" is
         * leaks on the database "--format"); their own options may come
         * before them too ("--size FIELD leaks").  "--" ends the options and
         * the subcommands: after it comes the SQL. */
        for (int i = 1; i < argc; i++) {
                bool ambiguous;

                if (strcmp(argv[i], "--") == 0) {
                        dashdash = true;
                        break;
                }
                /* SQL that begins with a "--" comment: no option, whatever
                 * getopt_long() makes of it */
                if (tq_option_is_sql(argv[i])) {
                        o.sql_word = argv[i];
                        break;
                }
                if (traceql_takes_value(argv[i])) {
                        i++;
                        continue;
                }
                /* "--fo" before leaks is traceql's --format, --follow or
                 * --formats, not leaks' --format: traceql_parse() refuses it,
                 * in its turn among the options (after a --help before it) */
                if (!tq_option_find(argv[i], traceql_longopts, &ambiguous) && ambiguous)
                        break;
                if (strcmp(argv[i], "leaks") == 0 || strcmp(argv[i], "pairs") == 0) {
                        bool pairs = argv[i][0] == 'p';

                        /* -h, --help and --version before the subcommand are
                         * traceql's, as before ctl or import: its usage, its
                         * version (an error before them said as traceql says
                         * it); after it, leaks' and pairs' own */
                        if (traceql_asks_help(argv, i) &&
                            traceql_parse(i, argv, &o, true, &first) < 0) {
                                traceql_usage(stderr);
                                ret = TQ_EXIT_USAGE;
                                goto out;
                        }
                        if (traceql_import_misplaced(argv, i, argv[i])) {
                                ret = TQ_EXIT_USAGE;
                                goto out;
                        }
                        memmove(argv + i, argv + i + 1, (size_t) (argc - i) * sizeof(*argv));
                        ret = correlate_main(argc - 1, argv, pairs);
                        goto out;
                }
                if (strcmp(argv[i], "ctl") == 0) {
                        ctl = i;        /* ctl's words are its own; the options before it are ours */
                        break;
                }
                if (argv[i][0] != '-') {
                        if (traceql_mistyped(argv[i])) {
                                ret = TQ_EXIT_USAGE;
                                goto out;
                        }
                        o.operands = strcmp(argv[i], "forget") == 0;
                        break;          /* the SQL or another subcommand */
                }
        }
        if (traceql_parse(ctl ? ctl : argc, argv, &o, false, &first) < 0) {
                traceql_usage(stderr);
                ret = TQ_EXIT_USAGE;
                goto out;
        }
        if (ctl)
                first = ctl;
        if (first < 0) {
                fputs("traceql: no SQL and no subcommand given\n", stderr);
                traceql_usage(stderr);
                ret = TQ_EXIT_USAGE;
                goto out;
        }
        what = argv[first];
        /* after "--" the word is the SQL, whatever it is: "traceql -- leaks"
         * and "traceql -- import" run the SQL "leaks" and "import" (a syntax
         * error), so that a script that passes its SQL after "--" runs no
         * subcommand; "-" is standard input there too */
        sub = dashdash ? "" : what;
        /* getopt_long() put the options before the first other word: that
         * of the SQL or the subcommand, or ctl's */
        if (traceql_import_misplaced(argv, first, sub)) {
                ret = TQ_EXIT_USAGE;
                goto out;
        }
        /* an option the subcommand has no use for is a mistake, not a no-op
         * (ctl takes --db as it takes TRACEQL_DB: not used, not refused) */
        unused = traceql_unused_option(sub, ctl, &o);
        if (unused) {
                tq_message("%s: not an option of %s", unused, sub);
                ret = TQ_EXIT_USAGE;
                goto out;
        }
        if (ctl) {
                ret = ctl_main(argc - ctl, argv + ctl);
                goto out;
        }
        if (o.db)
                path = strdup(o.db);
        else {
                r = store_default_path(&path, &err);
                if (r < 0) {
                        ret = traceql_fail(TQ_EXIT_DB, r, &err);
                        goto out;
                }
        }
        if (!path)
                traceql_nomem();
        if (strcmp(sub, "import") == 0)
                ret = traceql_import(path, &o);
        else if (strcmp(sub, "events") == 0 || strcmp(sub, "losses") == 0)
                ret = traceql_query(path, tq_sql_get(sub), &o);
        else if (strcmp(sub, "sources") == 0)
                ret = traceql_sources(path, &o);
        else if (strcmp(sub, "forget") == 0)
                ret = traceql_forget(path, argv + first + 1, (size_t) (argc - first - 1));
        else {
                if (strcmp(what, "-") == 0) {
                        sql = traceql_read_stdin(&ret);
                        if (!sql)
                                goto out;
                }
                ret = traceql_query(path, sql ? sql : what, &o);
        }
out:
        free(o.identifiers);
        free(o.files);
        free(o.events);
        free(path);
        free(sql);
        return ret;
}
