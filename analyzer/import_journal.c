/*
 * import_journal.c - trace events from journald, through the sd-journal API.
 *
 * Reads the local journal (or a directory, or journal files such as
 * systemd-journal-remote writes) from where the last import of the same
 * source stopped, and feeds every entry that carries TRACE_EVENT, plus
 * journald's own "Suppressed N messages" entries, to ingest.c.  sd-journal
 * cannot match "field present", so without --identifier the match is the
 * list of TRACE_EVENT values the journal holds (sd_journal_query_unique);
 * with --identifier it is SYSLOG_IDENTIFIER, and entries lacking TRACE_EVENT
 * are skipped while reading.  Commits every IMPORT_JOURNAL_BATCH entries with
 * the cursor of the last one, so a killed import resumes there.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <systemd/sd-journal.h>

#include "traceql.h"

#define IMPORT_JOURNAL_BATCH 10000
#define IMPORT_JOURNAL_MAX_EVENT_MATCHES 512    /* beyond that, read everything */
#define IMPORT_JOURNAL_SUPPRESSED "MESSAGE_ID=fe6faa94e7774663a0da52717891d8ef"

/* State of one import run. */
struct import_journal {
        sd_journal *j;
        struct ingest *ing;
        struct ingest_entry e;
        char *cursor;                   /* of the last entry read, malloc'ed by sd-journal */
        const struct import_journal_opts *o;
        uint64_t first_us, last_us;     /* time range, for the progress bar */
        uint64_t seen;                  /* entries read */
        uint64_t kill_after;            /* $TRACEQL_TEST_KILL_AFTER: SIGKILL after so many */
        struct timespec drawn;          /* when the progress bar was last drawn */
};

static int64_t import_journal_now_ms(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Build the source's location and filter strings (malloc'ed). */
static int import_journal_names(const struct import_journal_opts *o, char **ret_location,
                                char **ret_filter)
{
        sqlite3_str *loc = sqlite3_str_new(NULL), *flt = sqlite3_str_new(NULL);
        char real[PATH_MAX];
        size_t i;

        if (o->directory)
                sqlite3_str_appendf(loc, "dir:%s", realpath(o->directory, real) ? real : o->directory);
        else if (o->files) {
                sqlite3_str_appendall(loc, "files:");
                for (i = 0; o->files[i]; i++)
                        sqlite3_str_appendf(loc, "%s%s", i ? "\n" : "",
                                            realpath(o->files[i], real) ? real : o->files[i]);
        }
        for (i = 0; o->identifiers && o->identifiers[i]; i++)
                sqlite3_str_appendf(flt, "%s%s", i ? "," : "", o->identifiers[i]);
        /* sqlite3_str_finish() gives NULL for an empty string: end with a NUL */
        sqlite3_str_appendchar(loc, 1, 'x');
        sqlite3_str_appendchar(flt, 1, 'x');
        *ret_location = sqlite3_str_finish(loc);
        *ret_filter = sqlite3_str_finish(flt);
        if (*ret_location)
                (*ret_location)[strlen(*ret_location) - 1] = '\0';
        if (*ret_filter)
                (*ret_filter)[strlen(*ret_filter) - 1] = '\0';
        if (!*ret_location || !*ret_filter) {
                sqlite3_free(*ret_location);
                sqlite3_free(*ret_filter);
                return -ENOMEM;
        }
        return 0;
}

static int import_journal_open(const struct import_journal_opts *o, sd_journal **ret_j,
                               struct tq_error *err)
{
        int r;

        if (o->directory)
                r = sd_journal_open_directory(ret_j, o->directory, 0);
        else if (o->files)
                r = sd_journal_open_files(ret_j, (const char **) o->files, 0);
        else
                r = sd_journal_open(ret_j, SD_JOURNAL_LOCAL_ONLY);
        if (r < 0)
                return tq_error_set(err, r, "%s: cannot open journal: %s",
                                    o->directory ? o->directory : o->files ? o->files[0] : "journal",
                                    strerror(-r));
        return 0;
}

static int import_journal_add_boot(sd_journal *j, const char *boot)
{
        char m[64];

        if (!boot)
                return 0;
        snprintf(m, sizeof(m), "_BOOT_ID=%s", boot);
        return sd_journal_add_match(j, m, 0);
}

