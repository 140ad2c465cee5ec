#!/bin/sh
# t-traceql.sh - traceql end to end against the real journald.
#
# Hand-made entries (tests/traceql_send.c, every argument kind, the extreme
# 64-bit values, strings holding a newline, '=' and NUL, a name colliding with
# a built-in table) go into journald under this run's own SYSLOG_IDENTIFIER and
# are imported with --identifier; the stored values, views and types are
# checked exactly.  Then: import twice (no duplicates), the same entries
# through `journalctl -o export` (same rows, no duplicates across sources),
# SIGKILL in the middle of an import then resume (same rows as a clean one),
# --follow, and the example program blockdemo (every row agrees with the
# MESSAGE the library rendered).
. "$(dirname "$0")/lib/common.sh"

TQ=$B/traceql
if [ ! -x "$TQ" ]; then fail traceql-built "$TQ missing: run make"; exit 0; fi
if ! have_journald; then fail traceql-journald "no journald socket"; exit 0; fi
cc -Wall -Wextra -Werror -o "$T/send" "$TOP/tests/traceql_send.c" \
        $(pkg-config --cflags --libs libsystemd)
ID=$TJ_TEST_ID
DB=$T/t.db

# wait_entries IDENT N: until journald has N entries of IDENT readable
wait_entries() {
        journalctl --sync 2>/dev/null || true
        i=0
        while [ "$(journalctl -q -o export "SYSLOG_IDENTIFIER=$1" | grep -c '^__CURSOR=')" -lt "$2" ] &&
                [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
}
# q DB SQL: csv output, no sync
q() { $RUN "$TQ" --db "$1" --no-sync --format csv "$2" > "$T/q.out" && tail -n +2 "$T/q.out"; }

# ---- hand-made entries -------------------------------------------------
C="SYSLOG_IDENTIFIER=$ID	TRACE_GROUP=tq	CODE_FILE=t.c	CODE_LINE=12	CODE_FUNC=f	TID=77"
S="TRACE_ARGS=s64:i u64:u ptr:p str:s"
{
printf '%s\tTRACE_EVENT=tq_types\t%s\tTRACE_SEQ=1\tTRACE_TIME_NS=1700000000000000001\tTRACE_MONO_NS=11\tTRACE_ARG_S64=-9223372036854775808\tTRACE_ARG_U64=18446744073709551615\tTRACE_ARG_PTR=0xffffffffffffffff\tTRACE_ARG_STR=a\\nb=c\tMESSAGE=tq_types one\n' "$C" "$S"
printf '%s\tTRACE_EVENT=tq_types\t%s\tTRACE_SEQ=2\tTRACE_TIME_NS=1700000000000000002\tTRACE_MONO_NS=12\tTRACE_ARG_S64=-1\tTRACE_ARG_U64=9223372036854775808\tTRACE_ARG_PTR=0x0\tMESSAGE=tq_types null string\n' "$C" "$S"
printf '%s\tTRACE_EVENT=events\tTRACE_ARGS=pid:i\tTRACE_SEQ=3\tTRACE_TIME_NS=1700000000000000003\tTRACE_ARG_PID=42\tMESSAGE=events pid 42\n' "$C"
printf '%s\tTRACE_EVENT=tq_types\t%s\tTRACE_SEQ=5\tTRACE_TIME_NS=1700000000000000005\tTRACE_ARG_S64=9223372036854775807\tTRACE_ARG_U64=0\tTRACE_ARG_PTR=0x7f0012345678\tTRACE_ARG_STR=x\\0y\tMESSAGE=tq_types nul\n' "$C" "$S"
printf '%s\tTRACE_EVENT=tj_dropped\tTRACE_SEQ=6\tTRACE_TIME_NS=1700000000000000006\tTRACE_DROPPED=7\tMESSAGE=tj_dropped 7\n' "$C"
printf 'SYSLOG_IDENTIFIER=%s\tMESSAGE=not a trace event\n' "$ID"
} > "$T/entries"
"$T/send" < "$T/entries"
wait_entries "$ID" 6

rc=0
$RUN "$TQ" --db "$DB" import --identifier "$ID" > "$T/out" 2> "$T/err" || rc=$?
check_eq traceql-import-status "0||" "$rc|$(cat "$T/out")|$(cat "$T/err")"
check_eq traceql-import-count "5" "$(q "$DB" 'select count(*) from events')"

cat > "$T/exp" <<'X'
1,-9223372036854775808,18446744073709551615,0xffffffffffffffff,"a
b=c",integer,integer,integer,text
2,-1,9223372036854775808,0x0,,integer,integer,integer,null
5,9223372036854775807,0,0x7f0012345678,780079,integer,integer,integer,text
X
q "$DB" "select seq, s64, u64(u64) as u64, ptr(ptr) as ptr,
        case when seq = 5 then hex(str) else str end as str,
        typeof(s64) t0, typeof(u64) t1, typeof(ptr) t2, typeof(str) t3
        from tq_types order by seq" > "$T/got"
check_file traceql-view-values "$T/exp" "$T/got"

check_eq traceql-u64-compare "1|1|2|1" "$(q "$DB" "select
        (select count(*) from tq_types where u64 = 0xffffffffffffffff) || '|' ||
        (select count(*) from tq_types where ptr = 0xffffffffffffffff) || '|' ||
        (select count(*) from tq_types a join tq_types b on a.u64 = b.ptr) || '|' ||
        (select count(*) from tq_types where u64 = -1) as v")"

check_eq traceql-common-columns "tq|qemu|12|f|77|1700000000000000001|11|$ID" \
        "$(q "$DB" "select \"group\" || '|' || 'qemu' || '|' || code_line || '|' || code_func || '|' ||
                tid || '|' || time || '|' || mono || '|' || identifier as v from tq_types where seq = 1")"
check_eq traceql-host-boot-pid "1|1|1" "$(q "$DB" "select (host = '$(hostname)') || '|' ||
        (boot = '$(cat /proc/sys/kernel/random/boot_id | tr -d -)') || '|' ||
        (pid > 0) as v from tq_types limit 1")"

check_eq traceql-view-collision "event_events|42|1" "$(q "$DB" "select (select view from event_types
        where name = 'events') || '|' || pid || '|' || (ev_pid > 0) as v from event_events")"
# Names that collide twice, or are reserved, and argument names that collide
# in the view: args (event_args is a table) gets event_args_2, Args then
# event_Args_3; tq_leaks (leaks --write saves a table of that name) gets
# event_tq_leaks, and leaks --write still works; arguments time, ev_time and
# Time get time, ev_time_1, Time_2 (the common column time is ev_time).
printf '__CURSOR=s=1;i=1;b=x\nTRACE_EVENT=args\nTRACE_ARGS=p:p\nTRACE_ARG_P=0x10\nMESSAGE=m\n\n__CURSOR=s=1;i=2;b=x\nTRACE_EVENT=Args\nTRACE_ARGS=p:p\nTRACE_ARG_P=0x20\nMESSAGE=m\n\n__CURSOR=s=1;i=3;b=x\nTRACE_EVENT=tq_leaks\nTRACE_ARGS=p:p\nTRACE_ARG_P=0x30\nMESSAGE=m\n\n__CURSOR=s=1;i=4;b=x\nTRACE_EVENT=cols\nTRACE_ARGS=time:i ev_time:i Time:i\nTRACE_ARG_TIME=4\nTRACE_ARG_EV_TIME=5\nMESSAGE=m\n\n' > "$T/names.export"
$RUN "$TQ" --db "$T/names.db" import --export "$T/names.export"
check_eq traceql-view-names "Args event_Args_3|args event_args_2|cols cols|tq_leaks event_tq_leaks" \
        "$(q "$T/names.db" "select name || ' ' || view from event_types order by name" | paste -sd '|')"
check_eq traceql-view-columns "time ev_time_1 Time_2|4 5 4" "$(q "$T/names.db" "select
        (select group_concat(name, ' ') from event_args where event = 'cols') || '|' ||
        time || ' ' || ev_time_1 || ' ' || Time_2 as v from cols")"
# An event or argument named as an SQL keyword keeps its name, quoted in SQL.
printf '__CURSOR=s=4;i=1;b=x\nTRACE_EVENT=order\nTRACE_ARGS=index:i group:s\nTRACE_ARG_INDEX=3\nTRACE_ARG_GROUP=g\nMESSAGE=m\n\n' > "$T/kw.export"
$RUN "$TQ" --db "$T/kw.db" import --export "$T/kw.export"
check_eq traceql-view-keywords "order|3|g" "$(q "$T/kw.db" "select
        (select view from event_types where name = 'order') || '|' || \"index\" || '|' ||
        \"group\" as v from \"order\"")"
