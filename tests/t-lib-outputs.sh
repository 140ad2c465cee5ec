#!/bin/sh
# t-lib-outputs.sh - several outputs at once and several groups: the same
# events reach journald, syslog (a test socket) and the log output; the log
# output's forms (stderr, TJ_LOG_TIMESTAMP=1, -trace file=); journald absent
# (in a private mount namespace): the program goes on, one warning, drops counted;
# the log output's failed writes reported to it once it works again.
. "$(dirname "$0")/lib/common.sh"
E="$B/tests/lib-emit"

# Every output at once (six: more than the four the writer once had room
# for, which overflowed its arrays and crashed the program).  journald and
# syslog sockets that are missing only count the events as dropped.
: > "$T/marker6"
TJ_OUTPUT=journald,syslog,log,nop,ftrace,simple TJ_SYSLOG_SOCKET="$T/no.sock" \
TJ_FTRACE_MARKER="$T/marker6" TJ_SIMPLE_FILE="$T/st6" TJ_EVENTS=tgb_req \
        $RUN "$E" init req:3 flush stats > "$T/out" 2> "$T/log" || true
check_eq lib-outputs-all-six "3 3 1" \
        "$(grep -c '^tgb_req req' "$T/log") $(grep -c '^tgb_req\[' "$T/marker6") $(grep -c '^emitted=3 ' "$T/out")"

# The log output's own losses (written by the calling thread: a write that
# failed, here to /dev/full) are reported to it once it works again (-trace
# file= a file), as every output's are: its file had the events after them
# and no tj_dropped line, its 5 losses counted nowhere but the stats.  Alone
# (the caller's path) and beside an output of the writer thread, where under
# valgrind the 5 can come as two tj_dropped records (2 and 3): a pass of the
# writer took the first 2 losses, and its report of them, which /dev/full
# would have refused, went out after the caller lost 3 more and switched
# files (writer_report_drops()).  Their sum is what is checked.
for outs in log log,nop; do
        TJ_OUTPUT=$outs TJ_EVENTS=tgb_req $RUN "$E" opt:file=/dev/full init req:5 \
                opt:file="$T/lost.log" req:1 flush stats > "$T/out" 2> "$T/err" || true
        check_eq "lib-outputs-log-lost-reported-$outs" "opt file=/dev/full=0
opt file=$T/lost.log=0
emitted=6 written=1 dropped=5
tgb_req req 0x1000 sector 0 name r0
tj_dropped 5 events dropped" "$(cat "$T/out"; grep -v '^tj_dropped ' "$T/lost.log" | sort
                awk '/^tj_dropped / { n += $2 } END { print "tj_dropped " n " events dropped" }' \
                        "$T/lost.log")"
done

# The outputs tj_set_outputs() chose after tj_init() are the ones the next
# tj_init() opens (it opened those chosen before the first one: nop, the
# event went nowhere), unless TJ_OUTPUT names others.
rm -f "$T/kept.log"
env -u TJ_OUTPUT TJ_EVENTS=tgb_req $RUN "$E" opt:file="$T/kept.log" outputs:nop init \
        outputs:log shutdown init req:1 flush stats > "$T/out" 2> "$T/err" || true
check_eq lib-outputs-kept-after-init "opt file=$T/kept.log=0
outputs nop=0
outputs log=0
emitted=1 written=1 dropped=0
tgb_req req 0x1000 sector 0 name r0
stderr:" "$(cat "$T/out" "$T/kept.log" 2>&1; echo "stderr:$(cat "$T/err")")"
rm -f "$T/kept.log"
TJ_OUTPUT=nop TJ_EVENTS=tgb_req $RUN "$E" opt:file="$T/kept.log" init outputs:log shutdown \
        init req:1 flush stats > "$T/out" 2> "$T/err" || true
check_eq lib-outputs-kept-env-overrides "opt file=$T/kept.log=0
outputs log=0
emitted=1 written=1 dropped=0
file:no
stderr:" "$(cat "$T/out"; test -s "$T/kept.log" && echo file:yes || echo file:no; echo "stderr:$(cat "$T/err")")"

