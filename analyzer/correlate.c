/*
 * correlate.c - traceql leaks and traceql pairs: match events by a correlator.
 *
 * Both commands stream the events of interest once, per process (boot, host
 * and pid; host + pid for rows without a boot id, such as a central syslog
 * file's) in event order (TRACE_SEQ, then monotonic time, then time, then
 * row id; for a process whose events do not all have a TRACE_SEQ, see
 * tq_order), keeping only the live set in a hash table keyed by the
 * correlator value (an address, a request pointer).  What they find goes into TEMP tables (tq_leaks,
 * tq_bad_frees, tq_pairs, tq_pairs_open) that the report is printed from with
 * the same printer as any query, that --sql can join with events, and that
 * --write copies into the database.
 *
 * leaks follows glibc's mtrace, made exact: a free closes the live allocation
 * of its address, so a reused address pairs correctly; an allocation of a
 * live address is a duplicate allocation; a free of an address that is not
 * live is a double free (it was freed before in this process), a free before
 * the trace (the process's trace did not begin at its first event, so the
 * allocation may predate it), or an unknown free.  Allocations and frees of
 * address 0 are ignored (a failed malloc, free(NULL)), and a failed realloc
 * frees nothing (corr_realloc_failed()).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "traceql.h"

struct corr_spec {
        char *event;            /* event name */
        const char *field;      /* argument name, NULL: deduce */
        int pos;                /* resolved argument position */
        int size_pos;           /* --size argument position, -1 none */
        int by_pos;             /* --by argument position, -1 none */
        char extra_kind;        /* the kind letter of that --size or --by argument */
        char key_kind;          /* the kind letter of the correlator argument */
};

struct corr_list {
        struct corr_spec *v;
        size_t n;
};

struct corr_opts {
        const char *db, *sql, *size, *by;
        bool no_sync, write, histogram, have_format;
        enum query_format format;
        struct corr_list a, b;  /* leaks: alloc/free; pairs: begin/end */
        bool pairs;
};

/* One correlator value of the current process. */
struct corr_slot {
        uint64_t key;
        int64_t id;             /* events.id of the allocation / begin, 0: none yet */
        int64_t t, mono;        /* pairs: its time and monotonic time */
        bool has_t, has_mono;   /* t, mono is known */
        int64_t size;           /* leaks: the size (a 64-bit pattern); pairs: the --by value */
        bool sized;             /* size holds one */
        bool negative;          /* leaks: size is of a signed argument, below 0 */
        size_t pos;             /* where corr_table.index points at it */
        bool live;              /* false: freed (kept to tell double frees) */
};

/*
 * The current process's correlator values: SLOTS in insertion order, found
 * through INDEX, an open-addressing hash of slot numbers + 1 (0: empty).  A
 * process's end walks and clears only the N slots it used, not the index
 * that the largest process before it grew (memset per process end: 1 big
 * and 2000 small processes took 7.7 s instead of 1.1 s).
 */
struct corr_table {
        struct corr_slot *slots;
        size_t *index;
        size_t n, nalloc, cap;  /* slots used, slots allocated, index size */
        size_t most;            /* the most slots used at once */
};

struct corr_totals {
        uint64_t a, b, matched, leaks, bytes, bad, procs;
        uint64_t nokey;         /* events skipped: no integer correlator */
        uint64_t hist[65];
};

/* SUM + N for byte counts: N is an unsigned 64-bit pattern, and the sum
 * stops at INT64_MAX (more than any address space) rather than overflow. */
static uint64_t corr_bytes_add(uint64_t sum, uint64_t n)
{
        return n > (uint64_t) INT64_MAX - sum ? (uint64_t) INT64_MAX : sum + n;
}

/* Forget the current process's values, in time proportional to their number. */
static void corr_table_reset(struct corr_table *t)
{
        for (size_t j = 0; j < t->n; j++)
                t->index[t->slots[j].pos] = 0;
        t->n = 0;
}

static size_t corr_hash(uint64_t k, size_t cap)
{
        k ^= k >> 33;
        k *= 0xff51afd7ed558ccdULL;
        k ^= k >> 33;
        return (size_t) k & (cap - 1);
}

/* Point the index at slot J. */
static void corr_table_place(struct corr_table *t, size_t j)
{
        size_t i;

        for (i = corr_hash(t->slots[j].key, t->cap); t->index[i]; i = (i + 1) & (t->cap - 1))
                ;
        t->index[i] = j + 1;
        t->slots[j].pos = i;
}

/* Double the index (at most half full) and the slots as needed; -ENOMEM. */
static int corr_table_grow(struct corr_table *t)
{
        if ((t->n + 1) * 2 > t->cap) {
                size_t cap = t->cap ? t->cap * 2 : 64;
                size_t *index = calloc(cap, sizeof(*index));

                if (!index)
                        return -ENOMEM;
                free(t->index);
                t->index = index;
                t->cap = cap;
                for (size_t j = 0; j < t->n; j++)
                        corr_table_place(t, j);
        }
        if (t->n == t->nalloc) {
                size_t nalloc = t->nalloc ? t->nalloc * 2 : 32;
                struct corr_slot *slots = realloc(t->slots, nalloc * sizeof(*slots));

                if (!slots)
                        return -ENOMEM;
                t->slots = slots;
                t->nalloc = nalloc;
        }
        return 0;
}

/* The slot of KEY, NULL when absent.  Valid until the next change. */
static struct corr_slot *corr_table_find(struct corr_table *t, uint64_t key)
{
        size_t i;

        if (t->cap)
                for (i = corr_hash(key, t->cap); t->index[i]; i = (i + 1) & (t->cap - 1))
                        if (t->slots[t->index[i] - 1].key == key)
                                return &t->slots[t->index[i] - 1];
        return NULL;
}

/* The slot of KEY, added empty (id 0) when absent; NULL: out of memory.
 * Valid until the next change. */
static struct corr_slot *corr_table_get(struct corr_table *t, uint64_t key)
{
        struct corr_slot *sl = corr_table_find(t, key);

        if (sl)
                return sl;
        if (corr_table_grow(t) < 0)
                return NULL;
        t->slots[t->n] = (struct corr_slot) { .key = key };
        corr_table_place(t, t->n);
        if (++t->n > t->most)
                t->most = t->n;
        return &t->slots[t->n - 1];
}

/* Remove slot SL: the index entries after it in its run move back over the
 * hole (linear probing has no tombstones), the last slot into its place. */
static void corr_table_del(struct corr_table *t, struct corr_slot *sl)
{
        size_t j = (size_t) (sl - t->slots), i = sl->pos, mask = t->cap - 1;

        t->index[i] = 0;
        for (size_t k = (i + 1) & mask; t->index[k]; k = (k + 1) & mask) {
                size_t h = corr_hash(t->slots[t->index[k] - 1].key, t->cap);

                /* an entry stays when its home is cyclically in (i, k] */
                if (i < k ? h > i && h <= k : h > i || h <= k)
                        continue;
                t->index[i] = t->index[k];
                t->slots[t->index[i] - 1].pos = i;
                t->index[k] = 0;
                i = k;
        }
        if (j != --t->n) {
                t->slots[j] = t->slots[t->n];
                t->index[t->slots[j].pos] = j + 1;
        }
}

/* "EV[:F],EV[:F]" into LIST; FLAG names the option for messages.  An empty
 * item ("a,,b", "a,") is an error, not skipped: a name was left out. */
static int corr_parse_list(char *arg, struct corr_list *list, const char *flag)
{
        char *tok, *next;

        if (!*arg) {
                fprintf(stderr, "traceql: %s: no event given\n", flag);
                return -EINVAL;
        }
        for (tok = arg; tok; tok = next) {
                struct corr_spec *v = realloc(list->v, (list->n + 1) * sizeof(*v));
                char *colon;

                if (!v)
                        return -ENOMEM;
                next = strchr(tok, ',');
                if (next)
                        *next++ = '\0';
                colon = strchr(tok, ':');
                list->v = v;
                v[list->n] = (struct corr_spec) { tok, NULL, -1, -1, -1, 0, 0 };
                if (colon) {
                        *colon = '\0';
                        v[list->n].field = colon + 1;
                }
                if (!*tok || (colon && !colon[1])) {
                        fprintf(stderr, "traceql: %s: empty event or field name\n", flag);
                        return -EINVAL;
                }
                list->n++;
        }
        return 0;
}

static void corr_usage(FILE *f, bool pairs)
{
        if (pairs)
                fputs("usage: traceql [--db FILE] [--no-sync] [--write] pairs --begin EVENT[:FIELD]\n"
                      "               --end EVENT[:FIELD] [--by FIELD] [--histogram]\n"
                      "               [--format table|csv|json|jsonl] [--sql SQL]\n", f);
        else
                fputs("usage: traceql [--db FILE] [--no-sync] [--write] leaks\n"
                      "               --alloc EVENT[:FIELD][,...] --free EVENT[:FIELD][,...]\n"
                      "               [--size FIELD] [--format table|csv|json|jsonl] [--sql SQL]\n", f);
}

/* The options of leaks and pairs, both (traceql.c's look-up of those given
 * before the command); corr_parse() reads those of its command only, so
 * that an abbreviation is of them ("--f" is pairs' --format, not also
 * leaks' --free), and refuses one of the other command by name. */
enum { O_DB = 256, O_NO_SYNC, O_WRITE, O_FORMAT, O_A, O_B, O_SIZE, O_BY, O_HIST, O_SQL, O_HELP };

/* Each table in the order of the one of both, so that an ambiguous start
 * lists the options alike ("'--s' (--size, --sql)"). */
#define CORR_OPTS_FIRST \
        { "db", required_argument, NULL, O_DB }, \
        { "no-sync", no_argument, NULL, O_NO_SYNC }, \
        { "write", no_argument, NULL, O_WRITE }, \
        { "format", required_argument, NULL, O_FORMAT }
#define CORR_OPTS_LAST \
        { "sql", required_argument, NULL, O_SQL }, \
        { "help", no_argument, NULL, O_HELP }, \
        { 0, 0, 0, 0 }
#define CORR_OPTS_LISTS_LEAKS \
        { "alloc", required_argument, NULL, O_A }, \
        { "free", required_argument, NULL, O_B }
#define CORR_OPTS_LISTS_PAIRS \
        { "begin", required_argument, NULL, O_A }, \
        { "end", required_argument, NULL, O_B }
#define CORR_OPTS_SIZE { "size", required_argument, NULL, O_SIZE }
#define CORR_OPTS_PAIRS \
        { "by", required_argument, NULL, O_BY }, \
        { "histogram", no_argument, NULL, O_HIST }

static const struct option corr_leaks_opts[] = {
        CORR_OPTS_FIRST, CORR_OPTS_LISTS_LEAKS, CORR_OPTS_SIZE, CORR_OPTS_LAST,
};

static const struct option corr_pairs_opts[] = {
        CORR_OPTS_FIRST, CORR_OPTS_LISTS_PAIRS, CORR_OPTS_PAIRS, CORR_OPTS_LAST,
};

static const struct option corr_longopts[] = {
        CORR_OPTS_FIRST, CORR_OPTS_LISTS_LEAKS, CORR_OPTS_LISTS_PAIRS, CORR_OPTS_SIZE,
        CORR_OPTS_PAIRS, CORR_OPTS_LAST,
};

const struct option *correlate_option(const char *arg)
{
        return tq_option_find(arg, corr_longopts, NULL);
}

static int corr_parse(int argc, char **argv, struct corr_opts *o)
{
        const struct option *lo = o->pairs ? corr_pairs_opts : corr_leaks_opts, *other;
        const char *aname = o->pairs ? "--begin" : "--alloc", *bname = o->pairs ? "--end" : "--free";
        int c, r;

        opterr = 0;
        optind = 1;
        while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
                switch (c) {
                case O_DB:
                        if (store_db_arg(optarg) < 0)
                                return -EINVAL;
                        o->db = optarg;
                        break;
                case O_NO_SYNC: o->no_sync = true; break;
                case O_WRITE: o->write = true; break;
                case O_FORMAT:
                        if (query_format_parse(optarg, &o->format) < 0) {
                                tq_message("unknown format '%s' (table, csv, json, jsonl)", optarg);
                                return -EINVAL;
                        }
                        o->have_format = true;
                        break;
                case O_A: case O_B:
                        r = corr_parse_list(optarg, c == O_A ? &o->a : &o->b, c == O_A ? aname : bname);
                        if (r < 0)
                                return r;
                        break;
                case O_SIZE: case O_BY: case O_HIST:
                        /* a usage error, as an empty --alloc item is, not
                         * a search for an argument named '' (exit 4) */
                        if (c != O_HIST && !*optarg) {
                                fprintf(stderr, "traceql: --%s: empty field name\n",
                                        c == O_SIZE ? "size" : "by");
                                return -EINVAL;
                        }
                        if (c == O_SIZE) o->size = optarg;
                        else if (c == O_BY) o->by = optarg;
                        else o->histogram = true;
                        break;
                case O_SQL: o->sql = optarg; break;
                case 'h':
                case O_HELP: corr_usage(stdout, o->pairs); exit(tq_stdout_done());
                default:
                        /* SQL that begins with a "--" comment is no option
                         * (its place is --sql's value) */
                        if (tq_option_is_sql(argv[optind - 1])) {
                                tq_message("unexpected argument '%s'", argv[optind - 1]);
                                return -EINVAL;
                        }
                        /* optopt 0: a long option unknown here, maybe the
                         * other command's (those of both are known here) */
                        other = optopt ? NULL : tq_option_find(argv[optind - 1], corr_longopts,
                                                               NULL);
                        if (other)
                                fprintf(stderr, "traceql: --%s: option not for this command\n",
                                        other->name);
                        else
                                tq_option_error(argv, lo);
                        return -EINVAL;
                }
        }
        if (optind < argc) {
                tq_message("unexpected argument '%s'", argv[optind]);
                return -EINVAL;
        }
        if (!o->a.n || !o->b.n) {
                fprintf(stderr, "traceql: %s and %s are required\n", aname, bname);
                return -EINVAL;
        }
        return 0;
}

