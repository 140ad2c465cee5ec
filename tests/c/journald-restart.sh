#!/bin/sh
# journald-restart.sh - run inside 'unshare -m' by t-lib-async.sh: a private
# journald on tmpfs, stopped and started again while lib-emit traces.
#   journald-restart.sh LIB-EMIT JOURNAL-DUMP IDENT OUTDIR
set -eu
E=$1 D=$2 id=$3 out=$4
mount -t tmpfs tmpfs /run/systemd/journal
mkdir -p /run/log/journal
mount -t tmpfs tmpfs /run/log/journal
start_journald() {
        /lib/systemd/systemd-journald > "$out/journald.log" 2>&1 &
        echo $! > "$out/journald.pid"
        i=0; while [ ! -S /run/systemd/journal/socket ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
}
start_journald
# timeout: the emitter traces for ~3 s and its flush is bounded by 2 s; a
# hang (a send or a flush that does not give up) shows as status 124.
TJ_IDENTIFIER="$id" TJ_EVENTS=tgb_req,tga_void TJ_QUIET=0 TJ_FLUSH_TIMEOUT_MS=2000 \
        timeout 60 "$E" init slow:1500:2000 flush stats void > "$out/stats" 2> "$out/err" &
emitter=$!
sleep 1
kill "$(cat "$out/journald.pid")"
while kill -0 "$(cat "$out/journald.pid")" 2>/dev/null; do sleep 0.05; done
sleep 1
start_journald
wait $emitter
echo $? > "$out/emitter-status"
"$D" "$id" until:TRACE_EVENT=tga_void TRACE_EVENT TRACE_SEQ TRACE_DROPPED > "$out/journal" || true
kill "$(cat "$out/journald.pid")"
