/*
 * te_out.c - replace an output file atomically.
 *
 * Generated files are written in full to a temporary file beside their
 * target, then renamed over it, so a build never sees half a header and a
 * failed run leaves the old outputs as they were.  Preparing every output
 * before committing any lets tracegen keep a header and its source in step.
 * A symbolic link is followed: the file it names is replaced (or created:
 * a dangling link), the link stays.  A target that is no regular file
 * (/dev/stdout, a pipe, a terminal) cannot be replaced: it is written
 * directly, at commit.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "te.h"

/* Write LEN bytes of DATA to FD; 0 or -errno. */
static int te_out_all(int fd, const char *data, size_t len)
{
        size_t done = 0;
        ssize_t w;

        while (done < len) {
                w = write(fd, data + done, len - done);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w < 0)
                        return -errno;
                done += (size_t)w;
        }
        return 0;
}

/*
 * The file that PATH, a symbolic link, names in the end (links to links
 * followed), into REAL (PATH_MAX bytes): it may not exist yet, as when the
 * link was made before the first build.  0 or -errno (-ELOOP for a loop).
 */
static int te_out_follow(const char *path, char real[PATH_MAX])
{
        char link[PATH_MAX], next[PATH_MAX];
        const char *slash;
        struct stat st;
        ssize_t n;
        int hops = 0, w;

        if ((size_t)snprintf(real, PATH_MAX, "%s", path) >= PATH_MAX)
                return -ENAMETOOLONG;
        while (lstat(real, &st) == 0 && S_ISLNK(st.st_mode)) {
                if (++hops > 40)
                        return -ELOOP;
                n = readlink(real, link, sizeof(link) - 1);
                if (n < 0)
                        return -errno;
                link[n] = '\0';
                slash = strrchr(real, '/');
                if (link[0] == '/' || !slash)
                        w = snprintf(next, sizeof(next), "%s", link);
                else            /* relative to the link's folder */
                        w = snprintf(next, sizeof(next), "%.*s/%s", (int)(slash - real), real,
                                     link);
                if (w < 0 || (size_t)w >= sizeof(next))
                        return -ENAMETOOLONG;
                memcpy(real, next, (size_t)w + 1);
        }
        return 0;
}

int te_out_prepare(const char *path, const char *data, size_t len, char **ret_tmp,
                   char **ret_target)
{
        char *tmp = NULL, real[PATH_MAX];
        size_t n;
        bool created = false;
        struct stat st;
        mode_t mask;
        int fd = -1, r = 0;

        *ret_tmp = *ret_target = NULL;
        /* no regular file: written at commit; but a folder cannot be
         * written into, said now, not after the outputs before it were
         * replaced */
        if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
                return S_ISDIR(st.st_mode) ? -EISDIR : 0;
        if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
                r = te_out_follow(path, real);
                if (r < 0)
                        return r;
                *ret_target = strdup(real);
                if (!*ret_target)
                        return -ENOMEM;
                path = *ret_target;
        }
        n = strlen(path);
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
        r = te_out_all(fd, data, len);
        if (r < 0)
                goto out;
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
        if (r < 0) {
                free(*ret_target);
                *ret_target = NULL;
        }
        return r;
}

int te_out_commit(const char *tmp, const char *target, const char *path, const char *data,
                  size_t len)
{
        int fd, r;

        if (tmp)
                return rename(tmp, target ? target : path) < 0 ? -errno : 0;
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        if (fd < 0)
                return -errno;
        r = te_out_all(fd, data, len);
        if (close(fd) < 0 && r == 0)
                r = -errno;
        return r;
}

/* Remove and free a prepared file that will not be committed; accepts NULL. */
void te_out_abort(char *tmp)
{
        if (!tmp)
                return;
        unlink(tmp);
        free(tmp);
}
