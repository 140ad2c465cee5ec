#!/bin/sh
# t-traceql-split.sh - a long journal import read by two threads (traceql.1,
# import_journal.c "the split").
#
# A round of many entries of one seqnum id is read by the reader up to the
# middle of its seqnums and by a side thread from there; the writer takes
# from both.  Whatever the split, the rows and the stored position are those
# of an import read by one thread; an import killed while the side thread's
# rows are in the database resumes in the reader's part and ends with the
# same rows; where the split cannot be made (two seqnum ids, --until, a side
# thread that cannot open its journal files) the import is read whole by the
# reader; with one CPU to run on, or too few entries in the rest of the
# round at the density of the first SPLIT_MIN / 8, it is not made.
# $TRACEQL_TEST_SPLIT_MIN lowers the size a round needs (40000) and has
# traceql say on stderr where it split.
. "$(dirname "$0")/lib/common.sh"

TQ=$B/traceql
if [ ! -x "$TQ" ]; then fail traceql-built "$TQ missing: run make"; exit 0; fi
JR=/lib/systemd/systemd-journal-remote
if [ ! -x "$JR" ]; then skip split "no $JR (Debian package systemd-journal-remote)"; exit 0; fi

# mkjournal FILE N [BOOT [FIRST]]: a journal file of N entries, numbered
# from FIRST (1), the fifth each of SYSLOG_IDENTIFIER other, the rest sp;
# events ev_a and ev_b in turns, with arguments; the time one second a
# number from 1700000000
mkjournal() {
        awk -v n="$2" -v boot="${3:-fedcba9876543210fedcba9876543210}" -v first="${4:-1}" 'BEGIN { for (i = first; i < first + n; i++)
                printf "__CURSOR=s=0123456789abcdef0123456789abcdef;i=%x;b=%s;m=%x;t=1;x=1\n__REALTIME_TIMESTAMP=%.0f\n__MONOTONIC_TIMESTAMP=%d\n_BOOT_ID=%s\n_HOSTNAME=h\n_PID=42\nSYSLOG_IDENTIFIER=%s\nTRACE_EVENT=ev_%s\nTRACE_ARGS=n:u p:p s:s\nTRACE_SEQ=%d\nTRACE_ARG_N=%d\nTRACE_ARG_P=0x%x\nTRACE_ARG_S=s%d\nMESSAGE=ev number %d\n\n",
                        i, boot, i, (1700000000 + i) * 1000000, i, boot, i % 5 == 0 ? "other" : "sp",
                        i % 2 ? "a" : "b", i, i, i * 16, i, i }' | "$JR" -o "$1" - 2> /dev/null
}
run() { tq_run "$@"; }   # exact status and stderr (common.sh)
# rows DB: every row and the stored positions
rows() {
        "$TQ" --db "$1" --no-sync --format csv 'select * from events order by id;
                select kind, location, filter, cursor from sources order by id'
}
# whole NAME ARGS...: the import, as one thread reads it, in $T/NAME.db
whole() {
        name=$1
        shift
        rm -f "$T/$name.db"
        TRACEQL_TEST_SPLIT_MIN=1000000000 "$TQ" --db "$T/$name.db" import "$@" 2> /dev/null
}

N=30000
mkdir "$T/d"
mkjournal "$T/d/a.journal" $N
whole one --directory "$T/d" --identifier sp
check_eq split-whole-count 24000 "$("$TQ" --db "$T/one.db" --no-sync --format csv 'select count(*) from events' | tail -n 1)"

# ---- the same rows and position ---------------------------------------------
export TRACEQL_TEST_SPLIT_MIN=1000
run split-said 0 "traceql: test: split at seqnum 15078 of 157..29999 after 125 entries" \
        --db "$T/s.db" import --directory "$T/d" --identifier sp
check_eq split-rows "$(rows "$T/one.db")" "$(rows "$T/s.db")"
run split-again-said 0 "" --db "$T/s.db" import --directory "$T/d" --identifier sp
check_eq split-again-rows "$(rows "$T/one.db")" "$(rows "$T/s.db")"

# --file, and without --identifier: a stream per event name
whole all --file "$T/d/a.journal"
run split-file-all-said 0 "traceql: test: split at seqnum 15063 of 126..30000 after 125 entries" \
        --db "$T/sa.db" import --file "$T/d/a.journal"
