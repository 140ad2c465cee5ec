/*
 * import_export.c - trace events from the journal export format.
 *
 * Reads what `journalctl -o export` writes (systemd's JOURNAL_EXPORT_FORMATS):
 * entries separated by an empty line, each field either `NAME=value\n` or, for
 * values that are not plain text, `NAME\n`, a little-endian 64-bit length,
 * the bytes, and `\n`.  Entries go to ingest.c; their __CURSOR (or
 * __SEQNUM_ID/__SEQNUM) gives the same identity as a direct journal import, so
 * importing both never duplicates.  In a regular file, an entry the file ends
 * in (no empty line after it yet, wherever its bytes stop) is left for the
 * next import: a writer may be in the middle of it, and its first fields
 * imported as an entry would leave the others to make a second one.  From
 * standard input, which is read once, such an entry is imported when it ends
 * at a line end, and is an error when it ends inside a field.
 *
 * A reader thread parses the stream into a ring of entries (ring.c), the
 * calling thread writes them.  A whole run is one transaction: a malformed
 * stream fails with "PATH:LINE: why" (LINE counts every newline byte before
 * it, including those inside binary values and those before the offset an
 * import resumed at) and imports nothing.  For a regular file the byte offset
 * after the last entry is stored, with a fingerprint of the bytes before it,
 * and the next import of the same file resumes there (import_export_resume()).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "traceql.h"

/* A larger value is a broken stream.  A text field's line is held to the
 * same size, IMPORT_MAX_LINE (systemd's own importer, journal-importer.c,
 * holds a line to DATA_SIZE_MAX, its cap of a binary field). */
#define IMPORT_EXPORT_MAX_BINARY (256u << 20)

struct import_export {
        FILE *f;
        const char *name;               /* for messages: the path, or "<stdin>" */
        char *line;                     /* import_getline()'s buffer, reused */
        size_t line_size;
        size_t max_line;                /* import_max_line() */
        char *bin;                      /* buffer for binary fields, reused */
        size_t bin_size;
        uint64_t lineno;                /* newlines read so far */
        int64_t offset;                 /* bytes read so far, from the start of the file */
        int64_t resumed;                /* the offset the import resumed at, or 0 */
        int64_t entry_start;            /* the offset of the entry being read */
        bool hold_tail;                 /* a regular file: an entry cut by its end is left */
        bool held;                      /* one was */
        struct ingest_entry *e;         /* the entry being read: a ring slot's */
        unsigned nfields;               /* fields in the entry being read */
        uint64_t lines_before;          /* newlines before resumed, once bad_int_base */
        bool bad_int_base;              /* lines_before is counted */
};

/* Field names: upper-case letters, digits and '_', not starting with a digit. */
static bool import_export_valid_name(const char *p, size_t n)
{
        size_t i;

        if (n == 0 || n > 255 || (p[0] >= '0' && p[0] <= '9'))
                return false;
        for (i = 0; i < n; i++)
                if (!((p[i] >= 'A' && p[i] <= 'Z') || (p[i] >= '0' && p[i] <= '9') || p[i] == '_'))
                        return false;
        return true;
}

/* The first 64 bytes of P (N bytes) for a message, in BUF: a NUL byte is
 * written \x00, as tq_error_set() writes the other control characters,
 * rather than end the quote there. */
static const char *import_export_quote(const char *p, size_t n, char buf[static 64 * 4 + 1])
{
        size_t i, k = 0;

        for (i = 0; i < n && i < 64; i++) {
                if (p[i]) {
                        buf[k++] = p[i];
                } else {
                        memcpy(buf + k, "\\x00", 4);
                        k += 4;
                }
        }
        buf[k] = '\0';
        return buf;
}

/* Line AT, counted from where the import began, as a line of the whole
 * file.  A resumed import reads nothing before its offset: the lines there
 * are counted only for a message, as the newline bytes an import from the
 * start would have read. */
static uint64_t import_export_at(const struct import_export *x, uint64_t at)
{
        char buf[65536];
        const char *p;
        int64_t off;
        ssize_t n;

        for (off = 0; off < x->resumed; off += n) {
                size_t want = x->resumed - off < (int64_t) sizeof(buf) ?
                              (size_t) (x->resumed - off) : sizeof(buf);

                n = pread(fileno(x->f), buf, want, off);
                if (n <= 0)
                        break;
                for (p = buf; (p = memchr(p, '\n', (size_t) (buf + n - p))); p++)
                        at++;
        }
        return at;
}