/* Narrow the journal to trace entries (and journald's suppression notes). */
static int import_journal_matches(sd_journal *j, const struct import_journal_opts *o)
{
        const void *data;
        size_t len, n = 0, i;
        char **values = NULL;
        bool narrowed = false;
        int r = 0;

        for (i = 0; o->identifiers && o->identifiers[i]; i++) {
                char *m;

                if (asprintf(&m, "SYSLOG_IDENTIFIER=%s", o->identifiers[i]) < 0)
                        return -ENOMEM;
                r = sd_journal_add_match(j, m, 0);
                free(m);
                if (r < 0)
                        goto out;
                narrowed = true;
        }
        if (!narrowed && !o->follow) {
                r = sd_journal_query_unique(j, "TRACE_EVENT");
                if (r < 0)
                        goto out;
                values = calloc(IMPORT_JOURNAL_MAX_EVENT_MATCHES, sizeof(*values));
                if (!values) {
                        r = -ENOMEM;
                        goto out;
                }
                SD_JOURNAL_FOREACH_UNIQUE(j, data, len) {
                        if (n == IMPORT_JOURNAL_MAX_EVENT_MATCHES) {
                                n++;
                                break;
                        }
                        values[n] = strndup(data, len);
                        if (!values[n]) {
                                r = -ENOMEM;
                                goto out;
                        }
                        n++;
                }
                for (i = 0; n <= IMPORT_JOURNAL_MAX_EVENT_MATCHES && i < n; i++) {
                        r = sd_journal_add_match(j, values[i], 0);
                        if (r < 0)
                                goto out;
                        narrowed = true;
                }
                if (n == 0) {
                        /* No trace event at all: match what cannot exist. */
                        r = sd_journal_add_match(j, "TRACE_EVENT=", 0);
                        if (r < 0)
                                goto out;
                        narrowed = true;
                }
        }
        r = import_journal_add_boot(j, o->boot);
        if (r < 0 || !narrowed)
                goto out;       /* reading everything: the suppression notes come along */
        r = sd_journal_add_disjunction(j);
        if (r >= 0)
                r = sd_journal_add_match(j, IMPORT_JOURNAL_SUPPRESSED, 0);
        if (r >= 0)
                r = import_journal_add_boot(j, o->boot);
out:
        for (i = 0; values && i < n && i < IMPORT_JOURNAL_MAX_EVENT_MATCHES; i++)
                free(values[i]);
        free(values);
        return r < 0 ? r : 0;
}

/* Position the journal after CURSOR, or at SINCE, or at the head. */
static int import_journal_seek(struct import_journal *im, const char *cursor)
{
        int r;

        if (cursor) {
                r = sd_journal_seek_cursor(im->j, cursor);
                if (r < 0)
                        return r;
                r = sd_journal_next(im->j);
                if (r > 0 && sd_journal_test_cursor(im->j, cursor) <= 0)
                        r = sd_journal_previous(im->j);   /* that entry is gone: read this one */
                return r < 0 ? r : 0;
        }
        if (im->o->since_us)
                return sd_journal_seek_realtime_usec(im->j, im->o->since_us);
        return sd_journal_seek_head(im->j);
}

/* Where the journal ends, for the progress bar; call before seeking. */
static void import_journal_range(struct import_journal *im)
{
        if (sd_journal_seek_tail(im->j) >= 0 && sd_journal_previous(im->j) > 0)
                (void) sd_journal_get_realtime_usec(im->j, &im->last_us);
}

static void import_journal_progress(struct import_journal *im, uint64_t now_us, bool done)
{
        static const char bar[] = "##############################";
        int pct = 100, width;

        if (!im->o->progress)
                return;
        if (done) {
                fputs("\r\033[K", stderr);
                return;
        }
        if (im->last_us > im->first_us && now_us >= im->first_us)
                pct = (int) ((now_us - im->first_us) * 100 / (im->last_us - im->first_us));
        if (pct > 100)
                pct = 100;
        width = pct * 30 / 100;
        fprintf(stderr, "\rtraceql: importing [%-30.*s] %3d%% %" PRIu64 " entries", width, bar,
                pct, ingest_added(im->ing));
        fflush(stderr);
}

/* Read the current entry into im->e. */
static int import_journal_read(struct import_journal *im, uint64_t *ret_realtime)
{
        const void *data;
        size_t len;
        sd_id128_t boot;
        uint64_t mono;
        char *cursor = NULL;
        int r;

        ingest_entry_reset(&im->e);
        r = sd_journal_get_realtime_usec(im->j, ret_realtime);
        if (r < 0)
                return r;
        im->e.realtime_us = (int64_t) *ret_realtime;
        im->e.has_realtime = true;
        if (sd_journal_get_monotonic_usec(im->j, &mono, &boot) >= 0) {
                im->e.monotonic_us = (int64_t) mono;
                im->e.has_monotonic = true;
        }
        r = sd_journal_get_cursor(im->j, &cursor);
        if (r < 0)
                return r;
        free(im->cursor);
        im->cursor = cursor;
        r = ingest_entry_set_cursor(&im->e, cursor, strlen(cursor));
        if (r < 0)
                return r;
        while ((r = sd_journal_enumerate_available_data(im->j, &data, &len)) > 0) {
                r = ingest_entry_add(&im->e, data, len);
                if (r < 0)
                        return r;
        }
        return r;
}

