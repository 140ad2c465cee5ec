#!/bin/sh
# t-traceql-progress.sh - the progress bar of a long import, on a terminal.
#
# traceql draws it on stderr when stderr is a terminal: script(1) gives the
# command one (stdin, stdout and stderr a pseudo-terminal) and keeps what it
# wrote, carriage returns and escapes included.  TRACEQL_TEST_PROGRESS_DELAY_MS
# sets how long an import runs before the first drawing (500 ms): 0 here, so
# a few hundred entries draw it whatever the machine's speed, and a minute to
# show that a short import draws nothing.  Each importer: the journal (bar
# with a percentage), --export from a file (percentage of its bytes) and from
# a pipe (a count alone), --log, --simpletrace; a query's sync; the bar gone
# (\r ESC[K) before the summary; nothing without a terminal, nor with
# --follow.
. "$(dirname "$0")/lib/common.sh"

TQ=$B/traceql
if [ ! -x "$TQ" ]; then fail progress-built "$TQ missing: run make"; exit 0; fi
if ! command -v script > /dev/null; then
        skip progress "script(1) missing (util-linux)"; exit 0; fi
if ! have_journald; then fail progress-journald "no journald socket"; exit 0; fi
cc -Wall -Wextra -Werror -o "$T/send" "$TOP/tests/traceql_send.c" \
        $(pkg-config --cflags --libs libsystemd)
ID=$TJ_TEST_ID
N=300
ESC=$(printf '\033')
BAR="traceql: importing \[[# ]{30}\] +[0-9]+% [0-9]+ new events"
COUNT="traceql: importing [0-9]+ new events"

# tty OUT 'COMMAND': COMMAND run by sh -c on a terminal; all it wrote there
# in OUT, one line per \r or \n, empty ones left out
tty() {
        out=$1; shift
        script -qec "$*" /dev/null < /dev/null > "$out.raw" 2>&1 || true
        tr '\r' '\n' < "$out.raw" | grep -v '^$' > "$out" || true
}
# bars FILE: how many of its lines are the bar, with a percentage
bars() { grep -cE "^$ESC\[K$BAR\$" "$1" || true; }
counts() { grep -cE "^$ESC\[K$COUNT\$" "$1" || true; }
sends() {       # sends IDENT FIRST N: N entries of IDENT, TRACE_SEQ from FIRST
        awk -v id="$1" -v f="$2" -v n="$3" 'BEGIN { for (i = f; i < f + n; i++)
                printf "SYSLOG_IDENTIFIER=%s\tTRACE_EVENT=tq_progress\tTRACE_ARGS=n:i\tTRACE_SEQ=%d\tTRACE_ARG_N=%d\tMESSAGE=tq_progress n %d\n", id, i, i, i }' |
                "$T/send"
        journalctl --sync 2>/dev/null || true
        i=0
        while [ "$(journalctl -q -o cat "SYSLOG_IDENTIFIER=$1" | wc -l)" -lt $(($2 + $3 - 1)) ] &&
                [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
}
sends "$ID" 1 $N

