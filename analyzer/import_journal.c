/*
 * import_journal.c - trace events from journald, through the sd-journal API.
 *
 * Reads the local journal (or a directory, or journal files such as
 * systemd-journal-remote writes) from where the last import of the same
 * source stopped, and feeds every entry that carries TRACE_EVENT, plus
 * journald's own "Suppressed N messages" entries, to ingest.c.  Commits every
 * IMPORT_JOURNAL_BATCH entries with its position, so a killed import resumes
 * there.
 *
 * Position.  sd-journal orders the entries of one seqnum id (one host's
 * journal) by seqnum, and those of several (the files of several hosts, as
 * systemd-journal-remote writes them) by time; so a host whose entries come
 * late (an upload that lags) adds entries before the last one read, which a
 * walk, that never steps back, passes over.  The position is therefore the
 * cursor of the last entry imported of each seqnum id (sources.cursor, one a
 * line; a database of before holds one).  Each round, with several seqnum
 * ids, starts after the earliest of them whose seqnum id has entries after it
 * (import_journal_start()), reads each known seqnum id only up to its last
 * entry when the round began (import_journal_bounds()), and skips, before
 * copying anything, the entries at or before their seqnum id's position.
 * With one seqnum id (the local journal) the streams start at its cursor and
 * go on from round to round, as they did with one cursor.  A host new to a
 * --directory, or to --file (a file empty until now, or one journal-remote
 * made anew), has no cursor to start before: each round looks for one by
 * its boots (import_journal_newcomers()).
 *
 * Matching.  sd-journal evaluates an OR of matches by searching every term
 * again for every entry and every file (measured here over the same 100k
 * entries: 2 terms 2.5x, 10 terms 5x, 21 terms 30x slower than one term, and
 * most of it munmap/mmap of its 8 MiB windows).  So the reader gives each
 * match its own sd_journal, a stream, and merges the streams itself in
 * sd-journal's order (the order of cursors, import_journal_key_cmp()): one
 * stream per --identifier, or, without one, per TRACE_EVENT value the
 * journal holds once the first round's end is set (sd-journal cannot match
 * "field present"), plus one for journald's suppression notes.  With too
 * many values, or with --follow and no --identifier (event names not seen
 * yet), one stream reads every entry and entries lacking TRACE_EVENT are
 * skipped.  A stream found at its end is not asked again within a round, so
 * with several streams each round only reads up to the journal's last entry
 * when it began: later entries wait for the next round, and no stream can
 * miss one that sorts before what the others handed out.  The round ends
 * for every stream at the first entry past its end (import_journal_pick()).
 *
 * Two threads share the work, since reading the journal and writing SQLite
 * cost about the same: a reader thread walks the journal and copies each
 * entry's fields (and its cursor) into a slot of a ring (ring.c), doing no
 * more than that; the calling thread takes them out, parses the fields where
 * they lie (ingest_entry_parse()) and writes the rows.  The sd_journal
 * objects belong to the reader, the database to the writer (and WAL
 * checkpoints to a third thread, see ingest.c).  A long first round of one
 * seqnum id is read by two: the reader and a side thread, each half of it
 * (import_journal_split_round()).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <systemd/sd-journal.h>

#include "traceql.h"

#define IMPORT_JOURNAL_BATCH 10000
#define IMPORT_JOURNAL_CURSOR_SIZE 512  /* longer cursors (none are) are not kept */
#define IMPORT_JOURNAL_SYNC_WAIT_MS 2000        /* import_journal_writable() */
#define IMPORT_JOURNAL_MAX_STREAMS 8    /* more TRACE_EVENT values: read everything */
#define IMPORT_JOURNAL_BOOT_FILTER "boot="    /* a line after the identifiers in sources.filter */
#define IMPORT_JOURNAL_SUPPRESSED "MESSAGE_ID=fe6faa94e7774663a0da52717891d8ef"

/*
 * A slot's kind, besides ring.c's: HELD, an entry read after one that
 * --until left out.  It is written, but the source's position stays before
 * the entry left out, so the next import (without --until, or with a later
 * one) reads it; what it reads again is already there, and the rows' journal
 * identity turns it away.  SIDE, an entry the side reader read (see
 * import_journal_split_round()): held until the reader's part is over
 * (RING_SIDE_END), then an entry like any.
 */
enum { IMPORT_JOURNAL_HELD = RING_SIDE_END + 1, IMPORT_JOURNAL_SIDE };

/* Entries libsystemd could not give whole, said at the end of the import,
 * or of each round with --follow (import_journal_notes_say()): how many, and
 * the first's cursor and error. */
struct import_journal_note {
        uint64_t n;
        int r;
        char cursor[IMPORT_JOURNAL_CURSOR_SIZE];        /* "" when it has none */
};

/* An entry's place in sd-journal's order: the fields of its cursor. */
struct import_journal_key {
        char seqnum_id[33], boot_id[33];
        uint64_t seqnum, monotonic, realtime, xor_hash;
};

/* The reader's position in one seqnum id. */
struct import_journal_pos {
        struct import_journal_key key;  /* the last entry handed out, or the stored cursor's */
        uint64_t upto;                  /* this round reads its entries up to this seqnum */
        bool bounded;                   /* upto holds */
        bool guessed;                   /* key is one before a boot's first entry: nothing
                                         * of it was handed out (import_journal_newcomers()) */
};

#define IMPORT_JOURNAL_NO_POS SIZE_MAX

/* One sd_journal with one match (or a few, or none), read in order. */
struct import_journal_stream {
        sd_journal *j;
        char *cursor;                   /* of the entry it is on, when ready */
        struct import_journal_key key;  /* of that entry */
        size_t pos;                     /* its seqnum id's in pos[], or IMPORT_JOURNAL_NO_POS */
        bool ready;                     /* on an entry not handed out yet */
        bool at_end;                    /* found no more this round */
        bool landed;                    /* the seek put it on an entry to read */
};

/* State of one import run. */
struct import_journal {
        struct import_journal_stream streams[IMPORT_JOURNAL_MAX_STREAMS];       /* the reader's */
        size_t nstreams;
        sd_journal *tail;               /* no match: values, the journal's last entry */
        struct import_journal_key end;  /* this round stops here */
        bool empty;                     /* the journal had no entry at all this round */
        bool holding;                   /* the reader's: an entry past --until was left out */
        struct import_journal_pos *pos; /* the reader's: per seqnum id it knows */
        size_t npos, pos_size, pos_last;
        bool bounded;                   /* some pos[] is, this round */
        char (*settled)[33];            /* the reader's: boot ids whose first entry pos[] has a
                                         * seqnum id of (import_journal_newcomers()) */
        size_t nsettled, settled_size;
        bool started;                   /* the streams were positioned */
        struct ingest *ing;             /* the writer's */
        struct ingest_entry went;       /* the writer's: a slot's entry, parsed */
        const struct import_journal_opts *o;
        struct ring *ring;              /* the reader's; a slot's aux is its journald time */
        uint64_t first_us, last_us;     /* time range, for the progress bar */
        uint64_t seen;                  /* entries written */
        struct import_journal_note partial;     /* the reader's: imported without a field */
        struct import_journal_note skipped;     /* the reader's: not imported */
        /* the split of a round's entries between the reader and a side
         * thread (import_journal_split_round()) */
        bool split_tried;               /* the reader's: the first round looked at it */
        bool parse;                     /* the reader's: it parses what it reads, for a
                                         * writer that takes from two readers */
        uint64_t split_at;              /* the reader's, with sub: it reads the round's
                                         * seqnum id below it */
        uint64_t split_min;             /* the fewest seqnums a round needs to be split, and
                                         * twice the entries its rest must hold */
        uint64_t split_probe;           /* the entries read before deciding: split_min / 8 */
        uint64_t split_hi;              /* the reader's: the round's last seqnum, while it
                                         * may still be split; 0 */
        uint64_t round_lo, round_n;     /* the reader's: the round's first seqnum handed
                                         * out, and how many so far (while split_hi) */
        struct import_journal *sub;     /* the side thread's reader, NULL when not split */
        pthread_t side_thread;
        int side_r;                     /* the side thread's result, SIDE_ERR filled */
        struct tq_error side_err;
        atomic_bool halt;               /* to the side thread: stop */
        bool side_done;                 /* the writer's: RING_SIDE_END came */
        char side_cursor[IMPORT_JOURNAL_CURSOR_SIZE];   /* the writer's: of the side thread's
                                                         * last entry before it, "" for none */
        bool side_unsplit;              /* the side thread's: it could not start, and read
                                         * nothing: the reader reads on */
        uint64_t side_usage;            /* the side thread's: the bytes of journal files its
                                         * streams must each have open, as the reader's tail */
        bool say_split;                 /* $TRACEQL_TEST_SPLIT_MIN: say what was split */
        bool split_fail;                /* $TRACEQL_TEST_SPLIT_FAIL: the side thread cannot
                                         * open its streams (as if short of descriptors) */
        uint64_t kill_after;            /* $TRACEQL_TEST_KILL_AFTER: SIGKILL after so many */
        int kill_signal;                /* $TRACEQL_TEST_KILL_SIGNAL: another signal */
        unsigned pause_ms;              /* $TRACEQL_TEST_PAUSE_MS: the reader waits so long
                                         * once the first round's end is set */
        /* the writer's: of each seqnum id, the cursor of the last entry
         * imported, by this run or before (the source's position) */
        char (*cursors)[IMPORT_JOURNAL_CURSOR_SIZE];
        size_t ncursors;
        size_t cur;                     /* the seqnum id written last, likely the next */
        bool moved;                     /* cursors[] changed: store them */
};

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
        /* a boot is a filter too: its own source, with its own position
         * (another boot's entries, not read, may lie before that) */
        if (o->filter)
                sqlite3_str_appendall(flt, o->filter);
        for (i = 0; !o->filter && o->identifiers && o->identifiers[i]; i++)
                sqlite3_str_appendf(flt, "%s%s", i ? "," : "", o->identifiers[i]);
        if (!o->filter && o->boot)
                sqlite3_str_appendf(flt, "\n" IMPORT_JOURNAL_BOOT_FILTER "%s", o->boot);
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

/* Of FILES, which sd_journal_open_files() refused as a whole, the first
 * that cannot be opened alone, and why (*RET_R); the first file when each
 * can. */
static const char *import_journal_bad_file(char **files, int *ret_r)
{
        const char *one[2] = { NULL, NULL };
        sd_journal *j;
        size_t i;
        int r;

        for (i = 0; files[i]; i++) {
                one[0] = files[i];
                r = sd_journal_open_files(&j, one, 0);
                if (r < 0) {
                        *ret_r = r;
                        return files[i];
                }
                sd_journal_close(j);
        }
        return files[0];
}

/* Does the file PATH begin as a journal file does, with its signature?
 * False when it cannot be read. */
static bool import_journal_signed(const char *path)
{
        char sig[8];
        ssize_t n;
        int fd;

        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return false;
        n = read(fd, sig, sizeof(sig));
        close(fd);
        return n == (ssize_t) sizeof(sig) && memcmp(sig, "LPKSHHRH", sizeof(sig)) == 0;
}