# A column renamed (a<pos> for a name that is no identifier, _<pos> after a
# name taken) holds its own argument, not that of an argument whose name it
# now is: 1b at position 1 is a1, the a1 after it a1_2.
printf '__CURSOR=s=3;i=1;b=x\nTRACE_EVENT=ren\nTRACE_ARGS=a0:i 1b:i a1:i\nTRACE_ARG_A0=5\nTRACE_ARG_1B=6\nTRACE_ARG_A1=7\nMESSAGE=m\n\n' > "$T/ren.export"
$RUN "$TQ" --db "$T/ren.db" import --export "$T/ren.export"
check_eq traceql-view-renamed-columns "a0 a1 a1_2|5 6 7" "$(q "$T/ren.db" "select
        (select group_concat(name, ' ') from event_args where event = 'ren') || '|' ||
        a0 || ' ' || a1 || ' ' || a1_2 as v from ren")"
rc=0
$TQ --db "$T/names.db" --no-sync --write --format csv leaks --alloc tq_leaks:p --free args:p > /dev/null 2> "$T/err" || rc=$?
check_eq traceql-view-tq-leaks-write "9|1" "$rc|$(q "$T/names.db" 'select count(*) from tq_leaks')"
# An event name that begins with a digit (QEMU's tracetool takes \w+) gets
# the view event_<name>, which SQL takes unquoted, and event_<name>_2 when an
# event of that name came first; it had no view before.
printf '__CURSOR=s=2;i=1;b=x\nTRACE_EVENT=event_2d\nTRACE_ARGS=p:p\nTRACE_ARG_P=0x10\nMESSAGE=m\n\n__CURSOR=s=2;i=2;b=x\nTRACE_EVENT=1foo\nTRACE_ARGS=x:i\nTRACE_ARG_X=-7\nMESSAGE=1foo x -7\n\n__CURSOR=s=2;i=3;b=x\nTRACE_EVENT=2d\nTRACE_ARGS=\nMESSAGE=2d\n\n' > "$T/digit.export"
$RUN "$TQ" --db "$T/digit.db" import --export "$T/digit.export"
check_eq traceql-view-digit-names "1foo event_1foo|2d event_2d_2|event_2d event_2d" \
        "$(q "$T/digit.db" "select name || ' ' || view from event_types order by name" | paste -sd '|')"
check_eq traceql-view-digit-columns "-7|1foo x -7|1" "$(q "$T/digit.db" "select x || '|' || message ||
        '|' || (select count(*) from event_2d_2) as v from event_1foo")"
check_eq traceql-view-digit-events '1foo,1,x|2d,1,""|event_2d,1,p' \
        "$($TQ --db "$T/digit.db" --no-sync events | tail -n +2 | cut -d, -f1,2,5 | paste -sd '|' -)"
check_eq traceql-tj-dropped "dropped:u|7" "$(q "$DB" "select signature || '|' ||
        (select dropped from tj_dropped) as v from event_types where name = 'tj_dropped'")"
cat > "$T/exp" <<X
kind,boot,host,pid,identifier,lost,detail
seq_gap,1,1,1,$ID,1,seq 4..4
tj_dropped,1,1,1,$ID,7,1 report
X
$RUN "$TQ" --db "$DB" --no-sync --format csv losses > "$T/got.full"
awk -F, -v OFS=, -v h="$(hostname)" 'NR == 1 { print $1, $2, $3, $4, $5, $6, $7; next }
        $1 != "journald_suppressed" { print $1, ($2 != ""), ($3 == h), ($4 > 0), $5, $6, $7 }' \
        "$T/got.full" > "$T/got"
check_file traceql-losses "$T/exp" "$T/got"
# A pid reused within a boot: run one of prog a has 1 2 3 5 6, then run two
# of prog a has 1..8 (its clock later), and prog b, with the same pid, has
# 1 2 4.  Runs are told apart (a number seen again), so run two does not
# fill run one's gap; b's gap is its own.  Run two's 3 is stamped before its
# 2 (a thread preempted between taking its number and reading the clock):
# no new run, no gap.
awk 'function e(id, seq, t) { printf "__CURSOR=s=77776666555544443333222211110000;i=%x;b=x\n_BOOT_ID=bb\n_PID=100\nSYSLOG_IDENTIFIER=%s\nTRACE_EVENT=ev\nTRACE_SEQ=%d\nTRACE_TIME_NS=%d\nMESSAGE=ev\n\n", ++n, id, seq, t }
BEGIN { split("1 2 3 5 6", a, " "); for (i = 1; i <= 5; i++) e("a", a[i], 1000 + i)
        split("1 3 2 4 5 6 7 8", b, " "); for (i = 1; i <= 8; i++) e("a", b[i], 2000 + i)
        split("1 2 4", c, " "); for (i = 1; i <= 3; i++) e("b", c[i], 1500 + i) }' > "$T/reuse.export"
$RUN "$TQ" --db "$T/reuse.db" import --export "$T/reuse.export"
check_eq traceql-losses-pid-reused "seq_gap,bb,,100,a,1,seq 4..4|seq_gap,bb,,100,b,1,seq 3..3" \
        "$($TQ --db "$T/reuse.db" --no-sync --format csv losses | tail -n +2 | cut -d, -f1-7 | paste -sd '|')"
# A tj_dropped report (no TRACE_SEQ) counts for the run of the events before
# it in time order: pid 100 dropped 2 in its first run, 5 in its second (one
# row of 7 and 3 reports before).
awk 'function e(seq, t) { printf "__CURSOR=s=55554444333322221111000077776666;i=%x;b=x\n_BOOT_ID=bb\n_PID=100\nSYSLOG_IDENTIFIER=a\nTRACE_EVENT=ev\nTRACE_SEQ=%d\nTRACE_TIME_NS=%d\nMESSAGE=ev\n\n", ++n, seq, t }
function d(k, t) { printf "__CURSOR=s=55554444333322221111000077776666;i=%x;b=x\n_BOOT_ID=bb\n_PID=100\nSYSLOG_IDENTIFIER=a\nTRACE_EVENT=tj_dropped\nTRACE_DROPPED=%d\nTRACE_TIME_NS=%d\nMESSAGE=tj_dropped\n\n", ++n, k, t }
BEGIN { e(1, 1001); e(4, 1002); d(2, 1003); e(1, 2001); e(2, 2002); e(5, 2003); d(2, 2004); d(3, 2005) }' > "$T/drop-runs.export"
$RUN "$TQ" --db "$T/drop-runs.db" import --export "$T/drop-runs.export"
check_eq traceql-losses-dropped-per-run "seq_gap,bb,,100,a,2,seq 2..3|seq_gap,bb,,100,a,2,seq 3..4|tj_dropped,bb,,100,a,2,1 report|tj_dropped,bb,,100,a,5,2 reports" \
        "$($TQ --db "$T/drop-runs.db" --no-sync --format csv losses | tail -n +2 | cut -d, -f1-7 | paste -sd '|')"
# TRACE_DROPPED is unsigned: forged or huge reports are summed as such,
# exactly past INT64_MAX (shown in full) and stopping at 18446744073709551615
# rather than wrap; sum() failed with "integer overflow", exit 1, and showed
# a lone 18446744073709551615 as -1.  Run one: INT64_MAX + 5; run two: one
# report of 2^64 - 1; run three: two of them; and two reports without a pid.
awk 'function e(seq, t) { printf "__CURSOR=s=55554444333322221111000077776666;i=%x;b=x\n_BOOT_ID=bb\n_PID=100\nSYSLOG_IDENTIFIER=a\nTRACE_EVENT=ev\nTRACE_SEQ=%d\nTRACE_TIME_NS=%d\nMESSAGE=ev\n\n", ++n, seq, t }
function d(pid, k, t) { printf "__CURSOR=s=55554444333322221111000077776666;i=%x;b=x\n_BOOT_ID=bb\n%sSYSLOG_IDENTIFIER=a\nTRACE_EVENT=tj_dropped\nTRACE_DROPPED=%s\nTRACE_TIME_NS=%d\nMESSAGE=tj_dropped\n\n", ++n, pid, k, t }
BEGIN { m = "18446744073709551615"; p = "_PID=100\n"
        e(1, 1001); d(p, "9223372036854775807", 1002); d(p, "5", 1003)
        e(1, 2001); d(p, m, 2002); e(1, 3001); d(p, m, 3002); d(p, m, 3003)
        d("", "3", 4001); d("", m, 4002) }' > "$T/drop-huge.export"