# Standard output closed: the file of file= was opened as descriptor 1, and
# the program's own output (stats here) went into the trace log.
rm -f "$T/fd1.log"
TJ_OUTPUT=log TJ_EVENTS=tgb_req run_fdclosed 1 "$E" opt:file="$T/fd1.log" init req:1 flush \
        stats 2> "$T/err" || true
check_eq lib-outputs-log-file-not-stdout "tgb_req req 0x1000 sector 0 name r0" \
        "$(cat "$T/fd1.log" "$T/err")"

# The same in a fork child with only outputs the caller writes (log, and
# ftrace): the child started no writer thread (the first event of a child
# started one only on the ring's path, which those outputs never take), so
# its losses were reported only by a later trace point that found one
# waiting, and at its exit never: its file had no tj_dropped line.  Not under
# ASan or TSan (see t-lib-async.sh: a forked child can deadlock).
: > "$T/fk.marker"
for outs in log log,ftrace; do
        case "${SANITIZE:-}" in
        *address*|*thread*)
                skip "lib-outputs-fork-log-lost-reported-$outs" \
                        "the ASan and TSan runtimes can deadlock in a forked child"
                continue ;;
        esac
        rm -f "$T/fk.log"
        TJ_OUTPUT=$outs TJ_FTRACE_MARKER="$T/fk.marker" TJ_EVENTS=tgb_req $RUN "$E" init \
                forkdo:opt:file=/dev/full+req:5+opt:file="$T/fk.log"+req:1+stats \
                > "$T/out" 2> "$T/err" || true
        check_eq "lib-outputs-fork-log-lost-reported-$outs" "opt file=/dev/full=0
opt file=$T/fk.log=0
emitted=6 written=1 dropped=5
tgb_req req 0x1000 sector 0 name r0
tj_dropped 5 events dropped
stderr:" "$(cat "$T/out"; sort "$T/fk.log"; echo "stderr:$(cat "$T/err")")"
done

# A fork child that calls tj_shutdown() before it traces: its first event
# started a writer all the same (writer_shutdown() left the fork's restart
# flag set), with no outputs, which counted written the 5 events it drained
# (emitted=5 written=5 before).  Now they stay in the ring, as before
# tj_init(), and count dropped at the child's exit (its atexit stats, the
# handler registered before tj_init() runs after the library's); the parent
# traced nothing.  Not under ASan or TSan (as above).
for outs in nop log; do
        case "${SANITIZE:-}" in
        *address*|*thread*)
                skip "lib-outputs-fork-shutdown-nothing-written-$outs" \
                        "the ASan and TSan runtimes can deadlock in a forked child"
                continue ;;
        esac
        rm -f "$T/fks.log"
        TJ_OUTPUT=$outs TJ_EVENTS=tgb_req $RUN "$E" opt:file="$T/fks.log" atexitstats init \
                forkdo:shutdown+req:5+flush+stats > "$T/out" 2> "$T/err" || true
        check_eq "lib-outputs-fork-shutdown-nothing-written-$outs" "opt file=$T/fks.log=0
emitted=5 written=0 dropped=0
emitted=5 written=0 dropped=5
emitted=0 written=0 dropped=0
stderr:" "$(cat "$T/out"; cat "$T/fks.log" 2>/dev/null || true; echo "stderr:$(cat "$T/err")")"
done

# A fork child inherited the count of threads waiting for the writer's
# lock (w.lock_wanted) and of those writing the log output (log_writing),
# threads it does not have.  Here the parent's writer holds its lock (hold:
# in a render function) while a thread waits for it in tj_set_outputs()
# (its mutex wait, after the flush that times out); the child's writer then
# paused 10 ms in each pass, 100 naps of 0.1 ms (naps: the nanosleep()
# calls of the threads but the main one; about 100 a pass before: 102, 199).  And a
# thread blocked writing the log output (a FIFO nobody reads) at the fork
# made the child's change of outputs wait 100 ms for it (naps:main, 2000
# naps before); the parent reads the FIFO then, and its thread ends.  Not
# under ASan or TSan (as above).
case "${SANITIZE:-}" in
*address*|*thread*)
        skip lib-outputs-fork-lock-wanted "the ASan and TSan runtimes can deadlock in a forked child"
        skip lib-outputs-fork-log-writing "the ASan and TSan runtimes can deadlock in a forked child"
        ;;