check_eq split-file-all-rows "$(rows "$T/all.db" | sed 's/^journal,files:/journal,F/')" \
        "$(rows "$T/sa.db" | sed 's/^journal,files:/journal,F/')"

# --since: its entries only, split or not
S=$((1700000000 + 6000))
whole since --directory "$T/d" --identifier sp --since @$S
run split-since-said 0 "traceql: test: split at seqnum 18078 of 6157..29999 after 125 entries" \
        --db "$T/ss.db" import --directory "$T/d" --identifier sp --since @$S
check_eq split-since-rows "$(rows "$T/since.db")" "$(rows "$T/ss.db")"

# after a position: the round from there is split
whole pos --directory "$T/d" --identifier sp --until @$((1700000000 + 10000))
whole pos --directory "$T/d" --identifier sp
rm -f "$T/ps.db"
TRACEQL_TEST_SPLIT_MIN=1000000000 "$TQ" --db "$T/ps.db" import --directory "$T/d" --identifier sp \
        --until @$((1700000000 + 10000)) 2> /dev/null
run split-after-position-said 0 "traceql: test: split at seqnum 20078 of 10157..29999 after 125 entries" \
        --db "$T/ps.db" import --directory "$T/d" --identifier sp
check_eq split-after-position-rows "$(rows "$T/pos.db")" "$(rows "$T/ps.db")"

# ---- killed: the position stays in the reader's part ------------------------
# the writer commits every 10000 entries; killed after 15000 of them, the
# commit holds entries of both threads, the position in the reader's part,
# before the split, and the side thread's rows past it
rm -f "$T/k.db"
TRACEQL_TEST_KILL_AFTER=15000 "$TQ" --db "$T/k.db" import --directory "$T/d" --identifier sp \
        > /dev/null 2>&1 && rc=0 || rc=$?
check_eq split-killed-status 137 "$rc"
k=$("$TQ" --db "$T/k.db" --no-sync --format csv "select count(*),
        (select count(*) from events where id & 0xfffffffffff >= 15001) > 0,
        (select cursor from sources) like 's=%'
        from events" | tail -n 1)
check_eq split-killed-committed "10000,1,1" "$k"
pos=$("$TQ" --db "$T/k.db" --no-sync --format csv "select cursor from sources" | tail -n 1 |
        sed 's/.*;i=\([0-9a-f]*\);.*/\1/')
check_eq split-killed-position-in-reader-part 1 "$((0x$pos < 15001))"
# the 125th entry of sp after the position: the reader decides there
cur=$(awk -v p=$((0x$pos)) 'BEGIN { for (i = p + 1; n < 125; i++) if (i % 5) n++; print i - 1 }')
run split-killed-resumed-said 0 "traceql: test: split at seqnum $((cur + 1 + (29999 - cur) / 2)) of $((cur + 1))..29999 after 125 entries" \
        --db "$T/k.db" import --directory "$T/d" --identifier sp
check_eq split-killed-resumed-rows "$(rows "$T/one.db")" "$(rows "$T/k.db")"

# --follow interrupted (SIGINT) while the side thread waits for room in its
# ring: the reader quits that ring to stop it, which is no failure (it said
# "traceql: " with no message and exited 4, and removed the database it
# made).  The reader's part, entries of sp without an event, costs the
# writer nothing; the side's, an event each of a name of its own (a view
# made for each), much, so the side's ring is full.
mkdir "$T/fi"
awk 'BEGIN { for (i = 1; i <= 80000; i++) {
        if (i <= 40000) x = "SYSLOG_IDENTIFIER=sp\nMESSAGE=plain " i "\n"
        else if (i <= 76000) x = "SYSLOG_IDENTIFIER=zz\nMESSAGE=z\n"
        else x = "SYSLOG_IDENTIFIER=sp\nTRACE_EVENT=ev_" i "\nTRACE_ARGS=n:u\nTRACE_ARG_N=" i "\nMESSAGE=m\n"
        printf "__REALTIME_TIMESTAMP=%.0f\n__MONOTONIC_TIMESTAMP=%d\n_BOOT_ID=fedcba9876543210fedcba9876543210\n_HOSTNAME=h\n_PID=42\n%s\n",
                (1700000000 + i) * 1000000, i, x } }' | "$JR" -o "$T/fi/a.journal" - 2> /dev/null
