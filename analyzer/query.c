/*
 * query.c - run SQL against a traceql database and print the rows.
 *
 * Every statement of the text is run in turn; each one that returns columns
 * is printed in the chosen format:
 *   table  aligned columns under a header, numbers to the right; control
 *          characters shown as \n, \t, \xHH so a value stays on its line
 *   csv    RFC 4180: a header line, fields quoted when they hold a comma, a
 *          quote, CR, LF, a NUL or edge spaces, quotes doubled; NULL is an
 *          empty field, the empty string and the empty blob are ""; a real
 *          as SQLite writes it unless that loses digits; lines end in LF
 *   json   one array of objects per statement, keys the column names; one
 *          that fails after printing rows has its array closed first
 *   jsonl  one object per line; with a key (query_run_keyed()), each row the
 *          value of an object of that one key, {"KEY":{...}}
 * Integers print as integers (a 64-bit pattern stored for a uint64 value shows
 * negative: see u64()), blobs as hex, text as stored (JSON: escaped, invalid
 * UTF-8 replaced by U+FFFD).  The table buffers its first QUERY_TABLE_ROWS rows
 * to size the columns, so memory stays bounded for any result.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "traceql.h"

#define QUERY_TABLE_ROWS 1000

int query_format_parse(const char *s, enum query_format *ret_format)
{
        static const char *const names[] = { "table", "csv", "json", "jsonl" };
        size_t i;

        for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
                if (strcmp(s, names[i]) == 0) {
                        *ret_format = (enum query_format) i;
                        return 0;
                }
        return -EINVAL;
}

/* ---- JSON ---- */

size_t query_utf8_len(const unsigned char *p, size_t n)
{
        size_t len, i;
        uint32_t cp;

        if (p[0] < 0x80)
                return 1;
        if ((p[0] & 0xe0) == 0xc0) {
                len = 2;
                cp = p[0] & 0x1f;
        } else if ((p[0] & 0xf0) == 0xe0) {
                len = 3;
                cp = p[0] & 0x0f;
        } else if ((p[0] & 0xf8) == 0xf0) {
                len = 4;
                cp = p[0] & 0x07;
        } else
                return 0;
        if (len > n)
                return 0;
        for (i = 1; i < len; i++) {
                if ((p[i] & 0xc0) != 0x80)
                        return 0;
                cp = cp << 6 | (p[i] & 0x3f);
        }
        if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
            cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
                return 0;
        return len;
}

/* Is the character of LEN bytes at P one of the C1 controls, U+0080 to
 * U+009F?  A terminal may take them as the ESC sequences they stand for
 * (U+009B as CSI), so the table and the messages escape them too. */
bool query_utf8_c1(const unsigned char *p, size_t len)
{
        return len == 2 && p[0] == 0xc2 && p[1] <= 0x9f;
}

static void query_json_string(FILE *out, const unsigned char *p, size_t n)
{
        size_t i = 0, len;

        putc('"', out);
        while (i < n) {
                unsigned char c = p[i];

                if (c == '"' || c == '\\') {
                        putc('\\', out);
                        putc(c, out);
                } else if (c == '\n')
                        fputs("\\n", out);
                else if (c == '\t')
                        fputs("\\t", out);
                else if (c == '\r')
                        fputs("\\r", out);
                else if (c < 0x20 || c == 0x7f)
                        fprintf(out, "\\u%04x", c);
                else if (c < 0x80)
                        putc(c, out);
                else if ((len = query_utf8_len(p + i, n - i)) > 0) {
                        fwrite(p + i, 1, len, out);
                        i += len;
                        continue;
                } else
                        fputs("\\ufffd", out);
                i++;
        }
        putc('"', out);
}

static void query_hex(FILE *out, const unsigned char *p, size_t n)
{
        size_t i;

        for (i = 0; i < n; i++)
                fprintf(out, "%02x", p[i]);
}

/* D, finite, in the fewest digits that read back as D (0.1, not
 * 0.10000000000000001), as SQLite's own printing does, up to the 17 that
 * always do.  A normal double that reads back from 15 digits needs no fewer:
 * %g drops the zeros that end them.  A subnormal one holds fewer digits than
 * that (5e-324, not 4.94065645841247e-324): it is tried from 1.  Digits
 * alone (2, -0, 1234567890123456) get ".0" after them, as SQLite writes a
 * real: a reader tells it from an integer (CSV and JSON alike). */
