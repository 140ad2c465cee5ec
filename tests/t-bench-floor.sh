#!/bin/sh
# t-bench-floor.sh - the floors `make bench` sets the import goals against
# (bench/store_floor.c, bench/traceql_import.c) do the work they are said to
# do, so a figure beside them compares like with like: store_floor stores
# exactly N rows of its shape, with and without crash safety (--safe: WAL,
# the index on event kept); traceql_import reads the same entries with and
# without their cursors, as many as traceql import keeps.  No timing here:
# the figures are make bench's.
. "$(dirname "$0")/lib/common.sh"
CC=${CC:-cc}
SQLITE=$(pkg-config --cflags --libs sqlite3)
SDJ=$(pkg-config --cflags --libs libsystemd)
$CC -O2 -o "$T/floor" "$TOP/bench/store_floor.c" $SQLITE
$CC -O2 -o "$T/bare" "$TOP/bench/traceql_import.c" $SDJ
$CC -O2 -o "$T/send" "$TOP/tests/traceql_send.c" $SDJ

q() { $B/traceql --db "$1" --no-sync --format csv "$2" | tail -n +2; }

for shape in journal syslog; do
        "$T/floor" "$TOP/sql/schema.sql" "$T/$shape.db" 1000 $shape > "$T/out"
        check_eq "floor-$shape-says" "1000 rows" "$(cut -d' ' -f1,2 "$T/out")"
        check_eq "floor-$shape-rows" "1000,1000,1000" \
                "$(q "$T/$shape.db" 'select count(*), count(distinct message), count(a3) from events')"
        check_eq "floor-$shape-no-index" "0" \
                "$(q "$T/$shape.db" "select count(*) from sqlite_master where name in ('events_event', 'events_seq1')")"
        "$T/floor" --safe "$TOP/sql/schema.sql" "$T/$shape.db" 25000 $shape > /dev/null
        check_eq "floor-$shape-safe" "25000,2,wal" \
                "$(q "$T/$shape.db" "select count(*) as n, (select count(*) from sqlite_master
                        where name in ('events_event', 'events_seq1')) as i, (select * from pragma_journal_mode) as j
                        from events")"
done
check_eq floor-syslog-events "blk_req_complete blk_req_error blk_req_submit qemu_vmalloc" \
        "$(q "$T/syslog.db" "select group_concat(event, ' ') from (select distinct event from events order by 1)")"

out=$("$T/floor" "$TOP/sql/schema.sql" "$T/x.db" 10 csv 2>&1) && r=0 || r=$?
check_eq floor-usage "2 usage: store_floor [--safe] SCHEMA.sql DB N journal|syslog" "$r $out"
out=$("$T/floor" "$T/missing.sql" "$T/x.db" 10 syslog 2>&1) && r=0 || r=$?
check_eq floor-no-schema "1 store_floor: cannot read $T/missing.sql" "$r $out"

if ! have_journald; then
        skip bench-bare-reads "no journald"
        exit 0
fi
awk -v id="$TJ_TEST_ID" 'BEGIN { for (i = 1; i <= 300; i++)
        printf "SYSLOG_IDENTIFIER=%s\tTRACE_EVENT=blk_req_submit\tTRACE_ARGS=req:p\tTRACE_SEQ=%d\tTRACE_ARG_REQ=0x%x\tMESSAGE=blk_req_submit req 0x%x\n", id, i, i, i }' |
        "$T/send"
i=0
while [ "$(journalctl -q -o cat "SYSLOG_IDENTIFIER=$TJ_TEST_ID" | wc -l)" -lt 300 ] && [ $i -lt 100 ]; do
        sleep 0.1; i=$((i + 1)); done
"$T/bare" "$TJ_TEST_ID" > "$T/plain"
"$T/bare" "$TJ_TEST_ID" cursor > "$T/cursor"
check_eq bench-bare-reads "300 entries" "$(cut -d' ' -f1,2 "$T/plain")"
check_eq bench-bare-cursor-reads "300 entries" "$(cut -d' ' -f1,2 "$T/cursor")"
# the cursors add their bytes: s=32 hex;i=...;b=32 hex;... is over 90 a cursor
plain=$(sed 's/.*(\([0-9]*\) bytes)/\1/' "$T/plain")
cursor=$(sed 's/.*(\([0-9]*\) bytes)/\1/' "$T/cursor")
check_eq bench-bare-cursor-asked "yes" "$([ $((cursor - plain)) -gt $((300 * 90)) ] && echo yes || echo "no: $plain, $cursor")"
$B/traceql --db "$T/j.db" import --identifier "$TJ_TEST_ID"
check_eq bench-bare-same-as-import "300" "$(q "$T/j.db" 'select count(*) from events')"
out=$("$T/bare" "$TJ_TEST_ID" cursors 2>&1) && r=0 || r=$?
check_eq bench-bare-usage "2 usage: traceql_import IDENTIFIER [cursor]" "$r $out"