/* WHAT (a file or directory) cannot be opened for R (< 0): the message.
 * sd-journal's words for a file that is no journal file are its own
 * ("File descriptor in bad state": not a regular file; "No data available":
 * shorter than a header; "Bad message": a header it cannot take): a file
 * without a journal file's signature is said to be none, one with it
 * truncated or damaged. */
static int import_journal_open_error(const char *what, int r, struct tq_error *err)
{
        struct stat st;
        bool found = stat(what, &st) == 0, file = found && S_ISREG(st.st_mode);

        if (r == -EBADFD && found && !file && !S_ISDIR(st.st_mode))
                return tq_error_set(err, r, "%s: cannot open journal: not a journal file "
                                    "(not a regular file)", what);
        if ((r == -ENODATA || r == -EBADMSG) && file && !import_journal_signed(what))
                return tq_error_set(err, r, "%s: cannot open journal: not a journal file", what);
        if (r == -ENODATA && file)
                return tq_error_set(err, r, "%s: cannot open journal: a truncated journal file",
                                    what);
        if (r == -EBADMSG && file)
                return tq_error_set(err, r, "%s: cannot open journal: a damaged journal file "
                                    "(its header is inconsistent)", what);
        return tq_error_set(err, r, "%s: cannot open journal: %s", what, strerror(-r));
}

/* sd_journal_open_files() of FILES, a name without a directory as
 * "./NAME": for --follow sd_journal_get_fd() watches each file's directory,
 * and the directory of "x.journal" is none to it (-EDESTADDRREQ). */
static int import_journal_open_files(sd_journal **ret_j, char **files)
{
        const char **v;
        size_t n = 0, i;
        int r = 0;

        while (files[n])
                n++;
        v = calloc(n + 1, sizeof(*v));
        if (!v)
                return -ENOMEM;
        for (i = 0; r == 0 && i < n; i++) {
                char *dotted = NULL;

                if (strchr(files[i], '/'))
                        v[i] = files[i];
                else if (asprintf(&dotted, "./%s", files[i]) < 0)
                        r = -ENOMEM;
                else
                        v[i] = dotted;
        }
        if (r == 0)
                r = sd_journal_open_files(ret_j, v, 0);
        for (i = 0; i < n; i++)
                if (v[i] && v[i] != files[i])
                        free((char *) v[i]);
        free(v);
        return r;
}

static int import_journal_open(const struct import_journal_opts *o, sd_journal **ret_j,
                               struct tq_error *err)
{
        const char *what = o->directory ? o->directory : "journal";
        int r;

        if (o->directory)
                r = sd_journal_open_directory(ret_j, o->directory, 0);
        else if (o->files)
                r = import_journal_open_files(ret_j, o->files);
        else
                r = sd_journal_open(ret_j, SD_JOURNAL_LOCAL_ONLY);
        if (r < 0 && r != -ENOMEM && o->files)
                what = import_journal_bad_file(o->files, &r);
        return r < 0 ? import_journal_open_error(what, r, err) : 0;
}

/* Is NAME a journal file's name, as sd-journal takes them from a directory? */
static bool import_journal_is_file(const char *name)
{
        size_t n = strlen(name);

        return (n > 8 && strcmp(name + n - 8, ".journal") == 0) ||
               (n > 9 && strcmp(name + n - 9, ".journal~") == 0);
}

/* Is NAME (N bytes) a machine's directory, as sd-journal takes them from a
 * directory: an id128, 32 hex digits of either case, or in the UUID form
 * with its four dashes? */
static bool import_journal_is_machine_dir(const char *name, size_t n)
{
        static const char hex[] = "0123456789abcdefABCDEF";
        size_t i;

        if (n == 32)
                return strspn(name, hex) == 32;
        if (n != 36)
                return false;
        for (i = 0; i < 36; i++)
                if (i == 8 || i == 13 || i == 18 || i == 23 ? name[i] != '-' : !strchr(hex, name[i]))
                        return false;
        return true;
}

/* Of the journal files in DIR and in the machines' directories in it (DEPTH
 * 1), the first that BAD() finds fault with (-errno), or a directory this
 * user may not read (-EACCES): its path in RET (PATH_MAX bytes), the fault
 * in *RET_R.  False when there is none. */
static bool import_journal_find_bad(const char *dir, int depth,
                                    int (*bad)(const char *path, const void *ctx),
                                    const void *ctx, char *ret, int *ret_r)
{
        char path[PATH_MAX];
        struct dirent *de;
        bool found = false;
        size_t n;
        DIR *d;

        d = opendir(dir);
        if (!d) {
                if (errno != EACCES)
                        return false;
                snprintf(ret, PATH_MAX, "%s", dir);
                *ret_r = -EACCES;
                return true;
        }
        while (!found && (de = readdir(d))) {
                n = strlen(de->d_name);
                /* sd-journal takes hidden files too (".x.journal") */
                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
                    snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int) sizeof(path))
                        continue;
                if (import_journal_is_file(de->d_name)) {
                        *ret_r = bad(path, ctx);
                        found = *ret_r < 0;
                        if (found)
                                snprintf(ret, PATH_MAX, "%s", path);
                } else if (depth > 0 && import_journal_is_machine_dir(de->d_name, n)) {
                        found = import_journal_find_bad(path, depth - 1, bad, ctx, ret, ret_r);
                }
        }
        closedir(d);
        return found;
}

static int import_journal_denied_file(const char *path, const void *ctx)
{
        (void) ctx;
        return access(path, R_OK) < 0 && errno == EACCES ? -EACCES : 0;
}

/* sd-journal passes over a file whose header it cannot read: alone, it
 * fails, and says why. */
static int import_journal_unopened_file(const char *path, const void *ctx)
{
        const char *one[2] = { path, NULL };
        sd_journal *j;
        int r;

        (void) ctx;
        r = sd_journal_open_files(&j, one, 0);
        if (r < 0)
                return r;
        sd_journal_close(j);
        return 0;
}

/* Is there, in DIR or in a machine's directory in it, a journal file or a
 * directory this user may not read? */
static bool import_journal_denied(const char *dir)
{
        char path[PATH_MAX];
        int r;

        return import_journal_find_bad(dir, 1, import_journal_denied_file, NULL, path, &r);
}

/* J opened no file at all: when that is for want of permission, fail as
 * journalctl does, rather than import nothing in silence; and so when a
 * directory's journal files are all damaged (sd-journal passes over a file
 * whose header it cannot read), naming one as --file would. */
static int import_journal_readable(const struct import_journal_opts *o, sd_journal *j,
                                   struct tq_error *err)
{
        const char *dir = o->directory;
        char path[PATH_MAX];
        uint64_t bytes = 0;
        int r = 0;

        if (o->files || sd_journal_get_usage(j, &bytes) < 0 || bytes > 0)
                return 0;
        if (dir && import_journal_denied(dir))
                return tq_error_set(err, -EACCES, "%s: cannot read the journal files: "
                                    "permission denied", dir);
        if (dir)
                return import_journal_find_bad(dir, 1, import_journal_unopened_file, NULL, path,
                                               &r) ?
                       import_journal_open_error(path, r, err) : 0;
        if (!import_journal_denied("/run/log/journal") &&
            !import_journal_denied("/var/log/journal"))
                return 0;
        return tq_error_set(err, -EACCES, "journal: cannot read the journal: permission denied "
                            "(users in the groups 'adm' and 'systemd-journal' can)");
}

static int import_journal_add_boot(sd_journal *j, const char *boot)
{
        char m[64];

        if (!boot)
                return 0;
        snprintf(m, sizeof(m), "_BOOT_ID=%s", boot);
        return sd_journal_add_match(j, m, 0);
}


/* ---- streams ---- */

/* Several streams each open every journal file: allow the descriptors. */
static void import_journal_nofile(void)
{
        struct rlimit rl;

        if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= 65536 || rl.rlim_cur >= rl.rlim_max)
                return;
        rl.rlim_cur = rl.rlim_max < 65536 ? rl.rlim_max : 65536;
        (void) setrlimit(RLIMIT_NOFILE, &rl);
}

/* How many descriptors the process has open, -1 when /proc cannot tell. */
static int import_journal_fds(void)
{
        DIR *d = opendir("/proc/self/fd");
        struct dirent *de;
        int n = 0;

        if (!d)
                return -1;
        while ((de = readdir(d)))
                n += de->d_name[0] != '.';
        closedir(d);
        return n - 1;   /* not the directory's own */
}

/* Grow the descriptor table, while this thread is the process's only one,
 * to hold the streams' descriptors too: each stream opens every journal file
 * the tail did, which took it from BEFORE open descriptors to as many as
 * now.  A table that grows when threads share it waits for an RCU grace
 * period first (the kernel's expand_files()), and the streams are opened in
 * the reader thread: each doubling there cost 10 to 15 ms, a third of an
 * import that finds nothing in a journal of 100 files. */
static void import_journal_fd_room(const struct import_journal_opts *o, int before)
{
        struct rlimit rl;
        size_t streams = IMPORT_JOURNAL_MAX_STREAMS, n = 0;
        long want;
        int now = import_journal_fds(), fd;

        if (before < 0 || now < before)
                return;
        while (o->identifiers && o->identifiers[n])
                n++;
        if (o->identifiers)     /* one per identifier (all in one past the most), the notes' */
                streams = (n < IMPORT_JOURNAL_MAX_STREAMS ? n : 1) + 1;
        want = now + 2 * (long) streams * (now - before) + 16;        /* a side thread's too */
        if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
            (rlim_t) want >= rl.rlim_cur)
                want = (long) rl.rlim_cur - 1;
        if (want <= 0 || want > INT_MAX)
                return;
        fd = open("/", O_PATH | O_CLOEXEC);
        if (fd < 0)
                return;
        if (fd < want) {
                int high = fcntl(fd, F_DUPFD_CLOEXEC, (int) want);

                if (high >= 0)
                        close(high);
        }
        close(fd);
}

/* A hex digit's value + 1, 0 for any other byte: a cursor's numbers are
 * parsed for every entry, and a branch on digit or letter, taken at random,
 * cost the reader thread about 5% of the bare sd-journal loop's time. */
