#!/bin/sh
# t-example.sh - the example program end to end: build/examples/blockdemo sends
# its events through libtracejournal into the real journald under this test's
# own identifier, and every count and field the run determines is checked in
# what journald stored (read back with journalctl -o json).  Also its CLI: help,
# usage errors, --list and --trace (QEMU -trace syntax) through the log output.
. "$(dirname "$0")/lib/common.sh"

BD=$B/examples/blockdemo
VERSION=$(sed -n 's/^VERSION *= *//p' "$TOP/Makefile")
unset TJ_EVENTS TJ_EVENTS_FILE TJ_IDENTIFIER TJ_LOG_TIMESTAMP

if [ ! -x "$BD" ]; then
        fail example-built "$BD missing: run make examples"
        exit 0
fi
pass example-built

# ---- CLI ------------------------------------------------------------------

# run_cli NAME EXPECTED-STATUS EXPECTED-STDERR ARGS...: stderr and status exact
run_cli() {
        name=$1 st=$2 err=$3
        shift 3
        rc=0
        TJ_OUTPUT=nop $RUN "$BD" "$@" > "$T/cli.out" 2> "$T/cli.err" || rc=$?
        check_eq "$name" "$st|$err" "$rc|$(cat "$T/cli.err")"
}

run_cli example-threads-zero 2 "blockdemo: --threads: '0' is not a number from 1 to 256" --threads 0
run_cli example-threads-big 2 "blockdemo: --threads: '257' is not a number from 1 to 256" -t 257
run_cli example-requests-neg 2 "blockdemo: --requests: '-1' is not a number from 0 to 4000000000" --requests -1
run_cli example-extra-arg 2 "blockdemo: unexpected argument 'foo'" foo
run_cli example-trace-unknown 2 "blockdemo: --trace nosuch_*: no event matches" --trace 'nosuch_*'
# An events= file that does not exist is named, not "no event matches" (both
# are -ENOENT from tj_trace_opt()); one whose pattern matches nothing is that.
run_cli example-trace-events-missing 2 \
        "blockdemo: --trace events=$T/none: $T/none: No such file or directory" --trace "events=$T/none"
run_cli example-trace-events-missing-comma 2 \
        "blockdemo: --trace blk_*,events=$T/a,,b: $T/a,b: No such file or directory" --trace "blk_*,events=$T/a,,b"
printf 'blk_dev_open\nnosuch_event\n' > "$T/nomatch.events"
run_cli example-trace-events-nomatch 2 "blockdemo: --trace events=$T/nomatch.events: no event matches" \
        --trace "events=$T/nomatch.events"
run_cli example-version 0 "" --version
check_eq example-version-text "blockdemo (tracejournal) $VERSION" "$(cat "$T/cli.out")"
run_cli example-help 0 "" --help
check_eq example-help-first-line "Usage: blockdemo [OPTION]..." "$(head -1 "$T/cli.out")"

# --list shows every event of the group with its state, after --trace.
cat > "$T/list.expected" <<'EOF'
blk_dev_open         blockdemo  off
blk_worker_start     blockdemo  off
blk_worker_stats     blockdemo  off
blk_drain_all        blockdemo  off
blk_req_submit       blockdemo  on
blk_req_complete     blockdemo  on
blk_req_error        blockdemo  on
blk_req_debug        blockdemo  compiled-out
qemu_vmalloc         blockdemo  off
qemu_vfree           blockdemo  off
EOF
run_cli example-list 0 "" --trace 'blk_req_*' --list
check_file example-list-output "$T/list.expected" "$T/cli.out"