# ---- the journal -------------------------------------------------------
export TRACEQL_TEST_PROGRESS_DELAY_MS=0
tty "$T/j" "$RUN $TQ --db $T/j.db import --identifier $ID"
check_eq progress-journal-bar yes "$([ "$(bars "$T/j")" -ge 1 ] && echo yes || cat "$T/j.raw")"
# the last line: the bar cleared, then the summary on a line of its own
check_eq progress-journal-cleared "${ESC}[Ktraceql: $N new events in $T/j.db" "$(tail -n 1 "$T/j")"
check_eq progress-journal-lines "0" "$(grep -cvE "^$ESC\[K($BAR|traceql: $N new events in .*)\$" "$T/j")"
check_eq progress-journal-rows "$N" "$($TQ --db "$T/j.db" --no-sync --format csv \
        'select count(*) from events' | tail -n 1)"

# The same import, stderr a file: nothing there, nor on the terminal.
rm -f "$T"/j.db*
tty "$T/jf" "$RUN $TQ --db $T/j.db import --identifier $ID 2> $T/jf.err"
check_eq progress-not-a-terminal "||$N" "$(cat "$T/jf.err")|$(cat "$T/jf")|$($TQ --db "$T/j.db" \
        --no-sync --format csv 'select count(*) from events' | tail -n 1)"

# A short import (the delay a minute): no bar, only the summary.
rm -f "$T"/j.db*
TRACEQL_TEST_PROGRESS_DELAY_MS=60000 tty "$T/js" "$RUN $TQ --db $T/j.db import --identifier $ID"
check_eq progress-delay "traceql: $N new events in $T/j.db" "$(cat "$T/js")"

# --follow never ends: no bar, even with entries to catch up on.
rm -f "$T"/j.db*
tty "$T/jw" "timeout -s INT 5 $RUN $TQ --db $T/j.db import --follow --identifier $ID"
check_eq progress-follow "0|$N" "$(grep -c importing "$T/jw")|$($TQ --db "$T/j.db" --no-sync \
        --format csv 'select count(*) from events' | tail -n 1)"

# A query's sync, on a terminal, with entries new since the import: the
# bar, cleared before the table.
tty "$T/j" "$RUN $TQ --db $T/j.db import --identifier $ID"
sends "$ID" $((N + 1)) $N
tty "$T/q" "$RUN $TQ --db $T/j.db --format csv 'select count(*) as n from events'"
check_eq progress-sync-bar yes "$([ "$(bars "$T/q")" -ge 1 ] && echo yes || cat "$T/q.raw")"
check_eq progress-sync-cleared "${ESC}[Kn|$((2 * N))" "$(tail -n 2 "$T/q" | paste -sd '|')"
# A sync of several sources says whose entries each bar counts: the
# source's id in 'traceql sources', and which of how many it is.
sends "$ID-c" 1 $N
sends "$ID-d" 1 $N
$TQ --db "$T/m.db" import --identifier "$ID-c"
$TQ --db "$T/m.db" import --identifier "$ID-d"
sends "$ID-c" $((N + 1)) $N
sends "$ID-d" $((N + 1)) $N
tty "$T/q2" "$RUN $TQ --db $T/m.db --format csv 'select count(*) as n from events'"
LBAR="traceql: importing source ([12]) \\(([12]) of 2\\) \\[[# ]{30}\\] +[0-9]+% [0-9]+ new events"
check_eq progress-sync-sources "1 (1 of 2)|2 (2 of 2)|n|$((4 * N))" \
        "$(grep -E "^$ESC\\[K$LBAR\$" "$T/q2" | sed -E "s/^.*importing source ([12] \\([12] of 2\\)).*/\\1/" | uniq | paste -sd '|')|$(tail -n 2 "$T/q2" | tr -d "$ESC" | sed 's/^\[K//' | paste -sd '|')"

# ---- export: a file (percentage of its bytes), a pipe (a count) ---------
journalctl -q -o export "SYSLOG_IDENTIFIER=$ID" > "$T/x.export"
tty "$T/x" "$RUN $TQ --db $T/x.db import --export $T/x.export"
check_eq progress-export-file "yes|${ESC}[Ktraceql: $((2 * N)) new events in $T/x.db" \
        "$([ "$(bars "$T/x")" -ge 1 ] && echo yes || cat "$T/x.raw")|$(tail -n 1 "$T/x")"
tty "$T/p" "cat $T/x.export | $RUN $TQ --db $T/p.db import --export -"
check_eq progress-export-pipe "yes|0|${ESC}[Ktraceql: $((2 * N)) new events in $T/p.db" \
        "$([ "$(counts "$T/p")" -ge 1 ] && echo yes || cat "$T/p.raw")|$(bars "$T/p")|$(tail -n 1 "$T/p")"

# ---- text and binary files ---------------------------------------------
awk -v n=$N 'BEGIN { for (i = 1; i <= n; i++)
        printf "blk_worker_start worker %d nb_requests 100\n", i }' > "$T/w.log"
tty "$T/l" "$RUN $TQ --db $T/l.db import --log $T/w.log"
check_eq progress-log "yes|${ESC}[Ktraceql: $T/w.log: $N lines, $N new events, $N of them without a known event" \
        "$([ "$(bars "$T/l")" -ge 1 ] && echo yes || cat "$T/l.raw")|$(tail -n 1 "$T/l")"

if command -v python3 > /dev/null; then
        python3 -c 'import struct, sys
d = struct.pack("<QQQ", 2**64 - 1, 0xf2b177cb0aa429b4, 4) + struct.pack("<QQI", 0, 0, 8) + b"tgb_done"
for i in range(int(sys.argv[2])):
    d += struct.pack("<QQQIIQ", 1, 0, 1000 * (i + 1), 32, 42, i)
open(sys.argv[1], "wb").write(d)' "$T/s.st" $N
        tty "$T/s" "$RUN $TQ --db $T/s.db import --simpletrace $T/s.st --events $TOP/tests/simpletrace/tgroup.trace-events"
        check_eq progress-simpletrace "yes|${ESC}[Ktraceql: $N new events in $T/s.db" \
                "$([ "$(bars "$T/s")" -ge 1 ] && echo yes || cat "$T/s.raw")|$(tail -n 1 "$T/s")"
else
        skip progress-simpletrace "python3 missing"
fi
common_exit