/* Does the __CURSOR value P (N bytes) give the entry's journal identity: a
 * seqnum id "s=..." and a sequence number "i=<hex>"? */
static bool import_export_valid_cursor(const char *p, size_t n)
{
        bool sid = false, seq = false;
        size_t i = 0, k;
        int64_t x;

        while (i < n) {
                const char *semi = memchr(p + i, ';', n - i);

                k = semi ? (size_t) (semi - p) : n;
                if (k - i > 2 && p[i] == 's' && p[i + 1] == '=')
                        sid = true;
                else if (k - i > 2 && p[i] == 'i' && p[i + 1] == '=')
                        seq = ingest_parse_hex(p + i + 2, k - i - 2, &x);
                i = k + 1;
        }
        return sid && seq;
}

/* Is the field DATA ("NAME=value", LEN bytes, the name NLEN of them), read
 * at line AT, fit for the entry?  A __CURSOR without the entry's identity
 * would leave it to be numbered in import order, and added again by each
 * import of the stream.  0, or -EBADMSG. */
static int import_export_check(const struct import_export *x, const char *data, size_t nlen,
                               size_t len, uint64_t at, struct tq_error *err)
{
        size_t vlen = len - nlen - 1;
        char quote[64 * 4 + 1];

        if (nlen != 8 || memcmp(data, "__CURSOR", 8) != 0 ||
            import_export_valid_cursor(data + 9, vlen))
                return 0;
        return tq_error_set(err, -EBADMSG, "%s:%" PRIu64 ": invalid __CURSOR '%s'", x->name,
                            import_export_at(x, at), import_export_quote(data + 9, vlen, quote));
}

/* Add the field DATA (LEN bytes), read at line AT, to the entry.  An entry
 * holds less than 2 GiB (ingest.c): a stream whose entry goes on past that
 * is broken, not short of memory.  0, -EBADMSG or -ENOMEM. */
static int import_export_add(struct import_export *x, const char *data, size_t len,
                             uint64_t at, struct tq_error *err)
{
        int r = ingest_entry_add(x->e, data, len);

        /* a numeric field that is no number: its line, for ingest_end()'s
         * note; the lines before a resumed import's offset are counted the
         * first time only */
        if (r == 0 && x->e->bad_int.set && !x->e->bad_int_line) {
                if (!x->bad_int_base) {
                        x->lines_before = import_export_at(x, 0);
                        x->bad_int_base = true;
                }
                x->e->bad_int_line = x->lines_before + at;
        }
        if (r == -E2BIG)
                return tq_error_set(err, -EBADMSG, "%s:%" PRIu64 ": entry too large (its "
                                    "fields take more than 2 GiB)", x->name,
                                    import_export_at(x, at));
        return r < 0 ? tq_error_set(err, -ENOMEM, "out of memory") : 0;
}

/* At the end of the input inside an entry: is it left for the next import?
 * When it is, the position goes back to where the entry began. */
static bool import_export_held(struct import_export *x)
{
        if (!x->hold_tail || ferror(x->f) || !feof(x->f))
                return false;
        x->offset = x->entry_start;
        x->held = true;
        return true;
}

/* Read a binary field's length, value and trailing newline; NAME is the
 * field name (a NUL-terminated line without its newline).  0, 2 when the
 * file ends inside it and the entry is left (import_export_held()), or
 * -errno. */
static int import_export_binary(struct import_export *x, const char *name, size_t nlen,
                                struct tq_error *err)
{
        uint64_t size = 0, i, at = x->lineno + 1;
        unsigned char le[8];
        const char *p;
        int c;