static void query_double(FILE *out, double d)
{
        char buf[32];
        size_t sign;

        for (int prec = fpclassify(d) == FP_SUBNORMAL ? 1 : 15; prec <= 17; prec++) {
                snprintf(buf, sizeof(buf), "%.*g", prec, d);
                if (prec == 17 || strtod(buf, NULL) == d)
                        break;
        }
        fputs(buf, out);
        sign = buf[0] == '-';
        if (buf[sign + strspn(buf + sign, "0123456789")] == '\0')
                fputs(".0", out);
}

static void query_json_value(FILE *out, sqlite3_stmt *st, int i)
{
        double d;

        switch (sqlite3_column_type(st, i)) {
        case SQLITE_NULL:
                fputs("null", out);
                break;
        case SQLITE_INTEGER:
                fprintf(out, "%lld", (long long) sqlite3_column_int64(st, i));
                break;
        case SQLITE_FLOAT:
                d = sqlite3_column_double(st, i);
                if (isfinite(d))
                        query_double(out, d);
                else
                        fputs("null", out);
                break;
        case SQLITE_BLOB:
                putc('"', out);
                query_hex(out, sqlite3_column_blob(st, i), (size_t) sqlite3_column_bytes(st, i));
                putc('"', out);
                break;
        default:
                query_json_string(out, sqlite3_column_text(st, i), (size_t) sqlite3_column_bytes(st, i));
        }
}

static void query_json_row(FILE *out, sqlite3_stmt *st)
{
        int i, n = sqlite3_column_count(st);

        putc('{', out);
        for (i = 0; i < n; i++) {
                const char *name = sqlite3_column_name(st, i);

                if (i)
                        putc(',', out);
                query_json_string(out, (const unsigned char *) name, strlen(name));
                putc(':', out);
                query_json_value(out, st, i);
        }
        putc('}', out);
}

/* ---- CSV ---- */

/* A REAL as SQLite writes it ("2.0", "1.0e+16"), unless that does not read
 * back as the same double: SQLite (before 3.43) writes 15 significant digits,
 * so 0.1 + 0.2 would be "0.3"; then in the fewest digits that do ("-0.0" for
 * -0.0, which it writes "0.0"), as JSON writes it.  A subnormal too, whose 15
 * digits read back but are more than it holds ("5e-324", as in JSON, not
 * "4.94065645841247e-324"). */
static void query_csv_double(FILE *out, sqlite3_stmt *st, int i)
{
        double d = sqlite3_column_double(st, i);
        const char *text = (const char *) sqlite3_column_text(st, i);

        /* -0.0, which SQLite writes "0.0", reads back equal but not the same */
        if (text && strtod(text, NULL) == d && signbit(strtod(text, NULL)) == signbit(d) &&
            fpclassify(d) != FP_SUBNORMAL)
                fputs(text, out);
        else
                query_double(out, d);
}

static void query_csv_field(FILE *out, const char *p, size_t n, bool text)
{
        bool quote = text && (n == 0 || p[0] == ' ' || p[n - 1] == ' ');
        size_t i;

        for (i = 0; i < n && !quote; i++)
                if (p[i] == ',' || p[i] == '"' || p[i] == '\n' || p[i] == '\r' || p[i] == '\0')
                        quote = true;
        if (!quote) {
                fwrite(p, 1, n, out);
                return;
        }
        putc('"', out);
        for (i = 0; i < n; i++) {
                if (p[i] == '"')
                        putc('"', out);
                putc(p[i], out);
        }
        putc('"', out);
}

static void query_csv_row(FILE *out, sqlite3_stmt *st, bool header)
{
        int i, n = sqlite3_column_count(st);

        for (i = 0; i < n; i++) {
                int t = header ? SQLITE_TEXT : sqlite3_column_type(st, i);

                if (i)
                        putc(',', out);
                if (header) {
                        const char *name = sqlite3_column_name(st, i);

                        query_csv_field(out, name, strlen(name), true);
                } else if (t == SQLITE_BLOB && sqlite3_column_bytes(st, i) == 0)
                        fputs("\"\"", out);       /* its hex is empty: not NULL's empty field */
                else if (t == SQLITE_BLOB)
                        query_hex(out, sqlite3_column_blob(st, i), (size_t) sqlite3_column_bytes(st, i));
                else if (t == SQLITE_FLOAT)
                        query_csv_double(out, st, i);
                else if (t != SQLITE_NULL)
                        query_csv_field(out, (const char *) sqlite3_column_text(st, i),
                                        (size_t) sqlite3_column_bytes(st, i), t == SQLITE_TEXT);
        }
        putc('\n', out);
}

