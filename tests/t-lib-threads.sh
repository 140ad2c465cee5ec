#!/bin/sh
# t-lib-threads.sh - 4 threads emitting at once into a real journald.
#   sync:  TJ_SYNC=1, 4 x 2000 events: all arrive, TRACE_SEQ is exactly 1..8000.
#   block: the issue-3 test, 4 x 200000 events with TJ_ON_FULL=block: every
#          event arrives, TRACE_SEQ exactly 1..800000, in order per thread.
. "$(dirname "$0")/lib/common.sh"
E="$B/tests/lib-emit"

# tj_shutdown() and tj_init() again while threads trace: tj_init() rewrote
# the settings tj_emit() reads (TJ_ON_FULL, TJ_RING_SIZE, TJ_SYNC) as plain
# fields, a data race under TSan (config.block in emit_reserve(), with a ring
# full while the writer is stopped; config.ring_size in emit_attach(), by a
# thread's first event).  The run must end, without a report, all counted.
TJ_OUTPUT=nop TJ_ON_FULL=block TJ_RING_SIZE=4096 $RUN "$E" enable:tgb_req init shutbusy:20 \
        flush stats > "$T/out" 2>&1 || true
check_eq lib-threads-reinit-busy-block "" "$(awk -F'[= ]' '/^enable tgb_req=1$/ { next } !/^emitted=/ || $2 != $4 + $6' "$T/out")"
TJ_OUTPUT=nop $RUN "$E" enable:tgb_req init shutnew:20 flush stats > "$T/out" 2>&1 || true
check_eq lib-threads-reinit-new-threads "" "$(awk -F'[= ]' '/^enable tgb_req=1$/ { next } !/^emitted=/ || $2 != $4 + $6' "$T/out")"
# The same with tj_flush() called after each event: tj_init() rewrote
# TJ_FLUSH_TIMEOUT_MS (config.flush_timeout_ms), which tj_flush() reads, as
# a plain field, and TJ_QUIET too, which any warning reads (a data race
# under TSan).
TJ_OUTPUT=nop TJ_FLUSH_TIMEOUT_MS=500 $RUN "$E" enable:tgb_req init shutflush:20 flush stats \
        > "$T/out" 2>&1 || true
check_eq lib-threads-reinit-flush "" "$(awk -F'[= ]' '/^enable tgb_req=1$/ { next } !/^emitted=/ || $2 != $4 + $6' "$T/out")"

# A tj_flush() asked while tj_shutdown() stops the writer, after the
# writer's last pass began, returns -ETIMEDOUT as soon as the writer has
# left: it waited out all of TJ_FLUSH_TIMEOUT_MS, as writer_running() stays
# true until the join, and no pass would complete it (20 s here; timeout(1)
# ends the run at 10 s, status 124).  lib-emit's stopflush has the writer's
# last pass wait, in a render function, until a thread waits in tj_flush().
TJ_OUTPUT=nop TJ_FLUSH_TIMEOUT_MS=20000 timeout 10 $RUN "$E" init stopflush > "$T/out" 2>&1 \
        && st=0 || st=$?
check_eq lib-threads-flush-during-shutdown "stopflush flush=-110
status 0" "$(cat "$T/out"; echo "status $st")"

# The stats at exit add up: an event the exit flush leaves unwritten counts
# as dropped.  Events traced by an atexit handler that runs after the
# library's (registered before tj_init()) went to a ring no writer drains,
# counted neither written nor dropped (emitted=15 written=10 dropped=0
# before); so were those a thread committed after the writer's last pass
# while the process exited (bgtrace: a thread tracing without pause).  The
# handler registered first prints the stats last.
for outs in nop log; do
        TJ_OUTPUT=$outs TJ_EVENTS=tgb_req $RUN "$E" opt:file="$T/exit.log" atexitstats atexit:5 \
                init req:10 exit > "$T/out" 2>&1 || true
        check_eq lib-threads-exit-atexit-stats-$outs "opt file=$T/exit.log=0