*)
        TJ_OUTPUT=nop TJ_EVENTS=tgb_req TJ_FLUSH_TIMEOUT_MS=2000 $RUN "$E" init hold bgoutputs:nop \
                wchan:futex forkdo:req:1+flush+naps+req:1+flush+naps release bgjoin \
                > "$T/out" 2>&1 || true
        check_eq lib-outputs-fork-lock-wanted "naps=0
naps=0" "$(grep '^naps=' "$T/out")"
        rm -f "$T/lw.fifo"
        mkfifo "$T/lw.fifo"
        TJ_OUTPUT=log TJ_EVENTS=tgb_req $RUN "$E" fifo:"$T/lw.fifo" opt:file="$T/lw.fifo" init \
                bgreq:100000 wchan:pipe_write forkdo:outputs:nop+naps:main fifodrain \
                > "$T/out" 2>&1 || true
        check_eq lib-outputs-fork-log-writing "opt file=$T/lw.fifo=0
outputs nop=0
naps=0" "$(cat "$T/out")"
        ;;
esac

# An event traced while the outputs change from nop,ftrace to
# nop,ftrace,log,simple (tj_set_outputs() in another thread holds the
# writer's lock while it opens a FIFO as the simple file) reaches the log
# output the writer finds then: the caller had written ftrace, not log, but
# one flag said both, and the log output was skipped and counted written.
# The event is traced once that thread waits in open() (fifowait).
mkfifo "$T/sw.fifo"
: > "$T/sw.marker"
TJ_OUTPUT=nop,ftrace TJ_FTRACE_MARKER="$T/sw.marker" TJ_SIMPLE_FILE="$T/sw.fifo" \
        timeout 60 $RUN "$E" opt:file="$T/sw.log" init enable:tgb_req \
        bgoutputs:nop,ftrace,log,simple fifowait req:1 fifo:"$T/sw.fifo" bgjoin flush \
        > "$T/out" 2> "$T/err" || true
if grep -q fifowait=none "$T/out"; then
        skip lib-outputs-log-added-ftrace-written "no thread seen waiting in open() (/proc wchan)"
else
        check_eq lib-outputs-log-added-ftrace-written "bgoutputs nop,ftrace,log,simple=0
tgb_req req 0x1000 sector 0 name r0
1" "$(grep bgoutputs "$T/out"; cat "$T/sw.log"; grep -c '^tgb_req\[' "$T/sw.marker")"
fi

# A trace point in a signal handler that interrupted tj_set_outputs() on its
# own thread (holding the writer's lock while it opens a FIFO as the simple
# file), with only caller-written outputs and a loss waiting to be reported
# (tgn_nest's render traces it again, nested: dropped): the caller took the
# writer's lock to report it and waited for itself for ever.  Now the report
# is the writer's, once the lock is free.  Not under TSan: its handler of
# the signal only queues it unless the thread is in a call TSan counts as
# blocking (sleep, poll...), which open() is not; the kernel restarts the
# open() (SA_RESTART), and the handler would run once it returned, which
# needs the FIFO's reader that this test opens only after the handler ran
# (bgsignal=stuck, a wait of TSan's making, not the library's).
mkfifo "$T/sig.fifo"
case "${SANITIZE:-}" in
*thread*)
        skip lib-outputs-signal-in-set-outputs \
                "TSan delivers a signal to a thread in open() only once open() returned" ;;
*)
        TJ_OUTPUT=log TJ_SIMPLE_FILE="$T/sig.fifo" \
                timeout 60 $RUN "$E" opt:file="$T/sig.log" init nest bgoutputs:log,simple fifowait \
                bgsignal fifo:"$T/sig.fifo" bgjoin flush stats > "$T/out" 2> "$T/err" || true
        if grep -q fifowait=none "$T/out"; then
                skip lib-outputs-signal-in-set-outputs "no thread seen waiting in open() (/proc wchan)"
        else
                check_eq lib-outputs-signal-in-set-outputs "bgoutputs log,simple=0