# --trace through the log output (stderr): which events fire, how often.
# log_counts ARGS...: "event count" lines of one run, sorted
log_counts() {
        TJ_OUTPUT=log $RUN "$BD" --threads 2 --requests 30 "$@" 2> "$T/log.err" > "$T/log.out" &&
                awk '{ n[$1]++ } END { for (e in n) print e, n[e] }' "$T/log.err" | sort
}
check_eq example-trace-glob "qemu_vfree 30
qemu_vmalloc 33" "$(log_counts --trace 'qemu_v*')"
check_eq example-trace-disable "blk_dev_open 2
blk_drain_all 1
blk_req_complete 30
blk_req_error 3
blk_req_submit 30
blk_worker_start 2" "$(log_counts --trace 'enable=blk_*' --trace=-blk_worker_stats)"
printf '# events file for blockdemo\nblk_req_error\n\nblk_worker_stats\n' > "$T/events"
check_eq example-trace-events-file "blk_req_error 3
blk_worker_stats 2" "$(log_counts --trace "events=$T/events")"
check_eq example-trace-env "blk_drain_all 1" "$(TJ_EVENTS=blk_drain_all log_counts)"
check_eq example-trace-none "" "$(log_counts)"
# The guarded event: worker 0 ran requests 0, 2, ... 28 (sizes 8 << (i % 4)).
TJ_OUTPUT=log $RUN "$BD" --threads 2 --requests 30 --trace blk_worker_stats 2> "$T/log.err" >/dev/null
check_eq example-guarded-stats "blk_worker_stats worker 0 request sizes 4k:8 8k:0 16k:7 32k:0
blk_worker_stats worker 1 request sizes 4k:0 8k:8 16k:0 32k:7" "$(sort "$T/log.err")"
# QEMU's -trace file=: the log output goes to that file instead of stderr.
TJ_OUTPUT=log $RUN "$BD" --threads 1 --requests 2 --trace "blk_drain_all,file=$T/trace.log" \
        > /dev/null 2> "$T/log.err"
check_eq example-trace-file "blk_drain_all all requests done|" "$(cat "$T/trace.log")|$(cat "$T/log.err")"
check_eq example-summary "blockdemo: 2 devices, 2 threads, 30 requests (3 failed), 3 buffers never freed" \
        "$(cat "$T/log.out")"

# ---- journald -------------------------------------------------------------

if ! have_journald; then
        fail example-journald "no journald socket (run as root, or tests/lib/journald.sh start)"
        exit 0
fi

THREADS=3 REQUESTS=200
EXPECTED=832    # 2 + 3 + 3 + 1 + 200 + 200 + 20 + 203 + 200, see the table below
rc=0
TJ_IDENTIFIER=$TJ_TEST_ID TJ_OUTPUT=journald $RUN "$BD" --threads $THREADS \
        --requests $REQUESTS --trace '*' --stats > "$T/run.out" 2> "$T/run.err" || rc=$?
check_eq example-run-status 0 "$rc"
check_eq example-run-summary \
        "blockdemo: 2 devices, 3 threads, 200 requests (20 failed), 3 buffers never freed" \
        "$(cat "$T/run.out")"
check_eq example-run-stats "blockdemo: events emitted $EXPECTED, written $EXPECTED, dropped 0" \
        "$(cat "$T/run.err")"

# journald stores what it received asynchronously: --sync makes it catch up;
# the loop only covers a journald that cannot be asked (not root).
journalctl --sync 2>/dev/null || true
i=0
while n=$(journalctl -q "SYSLOG_IDENTIFIER=$TJ_TEST_ID" -o cat | wc -l) &&
        [ "$n" -lt $EXPECTED ] && [ $i -lt 300 ]; do
        sleep 0.1; i=$((i + 1))
done
journalctl -q "SYSLOG_IDENTIFIER=$TJ_TEST_ID" -o json > "$T/entries.json"

# Everything below is determined by the run: request i goes to worker
# i % threads, has sector i * 64, 8 << (i % 4) sectors, is a write when
# i % 3 == 0 and fails with -EIO when i % 10 == 9.
python3 - "$T/entries.json" $THREADS $REQUESTS "$TJ_TEST_ID" <<'EOF'
import json, re, sys
from collections import Counter