$RUN "$TQ" --db "$T/drop-huge.db" import --export "$T/drop-huge.export"
rc=0
$TQ --db "$T/drop-huge.db" --no-sync --format csv losses > "$T/out" 2>&1 || rc=$?
check_eq traceql-losses-dropped-huge "tj_dropped,bb,,,a,18446744073709551615,2 reports in source 1|tj_dropped,bb,,100,a,9223372036854775812,2 reports|tj_dropped,bb,,100,a,18446744073709551615,1 report|tj_dropped,bb,,100,a,18446744073709551615,2 reports|exit 0" \
        "$(tail -n +2 "$T/out" | cut -d, -f1-7 | paste -sd '|')|exit $rc"
check_eq traceql-u64-sum "9223372036854775812|NULL|'18446744073709551615'" \
        "$(q "$T/drop-huge.db" "select (select u64_sum(column1) from (values (9223372036854775807), (5), (null), ('no'))) || '|' || coalesce((select u64_sum(1) where 0), 'NULL') || '|' || (select quote(u64_sum(dropped)) from tj_dropped) as v")"
# TRACE_SEQ is unsigned too: numbers past INT64_MAX (forged) are ordered and
# counted as unsigned.  seq - prev - 1 turned into a real
# (9.223372036854776e+18, "seq -9223372036854775807..0"), and 2^64 - 1 after 1
# was "seq 0..0", 1 lost; a gap wider than INT64_MAX is decimal text.
awk 'function e(seq) { printf "__CURSOR=s=77776666555544443333222211110000;i=%x;b=x\n_BOOT_ID=bb\n_PID=100\nSYSLOG_IDENTIFIER=a\nTRACE_EVENT=ev\nTRACE_SEQ=%s\nTRACE_TIME_NS=%d\nMESSAGE=ev\n\n", ++n, seq, 1000 + n }
BEGIN { e("1"); e("9223372036854775808"); e("18446744073709551615") }' > "$T/seq-huge.export"
$RUN "$TQ" --db "$T/seq-huge.db" import --export "$T/seq-huge.export"
check_eq traceql-losses-seq-huge "seq_gap,bb,,100,a,9223372036854775806,seq 2..9223372036854775807|seq_gap,bb,,100,a,9223372036854775806,seq 9223372036854775809..18446744073709551614" \
        "$($TQ --db "$T/seq-huge.db" --no-sync --format csv losses | tail -n +2 | cut -d, -f1-7 | paste -sd '|')"
awk 'function e(seq) { printf "__CURSOR=s=77776666555544443333222211110001;i=%x;b=x\n_BOOT_ID=bb\n_PID=100\nSYSLOG_IDENTIFIER=a\nTRACE_EVENT=ev\nTRACE_SEQ=%s\nTRACE_TIME_NS=%d\nMESSAGE=ev\n\n", ++n, seq, 1000 + n }
BEGIN { e("0"); e("9223372036854775807"); e("9223372036854775809"); e("18446744073709551615") }' > "$T/seq-wide.export"
$RUN "$TQ" --db "$T/seq-wide.db" import --export "$T/seq-wide.export"
check_eq traceql-losses-seq-wide "seq_gap,bb,,100,a,9223372036854775806,seq 1..9223372036854775806|seq_gap,bb,,100,a,1,seq 9223372036854775808..9223372036854775808|seq_gap,bb,,100,a,9223372036854775805,seq 9223372036854775810..18446744073709551614" \
        "$($TQ --db "$T/seq-wide.db" --no-sync --format csv losses | tail -n +2 | cut -d, -f1-7 | paste -sd '|')"
check_eq traceql-u64-gap "1|NULL|NULL|'18446744073709551614'|NULL|NULL|9223372036854775807" \
        "$(q "$T/seq-huge.db" "select u64_gap(1, 3) || '|' || coalesce(u64_gap(3, 1), 'NULL') || '|' || coalesce(u64_gap(1, 2), 'NULL') || '|' || quote(u64_gap(0, -1)) || '|' || coalesce(u64_gap(null, 5), 'NULL') || '|' || coalesce(u64_gap('no', 5), 'NULL') || '|' || quote(u64_gap(0, -1 - 9223372036854775807)) as v")"
# A numeric common field whose value is no number (TRACE_SEQ=abc, a TID of
# 21 digits, an empty CODE_LINE) leaves its column NULL, the row stored, as
# before, but no longer without a word: one line at the end, the first named.
printf '__CURSOR=s=0123456789abcdef0123456789abcdef;i=1;b=x\nTRACE_EVENT=ev\nTRACE_SEQ=abc\nTID=999999999999999999999\nMESSAGE=m\n\n__CURSOR=s=0123456789abcdef0123456789abcdef;i=2;b=x\nTRACE_EVENT=ev\nCODE_LINE=\nTRACE_SEQ=2\nMESSAGE=m\n\n__CURSOR=s=0123456789abcdef0123456789abcdef;i=3;b=x\nTRACE_EVENT=ev\nTRACE_SEQ=3\nMESSAGE=m\n\n' \
        > "$T/badint.export"
rc=0
$TQ --db "$T/badint.db" import --export "$T/badint.export" 2> "$T/err" || rc=$?
check_eq traceql-bad-int-field "0|traceql: $T/badint.db: 2 events stored with a field that is no number, its column NULL (the first: TRACE_SEQ=abc, at $T/badint.export:3)|NULL NULL NULL;2 NULL NULL;3 NULL NULL" \
        "$rc|$(cat "$T/err")|$($TQ --db "$T/badint.db" --no-sync --format csv "select group_concat(coalesce(seq, 'NULL') || ' ' || coalesce(tid, 'NULL') || ' ' || coalesce(code_line, 'NULL'), ';') as v from (select * from events order by id)" | tail -n 1)"
# ... named by its line in the whole file when the import resumed past the
# start, and in standard input
printf '__CURSOR=s=0123456789abcdef0123456789abcdef;i=4;b=x\nTRACE_EVENT=ev\nTRACE_SEQ=4\nMESSAGE=m\n\n__CURSOR=s=0123456789abcdef0123456789abcdef;i=5;b=x\nTRACE_EVENT=ev\nTRACE_SEQ=x5\nMESSAGE=m\n\n' \
        >> "$T/badint.export"
rc=0
$TQ --db "$T/badint.db" import --export "$T/badint.export" 2> "$T/err" || rc=$?
check_eq traceql-bad-int-resumed "0|traceql: $T/badint.db: 1 event stored with a field that is no number, its column NULL (the first: TRACE_SEQ=x5, at $T/badint.export:25)" \
        "$rc|$(cat "$T/err")"
rc=0
$TQ --db "$T/badint-in.db" import --export - < "$T/badint.export" 2> "$T/err" || rc=$?
check_eq traceql-bad-int-stdin "0|traceql: $T/badint-in.db: 3 events stored with a field that is no number, its column NULL (the first: TRACE_SEQ=abc, at <stdin>:3)" \
        "$rc|$(cat "$T/err")"
