/*
 * traceql_send.c - send hand-made journal entries for the traceql tests.
 *
 * Reads entries from stdin, one per line, fields separated by TAB, each
 * "NAME=value" with the escapes \n \t \\ \0 \xHH in the value, and sends each
 * entry with sd_journal_sendv(), so values may hold newlines, '=' and NUL
 * bytes.  The test gives every entry its own SYSLOG_IDENTIFIER.
 * Exit 0, or 1 with a message naming the line.
 */
/* sd_journal_sendv() would add CODE_FILE/LINE/FUNC of this file: the test sets its own. */
#define SD_JOURNAL_SUPPRESS_LOCATION 1
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <systemd/sd-journal.h>

#define SEND_MAX_FIELDS 64

static int send_unescape(char *s, size_t *ret_len)
{
        char *w = s, *r = s;

        while (*r) {
                if (*r != '\\') {
                        *w++ = *r++;
                        continue;
                }
                r++;
                switch (*r) {
                case 'n': *w++ = '\n'; r++; break;
                case 't': *w++ = '\t'; r++; break;
                case '\\': *w++ = '\\'; r++; break;
                case '0': *w++ = '\0'; r++; break;
                case 'x': {
                        char hex[3] = { r[1], r[1] ? r[2] : 0, 0 };

                        *w++ = (char) strtoul(hex, NULL, 16);
                        r += 3;
                        break;
                }
                default:
                        return -EINVAL;
                }
        }
        *ret_len = (size_t) (w - s);
        return 0;
}

int main(void)
{
        struct iovec iov[SEND_MAX_FIELDS];
        char *line = NULL, *p, *save;
        size_t size = 0, n;
        unsigned lineno = 0;
        ssize_t len;
        int r;

        while ((len = getline(&line, &size, stdin)) > 0) {
                lineno++;
                if (line[len - 1] == '\n')
                        line[--len] = '\0';
                n = 0;
                for (p = strtok_r(line, "\t", &save); p; p = strtok_r(NULL, "\t", &save)) {
                        size_t flen;

                        if (n == SEND_MAX_FIELDS || send_unescape(p, &flen) < 0) {
                                fprintf(stderr, "traceql_send: stdin:%u: bad field\n", lineno);
                                return 1;
                        }
                        iov[n].iov_base = p;
                        iov[n++].iov_len = flen;
                }
                r = sd_journal_sendv(iov, (int) n);
                if (r < 0) {
                        fprintf(stderr, "traceql_send: stdin:%u: %s\n", lineno, strerror(-r));
                        return 1;
                }
        }
        free(line);
        return 0;
}
