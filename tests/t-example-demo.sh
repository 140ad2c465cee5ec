#!/bin/sh
# t-example-demo.sh - `make demo` (examples/demo.sh) runs to the end, twice
# (it is idempotent), and shows what it promises: the run's summary, all of
# this run's journal entries (matched on _PID), one entry's fields, and, when
# traceql is built, the per-event counts of the run from SQL.  A small run.
. "$(dirname "$0")/lib/common.sh"

if ! have_journald; then
        fail demo-journald "no journald socket (run as root, or tests/lib/journald.sh start)"
        exit 0
fi
for round in 1 2; do
        rc=0
        DEMO_THREADS=2 DEMO_REQUESTS=40 sh "$TOP/examples/demo.sh" > "$T/demo.out" 2>&1 || rc=$?
        check_eq "demo-status-$round" 0 "$rc"
done
[ "$rc" -eq 0 ] || sed 's/^/    /' "$T/demo.out" | tail -30

check_eq demo-summary "blockdemo: 2 devices, 2 threads, 40 requests (4 failed), 3 buffers never freed" \
        "$(grep '^blockdemo: 2 devices' "$T/demo.out")"
# 2 + 2 + 2 + 1 + 40 + 40 + 4 + 43 + 40 entries
check_eq demo-entry-count "(174 entries; first 15)" \
        "$(sed -n 's/^==> journalctl -t qemu-trace _PID=[0-9]* *//p' "$T/demo.out")"
check_eq demo-shows-entries 15 "$(grep -c ' qemu-trace\[[0-9]*\]: ' "$T/demo.out")"
check_eq demo-errors "4" "$(grep -c '^blk_req_error req 0x[0-9a-f]* sector [0-9]* reason medium error$' "$T/demo.out")"
check_eq demo-verbose-entry "    SYSLOG_IDENTIFIER=qemu-trace
    TRACE_ARGS=req:p sector:u nb_sectors:u is_write:i
    TRACE_EVENT=blk_req_submit" \
        "$(grep -E '^    (TRACE_EVENT|TRACE_ARGS|SYSLOG_IDENTIFIER)=' "$T/demo.out" | sort)"
if [ -x "$B/traceql" ]; then
        # the per-pid table: event and count columns
        check_eq demo-traceql-counts "qemu_vmalloc 43
blk_req_complete 40
blk_req_submit 40
qemu_vfree 40
blk_req_error 4
blk_dev_open 2
blk_worker_start 2
blk_worker_stats 2
blk_drain_all 1" "$(sed -n '/^==> how many of each event/,/^==> /p' "$T/demo.out" |
                     awk 'NF == 2 && $2 ~ /^[0-9]+$/ { print $1, $2 }')"
else
        fail demo-traceql-counts "build/traceql missing"
fi
