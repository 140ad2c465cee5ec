/*
 * replay.c - run a fuzz target on files, without libFuzzer.
 *
 *     replay-NAME FILE-OR-DIRECTORY...
 *
 * Linked with one tests/fuzz/fuzz_NAME.c by the project's compiler ($(CC),
 * with SANITIZE when given), so the seeds and the regression inputs under
 * tests/fuzz/regress/NAME/ run in a plain `make check`, under gcc, the
 * sanitizers or valgrind.  Prints "replayed N inputs"; a crash is the failure.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path, unsigned long *count)
{
        unsigned char *buf = NULL;
        size_t len = 0, cap = 0, n;
        FILE *f;
        int r = 0;

        f = fopen(path, "re");
        if (!f) {
                fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
                return -errno;
        }
        for (;;) {
                if (len == cap) {
                        unsigned char *b = realloc(buf, cap ? cap * 2 : 4096);

                        if (!b) {
                                r = -ENOMEM;
                                goto out;
                        }
                        buf = b;
                        cap = cap ? cap * 2 : 4096;
                }
                n = fread(buf + len, 1, cap - len, f);
                if (n == 0)
                        break;
                len += n;
        }
        if (ferror(f)) {
                fprintf(stderr, "replay: %s: read error\n", path);
                r = -EIO;
                goto out;
        }
        LLVMFuzzerTestOneInput(buf, len);
        (*count)++;
out:
        free(buf);
        fclose(f);
        return r;
}

static int replay_path(const char *path, unsigned long *count)
{
        struct dirent **names;
        struct stat st;
        char *sub;
        int n, i, r = 0;

        if (stat(path, &st) < 0) {
                fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
                return -errno;
        }
        if (!S_ISDIR(st.st_mode))
                return replay_file(path, count);
        n = scandir(path, &names, NULL, alphasort);
        if (n < 0)
                return -errno;
        for (i = 0; i < n; i++) {
                if (names[i]->d_name[0] != '.' && r == 0) {
                        if (asprintf(&sub, "%s/%s", path, names[i]->d_name) < 0) {
                                r = -ENOMEM;
                        } else {
                                r = replay_path(sub, count);
                                free(sub);
                        }
                }
                free(names[i]);
        }
        free(names);
        return r;
}

int main(int argc, char **argv)
{
        unsigned long count = 0;
        int i;

        for (i = 1; i < argc; i++)
                if (replay_path(argv[i], &count) < 0)
                        return 1;
        printf("replayed %lu inputs\n", count);
        return 0;
}
