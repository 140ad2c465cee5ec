/*
 * te_out.c - replace an output file atomically.
 *
 * Generated files are written in full to a temporary file beside their
 * target, then renamed over it, so a build never sees half a header and a
 * failed run leaves the old outputs as they were.  Preparing every output
 * before committing any lets tracegen keep a header and its source in step.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "te.h"

/* Write DATA to a new temporary file beside PATH; *RET_TMP is its name. */
int te_out_prepare(const char *path, const char *data, size_t len, char **ret_tmp)
{
        char *tmp = NULL;
        size_t n = strlen(path), done = 0;
        ssize_t w;
        bool created = false;
        mode_t mask;
        int fd = -1, r = 0;

        tmp = malloc(n + sizeof(".tmpXXXXXX"));
        if (!tmp) {
                r = -ENOMEM;
                goto out;
        }
        memcpy(tmp, path, n);
        memcpy(tmp + n, ".tmpXXXXXX", sizeof(".tmpXXXXXX"));
        fd = mkstemp(tmp);
        if (fd < 0) {
                r = -errno;
                goto out;
        }
        created = true;
        mask = umask(0);
        umask(mask);
        while (done < len) {
                w = write(fd, data + done, len - done);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w < 0) {
                        r = -errno;
                        goto out;
                }
                done += (size_t)w;
        }
        if (fchmod(fd, 0666 & ~mask) < 0 || close(fd) < 0) {
                r = -errno;
                fd = -1;
                goto out;
        }
        fd = -1;
        *ret_tmp = tmp;
        tmp = NULL;
out:
        if (fd >= 0)
                close(fd);
        if (tmp && created)
                unlink(tmp);
        free(tmp);
        return r;
}

/* Move TMP over PATH.  Returns 0 or -errno (TMP is then left for te_out_abort). */
int te_out_commit(const char *tmp, const char *path)
{
        return rename(tmp, path) < 0 ? -errno : 0;
}

/* Remove and free a prepared file that will not be committed; accepts NULL. */
void te_out_abort(char *tmp)
{
        if (!tmp)
                return;
        unlink(tmp);
        free(tmp);
}
