#!/bin/sh
# journald-stopped.sh - run inside 'unshare -m' by t-lib-async.sh: a private
# journald on tmpfs, stopped (SIGSTOP, its socket still there) while lib-emit
# traces, so that the writer thread's send blocks (or, with TJ_SYNC=1, the
# calling thread's); then continued.
#   journald-stopped.sh LIB-EMIT OUTDIR BLOCKDEMO
set -eu
E=$1 out=$2 demo=$3
mount -t tmpfs tmpfs /run/systemd/journal
mkdir -p /run/log/journal
mount -t tmpfs tmpfs /run/log/journal
/lib/systemd/systemd-journald > "$out/journald.log" 2>&1 &
jpid=$!
i=0; while [ ! -S /run/systemd/journal/socket ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
kill -STOP $jpid
# timeout: an outputs change or an exit that waits for the blocked send
# shows as status 124
rc=0
TJ_OUTPUT=journald TJ_EVENTS=tgb_req TJ_QUIET=1 TJ_FLUSH_TIMEOUT_MS=500 \
        timeout 30 "$E" init req:20000 flush outputs:log req:3 > "$out/emitter" 2> "$out/err" ||
        rc=$?
echo $rc > "$out/emitter-status"
# tj_shutdown() leaves the writer stuck in its send; tj_init() again takes
# that thread back instead of starting a second writer (two would both free
# dead rings): as many threads after it as before
rc=0
TJ_OUTPUT=journald TJ_EVENTS=tgb_req TJ_QUIET=1 TJ_FLUSH_TIMEOUT_MS=300 \
        timeout 30 "$E" init req:20000 flush shutdown tasks init tasks > "$out/reinit" \
        2> "$out/reinit.err" || rc=$?
echo $rc > "$out/reinit-status"
# blockdemo's group is tracegen's, unregistered by a destructor at exit,
# after the library's exit flush left the writer stuck in its send
rc=0
TJ_OUTPUT=journald TJ_EVENTS='*' TJ_QUIET=1 TJ_FLUSH_TIMEOUT_MS=300 \
        timeout 30 "$demo" --threads 1 --requests 20000 > /dev/null 2>&1 || rc=$?
echo $rc > "$out/demo-status"
# TJ_SYNC=1: the calling thread's send waits for room (the socket's queue
# is still full); a SIGALRM every millisecond, its handler installed without
# SA_RESTART, interrupts it (EINTR) while it waits, until journald goes on.
# The interrupted send was the event lost, counted dropped, with the warning
# "Interrupted system call".  (It waits for the sender to be blocked in its
# send, as /proc says, at most 5 s, then 0.2 s more of signals.)
TJ_SYNC=1 TJ_OUTPUT=journald TJ_EVENTS=tgb_req TJ_QUIET=0 \
        timeout 30 "$E" init alarm:1000 req:200 stats > "$out/eintr" 2>&1 &
epid=$!
i=0
while [ $i -lt 100 ]; do
        c=$(cat "/proc/$epid/task/$epid/children" 2>/dev/null || true)
        [ "$(cat "/proc/${c%% *}/wchan" 2>/dev/null || true)" = unix_wait_for_peer ] && break
        sleep 0.05; i=$((i + 1))
done
sleep 0.2
kill -CONT $jpid
rc=0
wait $epid || rc=$?
echo $rc > "$out/eintr-status"
kill $jpid
wait $jpid || true