/* ---- table ---- */

/* A table cell: display text (malloc'ed), its width, right-aligned? */
struct query_cell {
        char *text;
        size_t width;
        bool right;
};

/* Is U in one of the N ranges (first, last) of R, sorted and apart? */
static bool query_in(uint32_t u, const uint32_t r[][2], size_t n)
{
        size_t lo = 0, hi = n;

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;

                if (u < r[mid][0])
                        hi = mid;
                else if (u > r[mid][1])
                        lo = mid + 1;
                else
                        return true;
        }
        return false;
}

/* How many columns code point U takes on a terminal, as wcwidth() says in
 * C.UTF-8 (glibc's, when widths.h was written), without asking the locale:
 * 0 for combining marks and other characters that show nothing (zero-width
 * spaces and joiners, bidirectional formatting, variation selectors), 2 for
 * East Asian wide and fullwidth characters and emoji, else 1, an unassigned
 * code point too.  The tables are widths.h, written by `make widths`. */
#include "widths.h"

static unsigned query_cp_width(uint32_t u)
{
        if (u < 0x300)          /* wcwidth() gives these 1, but controls, escaped before */
                return 1;
        if (query_in(u, query_zero, sizeof(query_zero) / sizeof(query_zero[0])))
                return 0;
        return query_in(u, query_wide, sizeof(query_wide) / sizeof(query_wide[0])) ? 2 : 1;
}

/* The display width of S: valid UTF-8 (query_escape() made it so). */
static size_t query_width(const char *s)
{
        const unsigned char *p = (const unsigned char *) s;
        size_t w = 0;
        uint32_t u;

        while (*p) {
                if (*p < 0x80)
                        u = *p++;
                else if (*p < 0xe0) {
                        u = (uint32_t) (p[0] & 0x1f) << 6 | (p[1] & 0x3f);
                        p += 2;
                } else if (*p < 0xf0) {
                        u = (uint32_t) (p[0] & 0x0f) << 12 | (uint32_t) (p[1] & 0x3f) << 6 |
                            (p[2] & 0x3f);
                        p += 3;
                } else {
                        u = (uint32_t) (p[0] & 0x07) << 18 | (uint32_t) (p[1] & 0x3f) << 12 |
                            (uint32_t) (p[2] & 0x3f) << 6 | (p[3] & 0x3f);
                        p += 4;
                }
                w += query_cp_width(u);
        }
        return w;
}

char *query_escape(const unsigned char *p, size_t n)
{
        size_t j, k = 0;
        char *s;

        s = malloc(4 * n + 1);
        if (!s)
                return NULL;
        for (j = 0; j < n; j++) {
                size_t u;

                if (p[j] >= 0x80 && (u = query_utf8_len(p + j, n - j)) > 0 &&
                    !query_utf8_c1(p + j, u)) {
                        memcpy(s + k, p + j, u);
                        k += u;
                        j += u - 1;
                } else if (p[j] >= 0x80)
                        k += (size_t) sprintf(s + k, "\\x%02x", p[j]);
                else if (p[j] == '\n')
                        k += (size_t) sprintf(s + k, "\\n");
                else if (p[j] == '\t')
                        k += (size_t) sprintf(s + k, "\\t");
                else if (p[j] < 0x20 || p[j] == 0x7f)
                        k += (size_t) sprintf(s + k, "\\x%02x", p[j]);
                else
                        s[k++] = (char) p[j];
        }
        s[k] = '\0';
        return s;
}

/* The display text of column I. */
static char *query_cell_text(sqlite3_stmt *st, int i)
{
        const unsigned char *p;
        size_t n, j;
        char *s;
        int t = sqlite3_column_type(st, i);

        if (t == SQLITE_NULL)
                return strdup("");
        if (t == SQLITE_BLOB) {
                p = sqlite3_column_blob(st, i);
                n = (size_t) sqlite3_column_bytes(st, i);
                s = malloc(2 * n + 1);
                for (j = 0; s && j < n; j++)
                        sprintf(s + 2 * j, "%02x", p[j]);
                if (s)
                        s[2 * n] = '\0';
                return s;
        }
        p = sqlite3_column_text(st, i);
        n = (size_t) sqlite3_column_bytes(st, i);
        return p ? query_escape(p, n) : NULL;
}