/* Position of argument NAME of EVENT in *RET_POS (-1 none), *RET_KIND its
 * kind letter; NAME matched ignoring ASCII case, as SQL matches the view's
 * column (event_args names of one event differ in more than case, see
 * ingest_columns_unique()).  0, or when a statement fails, ERR and
 * query_error()'s -errno (-EUCLEAN for a damaged page, -ENOMEM...). */
static int corr_arg_pos(sqlite3 *db, const char *event, const char *name, int *ret_pos,
                        char *ret_kind, struct tq_error *err)
{
        const unsigned char *kind;
        sqlite3_stmt *st = NULL;
        int rc, r = 0;

        rc = sqlite3_prepare_v2(db, "SELECT pos, kind FROM event_args WHERE event = ?1 AND "
                                "name = ?2 COLLATE NOCASE", -1, &st, NULL);
        if (rc == SQLITE_OK) {
                sqlite3_bind_text(st, 1, event, -1, SQLITE_STATIC);
                sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
                rc = sqlite3_step(st);
        }
        *ret_pos = -1;
        if (rc == SQLITE_ROW) {
                kind = sqlite3_column_text(st, 1);
                if (!kind)      /* NOT NULL: no memory for the text */
                        r = tq_error_set(err, -ENOMEM, "out of memory");
                else {
                        *ret_pos = sqlite3_column_int(st, 0);
                        *ret_kind = (char) kind[0];
                }
        } else if (rc != SQLITE_DONE)
                r = query_error(db, sqlite3_extended_errcode(db), err);
        sqlite3_finalize(st);
        return r;
}

/* Whether the database has events named NAME: 1 or 0; when it cannot tell,
 * ERR and query_error()'s -errno (-EUCLEAN for a damaged page, -ENOMEM...). */
static int corr_event_known(sqlite3 *db, const char *name, struct tq_error *err)
{
        sqlite3_stmt *st = NULL;
        int rc, r;

        rc = sqlite3_prepare_v2(db, "SELECT 1 FROM event_types WHERE name = ?1", -1, &st, NULL);
        if (rc == SQLITE_OK) {
                sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
                rc = sqlite3_step(st);
        }
        r = rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 :
            query_error(db, sqlite3_extended_errcode(db), err);
        sqlite3_finalize(st);
        return r;
}

/*
 * The correlator field every event without an explicit FIELD uses: the one
 * pointer argument name shared by all of them, in *RET_NAME (sqlite3_malloc'ed).
 * -EINVAL with ERR when there is none or several; when a statement fails,
 * query_error()'s -errno (-EUCLEAN for a damaged page, -ENOMEM...).
 */
static int corr_common_pointer(sqlite3 *db, struct corr_opts *o, char **ret_name,
                               struct tq_error *err)
{
        sqlite3_str *in = sqlite3_str_new(db);
        sqlite3_stmt *st = NULL;
        char *sql, *name = NULL;
        size_t i, n = 0;
        struct corr_list *lists[2] = { &o->a, &o->b };
        int rc, r;

        for (int l = 0; l < 2; l++)
                for (i = 0; i < lists[l]->n; i++)
                        if (!lists[l]->v[i].field)
                                sqlite3_str_appendf(in, "%s%Q", n++ ? "," : "", lists[l]->v[i].event);
        /* the events are known (corr_resolve): one named twice counts once */
        sql = sqlite3_mprintf("SELECT name FROM event_args WHERE kind = 'p' AND event IN (%s) "
                              "GROUP BY name COLLATE NOCASE HAVING count(DISTINCT event) = "
                              "(SELECT count(*) FROM event_types WHERE name IN (%s))",
                              sqlite3_str_value(in), sqlite3_str_value(in));
        sqlite3_free(sqlite3_str_finish(in));
        if (!sql) {
                r = tq_error_set(err, -ENOMEM, "out of memory");
                goto out;
        }
        rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
        if (rc != SQLITE_OK) {
                r = query_error(db, sqlite3_extended_errcode(db), err);
                goto out;
        }
        rc = sqlite3_step(st);
        if (rc == SQLITE_DONE) {
                r = tq_error_set(err, -EINVAL, "%s: the events share no pointer argument; "
                                 "name it as EVENT:FIELD", store_name(db));
                goto out;
        }
        if (rc != SQLITE_ROW) {
                r = query_error(db, sqlite3_extended_errcode(db), err);
                goto out;
        }
        name = sqlite3_mprintf("%s", sqlite3_column_text(st, 0));
        if (!name) {
                r = tq_error_set(err, -ENOMEM, "out of memory");
                goto out;
        }
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW)
                r = tq_error_set(err, -EINVAL, "%s: the events share several pointer arguments; "
                                 "name one as EVENT:FIELD", store_name(db));
        else
                r = rc == SQLITE_DONE ? 0 : query_error(db, sqlite3_extended_errcode(db), err);
out:
        sqlite3_finalize(st);
        sqlite3_free(sql);
        if (r == 0)
                *ret_name = name;
        else
                sqlite3_free(name);
        return r;
}

/* Resolve every spec's positions; fails naming the event or field. */
static int corr_resolve(sqlite3 *db, struct corr_opts *o, struct tq_error *err)
{
        struct corr_list *lists[2] = { &o->a, &o->b };
        char *common = NULL;
        bool any_extra = false;
        int r = 0;

        /* an unknown event first: a misspelt name is not a missing argument */
        for (int l = 0; l < 2; l++)
                for (size_t i = 0; i < lists[l]->n; i++) {
                        r = corr_event_known(db, lists[l]->v[i].event, err);
                        if (r < 0)
                                goto out;
                        if (r == 0) {
                                r = tq_error_set(err, -ENOENT, "%s: no event '%s' in the database",
                                                 store_name(db), lists[l]->v[i].event);
                                goto out;
                        }
                }
        r = 0;
        for (int l = 0; l < 2; l++)
                for (size_t i = 0; i < lists[l]->n; i++) {
                        struct corr_spec *s = &lists[l]->v[i];
                        char kind = 0;

                        if (!s->field && !common) {
                                r = corr_common_pointer(db, o, &common, err);
                                if (r < 0)
                                        goto out;
                        }
                        r = corr_arg_pos(db, s->event, s->field ? s->field : common, &s->pos,
                                         &kind, err);
                        if (r < 0)
                                goto out;
                        if (s->pos < 0) {
                                r = tq_error_set(err, -ENOENT, "%s: event '%s' has no argument '%s'",
                                                 store_name(db), s->event, s->field ? s->field : common);
                                goto out;
                        }
                        s->key_kind = kind;
                        if (kind == 's') {
                                r = tq_error_set(err, -EINVAL, "%s: argument '%s' of '%s' is a string; "
                                                 "the correlator needs a pointer or an integer",
                                                 store_name(db), s->field ? s->field : common, s->event);
                                goto out;
                        }
                        if (l == 0 && (o->size || o->by)) {
                                int p;

                                r = corr_arg_pos(db, s->event, o->size ? o->size : o->by, &p,
                                                 &kind, err);
                                if (r < 0)
                                        goto out;
                                if (p >= 0 && kind == 's') {
                                        r = tq_error_set(err, -EINVAL, "%s: argument '%s' of '%s' is a "
                                                         "string; %s needs an integer", store_name(db),
                                                         o->size ? o->size : o->by, s->event,
                                                         o->size ? "--size" : "--by");
                                        goto out;
                                }
                                if (o->size) s->size_pos = p; else s->by_pos = p;
                                s->extra_kind = p >= 0 ? kind : 0;
                                any_extra |= p >= 0;
                        }
                }
        if ((o->size || o->by) && !any_extra)
                r = tq_error_set(err, -ENOENT, "%s: no %s event has an argument '%s'", store_name(db),
                                 o->pairs ? "--begin" : "--alloc", o->size ? o->size : o->by);
out:
        sqlite3_free(common);
        return r;
}

static void corr_in(sqlite3_str *s, const struct corr_list *list, bool comma)
{
        for (size_t i = 0; i < list->n; i++)
                sqlite3_str_appendf(s, "%s%Q", comma || i ? "," : "", list->v[i].event);
}

/*
 * Where a process runs: its boot id and host, or for a row without a boot
 * id (syslog, log, simpletrace files) its host, so that the same pid on two
 * hosts of one central syslog file is two processes; and on one boot too,
 * as containers are (they share their host's boot id, each with its host
 * name and its pids).  E qualifies the columns.
 */
#define CORR_PLACE(e) "CASE WHEN " e "host IS NULL THEN " e "boot" \
        " ELSE coalesce(" e "boot || '@' || " e "host, '@' || " e "host) END"

#define CORR_NARGS TQ_MAX_ARGS     /* events.a0 ... a9 */

/* The columns of the scan's rows (corr_scan_sql()), then the arguments it
 * reads, in corr_scan.argcol[]. */
enum {
        CORR_ID, CORR_BOOT, CORR_PID, CORR_SEQ, CORR_EVENT, CORR_RUN, CORR_PLACE, CORR_HOST,
        CORR_KMONO, CORR_KTIME, CORR_ARGS
};

/*
 * A row of the scan, its columns' values taken once (sqlite3_column_value())
 * after each step that gives one.  The scan asks most columns twice (the
 * type, then the value), some in two places, and every sqlite3_column_*()
 * call finds the column and checks for a malloc failure again (those calls
 * had 28% of a leaks run's perf samples on 1M events; taking each value once
 * cut its instructions by 7%, callgrind on 200k events).  The values stay
 * valid until the statement's next step, and this thread alone uses them
 * (sqlite3_column_value()'s are unprotected, which matters across threads
 * only).
 */
struct corr_row {
        sqlite3_stmt *st;
        int n;                  /* the columns taken, at most CORR_ARGS + CORR_NARGS */
        sqlite3_value *v[CORR_ARGS + CORR_NARGS];
};

static void corr_row_init(struct corr_row *row, sqlite3_stmt *st)
{
        int n = sqlite3_column_count(st);

        row->st = st;
        row->n = n < CORR_ARGS + CORR_NARGS ? n : CORR_ARGS + CORR_NARGS;
}

/* Step ROW's statement: SQLITE_ROW with its values taken, or what
 * sqlite3_step() said. */
static int corr_row_step(struct corr_row *row)
{
        int rc = sqlite3_step(row->st);

        if (rc == SQLITE_ROW)
                for (int i = 0; i < row->n; i++)
                        row->v[i] = sqlite3_column_value(row->st, i);
        return rc;
}

/*
 * The scan: the events of both lists in per-process event order, each with
 * its boot and host for pairs (tq_pairs' rows are not copied from events, as
 * the other tables' are; NULL for leaks, columns less to sort), its seq
 * (NULL in a process ordered otherwise), its event, the run of its pid
 * (tq_runs, when RUNS), its place (CORR_PLACE), its monotonic time (NULL in
 * a process ordered by time) and time, whose first not NULL is its time for
 * pairs' latency, and the
 * arguments the lists use (their correlators, --size or --by), whose columns
 * go to ARGCOL[position] (-1: not read).  Which list an event is in and which
 * argument is its correlator is worked out in C from the event name: the
 * sort moves every column of every row, and CASE columns doing it in SQL made
 * a tenth more work.  With ORDER, the processes of tq_order are ordered as
 * its HOW says (a join, left out when no process needs it).  The order
 * within a process is by the columns CORR_SEQ, CORR_KMONO, CORR_KTIME, then
 * the id.
 *
 * CORR_SQL_ROWS: the rows in row id order, not sorted: with EVENT, that
 * event's only (the index on event holds them so), for corr_scan_rows() to
 * merge; without, those of all events of the lists, read from the whole
 * table.  CORR_SQL_KEYS: the same with only the columns that tell the
 * process and the order (the others NULL, no arguments).
 */
enum corr_sql { CORR_SQL_SORTED, CORR_SQL_ROWS, CORR_SQL_KEYS };

