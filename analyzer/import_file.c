/*
 * import_file.c - the frame the file importers share (simpletrace, ftrace
 * text, xentrace): map the file, open the source, let the format's parser
 * turn it into rows, and commit once.
 *
 * The whole file is one transaction, so a malformed file imports nothing.
 * The source row (kind, real path) keeps the size imported and, in its
 * cursor, a fingerprint of the bytes imported (import_same_file()); a
 * later import of the same file parses it again from the start (a binary
 * trace's event mappings and a xentrace's CPU records come before the records
 * that use them) but stores only the records that start at or after that
 * size, so re-importing never duplicates and an appended trace adds only its
 * tail.  A trace being written often ends inside a record (QEMU and the
 * library write through stdio buffers, xentrace a window at a time): the
 * size imported is then where the last whole record ends, and the record cut
 * short is left for the next import, saying so.  When the first bytes no
 * longer have that fingerprint the file was replaced (or rotated) and is
 * imported whole, as a new one, saying so; unless it is a file imported
 * before under another name (import_resume()).
 * A regular file is mapped, not read, so memory does not grow with its size;
 * standard input ("-") and files that do not tell their size (tracefs, a
 * pipe) are copied as they are read into an unlinked file in $TMPDIR (else
 * /tmp), which is mapped the same way: the parsers see one mapping either
 * way, and a 2 GB trace on standard input takes 2 GB of that disk, not of
 * memory.  Such input is imported whole each time; standard input, a pipe,
 * is read once, so a record it ends inside is an error.  A text format
 * (ftrace) has it read with the text importers' cap on a line: one with no
 * end fails at the cap, not when the disk is full.
 *
 * A mapped file that shrinks under the parser (a writer truncates it) would
 * kill the process with SIGBUS at the first page past its new end.  While a
 * mapping is parsed a SIGBUS handler maps zero pages over the rest of it and
 * notes the fault: the parser reads zeros, and the import fails with "FILE:
 * the file shrank while being read", nothing stored.  A file found shorter
 * after the parse (its last page still mapped) fails the same way.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "traceql.h"

/* What is read and written at a time when input is spooled. */
#define IMPORT_SPOOL_CHUNK ((size_t) 256 << 10)

/* A file's bytes: mapped (a regular file), or spooled to a temporary file
 * and that mapped (standard input, a pipe, a tracefs file whose size says 0). */
struct import_file_data {
        const uint8_t *data;
        size_t size;
        bool mapped;                    /* else empty: nothing to unmap */
        bool spooled;                   /* read once, a copy: imported whole */
        bool regular;                   /* may be written still: a cut last record waits */
        int fd;                         /* the mapped file's, to see if it shrank; else -1 */
        uint64_t cut_line;              /* spooled: the line the copy stops in, too long */
};

/* The mapping being parsed, for the SIGBUS handler: one import at a time. */
static struct {
        uint8_t *start;
        size_t size, page;
        volatile sig_atomic_t faulted;  /* a page past the file's end was touched */
        struct sigaction old;
} import_file_guard;

/* SIGBUS in the mapping: the file shrank.  Zero pages from the faulting one
 * to the end let the parser go on (mmap() is a plain system call, safe here);
 * a fault elsewhere gets the previous action back, and happens again. */