static void query_table_print(FILE *out, struct query_cell *cells, size_t nrows, int ncols,
                              const size_t *widths, bool header)
{
        size_t r, k;
        int c;

        for (r = 0; r < nrows; r++) {
                if (header && r == 1)
                        for (c = 0; c < ncols; c++) {
                                for (k = 0; k < widths[c]; k++)
                                        putc('-', out);
                                fputs(c == ncols - 1 ? "\n" : "  ", out);
                        }
                for (c = 0; c < ncols; c++) {
                        struct query_cell *cell = &cells[r * (size_t) ncols + (size_t) c];
                        size_t pad = widths[c] > cell->width ? widths[c] - cell->width : 0;
                        bool last = c == ncols - 1;

                        if (c)
                                fputs("  ", out);
                        if (cell->right)
                                fprintf(out, "%*s%s", (int) pad, "", cell->text);
                        else
                                fprintf(out, "%s%*s", cell->text, last ? 0 : (int) pad, "");
                }
                putc('\n', out);
        }
        if (header && nrows == 1)
                for (c = 0; c < ncols; c++) {
                        for (k = 0; k < widths[c]; k++)
                                putc('-', out);
                        fputs(c == ncols - 1 ? "\n" : "  ", out);
                }
}

/* Free the texts of N cells and forget them: the cells are filled again for
 * the next chunk, and a fill that fails part-way leaves the cells after the
 * one that failed as they were, for query_statement()'s last free to see. */
static void query_cells_free(struct query_cell *cells, size_t n)
{
        size_t i;

        for (i = 0; cells && i < n; i++) {
                free(cells[i].text);
                cells[i].text = NULL;
        }
}

/* Is the text of cell C an unsigned number past INT64_MAX, as u64() writes
 * one (19 or 20 digits, at most 18446744073709551615)?  SQLite cannot hold it
 * as an INTEGER, so it is the text of a number and aligned as the INTEGERs
 * beside it are; a text that could have been an INTEGER ('4096') stays text. */
static bool query_u64_text(sqlite3_stmt *st, int c)
{
        const unsigned char *p = sqlite3_column_text(st, c);
        int n = sqlite3_column_bytes(st, c);

        if (!p || (n != 19 && n != 20))
                return false;
        for (int i = 0; i < n; i++)
                if (p[i] < '0' || p[i] > '9')
                        return false;
        return n == 19 ? memcmp(p, "9223372036854775807", 19) > 0
                       : memcmp(p, "18446744073709551615", 20) <= 0;
}

/* Fill row R of CELLS from the statement (R 0 is the header). */
static int query_table_fill(sqlite3_stmt *st, struct query_cell *row, int ncols, bool header,
                            size_t *widths)
{
        int c, t;

        for (c = 0; c < ncols; c++) {
                t = header ? SQLITE_TEXT : sqlite3_column_type(st, c);
                if (header) {
                        const char *name = sqlite3_column_name(st, c);

                        row[c].text = name ? query_escape((const unsigned char *) name,
                                                          strlen(name)) : NULL;
                } else
                        row[c].text = query_cell_text(st, c);
                if (!row[c].text)
                        return -ENOMEM;
                row[c].width = query_width(row[c].text);
                row[c].right = t == SQLITE_INTEGER || t == SQLITE_FLOAT ||
                               (t == SQLITE_TEXT && query_u64_text(st, c));
                if (widths && row[c].width > widths[c])
                        widths[c] = row[c].width;
        }
        return 0;
}

/* ---- the runner ---- */