        if (fread(le, 1, 8, x->f) != 8) {
                if (import_export_held(x))
                        return 2;
                return tq_error_set(err, -EBADMSG, "%s:%" PRIu64 ": truncated binary field '%s'",
                                    x->name, import_export_at(x, at), name);
        }
        for (i = 0; i < 8; i++)
                size |= (uint64_t) le[i] << (8 * i);
        if (size > IMPORT_EXPORT_MAX_BINARY)
                return tq_error_set(err, -EBADMSG, "%s:%" PRIu64 ": binary field '%s' too large "
                                    "(%" PRIu64 " bytes)", x->name, import_export_at(x, at), name,
                                    size);
        if (nlen + 1 + size > x->bin_size) {
                char *b = realloc(x->bin, nlen + 1 + size + 1);

                if (!b)
                        return tq_error_set(err, -ENOMEM, "out of memory");
                x->bin = b;
                x->bin_size = nlen + 1 + size + 1;
        }
        memcpy(x->bin, name, nlen);
        x->bin[nlen] = '=';
        if (fread(x->bin + nlen + 1, 1, size, x->f) != size) {
                if (import_export_held(x))
                        return 2;
                return tq_error_set(err, -EBADMSG, "%s:%" PRIu64 ": truncated binary field '%s'",
                                    x->name, import_export_at(x, at), name);
        }
        x->offset += 8 + (int64_t) size;
        for (p = x->bin + nlen + 1; (p = memchr(p, '\n', (size_t) (x->bin + nlen + 1 + size - p)));
             p++)
                x->lineno++;
        c = getc(x->f);
        if (c == EOF && import_export_held(x))
                return 2;
        if (c != '\n')
                return tq_error_set(err, -EBADMSG, "%s:%" PRIu64 ": binary field '%s' not "
                                    "followed by a newline", x->name,
                                    import_export_at(x, x->lineno + 1), name);
        x->offset++;
        x->lineno++;
        if (import_export_check(x, x->bin, nlen, nlen + 1 + size, at, err) < 0)
                return -EBADMSG;
        return import_export_add(x, x->bin, nlen + 1 + size, at, err);
}

/* Read one line of the stream into the entry. Returns 1 at the end of an
 * entry (empty line, or end of standard input after a field), 0 after a
 * field, 2 at the end of the file with no entry pending (or one left:
 * import_export_held()), -errno. */
static int import_export_line(struct import_export *x, struct tq_error *err)
{
        char quote[64 * 4 + 1];
        const char *eq;
        ssize_t n;
        size_t nlen;
        int r;

        if (x->nfields == 0)
                x->entry_start = x->offset;
        n = import_getline(x->f, &x->line, &x->line_size, x->max_line, false);
        if (n == -ENOMEM)
                return tq_error_set(err, -ENOMEM, "out of memory");
        if (n == -E2BIG)
                return import_line_too_long(x->name, import_export_at(x, x->lineno + 1),
                                            x->max_line, err);
        if (n == 0) {
                if (ferror(x->f))
                        return tq_error_set(err, -EIO, "%s: %s", x->name, strerror(errno));
                return x->nfields && !import_export_held(x) ? 1 : 2;
        }
        x->offset += n;
        if (x->line[n - 1] != '\n') {
                if (import_export_held(x))
                        return 2;
                return tq_error_set(err, -EBADMSG, "%s:%" PRIu64 ": unexpected end of file "
                                    "inside an entry", x->name, import_export_at(x, x->lineno + 1));
        }
        x->lineno++;
        x->line[--n] = '\0';
        if (n == 0)
                return x->nfields ? 1 : 0;      /* extra empty lines are harmless */
        eq = memchr(x->line, '=', (size_t) n);
        nlen = eq ? (size_t) (eq - x->line) : (size_t) n;
        /* a stream whose lines end in CR LF (a copy through a Windows
         * tool) fails at its first blank line, "\r", or at a binary field's
         * name, "NAME\r": say why */
        if (!import_export_valid_name(x->line, nlen))
                return tq_error_set(err, -EBADMSG, "%s:%" PRIu64 ": invalid field name '%s'%s",
                                    x->name, import_export_at(x, x->lineno),
                                    import_export_quote(x->line, nlen, quote),
                                    !eq && x->line[n - 1] == '\r' &&
                                    (n == 1 || import_export_valid_name(x->line, (size_t) n - 1)) ?
                                    " (lines ending in CR LF? an export stream's end in LF alone)" :
                                    "");
        x->nfields++;
        if (!eq) {
                x->lineno--;    /* messages count from the name line */
                r = import_export_binary(x, x->line, nlen, err);
                x->lineno++;
                return r;
        }
        if (import_export_check(x, x->line, nlen, (size_t) n, x->lineno, err) < 0)
                return -EBADMSG;
        return import_export_add(x, x->line, (size_t) n, x->lineno, err);
}

size_t import_max_line(void)
{
        const char *v = getenv("TRACEQL_TEST_MAX_LINE");
        unsigned long n = v ? strtoul(v, NULL, 10) : 0;

        return n > 0 && n < IMPORT_MAX_LINE ? (size_t) n : IMPORT_MAX_LINE;
}

/* Make *LINE (*SIZE bytes) hold NEED bytes: doubled, but no more than a line
 * at the cap MAX, its NUL and the byte that finds it too long (doubling past
 * it would ask for twice the cap).  0 or -ENOMEM. */