# ... and, from a journal file, by the entry's cursor, which journalctl
# takes (a file of its own: the local journal is every test's, and a fresh
# database's sync would say it of the entry too)
JR=/lib/systemd/systemd-journal-remote
if [ -x "$JR" ]; then
        printf '__CURSOR=s=0123456789abcdef0123456789abcdef;i=1;b=fedcba9876543210fedcba9876543210;m=1;t=1;x=1\n__REALTIME_TIMESTAMP=1700000000000001\n__MONOTONIC_TIMESTAMP=1\n_BOOT_ID=fedcba9876543210fedcba9876543210\nSYSLOG_IDENTIFIER=bi\nTRACE_EVENT=ev\nTRACE_SEQ=1\nMESSAGE=ev one\n\n__CURSOR=s=0123456789abcdef0123456789abcdef;i=2;b=fedcba9876543210fedcba9876543210;m=2;t=2;x=2\n__REALTIME_TIMESTAMP=1700000000000002\n__MONOTONIC_TIMESTAMP=2\n_BOOT_ID=fedcba9876543210fedcba9876543210\nSYSLOG_IDENTIFIER=bi\nTRACE_EVENT=ev\nTRACE_SEQ=two\nMESSAGE=ev two\n\n' |
                "$JR" -o "$T/badint.journal" - 2> /dev/null
        rc=0
        $TQ --db "$T/badint-j.db" import --file "$T/badint.journal" 2> "$T/err" || rc=$?
        cursor=$(sed -n 's/.*(the first: TRACE_SEQ=two, in the entry \(s=[^)]*\))$/\1/p' "$T/err")
        check_eq traceql-bad-int-journal "0|1 event stored|ev two" \
                "$rc|$(grep -o '1 event stored' "$T/err")|$(journalctl -q -o cat --file="$T/badint.journal" --cursor="$cursor" 2>&1 | head -n 1)"
else
        skip traceql-bad-int-journal "no $JR (Debian package systemd-journal-remote)"
fi
# Rows without a boot (a central syslog file's) are told apart by host: the
# same pid and identifier on two hosts are two processes (a's 1 2 3 and b's
# 1 3 merged into one run, and b's gap was hidden).
awk 'function e(h, seq, t) { printf "__CURSOR=s=66665555444433332222111100007777;i=%x;b=x\n_HOSTNAME=%s\n_PID=100\nSYSLOG_IDENTIFIER=p\nTRACE_EVENT=ev\nTRACE_SEQ=%d\nTRACE_TIME_NS=%d\nMESSAGE=ev\n\n", ++n, h, seq, t }
BEGIN { e("ha", 1, 1001); e("hb", 1, 1002); e("ha", 2, 1003); e("ha", 3, 1004); e("hb", 3, 1005) }' > "$T/hosts.export"
$RUN "$TQ" --db "$T/hosts.db" import --export "$T/hosts.export"
check_eq traceql-losses-hosts "seq_gap,,hb,100,p,1,seq 2..2" \
        "$($TQ --db "$T/hosts.db" --no-sync --format csv losses | tail -n +2 | cut -d, -f1-7 | paste -sd '|')"
# An event's arguments are stored in its first signature's order: a later
# entry whose TRACE_ARGS orders (or cases) them otherwise, or that has no
# TRACE_ARGS (journald lists fields in its own order), is matched by name,
# in this import and in a later one.
printf '__CURSOR=s=1;i=1;b=x\nTRACE_EVENT=ord\nTRACE_ARGS=a:u b:u\nTRACE_ARG_A=1\nTRACE_ARG_B=2\nMESSAGE=m\n\n__CURSOR=s=1;i=2;b=x\nTRACE_EVENT=ord\nTRACE_ARGS=b:u a:u\nTRACE_ARG_A=3\nTRACE_ARG_B=4\nMESSAGE=m\n\n__CURSOR=s=1;i=3;b=x\nTRACE_EVENT=ord\nTRACE_ARG_B=6\nTRACE_ARG_A=5\nMESSAGE=m\n\n' > "$T/ord.export"
printf '__CURSOR=s=1;i=4;b=x\nTRACE_EVENT=ord\nTRACE_ARGS=B:u A:u\nTRACE_ARG_A=7\nTRACE_ARG_B=8\nMESSAGE=m\n\n' > "$T/ord2.export"
$RUN "$TQ" --db "$T/ord.db" import --export "$T/ord.export"
$RUN "$TQ" --db "$T/ord.db" import --export "$T/ord2.export"
check_eq traceql-args-by-name "1 2|3 4|5 6|7 8" "$(q "$T/ord.db" "select a || ' ' || b as v from ord order by id" | paste -sd '|')"
# An argument whose kind changes in a later version of the program (n:u,
# then n:s): each value is stored as its entry's kind says, the catalog keeps
# the first signature, and the import says so once per event, naming both;
# it said nothing, and event_args' 'u' hid the text.  An entry without
# TRACE_ARGS (kinds guessed from the values: -5 is 'i') is not checked.
printf '__CURSOR=s=1;i=1;b=x\nTRACE_EVENT=ty\nTRACE_ARGS=n:u m:p\nTRACE_ARG_N=5\nTRACE_ARG_M=0x10\nMESSAGE=m\n\n' > "$T/ty1.export"
printf '__CURSOR=s=1;i=2;b=x\nTRACE_EVENT=ty\nTRACE_ARGS=m:p n:s\nTRACE_ARG_N=abc\nTRACE_ARG_M=0x20\nMESSAGE=m\n\n__CURSOR=s=1;i=3;b=x\nTRACE_EVENT=ty\nTRACE_ARGS=m:p n:s\nTRACE_ARG_N=12\nTRACE_ARG_M=0x30\nMESSAGE=m\n\n' > "$T/ty2.export"
printf '__CURSOR=s=1;i=4;b=x\nTRACE_EVENT=ty\nTRACE_ARG_N=-5\nTRACE_ARG_M=0x40\nMESSAGE=m\n\n' > "$T/ty3.export"
$TQ --db "$T/ty.db" import --export "$T/ty1.export" 2> "$T/err"
$TQ --db "$T/ty.db" import --export "$T/ty3.export" 2>> "$T/err"
check_eq traceql-kind-change-guessed "" "$(cat "$T/err")"
rc=0
$TQ --db "$T/ty.db" import --export "$T/ty2.export" 2> "$T/err" || rc=$?
check_eq traceql-kind-change-said "traceql: event ty: argument n is of kind s in TRACE_ARGS 'm:p n:s', of kind u in the database's 'n:u m:p': each value is stored as its entry's kind says; event_types and event_args keep u|exit 0" \
        "$(cat "$T/err")|exit $rc"
check_eq traceql-kind-change-stored "5 integer|'abc' text|'12' text|-5 integer|n:u m:p|u" \
        "$(q "$T/ty.db" "select quote(n) || ' ' || typeof(n) as v from ty order by id" | paste -sd '|')|$(q "$T/ty.db" "select signature || '|' || (select kind from event_args where event = 'ty' and name = 'n') from event_types where name = 'ty'")"
# An argument the first signature lacks follows its columns, and joins the
# catalog and the view there (a later version of the program with one
# more): queried by name, as the first ones are; entries without it have
# NULL.  It was kept unnamed (a2 only).  A new argument whose column would
# rename one of the first (ev_time once an argument time came) stays
# unnamed.
printf '__CURSOR=s=1;i=5;b=x\nTRACE_EVENT=ord\nTRACE_ARGS=b:u c:u a:u\nTRACE_ARG_A=9\nTRACE_ARG_B=10\nTRACE_ARG_C=11\nMESSAGE=m\n\n' > "$T/ord3.export"
$RUN "$TQ" --db "$T/ord.db" import --export "$T/ord3.export"
check_eq traceql-args-extra-kept "9|10|11" "$(q "$T/ord.db" "select a0 || '|' || a1 || '|' || a2 as v from events where id = (select max(id) from events)")"
check_eq traceql-args-extra-named "a:u b:u c:u|3|2 c u|1 2 NULL;3 4 NULL;5 6 NULL;7 8 NULL;9 10 11" \
        "$(q "$T/ord.db" "select signature || '|' || nargs from event_types where name = 'ord'")|$(q "$T/ord.db" "select pos || ' ' || name || ' ' || kind from event_args where event = 'ord' and pos = 2")|$(q "$T/ord.db" "select a || ' ' || b || ' ' || ifnull(c, 'NULL') from ord order by id" | paste -sd ';')"
printf '__CURSOR=s=1;i=6;b=x\nTRACE_EVENT=ord\nTRACE_ARGS=a:u b:u c:u d:s\nTRACE_ARG_A=12\nTRACE_ARG_B=13\nTRACE_ARG_C=14\nTRACE_ARG_D=x\nMESSAGE=m\n\n' > "$T/ord4.export"
$RUN "$TQ" --db "$T/ord.db" import --export "$T/ord4.export"
check_eq traceql-args-extra-later-import "a:u b:u c:u d:s|12 13 14 x" \
        "$(q "$T/ord.db" "select signature from event_types where name = 'ord'")|$(q "$T/ord.db" "select a || ' ' || b || ' ' || c || ' ' || d from ord where d is not null")"