int query_error(sqlite3 *db, int rc, struct tq_error *err)
{
        if (rc == SQLITE_NOMEM)
                return tq_error_set(err, -ENOMEM, "out of memory");
        /* why it is read-only: opened so without --write (the file could be
         * written), or the file cannot be written (--write was given, or
         * forget's connection), or neither (PRAGMA query_only) */
        if ((rc & 0xff) == SQLITE_READONLY && sqlite3_db_readonly(db, "main") != 1)
                return tq_error_set(err, -EROFS, "%s: %s", store_name(db), sqlite3_errmsg(db));
        if ((rc & 0xff) == SQLITE_READONLY && access(store_name(db), W_OK) < 0 &&
            strcmp(store_name(db), ":memory:") != 0)
                return tq_error_set(err, -EROFS, "%s: %s (the file cannot be written: %s)",
                                    store_name(db), sqlite3_errmsg(db), strerror(errno));
        if ((rc & 0xff) == SQLITE_READONLY)
                return tq_error_set(err, -EROFS, "%s: %s (the database is opened read-only "
                                    "without --write)", store_name(db), sqlite3_errmsg(db));
        /* a damaged page shows only once a statement reads it: the database's
         * failure (TQ_EXIT_DB), as when it cannot be opened, not the SQL's */
        if ((rc & 0xff) == SQLITE_CORRUPT)
                return tq_error_set(err, -EUCLEAN, "%s: %s", store_name(db), sqlite3_errmsg(db));
        /* nor is a full disk or a failing one: as for an import (TQ_EXIT_INPUT) */
        if ((rc & 0xff) == SQLITE_FULL || (rc & 0xff) == SQLITE_IOERR)
                return tq_error_set(err, store_errno(rc), "%s: %s", store_name(db),
                                    sqlite3_errmsg(db));
        return tq_error_set(err, -EIO, "%s: %s", store_name(db), sqlite3_errmsg(db));
}

/* Run ST, printing its rows to OUT in FORMAT (in jsonl, each in an object of
 * KEY when not NULL); *TABLES counts the tables (and CSV headers) printed, so
 * that one is set apart from the one before by an empty line. */
static int query_statement(sqlite3 *db, sqlite3_stmt *st, enum query_format format,
                           const char *key, FILE *out, unsigned *tables, struct tq_error *err)
{
        int ncols = sqlite3_column_count(st), rc, r = 0;
        struct query_cell *cells = NULL;
        size_t *widths = NULL, nrows = 1, nbuf = 0;
        bool started = false;

        if (format == QUERY_TABLE && ncols > 0) {
                cells = calloc((QUERY_TABLE_ROWS + 2) * (size_t) ncols, sizeof(*cells));
                widths = calloc((size_t) ncols, sizeof(*widths));
                if (!cells || !widths) {
                        r = -ENOMEM;
                        goto out;
                }
                r = query_table_fill(st, cells, ncols, true, widths);
                if (r < 0)
                        goto out;
        }
        /* CSV and JSON start printing once the statement ran without error */
        for (;;) {
                rc = sqlite3_step(st);
                if (!started && (rc == SQLITE_ROW || rc == SQLITE_DONE) && ncols > 0) {
                        if (format == QUERY_CSV && (*tables)++ > 0)
                                fputc('\n', out);
                        if (format == QUERY_CSV)
                                query_csv_row(out, st, true);
                        else if (format == QUERY_JSON)
                                fputc('[', out);
                        else if (format == QUERY_TABLE && (*tables)++ > 0)
                                fputc('\n', out);
                }
                started = true;
                if (rc != SQLITE_ROW)
                        break;
                switch (format) {
                case QUERY_TABLE:
                        r = query_table_fill(st, cells + nrows * (size_t) ncols, ncols, false,
                                             nbuf < QUERY_TABLE_ROWS ? widths : NULL);
                        nrows++;
                        if (r < 0)
                                goto out;
                        if (nrows > QUERY_TABLE_ROWS) {
                                /* widths are settled: print, and go on in chunks */
                                query_table_print(out, cells, nrows, ncols, widths, nbuf == 0);
                                query_cells_free(cells, nrows * (size_t) ncols);
                                nbuf = QUERY_TABLE_ROWS;
                                nrows = 0;
                        }
                        break;
                case QUERY_CSV:
                        query_csv_row(out, st, false);
                        break;
                case QUERY_JSON:
                        fputs(nbuf++ ? ",\n" : "\n", out);
                        query_json_row(out, st);
                        break;
                case QUERY_JSONL:
                        if (key) {
                                putc('{', out);
                                query_json_string(out, (const unsigned char *) key, strlen(key));
                                putc(':', out);
                        }
                        query_json_row(out, st);
                        fputs(key ? "}\n" : "\n", out);
                        break;
                }
        }
        if (rc != SQLITE_DONE) {
                /* a statement that writes, on the read-only connection, can
                 * fail as an I/O error (PRAGMA journal_mode=DELETE cannot
                 * take the WAL's lock): say what it is */
                if ((rc & 0xff) == SQLITE_IOERR && !sqlite3_stmt_readonly(st) &&
                    sqlite3_db_readonly(db, "main") == 1)
                        rc = SQLITE_READONLY;
                r = query_error(db, rc, err);
                /* rows printed (a row sets nbuf): close the array, so that
                 * what is on standard output stays JSON */
                if (format == QUERY_JSON && nbuf > 0)
                        fputs("\n]\n", out);
                goto out;
        }
        if (format == QUERY_TABLE && ncols > 0)
                query_table_print(out, cells, nrows, ncols, widths, nbuf == 0);
        else if (format == QUERY_JSON && ncols > 0)
                fputs(nbuf ? "\n]\n" : "]\n", out);
out:
        if (cells)
                query_cells_free(cells, nrows * (size_t) ncols);
        free(cells);
        free(widths);
        if (r == -ENOMEM)
                tq_error_set(err, r, "out of memory");
        return r;
}

