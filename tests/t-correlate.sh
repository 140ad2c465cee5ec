#!/bin/sh
# t-correlate.sh - traceql leaks and pairs on crafted traces, exact output.
#
# tests/correlate/*.trace are compact traces (mkexport.py turns them into
# journal export streams, so the input is exact and journald timing plays no
# part); tests/correlate/cases lists NAME | TRACE | ARGS, and NAME.out holds
# stdout, stderr and the exit status.  Then the example program's deliberate
# leaks and its request latency through the real journald.
# TRACEQL_UPDATE_GOLDEN=1 rewrites the .out files instead of comparing.
. "$(dirname "$0")/lib/common.sh"

TQ=$B/traceql
D=$TOP/tests/correlate
for f in "$D"/*.trace; do
        tr=$(basename "$f" .trace)
        python3 "$D/mkexport.py" "$f" > "$T/$tr.export"
        $TQ --db "$T/$tr.db" import --export "$T/$tr.export"
done

grep -v '^#' "$D/cases" | while IFS='|' read -r name trace args; do
        name=$(echo $name) trace=$(echo $trace)
        rc=0
        eval "\$RUN \"\$TQ\" --db \"\$T/$trace.db\" --no-sync $args" > "$T/out" 2> "$T/err" || rc=$?
        { cat "$T/out" "$T/err"; echo "exit $rc"; } | sed "s|$T/||g" > "$T/got"
        [ "${TRACEQL_UPDATE_GOLDEN:-}" = 1 ] && cp "$T/got" "$D/$name.out"
        check_file "correlate-$name" "$D/$name.out" "$T/got"
        # the same without the scan in row order: the sort gives the same
        rc=0
        eval "TRACEQL_TEST_CORR=sort \$RUN \"\$TQ\" --db \"\$T/$trace.db\" --no-sync $args" \
                > "$T/out" 2> "$T/err" || rc=$?
        { cat "$T/out" "$T/err"; echo "exit $rc"; } | sed "s|$T/||g" > "$T/got"
        check_file "correlate-$name-sorted" "$D/$name.out" "$T/got"
done

# jsonl is the JSON report a row per line: each row under the key of its
# array in JSON, in the same order (a section without rows has no line),
# the histogram's buckets too, and --sql's rows under "sql".  Rebuilt from
# the lines, the JSON object; the --sql rows as the query prints them.
jsonl_as_json() {       # NAME TRACE ARGS...
        name=$1 trace=$2
        shift 2
        "$TQ" --db "$T/$trace.db" --no-sync --format json "$@" > "$T/j.json" || :    # leaks: 9
        "$TQ" --db "$T/$trace.db" --no-sync --format jsonl "$@" > "$T/j.jsonl" || :
        check_eq "correlate-jsonl-as-json-$name" "same" "$(python3 - "$T/j.json" "$T/j.jsonl" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
dec = json.JSONDecoder()
want, end = dec.raw_decode(text)
rest = text[end:].strip()
extra = dec.raw_decode(rest)[0] if rest else None
got, sql, keys = {}, [], []
for line in open(sys.argv[2]):
    row = json.loads(line)
    assert len(row) == 1, line
    (k, v), = row.items()
    if k == "sql":
        sql.append(v)
        continue
    if k not in keys:
        keys.append(k)
    got.setdefault(k, []).append(v)
want_nonempty = {k: v for k, v in want.items() if v != [] and v != {}}
print("same" if got == want_nonempty and keys == [k for k in want if k in want_nonempty]
      and sql == (extra or []) else "json %r\njsonl %r sql %r" % (want, got, sql))
PY
)"
}
jsonl_as_json leaks leaks leaks --alloc qemu_malloc:ptr,qemu_valloc:ptr --free qemu_free:ptr --size size --sql "select count(*) as n from tq_leaks"
jsonl_as_json pairs pairs pairs --begin req_submit --end req_complete --histogram --by is_write
jsonl_as_json pairs-hist lat pairs --begin b:r,b2:r --end e:r --histogram
jsonl_as_json pairs-hist-none lat pairs --begin b:r --end b2:r --histogram

# leaks' and pairs' own options may come before the subcommand, their value
# a separate word as with '=' (as getopt_long() takes it after): the same
# report as the case's.  Given so, "--size size leaks ..." was "unknown
# option '--size'" and "--sql SQL leaks" "unexpected argument" (the value
# taken for the SQL), exit 2; with '=' they worked.
n=0
while IFS='|' read -r name trace args; do
        name=$(echo $name) trace=$(echo $trace) n=$((n + 1))
        rc=0
        eval "\$RUN \"\$TQ\" --db \"\$T/$trace.db\" --no-sync $args" > "$T/out" 2> "$T/err" || rc=$?
        { cat "$T/out" "$T/err"; echo "exit $rc"; } | sed "s|$T/||g" > "$T/got"
        check_file "correlate-options-before-$n-$name" "$D/$name.out" "$T/got"
done <<'CASES'
leaks-csv | leaks | --size size --alloc qemu_malloc,qemu_valloc leaks --free qemu_free
leaks-csv | leaks | --size=size --alloc=qemu_malloc,qemu_valloc --free qemu_free leaks
leaks-sql-join | leaks | --format csv --sql "select l.pid, ptr(l.address) as address, e.message from tq_leaks l join events e on e.id = l.id order by l.id" --free qemu_free leaks --alloc qemu_malloc,qemu_valloc
pairs-table | pairs | --by is_write --format table --begin req_submit --end req_complete pairs --histogram
leaks-pairs-option | leaks | --begin x leaks --alloc qemu_malloc --free qemu_free
CASES

# Events stored in their order are scanned in row order, not sorted; a
# process whose events are not is sorted.  Both ways the same findings (above).
scan() {
        db=$1
        shift
        TRACEQL_TEST_CORR=show "$TQ" --db "$T/$db.db" --no-sync "$@" 2>&1 > /dev/null |
                grep '^traceql: scan'
}
check_eq correlate-scan-rows "traceql: scan in row order" \
        "$(scan leaks leaks --alloc qemu_malloc,qemu_valloc --free qemu_free)"
check_eq correlate-scan-sorted "traceql: scan sorted" "$(scan order-time pairs --begin b --end e)"
# Where each process's trace begins is looked up through the partial index
# events_seq1 (its WHERE and the statement's must be the same words), not by
# reading every event; a database without the index (version 3) reads them.
seq1() {
        TRACEQL_TEST_CORR_PLAN=1 "$TQ" --db "$1" --no-sync leaks --alloc qemu_malloc --free qemu_free \
                2>&1 > /dev/null | grep '^traceql: seq1'
}
check_eq correlate-seq1-index "traceql: seq1: SCAN events USING INDEX events_seq1" "$(seq1 "$T/leaks.db")"
cp "$T/leaks.db" "$T/noseq1.db"
sqlite3 "$T/noseq1.db" 'DROP INDEX events_seq1'
check_eq correlate-seq1-no-index "traceql: seq1: SCAN events" "$(seq1 "$T/noseq1.db")"

# Past 4096 problems the scan in row order checks the whole order before it
# stores more.  5000 frees of unknown addresses, in order: still row order.
# 5000 allocations of one address stored before their frees: 4096 of them
# duplicates in row order, the check finds the frees out of order before the
# scan reaches them, and it sorts: each free matches.  The findings as the
# sort gives them, each time.
awk 'BEGIN { print "7 7 1 m a.c:1 p:p=0x8"
             for (i = 2; i <= 5001; i++) printf "7 7 %d f x.c:1 p:p=0x%x\n", i, i * 16 }' > "$T/many.trace"
awk 'BEGIN { for (i = 1; i <= 5000; i++) printf "7 7 %d m a.c:1 p:p=0x10\n", 2 * i - 1
             for (i = 1; i <= 5000; i++) printf "7 7 %d f x.c:1 p:p=0x10\n", 2 * i }' > "$T/late.trace"
for tr in many late; do
        python3 "$D/mkexport.py" "$T/$tr.trace" > "$T/$tr.export"
        $TQ --db "$T/$tr.db" import --export "$T/$tr.export"
        for how in show sort; do
                rc=0
                TRACEQL_TEST_CORR=$how $TQ --db "$T/$tr.db" --no-sync --format csv leaks --alloc m --free f \
                        --sql "select kind, count(*), min(id), max(id) from tq_bad_frees group by kind" \
                        > "$T/$tr.$how" 2> "$T/$tr.$how.err" || rc=$?
                echo "exit $rc" >> "$T/$tr.$how"
        done
        check_file "correlate-check-$tr-same" "$T/$tr.sort" "$T/$tr.show"
done
check_eq correlate-check-many "traceql: scan in row order|unknown-free,5000" \
        "$(cat "$T/many.show.err")|$(grep '^unknown-free' "$T/many.show" | cut -d, -f1,2)"
check_eq correlate-check-late "traceql: scan sorted|5000,5000,0,,0,1,0" \
        "$(cat "$T/late.show.err")|$(grep -A1 '^allocs,' "$T/late.show" | tail -n 1)"

# A step of the scan in row order that fails (the index on event names a row
# that is gone) reports SQLite's error, as the sort does, and not "not an
# error" (finalizing a stream still running resets the connection's): in the
# scan (400 rows, 1 in 10 m and f: one stream per event), and in the check
# past 4096 problems (5000 unknown frees before the m that is gone).  Exit
# 3, a damaged database, as a query's (query.c): it was 1, as if the SQL were
# wrong.
stale() {       # DB ID: delete row ID of events, leaving its index entry
        root=$(sqlite3 "$1" "select rootpage from sqlite_schema where name = 'events_event'")
        sqlite3 "$1" "PRAGMA writable_schema = ON; DELETE FROM sqlite_schema WHERE name = 'events_event'"
        sqlite3 "$1" "DELETE FROM events WHERE id = $2"
        sqlite3 "$1" "PRAGMA writable_schema = ON; INSERT INTO sqlite_schema VALUES ('index', 'events_event',
                'events', $root, 'CREATE INDEX events_event ON events (event)')"
}
for c in "stale1 400 400 201" "stale2 60000 50000 59991"; do
        # shellcheck disable=SC2086
        set -- $c
        $TQ --db "$T/$1.db" --write --no-sync "
insert into sources (kind, location, filter) values ('export', 'x', '');
insert into event_types values ('m', 'm', 2, 'size:u p:p'), ('f', 'f', 1, 'p:p'), ('o', 'o', 1, 'p:p');
insert into event_args values ('m', 0, 'size', 'u'), ('m', 1, 'p', 'p'), ('f', 0, 'p', 'p'), ('o', 0, 'p', 'p');
with recursive i(n) as (select 1 union all select n + 1 from i where n < $2)
insert into events (id, time, mono, boot, pid, tid, event, seq, source, a0, a1)
select n, n * 10, n * 10, 'b', 5, 5, case when n % 10 = 1 then 'm' when n % 10 = 0 and n <= $3 then 'f'
        else 'o' end, n, 1, case when n % 10 = 1 then 8 else 16 * n end, 16 * n from i" > /dev/null
        stale "$T/$1.db" "$4"
        for how in show sort; do
                rc=0
                TRACEQL_TEST_CORR=$how $TQ --db "$T/$1.db" --no-sync leaks --alloc m --free f \
                        > /dev/null 2> "$T/$1.$how.err" || rc=$?
                echo "exit $rc" >> "$T/$1.$how.err"
        done
        check_eq "correlate-step-error-$1" \
                "traceql: $T/$1.db: database disk image is malformed|exit 3" \
                "$(tr '\n' '|' < "$T/$1.show.err" | sed 's/|$//')"
        check_file "correlate-step-error-$1-same" "$T/$1.sort.err" "$T/$1.show.err"
done

# A damaged page of the event catalog, read as the events and arguments
# named are looked up: SQLite's error and exit 3, as in the scan (above) and
# in a query, not exit 4 as for an unknown event, nor "no argument" or "share
# no pointer argument" (the lookups' failures were taken for no row).
damage() {      # DB TABLE: overwrite the root page of TABLE
        python3 - "$1" "$2" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
size = db.execute("PRAGMA page_size").fetchone()[0]
root = db.execute("SELECT rootpage FROM sqlite_schema WHERE name = ?", (sys.argv[2],)).fetchone()[0]
db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
db.close()
with open(sys.argv[1], "r+b") as f:
    f.seek((root - 1) * size)
    f.write(b"\xa5" * size)
PY
}
for table in event_types event_args; do
        cp "$T/leaks.db" "$T/$table.db"
        damage "$T/$table.db" "$table"
        for c in "common qemu_malloc qemu_free" "named qemu_malloc:ptr qemu_free:ptr"; do
                # shellcheck disable=SC2086
                set -- $c
                rc=0
                $RUN "$TQ" --db "$T/$table.db" --no-sync leaks --alloc "$2" --free "$3" \
                        > /dev/null 2> "$T/err" || rc=$?
                check_eq "correlate-damaged-$table-$1" \
                        "traceql: $T/$table.db: database disk image is malformed|exit 3" \
                        "$(cat "$T/err")|exit $rc"
        done
done

# Any other failure of leaks' and pairs' own statements is the database's
# too (exit 3), whether it comes as the names are looked up or in the scan:
# a table of the schema dropped (a damaged catalog, as far as they can
# tell) was exit 4 in the lookups (an unknown event's status) and exit 1 in
# the scan (a wrong SQL's).  The --sql is the user's SQL: its failure is 1.
for table in event_args events; do
        cp "$T/leaks.db" "$T/no-$table.db"
        $TQ --db "$T/no-$table.db" --no-sync --write "drop table $table"
        for cmd in "leaks --alloc qemu_malloc --free qemu_free" "pairs --begin qemu_malloc --end qemu_free"; do
                rc=0
                # shellcheck disable=SC2086
                $RUN "$TQ" --db "$T/no-$table.db" --no-sync $cmd > /dev/null 2> "$T/err" || rc=$?
                check_eq "correlate-no-table-$table-${cmd%% *}" \
                        "traceql: $T/no-$table.db: no such table: $table|exit 3" "$(cat "$T/err")|exit $rc"
        done
done
rc=0
$RUN "$TQ" --db "$T/leaks.db" --no-sync leaks --alloc qemu_malloc --free qemu_free \
        --sql "select * from no_such_table" > /dev/null 2> "$T/err" || rc=$?
check_eq correlate-sql-error "traceql: $T/leaks.db: no such table: no_such_table|exit 1" "$(cat "$T/err")|exit $rc"

# --write keeps the results as tables; a later query sees them.
rc=0
$TQ --db "$T/leaks.db" --no-sync --write leaks --alloc qemu_malloc,qemu_valloc --free qemu_free \
        > /dev/null || rc=$?
check_eq correlate-write-exit 9 "$rc"
check_eq correlate-write-kept "3|5" "$($TQ --db "$T/leaks.db" --no-sync --format csv \
        "select (select count(*) from tq_leaks) || '|' || (select count(*) from tq_bad_frees)" | tail -n 1)"

# Requests still in flight count as unfreed: exit 9, a status of its own
# (it was 2, a usage error's).
rc=0
$TQ --db "$T/pairs.db" --no-sync leaks --alloc req_submit --free req_complete > /dev/null || rc=$?
check_eq correlate-inflight-leak-exit 9 "$rc"   # the 0xc0... requests
# Each command's --write replaces its own tables only.
$TQ --db "$T/pairs.db" --no-sync --write pairs --begin req_submit --end req_complete > /dev/null
$TQ --db "$T/pairs.db" --no-sync --write leaks --alloc req_submit --free req_complete > /dev/null || :
$TQ --db "$T/pairs.db" --no-sync --write pairs --begin req_submit --end req_complete > /dev/null
check_eq correlate-write-own-tables "6|1|3|1" "$($TQ --db "$T/pairs.db" --no-sync --format csv \
        "select (select count(*) from tq_pairs) || '|' || (select count(*) from tq_leaks) || '|' ||
                (select count(*) from tq_pairs_open) || '|' || (select count(*) from tq_pairs_stats)" |
        tail -n 1)"
printf '100 100 1 m a.c:1 p:p=0x10\n100 100 2 f b.c:1 p:p=0x10\n' > "$T/ok.trace"
python3 "$D/mkexport.py" "$T/ok.trace" > "$T/ok.export"
$TQ --db "$T/ok.db" import --export "$T/ok.export"
rc=0
$TQ --db "$T/ok.db" --no-sync leaks --alloc m --free f > "$T/ok.out" || rc=$?
check_eq correlate-clean-exit 0 "$rc"

# A database that cannot be opened is exit 3, as for a query, with or without
# the sync before (which made it 4, the exit of an unreadable journal).
mkdir "$T/dir.db"
printf 'not sqlite\n' > "$T/text.db"
for db in dir text; do
        for sync in --no-sync ""; do
                for cmd in "leaks --alloc m --free f" "pairs --begin m --end f"; do
                        rc=0
                        # shellcheck disable=SC2086
                        $TQ --db "$T/$db.db" $sync $cmd > /dev/null 2>&1 || rc=$?
                        check_eq "correlate-db-open-exit-$db${sync:+-no-sync}-${cmd%% *}" 3 "$rc"
                done
        done
done

# A central syslog file has no boot ids: the same pid on two hosts is two
# processes (host B's free of 0x10 did not free host A's allocation).
printf 'm(void *p, size_t size) "p %%p size %%zu"\nf(void *p) "p %%p"\n' > "$T/mf.events"
printf '%s app[100]: %s\n' '2024-01-01T00:00:01.000000+00:00 hostA' 'm p 0x10 size 5' \
        '2024-01-01T00:00:02.000000+00:00 hostB' 'f p 0x10' > "$T/hosts.log"
$TQ --db "$T/hosts.db" import --syslog "$T/hosts.log" --events "$T/mf.events" 2> /dev/null
check_eq correlate-syslog-hosts "1|unknown-free|2" "$($TQ --db "$T/hosts.db" --no-sync --format csv \
        leaks --alloc m --free f --sql "select (select count(*) from tq_leaks) || '|' ||
                (select group_concat(kind) from tq_bad_frees) || '|' ||
                (select count(DISTINCT e.host) from tq_bad_frees b, tq_leaks l, events e
                 where e.id in (b.id, l.id))" | tail -n 1)"
# The report and its tables say which host each row is of.
check_eq correlate-syslog-hosts-shown "hostA,100,m|hostB,100,f|hostA hostB" \
        "$($TQ --db "$T/hosts.db" --no-sync --format csv leaks --alloc m --free f \
                --sql "select (select host from tq_leaks) || ' ' || (select host from tq_bad_frees) as h" |
                awk -F, '!NF { s++; next } /^time,/ { next }
                        s == 0 { print $2 "," $3 "," $7 } s == 2 { print $2 "," $3 "," $7 }
                        s == 4 && NR > 1 && $0 != "h" { print }' | paste -sd '|')"

# The report's own aggregates, tq_bytes_sum() (leaks) and tq_mean_ns()
# (pairs), are no SQL functions of traceql.1: --sql, on the same connection
# after the report, does not find them (it did, an undocumented function
# only leaks' --sql had, or pairs').
for cmd in "leaks --alloc m --free f --size size|tq_bytes_sum" "pairs --begin m --end f|tq_mean_ns"; do
        fn=${cmd#*|} cmd=${cmd%|*}
        rc=0
        # shellcheck disable=SC2086
        $TQ --db "$T/hosts.db" --no-sync --format csv $cmd --sql "select $fn(5) as v" > /dev/null 2> "$T/err" || rc=$?
        check_eq "correlate-sql-no-$fn" "1|traceql: $T/hosts.db: no such function: $fn (SQL line 1, column 8)" \
                "$rc|$(cat "$T/err")"
done

# tq_pairs says the host of each pair too: the pairs of pid 100 on two hosts
# were two rows alike (boot null, pid 100).
printf '%s app[100]: %s\n' '2024-01-01T00:00:01.000000+00:00 hostA' 'm p 0x10 size 5' \
        '2024-01-01T00:00:02.000000+00:00 hostB' 'm p 0x10 size 6' \
        '2024-01-01T00:00:03.000000+00:00 hostB' 'f p 0x10' \
        '2024-01-01T00:00:04.000000+00:00 hostA' 'f p 0x10' > "$T/pairhosts.log"
$TQ --db "$T/pairhosts.db" import --syslog "$T/pairhosts.log" --events "$T/mf.events" 2> /dev/null
check_eq correlate-syslog-hosts-pairs "hostA 100 3000000000|hostB 100 1000000000" \
        "$($TQ --db "$T/pairhosts.db" --no-sync --format csv pairs --begin m --end f \
                --sql "select host || ' ' || pid || ' ' || latency as p from tq_pairs order by host" |
                sed -n '/^p$/,$p' | sed 1d | paste -sd '|')"

# Rows with neither seq nor monotonic time are in time order, not import
# order: the newer file imported first frees what the older one allocated.
printf '%s app[100]: %s\n' '2024-01-01T00:00:05.000000+00:00 hostA' 'f p 0x10' > "$T/new.log"
printf '%s app[100]: %s\n' '2024-01-01T00:00:01.000000+00:00 hostA' 'm p 0x10 size 5' > "$T/old.log"
for f in new old; do
        $TQ --db "$T/order.db" import --syslog "$T/$f.log" --events "$T/mf.events" 2> /dev/null
done
rc=0
$TQ --db "$T/order.db" --no-sync --format csv leaks --alloc m --free f > "$T/order.out" || rc=$?
check_eq correlate-syslog-time-order "0|allocs,frees,leaks,leaked_bytes,bad_frees,processes,no_correlator|1,1,0,,0,1,0" \
        "$rc|$(tail -n 2 "$T/order.out" | paste -sd '|')"
check_eq correlate-syslog-time-order-pairs "1|4000000000" "$($TQ --db "$T/order.db" --no-sync \
        --format csv pairs --begin m --end f --sql "select count(*) || '|' || max(latency) from tq_pairs" |
        tail -n 1)"

# A syslog file mixing our RFC 5424 output (seq and monotonic time) with a
# plain line of the same process (neither): time order, the plain line no
# longer first; the latency in time, not monotonic time minus time.
printf '%s %s\n' '<14>1 2024-01-01T00:00:01.000000+00:00 hostA app 100 -' \
        '[tj@32473 event="m" seq="1" time_ns="1704067201000000000" mono_ns="5000000000" arg_p="0x10" arg_size="5"] m p 0x10 size 5' \
        '2024-01-01T00:00:02.000000+00:00 hostA' 'app[100]: f p 0x10' > "$T/mixed.log"
$TQ --db "$T/mixed.db" import --syslog "$T/mixed.log" --events "$T/mf.events" 2> /dev/null
rc=0
$TQ --db "$T/mixed.db" --no-sync --format csv leaks --alloc m --free f > "$T/mixed.out" || rc=$?
check_eq correlate-syslog-mixed-seq "0|1,1,0,,0,1,0" "$rc|$(tail -n 1 "$T/mixed.out")"
check_eq correlate-syslog-mixed-seq-pairs "1|1000000000" "$($TQ --db "$T/mixed.db" --no-sync \
        --format csv pairs --begin m --end f --sql "select count(*) || '|' || max(latency) from tq_pairs" |
        tail -n 1)"

# A process whose events all have TRACE_SEQ, some without a monotonic time
# (seq order): a pair with an end or a begin without one is timed in time,
# not by one end's monotonic time against the other's time (1.7e18 ns).
printf '%s\n' '300 300 1/5000 b s.c:1 r:p=0x10' '300 300 2/-/7000 e c.c:1 r:p=0x10' \
        '301 301 1/-/5000 b s.c:1 r:p=0x10' '301 301 2/9000 e c.c:1 r:p=0x10' \
        '302 302 1/5000/900 b s.c:1 r:p=0x10' '302 302 2/5500/800 e c.c:1 r:p=0x10' > "$T/somemono.trace"
python3 "$D/mkexport.py" "$T/somemono.trace" > "$T/somemono.export"
$TQ --db "$T/somemono.db" import --export "$T/somemono.export"
check_eq correlate-pairs-some-mono "300 2000|301 4000|302 500" "$($TQ --db "$T/somemono.db" --no-sync \
        --format csv pairs --begin b --end e --sql "select pid || ' ' || latency as p from tq_pairs order by pid" |
        sed -n '/^p$/,$p' | sed 1d | paste -sd '|')"

# A --log line without a timestamp has no time (NULL): a pair with such an
# end has no latency, and is left out of the figures and the histogram.  It
# was timed from 0: 0 ns for two such ends, 1.7e18 ns (54 years) for a
# begin without a time and an end with one, the p90 and max of the report.
printf 'b(void *r) "r %%p"\ne(void *r) "r %%p"\n' > "$T/be.events"
printf '%s\n' 'b r 0x10' 'e r 0x10' 'b r 0x20' '2024-01-01T00:00:02.000000Z e r 0x20' \
        '2024-01-01T00:00:03.000000Z b r 0x30' '2024-01-01T00:00:03.000005Z e r 0x30' > "$T/notime.log"
$TQ --db "$T/notime.db" import --log "$T/notime.log" --events "$T/be.events" 2> /dev/null
check_eq correlate-pairs-no-time \
        "count,min_ns,p50_ns,p90_ns,p99_ns,max_ns,mean_ns|1,5000,5000,5000,5000,5000,5000|3,3,3,0,0,0,1,0|4096,8192,1|1 null null|3 null null|5 5000 12" \
        "$($TQ --db "$T/notime.db" --no-sync --format csv pairs --begin b --end e --histogram \
                --sql "select begin_id || ' ' || ifnull(latency, 'null') || ' ' || ifnull(bucket, 'null') as p
                       from tq_pairs order by begin_id" |
                grep -v '^$' | grep -v '^time,\|^begins,\|^lo_ns,\|^p$' | paste -sd '|')"

# Only the events of the lists decide how a process is ordered: a tj_dropped
# entry (the library's loss report, without seq) left the process ordered by
# monotonic time, where this free (seq 2, read the clock first) came before
# its allocation (seq 1): a leak and a free before the trace.
printf '%s\n' '100 100 1/200 m a.c:1 p:p=0x10' '100 100 2/100 f b.c:1 p:p=0x10' \
        '100 100 -/300 tj_dropped t.c:1 count:u=3' > "$T/dropped.trace"
python3 "$D/mkexport.py" "$T/dropped.trace" > "$T/dropped.export"
$TQ --db "$T/dropped.db" import --export "$T/dropped.export"
rc=0
$TQ --db "$T/dropped.db" --no-sync --format csv leaks --alloc m --free f > "$T/dropped.out" || rc=$?
check_eq correlate-dropped-seq-order "0|1,1,0,,0,1,0" "$rc|$(tail -n 1 "$T/dropped.out")"

# The scan in row order keeps every process's live set to the end: past
# 16384 processes, or past so many values beside the largest process's
# (TRACEQL_TEST_CORR_VALUES lowers the 1M), it gives way to the sort.
awk 'BEGIN { for (p = 1; p <= 16385; p++) printf "%d 1 1 m a.c:1 p:p=0x10\n", p
             print "1 1 2 f b.c:1 p:p=0x10" }' > "$T/procs.trace"
awk 'BEGIN { for (i = 1; i <= 20; i++) printf "5 5 %d m a.c:1 p:p=0x%x\n6 6 %d m a.c:1 p:p=0x%x\n", i, i * 16, i, i * 16
             print "6 6 21 f b.c:1 p:p=0x10" }' > "$T/values.trace"
for tr in procs values; do
        python3 "$D/mkexport.py" "$T/$tr.trace" > "$T/$tr.export"
        $TQ --db "$T/$tr.db" import --export "$T/$tr.export"
done
# bounded NAME DB WHICH ENV...: the scan is WHICH, and finds what the sort does
bounded() {
        name=$1 db=$2 which=$3
        shift 3
        env "$@" TRACEQL_TEST_CORR=show $TQ --db "$T/$db.db" --no-sync --format csv leaks --alloc m --free f \
                > "$T/$name.show" 2> "$T/$name.err" || :
        TRACEQL_TEST_CORR=sort $TQ --db "$T/$db.db" --no-sync --format csv leaks --alloc m --free f \
                > "$T/$name.sort" 2> /dev/null || :
        check_file "correlate-$name-same" "$T/$name.sort" "$T/$name.show"
        check_eq "correlate-$name" "traceql: scan $which" "$(cat "$T/$name.err")"
}
bounded bound-procs procs sorted
bounded bound-values values sorted TRACEQL_TEST_CORR_VALUES=10
bounded bound-values-under values "in row order" TRACEQL_TEST_CORR_VALUES=20
# pairs keeps the open begins only: an end forgets its key, so 20 requests
# of new ids, one at a time in each of two processes, are one value each
# (all 40 were kept, past 10 beside the largest process's 20: sorted).
awk 'BEGIN { for (i = 1; i <= 20; i++) for (p = 5; p <= 6; p++)
                printf "%d %d %d b a.c:1 r:p=0x%x\n%d %d %d e b.c:1 r:p=0x%x\n", p, p, 2 * i - 1, i * 16, p, p, 2 * i, i * 16 }' \
        > "$T/ids.trace"
python3 "$D/mkexport.py" "$T/ids.trace" > "$T/ids.export"
$TQ --db "$T/ids.db" import --export "$T/ids.export"
for how in show sort; do
        TRACEQL_TEST_CORR_VALUES=10 TRACEQL_TEST_CORR=$how $TQ --db "$T/ids.db" --no-sync --format csv \
                pairs --begin b --end e > "$T/ids.$how" 2> "$T/ids.$how.err" || :
done
check_file correlate-pairs-ended-forgotten-same "$T/ids.sort" "$T/ids.show"
check_eq correlate-pairs-ended-forgotten "traceql: scan in row order|40,40,40,0,0,0,2,0" \
        "$(cat "$T/ids.show.err")|$(tail -n 1 "$T/ids.show")"

# Random traces (tests/correlate/randtrace.py, seeds 1..40): stored in their
# order or not, the scan finds what the sort does, down to every row of
# every table.
for seed in $(seq 1 40); do
        python3 "$D/randtrace.py" "$seed" > "$T/r.trace"
        python3 "$D/mkexport.py" "$T/r.trace" > "$T/r.export"
        rm -f "$T"/r.db*
        $TQ --db "$T/r.db" import --export "$T/r.export"
        for cmd in "leaks --alloc m,r:new --free f,r:old --size size --sql
                        'select * from tq_leaks; select * from tq_bad_frees order by id, kind, address'" \
                   "pairs --begin b --end e --by w --sql 'select * from tq_pairs order by begin_id, end_id;
                        select * from tq_pairs_open order by id, kind, key'"; do
                for how in show sort; do
                        rc=0
                        eval "TRACEQL_TEST_CORR=$how \$TQ --db \"\$T/r.db\" --no-sync --format csv $cmd" \
                                > "$T/r.$how" 2> "$T/r.$how.err" || rc=$?
                        echo "exit $rc" >> "$T/r.$how"
                done
                grep -q '^traceql: scan in row order' "$T/r.show.err" && rows=$((${rows:-0} + 1))
                check_file "correlate-random-$seed-${cmd%% *}" "$T/r.sort" "$T/r.show"
        done
done
# (both ways taken: not every trace was sorted)
check_eq correlate-random-row-order-taken yes "$([ "${rows:-0}" -ge 10 ] && [ "$rows" -le 70 ] && echo yes)"

# The example through the real journald: its 3 deliberate leaks with their
# call sites, and every request paired.
if ! have_journald; then skip correlate-example "no journald"; exit 0; fi
TJ_IDENTIFIER=$TJ_TEST_ID TJ_EVENTS='*' "$B/examples/blockdemo" --threads 3 --requests 60 > /dev/null
$TQ --db "$T/ex.db" import --identifier "$TJ_TEST_ID"
rc=0
$TQ --db "$T/ex.db" --no-sync --format csv leaks --alloc qemu_vmalloc --free qemu_vfree --size size \
        --sql "select count(*) from tq_leaks" > "$T/ex.out" || rc=$?
check_eq correlate-example-leaks-exit 9 "$rc"
check_eq correlate-example-leak-count 3 "$(tail -n 1 "$T/ex.out")"
check_eq correlate-example-leak-funcs "bd_dev_open bd_dev_open bd_zero_page_init" \
        "$($TQ --db "$T/ex.db" --no-sync --format csv leaks --alloc qemu_vmalloc --free qemu_vfree \
           --sql "select group_concat(code_func, ' ') from (select code_func from tq_leaks order by code_func)" |
           tail -n 1)"
$TQ --db "$T/ex.db" --no-sync --format csv pairs --begin blk_req_submit --end blk_req_complete \
        --by is_write > "$T/pairs.out"
check_eq correlate-example-pairs \
        "begins,ends,matched,in_flight,unmatched_ends,duplicate_begins,processes,no_correlator|60,60,60,0,0,0,1,0" \
        "$(tail -n 2 "$T/pairs.out" | paste -sd '|')"
