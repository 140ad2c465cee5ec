#!/bin/sh
# t-lib-ftrace.sh - the ftrace output: typed "<event>[pid.seq]: name=value"
# lines written by the calling thread to the trace_marker given by
# TJ_FTRACE_MARKER (a plain file here), and to the real tracefs trace_marker
# when it is writable (SKIP line otherwise).
. "$(dirname "$0")/lib/common.sh"
E="$B/tests/lib-emit"

: > "$T/marker"
TJ_OUTPUT=ftrace TJ_FTRACE_MARKER="$T/marker" TJ_EVENTS="tg*" \
        $RUN "$E" init req:2 void all flush > /dev/null 2> "$T/err"
cat > "$T/exp" <<'OUT'
tgb_req[PID.1]: req=0x1000 sector=0 name="r0"
tgb_req[PID.2]: req=0x1001 sector=1 name="r1"
tga_void[PID.3]:
tga_all[PID.4]: i64=-9223372036854775808 u64=18446744073709551615 ptr=0x0 s="" i32=-1 u8=255
tga_all[PID.5]: i64=9223372036854775807 u64=0 ptr=0xdeadbeefcafe s=(null) i32=0 u8=0
tga_all[PID.6]: i64=-42 u64=42 ptr=0xffffffffffffffff s="line1\nline2" i32=-2147483648 u8=1
tga_all[PID.7]: i64=0 u64=1 ptr=0x1 s="a=b\nTRACE_EVENT=forged\nMESSAGE=x" i32=2147483647 u8=7
tga_all[PID.8]: i64=1 u64=2 ptr=0x2 s="héllo wörld €" i32=3 u8=4
OUT
head -8 "$T/marker" | sed 's/^\([a-z_]*\)\[[0-9]*\./\1[PID./' > "$T/got"
check_file lib-ftrace-marker-file "$T/exp" "$T/got"
# Cut to the line's 1024 bytes, newline included, as a line of numbers
# (1023 before: the closing quote was counted twice).
check_eq lib-ftrace-long-string-cut 1024 "$(sed -n 9p "$T/marker" | wc -c)"
check_eq lib-ftrace-long-string-closed '"' "$(sed -n 9p "$T/marker" | sed 's/ i32=.*//' | tail -c 2 | head -c 1)"
# The string is cut to leave room for the numbers after it: they were left
# out, the string taking the whole line (an import read them as absent).
check_eq lib-ftrace-long-string-args-after '" i32=8 u8=9' "$(sed -n 9p "$T/marker" | tail -c 13)"

# An event whose name, argument names and numbers take more than the line
# (tgz_eee..., 10 arguments with names of 53 bytes, all 7): the arguments
# that did not fit were left out, and the line went out as if whole (an
# import read them as absent); a name of 1023 bytes made a line of the name
# alone, a longer one an empty line.
# The event is counted dropped now, and reported as such; a line of 1024
# bytes, newline included, is written whole.  The name's length is set from
# the pid's digits (sh's pid, the program's after exec): the line of event 1
# is N + pid digits + 566 bytes.
for big in 1024 1025 name1023 name1024; do
        : > "$T/marker"
        TJ_OUTPUT=ftrace TJ_FTRACE_MARKER="$T/marker" TJ_EVENTS="tgz*" \
                sh -c 'n=$1; case $n in name*) n=${n#name} ;; *) n=$((n - ${#$} - 566)) ;; esac; shift
                        exec "$@" big:$n:53 init big=7 flush stats' \
                sh $big $RUN "$E" > "$T/out" 2> "$T/err"
        echo "$big $(cat "$T/out" "$T/err")|$(sed 's/^\([a-z_]*\)\[[0-9]*/\1[PID/' "$T/marker" |
                cut -c1-30)|$(LC_ALL=C awk '/^tgz_/ { print length + 1 }' "$T/marker")|$(grep -c \
                ' a9x\{51\}=7$' "$T/marker" || true)"