static void import_file_sigbus(int sig, siginfo_t *si, void *uc)
{
        uint8_t *a = si->si_addr, *start = import_file_guard.start;
        size_t page = import_file_guard.page, off;

        (void) sig;
        (void) uc;
        if (!start || a < start || a >= start + import_file_guard.size) {
                sigaction(SIGBUS, &import_file_guard.old, NULL);
                return;
        }
        off = (size_t) (a - start) / page * page;
        if (mmap(start + off, import_file_guard.size - off, PROT_READ,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) {
                sigaction(SIGBUS, &import_file_guard.old, NULL);
                return;
        }
        import_file_guard.faulted = 1;
}

static int import_file_guard_on(struct import_file_data *d, struct tq_error *err)
{
        struct sigaction sa;

        if (!d->mapped)
                return 0;
        memset(&sa, 0, sizeof(sa));
        sa.sa_sigaction = import_file_sigbus;
        sa.sa_flags = SA_SIGINFO;
        sigemptyset(&sa.sa_mask);
        import_file_guard.start = (uint8_t *) d->data;
        import_file_guard.size = d->size;
        import_file_guard.page = (size_t) sysconf(_SC_PAGESIZE);       /* not in the handler */
        import_file_guard.faulted = 0;
        if (sigaction(SIGBUS, &sa, &import_file_guard.old) < 0) {
                import_file_guard.start = NULL;
                return tq_error_set(err, -errno, "sigaction: %s", strerror(errno));
        }
        return 0;
}

static void import_file_guard_off(const struct import_file_data *d)
{
        if (!d->mapped || !import_file_guard.start)
                return;
        sigaction(SIGBUS, &import_file_guard.old, NULL);
        import_file_guard.start = NULL;
}

/* -EIO with ERR when the mapped file shrank while it was read, else 0. */
static int import_file_check_size(const struct import_file_data *d, const char *name,
                                  struct tq_error *err)
{
        struct stat st;

        if (!d->mapped)
                return 0;
        if (!import_file_guard.faulted && fstat(d->fd, &st) == 0 &&
            (uint64_t) st.st_size >= d->size)
                return 0;
        return tq_error_set(err, -EIO, "%s: the file shrank while being read (%zu bytes "
                            "mapped): nothing imported", name, d->size);
}

static uint64_t import_print_add(uint64_t h, const uint8_t *p, size_t n)
{
        size_t i;

        for (i = 0; i < n; i++)
                h = (h ^ p[i]) * 1099511628211ULL;      /* FNV-1a, 64 bits */
        return h;
}

static void import_print_format(uint64_t h, char ret[IMPORT_PRINT_SIZE])
{
        snprintf(ret, IMPORT_PRINT_SIZE, "fnv1a64:%016" PRIx64, h);
}

int import_print_fd(int fd, int64_t size, char ret[IMPORT_PRINT_SIZE])
{
        uint8_t buf[IMPORT_PRINT_BYTES];
        size_t n = size < IMPORT_PRINT_BYTES ? (size_t) size : IMPORT_PRINT_BYTES;
        off_t at[2] = { 0, (off_t) (size - (int64_t) n) };
        uint64_t h = IMPORT_PRINT_INIT;
        int k;

        for (k = 0; k < 2; k++) {
                if (pread(fd, buf, n, at[k]) != (ssize_t) n)
                        return -EIO;
                h = import_print_add(h, buf, n);
        }
        import_print_format(h, ret);
        return 0;
}

/* The fingerprint of DATA[0..SIZE), the mapped file imported now
 * (traceql.h): as import_print_fd() reads it, without reading it again. */
static void import_file_fingerprint(const uint8_t *data, size_t size, char *ret)
{
        size_t n = size < IMPORT_PRINT_BYTES ? size : IMPORT_PRINT_BYTES;
        uint64_t h = IMPORT_PRINT_INIT;

        h = import_print_add(h, data, n);
        h = import_print_add(h, data + size - n, n);
        import_print_format(h, ret);
}

void import_not_same(const char *name, bool shorter)
{
        tq_message("%s: not the file imported before (%s): importing it from the start", name,
                   shorter ? "truncated or replaced" : "replaced or rotated");
}

bool import_file_has(int fd, int64_t size, int64_t offset, const char *cursor)
{
        char print[IMPORT_PRINT_SIZE];

        return size >= offset &&
               (!cursor || (import_print_fd(fd, offset, print) == 0 &&
                            strcmp(print, cursor) == 0));
}

bool import_same_file(int fd, int64_t size, int64_t offset, const char *cursor, const char *name)
{
        if (import_file_has(fd, size, offset, cursor))
                return true;
        import_not_same(name, size < offset);
        return false;
}

int import_resume(struct ingest *ing, int fd, int64_t size, int64_t offset, const char *cursor,
                  const char *name, int64_t *ret_offset, struct tq_error *err)
{
        char *from = NULL;
        int64_t at;
        int r;

        *ret_offset = 0;
        if (offset > 0 && import_file_has(fd, size, offset, cursor)) {
                *ret_offset = offset;
                return 0;
        }
        if (offset > 0) {
                r = ingest_retire_source(ing, err);
                if (r < 0)
                        return r;
        }
        r = ingest_find_renamed(ing, fd, size, &at, &from, err);
        if (r < 0)
                return r;
        if (from && strcmp(from, ingest_location(ing)) == 0) {
                /* its source forgotten (traceql forget), or replaced and the
                 * file put back: a source of before with this location */
                tq_message("%s: the file imported before by an earlier source of this name: "
                           "resuming at byte %" PRId64, name, at);
                free(from);
                *ret_offset = at;
        } else if (from) {
                tq_message("%s: the file imported before as %s (renamed): resuming at byte %"
                           PRId64, name, from, at);
                free(from);
                *ret_offset = at;
        } else if (offset > 0) {
                import_not_same(name, size < offset);
        }
        return 0;
}

/* Map SIZE bytes of FD read-only into D, which keeps FD (to see whether the
 * file shrank, and to close it); NAME for the error. */
static int import_file_map(int fd, size_t size, const char *name, struct import_file_data *d,
                           struct tq_error *err)
{
        void *p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);

        if (p == MAP_FAILED)
                return tq_error_set(err, -errno, "%s: %s", name, strerror(errno));
        (void) madvise(p, size, MADV_SEQUENTIAL);
        d->data = p;
        d->size = size;
        d->mapped = true;
        d->fd = fd;
        return 0;
}