static int import_line_room(char **line, size_t *size, size_t need, size_t max)
{
        size_t grow;
        char *p;

        if (need <= *size)
                return 0;
        grow = *size ? 2 * *size : 1024;
        if (grow < need)
                grow = need;
        if (grow > max + 2)
                grow = max + 2;
        p = realloc(*line, grow);
        if (!p)
                return -ENOMEM;
        *line = p;
        *size = grow;
        return 0;
}

/*
 * The bytes of F's buffer that are read and not yet taken, in *RET (0 when
 * it is empty).  glibc's getc_unlocked() takes them one by one from there;
 * taking them a run at a time (memchr() for the newline, one memcpy()) reads
 * a line several times faster, which a text import of 100 MB shows.  Other C
 * libraries take the byte at a time path.
 */
static size_t import_buffered(FILE *f, const char **ret)
{
#ifdef __GLIBC__
        *ret = f->_IO_read_ptr;
        return f->_IO_read_ptr < f->_IO_read_end ? (size_t) (f->_IO_read_end - f->_IO_read_ptr) : 0;
#else
        (void) f;
        *ret = NULL;
        return 0;
#endif
}

static void import_buffered_take(FILE *f, size_t n)
{
#ifdef __GLIBC__
        f->_IO_read_ptr += n;
#else
        (void) f;
        (void) n;
#endif
}

ssize_t import_getline(FILE *f, char **line, size_t *size, size_t max, bool crlf)
{
        /* LIMIT: the bytes before the newline, a CR that ends the line with
         * it included */
        size_t n = 0, avail, take, limit = crlf ? max + 1 : max;
        const char *p, *nl;
        int c = 0;

        flockfile(f);
        while (c != '\n') {
                avail = import_buffered(f, &p);
                if (avail > 0) {
                        /* up to the newline, and no further than one byte
                         * past the cap */
                        take = avail < limit + 1 - n ? avail : limit + 1 - n;
                        nl = memchr(p, '\n', take);
                        if (nl)
                                take = (size_t) (nl - p) + 1;
                        if (import_line_room(line, size, n + take + 1, limit) < 0)
                                goto nomem;
                        memcpy(*line + n, p, take);
                        import_buffered_take(f, take);
                        n += take;
                        c = (unsigned char) (*line)[n - 1];
                } else {
                        /* an empty buffer (getc_unlocked() fills it) */
                        c = getc_unlocked(f);
                        if (c == EOF)
                                break;
                        if (import_line_room(line, size, n + 2, limit) < 0)
                                goto nomem;
                        (*line)[n++] = (char) c;
                }
                if (n > max) {
                        /* the bytes before the newline, but a CR at their
                         * end (a CRLF's, or the next byte tells) */
                        size_t body = n - (c == '\n');

                        if (crlf && body > 0 && (*line)[body - 1] == '\r')
                                body--;
                        if (body > max) {
                                funlockfile(f);
                                return -E2BIG;
                        }
                }
        }
        funlockfile(f);
        if (n > 0)
                (*line)[n] = '\0';
        return (ssize_t) n;
nomem:
        funlockfile(f);
        return -ENOMEM;
}

int import_line_too_long(const char *name, uint64_t lineno, size_t max, struct tq_error *err)
{
        return tq_error_set(err, -EBADMSG, "%s:%" PRIu64 ": line too long (more than %zu bytes "
                            "without a newline)", name, lineno, max);
}

int import_open(const char *path, FILE **ret_f, const char **ret_name, char *real,
                struct tq_error *err)
{
        if (strcmp(path, "-") == 0) {
                *ret_f = stdin;
                *ret_name = "<stdin>";
                strcpy(real, "-");
                return 0;
        }
        *ret_name = path;
        *ret_f = fopen(path, "re");
        if (!*ret_f)
                return tq_error_set(err, -errno, "%s: %s", path, strerror(errno));
        if (!realpath(path, real))
                snprintf(real, PATH_MAX, "%s", path);
        return 0;
}