printf '__CURSOR=s=1;i=1;b=x\nTRACE_EVENT=tm\nTRACE_ARGS=ev_time:u\nTRACE_ARG_EV_TIME=1\nMESSAGE=m\n\n__CURSOR=s=1;i=2;b=x\nTRACE_EVENT=tm\nTRACE_ARGS=ev_time:u time:u\nTRACE_ARG_EV_TIME=2\nTRACE_ARG_TIME=3\nMESSAGE=m\n\n' > "$T/tm.export"
$RUN "$TQ" --db "$T/tm.db" import --export "$T/tm.export"
check_eq traceql-args-extra-no-rename "ev_time:u|2 3" \
        "$(q "$T/tm.db" "select signature from event_types where name = 'tm'")|$(q "$T/tm.db" "select ev_time || ' ' || a1 from tm join events using (id) where a1 is not null")"
# A value its kind cannot have stays text: a signed one past INT64_MAX, an
# unsigned one below 0, a pointer without 0x (it was read as hex).
printf '__CURSOR=s=1;i=1;b=x\nTRACE_EVENT=kinds\nTRACE_ARGS=i:i u:u p:p q:p\nTRACE_ARG_I=9223372036854775808\nTRACE_ARG_U=-1\nTRACE_ARG_P=4096\nTRACE_ARG_Q=0X1F\nMESSAGE=m\n\n' > "$T/kinds.export"
$RUN "$TQ" --db "$T/kinds.db" import --export "$T/kinds.export"
check_eq traceql-kind-mismatch-text "'9223372036854775808'|'-1'|'4096'|31" \
        "$(q "$T/kinds.db" "select quote(i) || '|' || quote(u) || '|' || quote(p) || '|' || quote(q) as v from kinds")"
# A kind letter that is none of i, u, p, s is a string's.
printf '__CURSOR=s=1;i=2;b=x\nTRACE_EVENT=odd\nTRACE_ARGS=a:q b:U c\nTRACE_ARG_A=1\nTRACE_ARG_B=2\nTRACE_ARG_C=3\nMESSAGE=m\n\n' > "$T/odd.export"
$RUN "$TQ" --db "$T/kinds.db" import --export "$T/odd.export"
check_eq traceql-kind-unknown "a:s b:s c:s|'1'" "$(q "$T/kinds.db" "select signature || '|' ||
        (select quote(a) from odd) as v from event_types where name = 'odd'")"
# More arguments than the ten columns (an entry not written by tracegen's
# code): the first ten are kept, and the import says so, not silently.
printf '__CURSOR=s=1;i=1;b=x\nTRACE_EVENT=wide\nTRACE_ARGS=a:i b:i c:i d:i e:i f:i g:i h:i i:i j:i k:i l:i\nTRACE_ARG_A=1\nTRACE_ARG_L=12\nMESSAGE=wide a 1 l 12\n\n' > "$T/wide.export"
$TQ --db "$T/wide.db" import --export "$T/wide.export" 2> "$T/err"
check_eq traceql-more-args-said "traceql: event wide has 12 arguments: the first 10 are its columns, all are in its message|a:i b:i c:i d:i e:i f:i g:i h:i i:i j:i" \
        "$(cat "$T/err")|$(q "$T/wide.db" 'select signature from event_types')"
# Without TRACE_ARGS, past the 16 fields read: counted all the same.
awk 'BEGIN { printf "__CURSOR=s=1;i=2;b=x\nTRACE_EVENT=wider\n"
        for (k = 0; k < 20; k++) printf "TRACE_ARG_X%d=%d\n", k, k
        printf "MESSAGE=m\n\n" }' > "$T/wider.export"
$TQ --db "$T/wide.db" import --export "$T/wider.export" 2> "$T/err"
check_eq traceql-more-args-counted "traceql: event wider has 20 arguments: the first 10 are its columns, all are in its message" "$(cat "$T/err")"
# The name in that line is escaped as in an error message.
awk 'BEGIN { printf "__CURSOR=s=1;i=3;b=x\nTRACE_EVENT=\033[2Jw\377\n"
        for (k = 0; k < 11; k++) printf "TRACE_ARG_X%d=%d\n", k, k
        printf "MESSAGE=m\n\n" }' > "$T/escaped.export"
$TQ --db "$T/wide.db" import --export "$T/escaped.export" 2> "$T/err"
check_eq traceql-more-args-escaped 'traceql: event \x1b[2Jw\xff has 11 arguments: the first 10 are its columns, all are in its message' "$(cat "$T/err")"
# journald's "Suppressed" note is journald's own (_TRANSPORT=driver); any
# client can log an entry with its MESSAGE_ID, which must not count.
printf '__CURSOR=s=77776666555544443333222211110000;i=90;b=x\n_TRANSPORT=journal\nMESSAGE_ID=fe6faa94e7774663a0da52717891d8ef\nMESSAGE=Suppressed 999 messages from me\n\n__CURSOR=s=77776666555544443333222211110000;i=91;b=x\n_TRANSPORT=driver\nMESSAGE_ID=fe6faa94e7774663a0da52717891d8ef\nMESSAGE=Suppressed 5 messages from qemu.service\n\n' > "$T/supp.export"
$RUN "$TQ" --db "$T/supp.db" import --export "$T/supp.export"
check_eq traceql-losses-suppressed-driver-only "journald_suppressed,,,,,5,Suppressed 5 messages from qemu.service" \
        "$($TQ --db "$T/supp.db" --no-sync --format csv losses | tail -n +2 | cut -d, -f1-7)"

# ---- import again: nothing new ------------------------------------------
$RUN "$TQ" --db "$DB" import --identifier "$ID"
check_eq traceql-reimport-no-dup "5" "$(q "$DB" 'select count(*) from events')"
# A query syncs first: still the same rows.
check_eq traceql-query-sync "5" "$($RUN "$TQ" --db "$DB" --format csv 'select count(*) from events' | tail -n +2)"

# A stream with nothing before the stored position (-b had no entry at the
# first import) reads its first entry on the next (it lost it: the seek
# stepped back from it, could not, and then stepped over it).
printf 'SYSLOG_IDENTIFIER=%s-a\tTRACE_EVENT=nv_a\tMESSAGE=a1\n' "$ID" | "$T/send"
wait_entries "$ID-a" 1
$RUN "$TQ" --db "$T/nv.db" import --identifier "$ID-a" --identifier "$ID-b"
printf 'SYSLOG_IDENTIFIER=%s-b\tTRACE_EVENT=nv_b\tMESSAGE=b1\nSYSLOG_IDENTIFIER=%s-b\tTRACE_EVENT=nv_b\tMESSAGE=b2\n' "$ID" "$ID" | "$T/send"
wait_entries "$ID-b" 2
$RUN "$TQ" --db "$T/nv.db" import --identifier "$ID-a" --identifier "$ID-b"
check_eq traceql-stream-first-entry "a1 b1 b2" "$(q "$T/nv.db" "select group_concat(message, ' ') as m from (select message from events order by id)")"