/* The directory input is spooled to: $TMPDIR, else /tmp. */
static const char *import_spool_dir(void)
{
        const char *dir = getenv("TMPDIR");

        return dir && dir[0] ? dir : "/tmp";
}

/* A new file in DIR, read-write, with no name: O_TMPFILE; where the kernel
 * or the file system has no O_TMPFILE (or $TRACEQL_TEST_NO_TMPFILE, for the
 * tests), mkstemp() and unlink().  The fd, or -errno. */
static int import_spool_create(const char *dir)
{
        char path[PATH_MAX];
        int fd;

        if (!getenv("TRACEQL_TEST_NO_TMPFILE")) {
                fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
                if (fd >= 0)
                        return fd;
                /* an old kernel ignores the flag: EISDIR, as for O_RDWR */
                if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
                        return -errno;
        }
        if ((size_t) snprintf(path, sizeof(path), "%s/traceql-spool.XXXXXX", dir) >= sizeof(path))
                return -ENAMETOOLONG;
        fd = mkostemp(path, O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (unlink(path) < 0) {
                int e = -errno;

                close(fd);
                return e;
        }
        return fd;
}

/* Write BUF[0..N) to FD whole, adding to *SIZE what is written, a short
 * write's bytes too (the disk filling takes part of a chunk before ENOSPC).
 * 0, or -errno (-ENOSPC for a write of 0). */
static int import_spool_write(int fd, const uint8_t *buf, size_t n, uint64_t *size)
{
        while (n > 0) {
                ssize_t k = write(fd, buf, n);

                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return -errno;
                if (k == 0)
                        return -ENOSPC;
                *size += (uint64_t) k;
                buf += k;
                n -= (size_t) k;
        }
        return 0;
}

/* Read FD to its end into an unlinked temporary file (import_spool_dir()),
 * a chunk at a time, and map that as a regular file is: memory does not grow
 * with the input, the temporary directory's disk does, and the file goes
 * when it is closed.  MAX_LINE, a text format's cap on a line (0: a binary
 * format, none): a line that goes on past it stops the reading as soon as
 * the chunk holding its byte MAX_LINE + 1 is read, and the copy ends two
 * bytes past the cap in it (standard input with no newline, /dev/zero, takes
 * the cap's room on the disk, not all there is); d->cut_line says which.
 * The parser finds it too long, after any error in the lines before it, as
 * in a file that is mapped.  An empty input is not mapped (mmap() takes no 0
 * bytes).  On failure nothing is left. */
static int import_file_spool(int fd, const char *name, size_t max_line,
                             struct import_file_data *d, struct tq_error *err)
{
        static const uint8_t empty[1];
        const char *dir = import_spool_dir();
        uint64_t size = 0, line = 0, lineno = 1;        /* LINE: bytes of the last line */
        uint8_t *buf = malloc(IMPORT_SPOOL_CHUNK);
        ssize_t n;
        int out = -1, r = 0;

        if (!buf)
                return tq_error_set(err, -ENOMEM, "out of memory");
        out = import_spool_create(dir);
        if (out < 0) {
                r = tq_error_set(err, out, "%s: cannot create a temporary file in %s to read "
                                 "it into (see TMPDIR): %s", name, dir, strerror(-out));
                out = -1;
                goto out;
        }
        while ((n = read(fd, buf, IMPORT_SPOOL_CHUNK)) != 0) {
                const uint8_t *q = buf, *nl;

                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        r = tq_error_set(err, -errno, "%s: %s", name, strerror(errno));
                        goto out;
                }
                if (max_line) {
                        while ((nl = memchr(q, '\n', (size_t) (buf + n - q)))) {
                                q = nl + 1;
                                line = 0;
                                lineno++;
                        }
                        line += (uint64_t) (buf + n - q);
                        /* byte MAX_LINE + 1 may be the CR of a CRLF, not
                         * counted (import_getline()): the next one tells */
                        if (line > max_line &&
                            !(line == max_line + 1 && buf[n - 1] == '\r')) {
                                /* MAX_LINE + 2 bytes of it are too long
                                 * whatever the last two are */
                                if (line > max_line + 2)
                                        n -= (ssize_t) (line - max_line - 2);
                                d->cut_line = lineno;
                        }
                }
                r = import_spool_write(out, buf, (size_t) n, &size);
                if (r < 0) {
                        r = tq_error_set(err, r, "%s: cannot write the temporary file in %s "
                                         "it is read into (%" PRIu64 " bytes written): %s",
                                         name, dir, size, strerror(-r));
                        goto out;
                }
                if (d->cut_line)
                        break;
        }
        if (size > SIZE_MAX) {
                r = tq_error_set(err, -EFBIG, "%s: %s", name, strerror(EFBIG));
                goto out;
        }
        if (size == 0) {
                d->data = empty;
                goto out;
        }
        r = import_file_map(out, (size_t) size, name, d, err);
        if (r == 0) {
                d->spooled = true;
                out = -1;
        }
out:
        if (out >= 0)
                close(out);
        free(buf);
        return r;
}

