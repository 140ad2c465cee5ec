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
 * The file is mapped, not read, so memory does not grow with its size.
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

/* Map PATH read-only; an empty file gives DATA NULL and SIZE 0. */
static int import_file_map(const char *path, const uint8_t **ret_data, size_t *ret_size,
                           struct tq_error *err)
{
        struct stat st;
        void *p;
        int fd, r = 0;

        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return tq_error_set(err, -errno, "%s: %s", path, strerror(errno));
        if (fstat(fd, &st) < 0) {
                r = tq_error_set(err, -errno, "%s: %s", path, strerror(errno));
                goto out;
        }
        if (!S_ISREG(st.st_mode)) {
                r = tq_error_set(err, -EINVAL, "%s: not a regular file", path);
                goto out;
        }
        *ret_data = NULL;
        *ret_size = (size_t) st.st_size;
        if (st.st_size == 0)
                goto out;
        p = mmap(NULL, (size_t) st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
                r = tq_error_set(err, -errno, "%s: %s", path, strerror(errno));
                goto out;
        }
        (void) madvise(p, (size_t) st.st_size, MADV_SEQUENTIAL);
        *ret_data = p;
out:
        close(fd);
        return r;
}

int import_file(sqlite3 *db, const char *kind, const char *path, import_file_parse_fn parse,
                const void *ctx, uint64_t *ret_added, struct tq_error *err)
{
        struct ingest *ing = NULL;
        const uint8_t *data = NULL;
        char real[PATH_MAX];
        int64_t offset = -1;
        size_t size = 0;
        int r;

        r = import_file_map(path, &data, &size, err);
        if (r < 0)
                return r;
        if (!realpath(path, real))
                snprintf(real, sizeof(real), "%s", path);
        r = ingest_begin(db, kind, real, "", &ing, NULL, &offset, err);
        if (r < 0)
                goto out;
        if (offset < 0 || (uint64_t) offset > size)
                offset = 0;             /* new, or the file was rewritten shorter */
        r = parse(ing, ctx, path, data, size, offset, err);
        if (r < 0)
                goto out;
        r = ingest_set_position(ing, NULL, (int64_t) size);
        if (r < 0) {
                tq_error_set(err, r, "out of memory");
                goto out;
        }
        if (ret_added)
                *ret_added = ingest_added(ing);
        r = ingest_end(ing, true, err);
        ing = NULL;
out:
        (void) ingest_end(ing, false, NULL);
        if (data)
                munmap((void *) data, size);
        return r;
}