done > "$T/big"
check_eq lib-ftrace-line-too-long-dropped "1024 emitted=1 written=1 dropped=0|tgz_eeeeeeeeeeeeeeeeeeeeeeeeee|1024|1
1025 emitted=1 written=0 dropped=1|tj_dropped[PID]: dropped=1||0
name1023 emitted=1 written=0 dropped=1|tj_dropped[PID]: dropped=1||0
name1024 emitted=1 written=0 dropped=1|tj_dropped[PID]: dropped=1||0" "$(cat "$T/big")"

# Such an event was dropped with no word said: every event of it lost, and
# only the stats or a tj_dropped line to tell.  Said now, once per open of
# the marker (two events, one line; again after the outputs changed away
# and back), its name cut to 64 bytes; the lines of the events of 1025
# bytes, the name's length set from the pid's digits as above.
: > "$T/marker"
TJ_QUIET=0 TJ_OUTPUT=ftrace TJ_FTRACE_MARKER="$T/marker" TJ_EVENTS="tgz*" \
        sh -c 'exec "$@" big:$((1025 - ${#$} - 566)):53 init big=7 big=7 flush stats \
                outputs:nop outputs:ftrace big=7 flush stats' sh $RUN "$E" > "$T/out" 2> "$T/err"
w="tracejournal: ftrace: event tgz_$(printf 'e%.0s' $(seq 60))... needs at least 1025 bytes, over the marker's limit of 1024: dropped (said once per open)"
check_eq lib-ftrace-line-too-long-warns "$w
$w
emitted=2 written=0 dropped=2
outputs nop=0
outputs ftrace=0
emitted=3 written=0 dropped=3|tj_dropped[PID]: dropped=2
tj_dropped[PID]: dropped=1" "$(cat "$T/err")
$(cat "$T/out")|$(sed 's/^\([a-z_]*\)\[[0-9]*/\1[PID/' "$T/marker")"

# A long string is cut at a character boundary: the cut fell inside a
# UTF-8 character (a lone 0xc3 before the closing quote), whichever of these
# two strings, one byte apart, puts it there with this pid's digits.
e2=$(printf 'c3a9%.0s' $(seq 600))
for pre in "" 79; do
        : > "$T/marker"
        TJ_OUTPUT=ftrace TJ_FTRACE_MARKER="$T/marker" TJ_EVENTS="tg*" \
                $RUN "$E" init str:$pre$e2 flush > /dev/null 2> "$T/err"
        s=$(LC_ALL=C sed -n 's/^tga_all\[[0-9.]*\]: i64=1 u64=2 ptr=0x3 s="\(.*\)" i32=4 u8=5$/\1/p' "$T/marker")
        check_eq lib-ftrace-long-string-cut-utf8${pre:+-$pre} "${pre:+y}|1" \
                "$(printf '%s' "$s" | LC_ALL=C sed 's/\xc3\xa9//g')|$(printf '%s' "$s" | iconv -f UTF-8 -t UTF-8 > /dev/null 2>&1 && echo 1)"
done

# With an asynchronous output too, the caller still writes each line once.
: > "$T/marker"
TJ_OUTPUT=simple,ftrace TJ_SIMPLE_FILE="$T/st" TJ_FTRACE_MARKER="$T/marker" TJ_EVENTS=tgb_req \
        $RUN "$E" init req:3 flush > /dev/null 2> "$T/err"
check_eq lib-ftrace-with-async-once 3 "$(wc -l < "$T/marker")"
check_eq lib-ftrace-no-warning "" "$(cat "$T/err")"

# A trace point in a signal handler: the caller builds the ftrace line with
# no call that is not async-signal-safe (vsnprintf for every value before),
# writing only the ftrace output or an asynchronous one too.
for outs in ftrace simple,ftrace; do
        : > "$T/marker"
        TJ_OUTPUT=$outs TJ_SIMPLE_FILE="$T/st" TJ_FTRACE_MARKER="$T/marker" TJ_EVENTS="tg*" \
                $RUN "$B/tests/lib-sigsafe" > "$T/out" 2> "$T/err"
        cat > "$T/exp" <<'OUT'
