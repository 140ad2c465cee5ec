/*
 * journal-dump.c - print the journal entries of one test, field by field.
 *
 *   journal-dump IDENT COUNT FIELD...
 *   journal-dump IDENT until:FIELD=VALUE FIELD...
 *
 * Waits until COUNT entries with SYSLOG_IDENTIFIER=IDENT are in the journal
 * (giving up after 60 s of no new entry, which is a failure, never a
 * threshold on speed), then prints one line per entry, in journal order, with
 * the listed fields as FIELD=VALUE separated by a space; a missing field
 * prints as FIELD (no '=').  Bytes outside printable ASCII print as \xNN and a
 * backslash as \\, so every line is one entry.  FIELD '+' prints every field
 * the entry has that does not start with '_', sorted.
 * With until:FIELD=VALUE it reads until an entry holding that field has been
 * printed, whatever their number.
 * Entries beyond COUNT already in the journal are printed as well.
 * Exit status: 0, or 1 when fewer than COUNT entries arrived (after printing them).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <systemd/sd-journal.h>

static void put_escaped(const char *p, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                unsigned char c = (unsigned char)p[i];

                if (c == '\\')
                        fputs("\\\\", stdout);
                else if (c < 0x20 || c >= 0x7f)
                        printf("\\x%02x", c);
                else
                        putchar(c);
        }
}

static int cmp_data(const void *a, const void *b)
{
        const struct iovec *x = a, *y = b;
        size_t n = x->iov_len < y->iov_len ? x->iov_len : y->iov_len;
        int c = memcmp(x->iov_base, y->iov_base, n);

        return c ? c : (x->iov_len > y->iov_len) - (x->iov_len < y->iov_len);
}

/* Every field not starting with '_', sorted, so the order is stable. */
static void print_all(sd_journal *j)
{
        struct iovec f[256];
        const void *data;
        size_t len, n = 0;

        /* Copied: DATA is only valid until the next field is read. */
        SD_JOURNAL_FOREACH_DATA(j, data, len)
                if (((const char *)data)[0] != '_' && n < 256) {
                        void *copy = malloc(len);

                        if (!copy) {
                                fprintf(stderr, "journal-dump: out of memory\n");
                                exit(2);
                        }
                        memcpy(copy, data, len);
                        f[n++] = (struct iovec){ copy, len };
                }
        qsort(f, n, sizeof(f[0]), cmp_data);
        for (size_t i = 0; i < n; i++) {
                if (i)
                        putchar(' ');
                put_escaped(f[i].iov_base, f[i].iov_len);
                free(f[i].iov_base);
        }
}

/* Does the current entry hold FIELD=VALUE exactly? */
static int has_data(sd_journal *j, const char *fv)
{
        char field[256];
        const void *data;
        size_t len, fl = strcspn(fv, "=");

        if (fl >= sizeof(field))
                return 0;
        memcpy(field, fv, fl);
        field[fl] = '\0';
        return sd_journal_get_data(j, field, &data, &len) >= 0 && len == strlen(fv) &&
               memcmp(data, fv, len) == 0;
}

static void print_field(sd_journal *j, const char *field, int first)
{
        const void *data;
        size_t len, fl = strlen(field);

        if (!first)
                putchar(' ');
        if (strcmp(field, "+") == 0) {
                print_all(j);
                return;
        }
        if (sd_journal_get_data(j, field, &data, &len) < 0) {
                fputs(field, stdout);
                return;
        }
        fputs(field, stdout);
        putchar('=');
        put_escaped((const char *)data + fl + 1, len - fl - 1);
}

int main(int argc, char **argv)
{
        sd_journal *j;
        char match[512];
        long want, have = 0;
        const char *until = NULL;
        int idle = 0;

        if (argc < 3) {
                fprintf(stderr, "usage: journal-dump IDENT COUNT FIELD...\n");
                return 2;
        }
        if (strncmp(argv[2], "until:", 6) == 0) {
                until = argv[2] + 6;
                want = LONG_MAX;
        } else
                want = atol(argv[2]);
        if (sd_journal_open(&j, SD_JOURNAL_LOCAL_ONLY) < 0) {
                fprintf(stderr, "journal-dump: cannot open the journal\n");
                return 2;
        }
        snprintf(match, sizeof(match), "SYSLOG_IDENTIFIER=%s", argv[1]);
        sd_journal_set_data_threshold(j, 0);
        sd_journal_add_match(j, match, 0);
        sd_journal_seek_head(j);
        while (have < want && idle < 60) {
                int r = sd_journal_next(j);

                if (r < 0)
                        break;
                if (r == 0) {
                        if (sd_journal_wait(j, 1000000) == SD_JOURNAL_NOP)
                                idle++;
                        continue;
                }
                idle = 0;
                have++;
                for (int i = 3; i < argc; i++)
                        print_field(j, argv[i], i == 3);
                putchar('\n');
                if (until && has_data(j, until))
                        want = have;
        }
        /* Anything beyond COUNT that is already there is printed too. */
        while (have >= want && sd_journal_next(j) > 0) {
                for (int i = 3; i < argc; i++)
                        print_field(j, argv[i], i == 3);
                putchar('\n');
        }
        sd_journal_close(j);
        return have < want;
}
