#!/bin/sh
# journald-stopped.sh - run inside 'unshare -m' by t-lib-async.sh: a private
# journald on tmpfs, stopped (SIGSTOP, its socket still there) while lib-emit
# traces, so that the writer thread's send blocks; then continued.
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
kill -CONT $jpid
kill $jpid
wait $jpid || true
