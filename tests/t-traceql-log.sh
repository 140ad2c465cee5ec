#!/bin/sh
# t-traceql-log.sh - traceql import --log: golden files tests/log/NAME.log, .out.
#
# Golden files: tests/syslog/NAME.log is imported (TZ=UTC, file time
# 2026-11-22 00:00 UTC for the RFC 3164 year, with examples/trace-events) and
# tests/syslog/NAME.out holds the summary or error, the exit status and the
# events table.  Then resuming, and end to end: blockdemo's syslog output goes
# to a relay rsyslogd on a unix socket that forwards over TCP to a "central"
# rsyslogd on 127.0.0.1 writing files, whose import must give the same events
# and values as the journald import of the same run.
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
golden log --log

# Standard input is read once: its last line is imported without a newline.
printf 'blk_req_complete req 0x1 ret 0\nblk_req_complete req 0x2 ret 0' |
        "$TQ" --db "$T/stdin.db" import --log - --events "$EV" 2> "$T/err"
check_eq log-stdin-last-line "traceql: <stdin>: 2 lines, 2 new events, 0 of them without a known event|1 2" \
        "$(cat "$T/err")|$("$TQ" --db "$T/stdin.db" --no-sync --format csv \
        "select group_concat(a0, ' ') from (select a0 from events order by id)" | tail -n 1)"

# Reports without a pid are summed per source, which detail names: the log
# files of two programs, and the kernel's ftrace ring-buffer losses, were one
# row before, 'tj_dropped,,,,,19,4 reports'.
printf '100@1700000000.000001:tj_dropped 3 events dropped\n' > "$T/drop-a.log"
printf '200@1700000001.000001:tj_dropped 4 events dropped\n200@1700000002.000001:tj_dropped 1 events dropped\n' \
        > "$T/drop-b.log"
printf '# tracer: nop\nCPU:1 [LOST EVENTS]\nCPU:0 [LOST 12 EVENTS]\n' > "$T/drop.trace"
for f in drop-a.log drop-b.log; do "$TQ" --db "$T/drop.db" import --log "$T/$f" 2> /dev/null; done
"$TQ" --db "$T/drop.db" import --ftrace "$T/drop.trace"
check_eq log-losses-dropped-per-source "tj_dropped,,,,,12,2 reports in source 3,|tj_dropped,,,,,3,1 report in source 1,2023-11-14T22:13:20.000001000Z|tj_dropped,,,,,5,2 reports in source 2,2023-11-14T22:13:22.000001000Z" \
        "$("$TQ" --db "$T/drop.db" --no-sync --format csv losses | tail -n +2 | paste -sd '|')"

# An event whose format has a newline inside takes the next line too; a file
# that ends before it (a writer in the middle) leaves the event for the next
# import, which has it whole.  Standard input, read once, keeps what there is.
ML=$TOP/tests/log/multiline.events
printf 'plain x 1\nnl_ev a 2\n' > "$T/cut.log"
"$TQ" --db "$T/cut.db" import --log "$T/cut.log" --events "$ML" 2> "$T/err"
check_eq log-multiline-cut "traceql: $T/cut.log: 1 line, 1 new event, 0 of them without a known event; an unfinished last event (its format goes on over more lines) is left for the next import" \
        "$(cat "$T/err")"
printf 'b 3\nplain x 4\n' >> "$T/cut.log"
"$TQ" --db "$T/cut.db" import --log "$T/cut.log" --events "$ML" 2> "$T/err"
check_eq log-multiline-resumed \
        "traceql: $T/cut.log: 3 lines, 2 new events, 0 of them without a known event|plain 1|nl_ev 2 3|plain 4" \
        "$(cat "$T/err")|$("$TQ" --db "$T/cut.db" --no-sync --format csv \
        "select trim(event || ' ' || a0 || ' ' || coalesce(a1, '')) as v from events order by id" |
        tail -n +2 | paste -sd '|')"
printf 'nl_ev a 5\nb 6\nnl_ev a 7\n' | "$TQ" --db "$T/cutin.db" import --log - --events "$ML" 2> "$T/err"
check_eq log-multiline-stdin \
        "traceql: <stdin>: 3 lines, 2 new events, 1 of them without a known event|nl_ev 5 6|nl_ev a 7" \
        "$(cat "$T/err")|$("$TQ" --db "$T/cutin.db" --no-sync --format csv \
        "select coalesce(nullif(event, '') || ' ' || a0 || ' ' || a1, message) as v from events order by id" |
        tail -n +2 | paste -sd '|')"

# An event joined from several lines holds no more than a line may (256 MiB,
# 100 bytes here), the newlines between its lines counted: a format with k
# newlines read k + 1 lines at the cap into memory.  The one of 101 bytes
# fails at its first line, the database as it was, the import resumable.
export TRACEQL_TEST_MAX_LINE=100
{ printf 'plain x 1\ntwo_nl first 1\n'; printf 'second %040d\n' 2; printf 'third %031d\n' 3; } \
        > "$T/join.log"
