#!/bin/sh
# load.sh - `make bench` figures for issue 9's load items.  No thresholds.
#
#   sh bench/load.sh [N]          (default N = 5000000)
#
# 1. 8 threads x 1M events into the simple output (a file, so the writer is
#    not bounded by journald's ~26k entries/s), in drop mode and in block
#    mode: events/s, and emitted / written / dropped from tj_get_stats checked
#    against the file (tests/simple-count.py).
# 2. traceql import of N generated journal export entries (the export reader
#    and ingest path: pushing N entries through journald first would take
#    N/26k seconds), streamed on stdin so the input takes no disk: peak RSS
#    for N/10 and N entries (goal: flat), and entries/s.
set -eu
cd "$(dirname "$0")/.."
B=build
N=${1:-5000000}
W=$(mktemp -d "${TMPDIR:-/tmp}/tj-load.XXXXXX")
trap 'rm -rf "$W"' EXIT
export TJ_QUIET=1

for mode in drop block; do
        t0=$(date +%s%N)
        TJ_ON_FULL=$mode TJ_OUTPUT=simple TJ_SIMPLE_FILE="$W/load.simple" TJ_EVENTS=tgb_req \
                $B/tests/lib-emit init threads:8:1000000 flush stats > "$W/stats"
        t1=$(date +%s%N)
        count=$(python3 tests/simple-count.py "$W/load.simple")
        echo "load: 8 threads x 1M, $mode mode: $(cat "$W/stats"), $(awk -v ns=$((t1 - t0)) \
                'BEGIN { printf "%.2f s, %.0f events/s emitted", ns / 1e9, 8e6 / (ns / 1e9) }')"
        echo "load:   file: $count ($(du -m "$W/load.simple" | cut -f1) MiB)"
        rm -f "$W/load.simple"
done

# N entries shaped like the example's, 4 arguments each.
gen() {
        python3 - "$1" <<'PY'
import sys
n = int(sys.argv[1])
out = sys.stdout.buffer
boot = "0123456789abcdef0123456789abcdef"
chunk = []
for i in range(1, n + 1):
    chunk.append(("__CURSOR=s=fedcba9876543210fedcba9876543210;i=%x;b=%s;m=%x;t=1;x=1\n"
                  "__REALTIME_TIMESTAMP=%d\n_BOOT_ID=%s\n_PID=%d\nTID=%d\n"
                  "SYSLOG_IDENTIFIER=load\nTRACE_GROUP=load\nTRACE_EVENT=blk_req_submit\n"
                  "TRACE_SEQ=%d\nTRACE_MONO_NS=%d\nTRACE_ARGS=req:p sector:u nb_sectors:u is_write:i\n"
                  "TRACE_ARG_REQ=0x7f00%08x\nTRACE_ARG_SECTOR=%d\nTRACE_ARG_NB_SECTORS=8\n"
                  "TRACE_ARG_IS_WRITE=%d\nMESSAGE=blk_req_submit req 0x7f00%08x sector %d\n\n")
                 % (i, boot, i, 1700000000000000 + i, boot, 100 + i % 7, 100 + i % 7, i,
                    i * 1000, i, i * 8, i % 2, i, i * 8))
    if len(chunk) == 10000:
        out.write("".join(chunk).encode())
        chunk = []
out.write("".join(chunk).encode())
PY
}
for n in $((N / 10)) "$N"; do
        t0=$(date +%s%N)
        gen "$n" | /usr/bin/time -f %M -o "$W/rss" $B/traceql --db "$W/i$n.db" import --export -
        t1=$(date +%s%N)
        rows=$($B/traceql --db "$W/i$n.db" --no-sync --format csv 'select count(*) from events' | tail -1)
        echo "load: import --export of $n entries: $rows rows, peak RSS $(cat "$W/rss") KiB," \
             "$(awk -v n="$rows" -v ns=$((t1 - t0)) 'BEGIN { printf "%.1f s, %.0f entries/s (generator included)", ns / 1e9, n / (ns / 1e9) }')"
        rm -f "$W/i$n.db"*
done