static char *corr_scan_sql(const struct corr_opts *o, bool runs, bool order, enum corr_sql how,
                           const char *event, int *argcol)
{
        const struct corr_list *lists[2] = { &o->a, &o->b };
        sqlite3_str *s = sqlite3_str_new(NULL);
        bool used[CORR_NARGS] = { false };
        int pos, col = CORR_ARGS;

        for (int l = 0; l < 2 && how != CORR_SQL_KEYS; l++)
                for (size_t i = 0; i < lists[l]->n; i++) {
                        const struct corr_spec *v = &lists[l]->v[i];
                        int extra = o->pairs ? v->by_pos : v->size_pos;

                        if (v->pos >= 0 && v->pos < CORR_NARGS)
                                used[v->pos] = true;
                        if (l == 0 && extra >= 0 && extra < CORR_NARGS)
                                used[extra] = true;
                }
        sqlite3_str_appendf(s, "SELECT id, %s, pid, %s, %s",
                            o->pairs && how != CORR_SQL_KEYS ? "boot" : "NULL",
                            order ? "CASE WHEN how THEN NULL ELSE seq END" : "seq",
                            how == CORR_SQL_KEYS ? "NULL" : "event");
        sqlite3_str_appendall(s, runs ? ", coalesce((SELECT run FROM temp.tq_runs r"
                                     " WHERE r.id = events.id), 0)" : ", 0");
        sqlite3_str_appendall(s, ", " CORR_PLACE(""));
        sqlite3_str_appendall(s, o->pairs && how != CORR_SQL_KEYS ? ", host" : ", NULL");
        sqlite3_str_appendall(s, order ? ", CASE WHEN how = 2 THEN NULL ELSE mono END, time"
                                       : ", mono, time");
        for (pos = 0; pos < CORR_NARGS; pos++) {
                argcol[pos] = used[pos] ? col++ : -1;
                if (used[pos])
                        sqlite3_str_appendf(s, ", a%d", pos);
        }
        sqlite3_str_appendall(s, how == CORR_SQL_SORTED || event ? " FROM events"
                                                                : " FROM events NOT INDEXED");
        if (order)
                sqlite3_str_appendall(s, " LEFT JOIN temp.tq_order ON o_pid IS pid"
                                      " AND o_place IS " CORR_PLACE("events."));
        if (event) {
                sqlite3_str_appendf(s, " WHERE event = %Q ORDER BY id", event);
                return sqlite3_str_finish(s);
        }
        sqlite3_str_appendall(s, " WHERE event IN (");
        corr_in(s, &o->a, false);
        corr_in(s, &o->b, true);
        if (how != CORR_SQL_SORTED) {
                sqlite3_str_appendall(s, ") ORDER BY id");
                return sqlite3_str_finish(s);
        }
        /* pid before place: an integer compare settles most comparisons of the sort;
         * time orders what has neither seq nor mono (syslog files imported out of order) */
        sqlite3_str_appendf(s, ") ORDER BY pid, %d, ", CORR_PLACE + 1);
        if (runs)
                sqlite3_str_appendf(s, "%d, ", CORR_RUN + 1);
        sqlite3_str_appendf(s, "%d, %d, %d, id", CORR_SEQ + 1, CORR_KMONO + 1, CORR_KTIME + 1);
        return sqlite3_str_finish(s);
}

static const char corr_temp_sql[] =
        "DROP TABLE IF EXISTS temp.tq_leaks; DROP TABLE IF EXISTS temp.tq_bad_frees;"
        "DROP TABLE IF EXISTS temp.tq_pairs; DROP TABLE IF EXISTS temp.tq_pairs_open;"
        "CREATE TEMP TABLE tq_leaks (id INTEGER, time, boot, host, pid, tid, address, size,"
        " event, code_file, code_line, code_func);"
        "CREATE TEMP TABLE tq_bad_frees (id INTEGER, time, boot, host, pid, tid, kind, address,"
        " event, code_file, code_line, code_func, earlier_id);"
        "CREATE TEMP TABLE tq_pairs (begin_id INTEGER, end_id, boot, host, pid, key, grp,"
        " latency, bucket);"
        "DROP TABLE IF EXISTS temp.tq_pairs_stats;"
        "CREATE TEMP TABLE tq_pairs_stats (grp, count, min_ns, p50_ns, p90_ns, p99_ns, max_ns, mean_ns);"
        "CREATE TEMP TABLE tq_pairs_open (id INTEGER, time, boot, host, pid, tid, kind, key,"
        " event, code_file, code_line, code_func, later_id);";

/*
 * Where each process's trace begins, from statements that read events once
 * each (a query per process on events, which has no index on (boot, pid),
 * read the whole table each time: 2000 processes of 1M events took 144 s).
 * TEMP tables, so that a read-only connection can build them:
 *
 * tq_seq1: the events of seq 1 and without seq per pid and place (CORR_PLACE),
 * read through the partial index events_seq1 (sql/schema.sql), whose WHERE
 * this statement's must repeat word for word.  Two of seq 1 mean a pid
 * reused within a boot, whose runs tq_runs tells apart as traceql losses
 * does (sql/losses.sql): in time order, a number seen before means a later
 * run has begun, an event's run being the most times any number up to it
 * was seen before.  Other pids are all run 0, and absent from tq_runs.
 *
 * tq_order: each process with events of the lists without seq, its first
 * time and how those events are ordered (built only when some event has no
 * seq, corr_order_sql).  TRACE_SEQ
 * orders only a process whose events all have one: a NULL sorts first, so
 * the kernel events of an ftrace import would all come before the program's
 * own marker events.  Only the events of the lists count: the others are not
 * scanned (a tj_dropped entry, which has no seq, made a process traced with
 * seq ordered by monotonic time, and traced from its start taken for one
 * begun before the trace if it came late).  HOW is 1 (monotonic time) when
 * some event has a seq and all a monotonic time, 2 (time) when some have a
 * monotonic time and some not, or some a seq and none a monotonic time; 0
 * when the scan's usual order gives the same (no seq, and a monotonic time in
 * all events or in none).  Its first time is of all its events.
 *
 * tq_first: per run, has it an event of seq 1; for a process in tq_order,
 * its first time.
 */
#define CORR_SEQ1_SELECT \
        "SELECT pid, " CORR_PLACE("") " AS place, sum(seq IS 1) AS n, sum(seq IS NULL) AS noseq" \
        " FROM events WHERE seq = 1 OR seq IS NULL GROUP BY pid, place"
static const char corr_seq1_sql[] =
        "DROP TABLE IF EXISTS temp.tq_seq1; DROP TABLE IF EXISTS temp.tq_runs;"
        "CREATE TEMP TABLE tq_seq1 AS " CORR_SEQ1_SELECT ";"
        "CREATE TEMP TABLE tq_runs (id INTEGER PRIMARY KEY, run);";
static const char corr_runs_sql[] =
        "INSERT INTO temp.tq_runs"
        " WITH seen AS (SELECT e.id, e.pid, r.place, e.time,"
        "  row_number() OVER (PARTITION BY e.pid, r.place, e.seq ORDER BY e.time, e.id) - 1 AS again"
        "  FROM temp.tq_seq1 r JOIN events e ON e.pid IS r.pid AND " CORR_PLACE("e.") " IS r.place"
        "  WHERE r.n > 1 AND e.seq IS NOT NULL)"
        " SELECT id, max(again) OVER (PARTITION BY pid, place ORDER BY time, id"
        "  ROWS UNBOUNDED PRECEDING) FROM seen;";
static const char corr_first_sql[] =
        "DROP TABLE IF EXISTS temp.tq_first;"
        "DROP TABLE IF EXISTS temp.tq_order;"
        "CREATE TEMP TABLE tq_first (pid, place, run, seq1, t0);"
        "CREATE TEMP TABLE tq_order (o_pid, o_place, how, t0);"
        "INSERT INTO temp.tq_first SELECT pid, place, 0, 1, NULL FROM temp.tq_seq1 WHERE n = 1;"
        "INSERT INTO temp.tq_first SELECT e.pid, " CORR_PLACE("e.") ", r.run, 1, NULL"
        " FROM temp.tq_runs r JOIN events e ON e.id = r.id WHERE e.seq = 1;";
/* Only when some event has no seq (tq_seq1.noseq): SQLite tests a constant
 * EXISTS in the WHERE for every row it reads, after reading it, so the
 * statement read all of events to insert nothing (49 ms of 1M events). */
static const char corr_order_sql[] =
        "INSERT INTO temp.tq_order SELECT pid, " CORR_PLACE("") " AS place,"
        " CASE WHEN count(mono) FILTER (WHERE listed) > 0"
        " AND count(mono) FILTER (WHERE listed) < count(*) FILTER (WHERE listed) THEN 2"
        " WHEN count(seq) FILTER (WHERE listed) > 0"
        " THEN 1 + (count(mono) FILTER (WHERE listed) = 0) ELSE 0 END, min(time)"
        " FROM (SELECT *, event IN (";
/* (the events of the lists, corr_in(), then:) */
static const char corr_order_end_sql[] =
        ") AS listed FROM events)"
        " GROUP BY pid, place HAVING count(seq) FILTER (WHERE listed) < count(*) FILTER (WHERE listed);";
static const char corr_first_end_sql[] =
        "INSERT INTO temp.tq_first SELECT o_pid, o_place, 0, 0, t0 FROM temp.tq_order;"
        "CREATE INDEX temp.tq_first_process ON tq_first (pid, place, run);"
        "CREATE INDEX temp.tq_order_process ON tq_order (o_pid, o_place);";

/* How SQLite reads events for tq_seq1, on stderr as "traceql: seq1: PLAN"
 * ($TRACEQL_TEST_CORR_PLAN set, tests: through events_seq1). */
static void corr_seq1_show(sqlite3 *db)
{
        sqlite3_stmt *st = NULL;

        if (sqlite3_prepare_v2(db, "EXPLAIN QUERY PLAN " CORR_SEQ1_SELECT, -1, &st, NULL) ==
            SQLITE_OK)
                while (sqlite3_step(st) == SQLITE_ROW)
                        if (sqlite3_column_text(st, 3) &&
                            strncmp((const char *) sqlite3_column_text(st, 3), "SCAN events", 11) == 0)
                                fprintf(stderr, "traceql: seq1: %s\n", sqlite3_column_text(st, 3));
        sqlite3_finalize(st);
}

/* Fill tq_seq1, tq_runs, tq_order and tq_first for the lists of O; *RET_RUNS:
 * some pid was reused; *RET_ORDER: some process is not in the scan's usual
 * order. */
static int corr_first_build(sqlite3 *db, const struct corr_opts *o, bool *ret_runs,
                            bool *ret_order, struct tq_error *err)
{
        sqlite3_str *s = sqlite3_str_new(NULL);
        char *sql = NULL;
        int64_t any, noseq = 0;
        int r;

        if (getenv("TRACEQL_TEST_CORR_PLAN"))
                corr_seq1_show(db);
        r = store_exec(db, corr_seq1_sql, err);
        if (r == 0)
                r = store_int(db, "SELECT EXISTS (SELECT 1 FROM temp.tq_seq1 WHERE n > 1)", &any,
                              err);
        if (r == 0)
                r = store_int(db, "SELECT EXISTS (SELECT 1 FROM temp.tq_seq1 WHERE noseq)", &noseq,
                              err);
        if (r < 0)
                goto out;
        *ret_runs = any;
        if (*ret_runs && (r = store_exec(db, corr_runs_sql, err)) < 0)
                goto out;
        sqlite3_str_appendall(s, corr_first_sql);
        if (noseq) {
                sqlite3_str_appendall(s, corr_order_sql);
                corr_in(s, &o->a, false);
                corr_in(s, &o->b, true);
                sqlite3_str_appendall(s, corr_order_end_sql);
        }
        sqlite3_str_appendall(s, corr_first_end_sql);
        sql = sqlite3_str_finish(s);
        s = NULL;
        if (!sql) {
                r = -ENOMEM;
                goto out;
        }
        r = store_exec(db, sql, err);
        if (r == 0)
                r = store_int(db, "SELECT EXISTS (SELECT 1 FROM temp.tq_order WHERE how)", &any,
                              err);
        if (r == 0)
                *ret_order = any;
out:
        sqlite3_free(sqlite3_str_finish(s));
        sqlite3_free(sql);
        return r;
}

/*
 * A process as the scan tells them apart: pid (NULL apart from 0), place
 * (CORR_PLACE: NULL apart from '', compared byte for byte, as the sort
 * does) and run.  The scan in row order (corr_scan_rows()) keeps one per
 * process it has seen, with its live set and the order key of its last event.
 */
struct corr_ident {
        int64_t pid, run;
        const char *place;
        size_t place_len;
        bool pid_null, place_null;
};

struct corr_proc {
        struct corr_ident id;
        char *place;            /* what id.place points at */
        bool from_start;        /* traced from its first event */
        struct corr_table table;
        int64_t last[3];        /* the order key of its last event: seq, mono, time */
        unsigned last_null;     /* bit i: last[i] is NULL */
        struct corr_proc *next; /* its hash chain */
};

/* The processes of a scan in row order, in the order seen and by identity
 * (chained, a power of 2 heads). */
struct corr_procs {
        struct corr_proc **v;
        size_t n;
        struct corr_proc **hash;
        size_t hash_size;
};

