#!/bin/sh
# t-traceql-syslog.sh - traceql import --syslog.
#
# Golden files: tests/syslog/NAME.log is imported (TZ=UTC, file time
# 2026-11-22 00:00 UTC for the RFC 3164 year, with examples/trace-events and
# NAME.events when there is one) and
# tests/syslog/NAME.out holds the summary or error, the exit status and the
# events table; tests/syslog/syslog-ng-*.log are real syslog-ng 3.38 files
# (tests/syslog/README, tests/syslog/syslog-ng.conf), as syslog-ng cannot be
# installed beside rsyslog.  Then resuming, and end to end: blockdemo's
# syslog output goes to a relay rsyslogd on a unix socket that forwards over
# TCP to a "central" rsyslogd on 127.0.0.1 writing files, whose import must
# give the same events and values as the journald import of the same run.
# TRACEQL_UPDATE_GOLDEN=1 rewrites the .out files instead of comparing.
. "$(dirname "$0")/lib/common.sh"

TQ=$B/traceql
EV=$TOP/examples/trace-events
if [ ! -x "$TQ" ]; then fail traceql-built "$TQ missing: run make"; exit 0; fi
export TZ=UTC

# golden DIR OPTION: every DIR/*.log against DIR/*.out
golden() {
        for log in "$TOP"/tests/$1/*.log; do
                name=$(basename "$log" .log)
                cp "$log" "$T/$name.log"
                touch -d '2026-11-22 00:00:00 UTC' "$T/$name.log"
                rm -f "$T/g.db"
                rc=0
                set -- "$1" "$2" --events "$EV"
                if [ -f "$TOP/tests/$1/$name.events" ]; then
                        set -- "$@" --events "$TOP/tests/$1/$name.events"
                fi
                (cd "$T" && $RUN "$TQ" --db g.db import "$2" "$name.log" "$3" "$4" ${5:+"$5" "$6"}) \
                        > "$T/out" 2>&1 || rc=$?
                echo "exit $rc" >> "$T/out"
                # a failed import leaves no database where there was none
                if [ -e "$T/g.db" ]; then
                        "$TQ" --db "$T/g.db" --no-sync --format csv \
                                "select event, time, host, pid, tid, seq, identifier, quote(a0),
                                        quote(a1), quote(a2), quote(a3), message from events
                                        order by id" >> "$T/out" 2>&1 || true
                else
                        echo "no database" >> "$T/out"
                fi
                if [ "${TRACEQL_UPDATE_GOLDEN:-}" = 1 ]; then
                        cp "$T/out" "$TOP/tests/$1/$name.out"
                fi
                check_file "$1-golden-$name" "$TOP/tests/$1/$name.out" "$T/out"
        done
}
golden syslog --syslog

# syslog_losses DB FILE: FILE imported into a new DB, then the rows of
# traceql losses (no header), '|' between them
syslog_losses() {
        "$TQ" --db "$1" import --syslog "$2" 2>/dev/null
        "$TQ" --db "$1" --no-sync --format csv losses | tail -n +2 | paste -sd '|'
}

# ---- resuming: appended lines are imported once ----------------------------
printf '<30>Nov 21 10:00:00 h app[1]: blk_req_complete req 0x1 ret 0\n' > "$T/r.log"
"$TQ" --db "$T/r.db" import --syslog "$T/r.log" --events "$EV" 2>/dev/null
printf '<30>Nov 21 10:00:01 h app[1]: blk_req_complete req 0x2 ret 0\n<30>Nov 21 10:00:02 h app' >> "$T/r.log"
"$TQ" --db "$T/r.db" import --syslog "$T/r.log" --events "$EV" 2> "$T/err"
check_eq syslog-resume-summary "traceql: $T/r.log: 1 line, 1 new event, 0 of them without a known event; an unfinished last line is left for the next import" "$(cat "$T/err")"
printf '[2]: blk_req_complete req 0x3 ret 0\n' >> "$T/r.log"
"$TQ" --db "$T/r.db" import --syslog "$T/r.log" --events "$EV" 2>/dev/null
"$TQ" --db "$T/r.db" import --syslog "$T/r.log" --events "$EV" 2>/dev/null
check_eq syslog-resume-rows "1:1|1:2|2:3" "$("$TQ" --db "$T/r.db" --no-sync --format csv \
        "select group_concat(pid || ':' || a0, '|') from (select * from events order by id)" | tail -n +2)"
# Standard input: no offset to resume from, RFC 3164 years from the time now.
printf 'Jan  2 03:04:05 h app[9]: blk_req_complete req 0x9 ret 0\n' |
        "$TQ" --db "$T/stdin.db" import --syslog - --events "$EV" 2> "$T/err"
check_eq syslog-stdin "traceql: <stdin>: 1 line, 1 new event, 0 of them without a known event|-||9" \
        "$(cat "$T/err")|$("$TQ" --db "$T/stdin.db" --no-sync --format csv \
        "select (select location || '|' || ifnull(offset, '') from sources) || '|' || pid as v
         from events" | tail -n +2)"
# --events - reads the trace-events file from standard input ("-" was opened
# as a file); not when standard input is the trace: a usage error, nothing
# imported.
printf 'Jan  2 03:04:05 h app[9]: blk_req_complete req 0x9 ret 0\n' > "$T/ev.log"
"$TQ" --db "$T/ev.db" import --syslog "$T/ev.log" --events - < "$EV" 2> "$T/err"
check_eq syslog-events-stdin "traceql: $T/ev.log: 1 line, 1 new event, 0 of them without a known event|9" \
        "$(cat "$T/err")|$("$TQ" --db "$T/ev.db" --no-sync --format csv "select a0 from events" | tail -n +2)"
for src in syslog log; do
        rc=0
        "$TQ" --db "$T/ev2.db" import --$src - --events - < "$T/ev.log" 2> "$T/err" || rc=$?
        check_eq $src-events-stdin-is-trace "2|traceql: --events -: standard input is the trace (--$src -)|no database" \
                "$rc|$(cat "$T/err")|$([ -e "$T/ev2.db" ] && echo database || echo no database)"
done
# ... and its last line without a newline is imported: nothing comes after it.
printf 'Jan  2 03:04:05 h app[9]: blk_req_complete req 0x9 ret 0\nJan  2 03:04:06 h app[9]: blk_req_complete req 0xa ret 0' |
        "$TQ" --db "$T/stdin2.db" import --syslog - --events "$EV" 2> "$T/err"
check_eq syslog-stdin-last-line "traceql: <stdin>: 2 lines, 2 new events, 0 of them without a known event|9 10" \
        "$(cat "$T/err")|$("$TQ" --db "$T/stdin2.db" --no-sync --format csv \
        "select group_concat(a0, ' ') from (select a0 from events order by id)" | tail -n 1)"
# A file replaced by a longer one (emptied and written again, as by a
# rotation with copytruncate, or a new file under the name) is imported from
# its start, saying so; then resumed as before.
line() { printf '<30>Nov 21 10:00:0%d h app[1]: blk_req_complete req 0x%d ret 0\n' "$1" "$1"; }
{ line 1; line 2; } > "$T/rot.log"
"$TQ" --db "$T/rot.db" import --syslog "$T/rot.log" --events "$EV" 2>/dev/null
: > "$T/rot.log"
{ line 3; line 4; line 5; line 6; } >> "$T/rot.log"
"$TQ" --db "$T/rot.db" import --syslog "$T/rot.log" --events "$EV" 2> "$T/err"
line 7 >> "$T/rot.log"
"$TQ" --db "$T/rot.db" import --syslog "$T/rot.log" --events "$EV" 2>> "$T/err"
check_eq syslog-replaced-file "traceql: $T/rot.log: not the file imported before (replaced or rotated): importing it from the start
traceql: $T/rot.log: 4 lines, 4 new events, 0 of them without a known event
traceql: $T/rot.log: 1 line, 1 new event, 0 of them without a known event|1 2 3 4 5 6 7" \
        "$(cat "$T/err")|$("$TQ" --db "$T/rot.db" --no-sync --format csv \
        "select group_concat(a0, ' ') from (select a0 from events order by id)" | tail -n 1)"
# A file now shorter than the offset: the same, said so.
line 8 > "$T/rot.log"
"$TQ" --db "$T/rot.db" import --syslog "$T/rot.log" --events "$EV" 2> "$T/err"
check_eq syslog-truncated-file "traceql: $T/rot.log: not the file imported before (truncated or replaced): importing it from the start
traceql: $T/rot.log: 1 line, 1 new event, 0 of them without a known event" "$(cat "$T/err")"
# logrotate renames y.log to y.log.1 (written to after the last import) and
# starts a new y.log: y.log.1 resumes where y.log stopped, in either order of
# the two imports, and a second rotation (y.log.1 to y.log.2) alike; no row
# is stored twice.
for order in old-first new-first; do
        rm -f "$T"/y.log* "$T"/y.db*
        { line 1; line 2; } > "$T/y.log"
        "$TQ" --db "$T/y.db" import --syslog "$T/y.log" --events "$EV" 2>/dev/null
        line 3 >> "$T/y.log"
        mv "$T/y.log" "$T/y.log.1"
        { line 4; line 5; } > "$T/y.log"
        if [ $order = old-first ]; then
                "$TQ" --db "$T/y.db" import --syslog "$T/y.log.1" --events "$EV" 2> "$T/err"
                "$TQ" --db "$T/y.db" import --syslog "$T/y.log" --events "$EV" 2>> "$T/err"
        else
                "$TQ" --db "$T/y.db" import --syslog "$T/y.log" --events "$EV" 2> "$T/err"
                "$TQ" --db "$T/y.db" import --syslog "$T/y.log.1" --events "$EV" 2>> "$T/err"
        fi
        line 6 >> "$T/y.log"
        mv "$T/y.log.1" "$T/y.log.2"
        mv "$T/y.log" "$T/y.log.1"
        line 7 > "$T/y.log"
        for f in y.log.2 y.log.1 y.log; do
                "$TQ" --db "$T/y.db" import --syslog "$T/$f" --events "$EV" 2>> "$T/err"
        done
        echo "$("$TQ" --db "$T/y.db" --no-sync --format csv \
                "select group_concat(a0, ' ') from (select a0 from events order by id)" |
                tail -n 1)" >> "$T/err"
        cp "$T/err" "$T/err.$order"
done
check_eq syslog-rotated-old-first "traceql: $T/y.log.1: the file imported before as $T/y.log (renamed): resuming at byte 122
traceql: $T/y.log.1: 1 line, 1 new event, 0 of them without a known event
traceql: $T/y.log: not the file imported before (replaced or rotated): importing it from the start
traceql: $T/y.log: 2 lines, 2 new events, 0 of them without a known event
traceql: $T/y.log.2: the file imported before as $T/y.log.1 (renamed): resuming at byte 183
traceql: $T/y.log.2: 0 lines, 0 new events, 0 of them without a known event
traceql: $T/y.log.1: the file imported before as $T/y.log (renamed): resuming at byte 122
traceql: $T/y.log.1: 1 line, 1 new event, 0 of them without a known event
traceql: $T/y.log: not the file imported before (truncated or replaced): importing it from the start
traceql: $T/y.log: 1 line, 1 new event, 0 of them without a known event
1 2 3 4 5 6 7" "$(cat "$T/err.old-first")"
check_eq syslog-rotated-new-first "traceql: $T/y.log: not the file imported before (replaced or rotated): importing it from the start
traceql: $T/y.log: 2 lines, 2 new events, 0 of them without a known event
traceql: $T/y.log.1: the file imported before as $T/y.log (renamed): resuming at byte 122
traceql: $T/y.log.1: 1 line, 1 new event, 0 of them without a known event
traceql: $T/y.log.2: the file imported before as $T/y.log.1 (renamed): resuming at byte 183
traceql: $T/y.log.2: 0 lines, 0 new events, 0 of them without a known event
traceql: $T/y.log.1: the file imported before as $T/y.log (renamed): resuming at byte 122
traceql: $T/y.log.1: 1 line, 1 new event, 0 of them without a known event
traceql: $T/y.log: not the file imported before (truncated or replaced): importing it from the start
traceql: $T/y.log: 1 line, 1 new event, 0 of them without a known event
1 2 4 5 3 6 7" "$(cat "$T/err.new-first")"
# A file that begins as one imported before which is still there (a copy,
# or another run's log that begins alike) is imported whole: its lines were
# never imported, whatever they look like.
{ line 1; line 2; } > "$T/run1.log"
{ line 1; line 2; line 3; } > "$T/run2.log"
"$TQ" --db "$T/runs.db" import --syslog "$T/run1.log" --events "$EV" 2>/dev/null
"$TQ" --db "$T/runs.db" import --syslog "$T/run2.log" --events "$EV" 2> "$T/err"
check_eq syslog-alike-not-renamed "traceql: $T/run2.log: 3 lines, 3 new events, 0 of them without a known event|5" \
        "$(cat "$T/err")|$("$TQ" --db "$T/runs.db" --no-sync --format csv 'select count(*) from events' | tail -n 1)"
# A named pipe is read once, from its start, as standard input is: it keeps
# no offset, so a regular file put at its path later is imported whole.
mkfifo "$T/pipe.log"
{ line 1; line 2; } > "$T/pipe.log" &
"$TQ" --db "$T/pipe.db" import --syslog "$T/pipe.log" --events "$EV" 2>/dev/null
wait
rm "$T/pipe.log"
{ line 3; line 4; line 5; } > "$T/pipe.log"
"$TQ" --db "$T/pipe.db" import --syslog "$T/pipe.log" --events "$EV" 2>/dev/null
check_eq syslog-fifo-then-file "1 2 3 4 5" "$("$TQ" --db "$T/pipe.db" --no-sync --format csv \
        "select group_concat(req, ' ') from (select req from blk_req_complete order by id)" |
        tail -n 1)"
# The replaced file's source keeps its rows under filter 'replaced ID'.
check_eq syslog-rotated-sources "replaced 1|replaced 2|replaced 3|\"\"|\"\"|\"\"|" \
        "$("$TQ" --db "$T/y.db" --no-sync --format csv "select filter from sources order by id" |
           tail -n +2 | tr '\n' '|')"
# A bad line imports nothing, and the next import starts at the same place.
printf 'garbage\n' >> "$T/r.log"
rc=0
"$TQ" --db "$T/r.db" import --syslog "$T/r.log" 2> "$T/err" || rc=$?
check_eq syslog-bad-line "4|traceql: $T/r.log:4: not a syslog line (no timestamp)" "$rc|$(cat "$T/err")"
rc=0
"$TQ" --db "$T/r.db" import --syslog "$T/r.log" --events "$T/nosuch" 2> "$T/err" || rc=$?
check_eq syslog-no-events-file "4|traceql: $T/nosuch: No such file or directory" "$rc|$(cat "$T/err")"
printf 'foo(int x) "x %%q"\n' > "$T/bad-events"
rc=0
"$TQ" --db "$T/r.db" import --syslog "$T/r.log" --events "$T/bad-events" 2> "$T/err" || rc=$?
check_eq syslog-bad-events-file "4|traceql: $T/bad-events:1:16: length modifier 'q' is not supported" "$rc|$(cat "$T/err")"
rc=0
"$TQ" --db "$T/r.db" import --syslog "$T/r.log" --follow 2> "$T/err" || rc=$?
check_eq syslog-usage "2|traceql: --syslog takes no other source, filter or --follow" "$rc|$(cat "$T/err")"
rc=0
"$TQ" --db "$T/r.db" import --events "$EV" 2> "$T/err" || rc=$?
check_eq syslog-events-alone "2|traceql: --events goes with --syslog, --log, --simpletrace or --ftrace" "$rc|$(cat "$T/err")"
# journald rate-limits what reaches it on /dev/log, the syslog output's
# events too, and forwards its own "Suppressed N messages from UNIT" to
# syslog with the rest; when the syslog daemon cannot keep up, it says
# "Forwarding to syslog missed N messages."  In a syslog file both are
# lines of systemd-journald, and losses reports them (they were rows of
# event '' and losses said nothing).  Anybody may log under that tag: a
# line of another identifier, or another text, does not count.
printf '%s\n' \
        '2026-11-21T17:13:11.000001+00:00 h1 qemu-trace[42]: some text' \
        '2026-11-21T17:13:12.000000+00:00 h1 systemd-journald[312]: Suppressed 250 messages from qemu.service' \
        '2026-11-21T17:13:13.000000+00:00 h1 systemd-journald[312]: Forwarding to syslog missed 17 messages.' \
        '2026-11-21T17:13:14.000000+00:00 h1 journald[313]: Suppressed 9 messages from x.service' \
        '2026-11-21T17:13:15.000000+00:00 h1 systemd-journald[312]: Suppressed many messages' \
        > "$T/supp.log"
check_eq syslog-losses-journald "journald_suppressed,,h1,,,250,Suppressed 250 messages from qemu.service,2026-11-21T17:13:12.000000000Z|syslog_missed,,h1,,,17,Forwarding to syslog missed 17 messages.,2026-11-21T17:13:13.000000000Z" \
        "$(syslog_losses "$T/supp.db" "$T/supp.log")"
# rsyslog's own rate limiting (runtime/ratelimit.c tellLostCnt()): a line
# of rsyslogd, "NAME: N messages lost due to rate-limiting", in newer
# versions followed by "(B allowed within I seconds)" (8.2302's format), and
# maybe by rsyslog's "[v8... try https://www.rsyslog.com/e/2177 ]"; in older
# versions (RHEL 7's, for one) the tag was rsyslogd-2177.
# NAME is the input (imuxsock[pid: 42, name: ...], imjournal), which may
# hold ': ' and digits itself.  Another tag or text does not count.
printf '%s\n' \
        '2026-11-21T17:13:11.000000+00:00 h1 rsyslogd: imuxsock[pid: 42, name: /usr/bin/qemu-trace]: 48814 messages lost due to rate-limiting (200 allowed within 5 seconds) [v8.2302.0 try https://www.rsyslog.com/e/2177 ]' \
        '2026-11-21T17:13:12.000000+00:00 h1 rsyslogd-2177: imjournal: 236 messages lost due to rate-limiting' \
        '2026-11-21T17:13:13.000000+00:00 h1 rsyslogd: imuxsock[pid: 42, name: /usr/bin/qemu-trace] from <h1:qemu-trace>: begin to drop messages due to rate-limiting' \
        '2026-11-21T17:13:14.000000+00:00 h1 qemu-trace[42]: imjournal: 7 messages lost due to rate-limiting' \
        > "$T/rl.log"
check_eq syslog-losses-rsyslog "rsyslog_lost,,h1,,,48814,\"imuxsock[pid: 42, name: /usr/bin/qemu-trace]: 48814 messages lost due to rate-limiting (200 allowed within 5 seconds) [v8.2302.0 try https://www.rsyslog.com/e/2177 ]\",2026-11-21T17:13:11.000000000Z|rsyslog_lost,,h1,,,236,imjournal: 236 messages lost due to rate-limiting,2026-11-21T17:13:12.000000000Z" \
        "$(syslog_losses "$T/rl.db" "$T/rl.log")"

# A structured-data seq or line that is no number: the row is stored, its
# column NULL, and the import's note names the first by file and line, the
# whole file's line when it resumed, <stdin> for standard input.
printf '<30>1 2026-11-21T17:13:11Z h blockdemo 1 - [tj@32473 event="ev" seq="1" arg_a="5"] ev a 5\n<30>1 2026-11-21T17:13:12Z h blockdemo 1 - [tj@32473 event="ev" seq="x2" arg_a="6"] ev a 6\n' > "$T/bn.log"
"$TQ" --db "$T/bn.db" import --syslog "$T/bn.log" 2> "$T/bn.err"
printf '<30>1 2026-11-21T17:13:13Z h blockdemo 1 - [tj@32473 event="ev" seq="3" line="l4" arg_a="7"] ev a 7\n' >> "$T/bn.log"
"$TQ" --db "$T/bn.db" import --syslog "$T/bn.log" 2> "$T/bn2.err"
"$TQ" --db "$T/bn-in.db" import --syslog - < "$T/bn.log" 2> "$T/bn3.err"
check_eq syslog-bad-int-where "traceql: $T/bn.db: 1 event stored with a field that is no number, its column NULL (the first: TRACE_SEQ=x2, at $T/bn.log:2)|traceql: $T/bn.db: 1 event stored with a field that is no number, its column NULL (the first: CODE_LINE=l4, at $T/bn.log:3)|traceql: $T/bn-in.db: 2 events stored with a field that is no number, its column NULL (the first: TRACE_SEQ=x2, at <stdin>:2)|1 NULL;NULL NULL;3 NULL" \
        "$(head -1 "$T/bn.err")|$(head -1 "$T/bn2.err")|$(head -1 "$T/bn3.err")|$("$TQ" --db "$T/bn.db" --no-sync --format csv "select ifnull(seq, 'NULL') || ' ' || ifnull(code_line, 'NULL') from events order by time" | tail -n +2 | paste -sd ';')"

# The syslog output leaves a NULL string argument out: an event whose first
# line lacks one gets it in its view from the first line that has it (it
# was in an unnamed column, 'select name' an error).
printf '<30>1 2026-11-21T17:13:11Z h blockdemo 1 - [tj@32473 event="nm" seq="1" arg_dev="d0" arg_n="5"] nm\n<30>1 2026-11-21T17:13:12Z h blockdemo 1 - [tj@32473 event="nm" seq="2" arg_dev="d1" arg_name="disk0" arg_n="6"] nm\n' > "$T/nm.log"
"$TQ" --db "$T/nm.db" import --syslog "$T/nm.log"
check_eq syslog-null-string-later-named "d0 NULL 5;d1 disk0 6" \
        "$("$TQ" --db "$T/nm.db" --no-sync --format csv "select dev || ' ' || ifnull(name, 'NULL') || ' ' || n from nm order by seq" | tail -n +2 | paste -sd ';')"

# ---- end to end through two rsyslogd --------------------------------------
BD=$B/examples/blockdemo
if ! command -v rsyslogd > /dev/null; then
        fail syslog-e2e "rsyslogd missing: packaging/install-deps.sh installs rsyslog"; exit 0
fi
if [ ! -x "$BD" ]; then fail syslog-e2e "$BD missing: run make examples"; exit 0; fi
if ! have_journald; then fail syslog-e2e "no journald socket"; exit 0; fi

PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$T/relay" "$T/central"
cat > "$T/central.conf" <<EOF
global(workDirectory="$T/central")
module(load="imtcp")
input(type="imtcp" address="127.0.0.1" port="$PORT")
action(type="omfile" file="$T/central-5424.log" template="RSYSLOG_SyslogProtocol23Format")
action(type="omfile" file="$T/central-3164.log" template="RSYSLOG_TraditionalFileFormat")
action(type="omfile" file="$T/central-file.log" template="RSYSLOG_FileFormat")
EOF
cat > "$T/relay.conf" <<EOF
global(workDirectory="$T/relay")
module(load="imuxsock" SysSock.Use="off")
input(type="imuxsock" Socket="$T/log.sock" UseSpecialParser="off" RateLimit.Interval="0")
action(type="omfwd" target="127.0.0.1" port="$PORT" protocol="tcp"
       template="RSYSLOG_SyslogProtocol23Format"
       action.resumeRetryCount="-1" action.resumeInterval="1")
EOF
RS_PIDS=
stop_rsyslog() { for p in $RS_PIDS; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap 'stop_rsyslog; [ -n "${KEEP:-}" ] || common_exit' EXIT
rsyslogd -n -f "$T/central.conf" -i "$T/central.pid" > "$T/central.out" 2>&1 &
RS_PIDS="$!"
i=0
until python3 -c "import socket; socket.create_connection(('127.0.0.1', $PORT)).close()" 2>/dev/null
do
        i=$((i + 1)); [ $i -lt 100 ] || break; sleep 0.1
done
rsyslogd -n -f "$T/relay.conf" -i "$T/relay.pid" > "$T/relay.out" 2>&1 &
RS_PIDS="$RS_PIDS $!"
i=0
until [ -S "$T/log.sock" ] || [ $i -ge 100 ]; do i=$((i + 1)); sleep 0.1; done
if [ ! -S "$T/log.sock" ]; then
        fail syslog-e2e-rsyslogd "relay did not start: $(cat "$T/relay.out")"; exit 0
fi

EXPECTED=832
# RFC 5424 keeps 48 bytes of APP-NAME, rsyslog's RFC 3164 tag 32: a short,
# still unique, identifier for this run
ID="tjsl-$$-$(date +%s)"
rc=0
TJ_IDENTIFIER=$ID TJ_OUTPUT=journald,syslog TJ_SYSLOG_FORMAT=rfc5424 \
        TJ_SYSLOG_SOCKET="$T/log.sock" $RUN "$BD" --threads 3 --requests 200 --trace '*' \
        --stats > /dev/null 2> "$T/run.err" || rc=$?
check_eq syslog-e2e-run "0|blockdemo: events emitted $EXPECTED, written N, dropped 0" \
        "$rc|$(sed 's/written [0-9]*,/written N,/' "$T/run.err")"
i=0
while [ "$(cat "$T/central-3164.log" 2>/dev/null | grep -c "$ID")" -lt $EXPECTED ] &&
        [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
if [ "$(grep -c "$ID" "$T/central-3164.log" 2>/dev/null)" != $EXPECTED ]; then
        echo "    the central rsyslogd's file is short after 30 s; relay and central said:"
        sed 's/^/    relay: /' "$T/relay.out"; sed 's/^/    central: /' "$T/central.out"
fi
journalctl --sync 2>/dev/null || true
i=0
while [ "$(journalctl -q "SYSLOG_IDENTIFIER=$ID" -o cat | wc -l)" -lt $EXPECTED ] &&
        [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
stop_rsyslog
RS_PIDS=

"$TQ" --db "$T/j.db" import --identifier "$ID"
# rows: everything both sides know, in one order
ROWS="select event, pid, tid, seq, time, mono, identifier, quote(a0), quote(a1), quote(a2),
             quote(a3) from events order by pid, seq"
ARGS="select event, pid, quote(a0), quote(a1), quote(a2), quote(a3) from events
      order by event, pid, a0, a1, a2, a3"
"$TQ" --db "$T/j.db" --no-sync --format csv "$ROWS" > "$T/j.rows"
"$TQ" --db "$T/j.db" --no-sync --format csv "$ARGS" > "$T/j.args"
check_eq syslog-e2e-journal-rows "$((EXPECTED + 1))" "$(wc -l < "$T/j.rows")"
for f in 5424 3164 file; do
        grep "$ID" "$T/central-$f.log" > "$T/c-$f.log" || true
        "$TQ" --db "$T/s-$f.db" import --syslog "$T/c-$f.log" --events "$EV" 2> "$T/s-$f.err"
        check_eq "syslog-e2e-$f-summary" \
                "traceql: $T/c-$f.log: $EXPECTED lines, $EXPECTED new events, 0 of them without a known event" \
                "$(cat "$T/s-$f.err")"
        "$TQ" --db "$T/s-$f.db" --no-sync --format csv "$ARGS" > "$T/s-$f.args"
        check_file "syslog-e2e-$f-same-events-and-values" "$T/j.args" "$T/s-$f.args"
done
"$TQ" --db "$T/s-5424.db" --no-sync --format csv "$ROWS" > "$T/s-5424.rows"
check_file syslog-e2e-5424-same-rows "$T/j.rows" "$T/s-5424.rows"
# Without trace-events files, RFC 5424 still gives every event and value.
"$TQ" --db "$T/n.db" import --syslog "$T/c-5424.log" 2>/dev/null
"$TQ" --db "$T/n.db" --no-sync --format csv "$ARGS" > "$T/n.args"
check_file syslog-e2e-5424-without-events-file "$T/j.args" "$T/n.args"
