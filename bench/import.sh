#!/bin/sh
# import.sh - `make bench` figures for traceql: journal -> SQLite import
# throughput against a bare sd_journal_next + sd_journal_enumerate_data loop
# over the same entries (goal: ratio >= 0.8), and import memory for N/10 and
# N entries (goal: flat).  No thresholds: it prints the figures.
#   sh bench/import.sh [N]        (default 100000 entries)
set -eu
cd "$(dirname "$0")/.."
B=build
N=${1:-100000}
W=$(mktemp -d "${TMPDIR:-/tmp}/tq-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
ID="tq-bench-$$-$(date +%s)"
cc -O2 -o "$W/bare" bench/traceql_import.c $(pkg-config --cflags --libs libsystemd)
cc -O2 -o "$W/send" tests/traceql_send.c $(pkg-config --cflags --libs libsystemd)

# send N entries shaped like blockdemo's (4 typed args) under ID, N/10 under ID-small
gen() {
        awk -v id="$1" -v n="$2" 'BEGIN { for (i = 1; i <= n; i++)
                printf "SYSLOG_IDENTIFIER=%s\tTRACE_EVENT=blk_req_submit\tTRACE_GROUP=bench\tTRACE_ARGS=req:p sector:u nb_sectors:u is_write:i\tTRACE_SEQ=%d\tTRACE_TIME_NS=1700000000%09d\tTRACE_MONO_NS=%d\tTID=1\tCODE_FILE=bench.c\tCODE_LINE=1\tCODE_FUNC=f\tTRACE_ARG_REQ=0x7f00%08x\tTRACE_ARG_SECTOR=%d\tTRACE_ARG_NB_SECTORS=8\tTRACE_ARG_IS_WRITE=%d\tMESSAGE=blk_req_submit req 0x7f00%08x sector %d nb_sectors 8 is_write %d\n", id, i, i, i, i, i * 8, i % 2, i, i * 8, i % 2 }' |
                "$W/send"
}
gen "$ID" "$N"
gen "$ID-small" $((N / 10))
journalctl --sync 2>/dev/null || true
i=0
while [ "$(journalctl -q -o cat "SYSLOG_IDENTIFIER=$ID" | wc -l)" -lt "$N" ] && [ $i -lt 600 ]; do
        sleep 0.1; i=$((i + 1)); done

"$W/bare" "$ID" > /dev/null             # warm the page cache
/usr/bin/time -f %M -o "$W/rss.bare" "$W/bare" "$ID" > "$W/bare.out"
bare=$(cat "$W/bare.out")
t0=$(date +%s%N)
/usr/bin/time -f %M -o "$W/rss.big" $B/traceql --db "$W/big.db" import --identifier "$ID"
t1=$(date +%s%N)
/usr/bin/time -f %M -o "$W/rss.small" $B/traceql --db "$W/small.db" import --identifier "$ID-small"
rows=$($B/traceql --db "$W/big.db" --no-sync --format csv 'select count(*) from events' | tail -1)
bare_rate=$(echo "$bare" | awk '{ print $5 }')
tq_rate=$(awk -v n="$rows" -v ns=$((t1 - t0)) 'BEGIN { printf "%.0f", n / (ns / 1e9) }')
echo "traceql import: bare sd_journal loop   $bare"
echo "traceql import: traceql import         $rows entries $(awk -v ns=$((t1 - t0)) 'BEGIN { printf "%.3f", ns / 1e9 }') seconds $tq_rate entries/s"
echo "traceql import: ratio traceql/bare     $(awk -v a="$tq_rate" -v b="$bare_rate" 'BEGIN { printf "%.2f", a / b }') (goal >= 0.8)"
echo "traceql import: max RSS $((N / 10)) entries $(cat "$W/rss.small") KiB, $N entries $(cat "$W/rss.big") KiB (goal: flat)"
echo "traceql import:   (the bare loop's RSS for $N entries: $(cat "$W/rss.bare") KiB: the journal files sd-journal maps count in RSS)"
