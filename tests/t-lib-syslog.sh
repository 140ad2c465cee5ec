#!/bin/sh
# t-lib-syslog.sh - the syslog output: exact datagrams on a test socket in
# RFC 3164 and RFC 5424 form (tests/c/lib-syslog.c), the same bytes as glibc's
# syslog(3) (in a private mount namespace where /dev/log is our socket), and a
# missing socket: the program goes on, one warning, the events counted as dropped.
. "$(dirname "$0")/lib/common.sh"

$RUN "$B/tests/lib-syslog" "$T/sys.sock" rfc3164 || true
$RUN "$B/tests/lib-syslog" "$T/sys.sock" rfc5424 || true
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
        TJ_TEST_BIND_DEVLOG=1 unshare -m "$B/tests/lib-syslog" "$T/sys.sock" rfc3164 |
                grep glibc || true
else
        skip lib-syslog-same-as-glibc "needs root and unshare -m"
fi

# No socket: exit 0, exactly one warning (TJ_QUIET unset), 5 events dropped.
TJ_QUIET=0 TJ_OUTPUT=syslog TJ_SYSLOG_SOCKET="$T/none.sock" TJ_EVENTS=tgb_req \
        $RUN "$B/tests/lib-emit" init req:5 flush stats > "$T/out" 2> "$T/err"
check_eq lib-syslog-absent-stats "emitted=5 written=0 dropped=5" "$(cat "$T/out")"
check_eq lib-syslog-absent-warning \
        "tracejournal: syslog: cannot send to $T/none.sock: No such file or directory; events are counted as dropped" \
        "$(cat "$T/err")"
