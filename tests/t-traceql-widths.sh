#!/bin/sh
# t-traceql-widths.sh - --format table counts every character's columns as
# the C library's wcwidth() does in C.UTF-8, so that cells stay in line on a
# terminal: combining marks of every script and other characters that show
# nothing take none, East Asian wide characters and emoji (those of the BMP
# too) two, all others one.  One table holds every code point from U+00A0 to
# U+10FFFF but the surrogates, one a row, next to its number; each line's
# width is measured apart from traceql (tests/c/line-widths.c): every row
# must be as wide as the first.
. "$(dirname "$0")/lib/common.sh"

TQ=$B/traceql
W=$B/tests/line-widths
if [ ! -x "$TQ" ] || [ ! -x "$W" ]; then fail widths-built "run make all tests"; exit 0; fi
$TQ --db "$T/w.db" import --export - < /dev/null
# a wide character first: the column is two wide from its first rows on
$TQ --db "$T/w.db" --no-sync --format table "WITH RECURSIVE n(cp) AS
                (SELECT 160 UNION ALL SELECT cp + 1 FROM n WHERE cp < 1114111)
        SELECT char(12288) AS c, '003000' AS cp
        UNION ALL SELECT char(cp), printf('%06X', cp) FROM n WHERE cp NOT BETWEEN 55296 AND 57343" \
        > "$T/table"
check_eq table-widths-rows 1111907 "$(wc -l < "$T/table")"
# the header and its rule are left out: the last column's are trimmed
"$W" < "$T/table" | paste -d ' ' - "$T/table" | sed 1,2d > "$T/widths"
awk 'NR == 1 { w = $1 } $1 != w { n++; if (n <= 5) print "    width " $1 " not " w ": U+" $NF }
     END { print n + 0 > "/dev/stderr"; exit n > 0 }' "$T/widths" > "$T/bad" 2> "$T/nbad" &&
        pass table-widths-every-code-point ||
        { fail table-widths-every-code-point "$(cat "$T/nbad") rows out of line, the first:"; cat "$T/bad"; }
check_eq table-widths-row-width 10 "$(head -1 "$T/widths" | cut -d ' ' -f 1)"

# a few by name, in a table a reader can check by eye: Devanagari's vowel
# sign U (U+0941), Hebrew's sheva (U+05B0), Thai's mai han-akat (U+0E31)
# combine; the umbrella with rain drops (U+2614) and the watch (U+231A) are
# BMP emoji, two columns
$TQ --db "$T/w.db" --no-sync --format table "SELECT 'k' || char(0x0941) || 'x' AS s, 1 AS n
        UNION ALL SELECT char(0x05e9, 0x05b0) || 'ab', 22
        UNION ALL SELECT char(0x0e01, 0x0e31) || 'cd', 333
        UNION ALL SELECT char(0x2614) || 'e', 4 UNION ALL SELECT char(0x231a), 5" > "$T/named"
printf '%s\n' "s    n" "---  ---" \
        "k$(printf '\340\245\201')x     1" \
        "$(printf '\327\251\326\260')ab   22" \
        "$(printf '\340\270\201\340\270\261')cd  333" \
        "$(printf '\342\230\224')e    4" \
        "$(printf '\342\214\232')     5" > "$T/named.expected"
check_file table-widths-named "$T/named.expected" "$T/named"