/* One scan's state: the statements that record findings, the live table. */
struct corr_scan {
        sqlite3 *db;
        const struct corr_opts *o;
        struct tq_error *err;   /* for corr_stored()'s failure */
        sqlite3_stmt *problem, *leak, *pair, *first;
        struct corr_table *table;       /* the current process's */
        struct corr_totals tot;
        int64_t trace_start;    /* the time of the first event, once known */
        bool trace_start_known;
        bool from_start;        /* the current process was traced from its first event */
        int argcol[CORR_NARGS]; /* the row's column of each argument read, -1 */
        struct corr_procs procs;        /* corr_scan_rows()'s */
        /* corr_stored(): the scan's RUNS and ORDER (corr_scan_sql()), whether
         * the order of the rows is known good or bad, the findings stored
         * while it was not known */
        bool runs, order, verified, disorder;
        uint64_t unverified;
};

/* Problems a scan in row order stores before the whole order is checked;
 * at this many it is checked first (corr_stored()). */
#define CORR_UNVERIFIED_MAX 4096

/*
 * The scan in row order keeps every process's live set to the end, where the
 * sort needs one process's at a time: past this many processes, or past this
 * many correlator values kept beside the largest process's (about 64 MiB of
 * them), it gives way to the sort, whose memory is bounded.
 * $TRACEQL_TEST_CORR_VALUES lowers the second for tests.
 */
#define CORR_ROWS_PROCS_MAX 16384
#define CORR_ROWS_VALUES_MAX (1u << 20)

static int corr_stored(struct corr_scan *sc);

/* Record a problem row (bad free, duplicate, open pair) for event ID; OTHER,
 * 0 for none, is the event it is about: the earlier allocation or free
 * (earlier_id), the later begin that replaced a begin (later_id). */
static int corr_problem(struct corr_scan *sc, int64_t id, const char *kind, uint64_t key,
                        int64_t other)
{
        sqlite3_stmt *st = sc->problem;
        int r;

        sqlite3_bind_int64(st, 1, id);
        sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, (int64_t) key);
        if (other)
                sqlite3_bind_int64(st, 4, other);
        else
                sqlite3_bind_null(st, 4);
        sc->tot.bad++;
        if ((r = corr_stored(sc)) < 0)
                return r;
        return sqlite3_step(st) == SQLITE_DONE && sqlite3_reset(st) == SQLITE_OK ? 0 : -EIO;
}

/* The current process ended: what is still live is a leak / in flight. */
static int corr_process_end(struct corr_scan *sc)
{
        int r;

        for (size_t i = 0; i < sc->table->n; i++) {
                struct corr_slot *sl = &sc->table->slots[i];

                if (!sl->live)
                        continue;
                if (sc->o->pairs) {
                        if ((r = corr_problem(sc, sl->id, "in-flight", sl->key, 0)) < 0)
                                return r;
                        continue;
                }
                sc->tot.leaks++;
                if (sl->sized && !sl->negative)
                        sc->tot.bytes = corr_bytes_add(sc->tot.bytes, (uint64_t) sl->size);
                sqlite3_bind_int64(sc->leak, 1, sl->id);
                sqlite3_bind_int64(sc->leak, 2, (int64_t) sl->key);
                if (sl->sized)
                        sqlite3_bind_int64(sc->leak, 3, sl->size);
                else
                        sqlite3_bind_null(sc->leak, 3);
                if (sqlite3_step(sc->leak) != SQLITE_DONE || sqlite3_reset(sc->leak) != SQLITE_OK)
                        return -EIO;
        }
        corr_table_reset(sc->table);
        return 0;
}

/* A new process starts: was it traced from its first event?  With TRACE_SEQ,
 * yes when it has an event of seq 1; without, when its first event comes
 * after the first event of the whole trace (it started while tracing ran). */
static int corr_process_begin(struct corr_scan *sc, const struct corr_row *row)
{
        sqlite3_stmt *st = sc->first;

        sqlite3_bind_value(st, 1, row->v[CORR_PLACE]);
        sqlite3_bind_value(st, 2, row->v[CORR_PID]);
        sqlite3_bind_int64(st, 3, sqlite3_value_int64(row->v[CORR_RUN]));
        if (sqlite3_step(st) != SQLITE_ROW)
                return -EIO;
        if (sqlite3_value_type(row->v[CORR_SEQ]) != SQLITE_NULL) {
                sc->from_start = sqlite3_column_int(st, 0) != 0;
        } else {
                if (!sc->trace_start_known &&
                    store_int(sc->db, "SELECT min(time) FROM events", &sc->trace_start, NULL) < 0)
                        return -EIO;
                sc->trace_start_known = true;
                sc->from_start = sqlite3_column_int64(st, 1) > sc->trace_start;
        }
        sc->tot.procs++;
        return sqlite3_reset(st) == SQLITE_OK ? 0 : -EIO;
}

/* NEGATIVE: SIZE is of a signed argument and below 0, shown as it is and
 * counted as no bytes (not as its 64-bit pattern, 2^64 - 1 for -1). */
static int corr_leaks_event(struct corr_scan *sc, int64_t id, bool alloc, uint64_t key, bool sized,
                            int64_t size, bool negative)
{
        struct corr_slot *sl;
        int r;

        if (alloc)
                sc->tot.a++;
        else
                sc->tot.b++;
        if (key == 0)
                return 0;
        sl = corr_table_get(sc->table, key);
        if (!sl)
                return -ENOMEM;
        if (alloc) {
                if (sl->id && sl->live &&
                    (r = corr_problem(sc, id, "duplicate-alloc", key, sl->id)) < 0)
                        return r;
                sl->id = id;
                sl->size = size;
                sl->sized = sized;
                sl->negative = negative;
                sl->live = true;
                return 0;
        }
        if (sl->id && sl->live) {
                sl->live = false;
                sl->id = id;
                sc->tot.matched++;
                return 0;
        }
        if (sl->id)
                return corr_problem(sc, id, "double-free", key, sl->id);
        sl->id = id;            /* remember it, so a second free is a double free */
        return corr_problem(sc, id, sc->from_start ? "unknown-free" : "free-before-trace", key, 0);
}

static int corr_pairs_event(struct corr_scan *sc, int64_t id, bool begin, uint64_t key,
                            bool sized, int64_t by, const struct corr_row *row)
{
        bool has_mono = sqlite3_value_type(row->v[CORR_KMONO]) != SQLITE_NULL;
        bool has_t = sqlite3_value_type(row->v[CORR_KTIME]) != SQLITE_NULL;
        int64_t mono = sqlite3_value_int64(row->v[CORR_KMONO]);
        int64_t t = sqlite3_value_int64(row->v[CORR_KTIME]);
        struct corr_slot *sl;
        int64_t lat = 0;
        bool by_mono, timed;
        int b = 0, r;

        if (begin)
                sc->tot.a++;
        else
                sc->tot.b++;
        /* an end forgets its key: the table holds the open begins only */
        sl = begin ? corr_table_get(sc->table, key) : corr_table_find(sc->table, key);
        if (begin && !sl)
                return -ENOMEM;
        if (begin) {
                if (sl->id && sl->live &&
                    (r = corr_problem(sc, sl->id, "duplicate-begin", key, id)) < 0)
                        return r;
                sl->id = id;
                sl->t = t;
                sl->mono = mono;
                sl->has_t = has_t;
                sl->has_mono = has_mono;
                sl->size = by;
                sl->sized = sized;
                sl->live = true;
                return 0;
        }
        if (!sl)
                return corr_problem(sc, id, "end-without-begin", key, 0);
        /* one clock for both ends: the time, unless both have a monotonic
         * time; no latency when an end has neither (a --log line without a
         * timestamp: its NULL is no time 0, 1.7e18 ns before the other's) */
        by_mono = has_mono && sl->has_mono;
        timed = by_mono || (has_t && sl->has_t);
        /* held at INT64_MAX or INT64_MIN past them: only forged times differ by 292 years */
        if (timed && (by_mono ? __builtin_sub_overflow(mono, sl->mono, &lat) :
                                __builtin_sub_overflow(t, sl->t, &lat)))
                lat = (by_mono ? mono : t) < 0 ? INT64_MIN : INT64_MAX;
        for (b = 0; b < 64 && (lat >> b) > 1; b++)
                ;
        sc->tot.matched++;
        if (timed)
                sc->tot.hist[lat > 0 ? b : 64]++;
        sqlite3_bind_int64(sc->pair, 1, sl->id);
        sqlite3_bind_int64(sc->pair, 2, id);
        sqlite3_bind_value(sc->pair, 3, row->v[CORR_BOOT]);
        sqlite3_bind_value(sc->pair, 4, row->v[CORR_HOST]);
        sqlite3_bind_value(sc->pair, 5, row->v[CORR_PID]);
        sqlite3_bind_int64(sc->pair, 6, (int64_t) key);
        if (sl->sized)
                sqlite3_bind_int64(sc->pair, 7, sl->size);
        else
                sqlite3_bind_null(sc->pair, 7);
        if (timed) {
                sqlite3_bind_int64(sc->pair, 8, lat);
                sqlite3_bind_int(sc->pair, 9, lat > 0 ? b : -1);
        } else {
                sqlite3_bind_null(sc->pair, 8);
                sqlite3_bind_null(sc->pair, 9);
        }
        corr_table_del(sc->table, sl);
        return sqlite3_step(sc->pair) == SQLITE_DONE && sqlite3_reset(sc->pair) == SQLITE_OK ? 0 : -EIO;
}

/* The column of the scan's rows holding argument POS, -1 for none. */
static int corr_argcol(const struct corr_scan *sc, int pos)
{
        return pos >= 0 && pos < CORR_NARGS ? sc->argcol[pos] : -1;
}

/* The first entry of LIST naming EVENT, NULL for none. */
static const struct corr_spec *corr_spec_of(const struct corr_list *list, const char *event)
{
        for (size_t i = 0; i < list->n; i++)
                if (strcmp(list->v[i].event, event) == 0)
                        return &list->v[i];
        return NULL;
}

/* Whether entry I of LIST is of EVENT, and not an argument of it an entry
 * before names (an event listed twice alike counts once). */
static bool corr_spec_is(const struct corr_list *list, size_t i, const char *event)
{
        if (strcmp(list->v[i].event, event) != 0)
                return false;
        for (size_t j = 0; j < i; j++)
                if (list->v[j].pos == list->v[i].pos && strcmp(list->v[j].event, event) == 0)
                        return false;
        return true;
}

/*
 * Scan row ROW as an event of list A (alloc / begin) or B (free / end), SPEC
 * its entry there; ASPEC its entry in list A, whose --size or --by it has
 * (NULL when only in B).  An event without an integer correlator (the
 * argument missing, or text) is left out of the matching, a problem row of
 * kind no-correlator that keeps the value as it is.  -EIO when a finding
 * could not be stored.
 */
static int corr_event(struct corr_scan *sc, const struct corr_row *row, const struct corr_spec *spec,
                      const struct corr_spec *aspec, bool a)
{
        int64_t id = sqlite3_value_int64(row->v[CORR_ID]);
        int kcol = corr_argcol(sc, spec->pos);
        int xcol = corr_argcol(sc, !aspec ? -1 : sc->o->pairs ? aspec->by_pos : aspec->size_pos);
        bool extra = xcol >= 0 && sqlite3_value_type(row->v[xcol]) == SQLITE_INTEGER;
        int64_t x = extra ? sqlite3_value_int64(row->v[xcol]) : 0;
        sqlite3_stmt *st = sc->problem;
        uint64_t key;
        int r;

        if (kcol < 0 || sqlite3_value_type(row->v[kcol]) != SQLITE_INTEGER) {
                if (a)
                        sc->tot.a++;
                else
                        sc->tot.b++;
                sc->tot.nokey++;
                sqlite3_bind_int64(st, 1, id);
                sqlite3_bind_text(st, 2, "no-correlator", -1, SQLITE_STATIC);
                if (kcol < 0)
                        sqlite3_bind_null(st, 3);
                else
                        sqlite3_bind_value(st, 3, row->v[kcol]);
                sqlite3_bind_null(st, 4);
                if ((r = corr_stored(sc)) < 0)
                        return r;
                return sqlite3_step(st) == SQLITE_DONE && sqlite3_reset(st) == SQLITE_OK ? 0 : -EIO;
        }
        key = (uint64_t) sqlite3_value_int64(row->v[kcol]);
        if (sc->o->pairs)
                return corr_pairs_event(sc, id, a, key, extra, x, row);
        return corr_leaks_event(sc, id, a, key, extra, x, extra && aspec->extra_kind == 'i' && x < 0);
}

static int corr_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **ret, struct tq_error *err)
{
        if (sqlite3_prepare_v2(db, sql, -1, ret, NULL) != SQLITE_OK)
                return query_error(db, sqlite3_extended_errcode(db), err);
        return 0;
}