/* Import until the end of the journal (or the until time). *ret_more is
 * false when --until was passed. */
static int import_journal_batch(struct import_journal *im, bool *ret_more, struct tq_error *err)
{
        uint64_t realtime;
        int r;

        *ret_more = true;
        for (;;) {
                r = sd_journal_next(im->j);
                if (r < 0)
                        return tq_error_set(err, r, "journal: cannot read: %s", strerror(-r));
                if (r == 0)
                        return 0;
                r = import_journal_read(im, &realtime);
                if (r == -ENOMEM)
                        return tq_error_set(err, r, "out of memory");
                if (r < 0)
                        continue;       /* a corrupt entry: skip it, as journalctl does */
                if (im->o->until_us && realtime > im->o->until_us) {
                        *ret_more = false;
                        return 0;
                }
                if (im->o->since_us && realtime < im->o->since_us)
                        continue;
                if (!im->first_us)
                        im->first_us = realtime;
                r = ingest_entry(im->ing, &im->e, err);
                if (r < 0)
                        return r;
                if (im->kill_after && im->seen + 1 == im->kill_after)
                        raise(SIGKILL);         /* tests: die mid-transaction */
                if (++im->seen % IMPORT_JOURNAL_BATCH == 0) {
                        r = ingest_set_position(im->ing, im->cursor, -1);
                        if (r == 0)
                                r = ingest_commit(im->ing, err);
                        if (r < 0)
                                return r == -ENOMEM ? tq_error_set(err, r, "out of memory") : r;
                }
                if (im->o->progress && im->seen % 4096 == 0) {
                        int64_t now = import_journal_now_ms();

                        if (now - (im->drawn.tv_sec * 1000 + im->drawn.tv_nsec / 1000000) >= 100) {
                                import_journal_progress(im, realtime, false);
                                im->drawn.tv_sec = now / 1000;
                                im->drawn.tv_nsec = (now % 1000) * 1000000;
                        }
                }
        }
}

/* Commit what was read, with the cursor of the last entry. */
static int import_journal_commit(struct import_journal *im, struct tq_error *err)
{
        int r = 0;

        if (im->cursor)
                r = ingest_set_position(im->ing, im->cursor, -1);
        if (r < 0)
                return tq_error_set(err, r, "out of memory");
        return ingest_commit(im->ing, err);
}

static int import_journal_loop(struct import_journal *im, struct tq_error *err)
{
        bool more;
        int r;

        for (;;) {
                r = import_journal_batch(im, &more, err);
                if (r < 0 || !im->o->follow || !more)
                        return r;
                r = import_journal_commit(im, err);
                if (r < 0)
                        return r;
                do {
                        if (im->o->stop && *im->o->stop)
                                return 0;
                        r = sd_journal_wait(im->j, 250000);
                        if (r < 0 && r != -EINTR)
                                return tq_error_set(err, r, "journal: cannot wait: %s", strerror(-r));
                } while (r == SD_JOURNAL_NOP || r == -EINTR);
        }
}

int import_journal(sqlite3 *db, const struct import_journal_opts *o, uint64_t *ret_added,
                   struct tq_error *err)
{
        struct import_journal im = { .o = o };
        char *location = NULL, *filter = NULL, *cursor = NULL;
        int r;

        if (getenv("TRACEQL_TEST_KILL_AFTER"))
                im.kill_after = strtoull(getenv("TRACEQL_TEST_KILL_AFTER"), NULL, 10);
        r = import_journal_names(o, &location, &filter);
        if (r < 0) {
                tq_error_set(err, r, "out of memory");
                goto out;
        }
        r = import_journal_open(o, &im.j, err);
        if (r < 0)
                goto out;
        (void) sd_journal_set_data_threshold(im.j, 0);     /* whole values: strings are data */
        r = import_journal_matches(im.j, o);
        if (r < 0) {
                tq_error_set(err, r, "journal: cannot match entries: %s", strerror(-r));
                goto out;
        }
        r = ingest_begin(db, "journal", location, filter, &im.ing, &cursor, NULL, err);
        if (r < 0)
                goto out;
        if (o->progress)
                import_journal_range(&im);
        r = import_journal_seek(&im, cursor);
        if (r < 0) {
                tq_error_set(err, r, "journal: cannot seek: %s", strerror(-r));
                goto out;
        }
        r = import_journal_loop(&im, err);
        import_journal_progress(&im, 0, true);
        if (r < 0)
                goto out;
        if (im.cursor)
                r = ingest_set_position(im.ing, im.cursor, -1);
        if (r == 0 && ret_added)
                *ret_added = ingest_added(im.ing);
        r = ingest_end(im.ing, r == 0, err);
        im.ing = NULL;
out:
        (void) ingest_end(im.ing, false, NULL);
        ingest_entry_free(&im.e);
        sd_journal_close(im.j);
        free(im.cursor);
        free(cursor);
        sqlite3_free(location);
        sqlite3_free(filter);
        return r;
}

