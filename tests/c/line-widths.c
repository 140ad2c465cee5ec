/*
 * line-widths.c - print the display width of each line of standard input,
 * as the C library's wcwidth() in C.UTF-8 gives it, a character it does
 * not know (-1) counting one column: what a terminal shows of traceql's
 * --format table, measured apart from traceql (tests/t-traceql-widths.sh).
 * A line that is not valid UTF-8 prints "invalid".
 */
#define _XOPEN_SOURCE 700
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

int main(void)
{
        char *line = NULL;
        size_t size = 0;
        ssize_t n;

        if (!setlocale(LC_CTYPE, "C.UTF-8")) {
                fputs("line-widths: no C.UTF-8 locale\n", stderr);
                return 2;
        }
        while ((n = getline(&line, &size, stdin)) > 0) {
                mbstate_t st;
                const char *p = line;
                size_t left = (size_t) n - (line[n - 1] == '\n');
                long w = 0;

                memset(&st, 0, sizeof(st));
                while (left > 0) {
                        wchar_t c;
                        size_t k = mbrtowc(&c, p, left, &st);
                        int cw;

                        if (k == 0 || k > left) {
                                w = -1;
                                break;
                        }
                        cw = wcwidth(c);
                        w += cw < 0 ? 1 : cw;
                        p += k;
                        left -= k;
                }
                if (w < 0)
                        puts("invalid");
                else
                        printf("%ld\n", w);
        }
        free(line);
        return ferror(stdin) || fflush(stdout) ? 2 : 0;
}