/* Where ROW's process is: its identity, the place pointing into ROW. */
static void corr_ident_of(const struct corr_row *row, struct corr_ident *id)
{
        id->pid_null = sqlite3_value_type(row->v[CORR_PID]) == SQLITE_NULL;
        id->pid = sqlite3_value_int64(row->v[CORR_PID]);
        id->run = sqlite3_value_int64(row->v[CORR_RUN]);
        id->place_null = sqlite3_value_type(row->v[CORR_PLACE]) == SQLITE_NULL;
        id->place = sqlite3_value_blob(row->v[CORR_PLACE]);
        id->place_len = (size_t) sqlite3_value_bytes(row->v[CORR_PLACE]);
}

/* The sort's order of processes: pid, then place (NULL first), then run. */
static int corr_ident_cmp(const struct corr_ident *a, const struct corr_ident *b)
{
        size_t n = a->place_len < b->place_len ? a->place_len : b->place_len;
        int c;

        if (a->pid_null != b->pid_null)
                return a->pid_null ? -1 : 1;
        if (a->pid != b->pid)
                return a->pid < b->pid ? -1 : 1;
        if (a->place_null != b->place_null)
                return a->place_null ? -1 : 1;
        if ((c = n ? memcmp(a->place, b->place, n) : 0) != 0)
                return c;
        if (a->place_len != b->place_len)
                return a->place_len < b->place_len ? -1 : 1;
        return a->run < b->run ? -1 : a->run > b->run;
}

/* *DST = *SRC with a copy of its place in *BUF (freed first); -ENOMEM. */
static int corr_ident_copy(struct corr_ident *dst, char **buf, const struct corr_ident *src)
{
        char *place = malloc(src->place_len + 1);

        if (!place)
                return -ENOMEM;
        if (src->place_len)
                memcpy(place, src->place, src->place_len);
        free(*buf);
        *buf = place;
        *dst = *src;
        dst->place = place;
        return 0;
}

/* Of the place, its length and up to 8 bytes at each end: a boot id's
 * hex digits or a host name's differ there, and a row costs no loop. */
static size_t corr_ident_hash(const struct corr_ident *id)
{
        uint64_t h = ((uint64_t) id->pid ^ (uint64_t) id->run << 32 ^ id->place_len << 48) *
                     0x9e3779b97f4a7c15ULL;
        uint64_t head = 0, tail = 0;
        size_t k = id->place_len < 8 ? id->place_len : 8;

        if (k) {
                memcpy(&head, id->place, k);
                memcpy(&tail, id->place + id->place_len - k, k);
        }
        h = (h ^ head) * 0x100000001b3ULL;
        h = (h ^ tail) * 0x9e3779b97f4a7c15ULL;
        return (size_t) (h ^ h >> 31);
}

/* corr_ident_cmp() of two struct corr_proc *, for qsort(). */
static int corr_proc_cmp(const void *pa, const void *pb)
{
        return corr_ident_cmp(&(*(struct corr_proc *const *) pa)->id,
                              &(*(struct corr_proc *const *) pb)->id);
}

/* The process of identity ID in PS, added when new (*RET_NEW); NULL: out of
 * memory. */
static struct corr_proc *corr_procs_get(struct corr_procs *ps, const struct corr_ident *id,
                                        bool *ret_new)
{
        struct corr_proc *p, **v;
        size_t h;

        *ret_new = false;
        if (ps->hash_size)
                for (p = ps->hash[corr_ident_hash(id) & (ps->hash_size - 1)]; p; p = p->next)
                        if (corr_ident_cmp(&p->id, id) == 0)
                                return p;
        if (ps->n >= ps->hash_size) {   /* chains of one on average */
                size_t size = ps->hash_size ? ps->hash_size * 2 : 16;
                struct corr_proc **hash = calloc(size, sizeof(*hash));

                v = realloc(ps->v, size * sizeof(*v));
                if (v)
                        ps->v = v;
                if (!hash || !v) {
                        free(hash);
                        return NULL;
                }
                free(ps->hash);
                ps->hash = hash;
                ps->hash_size = size;
                for (size_t i = 0; i < ps->n; i++) {
                        h = corr_ident_hash(&ps->v[i]->id) & (size - 1);
                        ps->v[i]->next = hash[h];
                        hash[h] = ps->v[i];
                }
        }
        p = calloc(1, sizeof(*p));
        if (!p)
                return NULL;
        if (corr_ident_copy(&p->id, &p->place, id) < 0) {
                free(p);
                return NULL;
        }
        p->last_null = 7;       /* all NULL: the least key */
        h = corr_ident_hash(id) & (ps->hash_size - 1);
        p->next = ps->hash[h];
        ps->hash[h] = p;
        ps->v[ps->n++] = p;
        *ret_new = true;
        return p;
}

static void corr_procs_free(struct corr_procs *ps)
{
        for (size_t i = 0; i < ps->n; i++) {
                free(ps->v[i]->place);
                free(ps->v[i]->table.slots);
                free(ps->v[i]->table.index);
                free(ps->v[i]);
        }
        free(ps->v);
        free(ps->hash);
        *ps = (struct corr_procs) { 0 };
}

/*
 * Whether ROW, the next event of process P in row order, comes after P's
 * last event in the scan's order (CORR_SEQ, CORR_KMONO, CORR_KTIME, then the
 * id, which grows in row order), NULL before any number; if so, ROW's key
 * becomes P's last.  False too for a key neither integer nor NULL, which
 * the sort would compare otherwise.
 */
static bool corr_proc_follows(struct corr_proc *p, const struct corr_row *row)
{
        static const int cols[3] = { CORR_SEQ, CORR_KMONO, CORR_KTIME };
        int64_t k[3] = { 0, 0, 0 };
        unsigned null = 0;
        bool decided = false;

        for (int i = 0; i < 3; i++) {
                int type = sqlite3_value_type(row->v[cols[i]]);
                bool was_null = p->last_null >> i & 1;

                if (type == SQLITE_NULL)
                        null |= 1u << i;
                else if (type == SQLITE_INTEGER)
                        k[i] = sqlite3_value_int64(row->v[cols[i]]);
                else
                        return false;
                if (decided)
                        continue;
                if (type == SQLITE_NULL ? !was_null : !was_null && k[i] < p->last[i])
                        return false;
                decided = type != SQLITE_NULL && (was_null || k[i] > p->last[i]);
        }
        memcpy(p->last, k, sizeof(k));
        p->last_null = null;
        return true;
}

/*
 * Whether ROW, of EVENT in both lists of leaks (a realloc; SA its first
 * entry in --alloc), failed: every new address it has is 0 and its size is
 * not known to be 0.  glibc's mtrace writes such a call as '!', which
 * mtrace.pl skips: the old block stays allocated.  A NULL of realloc(p, 0)
 * is '-', a free, as here when the size says 0.
 */
static bool corr_realloc_failed(const struct corr_scan *sc, const struct corr_row *row,
                                const struct corr_spec *sa, const char *event)
{
        const struct corr_list *a = &sc->o->a;
        int xcol = corr_argcol(sc, sa->size_pos);
        bool any = false;

        if (sc->o->pairs || !corr_spec_of(&sc->o->b, event))
                return false;
        if (xcol >= 0 && sqlite3_value_type(row->v[xcol]) == SQLITE_INTEGER &&
            sqlite3_value_int64(row->v[xcol]) == 0)
                return false;
        for (size_t i = 0; i < a->n; i++)
                if (corr_spec_is(a, i, event)) {
                        int kcol = corr_argcol(sc, a->v[i].pos);

                        if (kcol < 0 || sqlite3_value_type(row->v[kcol]) != SQLITE_INTEGER ||
                            sqlite3_value_int64(row->v[kcol]) != 0)
                                return false;
                        any = true;
                }
        return any;
}

/* Scan ROW, an event of the current process. */
static int corr_row(struct corr_scan *sc, const struct corr_row *row)
{
        const char *event = (const char *) sqlite3_value_text(row->v[CORR_EVENT]) ?: "";
        const struct corr_list *a = &sc->o->a, *b = &sc->o->b;
        const struct corr_spec *sa = corr_spec_of(a, event);
        bool failed = sa && corr_realloc_failed(sc, row, sa, event);
        int r = 0;

        /* an event in both lists (a realloc) frees, then allocates, unless
         * it failed (then it frees nothing and is no free); one listed with
         * several arguments (two buffers) does each, in turn */
        for (size_t i = 0; i < b->n && r == 0 && !failed; i++)
                if (corr_spec_is(b, i, event))
                        r = corr_event(sc, row, &b->v[i], sa, false);
        for (size_t i = 0; sa && i < a->n && r == 0; i++)
                if (corr_spec_is(a, i, event))
                        r = corr_event(sc, row, &a->v[i], sa, true);
        return r;
}

static int corr_streams_open(sqlite3 *db, const struct corr_opts *o, bool runs, bool order,
                             enum corr_sql how, int *argcol, sqlite3_stmt ***ret_st,
                             size_t *ret_n, struct tq_error *err);

/* One of the scan's streams (corr_scan_streams()): its row, taken. */
struct corr_stream {
        struct corr_row row;
        int64_t cur;            /* the id of its row */
        bool more;              /* it has one */
};

/*
 * The scan without the sort: ST[0..N-1] each give rows in row id order
 * (corr_streams_open()), merged here by id, each process kept apart in PS.
 * That is the sort's order as long as every process's events come in row
 * order in its event order, as a journal import stores them (the id is the
 * journal's sequence number); 1 as soon as one does not, or a process or
 * key is of a type the sort would compare otherwise, or the live sets kept
 * grow past what the sort would hold (CORR_ROWS_PROCS_MAX,
 * CORR_ROWS_VALUES_MAX): the caller undoes what was stored and sorts.
 * With SC, each row is scanned as an event of its process; without, the
 * order is only checked.  S: the N streams' state, from corr_scan_rows().
 * -EIO: a finding not stored or a step failed; -ENOMEM.
 */
static int corr_scan_streams(struct corr_scan *sc, struct corr_procs *ps, sqlite3_stmt **st,
                             struct corr_stream *s, size_t n)
{
        bool added;
        struct corr_proc *p = NULL;
        struct corr_ident id;
        const char *test = getenv("TRACEQL_TEST_CORR_VALUES");
        size_t values = 0, largest = 0, values_max = test ? strtoul(test, NULL, 10) :
                                                     CORR_ROWS_VALUES_MAX;
        int r, rc;

        for (size_t j = 0; j < n; j++) {
                corr_row_init(&s[j].row, st[j]);
                if ((rc = corr_row_step(&s[j].row)) != SQLITE_ROW && rc != SQLITE_DONE)
                        return -EIO;
                s[j].more = rc == SQLITE_ROW;
                s[j].cur = s[j].more ? sqlite3_value_int64(s[j].row.v[CORR_ID]) : 0;
        }
        for (;;) {
                size_t k = n;
                struct corr_row *row;
                int pt, lt;

                for (size_t j = 0; j < n; j++)
                        if (s[j].more && (k == n || s[j].cur < s[k].cur))
                                k = j;
                if (k == n)
                        break;
                row = &s[k].row;
                pt = sqlite3_value_type(row->v[CORR_PID]);
                lt = sqlite3_value_type(row->v[CORR_PLACE]);
                if ((pt != SQLITE_INTEGER && pt != SQLITE_NULL) ||
                    (lt != SQLITE_TEXT && lt != SQLITE_NULL))
                        return 1;
                corr_ident_of(row, &id);
                if (!p || corr_ident_cmp(&p->id, &id) != 0) {
                        p = corr_procs_get(ps, &id, &added);
                        if (!p)
                                return -ENOMEM;
                        if (ps->n > CORR_ROWS_PROCS_MAX)
                                return 1;
                        if (sc && added) {
                                if ((r = corr_process_begin(sc, row)) < 0)
                                        return r;
                                p->from_start = sc->from_start;
                        }
                        if (sc) {
                                sc->table = &p->table;
                                sc->from_start = p->from_start;
                        }
                }
                if ((!sc || !sc->verified) && !corr_proc_follows(p, row))
                        return 1;
                if (sc) {
                        /* a table keeps the room of the most values it held */
                        size_t before = p->table.most;

                        if ((r = corr_row(sc, row)) < 0)
                                return r;
                        if (sc->disorder)
                                return 1;
                        values += p->table.most - before;
                        if (p->table.most > largest)
                                largest = p->table.most;
                        if (values - largest > values_max)
                                return 1;
                }
                if ((rc = corr_row_step(row)) != SQLITE_ROW && rc != SQLITE_DONE)
                        return -EIO;
                s[k].more = rc == SQLITE_ROW;
                s[k].cur = s[k].more ? sqlite3_value_int64(row->v[CORR_ID]) : 0;
        }
        if (!sc)
                return 0;
        /* the whole order was good: what is still live, process by process
         * in the sort's order */
        sc->verified = true;
        if (ps->n)
                qsort(ps->v, ps->n, sizeof(*ps->v), corr_proc_cmp);
        for (size_t i = 0; i < ps->n; i++) {
                sc->table = &ps->v[i]->table;
                if ((r = corr_process_end(sc)) < 0)
                        return r;
        }
        return 0;
}

/* The streams' rows on the heap: one per event of the lists, and there may
 * be as many as the database has event types. */