in-handler malloc=0 free=0 snprintf=0 vsnprintf=0
tgb_req[PID.1]: req=0x1000 sector=0 name="r0"
tga_all[PID.2]: i64=-9223372036854775808 u64=18446744073709551615 ptr=0xbeef s="a\"b\n" i32=-7 u8=200
tgb_req[PID.3]: req=0x2000 sector=9 name="h"
OUT
        sed 's/^\([a-z_]*\)\[[0-9]*\./\1[PID./' "$T/marker" | cat "$T/out" - > "$T/got"
        check_file lib-ftrace-signal-handler-$outs "$T/exp" "$T/got"
done

# tj_shutdown() and tj_init() again while a thread traces without pause: an
# event that saw the library initialised and then found the outputs closed
# went nowhere, counted written (a few in every run of 100 before); it waits
# in its ring for the next tj_init() now.  Every event counted written is in
# the marker, with TJ_SYNC=1 (all outputs under the lock) and without (the
# caller's outputs only).
for sync in 0 1; do
        : > "$T/marker"
        TJ_SYNC=$sync TJ_OUTPUT=ftrace TJ_FTRACE_MARKER="$T/marker" TJ_EVENTS=tgb_req \
                $RUN "$E" init shutbusy:100 flush stats > "$T/out" 2> "$T/err"
        written=$(sed -n 's/^emitted=[0-9]* written=\([0-9]*\) .*/\1/p' "$T/out")
        check_eq lib-ftrace-shutdown-busy-sync$sync "written=$written" \
                "written=$(grep -c '^tgb_req\[' "$T/marker")"
        check_eq lib-ftrace-shutdown-busy-sync$sync-counted "" \
                "$(awk -F'[= ]' '$2 != $4 + $6' "$T/out")"
done

# A program started with standard input or output closed: the marker was
# opened as descriptor 0 or 1.  As 0 it stayed open when the outputs were
# changed (a descriptor below 3 was taken for stdio, never parked nor
# closed): a leak at each reopen, the marker still open after tj_shutdown().
# As 1 the program's own output went into the marker.  The marker is a
# descriptor above 2 now.
: > "$T/marker"
TJ_OUTPUT=ftrace TJ_FTRACE_MARKER="$T/marker" TJ_EVENTS=tga_void run_fdclosed 0 "$E" atexitfd:"$T/marker" \
        init void outputs:nop outputs:ftrace void shutdown > "$T/out" 2> "$T/err"
check_eq lib-ftrace-stdin-closed-no-leak "outputs nop=0
outputs ftrace=0
fd $T/marker=closed|2" "$(cat "$T/out" "$T/err")|$(wc -l < "$T/marker")"
: > "$T/marker"
TJ_OUTPUT=ftrace TJ_FTRACE_MARKER="$T/marker" TJ_EVENTS=tga_void $RUN "$E" init void stats \
        2> "$T/err" >&- || true
check_eq lib-ftrace-stdout-closed-not-marker "tga_void[PID.1]:" \
        "$(sed 's/^\([a-z_]*\)\[[0-9]*\./\1[PID./' "$T/marker")$(cat "$T/err")"

TJ_QUIET=0 TJ_OUTPUT=ftrace TJ_FTRACE_MARKER="$T/nodir/marker" TJ_EVENTS=tga_void \
        $RUN "$E" init void flush > /dev/null 2> "$T/err"
check_eq lib-ftrace-missing-marker-warns "tracejournal: ftrace: $T/nodir/marker: No such file or directory" "$(cat "$T/err")"