emitted=15 written=10 dropped=5" "$(cat "$T/out")"
        for i in 1 2 3; do
                TJ_OUTPUT=$outs TJ_EVENTS=tgb_req $RUN "$E" opt:file="$T/exit.log" atexitstats \
                        init req:10 bgtrace sleep:20 exit > "$T/out" 2>&1 || true
                check_eq lib-threads-exit-busy-stats-$outs-$i "" \
                        "$(awk -F'[= ]' '/^opt / { next } !/^emitted=/ || $2 != $4 + $6' "$T/out")"
        done
done

# A thread cancelled (pthread_cancel) while it traces: the log output's
# write(2), done by the calling thread, is a cancellation point.  With
# TJ_SYNC=1 the thread died holding the writer's lock, and the next trace
# point waited for ever (cancel=stuck); otherwise its event was numbered but
# neither written nor counted dropped (emitted=57307 written=57288
# dropped=0 before: about one lost per cancel).  A trace point is no cancellation point now.
for mode in sync:1:log caller:0:log async:0:log,nop; do
        sync=${mode#*:}; outs=${sync#*:}; sync=${sync%%:*}
        TJ_SYNC=$sync TJ_OUTPUT=$outs timeout 30 $RUN "$E" opt:file="$T/cancel.log" \
                enable:tgb_req init cancel:20 req:1 flush stats > "$T/out" 2>&1 && st=0 || st=$?
        check_eq lib-threads-cancel-${mode%%:*} "status 0" "$(awk -F'[= ]' '
                /^(opt|enable) / { next }
                !/^emitted=/ || $2 != $4 + $6' "$T/out"; echo "status $st")"
done

if ! have_journald; then skip lib-threads "no journald socket"; exit 0; fi

# At exit, with a thread tracing faster than journald takes its events, the
# writer is joined and the outputs are closed: the writer left only once a
# pass found the rings empty, which such a thread never lets happen, so the
# join failed, the writer was detached, and the outputs stayed open as the
# process exited (the simple file's descriptor still open in the atexit
# handler that runs after the library's; 8 runs in 8 before).  Now it leaves
# after two passes begun since the stop, and tj_shutdown() waits for it as
# long as it takes records.  A journald that pauses (a loaded machine) is
# not taken for a stuck one as long as it pauses for less than
# TJ_FLUSH_TIMEOUT_MS: with a fixed 100 ms this failed 1 run in 6-8 under
# ASan at load 3.5.
for i in 1 2 3; do
        rm -f "$T/busy.simple"
        TJ_IDENTIFIER="$TJ_TEST_ID-busy" TJ_FLUSH_TIMEOUT_MS=10000 TJ_OUTPUT=journald,simple \
                TJ_SIMPLE_FILE="$T/busy.simple" TJ_EVENTS=tgb_req $RUN "$E" atexitfd:"$T/busy.simple" atexitstats init req:10 \
                bgtrace sleep:20 exit > "$T/out" 2>&1 || true
        check_eq lib-threads-exit-busy-closed-$i "fd $T/busy.simple=closed" "$(grep '^fd ' "$T/out"; awk -F'[= ]' '!/^fd / && (!/^emitted=/ || $2 != $4 + $6)' "$T/out")"
done

# check_seq NAME N: $T/seq holds "TID SEQ" lines in journal order
check_seq() {
        got=$(cut -d' ' -f2 "$T/seq" | sort -n | awk -v n="$2" '
                $1 != NR { print "seq " NR " missing or duplicated (saw " $1 ")"; bad = 1; exit }
                END { if (!bad && NR != n) print NR " entries, expected " n }')
        check_eq "$1-seq" "" "$got"
        got=$(awk '{ if (($1 in last) && last[$1] >= $2) { print "thread " $1 ": " $2 " after " last[$1]; exit }
                     last[$1] = $2 }' "$T/seq")
        check_eq "$1-order" "" "$got"
        check_eq "$1-threads" 4 "$(cut -d' ' -f1 "$T/seq" | sort -u | wc -l)"
}

TJ_IDENTIFIER="$TJ_TEST_ID-sync" TJ_SYNC=1 TJ_EVENTS=tgb_req $RUN "$E" init threads:4:2000 stats > "$T/out"
check_eq lib-threads-sync-stats "emitted=8000 written=8000 dropped=0" "$(cat "$T/out")"
"$B/tests/journal-dump" "$TJ_TEST_ID-sync" 8000 TID TRACE_SEQ | sed 's/TID=//; s/TRACE_SEQ=//' > "$T/seq" || true
check_seq lib-threads-sync 8000

TJ_IDENTIFIER="$TJ_TEST_ID-block" TJ_ON_FULL=block TJ_EVENTS=tgb_req "$E" init threads:4:200000 flush stats > "$T/out"
check_eq lib-threads-block-stats "emitted=800000 written=800000 dropped=0" "$(cat "$T/out")"
"$B/tests/journal-dump" "$TJ_TEST_ID-block" 800000 TID TRACE_SEQ | sed 's/TID=//; s/TRACE_SEQ=//' > "$T/seq" || true
check_seq lib-threads-block 800000

# A group registered (a module's, loaded with dlopen) while another thread
# walks the events, as the control endpoint's 'list' does: the walk sees the
# new group whole (under TSan, with no race on the list's links).
"$E" init regwalk > "$T/out" 2>&1 || true
check_eq lib-threads-register-while-walking "regwalk tgc_two=1" "$(cat "$T/out")"

# A thread traces after its ring's cleanup ran: a pthread key destructor of
# its own, running after the library's in each of the destructors' rounds,
# traces and sets its key again.  Every event is written and every ring
# freed once drained: the main thread's is the one left.  The ring made in
# the last round was never freed, one per such thread (rings 11).  TSan
# finishes a thread in the destructors' last round: there it checks the
# first three rounds (which also get rings of their own).
mkdir -m 700 "$T/ctl"
case "${SANITIZE:-}" in
*thread*) rounds=3 ;;
*) rounds=4 ;;
esac
TJ_CONTROL_DIR="$T/ctl" TJ_OUTPUT=nop TJ_EVENTS=tgb_req $RUN "$E" init req:1 keyexit:10:$rounds \
        flush ctl:stats > "$T/out" 2>&1 || true
