/*
 * import_file.c - the frame the file importers share (simpletrace, ftrace
 * text, xentrace): map the file, open the source, let the format's parser
 * turn it into rows, and commit once.
 *
 * The whole file is one transaction, so a malformed file imports nothing.
 * The source row (kind, real path) keeps the size imported; a later import
 * of the same file parses it again from the start (a binary trace's event
 * mappings and a xentrace's CPU records come before the records that use
 * them) but stores only the records that start at or after that size, so
 * re-importing never duplicates and an appended trace adds only its tail.
 * A regular file is mapped, not read, so memory does not grow with its size;
 * standard input ("-") and files that do not tell their size (tracefs) are
 * read whole, and imported whole each time.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "traceql.h"

/* A file's bytes: mapped (a regular file), or read into memory (standard
 * input, a pipe, a tracefs file whose size says 0). */
struct import_file_data {
        const uint8_t *data;
        size_t size;
        bool mapped;
};

static int import_file_read(int fd, const char *path, struct import_file_data *d,
                            struct tq_error *err)
{
        size_t size = 0, cap = 65536;
        uint8_t *buf = malloc(cap);
        ssize_t n;

        if (!buf)
                return tq_error_set(err, -ENOMEM, "out of memory");
        while ((n = read(fd, buf + size, cap - size)) != 0) {
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        free(buf);
                        return tq_error_set(err, -errno, "%s: %s", path, strerror(errno));
                }
                size += (size_t) n;
                if (size == cap) {
                        uint8_t *p = realloc(buf, cap * 2);

                        if (!p) {
                                free(buf);
                                return tq_error_set(err, -ENOMEM, "out of memory");
                        }
                        buf = p;
                        cap *= 2;
                }
        }
        d->data = buf;
        d->size = size;
        return 0;
}

/* Map PATH read-only, or read it ("-": standard input). */
static int import_file_open(const char *path, struct import_file_data *d, struct tq_error *err)
{
        struct stat st;
        void *p;
        int fd, r = 0;

        memset(d, 0, sizeof(*d));
        if (strcmp(path, "-") == 0)
                return import_file_read(STDIN_FILENO, "<stdin>", d, err);
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
        if (!S_ISREG(st.st_mode) || st.st_size == 0) {
                r = import_file_read(fd, path, d, err);
                goto out;
        }
        p = mmap(NULL, (size_t) st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
                r = tq_error_set(err, -errno, "%s: %s", path, strerror(errno));
                goto out;
        }
        (void) madvise(p, (size_t) st.st_size, MADV_SEQUENTIAL);
        d->data = p;
        d->size = (size_t) st.st_size;
        d->mapped = true;
out:
        close(fd);
        return r;
}

static void import_file_close(struct import_file_data *d)
{
        if (d->mapped)
                munmap((void *) d->data, d->size);
        else
                free((void *) d->data);
}

int import_file(sqlite3 *db, const char *kind, const char *path, import_file_parse_fn parse,
                const void *ctx, uint64_t *ret_added, struct tq_error *err)
{
        struct import_file_data d;
        struct ingest *ing = NULL;
        const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;
        char real[PATH_MAX];
        int64_t offset = -1;
        int r;

        r = import_file_open(path, &d, err);
        if (r < 0)
                return r;
        if (!realpath(path, real))
                snprintf(real, sizeof(real), "%s", path);
        r = ingest_begin(db, kind, real, "", &ing, NULL, &offset, err);
        if (r < 0)
                goto out;
        if (!d.mapped || offset < 0 || (uint64_t) offset > d.size)
                offset = 0;             /* new, not a regular file, or rewritten shorter */
        r = parse(ing, ctx, name, d.data, d.size, offset, err);
        if (r < 0)
                goto out;
        r = ingest_set_position(ing, NULL, d.mapped ? (int64_t) d.size : -1);
        if (r < 0) {
                tq_error_set(err, r, "out of memory");
                goto out;
        }
        r = ingest_end(ing, true, ret_added, err);
        ing = NULL;
out:
        (void) ingest_end(ing, false, NULL, NULL);
        import_file_close(&d);
        return r;
}