# A marker that takes no line, tracing_on or options/markers beside it 0:
# the kernel fails each write (EBADF, EINVAL) and the events were counted
# dropped with no word said.  A warning at open now; nothing is written to
# tracing_on (QEMU's ftrace backend writes 1 there).  Here a plain file with
# the tracefs files beside it, then a real tracefs instance.
mkdir -p "$T/tfake/options"
for on in 0 1; do
        echo $on > "$T/tfake/tracing_on"
        echo $((1 - on)) > "$T/tfake/options/markers"
        : > "$T/tfake/trace_marker"
        TJ_QUIET=0 TJ_OUTPUT=ftrace TJ_FTRACE_MARKER="$T/tfake/trace_marker" TJ_EVENTS=tga_void \
                $RUN "$E" init void flush > /dev/null 2> "$T/err"
        if [ $on = 0 ]; then
                exp="tracejournal: ftrace: tracing is off ($T/tfake/tracing_on is 0): events are dropped until it is on"
        else
                exp="tracejournal: ftrace: the trace option markers is off ($T/tfake/options/markers is 0): events are dropped until it is on"
        fi
        check_eq lib-ftrace-off-warns-file-on$on "$exp|1" "$(cat "$T/err")|$(wc -l < "$T/tfake/trace_marker")"
        check_eq lib-ftrace-off-unchanged-on$on "$on" "$(cat "$T/tfake/tracing_on")"
done
echo 1 > "$T/tfake/options/markers"
TJ_QUIET=0 TJ_OUTPUT=ftrace TJ_FTRACE_MARKER="$T/tfake/trace_marker" TJ_EVENTS=tga_void \
        $RUN "$E" init void flush > /dev/null 2> "$T/err"
check_eq lib-ftrace-on-no-warning "" "$(cat "$T/err")"

# The real tracefs, in an instance of our own (instances/NAME has its own
# tracing_on, options and marker): the global settings are left alone.
inst=/sys/kernel/tracing/instances/tj-test-$$
if [ "$(id -u)" = 0 ] && mkdir "$inst" 2> /dev/null; then
        trap 'rmdir "$inst" 2> /dev/null; common_exit' EXIT
        trap 'exit 1' HUP INT TERM
        echo 0 > "$inst/tracing_on"
        TJ_QUIET=0 TJ_OUTPUT=ftrace TJ_FTRACE_MARKER="$inst/trace_marker" TJ_EVENTS=tgb_req \
                $RUN "$E" init req:3 flush stats > "$T/out" 2> "$T/err"
        check_eq lib-ftrace-tracefs-off-warns \
                "tracejournal: ftrace: tracing is off ($inst/tracing_on is 0): events are dropped until it is on" \
                "$(cat "$T/err")"
        check_eq lib-ftrace-tracefs-off-dropped "emitted=3 written=0 dropped=3|0" \
                "$(cat "$T/out")|$(cat "$inst/tracing_on")"
        # The losses are said in a tj_dropped line once the marker takes
        # lines again, here tracing_on 1 while the program waits (after
        # req:2, its control socket there).
        mkdir "$T/ctl"
        TJ_CONTROL_DIR="$T/ctl" TJ_OUTPUT=ftrace TJ_FTRACE_MARKER="$inst/trace_marker" \
                TJ_EVENTS=tgb_req $RUN "$E" init req:2 ctlstart waitfor:"$T/go" req:1 flush stats \
                > "$T/out" 2> "$T/err" &
        pid=$!
        for i in $(seq 100); do
                [ -S "$T/ctl/$pid.sock" ] && break
                sleep 0.1
        done
        echo 1 > "$inst/tracing_on"
        touch "$T/go"
        wait $pid
        check_eq lib-ftrace-tracefs-off-reported "emitted=3 written=1 dropped=2|1|1" \
                "$(cat "$T/out")|$(grep -c "tracing_mark_write: tj_dropped\[$pid\]: dropped=2\$" "$inst/trace")|$(grep -c "tracing_mark_write: tgb_req\[$pid\.3\]:" "$inst/trace")"
        rmdir "$inst"
        trap 'common_exit' EXIT
else
        skip lib-ftrace-tracefs-off "no tracefs instance (root and /sys/kernel/tracing/instances needed)"