path, threads, requests, ident = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
entries = [json.loads(l) for l in open(path)]
# A field sent twice comes back as a list: report it, compare it as one string.
dups = sorted(set(k for e in entries for k, v in e.items() if isinstance(v, list)))
entries = [{k: "|".join(map(str, v)) if isinstance(v, list) else v for k, v in e.items()}
           for e in entries]

def by(ev):
    return sorted((e for e in entries if e.get("TRACE_EVENT") == ev),
                  key=lambda e: int(e["TRACE_SEQ"]))

ids = range(requests)
failed = sum(1 for i in ids if i % 10 == 9)
counts = {"blk_dev_open": 2, "blk_worker_start": threads, "blk_worker_stats": threads,
          "blk_drain_all": 1, "blk_req_submit": requests, "blk_req_complete": requests,
          "blk_req_error": failed, "qemu_vmalloc": requests + 3, "qemu_vfree": requests}
def check(name, expected, actual):
    if expected == actual:
        print("PASS: " + name)
    else:
        msg = "expected [%s], got [%s]" % (expected, actual)
        print("FAIL: %s (%s)" % (name, msg if len(msg) < 600 else msg[:600] + "..."))

check("example-journal-no-duplicate-field", [], dups)
check("example-journal-counts", sorted(counts.items()),
      sorted(Counter(e.get("TRACE_EVENT") for e in entries).items()))

# Common fields of every entry.
check("example-journal-common", {("6", "3", ident, "blockdemo", "examples/blockdemo.c"): len(entries)},
      dict(Counter((e.get("PRIORITY"), e.get("SYSLOG_FACILITY"), e.get("SYSLOG_IDENTIFIER"),
                    e.get("TRACE_GROUP"), e.get("CODE_FILE")) for e in entries)))
check("example-journal-one-pid", 1, len(set(e.get("_PID") for e in entries)))
seqs = sorted(int(e["TRACE_SEQ"]) for e in entries)
check("example-journal-seq-no-gap", list(range(seqs[0], seqs[0] + len(seqs))) if seqs else [], seqs)
check("example-journal-mono-ns", True,
      all(re.fullmatch(r"[0-9]+", e.get("TRACE_MONO_NS", "")) and
          re.fullmatch(r"[0-9]{19}", e.get("TRACE_TIME_NS", "")) for e in entries))
check("example-journal-message-prefix", True,
      all(e["MESSAGE"].split(" ")[0] == e["TRACE_EVENT"] for e in entries))

# Signatures: the arguments of each event with their kinds.
check("example-journal-argsig", [
    "TRACE_ARGS=req:p sector:u nb_sectors:u is_write:i", "TRACE_ARGS=req:p ret:i",
    "TRACE_ARGS=req:p sector:u reason:s", "TRACE_ARGS=size:u ptr:p", "TRACE_ARGS=ptr:p",
    "TRACE_ARGS=name:s nb_sectors:u"],
    ["TRACE_ARGS=" + by(ev)[0].get("TRACE_ARGS", "")
     for ev in ("blk_req_submit", "blk_req_complete", "blk_req_error", "qemu_vmalloc",
                "qemu_vfree", "blk_dev_open")])
check("example-journal-void-event", [("blk_drain_all all requests done", [])],
      [(e["MESSAGE"], [k for k in e if k.startswith("TRACE_ARG_")]) for e in by("blk_drain_all")])
check("example-journal-devices",
      ["blk_dev_open name disk0 nb_sectors 1048576|disk0|1048576",
       "blk_dev_open name disk1 nb_sectors 1048576|disk1|1048576"],
      ["%s|%s|%s" % (e["MESSAGE"], e["TRACE_ARG_NAME"], e["TRACE_ARG_NB_SECTORS"])
       for e in by("blk_dev_open")])

# Submits: the multiset of (sector, nb_sectors, is_write) is the one the rules give.
subs = by("blk_req_submit")
check("example-journal-submit-args",
      sorted((str(i * 64 % (1 << 20)), str(8 << (i % 4)), str(int(i % 3 == 0))) for i in ids),
      sorted((e["TRACE_ARG_SECTOR"], e["TRACE_ARG_NB_SECTORS"], e["TRACE_ARG_IS_WRITE"])
             for e in subs))