/* Map PATH read-only, or spool it and map that ("-": standard input;
 * MAX_LINE as for import_file_spool()). */
static int import_file_open(const char *path, size_t max_line, struct import_file_data *d,
                            struct tq_error *err)
{
        struct stat st;
        int fd, r = 0;

        memset(d, 0, sizeof(*d));
        d->fd = -1;
        if (strcmp(path, "-") == 0)
                return import_file_spool(STDIN_FILENO, "<stdin>", max_line, d, err);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return tq_error_set(err, -errno, "%s: %s", path, strerror(errno));
        if (fstat(fd, &st) < 0) {
                r = tq_error_set(err, -errno, "%s: %s", path, strerror(errno));
                goto out;
        }
        if (S_ISDIR(st.st_mode)) {
                r = tq_error_set(err, -EISDIR, "%s: %s", path, strerror(EISDIR));
                goto out;
        }
        d->regular = S_ISREG(st.st_mode);
        if (!S_ISREG(st.st_mode) || st.st_size == 0) {
                r = import_file_spool(fd, path, max_line, d, err);
                goto out;
        }
        r = import_file_map(fd, (size_t) st.st_size, path, d, err);
        if (r < 0)
                goto out;
        fd = -1;
        /* the tests' writer that truncates the file under the parser */
        if (getenv("TRACEQL_TEST_SHRINK_TO") &&
            truncate(path, strtoll(getenv("TRACEQL_TEST_SHRINK_TO"), NULL, 10)) < 0)
                r = tq_error_set(err, -errno, "%s: %s", path, strerror(errno));
out:
        if (fd >= 0)
                close(fd);
        return r;
}