/* Split S at SEP into a NULL-terminated array of malloc'ed strings. */
static char **import_journal_split(const char *s, char sep)
{
        size_t n = 2, i = 0;
        const char *p;
        char **v;

        for (p = s; *p; p++)
                n += *p == sep;
        v = calloc(n, sizeof(*v));
        if (!v)
                return NULL;
        for (p = s;; i++) {
                const char *q = strchr(p, sep);
                size_t len = q ? (size_t) (q - p) : strlen(p);

                v[i] = strndup(p, len);
                if (!v[i])
                        goto fail;
                if (!q)
                        break;
                p = q + 1;
        }
        return v;
fail:
        for (i = 0; v[i]; i++)
                free(v[i]);
        free(v);
        return NULL;
}

static void import_journal_strv_free(char **v)
{
        size_t i;

        for (i = 0; v && v[i]; i++)
                free(v[i]);
        free(v);
}

/* Replay one stored journal source. */
static int import_journal_replay(sqlite3 *db, const char *location, const char *filter,
                                 struct tq_error *err)
{
        struct import_journal_opts o = { 0 };
        char **files = NULL, **idents = NULL;
        int r = -ENOMEM;

        if (strncmp(location, "dir:", 4) == 0)
                o.directory = location + 4;
        else if (strncmp(location, "files:", 6) == 0) {
                files = import_journal_split(location + 6, '\n');
                if (!files)
                        goto out;
                o.files = files;
        }
        if (*filter) {
                idents = import_journal_split(filter, ',');
                if (!idents)
                        goto out;
                o.identifiers = idents;
        }
        r = import_journal(db, &o, NULL, err);
out:
        import_journal_strv_free(files);
        import_journal_strv_free(idents);
        if (r == -ENOMEM)
                tq_error_set(err, r, "out of memory");
        return r;
}

int import_journal_sync(sqlite3 *db, bool *ret_any, struct tq_error *err)
{
        sqlite3_stmt *st = NULL;
        char **locs = NULL;
        size_t n = 0, size = 0, i;
        int rc, r = 0;
        bool any = false;

        rc = sqlite3_prepare_v2(db, "SELECT kind, location, filter FROM sources ORDER BY id",
                                -1, &st, NULL);
        while (rc == SQLITE_OK || rc == SQLITE_ROW) {
                rc = sqlite3_step(st);
                if (rc != SQLITE_ROW)
                        break;
                any = true;
                if (strcmp((const char *) sqlite3_column_text(st, 0), "journal") != 0)
                        continue;
                if (n + 2 > size) {
                        char **v = realloc(locs, (size ? size * 2 : 8) * sizeof(*v));

                        if (!v) {
                                r = -ENOMEM;
                                goto out;
                        }
                        locs = v;
                        size = size ? size * 2 : 8;
                }
                locs[n] = strdup((const char *) sqlite3_column_text(st, 1));
                locs[n + 1] = strdup((const char *) sqlite3_column_text(st, 2));
                n += 2;
                if (!locs[n - 2] || !locs[n - 1]) {
                        r = -ENOMEM;
                        goto out;
                }
        }
        if (rc != SQLITE_DONE) {
                r = tq_error_set(err, -EIO, "%s: %s", store_name(db), sqlite3_errmsg(db));
                goto out;
        }
        sqlite3_finalize(st);
        st = NULL;
        if (!any)
                r = import_journal_replay(db, "", "", err);     /* a new database: the local journal */
        for (i = 0; r == 0 && i < n; i += 2)
                r = import_journal_replay(db, locs[i], locs[i + 1], err);
        *ret_any = any;
out:
        sqlite3_finalize(st);
        for (i = 0; i < n; i++)
                free(locs[i]);
        free(locs);
        if (r == -ENOMEM)
                tq_error_set(err, r, "out of memory");
        return r;
}