rc=0
"$TQ" --db "$T/join.db" import --log "$T/join.log" --events "$ML" 2> "$T/err" || rc=$?
check_eq log-multiline-at-cap \
        "0|traceql: $T/join.log: 4 lines, 2 new events, 0 of them without a known event|100" \
        "$rc|$(cat "$T/err")|$("$TQ" --db "$T/join.db" --no-sync --format csv \
        "select length(message) from events where event = 'two_nl'" | tail -n 1)"
{ printf 'two_nl first 4\n'; printf 'second %040d\n' 5; printf 'third %032d\n' 6; printf 'plain x 7\n'; } \
        >> "$T/join.log"
rc=0
"$TQ" --db "$T/join.db" import --log "$T/join.log" --events "$ML" 2> "$T/err" || rc=$?
check_eq log-multiline-too-long \
        "4|traceql: $T/join.log:5: event too long (more than 100 bytes joined from lines 5 to 7)|2" \
        "$rc|$(cat "$T/err")|$("$TQ" --db "$T/join.db" --no-sync --format csv \
        "select count(*) from events" | tail -n 1)"
rc=0
"$TQ" --db "$T/join2.db" import --log - --events "$ML" < "$T/join.log" 2> "$T/err" || rc=$?
check_eq log-multiline-too-long-stdin \
        "4|traceql: <stdin>:5: event too long (more than 100 bytes joined from lines 5 to 7)|no database" \
        "$rc|$(cat "$T/err")|$(ls "$T/join2.db"* 2> /dev/null || echo no database)"
unset TRACEQL_TEST_MAX_LINE
"$TQ" --db "$T/join.db" import --log "$T/join.log" --events "$ML" 2> "$T/err"
check_eq log-multiline-too-long-resumed \
        "traceql: $T/join.log: 4 lines, 2 new events, 0 of them without a known event|1 1 4 7" \
        "$(cat "$T/err")|$("$TQ" --db "$T/join.db" --no-sync --format csv \
        "select group_concat(a0, ' ') from (select a0 from events order by id)" | tail -n 1)"

# ---- blockdemo's own log output, with and without TJ_LOG_TIMESTAMP ----------
BD=$B/examples/blockdemo
if [ ! -x "$BD" ]; then fail log-blockdemo "$BD missing: run make examples"; exit 0; fi
for ts in 0 1; do
        TJ_OUTPUT=log TJ_LOG_TIMESTAMP=$ts $RUN "$BD" --threads 3 --requests 200 --trace '*' \
                > /dev/null 2> "$T/bd$ts.log"
        rm -f "$T/bd.db"
        "$TQ" --db "$T/bd.db" import --log "$T/bd$ts.log" --events "$EV" 2> "$T/err"
        check_eq "log-blockdemo-ts$ts-summary" \
                "traceql: $T/bd$ts.log: 832 lines, 832 new events, 0 of them without a known event" \
                "$(cat "$T/err")"
        # request i: sector i * 64, fails when i % 10 == 9 (see t-example.sh)
        check_eq "log-blockdemo-ts$ts-values" "200|1273600|20|-100|20|$((ts * 832))" \
                "$("$TQ" --db "$T/bd.db" --no-sync --format csv "select
                (select count(*) from blk_req_submit) || '|' || (select sum(sector) from blk_req_submit)
                || '|' || (select count(*) from blk_req_error) || '|' ||
                (select sum(ret) from blk_req_complete where ret < 0) || '|' ||
                (select count(*) from blk_req_error where reason = 'medium error') || '|' ||
                (select count(*) from events where tid > 0 and time > 0) as v" | tail -n +2)"
done

# --events files are one list, as tracegen reads a group's: a name declared
# twice (here the same file given twice) fails at its second declaration,
# nothing imported (traceql.1 said a later declaration wins).
ev=$TOP/examples/trace-events
line=$(grep -n '^blk_dev_open' "$ev" | head -1 | cut -d: -f1)
rc=0
"$TQ" --db "$T/twice.db" import --log "$TOP/tests/log/ours.log" --events "$ev" --events "$ev" \
        2> "$T/err" || rc=$?
check_eq log-events-declared-twice "4|traceql: $ev:$line:1: duplicate event 'blk_dev_open' (first defined at $ev:$line)|no database" \
        "$rc|$(cat "$T/err")|$(ls "$T/twice.db"* 2> /dev/null || echo no database)"

# Standard input keeps no position and a log line no identity: the same
# stream fed twice is stored twice (traceql.1 says so), where the same file
# imported twice is stored once.
printf 'plain x 5\n' > "$T/twice.log"
for k in 1 2; do
        "$TQ" --db "$T/stdin2.db" import --log - --events "$ML" < "$T/twice.log" 2> /dev/null
        "$TQ" --db "$T/file2.db" import --log "$T/twice.log" --events "$ML" 2> /dev/null
done
check_eq log-stdin-twice-stored-twice "2|1" \
        "$("$TQ" --db "$T/stdin2.db" --no-sync --format csv 'select count(*) from events' | tail -1)|$("$TQ" --db "$T/file2.db" --no-sync --format csv 'select count(*) from events' | tail -1)"