static void import_file_close(struct import_file_data *d)
{
        if (d->mapped)
                munmap((void *) d->data, d->size);
        if (d->fd >= 0)
                close(d->fd);
}

int import_file(sqlite3 *db, const char *kind, const char *path, size_t max_line,
                import_file_parse_fn parse, const void *ctx, uint64_t *ret_added,
                struct tq_error *err)
{
        struct import_file_data d;
        struct ingest *ing = NULL;
        const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;
        char real[PATH_MAX], print[IMPORT_PRINT_SIZE];
        char *cursor = NULL;
        int64_t offset = -1;
        size_t used;
        bool at_file;           /* the file itself mapped: positions apply */
        int r;

        r = import_file_open(path, max_line, &d, err);
        if (r < 0)
                return r;
        at_file = d.mapped && !d.spooled;
        r = import_file_guard_on(&d, err);
        if (r < 0)
                goto out;
        if (!realpath(path, real))
                snprintf(real, sizeof(real), "%s", path);
        r = ingest_begin(db, kind, real, "", &ing, &cursor, &offset, err);
        if (r < 0)
                goto out;
        if (at_file)
                r = import_resume(ing, d.fd, (int64_t) d.size, offset, cursor, name, &offset,
                                  err);
        else
                offset = 0;             /* spooled: imported whole */
        if (r < 0)
                goto out;
        used = d.size;
        tq_progress_begin(0, d.size);   /* parsed from the start, at a resume too */
        /* a regular file spooled, not mapped itself (its size was 0:
         * tracefs, or one that grew since), stores no position: nothing can
         * be left for the next import, which reads it whole again; an empty
         * one is fine */
        r = parse(ing, ctx, name, d.data, d.size, offset,
                  at_file || (d.regular && d.size == 0) ? &used : NULL, err);
        if (import_file_check_size(&d, name, err) < 0)
                r = -EIO;       /* the parser read zeros: whatever it said is moot */
        else if (r == 0 && d.cut_line)  /* the copy stops there: never imported cut */
                r = import_line_too_long(name, d.cut_line, max_line, err);
        if (r < 0)
                goto out;
        if (at_file)
                import_file_fingerprint(d.data, used, print);
        r = ingest_set_position(ing, at_file ? print : NULL, at_file ? (int64_t) used : -1);
        if (r < 0) {
                tq_error_set(err, r, "out of memory");
                goto out;
        }
        r = ingest_end(ing, true, ret_added, err);
        ing = NULL;
        /* as the text importers say it of a line; a text format's parser
         * (ftrace) says it of its lines itself */
        if (r == 0 && used < d.size && !max_line)
                tq_message("%s: an unfinished last record (%zu bytes) is left for the next "
                           "import", name, d.size - used);
out:
        (void) ingest_end(ing, false, NULL, NULL);
        import_file_guard_off(&d);
        import_file_close(&d);
        free(cursor);
        return r;
}
