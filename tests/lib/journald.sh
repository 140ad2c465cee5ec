#!/bin/sh
# journald.sh - make sure a real systemd-journald is listening, for tests/CI.
#
#   tests/lib/journald.sh start   start one if /run/systemd/journal/socket is
#                                 missing and we are root; remember that we did
#   tests/lib/journald.sh stop    stop it again, only if we started it
#   tests/lib/journald.sh status  exit 0 when a journald socket exists
#
# In containers and CI nothing runs journald; as root we start
# /lib/systemd/systemd-journald ourselves, with a runtime drop-in that lifts the
# rate limit (tests send bursts of 100k+ entries) and link /dev/log to its
# syslog socket.  We never touch a journald someone else started.
set -eu

STATE=/run/tracejournal-test
SOCK=/run/systemd/journal/socket
JOURNALD=/lib/systemd/systemd-journald
DROPIN=/run/systemd/journald.conf.d/50-tracejournal-test.conf

# A socket file can outlive its journald (killed container, crashed run).
running() {
        pgrep -x systemd-journal >/dev/null 2>&1 || pgrep -x systemd-journald >/dev/null 2>&1
}

start() {
        if [ -S "$SOCK" ] && [ ! -f "$STATE/journald.pid" ] && running; then
                return 0                # someone else's journald: leave it be
        fi
        if [ -f "$STATE/journald.pid" ] && kill -0 "$(cat "$STATE/journald.pid")" 2>/dev/null; then
                return 0                # ours, still running
        fi
        if [ "$(id -u)" != 0 ]; then
                echo "journald.sh: no journald socket at $SOCK and not root to start one" >&2
                return 1
        fi
        [ -x "$JOURNALD" ] || { echo "journald.sh: $JOURNALD missing (apt-get install systemd)" >&2; return 1; }
        running && { echo "journald.sh: a journald runs but $SOCK is missing" >&2; return 1; }
        rm -f "$SOCK" /run/systemd/journal/dev-log /run/systemd/journal/stdout
        mkdir -p "$STATE" /run/systemd/journal "$(dirname "$DROPIN")"
        cat > "$DROPIN" <<CONF
# written by tracejournal tests/lib/journald.sh; removed by 'stop'
[Journal]
RateLimitIntervalSec=0
RateLimitBurst=0
Storage=volatile
RuntimeMaxUse=4G
CONF
        "$JOURNALD" >"$STATE/journald.log" 2>&1 &
        echo $! > "$STATE/journald.pid"
        i=0
        while [ ! -S "$SOCK" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
        [ -S "$SOCK" ] || { echo "journald.sh: journald did not come up:" >&2; cat "$STATE/journald.log" >&2; return 1; }
        if [ ! -e /dev/log ]; then
                ln -s /run/systemd/journal/dev-log /dev/log
                touch "$STATE/devlog-linked"
        fi
}

stop() {
        [ -f "$STATE/journald.pid" ] || return 0
        pid=$(cat "$STATE/journald.pid")
        kill "$pid" 2>/dev/null || true
        i=0
        while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
        if [ -f "$STATE/devlog-linked" ]; then rm -f /dev/log "$STATE/devlog-linked"; fi
        rm -f "$STATE/journald.pid" "$DROPIN"
}

case "${1:-}" in
start) start ;;
stop) stop ;;
status) [ -S "$SOCK" ] && running ;;
*) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