emitted=2 written=1 dropped=1
tgn_nest nested
tj_dropped 1 events dropped" "$(grep -v '^opt ' "$T/out"; cat "$T/sig.log")"
        fi ;;
esac

if ! have_journald; then skip lib-outputs "no journald socket"; exit 0; fi

"$B/tests/dgram-recv" "$T/s.sock" 5 > "$T/syslog" &
rpid=$!
i=0; while [ ! -S "$T/s.sock" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
TJ_IDENTIFIER="$TJ_TEST_ID" TJ_OUTPUT=journald,syslog,log TJ_SYSLOG_SOCKET="$T/s.sock" \
TJ_EVENTS=tgb_req,tga_void $RUN "$E" init req:3 void enable:tgb_done flush stats \
        > "$T/out" 2> "$T/log"
check_eq lib-outputs-stats "enable tgb_done=1
emitted=4 written=4 dropped=0" "$(cat "$T/out")"
cat > "$T/exp" <<OUT
tgb_req req 0x1000 sector 0 name r0
tgb_req req 0x1001 sector 1 name r1
tgb_req req 0x1002 sector 2 name r2
tga_void nothing
OUT
check_file lib-outputs-log "$T/exp" "$T/log"
"$B/tests/journal-dump" "$TJ_TEST_ID" 4 TRACE_GROUP TRACE_SEQ MESSAGE > "$T/journal" || true
cat > "$T/exp" <<OUT
TRACE_GROUP=tgb TRACE_SEQ=1 MESSAGE=tgb_req req 0x1000 sector 0 name r0
TRACE_GROUP=tgb TRACE_SEQ=2 MESSAGE=tgb_req req 0x1001 sector 1 name r1
TRACE_GROUP=tgb TRACE_SEQ=3 MESSAGE=tgb_req req 0x1002 sector 2 name r2
TRACE_GROUP=tga TRACE_SEQ=4 MESSAGE=tga_void nothing
OUT
check_file lib-outputs-journald "$T/exp" "$T/journal"
# One more datagram than events would be a spurious tj_dropped: send a 5th
# event so the receiver ends, and see that it is the 5th line.
TJ_OUTPUT=syslog TJ_SYSLOG_SOCKET="$T/s.sock" TJ_IDENTIFIER=last TJ_EVENTS=tga_void "$E" init void
wait $rpid || true
sed -E 's/^<30>[A-Z][a-z]{2} [ 0-9][0-9] [0-9]{2}:[0-9]{2}:[0-9]{2} [^ ]+\[[0-9]+\]: //' "$T/syslog" > "$T/got"
printf 'tga_void nothing\n' >> "$T/exp.s"
{ sed 's/^TRACE_GROUP=... TRACE_SEQ=. MESSAGE=//' "$T/exp"; echo "tga_void nothing"; } > "$T/exp.s"
check_file lib-outputs-syslog "$T/exp.s" "$T/got"

# log output: QEMU's timestamp prefix, and -trace file=
TJ_OUTPUT=log TJ_LOG_TIMESTAMP=1 TJ_EVENTS=tgb_req $RUN "$E" init req:2 2> "$T/log" &
pid=$!; wait $pid || true
sed -E "s/^$pid@[0-9]+\.[0-9]{6}:/PID@S.U:/" "$T/log" > "$T/got"
printf 'PID@S.U:tgb_req req 0x1000 sector 0 name r0\nPID@S.U:tgb_req req 0x1001 sector 1 name r1\n' > "$T/exp"
check_file lib-outputs-log-timestamp "$T/exp" "$T/got"
# TJ_LOG_TIMESTAMP and TJ_SYNC take yes, true and on as 1 (they were off).
TJ_OUTPUT=log TJ_LOG_TIMESTAMP=yes TJ_EVENTS=tgb_req $RUN "$E" init req:1 2> "$T/log" &
pid=$!; wait $pid || true
sed -E "s/^$pid@[0-9]+\.[0-9]{6}:/PID@S.U:/" "$T/log" > "$T/got"
check_eq lib-outputs-log-timestamp-yes "PID@S.U:tgb_req req 0x1000 sector 0 name r0" "$(cat "$T/got")"
# With TJ_SYNC the record is on the caller's stack, 16384 bytes: a string is
# not cut at a quarter of a 4096-byte ring (1024 bytes) as it is in a ring.
for v in True on; do
        TJ_SYNC=$v TJ_RING_SIZE=4096 TJ_OUTPUT=log,nop TJ_EVENTS=tga_all $RUN "$E" init long:20000 \
                2> "$T/log" || true
        check_eq "lib-outputs-sync-$v" "$((16384 - 56 - 48 - 1))" "$(tr -cd y < "$T/log" | wc -c)"
done
# So with log as the only output (tracejournal.7), and with log,nop a ring's
# quarter cuts it.
for o in log log,nop; do
        TJ_RING_SIZE=4096 TJ_OUTPUT=$o TJ_EVENTS=tga_all $RUN "$E" init long:20000 flush \
                2> "$T/log" || true
        echo "$(tr -cd y < "$T/log" | wc -c)" >> "$T/caller.n"
done
check_eq lib-outputs-log-only-caller-record "$((16384 - 56 - 48 - 1)) $((1024 - 56 - 48 - 1))" \
        "$(paste -sd ' ' "$T/caller.n")"
# A thread's ring keeps its size when a later tj_init() reads a larger
# TJ_RING_SIZE: its records are still cut at a quarter of it (they were cut
# at a quarter of the new size, never fitted, and were dropped; with
# TJ_ON_FULL=block the trace point waited for ever).
TJ_RING_SIZE=4096 TJ_OUTPUT=log,nop TJ_EVENTS=tga_all $RUN "$E" init long:10 shutdown \
        setenv:TJ_RING_SIZE=1M init long:6000 flush stats > "$T/out" 2> "$T/log" || true
check_eq lib-outputs-ring-kept "emitted=2 written=2 dropped=0 $((10 + 1024 - 56 - 48 - 1))" \
        "$(cat "$T/out") $(tr -cd y < "$T/log" | wc -c)"
TJ_OUTPUT=log $RUN "$E" opt:tgb_done,file="$T/trace.log" init enable:tgb_req req:1 > /dev/null 2> "$T/err"
printf 'tgb_req req 0x1000 sector 0 name r0\n' > "$T/exp"
check_file lib-outputs-log-file "$T/exp" "$T/trace.log"
check_eq lib-outputs-log-file-not-stderr "" "$(cat "$T/err")"
# The log output closed and opened again on the same file= (an outputs change
# away and back, tj_shutdown() and tj_init()) goes on after what it holds, as
# QEMU's log file does; a new file= starts empty.  Reopening truncated it:
# 'traceql ctl PID outputs journald', then 'outputs log', lost the whole trace.
printf 'old\n' > "$T/again.log"
TJ_OUTPUT=log $RUN "$E" opt:file="$T/again.log" init enable:tgb_req req:1 flush outputs:nop \
        req:1 flush outputs:log req:1 flush shutdown init req:1 flush opt:file="$T/new.log" \
        req:1 flush > /dev/null 2> "$T/err"
check_eq lib-outputs-log-reopen-appends "3 1 " \
        "$(grep -c '^tgb_req req ' "$T/again.log") $(grep -c '^tgb_req req ' "$T/new.log") $(cat "$T/err")"
# A file= the process opened before, then another one, then the first again
# (A, B, A; by its name or by another link to the same file): it is appended
# to, each file truncated only the first time the process opens it.  Only
# the file= truncated last was remembered, so coming back to A after B
# truncated A again and lost the events written to it before.
printf 'old\n' > "$T/a.log"
printf 'old\n' > "$T/b.log"
ln -f "$T/a.log" "$T/a-link.log"
TJ_OUTPUT=log $RUN "$E" opt:file="$T/a.log" init enable:tgb_req req:1 flush \
        opt:file="$T/b.log" req:2 flush opt:file="$T/a.log" req:3 flush outputs:nop \
        opt:file="$T/b.log" outputs:log req:4 flush opt:file="$T/a-link.log" req:5 flush \
        > /dev/null 2> "$T/err"
check_eq lib-outputs-log-back-to-file-appends "a: r0 r0 r1 r2 r0 r1 r2 r3 r4|b: r0 r1 r0 r1 r2 r3|" \
        "a: $(sed 's/.* name //' "$T/a.log" | paste -sd ' ' -)|b: $(sed 's/.* name //' "$T/b.log" |
                paste -sd ' ' -)|$(cat "$T/err")"