whole fi --directory "$T/fi" --identifier sp
got= want=
for i in 1 2 3 4 5 6 7 8; do
        rm -f "$T/sfi.db"
        rc=0
        TRACEQL_TEST_KILL_AFTER=300 TRACEQL_TEST_KILL_SIGNAL=2 $RUN "$TQ" --db "$T/sfi.db" import \
                --follow --directory "$T/fi" --identifier sp > /dev/null 2> "$T/err" < /dev/null || rc=$?
        got="$got$rc|$(cat "$T/err")|$([ -e "$T/sfi.db" ] && echo db || echo "no db")
"
        want="${want}0|traceql: test: split at seqnum 40063 of 126..80000 after 125 entries|db
"
done
check_eq split-follow-interrupted "$want" "$got"
"$TQ" --db "$T/sfi.db" import --directory "$T/fi" --identifier sp 2> /dev/null
check_eq split-follow-interrupted-resumed-rows "$(rows "$T/fi.db")" "$(rows "$T/sfi.db")"

# ---- no split ----------------------------------------------------------------
# --until: entries past it hold the position back, which the side thread's
# cannot
whole until --directory "$T/d" --identifier sp --until @$((1700000000 + 25000))
run split-until-none 0 "" --db "$T/su.db" import --directory "$T/d" --identifier sp \
        --until @$((1700000000 + 25000))
check_eq split-until-rows "$(rows "$T/until.db")" "$(rows "$T/su.db")"

# two seqnum ids (two hosts' files): their order is by time, not seqnum.
# The other host's entries are dated from the 20001st second on, so that the
# reader's first 125 entries are all of the first (the split is decided
# there, on an entry of the round's last seqnum id)
mkdir "$T/two"
cp "$T/d/a.journal" "$T/two/"
mkjournal "$T/two/b.journal" 3000 00112233445566778899aabbccddeeff 20001
whole two --directory "$T/two" --identifier sp
run split-two-ids-none 0 "" --db "$T/st.db" import --directory "$T/two" --identifier sp
check_eq split-two-ids-rows "$(rows "$T/two.db")" "$(rows "$T/st.db")"
check_eq split-two-ids-count 26400 "$("$TQ" --db "$T/st.db" --no-sync --format csv 'select count(*) from events' | tail -n 1)"

# ... however sd-journal finds the other id's file: hidden, or in a
# machine's directory named in capitals or in the UUID form
for where in .b.journal 00112233445566778899AABBCCDDEEFF/b.journal \
        00112233-4455-6677-8899-aabbccddeeff/b.journal; do
        rm -rf "$T/two"
        mkdir -p "$T/two/$(dirname "$where")"
        cp "$T/d/a.journal" "$T/two/"
        mkjournal "$T/two/$where" 3000 00112233445566778899aabbccddeeff 20001
        run "split-two-ids-none-$where" 0 "" --db "$T/st2.db" import --directory "$T/two" --identifier sp
        check_eq "split-two-ids-count-$where" 26400 "$("$TQ" --db "$T/st2.db" --no-sync --format csv 'select count(*) from events' | tail -n 1)"
        rm -f "$T/st2.db"
done

# a side thread that cannot open its streams: the reader reads its part too
TRACEQL_TEST_SPLIT_FAIL=1 run split-side-failed 0 "traceql: test: split at seqnum 15078 of 157..29999 after 125 entries
traceql: test: not split: Too many open files" --db "$T/sf.db" import --directory "$T/d" --identifier sp
check_eq split-side-failed-rows "$(rows "$T/one.db")" "$(rows "$T/sf.db")"
# ... and with --follow the writer, once the reader's part is written,
# waits on the reader's ring alone: it looked at both rings every
# millisecond for as long as it ran (about 1000 wakeups a second, idle)
rm -f "$T/sff.db"
TRACEQL_TEST_SPLIT_FAIL=1 "$TQ" --db "$T/sff.db" import --follow --directory "$T/d" --identifier sp \
        > /dev/null 2> "$T/sff.err" &
pid=$!
i=0
while [ "$("$TQ" --db "$T/sff.db" --no-sync --format csv 'select count(*) from events' 2> /dev/null |
        tail -n 1)" != 24000 ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.5