n=$((1 + 10 * (1 + rounds)))
check_eq lib-threads-late-event-ring-freed "emitted $n|written $n|dropped 0|rings 1" \
        "$(sed -n 's/^ctl stats=\(emitted [0-9]*|written [0-9]*|dropped [0-9]*|\).*|\(rings [0-9]*\) .*/\1\2/p' "$T/out")"

# The rings of threads that exit while no writer thread runs (after
# tj_shutdown()): drained by none, each stayed whole (128 KiB) for good, so
# that memory grew with each thread that traced and exited.  An empty one
# (its events written before tj_shutdown()) is freed at its thread's exit;
# one holding events keeps them, for the next tj_init(), in a buffer just
# big enough (one 88-byte event: 128 bytes).  Before: rings 20 size 2621440
# both times.
s=
for i in $(seq 20); do s="$s texit:1"; done
TJ_CONTROL_DIR="$T/ctl" TJ_OUTPUT=nop TJ_EVENTS=tgb_req $RUN "$E" init park:20 flush shutdown \
        unpark ctl:stats $s ctl:stats init flush ctl:stats > "$T/out" 2>&1 || true
check_eq lib-threads-exit-after-shutdown-ring-freed "emitted 20|written 20|rings 0 size 0
emitted 40|written 20|rings 20 size 2560
emitted 40|written 40|rings 0 size 0" \
        "$(sed -n 's/^ctl stats=\(emitted [0-9]*|written [0-9]*|\).*\(rings [0-9]* size [0-9]*\) .*/\1\2/p' "$T/out")"
