/*
 * traceql_import.c - the baseline for traceql's import throughput.
 *
 *   traceql_import IDENTIFIER [cursor]
 *
 * Reads every journal entry of SYSLOG_IDENTIFIER=IDENTIFIER with the bare
 * sd-journal loop (sd_journal_next + sd_journal_enumerate_data over every
 * field, touching each byte count) and prints "N entries S seconds R
 * entries/s".  bench/import.sh compares traceql import with it.
 *
 * With "cursor", it also asks each entry's cursor (sd_journal_get_cursor),
 * the only way libsystemd 252 (Debian 12's) gives an entry's sequence
 * number, which an import must keep to know the entry again: the least a
 * reader through the sd-journal API does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <systemd/sd-journal.h>

int main(int argc, char **argv)
{
        struct timespec a, b;
        sd_journal *j = NULL;
        const void *data;
        unsigned long long n = 0, bytes = 0;
        char match[512];
        size_t len;
        double s;
        int r;

        if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "cursor") != 0)) {
                fputs("usage: traceql_import IDENTIFIER [cursor]\n", stderr);
                return 2;
        }
        snprintf(match, sizeof(match), "SYSLOG_IDENTIFIER=%s", argv[1]);
        clock_gettime(CLOCK_MONOTONIC, &a);
        r = sd_journal_open(&j, SD_JOURNAL_LOCAL_ONLY);
        if (r >= 0)
                r = sd_journal_add_match(j, match, 0);
        if (r < 0) {
                fprintf(stderr, "traceql_import: journal: %s\n", strerror(-r));
                return 1;
        }
        while (sd_journal_next(j) > 0) {
                n++;
                if (argc == 3) {
                        char *cursor = NULL;

                        if (sd_journal_get_cursor(j, &cursor) >= 0)
                                bytes += strlen(cursor);
                        free(cursor);
                }
                while (sd_journal_enumerate_data(j, &data, &len) > 0)
                        bytes += len;
        }
        sd_journal_close(j);
        clock_gettime(CLOCK_MONOTONIC, &b);
        s = (double) (b.tv_sec - a.tv_sec) + (double) (b.tv_nsec - a.tv_nsec) / 1e9;
        printf("%llu entries %.3f seconds %.0f entries/s (%llu bytes)\n", n, s, (double) n / s, bytes);
        return 0;
}