check("example-journal-submit-message", [True] * len(subs),
      ["blk_req_submit req %s sector %s nb_sectors %s is_write %s" % (
          e["TRACE_ARG_REQ"], e["TRACE_ARG_SECTOR"], e["TRACE_ARG_NB_SECTORS"],
          e["TRACE_ARG_IS_WRITE"]) == e["MESSAGE"] and
       re.fullmatch(r"0x[0-9a-f]+", e["TRACE_ARG_REQ"]) is not None for e in subs])
main_tid = by("blk_dev_open")[0]["TID"]
worker_tids = set(e["TID"] for e in by("blk_worker_start"))
check("example-journal-worker-threads", (threads, False, worker_tids),
      (len(worker_tids), main_tid in worker_tids, set(e["TID"] for e in subs)))
check("example-journal-worker-start",
      sorted(str(requests // threads + (w < requests % threads)) for w in range(threads)),
      sorted(e["TRACE_ARG_NB_REQUESTS"] for e in by("blk_worker_start")))

# Completions pair with submits by request pointer within their thread, in
# submission order, at most 4 in flight.
ok, worst = True, 0
for tid in worker_tids:
    inflight = []
    for e in sorted((e for e in entries if e["TID"] == tid), key=lambda e: int(e["TRACE_SEQ"])):
        if e["TRACE_EVENT"] == "blk_req_submit":
            inflight.append(e["TRACE_ARG_REQ"])
            worst = max(worst, len(inflight))
        elif e["TRACE_EVENT"] == "blk_req_complete":
            ok = ok and bool(inflight) and inflight.pop(0) == e["TRACE_ARG_REQ"]
    ok = ok and not inflight
check("example-journal-pairs", (True, 4), (ok, worst))
check("example-journal-complete-ret", [("-5", failed), ("0", requests - failed)],
      sorted(Counter(e["TRACE_ARG_RET"] for e in by("blk_req_complete")).items()))
check("example-journal-error", [("medium error", True)] * failed,
      [(e["TRACE_ARG_REASON"], e["MESSAGE"] == "blk_req_error req %s sector %s reason medium error"
        % (e["TRACE_ARG_REQ"], e["TRACE_ARG_SECTOR"])) for e in by("blk_req_error")])

# Buffers: replay allocations in TRACE_SEQ order; the three left are the
# deliberate leaks, from their call sites.
live = {}
for e in sorted(entries, key=lambda e: int(e["TRACE_SEQ"])):
    if e["TRACE_EVENT"] == "qemu_vmalloc":
        live[e["TRACE_ARG_PTR"]] = e
    elif e["TRACE_EVENT"] == "qemu_vfree":
        live.pop(e["TRACE_ARG_PTR"], None)
check("example-journal-leaks",
      [("bd_dev_open", "512"), ("bd_dev_open", "512"), ("bd_zero_page_init", "4096")],
      sorted((e["CODE_FUNC"], e["TRACE_ARG_SIZE"]) for e in live.values()))
check("example-journal-vfree-sites", {"bd_req_complete"},
      set(e["CODE_FUNC"] for e in by("qemu_vfree")))

# The guarded event: per worker, how many requests of each size it ran.
exp = []
for w in range(threads):
    n = [0] * 4
    for i in range(w, requests, threads):
        n[i % 4] += 1
    exp.append("worker %d request sizes 4k:%d 8k:%d 16k:%d 32k:%d" % (w, *n))
check("example-journal-guarded-stats", sorted(exp),
      sorted(e["MESSAGE"][len("blk_worker_stats "):] for e in by("blk_worker_stats")))
check("example-journal-nothing-else", [],
      [e["TRACE_EVENT"] for e in entries
       if e.get("TRACE_EVENT") in ("tj_dropped", "blk_req_debug")])
EOF