fi

# No tracefs at /sys/kernel/tracing: the marker is that of tracefs mounted
# elsewhere, or of debugfs's tracing/ (where systems whose systemd mounts
# only debugfs have tracefs), as QEMU's ftrace backend finds it in
# /proc/mounts.  The output failed: 'No such file or directory'.  In a
# private mount namespace, as root.
if [ "$(id -u)" = 0 ] && unshare -m true 2> /dev/null; then
        mkdir "$T/tfs"
        for how in tracefs debugfs; do
                rc=0
                unshare -m sh -c 'umount /sys/kernel/tracing 2> /dev/null
                        if [ "$1" = tracefs ]; then
                                mount -t tracefs nodev "$2/tfs" && t=$2/tfs || exit 77
                        else
                                mount -t debugfs nodev /sys/kernel/debug &&
                                        t=/sys/kernel/debug/tracing || exit 77
                        fi
                        [ ! -e /sys/kernel/tracing/trace_marker ] || exit 77
                        echo 1 > "$t/tracing_on"
                        TJ_QUIET=0 TJ_OUTPUT=ftrace TJ_EVENTS=tga_void "$3" init void flush \
                                > /dev/null 2> "$2/err" & p=$!
                        wait $p || exit 1
                        echo "$(cat "$2/err")|$(grep -c "tracing_mark_write: tga_void\[$p\.1\]:" "$t/trace")"' \
                        sh "$how" "$T" "$E" > "$T/out" 2>&1 || rc=$?
                if [ $rc = 77 ]; then
                        skip lib-ftrace-marker-found-$how "cannot mount $how in a private mount namespace"
                else
                        check_eq lib-ftrace-marker-found-$how "0||1" "$rc|$(cat "$T/out")"
                fi
        done
else
        skip lib-ftrace-marker-found "root and unshare -m needed"
fi

# The real tracefs: mounted here, or in a private mount namespace when root.
rc=0
with_tracefs sh -c 'TJ_OUTPUT=ftrace TJ_EVENTS=tga_void "$1" init void flush > /dev/null 2>&1 &&
        cat /sys/kernel/tracing/trace' sh "$E" > "$T/trace" 2>&1 || rc=$?
if [ $rc = 77 ]; then
        skip lib-ftrace-tracefs "no writable tracefs: not mounted and cannot mount it (root and unshare -m needed)"
else
        check_eq lib-ftrace-tracefs "0|1" "$rc|$(grep -c 'tracing_mark_write: tga_void\[[0-9]*\.[0-9]*\]:' "$T/trace" | sed 's/^[1-9][0-9]*$/1/')"
fi

# The marker a pipe whose reader is stopped (a FIFO as TJ_FTRACE_MARKER), a
# SIGALRM every millisecond (its handler installed without SA_RESTART): a
# write that waits for room and is interrupted before it wrote anything
# (EINTR) is made again; it was the event counted dropped ("written=1201
# dropped=1799").  A line is at most 1024 bytes, under PIPE_BUF: a pipe takes
# it whole or not at all.  The reader stops itself before it reads; the
# emitter is waited for in its write, then 0.2 s more of signals
# (fifo_stalled_run).
fifo_stalled_run "$T/wv.fifo" "$T/wv.marker" env TJ_OUTPUT=ftrace TJ_FTRACE_MARKER="$T/wv.fifo" \
        TJ_EVENTS=tgb_req timeout 60 $RUN "$E" init alarm:1000 req:3000 stats
check_eq lib-ftrace-fifo-eintr "0
emitted=3000 written=3000 dropped=0
3000 whole, in order" "$rc
$(cat "$T/out" "$T/err")
$(awk -F'[.\\]]' '/^tgb_req\[[0-9]+\.[0-9]+\]: req=0x[0-9a-f]+ sector=[0-9]+ name="r[0-9]+"$/ &&
        $2 == NR { n++ } END { print n " whole, in order" }' "$T/wv.marker")"