static int corr_scan_rows(struct corr_scan *sc, struct corr_procs *ps, sqlite3_stmt **st, size_t n)
{
        struct corr_stream *s = calloc(n ? n : 1, sizeof(*s));
        int r;

        if (!s)
                return -ENOMEM;
        r = corr_scan_streams(sc, ps, st, s, n);
        free(s);
        return r;
}

/*
 * A problem is about to be stored by a scan in row order.  The row order may
 * yet turn out not to be the events' (a process's event coming after a
 * later one), and all it stored be undone: past CORR_UNVERIFIED_MAX
 * problems, check the whole order first, with only the columns that tell.
 * Rows out of order make a problem of most rows (the frees of a trace
 * stored after all its allocations: each allocation of a reused address a
 * duplicate), and storing one costs more than the check reading a row; a
 * matched pair, the other thing stored, is the common case and not counted.
 * Sets sc->disorder, for corr_scan_rows() to stop at.
 */
static int corr_stored(struct corr_scan *sc)
{
        struct corr_procs ps = { 0 };
        sqlite3_stmt **st = NULL;
        size_t n = 0;
        int argcol[CORR_NARGS];
        int r;

        if (sc->verified || sc->disorder || ++sc->unverified <= CORR_UNVERIFIED_MAX)
                return 0;
        r = corr_streams_open(sc->db, sc->o, sc->runs, sc->order, CORR_SQL_KEYS, argcol, &st, &n,
                              NULL);
        if (r == 0)
                r = corr_scan_rows(NULL, &ps, st, n);
        /* the message first: finalizing a stream still running resets the
         * connection's to "not an error" */
        if (r < 0 && r != -ENOMEM)
                r = query_error(sc->db, sqlite3_extended_errcode(sc->db), sc->err);
        for (size_t j = 0; j < n; j++)
                sqlite3_finalize(st[j]);
        free(st);
        corr_procs_free(&ps);
        if (r < 0)
                return r;
        sc->verified = r == 0;
        sc->disorder = r == 1;
        return 0;
}

/* The scan sorted: ROW gives the events in the scan's order (corr_scan_sql()
 * without an event), process after process. */
static int corr_scan_sorted(struct corr_scan *sc, sqlite3_stmt *st)
{
        struct corr_table table = { 0 };
        struct corr_ident cur = { 0 }, id;
        struct corr_row rr, *row = &rr;
        char *place = NULL;
        bool any = false;
        int r = 0, rc;

        sc->table = &table;
        corr_row_init(row, st);
        while ((rc = corr_row_step(row)) == SQLITE_ROW) {
                corr_ident_of(row, &id);
                if (!any || corr_ident_cmp(&cur, &id) != 0) {
                        if (any && (r = corr_process_end(sc)) < 0)
                                goto out;
                        if ((r = corr_ident_copy(&cur, &place, &id)) < 0)
                                goto out;
                        any = true;
                        if ((r = corr_process_begin(sc, row)) < 0)
                                goto out;
                }
                if ((r = corr_row(sc, row)) < 0)
                        goto out;
        }
        if (rc != SQLITE_DONE)
                r = -EIO;
        else if (any)
                r = corr_process_end(sc);
out:
        free(place);
        free(table.slots);
        free(table.index);
        sc->table = NULL;
        return r;
}

/*
 * The streams of rows in row order for corr_scan_rows(), into *RET_ST (*RET_N
 * of them): one read from the whole table when the lists' events are a
 * quarter of it or more, else one for each event the lists name, read
 * through the index on event (a row through the index costs about what four
 * rows of the table scan do).
 */
static const char *corr_event_at(const struct corr_opts *o, size_t i)
{
        return i < o->a.n ? o->a.v[i].event : o->b.v[i - o->a.n].event;
}

static int corr_streams_open(sqlite3 *db, const struct corr_opts *o, bool runs, bool order,
                             enum corr_sql how, int *argcol, sqlite3_stmt ***ret_st,
                             size_t *ret_n, struct tq_error *err)
{
        size_t total = o->a.n + o->b.n, n = 0;
        sqlite3_stmt **st = calloc(total + 1, sizeof(*st));
        sqlite3_str *q = sqlite3_str_new(NULL);
        int64_t rows = 0, listed = 0;
        char *sql;
        int r = 0;

        *ret_st = st;
        *ret_n = 0;
        r = store_int(db, "SELECT count(*) FROM events", &rows, err);
        sqlite3_str_appendall(q, "SELECT count(*) FROM (SELECT 1 FROM events WHERE event IN (");
        corr_in(q, &o->a, false);
        corr_in(q, &o->b, true);
        sqlite3_str_appendf(q, ") LIMIT %lld)", (long long) (rows / 4 + 1));
        sql = sqlite3_str_finish(q);
        if (!st || !sql) {
                sqlite3_free(sql);
                return -ENOMEM;
        }
        if (r == 0)
                r = store_int(db, sql, &listed, err);
        sqlite3_free(sql);
        if (r == 0 && listed > rows / 4) {
                sql = corr_scan_sql(o, runs, order, how, NULL, argcol);
                if (!sql)
                        return -ENOMEM;
                r = corr_prepare(db, sql, &st[0], err);
                sqlite3_free(sql);
                *ret_n = r == 0;
                return r;
        }
        for (size_t i = 0; i < total && r == 0; i++) {
                const char *event = corr_event_at(o, i);
                size_t j;

                for (j = 0; j < i && strcmp(corr_event_at(o, j), event) != 0; j++)
                        ;
                if (j < i)
                        continue;       /* in both lists, or twice in one */
                sql = corr_scan_sql(o, runs, order, how, event, argcol);
                if (!sql)
                        r = -ENOMEM;
                else
                        r = corr_prepare(db, sql, &st[n], err);
                sqlite3_free(sql);
                if (r == 0)
                        n++;
        }
        *ret_n = n;
        return r;
}

/* Stream the events once and fill the temp tables: in row order when that
 * is the scan's order, else sorted.  $TRACEQL_TEST_CORR=sort always sorts,
 * =show says on stderr which it did (tests). */
static int corr_scan(sqlite3 *db, const struct corr_opts *o, struct corr_totals *ret_tot,
                     struct tq_error *err)
{
        struct corr_scan sc = { .db = db, .o = o, .err = err };
        sqlite3_stmt *row = NULL, **st = NULL;
        const char *test = getenv("TRACEQL_TEST_CORR");
        bool runs = false, order = false, sorted = test && strcmp(test, "sort") == 0;
        size_t n = 0;
        char *sql = NULL;
        int r;

        r = store_exec(db, corr_temp_sql, err);
        if (r < 0)
                goto out;
        /* the per-process ordering is one big sort: let SQLite's sorter use
         * a second thread (it spills to temp files, memory stays bounded) */
        sqlite3_limit(db, SQLITE_LIMIT_WORKER_THREADS, 4);
        r = store_exec(db, "PRAGMA threads = 2", err);
        if (r < 0)
                goto out;
        /* one transaction: the temp tables are not synced row by row */
        r = store_exec(db, "BEGIN", err);
        if (r < 0)
                goto out;
        if ((r = corr_first_build(db, o, &runs, &order, err)) < 0)
                goto out;
        if ((r = corr_prepare(db, "INSERT INTO temp.tq_leaks SELECT id, time, boot, host, pid, tid, ?2, ?3,"
                              " event, code_file, code_line, code_func FROM events WHERE id = ?1",
                              &sc.leak, err)) < 0 ||
            (r = corr_prepare(db, o->pairs
                              ? "INSERT INTO temp.tq_pairs_open SELECT id, time, boot, host, pid, tid, ?2, ?3,"
                                " event, code_file, code_line, code_func, ?4 FROM events WHERE id = ?1"
                              : "INSERT INTO temp.tq_bad_frees SELECT id, time, boot, host, pid, tid, ?2, ?3,"
                                " event, code_file, code_line, code_func, ?4 FROM events WHERE id = ?1",
                              &sc.problem, err)) < 0 ||
            (r = corr_prepare(db, "INSERT INTO temp.tq_pairs VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                              &sc.pair, err)) < 0 ||
            (r = corr_prepare(db, "SELECT max(seq1), max(t0) FROM temp.tq_first"
                              " WHERE pid IS ?2 AND place IS ?1 AND run = ?3",
                              &sc.first, err)) < 0)
                goto out;
        if (!sorted) {
                sc.runs = runs;
                sc.order = order;
                if ((r = corr_streams_open(db, o, runs, order, CORR_SQL_ROWS, sc.argcol, &st, &n,
                                           err)) < 0 ||
                    (r = store_exec(db, "SAVEPOINT corr_rows", err)) < 0)
                        goto out;
                r = corr_scan_rows(&sc, &sc.procs, st, n);
                /* the message first: finalizing a stream still running
                 * resets it (unless corr_stored() set it) */
                if (r < 0 && r != -ENOMEM && !err->msg[0])
                        r = query_error(db, sqlite3_extended_errcode(db), err);
                for (size_t j = 0; j < n; j++)
                        sqlite3_finalize(st[j]);
                n = 0;
                corr_procs_free(&sc.procs);
                if (r < 0)
                        goto out;
                if (r == 1) {
                        r = store_exec(db, "ROLLBACK TO corr_rows", err);
                        if (r < 0)
                                goto out;
                        sc.tot = (struct corr_totals) { 0 };
                        sorted = true;
                }
                if ((r = store_exec(db, "RELEASE corr_rows", err)) < 0)
                        goto out;
                if (test && strcmp(test, "show") == 0)
                        fprintf(stderr, "traceql: scan %s\n", sorted ? "sorted" : "in row order");
        }
        if (sorted) {
                sc.verified = true;     /* corr_stored(): nothing to check */
                sql = corr_scan_sql(o, runs, order, CORR_SQL_SORTED, NULL, sc.argcol);
                if (!sql) {
                        r = -ENOMEM;
                        goto out;
                }
                if ((r = corr_prepare(db, sql, &row, err)) < 0)
                        goto out;
                r = corr_scan_sorted(&sc, row);
                if (r == -ENOMEM)
                        goto out;
                if (r < 0)
                        goto sqlerr;
        }
        sqlite3_finalize(row);
        sqlite3_finalize(sc.first);
        row = sc.first = NULL;
        r = store_exec(db, "DROP TABLE temp.tq_first; DROP TABLE temp.tq_order;"
                       " DROP TABLE temp.tq_runs; DROP TABLE temp.tq_seq1", err);
        if (r < 0)
                goto out;
        r = store_exec(db, "COMMIT", err);
        if (r < 0)
                goto out;
        *ret_tot = sc.tot;
        goto out;
sqlerr:
        r = query_error(db, sqlite3_extended_errcode(db), err);
out:
        for (size_t j = 0; j < n; j++)
                sqlite3_finalize(st[j]);
        free(st);
        corr_procs_free(&sc.procs);
        sqlite3_finalize(row);
        sqlite3_finalize(sc.leak);
        sqlite3_finalize(sc.problem);
        sqlite3_finalize(sc.pair);
        sqlite3_finalize(sc.first);
        sqlite3_free(sql);
        return r;
}

/* Whether a row's size is of a signed argument (%Q: the --size name, which
 * matches ignoring ASCII case, as corr_arg_pos() has it): a negative one is
 * shown as it is and counts 0 bytes, where one of an unsigned argument is a
 * 64-bit pattern, shown in full. */
#define CORR_SIZE_SIGNED "coalesce((SELECT a.kind = 'i' FROM event_args a" \
        " WHERE a.event = tq_leaks.event AND a.name = %Q COLLATE NOCASE), 0)"

/* A problem row's correlator column C: an integer as ptr() shows it, and the
 * text of a no-correlator row as stored ('4096', a pointer written without
 * 0x, was shown as 0x1000, '-5' as 0xfffffffffffffffb, 'abc' as nothing). */
#define CORR_AS_STORED(c) \
        "CASE WHEN typeof(" c ") = 'integer' THEN ptr(" c ") ELSE " c " END AS " c

/* The sections, the first two sqlite3_mprintf() formats of the --size name. */
static const char corr_leaks_sections[][600] = {
        "SELECT ns_time(time) AS time, host, pid, tid, ptr(address) AS address,"
        " CASE WHEN size < 0 AND NOT " CORR_SIZE_SIGNED " THEN u64(size) ELSE size END AS size,"
        " event, code_file || ':' || code_line AS site, code_func AS func"
        " FROM temp.tq_leaks ORDER BY boot, host, pid, id, rowid",
        "SELECT code_file || ':' || code_line AS site, code_func AS func, count(*) AS count,"
        " tq_bytes_sum(CASE WHEN size < 0 AND " CORR_SIZE_SIGNED " THEN 0 ELSE size END) AS bytes"
        " FROM temp.tq_leaks GROUP BY code_file, code_line, code_func"
        " ORDER BY bytes DESC, count DESC, site",
        "SELECT ns_time(time) AS time, host, pid, tid, kind, " CORR_AS_STORED("address") ","
        " event, code_file || ':' || code_line AS site, code_func AS func, earlier_id"
        " FROM temp.tq_bad_frees ORDER BY boot, host, pid, id, rowid",
};
static const char *const corr_leaks_titles[] = { "Unfreed allocations", "Leaks by call site",
                                                 "Bad frees and duplicate allocations" };

/* Print the sections, then the totals; JSON as one object of arrays whose
 * keys are KEYS, with EXTRA_JSON (the histogram) appended when given; jsonl
 * as one line per row, {"KEY":ROW} with the key that row's array has in JSON,
 * then EXTRA_JSON (the histogram's lines).  A jsonl section without rows
 * leaves no line, as an empty array has no row to match. */
static int corr_print(sqlite3 *db, const struct corr_opts *o, const char *const *sections,
                      const char *const *titles, const char *const *keys, size_t n,
                      const char *totals, const char *extra_json, struct tq_error *err)
{
        int r = 0;

        if (o->format == QUERY_JSON)
                putchar('{');
        for (size_t i = 0; i <= n && r == 0; i++) {
                const char *sql = i < n ? sections[i] : totals;

                if (o->format == QUERY_JSON)
                        printf("%s\"%s\": ", i ? ", " : "", i < n ? keys[i] : "totals");
                else if (o->format == QUERY_TABLE)
                        printf("%s%s:\n", i ? "\n" : "", i < n ? titles[i] : "Totals");
                else if (o->format == QUERY_CSV && i)
                        putchar('\n');
                r = query_run_keyed(db, sql, o->format, i < n ? keys[i] : "totals", stdout, err);
        }
        if (o->format == QUERY_JSON && r == 0)
                printf("%s%s}\n", extra_json ? ", \"histogram\": " : "", extra_json ? extra_json : "");
        else if (o->format == QUERY_JSONL && r == 0 && extra_json)
                fputs(extra_json, stdout);
        return r;
}

/* tq_bytes_sum(size), an aggregate: corr_bytes_add over the non-NULL sizes,
 * NULL when there are none (sum() fails with "integer overflow"). */
static void corr_bytes_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
        uint64_t *acc = sqlite3_aggregate_context(ctx, 2 * sizeof(*acc));      /* sum, seen */

        (void) argc;
        if (!acc) {
                sqlite3_result_error_nomem(ctx);
                return;
        }
        if (sqlite3_value_type(argv[0]) != SQLITE_INTEGER)
                return;
        acc[0] = corr_bytes_add(acc[0], (uint64_t) sqlite3_value_int64(argv[0]));
        acc[1] = 1;
}

static void corr_bytes_final(sqlite3_context *ctx)
{
        uint64_t *acc = sqlite3_aggregate_context(ctx, 0);

        if (acc && acc[1])
                sqlite3_result_int64(ctx, (int64_t) acc[0]);
        else
                sqlite3_result_null(ctx);
}

static const char *const corr_leaks_keys[] = { "leaks", "sites", "bad_frees" };

static int corr_leaks_report(sqlite3 *db, const struct corr_opts *o, const struct corr_totals *t,
                             struct tq_error *err)
{
        char *leaks = sqlite3_mprintf(corr_leaks_sections[0], o->size);
        char *sites = sqlite3_mprintf(corr_leaks_sections[1], o->size);
        const char *sections[] = { leaks, sites, corr_leaks_sections[2] };
        char bytes[32];
        char *totals = NULL;
        int r;