/* Does ST start with VACUUM (after blanks and comments)?  VACUUM INTO is the
 * one statement that writes a file from a read-only connection. */
static bool query_is_vacuum(sqlite3_stmt *st)
{
        const char *p = sqlite3_sql(st);

        while (p && *p) {
                if (isspace((unsigned char) *p))
                        p++;
                else if (p[0] == '-' && p[1] == '-')
                        p += strcspn(p, "\n");
                else if (p[0] == '/' && p[1] == '*')
                        p = strstr(p + 2, "*/") ? strstr(p + 2, "*/") + 2 : p + strlen(p);
                else
                        break;
        }
        return p && sqlite3_strnicmp(p, "vacuum", 6) == 0 &&
               !isalnum((unsigned char) p[6]) && p[6] != '_';
}

/* The error of preparing the statement at STMT in SQL, with its line and
 * column in SQL when SQLite tells where (sqlite3_error_offset(), 3.38). */
static int query_prepare_error(sqlite3 *db, int rc, const char *sql, const char *stmt,
                               struct tq_error *err)
{
        int off = -1;
        unsigned line = 1, col = 1;

#if SQLITE_VERSION_NUMBER >= 3038000
        off = sqlite3_error_offset(db);
#endif
        if (off < 0 || rc == SQLITE_NOMEM)
                return query_error(db, rc, err);
        for (const char *p = sql; p < stmt + off && *p; p++) {
                if (*p == '\n') {
                        line++;
                        col = 1;
                } else if (((unsigned char) *p & 0xc0) != 0x80) {
                        col++;          /* characters, not UTF-8 continuation bytes */
                }
        }
        return tq_error_set(err, -EIO, "%s: %s (SQL line %u, column %u)", store_name(db),
                            sqlite3_errmsg(db), line, col);
}

int query_run_keyed(sqlite3 *db, const char *sql, enum query_format format, const char *key,
                    FILE *out, struct tq_error *err)
{
        const char *tail = sql, *stmt;
        sqlite3_stmt *st = NULL;
        unsigned tables = 0;
        int rc, r = 0;

        while (tail && *tail) {
                stmt = tail;
                rc = sqlite3_prepare_v2(db, stmt, -1, &st, &tail);
                if (rc != SQLITE_OK) {
                        r = query_prepare_error(db, rc, sql, stmt, err);
                        goto out;
                }
                if (!st)
                        continue;       /* whitespace or a comment */
                if (sqlite3_db_readonly(db, "main") == 1 && !sqlite3_stmt_readonly(st) &&
                    query_is_vacuum(st)) {
                        r = tq_error_set(err, -EROFS, "%s: VACUUM writes a database file (the "
                                         "database is opened read-only without --write)",
                                         store_name(db));
                        goto out;
                }
                r = query_statement(db, st, format, key, out, &tables, err);
                sqlite3_finalize(st);
                st = NULL;
                if (r < 0)
                        goto out;
        }
out:
        sqlite3_finalize(st);
        if (fflush(out) != 0 && r == 0)
                r = tq_error_set(err, -errno, "write error: %s", strerror(errno));
        return r;
}

int query_run(sqlite3 *db, const char *sql, enum query_format format, FILE *out,
              struct tq_error *err)
{
        return query_run_keyed(db, sql, format, NULL, out, err);
}
