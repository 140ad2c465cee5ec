#!/bin/sh
# syslog.sh - `make bench` figure for traceql import --syslog: a N-line syslog
# file (RFC 3164 lines as rsyslog writes blockdemo's events, default 1M lines)
# imported with its arguments recovered from examples/trace-events, then one
# count query, against lnav loading the same file and answering the same count
# (goal: traceql >= 5 x faster).  Wall-clock seconds, best of ROUNDS (default
# 3) each; no thresholds.
#   sh bench/syslog.sh [N [ROUNDS]]
set -eu
cd "$(dirname "$0")/.."
B=build
N=${1:-1000000}
ROUNDS=${2:-3}
W=$(mktemp -d "${TMPDIR:-/tmp}/tq-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT

# (mawk, Debian's awk, clamps %d and %x to 32 bits: hex() prints 48-bit
# addresses in two halves)
awk -v n="$N" 'function hex(x) { return sprintf("0x%04x%08x", int(x / 4294967296), x % 4294967296) }
BEGIN { for (i = 0; i < n; i++) {
        s = int(i * 37 / 1000); r = hex(94355079544832 + i * 64)
        if (i % 4 == 0) m = sprintf("blk_req_submit req %s sector %d nb_sectors %d is_write %d", r, i * 64, 8 * 2 ^ (i % 4), i % 3 == 0)
        else if (i % 4 == 1) m = sprintf("blk_req_complete req %s ret %d", r, i % 10 == 9 ? -5 : 0)
        else if (i % 4 == 2) m = sprintf("qemu_vmalloc size %d ptr %s", 4096 * 2 ^ (i % 3), hex(139637976727552 + i * 4096))
        else m = sprintf("blk_req_error req %s sector %d reason medium error on device number %d", r, i * 64, i % 7)
        printf "Nov 21 %02d:%02d:%02d central-server-01 blockdemo[%d]: %s\n", int(s / 3600) % 24, int(s / 60) % 60, s % 60, 4000 + i % 13, m } }' > "$W/big.log"
SQL="select count(*) from blk_req_error"
LNAV_SQL=";SELECT count(*) FROM syslog_log WHERE log_body LIKE 'blk_req_error %'"
expected=$((N / 4))

# best SECONDS of ROUNDS runs of "$@" (wall clock), the last run's output in $W/out
best() {
        b=
        for _ in $(seq "$ROUNDS"); do
                rm -f "$W"/b.db*
                t0=$(date +%s%N)
                "$@" > "$W/out" 2>/dev/null
                t1=$(date +%s%N)
                b=$(awk -v b="$b" -v t=$((t1 - t0)) 'BEGIN { t /= 1e9; print (b == "" || t < b) ? t : b }')
        done
        echo "$b"
}
tq() {
        $B/traceql --db "$W/b.db" import --syslog "$W/big.log" --events examples/trace-events &&
                $B/traceql --db "$W/b.db" --no-sync --format csv "$SQL"
}
cat "$W/big.log" > /dev/null           # page cache warm for both
tq_s=$(best tq)
tq_n=$(tail -1 "$W/out")
if command -v lnav > /dev/null; then
        export HOME="$W"        # lnav keeps its state under ~/.lnav
        lnav_s=$(best lnav -n -c "$LNAV_SQL" "$W/big.log")
        lnav_n=$(awk 'NR == 2 { print $1 }' "$W/out")
        lnav_v=$(lnav -V)
else
        lnav_s= lnav_n= lnav_v="lnav missing"
fi
# The floor of any one-row-per-line import (bench/store_floor.c): SQLite
# alone storing N rows of the same shape (time, host, pid, event, message,
# 4 arguments) into a database with traceql's schema and page size, values
# bound from C, no reading or parsing at all; with SQLite's cheapest
# settings (no crash safety, no index on event), and crash-safe as traceql
# must be (WAL, the index, a commit every 10000 rows).
cc -O2 -o "$W/floor" bench/store_floor.c $(pkg-config --cflags --libs sqlite3)
floor_s=$(best "$W/floor" sql/schema.sql "$W/b.db" "$N" syslog)
safe_s=$(best "$W/floor" --safe sql/schema.sql "$W/b.db" "$N" syslog)
# Memory with long lines: 400 lines of 256 KiB (100 MB).  The reader thread
# parses ahead of the writer; ring.c bounds what it holds (16 MiB in flight).
awk 'BEGIN { s = sprintf("%08000d", 0); s = s s s s s s s s; s = s s s s
        for (i = 1; i <= 400; i++) printf "Nov 21 10:00:00 h big[7]: ev_%d %s\n", i, s }' > "$W/long.log"
rm -f "$W"/b.db*
/usr/bin/time -f %M -o "$W/rss.long" $B/traceql --db "$W/b.db" import --syslog "$W/long.log" 2> /dev/null
echo "traceql syslog: $N lines ($(($(wc -c < "$W/big.log") / 1000000)) MB), count = $expected expected"
echo "traceql syslog: traceql import --syslog --events + count   $tq_s s (count $tq_n)"
echo "traceql syslog: $lnav_v -n -c 'count'                    ${lnav_s:-n/a} s (count ${lnav_n:-n/a})"
echo "traceql syslog: floor: SQLite alone storing $N rows alike     $floor_s s (no parsing; no crash safety, no index)"
echo "traceql syslog: floor: the same, crash-safe as traceql          $safe_s s (WAL, index on event, commit every 10000)"
echo "traceql syslog: peak RSS importing 400 lines of 256 KiB (100 MB) $(tail -1 "$W/rss.long") KiB"
if [ -n "$lnav_s" ]; then
        echo "traceql syslog: speed-up traceql over lnav             $(awk -v a="$lnav_s" -v b="$tq_s" 'BEGIN { printf "%.2f", a / b }') x (goal >= 5)"
        echo "traceql syslog: ceiling of any import into SQLite rows: lnav / floor $(awk -v a="$lnav_s" -v b="$floor_s" 'BEGIN { printf "%.2f", a / b }') x, crash-safe $(awk -v a="$lnav_s" -v b="$safe_s" 'BEGIN { printf "%.2f", a / b }') x"
fi