# tj_shutdown() and tj_init() again while a thread traces without pause, the
# log output writing to a file (a pipe: /dev/stdout, which each tj_init()
# opens again without truncating what came before): every event counted
# written is a line of it.  The close parked the file's descriptor on
# /dev/null at once, and a caller between its check and its write wrote its
# line there, counted written (about one in each of the 100 closes, in every
# run, without TJ_SYNC); it now waits for them, as the ftrace output's does.
# Not under valgrind: it runs one thread at a time, so there is no race to
# show, and each of the close's 50 us sleeps hands the busy thread a whole
# time slice (the file timed out after 600 s in CI's valgrind run).
for sync in 0 1; do
        if [ -n "${VALGRIND:-}" ]; then
                skip lib-outputs-log-shutdown-busy-sync$sync "a race of threads: valgrind runs one at a time"
                continue
        fi
        TJ_SYNC=$sync TJ_OUTPUT=log TJ_EVENTS=tgb_req $RUN "$E" opt:file=/dev/stdout init \
                shutbusy:100 flush stats 2> "$T/err" | cat > "$T/out"
        written=$(sed -n 's/^emitted=[0-9]* written=\([0-9]*\) .*/\1/p' "$T/out")
        check_eq lib-outputs-log-shutdown-busy-sync$sync "written=$written" \
                "written=$(grep -c '^tgb_req req ' "$T/out")"
        check_eq lib-outputs-log-shutdown-busy-sync$sync-counted "" \
                "$(awk -F'[= ]' '/^emitted=/ && $2 != $4 + $6' "$T/out")"