a=$(awk '/^voluntary_ctxt_switches/ { print $2 }' "/proc/$pid/task/$pid/status")
sleep 1
b=$(awk '/^voluntary_ctxt_switches/ { print $2 }' "/proc/$pid/task/$pid/status")
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
check_eq split-side-failed-follow-idle "0|idle" "$rc|$([ $((b - a)) -lt 50 ] && echo idle || echo "$((b - a)) wakeups in 1 s")"
check_eq split-side-failed-follow-rows "$(rows "$T/one.db")" "$(rows "$T/sff.db")"

# one CPU to run on: the threads would take turns, to no gain
if command -v taskset > /dev/null 2>&1 && [ "$(nproc)" -ge 2 ]; then
        rm -f "$T/sc.db"
        rc=0
        taskset -c "$(taskset -pc $$ | sed 's/.*: *//; s/[-,].*//')" "$TQ" --db "$T/sc.db" import \
                --directory "$T/d" --identifier sp > /dev/null 2> "$T/err" || rc=$?
        check_eq split-one-cpu-none "0|" "$rc|$(cat "$T/err")"
        check_eq split-one-cpu-rows "$(rows "$T/one.db")" "$(rows "$T/sc.db")"
else
        skip split-one-cpu "no taskset, or one CPU to run on already"
fi

# too few entries: after 7500 (SPLIT_MIN / 8, up to seqnum 9375) the rest
# holds about 16500, fewer than SPLIT_MIN / 2
TRACEQL_TEST_SPLIT_MIN=60000 run split-short-none 0 "" --db "$T/sn.db" import --directory "$T/d" \
        --identifier sp
check_eq split-short-rows "$(rows "$T/one.db")" "$(rows "$T/sn.db")"

# few entries in a long stretch of seqnums: "other" is every fifth; after
# 2500 of them (seqnum 12500) the rest holds 3500, fewer than 10000, though
# its seqnums span more than SPLIT_MIN (the sync before a query, finding few
# new entries in a busy journal, pays no side thread's opens)
whole other --directory "$T/d" --identifier other
TRACEQL_TEST_SPLIT_MIN=20000 run split-sparse-none 0 "" --db "$T/so.db" import --directory "$T/d" \
        --identifier other
check_eq split-sparse-rows "$(rows "$T/other.db")" "$(rows "$T/so.db")"

# ---- the local journal, through journald ----------------------------------
# split when its files are all of one seqnum id, as one journald writes them
if ! have_journald; then
        skip split-local "no journald socket"
        common_exit
        exit 0
fi
ids=$(find /run/log/journal /var/log/journal -name '*.journal' -o -name '*.journal~' 2> /dev/null |
        while read -r f; do od -An -tx1 -j72 -N16 "$f" | tr -d ' \n'; echo; done | sort -u)
cc -Wall -Wextra -Werror -o "$T/send" "$TOP/tests/traceql_send.c" \
        $(pkg-config --cflags --libs libsystemd)
awk -v id="$TJ_TEST_ID" 'BEGIN { for (i = 1; i <= 3000; i++)
        printf "SYSLOG_IDENTIFIER=%s\tTRACE_EVENT=ev\tTRACE_ARGS=n:u\tTRACE_SEQ=%d\tTRACE_ARG_N=%d\tMESSAGE=ev %d\n", id, i, i, i }' |
        "$T/send"
journalctl --sync 2> /dev/null || true
i=0
while [ "$(journalctl -q -o cat "SYSLOG_IDENTIFIER=$TJ_TEST_ID" | wc -l)" -lt 3000 ] && [ $i -lt 300 ]; do
        sleep 0.1; i=$((i + 1)); done
whole local --identifier "$TJ_TEST_ID"
check_eq split-local-count 3000 "$("$TQ" --db "$T/local.db" --no-sync --format csv 'select count(*) from events' | tail -n 1)"
TRACEQL_TEST_SPLIT_MIN=500 "$TQ" --db "$T/sl.db" import --identifier "$TJ_TEST_ID" 2> "$T/err"
if [ "$(printf '%s\n' "$ids" | grep -c .)" = 1 ]; then
        check_eq split-local-said 1 "$(grep -c '^traceql: test: split at seqnum [0-9]* of [0-9]*\.\.[0-9]* after 62 entries$' "$T/err")"
else
        skip split-local-said "the local journal's files have several seqnum ids"
fi
check_eq split-local-rows "$(rows "$T/local.db")" "$(rows "$T/sl.db")"

common_exit