        if (!leaks || !sites) {
                r = -ENOMEM;
                goto out;
        }
        if (sqlite3_create_function(db, "tq_bytes_sum", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
                                    NULL, corr_bytes_step, corr_bytes_final) != SQLITE_OK) {
                r = tq_error_set(err, -ENOMEM, "%s: %s", store_name(db), sqlite3_errmsg(db));
                goto out;
        }
        /* leaked bytes only mean something with --size */
        snprintf(bytes, sizeof(bytes), o->size ? "%llu" : "NULL", (unsigned long long) t->bytes);
        totals = sqlite3_mprintf(
                "SELECT %llu AS allocs, %llu AS frees, %llu AS leaks, %s AS leaked_bytes,"
                " %llu AS bad_frees, %llu AS processes, %llu AS no_correlator",
                (unsigned long long) t->a, (unsigned long long) t->b, (unsigned long long) t->leaks,
                bytes, (unsigned long long) t->bad,
                (unsigned long long) t->procs, (unsigned long long) t->nokey);
        if (!totals) {
                r = -ENOMEM;
                goto out;
        }
        r = corr_print(db, o, sections, corr_leaks_titles, corr_leaks_keys, 3, totals, NULL, err);
out:
        /* the report's own: --sql, on this connection next, is not to find
         * it (traceql.1 documents no such function; every statement using
         * it is finalized, so taking it away cannot fail busy) */
        (void) sqlite3_create_function(db, "tq_bytes_sum", 1, SQLITE_UTF8, NULL, NULL, NULL, NULL);
        sqlite3_free(leaks);
        sqlite3_free(sites);
        sqlite3_free(totals);
        return r;
}

/* "1.5 us" style label of a bucket bound in ns. */
static void corr_ns_label(char *buf, size_t size, uint64_t ns)
{
        static const char *const units[] = { "ns", "us", "ms", "s" };
        double v = (double) ns;
        int u = 0;

        while (v >= 1000 && u < 3) {
                v /= 1000;
                u++;
        }
        snprintf(buf, size, "%g %s", v, units[u]);
}

/* "[1 us, 2 us)": the label of log2 bucket B. */
static int corr_bucket_label(char *buf, size_t size, int b)
{
        char lo[32], hi[32];

        corr_ns_label(lo, sizeof(lo), (uint64_t) 1 << b);
        corr_ns_label(hi, sizeof(hi), (uint64_t) 1 << (b + 1));
        return snprintf(buf, size, "[%s, %s)", lo, hi);
}

static void corr_histogram_print(const struct corr_totals *t)
{
        uint64_t max = 1;
        int lo = 64, hi = -1, width = 22;
        char range[80];

        for (int b = 0; b < 64; b++)
                if (t->hist[b]) {
                        lo = b < lo ? b : lo;
                        hi = b;
                        max = t->hist[b] > max ? t->hist[b] : max;
                }
        /* the labels of long latencies ("[4.61169e+09 s, 9.22337e+09 s)")
         * are wider than the usual 22 columns: right-align all on the widest */
        for (int b = lo; b <= hi; b++) {
                int n = corr_bucket_label(range, sizeof(range), b);

                width = n > width ? n : width;
        }
        printf("\nLatency histogram (log2 buckets):\n");
        if (t->hist[64])
                printf("%*s %10llu\n", width, "<= 0 ns", (unsigned long long) t->hist[64]);
        for (int b = lo; b <= hi; b++) {
                int bar = (int) ((t->hist[b] * 40 + max - 1) / max);

                corr_bucket_label(range, sizeof(range), b);
                /* an empty bucket has no bar, nor the blank before it */
                printf("%*s %10llu%s%.*s\n", width, range, (unsigned long long) t->hist[b],
                       t->hist[b] ? " " : "", t->hist[b] ? bar : 0,
                       "########################################");
        }
}

/* The buckets as a CSV section after the totals, the rows of the JSON array. */
static void corr_histogram_csv(const struct corr_totals *t)
{
        printf("\nlo_ns,hi_ns,count\n");
        if (t->hist[64])
                printf(",1,%llu\n", (unsigned long long) t->hist[64]);
        for (int b = 0; b < 63; b++)
                if (t->hist[b])
                        printf("%llu,%llu,%llu\n", 1ULL << b, 1ULL << (b + 1),
                               (unsigned long long) t->hist[b]);
}

/* Bucket {lo_ns, hi_ns, count} onto S, LO "null" or a number: an element of
 * the JSON array, or (LINE) a line of its own, {"histogram":{...}}, as
 * query.c writes a keyed jsonl row (corr_print()). */
static void corr_bucket_json(sqlite3_str *s, bool line, const char *lo, uint64_t hi, uint64_t n)
{
        if (line)
                sqlite3_str_appendf(s, "{\"histogram\":"
                                    "{\"lo_ns\":%s,\"hi_ns\":%llu,\"count\":%llu}}\n", lo,
                                    (unsigned long long) hi, (unsigned long long) n);
        else
                sqlite3_str_appendf(s, "{\"lo_ns\": %s, \"hi_ns\": %llu, \"count\": %llu}", lo,
                                    (unsigned long long) hi, (unsigned long long) n);
}

/* The buckets as the JSON array of the "histogram" key, or (LINES) as the
 * jsonl lines that match its elements one for one; NULL when out of memory. */
static char *corr_histogram_json(const struct corr_totals *t, bool lines)
{
        sqlite3_str *s = sqlite3_str_new(NULL);
        bool first = true;
        char lo[24];

        if (!lines)
                sqlite3_str_appendall(s, "[");
        /* latencies <= 0 (an end stamped before its begin): below 1 ns, from no bound */
        if (t->hist[64]) {
                corr_bucket_json(s, lines, "null", 1, t->hist[64]);
                first = false;
        }
        for (int b = 0; b < 64; b++)
                if (t->hist[b]) {
                        if (!first && !lines)
                                sqlite3_str_appendall(s, ", ");
                        snprintf(lo, sizeof(lo), "%llu", 1ULL << b);
                        corr_bucket_json(s, lines, lo, b < 63 ? 1ULL << (b + 1) : 0, t->hist[b]);
                        first = false;
                }
        if (!lines)
                sqlite3_str_appendall(s, "]");
        /* jsonl without a bucket is no line: "", which sqlite3_str_finish()
         * gives as NULL, as it gives a failed allocation */
        if (sqlite3_str_errcode(s) == SQLITE_OK && sqlite3_str_length(s) == 0) {
                sqlite3_free(sqlite3_str_finish(s));
                return sqlite3_mprintf("%s", "");
        }
        return sqlite3_str_finish(s);
}

/* tq_mean_ns(latency), an aggregate: the mean of the integers, exact and
 * rounded half away from zero, as round() does; avg() is a double, inexact
 * past 2^53 ns (1844674407370953984 for 1844674407370954001).  The sum is
 * 128-bit: 2^63 latencies of INT64_MAX do not overflow it. */
/* tq_mean_ns()'s state.  SQLite's aggregate context is only 8-byte aligned
 * and an __int128 wants 16 (UBSan: misaligned access), so the state is
 * copied in and out of it. */
struct corr_mean {
        __int128 sum;
        int64_t n;
};

static void corr_mean_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
        void *p = sqlite3_aggregate_context(ctx, sizeof(struct corr_mean));
        struct corr_mean m;

        (void) argc;
        if (!p) {
                sqlite3_result_error_nomem(ctx);
                return;
        }
        if (sqlite3_value_type(argv[0]) != SQLITE_INTEGER)
                return;
        memcpy(&m, p, sizeof(m));
        m.sum += sqlite3_value_int64(argv[0]);
        m.n++;
        memcpy(p, &m, sizeof(m));
}

static void corr_mean_final(sqlite3_context *ctx)
{
        void *p = sqlite3_aggregate_context(ctx, 0);
        struct corr_mean m;
        __int128 q, rem;

        if (p)
                memcpy(&m, p, sizeof(m));
        if (!p || !m.n) {
                sqlite3_result_null(ctx);
                return;
        }
        q = m.sum / m.n;
        rem = m.sum % m.n;      /* the sign of the sum, |rem| < n */
        if (2 * (rem < 0 ? -rem : rem) >= m.n)
                q += rem < 0 ? -1 : 1;
        sqlite3_result_int64(ctx, (int64_t) q);
}

/*
 * Fill temp.tq_pairs_stats, one row per --by group: count, min, exact
 * nearest-rank p50/p90/p99 (the k-th latency, k = ceil(p * n / 100), read
 * through an index), max and mean (tq_mean_ns()), of the pairs with a
 * latency (NULL: an end without a time, corr_pairs_event()).
 */