# ---- other journal locations and filters ---------------------------------
ROWS0="select time, host, boot, pid, event, message, seq, jseq, a0, a1, a2, a3 from events order by seq"
q "$DB" "$ROWS0" > "$T/rows0"
JF=$(ls -t /run/log/journal/*/system.journal /var/log/journal/*/system.journal 2>/dev/null | head -1)
JD=$(dirname "$(dirname "$JF")")
$RUN "$TQ" --db "$T/dir.db" import --directory "$JD" --identifier "$ID"
q "$T/dir.db" "$ROWS0" > "$T/rows"
check_file traceql-directory "$T/rows0" "$T/rows"
set --
for f in "$(dirname "$JF")"/*.journal; do set -- "$@" --file "$f"; done
$RUN "$TQ" --db "$T/files.db" import "$@" --identifier "$ID"
q "$T/files.db" "$ROWS0" > "$T/rows"
check_file traceql-files "$T/rows0" "$T/rows"
check_eq traceql-files-source "journal|1|$ID" "$(q "$T/files.db" "select kind || '|' ||
        (location like 'files:%') || '|' || filter as v from sources")"
$RUN "$TQ" --db "$T/boot.db" import --boot --identifier "$ID"
$RUN "$TQ" --db "$T/boot0.db" import --boot=00000000000000000000000000000001 --identifier "$ID"
check_eq traceql-boot "5|0" "$(q "$T/boot.db" 'select count(*) from events')|$(q "$T/boot0.db" 'select count(*) from events')"
$RUN "$TQ" --db "$T/since.db" import --since "@$(($(date +%s) + 3600))" --identifier "$ID"
$RUN "$TQ" --db "$T/until.db" import --until "@1000" --identifier "$ID"
$RUN "$TQ" --db "$T/window.db" import --since "2000-01-01" --until now --identifier "$ID"
check_eq traceql-since-until "0|0|5" "$(q "$T/since.db" 'select count(*) from events')|$(q "$T/until.db" 'select count(*) from events')|$(q "$T/window.db" 'select count(*) from events')"
# The sync before a query replays each source's window (sources.window): the
# windows above stay as imported; an import without one widens it.
qs() { $RUN "$TQ" --db "$1" --format csv "$2" > "$T/q.out" && tail -n +2 "$T/q.out"; }
check_eq traceql-sync-window "0|0|0|5" "$(qs "$T/until.db" 'select count(*) from events')|$(qs "$T/since.db" 'select count(*) from events')|$(qs "$T/boot0.db" 'select count(*) from events')|$(qs "$T/window.db" 'select count(*) from events')"
check_eq traceql-sync-window-stored "until=1000000000|boot=00000000000000000000000000000001|boot=$(tr -d - < /proc/sys/kernel/random/boot_id)|since=$(($(date -d 2000-01-01 +%s) * 1000000))|until=" \
        "$(q "$T/until.db" 'select window from sources')|$(q "$T/boot0.db" 'select window from sources')|$(q "$T/boot.db" 'select window from sources')|$(q "$T/window.db" 'select window from sources' | sed 's/ until=[0-9]*$/|until=/')"
$RUN "$TQ" --db "$T/until.db" import --identifier "$ID"
check_eq traceql-sync-window-widened "5|NULL|5" "$(q "$T/until.db" 'select count(*) from events')|$(q "$T/until.db" "select ifnull(window, 'NULL') from sources")|$(qs "$T/until.db" 'select count(*) from events')"
$RUN "$TQ" --db "$T/until.db" --write --no-sync "update sources set window = 'until=x'" > /dev/null
rc=0; $RUN "$TQ" --db "$T/until.db" 'select 1' > /dev/null 2> "$T/err" || rc=$?
check_eq traceql-sync-window-invalid "4|traceql: $T/until.db: journal source '': invalid window 'until=x' in its sources row" "$rc|$(cat "$T/err")"
check_eq traceql-sync-window-invalid-kept "5|until=x" "$(q "$T/until.db" 'select count(*) from events')|$(q "$T/until.db" 'select window from sources')"

# ---- the same entries through the export format -------------------------
journalctl -q -o export "SYSLOG_IDENTIFIER=$ID" > "$T/x.export"
ROWS="select time, mono, host, boot, pid, tid, event, message, seq, \"group\", identifier,
        code_file, code_line, code_func, jseq, quote(a0), quote(a1), quote(a2), quote(a3),
        a4, a5, a6, a7, a8, a9 from events order by time, seq"
$RUN "$TQ" --db "$T/x.db" import --export "$T/x.export"
q "$DB" "$ROWS" > "$T/direct"
q "$T/x.db" "$ROWS" > "$T/viaexport"
check_file traceql-export-same-rows "$T/direct" "$T/viaexport"
$RUN "$TQ" --db "$T/x.db" import --export - < "$T/x.export"
$RUN "$TQ" --db "$DB" import --export "$T/x.export"
check_eq traceql-export-no-dup "5|5" "$(q "$T/x.db" 'select count(*) from events')|$(q "$DB" 'select count(*) from events')"
# Rows go in 16 at a time: a stream of the same 5 entries 4 times fills one
# batch that holds each entry more than once, and leaves 4 for a short one;
# each entry is stored once, and the source counts 5 rows.
cat "$T/x.export" "$T/x.export" "$T/x.export" "$T/x.export" > "$T/x4.export"
$RUN "$TQ" --db "$T/x4.db" import --export "$T/x4.export"
q "$T/x4.db" "$ROWS" > "$T/viaexport4"
check_file traceql-export-dup-in-batch-rows "$T/direct" "$T/viaexport4"
check_eq traceql-export-dup-in-batch-count "5|5" "$(q "$T/x4.db" "select (select count(*) from events) || '|' || (select sum(rows) from sources) as v")"
# A NUL byte in a field journald took as binary (MESSAGE, TRACE_GROUP, a
# string and an integer argument): both ways store the same text, NUL and
# all (traceql.1); hex() sees past the NUL, where quote() above stops.
printf 'SYSLOG_IDENTIFIER=%s-nul\tTRACE_EVENT=tq_nul\tTRACE_ARGS=s:s n:i\tTRACE_SEQ=1\tTRACE_GROUP=g\\0h\tTRACE_ARG_S=ab\\0cd\tTRACE_ARG_N=1\\02\tMESSAGE=tq_nul ab\\0cd\n' "$ID" | "$T/send"
wait_entries "$ID-nul" 1
journalctl -q -o export "SYSLOG_IDENTIFIER=$ID-nul" > "$T/nul.export"
$RUN "$TQ" --db "$T/nul.db" import --identifier "$ID-nul"
$RUN "$TQ" --db "$T/nulx.db" import --export "$T/nul.export"
NULROWS="select event, hex(message), hex(\"group\"), typeof(a0) || ':' || hex(a0) as a0,
        typeof(a1) || ':' || hex(a1) as a1 from events"
check_eq traceql-export-same-nul "tq_nul,74715F6E756C206162006364,670068,text:6162006364,text:310032" "$(q "$T/nul.db" "$NULROWS")"
check_eq traceql-export-same-nul-rows "$(q "$T/nul.db" "$NULROWS")" "$(q "$T/nulx.db" "$NULROWS")"

# ---- SIGKILL in the middle, then resume -----------------------------------
ID2="$ID-kill"
N=25000
awk -v id="$ID2" -v n=$N 'BEGIN { for (i = 1; i <= n; i++)
        printf "SYSLOG_IDENTIFIER=%s\tTRACE_EVENT=tq_bulk\tTRACE_ARGS=i:u s:s\tTRACE_SEQ=%d\tTRACE_ARG_I=%d\tTRACE_ARG_S=v%d\tMESSAGE=tq_bulk %d\n", id, i, i, i, i }' |
        "$T/send"
wait_entries "$ID2" $N
rc=0
TRACEQL_TEST_KILL_AFTER=15000 "$TQ" --db "$T/k.db" import --identifier "$ID2" 2>/dev/null || rc=$?
check_eq traceql-killed "137|10000" "$rc|$(q "$T/k.db" 'select count(*) from events')"
$RUN "$TQ" --db "$T/k.db" import --identifier "$ID2"
$RUN "$TQ" --db "$T/clean.db" import --identifier "$ID2"
BULK="select seq, a0, a1, jseq from events order by seq"
q "$T/k.db" "$BULK" > "$T/k.rows"
q "$T/clean.db" "$BULK" > "$T/clean.rows"
check_file traceql-kill-resume-same-rows "$T/clean.rows" "$T/k.rows"
check_eq traceql-kill-resume-count "$N|$N|$N" "$(q "$T/k.db" "select (select count(*) from events) || '|' ||
        (select count(distinct seq) from events) || '|' || (select sum(rows) from sources) as v")"

# No memory for the reader thread's ring after 16 chunks of 64 slots (the
# 1025th entry): the import fails with exit 5 before its first commit (the
# database it made removed, as for any failure), and the next one imports
# the same rows as a clean import.
rc=0
TRACEQL_TEST_RING_CHUNKS=16 "$TQ" --db "$T/m.db" import --identifier "$ID2" > /dev/null 2> "$T/m.err" || rc=$?
check_eq traceql-nomem-ring "5|traceql: out of memory|" "$rc|$(cat "$T/m.err")|$(ls "$T"/m.db* 2> /dev/null)"
$RUN "$TQ" --db "$T/m.db" import --identifier "$ID2"
q "$T/m.db" "$BULK" > "$T/m.rows"
check_file traceql-nomem-ring-resume-same-rows "$T/clean.rows" "$T/m.rows"

# Checkpoints run in their own thread; once the WAL holds the limit a commit
# waits for one, so the next transaction starts the WAL over (its header's
# checkpoint sequence number, bytes 12..15, counts that).  Killed then, the
# database still resumes to the same rows.
rc=0
TRACEQL_TEST_WAL_FRAMES=64 TRACEQL_TEST_KILL_AFTER=25000 "$TQ" --db "$T/w.db" import --identifier "$ID2" 2>/dev/null || rc=$?
ckseq=$(od -An -tu1 -j12 -N4 "$T/w.db-wal" | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 }')
check_eq traceql-wal-restarted "137|20000|yes" "$rc|$(q "$T/w.db" 'select count(*) from events')|$([ "${ckseq:-0}" -ge 1 ] && echo yes || echo "no ($ckseq)")"
$RUN "$TQ" --db "$T/w.db" import --identifier "$ID2"
q "$T/w.db" "$BULK" > "$T/w.rows"
check_file traceql-wal-resume-same-rows "$T/clean.rows" "$T/w.rows"

# ---- --follow ---------------------------------------------------------------
# SIGINT (and SIGHUP, its terminal closed) while --follow catches up with a
# long journal ends it there, status 0, what it read committed; the next
# import adds the rest, nothing twice.  (SIGINT was only looked at once the
# journal's end was reached: a long journal kept it importing; SIGHUP killed
# it, status 129.)
for sig in 2 1; do
        rc=0
        TRACEQL_TEST_KILL_AFTER=5000 TRACEQL_TEST_KILL_SIGNAL=$sig "$TQ" --db "$T/fi$sig.db" import \
                --follow --identifier "$ID2" 2> "$T/fi.err" || rc=$?
        n=$(q "$T/fi$sig.db" 'select count(*) from events')
        $RUN "$TQ" --db "$T/fi$sig.db" import --identifier "$ID2"
        q "$T/fi$sig.db" "$BULK" > "$T/fi.rows"
        check_eq traceql-follow-interrupted-$sig "0|yes||same" "$rc|$([ "$n" -ge 5000 ] && [ "$n" -lt $N ] && echo yes || echo "no ($n)")|$(cat "$T/fi.err")|$(cmp -s "$T/clean.rows" "$T/fi.rows" && echo same)"
done
# ... but under nohup (SIGHUP ignored) it goes on when the terminal closes
# (catching SIGHUP undid nohup); SIGTERM still ends it.
nohup "$TQ" --db "$T/nh.db" import --follow --identifier "$ID2-none" > /dev/null 2> "$T/nh.err" &
fpid=$!
i=0; while [ ! -s "$T/nh.db" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.5
kill -HUP $fpid
sleep 0.5
alive=$(kill -0 $fpid 2>/dev/null && echo alive || echo "ended by SIGHUP")
kill -TERM $fpid 2>/dev/null || true
rc=0; wait $fpid || rc=$?
check_eq traceql-follow-nohup "alive|0" "$alive|$rc"
ID3="$ID-follow"
"$TQ" --db "$T/f.db" import --follow --identifier "$ID3" 2> "$T/f.err" &
fpid=$!
printf 'SYSLOG_IDENTIFIER=%s\tTRACE_EVENT=tq_follow\tTRACE_ARGS=n:i\tTRACE_SEQ=%d\tTRACE_ARG_N=%d\n' \
        "$ID3" 1 1 "$ID3" 2 2 "$ID3" 3 3 | "$T/send"
i=0
while [ "$(q "$T/f.db" 'select count(*) from events' 2>/dev/null || echo 0)" != 3 ] && [ $i -lt 300 ]; do
        sleep 0.1; i=$((i + 1)); done
# While it waits for more, the follower holds no write lock: a query, which
# syncs first, and another import of the database run (they waited for the
# lock 10 s, then failed: 'database is locked', exit 4); then the follower
# goes on importing.
rc=0
"$TQ" --db "$T/f.db" --format csv 'select count(*) from events' > "$T/f.q" 2> "$T/f.qerr" || rc=$?
rc2=0
"$TQ" --db "$T/f.db" import --identifier "$ID3" 2> "$T/f.ierr" || rc2=$?
check_eq traceql-follow-query-sync "0|3||0|" "$rc|$(tail -n +2 "$T/f.q")|$(cat "$T/f.qerr")|$rc2|$(cat "$T/f.ierr")"
printf 'SYSLOG_IDENTIFIER=%s\tTRACE_EVENT=tq_follow\tTRACE_ARGS=n:i\tTRACE_SEQ=%d\tTRACE_ARG_N=%d\n' \
        "$ID3" 4 4 | "$T/send"
i=0
while [ "$(q "$T/f.db" 'select count(*) from events' 2>/dev/null || echo 0)" != 4 ] && [ $i -lt 300 ]; do
        sleep 0.1; i=$((i + 1)); done
kill -INT $fpid
rc=0; wait $fpid || rc=$?
check_eq traceql-follow "0|10|4|" "$rc|$(q "$T/f.db" 'select sum(n) from tq_follow')|$(q "$T/f.db" 'select sum(rows) from sources')|$(cat "$T/f.err")"

# journalctl --rotate while --follow reads a burst: journald renames the
# active file, and sd_journal_process() closes it and opens it again under
# its new name.  A stream left on an entry of it (past the round's end, not
# handed out yet) could no longer read that entry (-EADDRNOTAVAIL): it was
# skipped as a corrupt one, and the entries after it took the position past
# it, so no later import read it either (a few of the 20000 each run).
ID4="$ID-rotate"
if journalctl --rotate 2> /dev/null; then
        "$TQ" --db "$T/rot.db" import --follow --identifier "$ID4" 2> "$T/rot.err" &
        fpid=$!
        i=0; while [ ! -s "$T/rot.db" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
        awk -v id="$ID4" 'BEGIN { for (i = 1; i <= 20000; i++)
                printf "SYSLOG_IDENTIFIER=%s\tTRACE_EVENT=tq_rot\tTRACE_SEQ=%d\tMESSAGE=m\n", id, i }' |
                "$T/send" &
        spid=$!
        for k in 1 2 3 4 5 6 7 8 9 10; do sleep 0.1; journalctl --rotate; done
        wait $spid
        wait_entries "$ID4" 20000
        i=0
        while [ "$(q "$T/rot.db" 'select count(*) from events' 2>/dev/null || echo 0)" != 20000 ] &&
                [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
        kill -INT $fpid
        rc=0; wait $fpid || rc=$?
        n=$(q "$T/rot.db" 'select count(*) from events')
        $RUN "$TQ" --db "$T/rot.db" import --identifier "$ID4"
        check_eq traceql-follow-rotated "0|20000|20000|" \
                "$rc|$n|$(q "$T/rot.db" 'select count(distinct seq) from events')|$(cat "$T/rot.err")"
else
        skip traceql-follow-rotated "journalctl --rotate needs root"
fi

# hold_lock DB SECONDS: another process holds DB's write lock that long (in
# the background, $lpid), from when this returns.
hold_lock() {
        rm -f "$T/locked"
        python3 -c 'import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN IMMEDIATE")
open(sys.argv[2], "w").close()
time.sleep(float(sys.argv[3]))
c.execute("COMMIT")' "$1" "$T/locked" "$2" &
        lpid=$!
        i=0; while [ ! -e "$T/locked" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
}

# Another process holding the write lock (an import that commits a batch
# and begins the next at once): a query's sync gives up after 2 s, says so,
# and the query reads what is committed (it waited 10 s, then failed
# 'database is locked').
hold_lock "$T/f.db" 6
rc=0
"$TQ" --db "$T/f.db" --format csv 'select count(*) from events' > "$T/l.q" 2> "$T/l.err" || rc=$?
kill $lpid 2>/dev/null || true; wait $lpid 2>/dev/null || true
check_eq traceql-sync-while-locked "0|4|traceql: $T/f.db: another import is writing it: not synced, the query reads what it committed" \
        "$rc|$(tail -n +2 "$T/l.q")|$(cat "$T/l.err")"

# ... and an import waits for its turn however long the other takes (it
# failed after 10 s), saying so after 2 s.
hold_lock "$T/f.db" 3
printf 'Nov 21 10:00:00 h app[1]: turn\n' > "$T/turn.log"
rc=0
"$TQ" --db "$T/f.db" import --syslog "$T/turn.log" 2> "$T/l.err" || rc=$?
wait $lpid 2>/dev/null || true
check_eq traceql-import-waits-turn "0|traceql: $T/f.db: another import is writing it: waiting for its end
traceql: $T/turn.log: 1 line, 1 new event, 1 of them without a known event" "$rc|$(cat "$T/l.err")"

# A follower waiting for another import's turn still stops at SIGINT, status
# 0, nothing lost: idle (its end would open a transaction), or woken by an
# entry (it kept waiting, deaf to the signal, until the other import ended).
for how in idle entry; do
        "$TQ" --db "$T/f.db" import --follow --identifier "$ID3" 2> "$T/fw.err" &
        fpid=$!
        sleep 1
        hold_lock "$T/f.db" 30
        if [ $how = entry ]; then
                printf 'SYSLOG_IDENTIFIER=%s\tTRACE_EVENT=tq_follow\tTRACE_ARGS=n:i\tTRACE_SEQ=%d\tTRACE_ARG_N=%d\n' \
                        "$ID3" 5 5 | "$T/send"
                wait_entries "$ID3" 5
                sleep 1
        fi
        kill -INT $fpid
        i=0; while kill -0 $fpid 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
        alive=$(kill -0 $fpid 2>/dev/null && echo "alive 5 s after SIGINT" || true)
        kill $lpid 2>/dev/null || true; wait $lpid 2>/dev/null || true
        rc=0; wait $fpid || rc=$?
        check_eq traceql-follow-interrupted-waiting-$how "|0" "$alive|$rc"
done
$RUN "$TQ" --db "$T/f.db" import --identifier "$ID3"
check_eq traceql-follow-interrupted-waiting-rows "15" "$(q "$T/f.db" 'select sum(n) from tq_follow')"

# The database deleted, or replaced by another file, while --follow runs:
# the follower stops at its next commit, exit 3, naming it (it went on
# committing every entry to the file no longer there, and exited 0 at
# SIGINT, all of them lost); an import of the name starts over.
for how in deleted replaced; do
        ID5="$ID-moved-$how"
        rm -f "$T"/mv.db*
        "$TQ" --db "$T/mv.db" import --follow --identifier "$ID5" 2> "$T/mv.err" &
        fpid=$!
        printf 'SYSLOG_IDENTIFIER=%s\tTRACE_EVENT=tq_moved\tTRACE_SEQ=1\n' "$ID5" | "$T/send"
        i=0
        while [ "$(q "$T/mv.db" 'select count(*) from events' 2>/dev/null || echo 0)" != 1 ] &&
                [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
        if [ $how = deleted ]; then
                rm "$T/mv.db"
        else
                $RUN "$TQ" --db "$T/other.db" import --identifier "$ID5-none"
                mv "$T/other.db" "$T/mv.db"
        fi
        printf 'SYSLOG_IDENTIFIER=%s\tTRACE_EVENT=tq_moved\tTRACE_SEQ=2\n' "$ID5" | "$T/send"
        i=0; while kill -0 $fpid 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
        kill -INT $fpid 2>/dev/null || true
        rc=0; wait $fpid || rc=$?
        check_eq traceql-follow-db-$how "3|traceql: $T/mv.db: the database file was deleted or replaced since the import opened it" \
                "$rc|$(cat "$T/mv.err")"
done
rm -f "$T"/mv.db*
$RUN "$TQ" --db "$T/mv.db" import --identifier "$ID-moved-deleted"
check_eq traceql-follow-db-deleted-reimport "1 2" "$(q "$T/mv.db" "select group_concat(seq, ' ') from (select seq from events order by seq)")"

# ---- the example program ------------------------------------------------
BD=$B/examples/blockdemo
if [ -x "$BD" ]; then
        TJ_OUTPUT=journald TJ_IDENTIFIER="$ID-bd" "$BD" --threads 2 --requests 40 --trace '*' \
                --stats 2> "$T/bd.err"
        written=$(sed -n 's/.*written \([0-9]*\),.*/\1/p' "$T/bd.err")
        wait_entries "$ID-bd" "$written"
        $RUN "$TQ" --db "$T/bd.db" import --identifier "$ID-bd"
        check_eq traceql-example-count "$written" "$(q "$T/bd.db" 'select count(*) from events')"
        # Every argument of every event, rendered back with its kind, gives
        # the MESSAGE the library wrote: the values are what was emitted.
        check_eq traceql-example-values "0|40|0|0|0|0|0|0|0" "$(q "$T/bd.db" "select
          (select count(*) from blk_req_submit where message != printf('blk_req_submit req %s sector %s nb_sectors %d is_write %d', ptr(req), u64(sector), nb_sectors, is_write)) || '|' ||
          (select count(*) from blk_req_submit) || '|' ||
          (select count(*) from blk_req_complete where message != printf('blk_req_complete req %s ret %d', ptr(req), ret)) || '|' ||
          (select count(*) from blk_req_error where message != printf('blk_req_error req %s sector %s reason %s', ptr(req), u64(sector), reason)) || '|' ||
          (select count(*) from blk_dev_open where message != printf('blk_dev_open name %s nb_sectors %s', name, u64(nb_sectors))) || '|' ||
          (select count(*) from blk_worker_start where message != printf('blk_worker_start worker %d nb_requests %d', worker, nb_requests)) || '|' ||
          (select count(*) from blk_worker_stats where message != printf('blk_worker_stats worker %d request sizes %s', worker, sizes)) || '|' ||
          (select count(*) from qemu_vmalloc where message != printf('qemu_vmalloc size %d ptr %s', size, ptr(ptr))) || '|' ||
          (select count(*) from qemu_vfree where message != printf('qemu_vfree ptr %s', ptr(ptr))) as v")"
        check_eq traceql-example-types "integer|integer|integer|integer|text" "$(q "$T/bd.db" "select
                typeof(req) || '|' || typeof(sector) || '|' || typeof(nb_sectors) || '|' ||
                typeof(is_write) || '|' || (select typeof(reason) from blk_req_error limit 1) as v
                from blk_req_submit limit 1")"
        check_eq traceql-example-losses "" "$($RUN "$TQ" --db "$T/bd.db" --no-sync --format csv losses | grep -v '^kind,' | grep -v '^journald_suppressed' || true)"
        # A tiny ring drops events: the library's tj_dropped reports, the
        # TRACE_SEQ gaps (plus what is missing before the first and after the
        # last stored event) and blockdemo's own counters all agree.
        TJ_OUTPUT=journald TJ_IDENTIFIER="$ID-drop" TJ_RING_SIZE=4096 "$BD" --threads 4 \
                --requests 2000 --trace '*' --stats 2> "$T/drop.err"
        emitted=$(sed -n 's/.*emitted \([0-9]*\),.*/\1/p' "$T/drop.err")
        written=$(sed -n 's/.*written \([0-9]*\),.*/\1/p' "$T/drop.err")
        dropped=$(sed -n 's/.*dropped \([0-9]*\)$/\1/p' "$T/drop.err")
        wait_entries "$ID-drop" "$written"
        $RUN "$TQ" --db "$T/drop.db" import --identifier "$ID-drop"
        $RUN "$TQ" --db "$T/drop.db" --no-sync --format csv losses > "$T/losses"
        gaps=$(awk -F, '$1 == "seq_gap" { n += $6 } END { print n + 0 }' "$T/losses")
        reported=$(awk -F, '$1 == "tj_dropped" { n += $6 } END { print n + 0 }' "$T/losses")
        edges=$(q "$T/drop.db" "select min(seq) - 1 + $emitted - max(seq) from events where event != 'tj_dropped'")
        check_eq traceql-example-drops "$written|$dropped|$dropped" \
                "$(q "$T/drop.db" "select count(*) from events where event != 'tj_dropped'")|$reported|$((gaps + edges))"
else
        fail traceql-example "$BD missing: run make examples"
fi