done

# journald absent: an empty /run/systemd/journal in a private mount namespace.
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
        TJ_QUIET=0 TJ_EVENTS=tgb_req unshare -m sh -c \
                'mount -t tmpfs tmpfs /run/systemd/journal && exec "$0" init req:5 flush stats' "$E" \
                > "$T/out" 2> "$T/err"
        check_eq lib-outputs-journald-absent-stats "emitted=5 written=0 dropped=5" "$(cat "$T/out")"
        check_eq lib-outputs-journald-absent-warning \
                "tracejournal: journald: cannot send to /run/systemd/journal/socket: No such file or directory; events are counted as dropped" \
                "$(cat "$T/err")"
else
        skip lib-outputs-journald-absent "needs root and unshare -m"
fi

# The log output into a pipe whose reader is stopped, a SIGALRM every
# millisecond (its handler installed without SA_RESTART): a writev() that
# waits for room is interrupted.  Interrupted before it wrote anything
# (EINTR), the event was counted dropped; after it wrote part of a line (a
# line of 10000 bytes and more, over PIPE_BUF, that the pipe took in part),
# it was counted written, the line cut and the next one going on after it.
# Now the write is made again, the rest of the line after what went out
# (it was "written=6 dropped=103", the sixth line cut at 4096 bytes).  The
# reader stops itself before it reads; the emitter is waited for in its
# write, then 0.2 s more of signals (fifo_stalled_run).
fifo_stalled_run "$T/wv.fifo" "$T/wv.log" env TJ_OUTPUT=log TJ_EVENTS=tga_all,tgb_req \
        timeout 60 $RUN "$E" opt:file="$T/wv.fifo" init \
        alarm:1000 long:10000 long:12000 long:14000 long:10000 long:12000 long:14000 \
        long:10000 long:12000 req:50 long:14000 req:50 stats
check_eq lib-outputs-log-pipe-eintr "0
opt file=$T/wv.fifo=0
emitted=109 written=109 dropped=0
tga_all 10043 3
tga_all 12043 3
tga_all 14043 3
tgb_req 35 20
tgb_req 37 80" "$rc
$(cat "$T/out" "$T/err")
$(awk '{ print $1, length($0) }' "$T/wv.log" | sort | uniq -c | awk '{ print $2, $3, $1 }')"