static int corr_pairs_stats(sqlite3 *db, struct tq_error *err)
{
        static const int pct[3] = { 50, 90, 99 };
        sqlite3_stmt *g = NULL, *k = NULL, *ins = NULL;
        int r, rc;

        if (sqlite3_create_function(db, "tq_mean_ns", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
                                    NULL, corr_mean_step, corr_mean_final) != SQLITE_OK)
                return tq_error_set(err, -ENOMEM, "%s: %s", store_name(db), sqlite3_errmsg(db));
        r = store_exec(db, "CREATE INDEX IF NOT EXISTS temp.tq_pairs_latency ON tq_pairs (grp, latency)", err);
        if (r < 0)
                return r;
        if ((r = corr_prepare(db, "SELECT grp, count(*), min(latency), max(latency),"
                              " tq_mean_ns(latency) FROM temp.tq_pairs WHERE latency NOT NULL"
                              " GROUP BY grp", &g, err)) < 0 ||
            (r = corr_prepare(db, "SELECT latency FROM temp.tq_pairs WHERE grp IS ?1"
                              " AND latency NOT NULL ORDER BY latency LIMIT 1 OFFSET ?2",
                              &k, err)) < 0 ||
            (r = corr_prepare(db, "INSERT INTO temp.tq_pairs_stats VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                              &ins, err)) < 0)
                goto out;
        while ((rc = sqlite3_step(g)) == SQLITE_ROW) {
                int64_t n = sqlite3_column_int64(g, 1);

                sqlite3_bind_value(ins, 1, sqlite3_column_value(g, 0));
                sqlite3_bind_int64(ins, 2, n);
                sqlite3_bind_value(ins, 3, sqlite3_column_value(g, 2));
                sqlite3_bind_value(ins, 7, sqlite3_column_value(g, 3));
                sqlite3_bind_value(ins, 8, sqlite3_column_value(g, 4));
                for (int i = 0; i < 3; i++) {
                        sqlite3_bind_value(k, 1, sqlite3_column_value(g, 0));
                        sqlite3_bind_int64(k, 2, (n * pct[i] + 99) / 100 - 1);
                        if (sqlite3_step(k) != SQLITE_ROW)
                                goto sqlerr;
                        sqlite3_bind_int64(ins, 4 + i, sqlite3_column_int64(k, 0));
                        sqlite3_reset(k);
                }
                if (sqlite3_step(ins) != SQLITE_DONE || sqlite3_reset(ins) != SQLITE_OK)
                        goto sqlerr;
        }
        if (rc == SQLITE_DONE)
                goto out;
sqlerr:
        r = query_error(db, sqlite3_extended_errcode(db), err);
out:
        sqlite3_finalize(g);
        sqlite3_finalize(k);
        sqlite3_finalize(ins);
        /* ours only, as tq_bytes_sum() is leaks' (corr_leaks_report()) */
        (void) sqlite3_create_function(db, "tq_mean_ns", 1, SQLITE_UTF8, NULL, NULL, NULL, NULL);
        return r;
}

/* How the Open section shows a correlator: as its arguments' kind says, as
 * --by's value is (it was ptr() whatever the kind, a request number 42 as
 * 0x2a): a pointer as ptr(), an unsigned one past INT64_MAX in full, signed
 * when the begin and end events' correlators are of several kinds. */
static const char *corr_key_shown(const struct corr_opts *o)
{
        const struct corr_list *lists[2] = { &o->a, &o->b };
        bool ptr = true, unsig = true;

        for (int l = 0; l < 2; l++)
                for (size_t i = 0; i < lists[l]->n; i++) {
                        ptr &= lists[l]->v[i].key_kind == 'p';
                        unsig &= lists[l]->v[i].key_kind == 'p' || lists[l]->v[i].key_kind == 'u';
                }
        return ptr ? "ptr(key)" : unsig ? "CASE WHEN key < 0 THEN u64(key) ELSE key END" : "key";
}

static int corr_pairs_report(sqlite3 *db, const struct corr_opts *o, const struct corr_totals *t,
                             struct tq_error *err)
{
        static const char *const titles[] = { "Latency", "Open" };
        static const char *const keys[] = { "latency", "open" };
        sqlite3_str *s = sqlite3_str_new(db);
        char *stats, *totals = NULL, *hist = NULL, *open = NULL;
        const char *sections[2], *grp = "grp", *order = "grp";
        bool json;
        int r;

        /* a --by value as its argument shows elsewhere: a pointer as ptr(),
         * an unsigned one past INT64_MAX in full, and in that order; signed
         * when the begin events' arguments are of several kinds */
        if (o->by) {
                bool ptr = true, unsig = true;

                for (size_t i = 0; i < o->a.n; i++)
                        if (o->a.v[i].by_pos >= 0) {
                                ptr &= o->a.v[i].extra_kind == 'p';
                                unsig &= o->a.v[i].extra_kind == 'p' || o->a.v[i].extra_kind == 'u';
                        }
                if (ptr || unsig)
                        order = "grp < 0, grp";
                if (ptr)
                        grp = "ptr(grp)";
                else if (unsig)
                        grp = "CASE WHEN grp < 0 THEN u64(grp) ELSE grp END";
        }
        if (o->by) {
                /* the group column is named after the field, unless that is
                 * a statistic's name (JSON would have two keys alike): then
                 * "by_" and the field */
                static const char *const stat[] = { "count", "min_ns", "p50_ns", "p90_ns",
                                                    "p99_ns", "max_ns", "mean_ns" };
                bool clash = false;

                for (size_t i = 0; i < sizeof(stat) / sizeof(stat[0]); i++)
                        clash |= sqlite3_stricmp(stat[i], o->by) == 0;
                sqlite3_str_appendf(s, "SELECT %s AS \"%s%w\", ", grp, clash ? "by_" : "", o->by);
        } else
                sqlite3_str_appendall(s, "SELECT ");
        sqlite3_str_appendf(s, "count, min_ns, p50_ns, p90_ns, p99_ns, max_ns, mean_ns"
                            " FROM temp.tq_pairs_stats ORDER BY %s", order);
        stats = sqlite3_str_finish(s);
        totals = sqlite3_mprintf(
                "SELECT %llu AS begins, %llu AS ends, %llu AS matched,"
                " (SELECT count(*) FROM temp.tq_pairs_open WHERE kind = 'in-flight') AS in_flight,"
                " (SELECT count(*) FROM temp.tq_pairs_open WHERE kind = 'end-without-begin') AS unmatched_ends,"
                " (SELECT count(*) FROM temp.tq_pairs_open WHERE kind = 'duplicate-begin') AS duplicate_begins,"
                " %llu AS processes, %llu AS no_correlator",
                (unsigned long long) t->a, (unsigned long long) t->b,
                (unsigned long long) t->matched, (unsigned long long) t->procs,
                (unsigned long long) t->nokey);
        json = o->format == QUERY_JSON || o->format == QUERY_JSONL;
        if (o->histogram && json)
                hist = corr_histogram_json(t, o->format == QUERY_JSONL);
        if (!stats || !totals || (o->histogram && json && !hist)) {
                r = -ENOMEM;
                goto out;
        }
        r = corr_pairs_stats(db, err);
        if (r < 0)
                goto out;
        sections[0] = stats;
        open = sqlite3_mprintf("SELECT ns_time(time) AS time, host, pid, tid, kind,"
                               " CASE WHEN typeof(key) = 'integer' THEN %s ELSE key END AS key,"
                               " event, code_file || ':' || code_line AS site, code_func AS func"
                               " FROM temp.tq_pairs_open ORDER BY boot, host, pid, id, rowid",
                               corr_key_shown(o));
        if (!open) {
                r = tq_error_set(err, -ENOMEM, "out of memory");
                goto out;
        }
        sections[1] = open;
        r = corr_print(db, o, sections, titles, keys, 2, totals, hist, err);
        if (r == 0 && o->histogram && o->format == QUERY_TABLE)
                corr_histogram_print(t);
        else if (r == 0 && o->histogram && o->format == QUERY_CSV)
                corr_histogram_csv(t);
out:
        sqlite3_free(stats);
        sqlite3_free(totals);
        sqlite3_free(hist);
        sqlite3_free(open);
        return r;
}

/* --write: keep the results as main tables for later queries, replacing
 * only those of the same command. */
static const char corr_leaks_save_sql[] =
        "DROP TABLE IF EXISTS main.tq_leaks; DROP TABLE IF EXISTS main.tq_bad_frees;"
        "CREATE TABLE main.tq_leaks AS SELECT * FROM temp.tq_leaks;"
        "CREATE TABLE main.tq_bad_frees AS SELECT * FROM temp.tq_bad_frees;";
static const char corr_pairs_save_sql[] =
        "DROP TABLE IF EXISTS main.tq_pairs; DROP TABLE IF EXISTS main.tq_pairs_open;"
        "DROP TABLE IF EXISTS main.tq_pairs_stats;"
        "CREATE TABLE main.tq_pairs AS SELECT * FROM temp.tq_pairs;"
        "CREATE TABLE main.tq_pairs_open AS SELECT * FROM temp.tq_pairs_open;"
        "CREATE TABLE main.tq_pairs_stats AS SELECT * FROM temp.tq_pairs_stats;";

/*
 * The exit status of leaks or pairs failing with R (traceql.1 EXIT STATUS)
 * once the database is open: the --sql's failure (SQL) as a query's; in
 * their own work, an event or argument named that is not there, or a string
 * (-ENOENT, -EINVAL: corr_resolve()), is the input's, as a full or failing
 * disk is, and any other failure of their statements (a damaged page, a
 * table of the schema that is missing) the database's, whether they were
 * looking the names up or scanning.
 */
static int corr_exit(int r, bool sql)
{
        if (r == -ENOMEM)
                return TQ_EXIT_NOMEM;
        if (ferror(stdout))
                return TQ_EXIT_OUTPUT;
        if (r == -ENOSPC || r == -ENXIO || (!sql && (r == -ENOENT || r == -EINVAL)))
                return TQ_EXIT_INPUT;
        if (sql && (r == -EIO || r == -EROFS))
                return TQ_EXIT_SQL;
        return TQ_EXIT_DB;
}

/* Does SQL hold a statement, not only blanks and comments?  A --sql that
 * holds none adds no section: it printed the blank line before one, and
 * nothing after it.  SQL that does not compile holds one: running it says
 * what is wrong. */
static bool corr_sql_has_statement(sqlite3 *db, const char *sql)
{
        while (*sql) {
                sqlite3_stmt *st = NULL;
                const char *tail = NULL;

                if (sqlite3_prepare_v2(db, sql, -1, &st, &tail) != SQLITE_OK || st) {
                        sqlite3_finalize(st);
                        return true;
                }
                if (!tail || tail == sql)
                        break;
                sql = tail;
        }
        return false;
}

int correlate_main(int argc, char **argv, bool pairs)
{
        struct corr_opts o = { .pairs = pairs };
        struct tq_error err = { "" }, unwritable = { "" };
        struct corr_totals tot = { 0 };
        sqlite3 *db = NULL, *made = NULL;
        char *path = NULL;
        bool any, created = false, failed = false;
        int r, ret = TQ_EXIT_OK;

        if (corr_parse(argc, argv, &o) < 0) {
                corr_usage(stderr, pairs);
                ret = TQ_EXIT_USAGE;
                goto out;
        }
        if (!o.have_format)
                o.format = isatty(STDOUT_FILENO) ? QUERY_TABLE : QUERY_CSV;
        r = o.db ? ((path = strdup(o.db)) ? 0 : -ENOMEM) : store_default_path(&path, &err);
        /* as a query: a database this user may only read is not synced; and
         * a database the sync made goes when leaks or pairs fail after it,
         * when the sync stored no event (store_close()), but not with
         * --write, as a query's (traceql_query()): its connection is kept
         * open until then, so that it is the file it made that goes */
        if (r == 0 && !o.no_sync && (o.write || store_writable(path, &unwritable) == 0)) {
                r = store_open_created(path, STORE_WRITE, &db, &created, &err);
                if (r < 0) {
                        ret = r == -ENOMEM ? TQ_EXIT_NOMEM : TQ_EXIT_DB;
                        goto fail;
                }
                r = import_journal_sync(db, &any, &err);
                if (r == 0 && created && !o.write)
                        made = db;
                else
                        store_close(db, created && r < 0);     /* a database it made goes */
                db = NULL;
                if (r < 0) {
                        ret = r == -ENOMEM ? TQ_EXIT_NOMEM : TQ_EXIT_INPUT;
                        goto fail;
                }
        }
        if (r == 0)
                r = store_open(path, o.write ? STORE_WRITE : STORE_READONLY, &db, &err);
        if (r < 0) {
                ret = r == -ENOMEM ? TQ_EXIT_NOMEM : TQ_EXIT_DB;
                goto fail;
        }
        if (unwritable.msg[0])
                fprintf(stderr, "traceql: %s: not synced, the query reads the database as it "
                        "is\n", unwritable.msg);
        r = corr_resolve(db, &o, &err);
        if (r == 0)
                r = corr_scan(db, &o, &tot, &err);
        if (r == 0)
                r = pairs ? corr_pairs_report(db, &o, &tot, &err) : corr_leaks_report(db, &o, &tot, &err);
        if (r == 0 && o.write)
                r = store_exec(db, pairs ? corr_pairs_save_sql : corr_leaks_save_sql, &err);
        if (r < 0) {
                ret = corr_exit(r, false);
                goto fail;
        }
        if (o.sql && corr_sql_has_statement(db, o.sql)) {
                if (o.format == QUERY_TABLE || o.format == QUERY_CSV)
                        putchar('\n');     /* a section of its own */
                /* in jsonl under a key, as the report's rows are */
                r = query_run_keyed(db, o.sql, o.format, "sql", stdout, &err);
                if (r < 0) {
                        ret = corr_exit(r, true);
                        goto fail;
                }
        }
        if (!pairs && tot.leaks > 0)
                ret = TQ_EXIT_LEAKS;
        goto out;
fail:
        if (r == -ENOMEM && !err.msg[0])
                snprintf(err.msg, sizeof(err.msg), "out of memory");
        fprintf(stderr, "traceql: %s\n", err.msg);
        failed = true;
out:
        sqlite3_close_v2(db);
        store_close(made, failed);      /* after the query's: no lock of ours left */
        free(path);
        free(o.a.v);
        free(o.b.v);
        return ret;
}