/* Can the stream be resumed by offset: a regular file, not stdin? */
static bool import_export_seekable(FILE *f)
{
        struct stat st;
        int fd;

        if (f == stdin)
                return false;
        fd = fileno(f);
        return fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

/*
 * Resume a regular file at its stored offset when it is the file imported
 * before, as import_file() does the other files (import_resume()): it still
 * reaches the offset, and the bytes before have the fingerprint CURSOR
 * (traceql.h); or at the offset of another source whose file this one is,
 * renamed (rotated).  A file replaced or written again is read from the
 * start, its source's rows and position kept under 'replaced ID'.  And an
 * entry must end there: an empty line, or the end of the file when the
 * stream was cut there, a line end at least (when an older traceql stored
 * the offset without a fingerprint, an empty line).  The entries already
 * there are known by their journal identity and not stored twice; entries
 * without one (no __CURSOR) are stored once because of the position.
 */
static int import_export_resume(struct import_export *x, struct ingest *ing, int64_t offset,
                                const char *cursor, struct tq_error *err)
{
        struct stat st;
        int fd = fileno(x->f);
        int64_t at;
        char end[2];
        int r;

        if (!import_export_seekable(x->f) || fstat(fd, &st) < 0)
                return 0;
        r = import_resume(ing, fd, st.st_size, offset, cursor, x->name, &at, err);
        if (r < 0 || at <= 0)
                return r;
        if (at < 2 || pread(fd, end, 2, at - 2) != 2 || end[1] != '\n' ||
            (!cursor && end[0] != '\n')) {
                import_not_same(x->name, false);
                return 0;
        }
        if (fseeko(x->f, at, SEEK_SET) == 0)
                x->offset = x->resumed = at;
        return 0;
}

/* The reader thread (ring_run()): every entry into a slot. */
static int import_export_reader(struct ring *ring, void *userdata, struct tq_error *err)
{
        struct import_export *x = userdata;
        struct ring_slot *slot = NULL;
        int r;

        for (;;) {
                if (!slot) {
                        slot = ring_get(ring);
                        if (!slot)      /* the writer failed, or no memory */
                                return ring_error(ring);
                        ingest_entry_reset(&slot->e);
                        x->e = &slot->e;
                }
                r = import_export_line(x, err);
                if (r < 0 || r == 2)
                        return r < 0 ? r : 0;
                if (r == 0)
                        continue;
                slot->kind = RING_ENTRY;
                slot->aux = (uint64_t) x->offset;       /* tq_progress() */
                ring_put(ring);
                slot = NULL;
                x->nfields = 0;
        }
}

/* Read and write the stream (X->f and X->name are set): a reader thread
 * parses the entries (a third of the work), the calling thread writes them. */
static int import_export_run(sqlite3 *db, struct import_export *x, const char *location,
                             uint64_t *ret_added, struct tq_error *err)
{
        char print[IMPORT_PRINT_SIZE], *cursor = NULL;
        struct ingest *ing = NULL;
        int64_t offset = -1;
        struct stat st;
        bool seekable;
        int r;

        seekable = import_export_seekable(x->f);
        x->hold_tail = seekable;
        x->max_line = import_max_line();
        r = ingest_begin(db, "export", location, "", &ing, &cursor, &offset, err);
        if (r < 0)
                goto out;
        r = import_export_resume(x, ing, offset, cursor, err);
        if (r < 0)
                goto out;
        tq_progress_begin((uint64_t) x->offset, seekable && fstat(fileno(x->f), &st) == 0 ?
                          (uint64_t) st.st_size : 0);
        r = ring_run(import_export_reader, x, ring_write_entry, ing, err);
        if (r < 0)
                goto out;
        if (seekable && import_print_fd(fileno(x->f), x->offset, print) < 0) {
                r = tq_error_set(err, -EIO, "%s: the file shrank while being read: nothing "
                                 "imported", x->name);
                goto out;
        }
        r = ingest_set_position(ing, seekable ? print : NULL, seekable ? x->offset : -1);
        if (r < 0) {
                tq_error_set(err, r, "out of memory");
                goto out;
        }
        r = ingest_end(ing, true, ret_added, err);
        ing = NULL;
out:
        (void) ingest_end(ing, false, NULL, NULL);
        free(cursor);
        free(x->line);
        free(x->bin);
        return r;
}

int import_export_stream(sqlite3 *db, FILE *f, const char *name, const char *location,
                         uint64_t *ret_added, struct tq_error *err)
{
        struct import_export x = { .f = f, .name = name };

        if (!db || !f || !name || !location)
                return -EINVAL;
        return import_export_run(db, &x, location, ret_added, err);
}

int import_export(sqlite3 *db, const char *path, uint64_t *ret_added, struct tq_error *err)
{
        struct import_export x = { 0 };
        char real[PATH_MAX];
        int r;

        r = import_open(path, &x.f, &x.name, real, err);
        if (r < 0)
                return r;
        r = import_export_run(db, &x, real, ret_added, err);
        if (r == 0 && x.held)   /* as the text importers' summary says it */
                tq_message("%s: an unfinished last entry is left for the next import", x.name);
        if (x.f != stdin)
                fclose(x.f);
        return r;
}