static const uint8_t import_journal_hexval[256] = {
        ['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7,
        ['7'] = 8, ['8'] = 9, ['9'] = 10,
        ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
        ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/* The 1 to 16 hex digits at P into *RET; what follows them, or NULL. */
static const char *import_journal_hex(const char *p, uint64_t *ret)
{
        const char *start = p;
        uint64_t v = 0;
        unsigned c;

        for (; (c = import_journal_hexval[(unsigned char) *p]) != 0; p++) {
                if (p - start == 16)
                        return NULL;
                v = v << 4 | (c - 1);
        }
        *ret = v;
        return p == start ? NULL : p;
}

/* The ID of 32 characters, then SEP, at P (END - P left) into ID; what
 * follows SEP, or NULL. */
static const char *import_journal_id(const char *p, const char *end, char id[static 33],
                                     const char *sep)
{
        if (end - p < 32 + 3 || memchr(p, ';', 32) || memcmp(p + 32, sep, 3) != 0)
                return NULL;
        memcpy(id, p, 32);
        id[32] = '\0';
        return p + 32 + 3;
}

/* Past SEP (3 characters) at P, or NULL (also for P NULL). */
static const char *import_journal_sep(const char *p, const char *end, const char *sep)
{
        return p && end - p > 3 && memcmp(p, sep, 3) == 0 ? p + 3 : NULL;
}

/* The cursor as libsystemd 252 writes it, "s=<32>;i=N;b=<32>;m=N;t=N;x=N",
 * into KEY, in a single pass; false for any other shape. */
static bool import_journal_key_fast(const char *cursor, size_t len, struct import_journal_key *key)
{
        const char *p, *end = cursor + len;

        if (len < 2 || memcmp(cursor, "s=", 2) != 0)
                return false;
        p = import_journal_id(cursor + 2, end, key->seqnum_id, ";i=");
        p = p ? import_journal_hex(p, &key->seqnum) : NULL;
        p = import_journal_sep(p, end, ";b=");
        p = p ? import_journal_id(p, end, key->boot_id, ";m=") : NULL;
        p = p ? import_journal_hex(p, &key->monotonic) : NULL;
        p = import_journal_sep(p, end, ";t=");
        p = p ? import_journal_hex(p, &key->realtime) : NULL;
        p = import_journal_sep(p, end, ";x=");
        p = p ? import_journal_hex(p, &key->xor_hash) : NULL;
        return p == end;
}

/* Parse the cursor "s=ID;i=N;b=ID;m=N;t=N;x=N" (numbers in hex) into KEY.
 * This runs for every entry: libsystemd's own shape in one pass
 * (import_journal_key_fast()), any other field by field. */
static void import_journal_key_parse(const char *cursor, struct import_journal_key *key)
{
        const char *p = cursor, *end = cursor + strlen(cursor), *semi;
        int64_t x;
        size_t n;

        if (import_journal_key_fast(cursor, (size_t) (end - cursor), key))
                return;
        memset(key, 0, sizeof(*key));
        for (; p < end; p = semi + 1) {
                semi = memchr(p, ';', (size_t) (end - p));
                if (!semi)
                        semi = end;
                n = (size_t) (semi - p);
                if (n < 2 || p[1] != '=')
                        continue;
                if ((p[0] == 's' || p[0] == 'b') && n - 2 < sizeof(key->seqnum_id))
                        memcpy(p[0] == 's' ? key->seqnum_id : key->boot_id, p + 2, n - 2);
                else if (!ingest_parse_hex(p + 2, n - 2, &x))
                        continue;
                else if (p[0] == 'i')
                        key->seqnum = (uint64_t) x;
                else if (p[0] == 'm')
                        key->monotonic = (uint64_t) x;
                else if (p[0] == 't')
                        key->realtime = (uint64_t) x;
                else if (p[0] == 'x')
                        key->xor_hash = (uint64_t) x;
        }
}

#define IMPORT_JOURNAL_CMP(a, b) ((a) < (b) ? -1 : (a) > (b))

/* Order two entries as sd-journal does (compare_locations() in
 * sd-journal.c): by seqnum within one seqnum id, else by monotonic time
 * within one boot, else by realtime, else by content hash. */
static int import_journal_key_cmp(const struct import_journal_key *a,
                                  const struct import_journal_key *b)
{
        if (strcmp(a->seqnum_id, b->seqnum_id) == 0 && a->seqnum != b->seqnum)
                return IMPORT_JOURNAL_CMP(a->seqnum, b->seqnum);
        if (strcmp(a->boot_id, b->boot_id) == 0 && a->monotonic != b->monotonic)
                return IMPORT_JOURNAL_CMP(a->monotonic, b->monotonic);
        if (a->realtime != b->realtime)
                return IMPORT_JOURNAL_CMP(a->realtime, b->realtime);
        return IMPORT_JOURNAL_CMP(a->xor_hash, b->xor_hash);
}

/* ---- the source's position ---- */

/* Is CURSOR one of seqnum id ID (LEN characters)? */
static bool import_journal_cursor_of(const char *cursor, const char *id, size_t len)
{
        return strncmp(cursor, "s=", 2) == 0 && strncmp(cursor + 2, id, len) == 0 &&
               (cursor[2 + len] == ';' || cursor[2 + len] == '\0');
}

/* Make CURSOR (LEN bytes) the writer's position for its seqnum id. */
static int import_journal_keep(struct import_journal *im, const char *cursor, size_t len)
{
        const char *id = strncmp(cursor, "s=", 2) == 0 ? cursor + 2 : cursor;
        size_t n = strcspn(id, ";\n"), i = im->cur;
        void *v;

        if (len >= IMPORT_JOURNAL_CURSOR_SIZE)
                return 0;
        if (i >= im->ncursors || !import_journal_cursor_of(im->cursors[i], id, n))
                for (i = 0; i < im->ncursors; i++)
                        if (import_journal_cursor_of(im->cursors[i], id, n))
                                break;
        if (i == im->ncursors) {
                v = realloc(im->cursors, (i + 1) * sizeof(*im->cursors));
                if (!v)
                        return -ENOMEM;
                im->cursors = v;
                im->ncursors++;
        }
        memcpy(im->cursors[i], cursor, len);
        im->cursors[i][len] = '\0';
        im->cur = i;
        im->moved = true;
        return 0;
}

/* Take the position the source has stored, STORED (NULL for none), as the
 * writer's and the reader's.  -ENOMEM, or 0. */
static int import_journal_positions(struct import_journal *im, const char *stored)
{
        const char *p = stored, *nl;
        size_t i;
        int r;

        for (; p && *p; p = nl ? nl + 1 : NULL) {
                nl = strchr(p, '\n');
                if (nl != p) {
                        r = import_journal_keep(im, p, nl ? (size_t) (nl - p) : strlen(p));
                        if (r < 0)
                                return r;
                }
        }
        im->moved = false;
        if (im->ncursors == 0)
                return 0;
        im->pos = calloc(im->ncursors, sizeof(*im->pos));
        if (!im->pos)
                return -ENOMEM;
        im->npos = im->pos_size = im->ncursors;
        for (i = 0; i < im->npos; i++)
                import_journal_key_parse(im->cursors[i], &im->pos[i].key);
        return 0;
}

/* Give the writer's position to the source, to be stored at the next commit:
 * its cursors, one a line.  -ENOMEM, or 0. */
static int import_journal_store(struct import_journal *im)
{
        size_t size = 1, i;
        char *s, *p;
        int r;

        if (!im->moved)
                return 0;
        for (i = 0; i < im->ncursors; i++)
                size += strlen(im->cursors[i]) + 1;
        s = p = malloc(size);
        if (!s)
                return -ENOMEM;
        for (i = 0; i < im->ncursors; i++)
                p += sprintf(p, "%s%s", i ? "\n" : "", im->cursors[i]);
        r = ingest_set_position(im->ing, s, -1);
        free(s);
        return r;
}

/* Add a stream of the entries having one of MATCHES (N of them, all of the
 * same field), or every entry when N is 0; on the --boot asked for.  SIZES,
 * when not NULL, gives each match's length, 0 for a C string's: a value read
 * from the journal may hold a NUL byte, and cut there it matches no entry. */
static int import_journal_stream_add(struct import_journal *im, char *const *matches,
                                     const size_t *sizes, size_t n, struct tq_error *err)
{
        struct import_journal_stream *s = &im->streams[im->nstreams];
        size_t i;
        int r = 0;

        r = import_journal_open(im->o, &s->j, err);
        if (r < 0)
                return r;
        im->nstreams++;
        (void) sd_journal_set_data_threshold(s->j, 0);     /* whole values: strings are data */
        for (i = 0; r >= 0 && i < n; i++)
                r = sd_journal_add_match(s->j, matches[i], sizes ? sizes[i] : 0);
        if (r >= 0)
                r = import_journal_add_boot(s->j, im->o->boot);
        if (r < 0)
                return tq_error_set(err, r, "journal: cannot match entries: %s", strerror(-r));
        if (im->o->follow && (r = sd_journal_get_fd(s->j)) < 0)  /* watch for new files */
                return tq_error_set(err, r, "journal: cannot watch for new entries: %s",
                                    strerror(-r));
        return 0;
}

/* The TRACE_EVENT values the journal holds ("TRACE_EVENT=NAME", malloc'ed,
 * their lengths in SIZES), at most MAX of them; *ret_n is MAX + 1 when there
 * are more. */
static int import_journal_values(struct import_journal *im, char **values, size_t *sizes,
                                 size_t max, size_t *ret_n)
{
        const void *data;
        size_t len, n = 0;
        int r;

        r = sd_journal_query_unique(im->tail, "TRACE_EVENT");
        if (r < 0)
                return r;
        SD_JOURNAL_FOREACH_UNIQUE(im->tail, data, len) {
                if (n == max) {
                        n++;
                        break;
                }
                values[n] = malloc(len + 1);    /* not strndup(): past a NUL too */
                if (!values[n])
                        return -ENOMEM;
                memcpy(values[n], data, len);
                values[n][len] = '\0';
                sizes[n++] = len;
        }
        *ret_n = n;
        return 0;
}

/* Is the entry S is on past END, the journal's last entry when the round
 * began, or past its seqnum id's bound (import_journal_bounds())?  Only an
 * entry of the same seqnum id can tell: across journal files of several
 * hosts the order is by time, which a host's clock stepped back makes
 * circular, and an entry held back by it would wait for a round that never
 * comes.  A live journal grows under one seqnum id, so the round ends. */
static bool import_journal_past_end(const struct import_journal *im,
                                    const struct import_journal_stream *s)
{
        const struct import_journal_pos *p = s->pos < im->npos ? &im->pos[s->pos] : NULL;

        if (strcmp(s->key.seqnum_id, im->end.seqnum_id) == 0 && s->key.seqnum > im->end.seqnum)
                return true;
        if (im->sub && s->key.seqnum >= im->split_at &&
            strcmp(s->key.seqnum_id, im->end.seqnum_id) == 0)
                return true;    /* the side thread's */
        return im->bounded && p && p->bounded && s->key.seqnum > p->upto;
}

/* Set up the streams (see the top of the file). */
static int import_journal_streams(struct import_journal *im, struct tq_error *err)
{
        const struct import_journal_opts *o = im->o;
        char *m[IMPORT_JOURNAL_MAX_STREAMS] = { NULL }, *notes = IMPORT_JOURNAL_SUPPRESSED;
        size_t sizes[IMPORT_JOURNAL_MAX_STREAMS] = { 0 };      /* of m[], 0 for a C string */
        char **all = NULL;
        size_t n = 0, i;
        int r = 0;

        for (n = 0; o->identifiers && o->identifiers[n]; n++)
                ;
        if (n >= IMPORT_JOURNAL_MAX_STREAMS) {
                /* that many identifiers: one stream matching any of them */
                all = calloc(n, sizeof(*all));
                for (i = 0; all && i < n; i++)
                        if (asprintf(&all[i], "SYSLOG_IDENTIFIER=%s", o->identifiers[i]) < 0)
                                all[i] = NULL;
                for (i = 0; all && i < n && all[i]; i++)
                        ;
                r = all && i == n ? import_journal_stream_add(im, all, NULL, n, err) : -ENOMEM;
                n = 0;
                if (r < 0)
                        goto out;
        } else if (n > 0) {
                for (i = 0; i < n; i++)
                        if (asprintf(&m[i], "SYSLOG_IDENTIFIER=%s", o->identifiers[i]) < 0) {
                                m[i] = NULL;
                                r = -ENOMEM;
                                goto out;
                        }
        } else if (!o->follow) {
                r = import_journal_values(im, m, sizes, IMPORT_JOURNAL_MAX_STREAMS - 1, &n);
                if (r < 0) {
                        tq_error_set(err, r, "journal: cannot list events: %s", strerror(-r));
                        goto out;
                }
        }
        if (n > IMPORT_JOURNAL_MAX_STREAMS - 1 || (o->follow && !o->identifiers)) {
                r = import_journal_stream_add(im, NULL, NULL, 0, err);    /* every entry */
                goto out;
        }
        for (i = 0; r == 0 && i < n; i++)
                r = import_journal_stream_add(im, &m[i], &sizes[i], 1, err);
        if (r == 0)
                r = import_journal_stream_add(im, &notes, NULL, 1, err);
out:
        for (i = 0; i < IMPORT_JOURNAL_MAX_STREAMS; i++)
                free(m[i]);
        for (i = 0; all && o->identifiers[i]; i++)
                free(all[i]);
        free(all);
        if (r == -ENOMEM)
                tq_error_set(err, r, "out of memory");
        return r;
}

static void import_journal_streams_close(struct import_journal *im)
{
        size_t i;

        for (i = 0; i < im->nstreams; i++) {
                free(im->streams[i].cursor);
                sd_journal_close(im->streams[i].j);
        }
        im->nstreams = 0;
}

/* Position S after CURSOR, or at --since, or at the head. */
static int import_journal_seek(struct import_journal *im, struct import_journal_stream *s,
                               const char *cursor)
{
        sd_journal *j = s->j;
        int r;

        if (cursor) {
                r = sd_journal_seek_cursor(j, cursor);
                if (r < 0)
                        return r;
                r = sd_journal_next(j);
                /* not the cursor's entry (another stream's): this stream's
                 * next one, to be read first (stepping back to read it next
                 * fails when the stream has nothing before it) */
                if (r > 0 && sd_journal_test_cursor(j, cursor) <= 0)
                        s->landed = true;
                return r < 0 ? r : 0;
        }
        if (im->o->since_us)
                return sd_journal_seek_realtime_usec(j, im->o->since_us);
        return sd_journal_seek_head(j);
}

/* Where the entries to import end, for the progress bar: the journal's last
 * entry, or with --identifier the last of those identifiers' (matches of one
 * field: any of them), which may be long before the journal's end. */
static void import_journal_range(struct import_journal *im)
{
        char *const *id = im->o->identifiers;
        char *m;
        int r = 0;

        for (; r >= 0 && id && *id; id++) {
                if (asprintf(&m, "SYSLOG_IDENTIFIER=%s", *id) < 0)
                        break;
                r = sd_journal_add_match(im->tail, m, 0);
                free(m);
        }
        if ((!id || !*id) && r >= 0 && sd_journal_seek_tail(im->tail) >= 0 &&
            sd_journal_previous(im->tail) > 0)
                (void) sd_journal_get_realtime_usec(im->tail, &im->last_us);
        sd_journal_flush_matches(im->tail);
}

/* End this round at the journal's last entry now: a journal written faster
 * than it is read would never end, and with several streams none may hand out
 * an entry that sorts after what another stream has not reached yet.  (Not a
 * time: journald's times are not in journal order, and one entry dated in the
 * future must not stop an import.) */
static int import_journal_bound(struct import_journal *im)
{
        char *cursor = NULL;
        int r;

        r = sd_journal_seek_tail(im->tail);
        if (r >= 0)
                r = sd_journal_previous(im->tail);
        im->empty = r == 0;
        if (r > 0)
                r = sd_journal_get_cursor(im->tail, &cursor);
        if (r >= 0 && cursor)
                import_journal_key_parse(cursor, &im->end);
        free(cursor);
        return r < 0 ? r : 0;
}

/* The index in pos[] of KEY's seqnum id, IMPORT_JOURNAL_NO_POS for none. */
static size_t import_journal_pos_find(struct import_journal *im,
                                      const struct import_journal_key *key)
{
        size_t i = im->pos_last;

        if (i < im->npos && strcmp(im->pos[i].key.seqnum_id, key->seqnum_id) == 0)
                return i;
        for (i = 0; i < im->npos; i++)
                if (strcmp(im->pos[i].key.seqnum_id, key->seqnum_id) == 0)
                        return im->pos_last = i;
        return IMPORT_JOURNAL_NO_POS;
}

/* A new, unbounded position at the end of pos[]: its index, or
 * IMPORT_JOURNAL_NO_POS when out of memory. */
static size_t import_journal_pos_add(struct import_journal *im)
{
        void *v;

        if (im->npos == im->pos_size) {
                v = realloc(im->pos, (im->pos_size ? im->pos_size * 2 : 4) * sizeof(*im->pos));
                if (!v)
                        return IMPORT_JOURNAL_NO_POS;
                im->pos = v;
                im->pos_size = im->pos_size ? im->pos_size * 2 : 4;
        }
        im->pos[im->npos] = (struct import_journal_pos) { .bounded = false };
        return im->npos++;
}

/* The entry S is on was handed out: it is its seqnum id's position now. */
static int import_journal_pos_note(struct import_journal *im, struct import_journal_stream *s)
{
        size_t i = s->pos < im->npos ? s->pos : import_journal_pos_find(im, &s->key);

        if (i == IMPORT_JOURNAL_NO_POS && (i = import_journal_pos_add(im)) == IMPORT_JOURNAL_NO_POS)
                return -ENOMEM;
        im->pos[i].key = s->key;
        im->pos[i].guessed = false;
        im->pos_last = i;
        return 0;
}

static int import_journal_boot_cmp(const void *a, const void *b)
{
        return memcmp(a, b, 32);
}

/* Is BOOT (32 characters) among the settled boots (sorted)? */
static bool import_journal_settled(const struct import_journal *im, const char *boot)
{
        return im->nsettled > 0 && bsearch(boot, im->settled, im->nsettled, sizeof(*im->settled),
                                           import_journal_boot_cmp);
}

/*
 * Give pos[] a place one before the first entry of each boot of the
 * directory whose seqnum id it has no position of: a host new to it (or one
 * whose journal started anew).  Without one, its entries dated before where
 * the round starts were passed over by the walk, which does not step back,
 * and no position said they were never read.  With one,
 * import_journal_start() starts before them when a stream has an entry of
 * that seqnum id, as for the hosts it knows (import_journal_more()); when no
 * stream has (a host whose entries no --identifier matches) it holds
 * nothing back.  Of two boots of one new seqnum id the earlier first entry
 * wins.  A boot looked up is settled: not asked again in this run (a later
 * boot of a seqnum id begins after its earlier ones).  Returns 0 or -errno.
 */
static int import_journal_newcomers(struct import_journal *im)
{
        sd_journal *j = im->tail;
        struct import_journal_key key;
        char (*boots)[33] = NULL, m[9 + 33], *cursor;
        size_t nboots = 0, size = 0, settled = im->nsettled, i, k;
        const void *data;
        size_t len;
        void *v;
        int r;

        r = sd_journal_query_unique(j, "_BOOT_ID");
        if (r < 0)
                return r;
        SD_JOURNAL_FOREACH_UNIQUE(j, data, len) {
                if (len != 9 + 32 || import_journal_settled(im, (const char *) data + 9))
                        continue;
                if (nboots == size) {
                        v = realloc(boots, (size ? size * 2 : 16) * sizeof(*boots));
                        if (!v) {
                                free(boots);
                                return -ENOMEM;
                        }
                        boots = v;
                        size = size ? size * 2 : 16;
                }
                memcpy(boots[nboots], (const char *) data + 9, 32);
                boots[nboots++][32] = '\0';
        }
        for (i = 0, r = 0; i < nboots && r >= 0; i++) {
                snprintf(m, sizeof(m), "_BOOT_ID=%s", boots[i]);
                cursor = NULL;
                r = sd_journal_add_match(j, m, 0);
                if (r >= 0)
                        r = sd_journal_seek_head(j);
                if (r >= 0)
                        r = sd_journal_next(j);
                if (r > 0)
                        r = sd_journal_get_cursor(j, &cursor);
                sd_journal_flush_matches(j);
                if (r == -ENOMEM)
                        break;
                if (r < 0 || !cursor) {
                        free(cursor);
                        r = 0;
                        continue;       /* asked again next round */
                }
                import_journal_key_parse(cursor, &key);
                free(cursor);
                if (key.seqnum > 0)
                        key.seqnum--;   /* one before it: the entry itself is to be read */
                k = import_journal_pos_find(im, &key);
                if (k == IMPORT_JOURNAL_NO_POS) {
                        k = import_journal_pos_add(im);
                        if (k == IMPORT_JOURNAL_NO_POS) {
                                r = -ENOMEM;
                                break;
                        }
                        im->pos[k].key = key;
                        im->pos[k].guessed = true;
                } else if (im->pos[k].guessed && key.seqnum < im->pos[k].key.seqnum)
                        im->pos[k].key = key;
                if (im->nsettled == im->settled_size) {
                        v = realloc(im->settled, (im->settled_size ? im->settled_size * 2 : 16) *
                                                 sizeof(*im->settled));
                        if (!v) {
                                r = -ENOMEM;
                                break;
                        }
                        im->settled = v;
                        im->settled_size = im->settled_size ? im->settled_size * 2 : 16;
                }
                memcpy(im->settled[im->nsettled++], boots[i], sizeof(*boots));
        }
        if (im->nsettled > settled)
                qsort(im->settled, im->nsettled, sizeof(*im->settled), import_journal_boot_cmp);
        free(boots);
        return r < 0 ? r : 0;
}

/* Was the entry S is on handed out before, by this import or one before: is
 * it at or before its seqnum id's position? */
static bool import_journal_done(const struct import_journal *im,
                                const struct import_journal_stream *s)
{
        return s->pos < im->npos && s->key.seqnum <= im->pos[s->pos].key.seqnum;
}

/* Bound this round, of each seqnum id known but END's, to its last entry
 * now: one added while the round runs, dated before what was read, would be
 * passed over by sd-journal (which does not step back), and a later one read
 * would take the position past it for good.  The cursor put together here
 * sets the files of the seqnum id at their last entry, the others before
 * the start of time. */
static void import_journal_bounds(struct import_journal *im)
{
        struct import_journal_pos *p;
        struct import_journal_key last;
        char c[128], *cursor;
        size_t i;
        int r;

        im->bounded = false;
        for (i = 0; i < im->npos && !im->empty; i++) {
                p = &im->pos[i];
                p->bounded = false;
                if (strcmp(p->key.seqnum_id, im->end.seqnum_id) == 0)
                        continue;
                snprintf(c, sizeof(c), "s=%s;i=%" PRIx64 ";t=0", p->key.seqnum_id, UINT64_MAX);
                cursor = NULL;
                r = sd_journal_seek_cursor(im->tail, c);
                if (r >= 0)
                        r = sd_journal_previous(im->tail);
                if (r > 0)
                        r = sd_journal_get_cursor(im->tail, &cursor);
                if (r < 0)
                        continue;       /* unbounded, as before there were bounds */
                memset(&last, 0, sizeof(last));
                if (cursor)
                        import_journal_key_parse(cursor, &last);
                free(cursor);
                /* none of its entries is left: any is for a later round */
                p->upto = strcmp(last.seqnum_id, p->key.seqnum_id) == 0 ? last.seqnum :
                          p->key.seqnum;
                p->bounded = im->bounded = true;
        }
}

/* Has a stream an entry of P's seqnum id after P, up to its bound?  As in
 * import_journal_bounds(), only that seqnum id's files can answer.  An error
 * says yes: the cost is reading again. */
static bool import_journal_more(struct import_journal *im, const struct import_journal_pos *p)
{
        struct import_journal_key key;
        char c[128], *cursor = NULL;
        size_t i;
        int r;

        snprintf(c, sizeof(c), "s=%s;i=%" PRIx64 ";t=%" PRIx64, p->key.seqnum_id,
                 p->key.seqnum + 1, UINT64_MAX);
        for (i = 0; i < im->nstreams; i++) {
                r = sd_journal_seek_cursor(im->streams[i].j, c);
                if (r >= 0)
                        r = sd_journal_next(im->streams[i].j);
                if (r == 0)
                        continue;
                if (r < 0 || !p->bounded || sd_journal_get_cursor(im->streams[i].j, &cursor) < 0)
                        return true;
                import_journal_key_parse(cursor, &key);
                free(cursor);
                cursor = NULL;
                if (key.seqnum <= p->upto)
                        return true;
        }
        return false;
}

/* Position the streams for a round: after the earliest position whose
 * seqnum id has entries after it (a host that stopped sending must not have
 * every import read again what the others sent since), else after the
 * latest; at --since or the head without any.  What was handed out already
 * is passed over (import_journal_done()). */
static int import_journal_start(struct import_journal *im)
{
        const struct import_journal_key *key;
        size_t *order = NULL, i, k = 0;
        char c[256];
        int r = 0;

        if (im->npos > 0) {
                order = calloc(im->npos, sizeof(*order));
                if (!order)
                        return -ENOMEM;
        }
        /* in sd-journal's order (not a total one across seqnum ids: no qsort) */
        for (i = 0; i < im->npos; i++) {
                for (k = i; k > 0 && import_journal_key_cmp(&im->pos[i].key,
                                                             &im->pos[order[k - 1]].key) < 0; k--)
                        order[k] = order[k - 1];
                order[k] = i;
        }
        for (k = 0; k + 1 < im->npos && !import_journal_more(im, &im->pos[order[k]]); k++)
                ;
        if (im->npos > 0) {
                key = &im->pos[order[k]].key;
                snprintf(c, sizeof(c), "s=%s;i=%" PRIx64 ";b=%s;m=%" PRIx64 ";t=%" PRIx64 ";x=%" PRIx64,
                         key->seqnum_id, key->seqnum, key->boot_id, key->monotonic, key->realtime,
                         key->xor_hash);
        }
        for (i = 0; r >= 0 && i < im->nstreams; i++) {
                im->streams[i].ready = im->streams[i].landed = false;
                r = import_journal_seek(im, &im->streams[i], im->npos > 0 ? c : NULL);
        }
        free(order);
        im->started = true;
        return r;
}

/* One more entry for NOTE, R its error and CURSOR (or NULL) where it is. */
static void import_journal_note_add(struct import_journal_note *note, int r, const char *cursor)
{
        if (note->n++ > 0)
                return;
        note->r = r;
        snprintf(note->cursor, sizeof(note->cursor), "%s", cursor ? cursor : "");
}

/* "traceql: journal: N entries WHAT (the first, entry CURSOR: ERROR)". */
static void import_journal_note_say(const struct import_journal_note *note, const char *what)
{
        if (note->n == 0)
                return;
        tq_message("journal: %" PRIu64 " entr%s %s (%s%s%s: %s)", note->n,
                   note->n == 1 ? "y" : "ies", what, note->n == 1 ? "entry" : "the first, entry",
                   note->cursor[0] ? " " : " whose cursor cannot be read", note->cursor,
                   strerror(-note->r));
}

/* Say both notes, and start them again: at the end of the import, and with
 * --follow at the end of each round, in the reader's thread, so that an
 * entry read hours before the interrupt is said when it is read (a message
 * is one fputs() under the progress bar's lock, kept whole beside the
 * writer's). */
static void import_journal_notes_say(struct import_journal *im)
{
        import_journal_note_say(&im->partial, "imported without a field libsystemd cannot read");
        import_journal_note_say(&im->skipped, "skipped: libsystemd cannot read them");
        im->partial.n = im->skipped.n = 0;
}

/* Put S on its next entry unless it is on one: 1 when it is, 0 at its end. */
static int import_journal_stream_peek(struct import_journal *im, struct import_journal_stream *s)
{
        int r;

        while (!s->ready && !s->at_end) {
                r = s->landed ? 1 : sd_journal_next(s->j);
                s->landed = false;
                if (r < 0)
                        return r;
                if (r == 0) {
                        s->at_end = true;
                        break;
                }
                free(s->cursor);
                s->cursor = NULL;
                r = sd_journal_get_cursor(s->j, &s->cursor);
                if (r == -ENOMEM)
                        return r;
                if (r < 0) {
                        /* a corrupt entry: skip it, as journalctl does */
                        import_journal_note_add(&im->skipped, r, NULL);
                        continue;
                }
                import_journal_key_parse(s->cursor, &s->key);
                s->pos = import_journal_pos_find(im, &s->key);
                s->ready = true;
        }
        return s->ready;
}

/* The stream whose entry comes next, in *RET; NULL when none has one left
 * this round. */
static int import_journal_pick(struct import_journal *im, struct import_journal_stream **ret)
{
        struct import_journal_stream *best = NULL, *s;
        size_t i;
        int r;

        *ret = NULL;
        if (im->empty)
                return 0;
        for (i = 0; i < im->nstreams; i++) {
                s = &im->streams[i];
                r = import_journal_stream_peek(im, s);
                if (r < 0)
                        return r;
                if (r > 0 && (!best || import_journal_key_cmp(&s->key, &best->key) < 0))
                        best = s;
        }
        /* the next entry is for a later round, and so is every entry after
         * it, in any stream: another stream's entries of a seqnum id, handed
         * out, would take its position past those this stream has after its
         * own, which the next round would then pass over as read */
        if (best && import_journal_past_end(im, best))
                best = NULL;
        for (i = 0; best && i < im->nstreams; i++) {
                s = &im->streams[i];
                if (s != best && s->ready && import_journal_key_cmp(&s->key, &best->key) == 0)
                        s->ready = false;       /* the same entry: read it once */
        }
        *ret = best;
        return 0;
}

/* Keep the entry S is on in E, with its cursor as __CURSOR, its fields read
 * with ENUMERATE: copies only, the writer parses them (ingest_entry_parse()). */
static int import_journal_read_with(struct import_journal_stream *s, struct ingest_entry *e,
                                    int (*enumerate)(sd_journal *, const void **, size_t *))
{
        const void *data;
        size_t len;
        int r;

        e->len = e->kept = 0;   /* the writer's ingest_entry_parse() resets the rest */
        r = ingest_entry_keep(e, "__CURSOR=", 9, s->cursor, strlen(s->cursor));
        if (r < 0)
                return r;
        while ((r = enumerate(s->j, &data, &len)) > 0) {
                /* only trusted fields ("_NAME") are left out: ask of those only */
                if (len > 0 && *(const char *) data == '_' && !ingest_field_used(data, len))
                        continue;
                r = ingest_entry_keep_field(e, data, len);
                if (r < 0)
                        return r;
        }
        return r;
}

/* The entry S is on, in E.  A field libsystemd cannot give (compressed in a
 * way it does not know) is left out, the rest of the entry kept, as
 * sd_journal_enumerate_available_data() does, and noted in IM.  That
 * function checks the process's pid again on top of
 * sd_journal_enumerate_data()'s check, a locked instruction per field,
 * about 2% of the reader's time in a profile: so the entry is read with the
 * plain one, and again with the other only when a field fails. */
static int import_journal_read(struct import_journal *im, struct import_journal_stream *s,
                               struct ingest_entry *e)
{
        int r, first;

        r = import_journal_read_with(s, e, sd_journal_enumerate_data);
        if (r >= 0 || r == -ENOMEM)
                return r;
        first = r;
        sd_journal_restart_data(s->j);
        r = import_journal_read_with(s, e, sd_journal_enumerate_available_data);
        if (r >= 0)
                import_journal_note_add(&im->partial, first, s->cursor);
        return r;
}

/* ---- the split ---- */

/*
 * A round of many entries (the first import of a busy journal) is read by
 * two threads: once the reader has read split_probe entries and finds that
 * the rest of the round holds enough more (import_journal_split_round()),
 * it reads those up to the middle of the rest's seqnums, and a side thread
 * the others, each with streams of its own, into a ring of its own
 * (ring_side()); the writer takes from both.  The journal reader is the
 * slowest part of an import (it costs more than the bare sd-journal loop:
 * see bench/import.sh), and this is the only way to read faster through
 * the sd-journal API.
 *
 * It is made only where the process may run on more than one CPU
 * (IMPORT_JOURNAL_SPLIT_CPUS), and where every journal file is of one
 * seqnum id (one host's journal: the local one, say), whose order is the
 * seqnum's alone: the reader stops at the first entry at or past SPLIT_AT,
 * the side thread starts there.  The side thread's entries are written as
 * they come, but the position stays in the reader's part until it is over
 * (IMPORT_JOURNAL_SIDE): an import stopped or killed before resumes there,
 * and what it reads again the rows' journal identity turns away.  After
 * the round, the reader goes on from the side thread's last entry.
 */
#define IMPORT_JOURNAL_SPLIT_MIN 40000  /* split_min: after 5000 entries, 20000 more */
/* The CPUs the process must be able to run on: on one, the three threads
 * would take turns, to no gain.  On two they take turns too, and the two
 * readers cost more than one (per-thread CPU time, 100k entries here: 0.91 s
 * against 0.71 s; the writer 0.49 s either way), yet the import is faster:
 * median ratio to the bare loop 0.59 against 0.54 (12 rounds, 9 faster) and
 * 0.62 against 0.60 (8 rounds).  Two readers with a CPU each read 1.65 x as
 * fast as one (8 rounds). */
#define IMPORT_JOURNAL_SPLIT_CPUS 2

/* How many CPUs this process may run on (its affinity: a container's cpuset,
 * taskset), 1 when it cannot tell. */
static int import_journal_cpus(void)
{
        cpu_set_t set;

        return sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 1;
}

/* 0 when PATH is a journal file of seqnum id CTX (16 bytes), -EINVAL when
 * it is not, or cannot be read. */
static int import_journal_other_seqnum_id(const char *path, const void *ctx)
{
        unsigned char h[88];    /* the header up to seqnum_id, at 72 */
        ssize_t n;
        int fd;

        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return -EINVAL;
        n = pread(fd, h, sizeof(h), 0);
        close(fd);
        return n == (ssize_t) sizeof(h) && memcmp(h, "LPKSHHRH", 8) == 0 &&
               memcmp(h + 72, ctx, 16) == 0 ? 0 : -EINVAL;
}

/* Are the journal files the reader may open all of seqnum id SID (32 hex
 * digits)?  The local journal's are those of /run/log/journal and
 * /var/log/journal (more than sd-journal opens, which is no harm). */
static bool import_journal_one_seqnum_id(const struct import_journal_opts *o, const char *sid)
{
        char path[PATH_MAX];
        sd_id128_t sd_id;
        const void *id = sd_id.bytes;
        size_t i;
        int r;

        if (sd_id128_from_string(sid, &sd_id) < 0)
                return false;
        if (o->files) {
                for (i = 0; o->files[i]; i++)
                        if (import_journal_other_seqnum_id(o->files[i], id) < 0)
                                return false;
                return true;
        }
        if (o->directory)
                return !import_journal_find_bad(o->directory, 1, import_journal_other_seqnum_id,
                                                id, path, &r);
        return !import_journal_find_bad("/run/log/journal", 1, import_journal_other_seqnum_id, id,
                                        path, &r) &&
               !import_journal_find_bad("/var/log/journal", 1, import_journal_other_seqnum_id, id,
                                        path, &r);
}

/* The last seqnum of SID, at most UPTO, that J (matches and all) has, in
 * *RET; 0 for none. */
static int import_journal_last_upto(sd_journal *j, const char *sid, uint64_t upto, uint64_t *ret)
{
        struct import_journal_key key;
        char c[128], *cursor = NULL;
        int r;

        *ret = 0;
        snprintf(c, sizeof(c), "s=%s;i=%" PRIx64, sid, upto + 1);
        r = sd_journal_seek_cursor(j, c);
        if (r >= 0)
                r = sd_journal_previous(j);
        if (r > 0)
                r = sd_journal_get_cursor(j, &cursor);
        if (r < 0 || !cursor)
                return r < 0 ? r : 0;
        import_journal_key_parse(cursor, &key);
        free(cursor);
        if (strcmp(key.seqnum_id, sid) == 0 && key.seqnum <= upto)
                *ret = key.seqnum;
        return 0;
}

static void import_journal_sub_free(struct import_journal *sub)
{
        if (!sub)
                return;
        import_journal_streams_close(sub);
        sd_journal_close(sub->tail);
        free(sub->pos);
        free(sub->settled);
        free(sub);
}

static int import_journal_read_round(struct import_journal *im, int kind, struct tq_error *err);

/* The side thread: its streams, positioned at the split, then its part. */
static void *import_journal_side_main(void *userdata)
{
        struct import_journal *sub = userdata;
        uint64_t usage;
        char c[128];
        size_t i;
        int r;

        /* without --identifier its streams list the event names, as the
         * reader's did, through a journal of its own */
        r = !sub->o->identifiers && !sub->o->follow ?
            import_journal_open(sub->o, &sub->tail, &sub->side_err) : 0;
        if (r >= 0)
                r = import_journal_streams(sub, &sub->side_err);
        /* a stream short of descriptors leaves files out, in silence: it
         * would not read their entries */
        for (i = 0; r >= 0 && i < sub->nstreams; i++)
                if (sd_journal_get_usage(sub->streams[i].j, &usage) < 0 ||
                    usage < sub->side_usage || sub->split_fail)
                        r = -EMFILE;
        snprintf(c, sizeof(c), "s=%s;i=%" PRIx64, sub->pos[0].key.seqnum_id,
                 sub->pos[0].key.seqnum);
        for (i = 0; r >= 0 && i < sub->nstreams; i++)
                r = import_journal_seek(sub, &sub->streams[i], c);
        if (r < 0) {
                sub->side_unsplit = true;       /* the reader reads its part too */
                if (sub->say_split)
                        fprintf(stderr, "traceql: test: not split: %s\n", strerror(-r));
        } else {
                sub->started = true;
                r = import_journal_read_round(sub, IMPORT_JOURNAL_SIDE, &sub->side_err);
                /* stopped by the reader (import_journal_split_end()) while it
                 * waited for room: its ring quit, which is no failure */
                if (r == -ECANCELED && atomic_load(&sub->halt))
                        r = 1;
                if (r == -ENOMEM)
                        tq_error_set(&sub->side_err, r, "out of memory");
        }
        sub->side_r = r < 0 ? r : 0;
        ring_end(sub->ring);
        return NULL;
}

/* Whether this round (the first) may be split: of one seqnum id, without
 * --until; its last seqnum the streams have in IM->split_hi, else 0.  The
 * streams are not positioned yet. */
static void import_journal_split_prepare(struct import_journal *im)
{
        const char *sid = im->end.seqnum_id;
        uint64_t last;
        size_t i;

        im->split_hi = 0;
        if (im->split_min == UINT64_MAX || im->empty || im->o->has_until || im->npos > 1 ||
            (im->npos == 1 && strcmp(im->pos[0].key.seqnum_id, sid) != 0))
                return;
        for (i = 0; i < im->nstreams; i++) {
                if (import_journal_last_upto(im->streams[i].j, sid, im->end.seqnum, &last) < 0) {
                        im->split_hi = 0;
                        return;
                }
                im->split_hi = last > im->split_hi ? last : im->split_hi;
        }
}

/*
 * The reader handed out its split_probe-th entry of the round, KEY's: split
 * the rest at the middle of its seqnums when, at the density of entries so
 * far, it holds at least split_min / 2 entries.  Deciding on what was read
 * keeps the side thread (its sd_journal opens: about 15 ms each with 100
 * journal files) out of the imports that find few entries in a long stretch
 * of the journal, as the sync before a query often does.
 */
static void import_journal_split_round(struct import_journal *im,
                                       const struct import_journal_key *key)
{
        const char *sid = im->end.seqnum_id;
        uint64_t lo = im->round_lo, cur = key->seqnum, hi = im->split_hi, mid;
        struct import_journal *sub;
        int r;

        im->split_hi = 0;       /* once */
        if (strcmp(key->seqnum_id, sid) != 0 || cur < lo || cur >= hi ||
            (double) im->round_n * (double) (hi - cur) / (double) (cur - lo + 1) <
            (double) im->split_min / 2 || !import_journal_one_seqnum_id(im->o, sid))
                return;
        sub = calloc(1, sizeof(*sub));
        if (sub)
                sub->pos = calloc(1, sizeof(*sub->pos));
        if (!sub || !sub->pos)
                goto fail;
        sub->o = im->o;
        sub->end = im->end;
        sub->npos = sub->pos_size = 1;
        memcpy(sub->pos[0].key.seqnum_id, sid, 33);
        mid = cur + 1 + (hi - cur) / 2; /* the side thread's first; the seqnum before, the
                                         * reader's last, is done for it */
        sub->pos[0].key.seqnum = mid - 1;
        sub->parse = true;
        sub->say_split = im->say_split;
        sub->split_fail = im->split_fail;
        if (sd_journal_get_usage(im->tail, &sub->side_usage) < 0)
                goto fail;
        sub->ring = ring_side(im->ring);
        if (!sub->ring)
                goto fail;
        /* said before the side thread can say it did not start */
        if (im->say_split)
                fprintf(stderr, "traceql: test: split at seqnum %" PRIu64 " of %" PRIu64 "..%" PRIu64
                        " after %" PRIu64 " entries\n", mid, cur + 1, hi, im->round_n);
        r = pthread_create(&im->side_thread, NULL, import_journal_side_main, sub);
        if (r != 0) {
                if (im->say_split)
                        fprintf(stderr, "traceql: test: not split: %s\n", strerror(r));
                /* the writer takes from the reader's ring alone again */
                ring_end(sub->ring);
                (void) ring_note(im->ring, RING_SIDE_END);
                goto fail;
        }
        im->sub = sub;
        im->parse = true;
        im->split_at = mid;    /* not sub's, which the side thread owns now */
        return;
fail:
        import_journal_sub_free(sub);
}

/* Add FROM's entries to TO, whose first stays first. */
static void import_journal_note_merge(struct import_journal_note *to,
                                      const struct import_journal_note *from)
{
        if (to->n == 0)
                *to = *from;
        else
                to->n += from->n;
}

/*
 * The reader's part of a split round is over, WHOLE or stopped (or failed):
 * wait for the side thread.  Whole, and the side thread's too, the writer
 * takes the side ring's rest as entries like any (RING_SIDE_END), and the
 * reader goes on from the side thread's last entry.  The side thread could
 * not start: the reader reads on (*RET_ON).  Returns the side thread's
 * failure, or 0.
 */
static int import_journal_split_end(struct import_journal *im, bool whole, bool *ret_on,
                                    struct tq_error *err)
{
        struct import_journal *sub = im->sub;
        size_t k;
        int r = 0;

        *ret_on = false;
        if (!sub)
                return 0;
        if (!whole) {
                atomic_store(&sub->halt, true);
                ring_quit(sub->ring);
        }
        pthread_join(im->side_thread, NULL);
        im->sub = NULL;
        im->parse = false;
        import_journal_note_merge(&im->partial, &sub->partial);
        import_journal_note_merge(&im->skipped, &sub->skipped);
        if (sub->side_unsplit) {
                /* its ring ended empty: the writer takes from the reader's
                 * alone again, rather than looking at both every
                 * RING_SIDE_NAP_MS (with --follow, for as long as it runs) */
                if (whole && !ring_note(im->ring, RING_SIDE_END))
                        r = ring_error(im->ring);
                *ret_on = whole && r == 0;
        } else if (sub->side_r < 0) {
                *err = sub->side_err;
                r = sub->side_r;
        } else if (whole) {
                if (sub->pos[0].key.seqnum >= im->split_at) {
                        k = import_journal_pos_find(im, &sub->pos[0].key);
                        if (k == IMPORT_JOURNAL_NO_POS)
                                k = import_journal_pos_add(im);
                        if (k == IMPORT_JOURNAL_NO_POS)
                                r = -ENOMEM;
                        else
                                im->pos[k].key = sub->pos[0].key;
                }
                im->started = false;    /* the streams are at the split: seek again */
                if (r == 0 && !ring_note(im->ring, RING_SIDE_END))
                        r = ring_error(im->ring);
        }
        import_journal_sub_free(sub);
        return r;
}

/* ---- the reader thread ---- */

/* Hand out the round's entries from where the streams are, into IM's ring as
 * KIND: 1 when the round is over or the import stopped, or -errno (ERR
 * filled, but for -ENOMEM). */
static int import_journal_read_round(struct import_journal *im, int kind, struct tq_error *err)
{
        struct import_journal_stream *s = NULL;
        struct ring_slot *slot;
        int r;

        for (;;) {
                if ((im->o->stop && atomic_load(im->o->stop)) || atomic_load(&im->halt))
                        return 1;       /* interrupted: what was read gets committed */
                r = import_journal_pick(im, &s);
                if (r < 0)
                        return tq_error_set(err, r, "journal: cannot read: %s", strerror(-r));
                if (!s)
                        return 1;
                s->ready = false;
                if (import_journal_done(im, s))
                        continue;       /* handed out before: read again after another seqnum id's */
                if (kind == IMPORT_JOURNAL_SIDE && strcmp(s->key.seqnum_id, im->pos[0].key.seqnum_id) != 0)
                        /* a journal file of another seqnum id came after the
                         * split was made (its files were all of one): its
                         * entries sort by time among those of the split one,
                         * and neither thread would read them all.  The
                         * position stays in the reader's part. */
                        return tq_error_set(err, -EAGAIN, "journal: a journal file of another "
                                            "sequence number id (%s) came during the import: "
                                            "import again to read its entries",
                                            s->key.seqnum_id);
                if (im->o->has_until && s->key.realtime > im->o->until_us) {
                        im->holding = true;     /* left for a later import */
                        continue;
                }
                if (im->o->since_us && s->key.realtime < im->o->since_us)
                        continue;
                slot = ring_get(im->ring);
                if (!slot)
                        return ring_error(im->ring);
                r = import_journal_read(im, s, &slot->e);
                if (r == -ENOMEM)
                        return r;
                if (r < 0) {
                        /* a corrupt entry: skip it, as journalctl does */
                        import_journal_note_add(&im->skipped, r, s->cursor);
                        continue;
                }
                r = import_journal_pos_note(im, s);
                if (r < 0)
                        return r;
                slot->kind = im->holding ? IMPORT_JOURNAL_HELD : kind;
                slot->aux = s->key.realtime;
                /* one that fails is parsed again by the writer, which says why */
                slot->parsed = im->parse && ingest_entry_parse(&slot->e) == 0;
                ring_put(im->ring);
                if (im->split_hi) {
                        if (++im->round_n == 1)
                                im->round_lo = s->key.seqnum;
                        if (im->round_n >= im->split_probe)
                                import_journal_split_round(im, &s->key);  /* puts a note */
                }
        }
}

/* Read one round: entries up to the journal's last one when it began;
 * returns 1, or -errno. */
static int import_journal_read_all(struct import_journal *im, struct tq_error *err)
{
        size_t i;
        bool on;
        int r, q;

        r = import_journal_bound(im);
        /* a host new to a directory (one new to its journal), or to the
         * files: one that was empty, or made anew under its name */
        if (r >= 0 && (im->o->directory || im->o->files) && !im->o->boot && im->npos > 0 &&
            !im->empty) {
                r = import_journal_newcomers(im);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        return tq_error_set(err, r, "journal: cannot list boots: %s", strerror(-r));
        }
        if (r >= 0)
                import_journal_bounds(im);
        /* the streams, once the first round's end is set: without
         * --identifier one per event name the journal holds, and an entry
         * before the end (an import's wait for the database can be long)
         * has its name in the list by then */
        if (r >= 0 && im->nstreams == 0) {
                r = import_journal_streams(im, err);
                if (r < 0)
                        return r;
        }
        if (r >= 0 && !im->started && im->pause_ms)
                usleep(im->pause_ms * 1000u);   /* tests: entries come meanwhile */
        if (r >= 0 && !im->split_tried) {
                im->split_tried = true;
                import_journal_split_prepare(im);
        }
        /* one seqnum id: the streams go on from where they are; several: a
         * host's entries may come, late, before where they are */
        if (r >= 0 && (!im->started || im->npos > 1)) {
                r = import_journal_start(im);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        return tq_error_set(err, r, "journal: cannot seek: %s", strerror(-r));
        }
        if (r < 0)
                return tq_error_set(err, r, "journal: cannot read: %s", strerror(-r));
        for (i = 0; i < im->nstreams; i++)
                im->streams[i].at_end = false;
        do {
                r = import_journal_read_round(im, RING_ENTRY, err);
                q = import_journal_split_end(im, r > 0 && !(im->o->stop && atomic_load(im->o->stop)),
                                             &on, err);
                if (r > 0 && q < 0)
                        r = q;
                for (i = 0; on && i < im->nstreams; i++)
                        im->streams[i].at_end = false;
        } while (on);
        return r;
}

/* Wait for the journal to change; new files show in every stream.  A file
 * renamed (journald's rotation) or removed meanwhile is closed by
 * sd_journal_process(), and a stream left on an entry of it (one past the
 * round's end, not handed out yet) can no longer read that entry: it seeks
 * back to it by its cursor, so that its next step lands on it again,
 * wherever the file is now. */
static int import_journal_wait(struct import_journal *im, struct tq_error *err)
{
        struct import_journal_stream *s;
        size_t i;
        int r;

        do {
                if ((im->o->stop && atomic_load(im->o->stop)) || ring_quitting(im->ring))
                        return 0;
                r = sd_journal_wait(im->streams[0].j, 250000);
                if (r < 0 && r != -EINTR)
                        return tq_error_set(err, r, "journal: cannot wait: %s", strerror(-r));
        } while (r == SD_JOURNAL_NOP || r == -EINTR);
        for (i = 1; i < im->nstreams; i++)
                (void) sd_journal_process(im->streams[i].j);
        (void) sd_journal_process(im->tail);
        for (i = 0; i < im->nstreams; i++) {
                s = &im->streams[i];
                if (s->ready && sd_journal_seek_cursor(s->j, s->cursor) >= 0)
                        s->ready = false;
        }
        return 1;
}

/* The reader thread (ring_run()). */
static int import_journal_reader(struct ring *ring, void *userdata, struct tq_error *err)
{
        struct import_journal *im = userdata;
        int r;

        im->ring = ring;
        for (;;) {
                r = import_journal_read_all(im, err);
                if (r <= 0 || !im->o->follow)
                        return r < 0 ? r : 0;
                import_journal_notes_say(im);
                if (!ring_note(ring, RING_IDLE))
                        return ring_error(ring);
                r = import_journal_wait(im, err);
                if (r <= 0)
                        return r;
        }
}
/* ---- the writer (the calling thread) ---- */

/* Commit what was written, with the cursor of the last entry; IDLE: and
 * leave the database to others (queries that sync, other imports) while
 * --follow waits for the journal. */
static int import_journal_commit(struct import_journal *im, bool idle, struct tq_error *err)
{
        int r;

        r = import_journal_store(im);
        if (r < 0)
                return tq_error_set(err, r, "out of memory");
        return idle ? ingest_idle(im->ing, err) : ingest_commit(im->ing, err);
}

static int import_journal_write(struct import_journal *im, struct ring_slot *slot,
                                struct tq_error *err)
{
        struct ingest_entry *e = slot->parsed ? &slot->e : &im->went;
        /* a side thread's entry before the reader's part is over: the
         * position stays in that part, and so does the progress bar */
        bool early = slot->kind == IMPORT_JOURNAL_SIDE && !im->side_done;
        bool mine;
        int r;

        /* parse the slot's buffer where it lies, into an entry that stays in
         * this thread's cache; a buffer that grows goes back to the slot.
         * With two readers, the writer is the busier: they parse. */
        r = 0;
        if (!slot->parsed) {
                e->buf = slot->e.buf;
                e->size = slot->e.size;
                e->len = slot->e.len;
                e->kept = slot->e.kept;
                r = ingest_entry_parse(e);
        }
        /* not ours when only its identifier matched */
        mine = r == 0 && (e->event.set || e->message_id.set);
        if (mine) {
                e->realtime_us = (int64_t) slot->aux;
                e->has_realtime = true;
                r = ingest_entry(im->ing, e, err);
        }
        if (!slot->parsed) {
                slot->e.buf = e->buf;
                slot->e.size = e->size;
                e->buf = NULL;
        }
        if (r < 0 || !mine)
                return r < 0 ? r : 0;
        if (!im->first_us && !early) {
                im->first_us = slot->aux;
                tq_progress_range(im->first_us, im->last_us);
        }
        if (im->kill_after && im->seen + 1 == im->kill_after)
                raise(im->kill_signal); /* tests: die mid-transaction */
        if (slot->kind != IMPORT_JOURNAL_HELD && !early && e->cursor.set) {
                r = import_journal_keep(im, slot->e.buf + e->cursor.off, e->cursor.len);
                if (r < 0)
                        return tq_error_set(err, r, "out of memory");
        } else if (early && e->cursor.set && e->cursor.len < sizeof(im->side_cursor)) {
                memcpy(im->side_cursor, slot->e.buf + e->cursor.off, e->cursor.len);
                im->side_cursor[e->cursor.len] = '\0';
        }
        if (++im->seen % IMPORT_JOURNAL_BATCH == 0) {
                r = import_journal_commit(im, false, err);
                if (r < 0)
                        return r;
        }
        if (!early)
                tq_progress(slot->aux, im->ing);
        return 0;
}

/* The writer (ring_run()): each slot the reader filled. */
static int import_journal_slot(struct ring_slot *slot, void *userdata, struct tq_error *err)
{
        struct import_journal *im = userdata;

        if (slot->kind == RING_IDLE)
                return import_journal_commit(im, true, err);
        if (slot->kind == RING_SIDE_END) {
                /* the reader's part is written: so is the side thread's up
                 * to its last entry written */
                im->side_done = true;
                if (im->side_cursor[0] &&
                    import_journal_keep(im, im->side_cursor, strlen(im->side_cursor)) < 0)
                        return tq_error_set(err, -ENOMEM, "out of memory");
                return 0;
        }
        return import_journal_write(im, slot, err);
}

/* Keep this import's window with its source (sources.window), for the sync
 * before a query to replay (import_journal_window_parse()). */
static int import_journal_set_window(struct import_journal *im, struct tq_error *err)
{
        const struct import_journal_opts *o = im->o;
        char window[128] = "";
        size_t n = 0;

        if (o->since_us)
                n += (size_t) snprintf(window + n, sizeof(window) - n, " since=%" PRIu64,
                                       o->since_us);
        if (o->has_until)
                n += (size_t) snprintf(window + n, sizeof(window) - n, " until=%" PRIu64,
                                       o->until_us);
        if (o->boot)
                n += (size_t) snprintf(window + n, sizeof(window) - n, " boot=%s", o->boot);
        return ingest_set_window(im->ing, n ? window + 1 : NULL, err);
}

/* import_journal(), and whether it failed because the journal could not be
 * opened or read at all (*RET_UNOPENED): a directory or file gone, say. */
static int import_journal_run(sqlite3 *db, const struct import_journal_opts *o,
                              uint64_t *ret_added, bool *ret_unopened, struct tq_error *err)
{
        struct import_journal im = { .o = o };
        char *location = NULL, *filter = NULL, *cursor = NULL;
        uint64_t added = 0;
        int r, fds;

        if (getenv("TRACEQL_TEST_KILL_AFTER"))
                im.kill_after = strtoull(getenv("TRACEQL_TEST_KILL_AFTER"), NULL, 10);
        im.kill_signal = SIGKILL;
        if (getenv("TRACEQL_TEST_KILL_SIGNAL"))
                im.kill_signal = atoi(getenv("TRACEQL_TEST_KILL_SIGNAL"));
        im.split_min = IMPORT_JOURNAL_SPLIT_MIN;
        if (getenv("TRACEQL_TEST_SPLIT_MIN")) {
                im.split_min = strtoull(getenv("TRACEQL_TEST_SPLIT_MIN"), NULL, 10);
                im.say_split = true;
        }
        if (import_journal_cpus() < IMPORT_JOURNAL_SPLIT_CPUS)
                im.split_min = UINT64_MAX;
        im.split_probe = im.split_min / 8 ? im.split_min / 8 : 1;
        im.split_fail = getenv("TRACEQL_TEST_SPLIT_FAIL") != NULL;
        if (getenv("TRACEQL_TEST_PAUSE_MS"))
                im.pause_ms = (unsigned) strtoul(getenv("TRACEQL_TEST_PAUSE_MS"), NULL, 10);
        r = import_journal_names(o, &location, &filter);
        if (r < 0) {
                tq_error_set(err, r, "out of memory");
                goto out;
        }
        import_journal_nofile();
        fds = import_journal_fds();
        r = import_journal_open(o, &im.tail, err);
        if (r == 0)
                r = import_journal_readable(o, im.tail, err);
        if (r < 0) {
                *ret_unopened = r != -ENOMEM;
                goto out;
        }
        import_journal_fd_room(o, fds);
        if (o->follow)
                (void) sd_journal_get_fd(im.tail);      /* watch for new files */
        r = ingest_begin(db, "journal", location, filter, &im.ing, &cursor, NULL, err);
        if (r == 0)
                r = import_journal_set_window(&im, err);
        if (r < 0)
                goto out;
        if (tq_progress_begin(0, 0))    /* the range once the first entry's time is known */
                import_journal_range(&im);
        r = import_journal_positions(&im, cursor);
        if (r < 0) {
                tq_error_set(err, r, "out of memory");
                goto out;
        }
        r = ring_run(import_journal_reader, &im, import_journal_slot, &im, err);
        import_journal_notes_say(&im);
        if (r < 0)
                goto out;
        r = import_journal_store(&im);
        if (r < 0) {
                tq_error_set(err, r, "out of memory");
                goto out;
        }
        added = ingest_added(im.ing);
        r = ingest_end(im.ing, true, ret_added, err);
        im.ing = NULL;
out:
        if (r == -EBUSY && o->stop && atomic_load(o->stop)) {
                /* stopped while it waited for another import's turn, which
                 * it does only with what it read committed */
                if (im.ing)
                        added = ingest_added(im.ing);
                if (ret_added)
                        *ret_added = added;
                r = 0;
        }
        (void) ingest_end(im.ing, false, NULL, NULL);
        import_journal_streams_close(&im);
        sd_journal_close(im.tail);
        free(im.cursors);
        free(im.pos);
        free(im.settled);
        free(cursor);
        sqlite3_free(location);
        sqlite3_free(filter);
        return r;
}

int import_journal(sqlite3 *db, const struct import_journal_opts *o, uint64_t *ret_added,
                   struct tq_error *err)
{
        bool unopened = false;

        return import_journal_run(db, o, ret_added, &unopened, err);
}

static void import_journal_strv_free(char **v)
{
        size_t i;

        for (i = 0; v && v[i]; i++)
                free(v[i]);
        free(v);
}

/* Split S at SEP into a NULL-terminated array of malloc'ed strings; NULL
 * when out of memory. */
static char **import_journal_split(const char *s, char sep)
{
        size_t n = 2, i;
        const char *p, *q;
        char **v;

        for (p = s; *p; p++)
                n += *p == sep;
        v = calloc(n, sizeof(*v));
        for (p = s, i = 0; v && p; i++) {
                q = strchr(p, sep);
                v[i] = strndup(p, q ? (size_t) (q - p) : strlen(p));
                if (!v[i]) {
                        import_journal_strv_free(v);
                        v = NULL;
                }
                p = q ? q + 1 : NULL;
        }
        return v;
}

/* Read WINDOW (sources.window, import_journal_set_window()) into O; a
 * database from elsewhere may hold anything there: -EINVAL. */
static int import_journal_window_parse(const char *window, struct import_journal_opts *o,
                                       char *boot)
{
        const char *p = window;
        char *end;
        size_t n;

        while (p && *p) {
                if (strncmp(p, "since=", 6) == 0 || strncmp(p, "until=", 6) == 0) {
                        unsigned long long v;

                        if (p[6] < '0' || p[6] > '9')
                                return -EINVAL;
                        errno = 0;
                        v = strtoull(p + 6, &end, 10);
                        if (errno || (*end && *end != ' '))
                                return -EINVAL;
                        if (p[0] == 's')
                                o->since_us = v;
                        else {
                                o->until_us = v;
                                o->has_until = true;
                        }
                        p = end;
                } else if (strncmp(p, "boot=", 5) == 0) {
                        for (n = 0; n < 32 && ((p[5 + n] >= '0' && p[5 + n] <= '9') ||
                                               (p[5 + n] >= 'a' && p[5 + n] <= 'f')); n++)
                                ;
                        if (n != 32 || (p[37] && p[37] != ' '))
                                return -EINVAL;
                        memcpy(boot, p + 5, 32);
                        boot[32] = '\0';
                        o->boot = boot;
                        p += 37;
                } else
                        return -EINVAL;
                if (*p == ' ' && p[1])
                        p++;
                else if (*p)
                        return -EINVAL;
        }
        return 0;
}

/* Replay one stored journal source, with the window of its last import;
 * *RET_UNOPENED as import_journal_run() says. */
static int import_journal_replay(sqlite3 *db, const char *location, const char *filter,
                                 const char *window, bool *ret_unopened, struct tq_error *err)
{
        struct import_journal_opts o = { 0 };
        char **files = NULL, **idents = NULL, boot[33];
        int r = -ENOMEM;
        size_t n;

        if (import_journal_window_parse(window, &o, boot) < 0)
                return tq_error_set(err, -EINVAL, "%s: journal source '%s': invalid window '%s' "
                                    "in its sources row", store_name(db), location, window);

        if (strncmp(location, "dir:", 4) == 0)
                o.directory = location + 4;
        else if (strncmp(location, "files:", 6) == 0) {
                files = import_journal_split(location + 6, '\n');
                if (!files)
                        goto out;
                o.files = files;
        }
        o.filter = filter;
        n = strlen(filter);
        if (n >= 38 && filter[n - 38] == '\n' &&
            strncmp(filter + n - 37, IMPORT_JOURNAL_BOOT_FILTER, 5) == 0) {
                n -= 38;        /* the boot's line: the window has it too */
                memcpy(boot, filter + n + 6, 32);
                boot[32] = '\0';
                o.boot = boot;
        }
        if (n) {
                char *list = strndup(filter, n);

                idents = list ? import_journal_split(list, ',') : NULL;
                free(list);
                if (!idents)
                        goto out;
                o.identifiers = idents;
        }
        r = import_journal_run(db, &o, NULL, ret_unopened, err);
out:
        import_journal_strv_free(files);
        import_journal_strv_free(idents);
        if (r == -ENOMEM)
                tq_error_set(err, r, "out of memory");
        return r;
}

/* May DB be written now?  Another process's import commits a batch and
 * begins the next at once: waiting for a gap between them (the busy
 * timeout) would fail the query after 10 s, so the sync gives up after
 * IMPORT_JOURNAL_SYNC_WAIT_MS and the query reads what is committed. */
static bool import_journal_writable(sqlite3 *db)
{
        int rc;

        sqlite3_busy_timeout(db, IMPORT_JOURNAL_SYNC_WAIT_MS);
        rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
        if (rc == SQLITE_OK)
                (void) sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        sqlite3_busy_timeout(db, STORE_BUSY_MS);
        return (rc & 0xff) != SQLITE_BUSY;
}

static void import_journal_not_synced(sqlite3 *db)
{
        tq_message("%s: another import is writing it: not synced, the query reads what it "
                   "committed", store_name(db));
}

/* A journal source the sync replays, as its sources row holds it. */
struct import_journal_source {
        int64_t id;
        char *location, *filter, *window;
};

/* The journal sources of DB that the sync replays, in *RET_SRC (*RET_N of
 * them, to free with import_journal_sources_free()); *RET_ANY: DB has
 * sources at all, forgotten ones and other kinds too. */
static int import_journal_sources(sqlite3 *db, struct import_journal_source **ret_src,
                                  size_t *ret_n, bool *ret_any, struct tq_error *err)
{
        struct import_journal_source *src = NULL, *v;
        sqlite3_stmt *st = NULL;
        size_t n = 0, size = 0;
        int rc, r = 0;

        *ret_any = false;
        rc = sqlite3_prepare_v2(db, "SELECT id, location, filter, coalesce(window, ''), "
                                "kind = 'journal' AND NOT " TQ_SOURCE_FORGOTTEN " "
                                "FROM sources ORDER BY id", -1, &st, NULL);
        while (rc == SQLITE_OK || rc == SQLITE_ROW) {
                rc = sqlite3_step(st);
                if (rc != SQLITE_ROW)
                        break;
                *ret_any = true;
                if (!sqlite3_column_int(st, 4))
                        continue;       /* forgotten, or no journal */
                if (n == size) {
                        v = realloc(src, (size ? size * 2 : 4) * sizeof(*v));
                        if (!v) {
                                r = -ENOMEM;
                                goto out;
                        }
                        src = v;
                        size = size ? size * 2 : 4;
                }
                src[n].id = sqlite3_column_int64(st, 0);
                src[n].location = strdup((const char *) sqlite3_column_text(st, 1));
                src[n].filter = strdup((const char *) sqlite3_column_text(st, 2));
                src[n].window = strdup((const char *) sqlite3_column_text(st, 3));
                n++;
                if (!src[n - 1].location || !src[n - 1].filter || !src[n - 1].window) {
                        r = -ENOMEM;
                        goto out;
                }
        }
        if (rc != SQLITE_DONE)
                r = tq_error_set(err, -EIO, "%s: %s", store_name(db), sqlite3_errmsg(db));
out:
        sqlite3_finalize(st);
        *ret_src = src;
        *ret_n = n;
        return r;
}

static void import_journal_sources_free(struct import_journal_source *src, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                free(src[i].location);
                free(src[i].filter);
                free(src[i].window);
        }
        free(src);
}

int import_journal_sync(sqlite3 *db, bool *ret_any, struct tq_error *err)
{
        struct import_journal_source *src = NULL;
        bool any = false, unopened = false;
        size_t n = 0, i;
        int r;

        if (!import_journal_writable(db)) {
                import_journal_not_synced(db);
                *ret_any = true;
                return 0;
        }
        r = import_journal_sources(db, &src, &n, &any, err);
        if (r == 0 && !any)     /* a new database: the local journal */
                r = import_journal_replay(db, "", "", "", &unopened, err);
        for (i = 0; r == 0 && i < n; i++) {
                /* another import may have taken the lock since */
                if (i > 0 && !import_journal_writable(db)) {
                        import_journal_not_synced(db);
                        break;
                }
                /* several sources: the bar says whose entries it counts */
                if (n > 1) {
                        char label[64];

                        snprintf(label, sizeof(label), "source %" PRId64 " (%zu of %zu)",
                                 src[i].id, i + 1, n);
                        tq_progress_label(label);
                }
                r = import_journal_replay(db, src[i].location, src[i].filter, src[i].window,
                                          &unopened, err);
                /* a --directory or --file source whose journal is gone
                 * (journal-remote's files rotate and get vacuumed): the
                 * way out */
                if (r < 0 && unopened && *src[i].location)
                        tq_error_set(err, r, "%s (source %" PRId64 " of %s; 'traceql forget "
                                     "%" PRId64 "' stops syncing it, --no-sync skips the sync)",
                                     err->msg, src[i].id, store_name(db), src[i].id);
        }
        tq_progress_label(NULL);
        *ret_any = any;
        import_journal_sources_free(src, n);
        if (r == -ENOMEM)
                tq_error_set(err, r, "out of memory");
        return r;
}
