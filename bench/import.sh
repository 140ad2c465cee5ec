#!/bin/sh
# import.sh - `make bench` figures for traceql: journal -> SQLite import
# throughput against a bare sd_journal_next + sd_journal_enumerate_data loop
# over the same entries (goal: ratio >= 0.8), and import memory for N/10 and
# N entries (goal: flat); then, with valgrind, the instructions per entry of
# each (callgrind), repeatable where the times are not.  No thresholds: it
# prints the figures.
#   sh bench/import.sh [N [ROUNDS]]       (default 100000 entries, 7 rounds)
set -eu
cd "$(dirname "$0")/.."
B=build
N=${1:-100000}
ROUNDS=${2:-7}
W=$(mktemp -d "${TMPDIR:-/tmp}/tq-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
ID="tq-bench-$$-$(date +%s)"
cc -O2 -o "$W/bare" bench/traceql_import.c $(pkg-config --cflags --libs libsystemd)
cc -O2 -o "$W/send" tests/traceql_send.c $(pkg-config --cflags --libs libsystemd)
cc -O2 -o "$W/floor" bench/store_floor.c $(pkg-config --cflags --libs sqlite3)

# send N entries shaped like blockdemo's (4 typed args) under ID, N/10 under
# ID-small and N/2 under ID-half (memory: SQLite's page caches fill up over
# the first few tens of thousands of rows, then it stays where it is)
gen() {
        awk -v id="$1" -v n="$2" 'BEGIN { for (i = 1; i <= n; i++)
                printf "SYSLOG_IDENTIFIER=%s\tTRACE_EVENT=blk_req_submit\tTRACE_GROUP=bench\tTRACE_ARGS=req:p sector:u nb_sectors:u is_write:i\tTRACE_SEQ=%d\tTRACE_TIME_NS=1700000000%09d\tTRACE_MONO_NS=%d\tTID=1\tCODE_FILE=bench.c\tCODE_LINE=1\tCODE_FUNC=f\tTRACE_ARG_REQ=0x7f00%08x\tTRACE_ARG_SECTOR=%d\tTRACE_ARG_NB_SECTORS=8\tTRACE_ARG_IS_WRITE=%d\tMESSAGE=blk_req_submit req 0x7f00%08x sector %d nb_sectors 8 is_write %d\n", id, i, i, i, i, i * 8, i % 2, i, i * 8, i % 2 }' |
                "$W/send"
}
gen "$ID" "$N"
gen "$ID-small" $((N / 10))
gen "$ID-half" $((N / 2))
journalctl --sync 2>/dev/null || true
i=0
while [ "$(journalctl -q -o cat "SYSLOG_IDENTIFIER=$ID" | wc -l)" -lt "$N" ] && [ $i -lt 600 ]; do
        sleep 0.1; i=$((i + 1)); done

"$W/bare" "$ID" > /dev/null             # warm the page cache
# ROUNDS rounds, each the bare loop then a whole traceql import (process
# start, a new database, final commit and close included) of the same
# entries: a noisy machine moves both, so the ratio is given of the best
# times and of the medians.
# Each round also measures the ceiling of any import that reads through the
# sd-journal API with one reader and keeps a SQLite row per entry, split over
# two threads as traceql's import of a short round is (a long one, as this,
# traceql reads with two where it may run on two CPUs: import_journal.c, the
# split): the least its reader can do (the bare loop plus each entry's
# cursor, libsystemd 252's only source of its sequence number) and the least
# its writer can do (bench/store_floor.c: SQLite alone storing the same rows,
# bound from C: with no crash safety, and --safe, as traceql must), alone and
# at once (two processes started together, until both are done); and the
# fixed cost of an import, what a traceql import that finds no entry takes
# (its sd_journal opens map every journal file, three times with
# --identifier: the tail and two streams; a query's sync pays it too).
secs() { echo $(($2 - $1)) | awk '{ printf "%.4f\n", $1 / 1e9 }'; }
for r in $(seq "$ROUNDS"); do
        "$W/bare" "$ID" | awk '{ print $3 }' >> "$W/bare.s"
        rm -f "$W"/big.db*
        t0=$(date +%s%N)
        $B/traceql --db "$W/big.db" import --identifier "$ID"
        t1=$(date +%s%N)
        secs "$t0" "$t1" >> "$W/tq.s"
        # read by one reader thread: traceql splits a long round between two
        # by itself where it may run on two CPUs or more (import_journal.c,
        # the split); TRACEQL_TEST_SPLIT_MIN so high that it never does
        rm -f "$W"/one.db*
        t0=$(date +%s%N)
        TRACEQL_TEST_SPLIT_MIN=1000000000000 $B/traceql --db "$W/one.db" import --identifier "$ID" 2> /dev/null
        t1=$(date +%s%N)
        secs "$t0" "$t1" >> "$W/one.s"
        rm -f "$W"/one.db*
        "$W/bare" "$ID" cursor | awk '{ print $3 }' >> "$W/cursor.s"
        "$W/floor" sql/schema.sql "$W/floor.db" "$N" journal | awk '{ print $3 }' >> "$W/floor.s"
        "$W/floor" --safe sql/schema.sql "$W/floor.db" "$N" journal | awk '{ print $3 }' >> "$W/safe.s"
        # the fixed cost: an import that finds no entry, from process start
        # to exit, against the bare loop's process over none
        rm -f "$W"/none.db*
        t0=$(date +%s%N)
        $B/traceql --db "$W/none.db" import --identifier "$ID-none"
        t1=$(date +%s%N)
        secs "$t0" "$t1" >> "$W/none.s"
        t0=$(date +%s%N)
        "$W/bare" "$ID-none" > /dev/null
        t1=$(date +%s%N)
        secs "$t0" "$t1" >> "$W/bare-none.s"
        for how in "" --safe; do
                t0=$(date +%s%N)
                "$W/bare" "$ID" cursor > /dev/null & p=$!
                "$W/floor" $how sql/schema.sql "$W/floor.db" "$N" journal > /dev/null
                wait $p
                t1=$(date +%s%N)
                secs "$t0" "$t1" >> "$W/pair$how.s"
        done
done
rm -f "$W"/floor.db*
rows=$($B/traceql --db "$W/big.db" --no-sync --format csv 'select count(*) from events' | tail -1)
rm -f "$W"/big.db*
/usr/bin/time -f %M -o "$W/rss.bare" "$W/bare" "$ID" > /dev/null
# peak RssAnon of "$@" (KiB), sampled every 10 ms from /proc: the memory the
# import itself holds, without the journal files sd-journal maps
anon_peak() {
        "$@" & p=$!
        m=0
        while kill -0 $p 2>/dev/null; do
                a=$(awk '/^RssAnon:/ { print $2 }' /proc/$p/status 2>/dev/null || true)
                [ -n "$a" ] && [ "$a" -gt "$m" ] && m=$a
                sleep 0.01
        done
        wait $p
        echo "$m"
}
/usr/bin/time -f %M -o "$W/rss.big" $B/traceql --db "$W/big.db" import --identifier "$ID"
/usr/bin/time -f %M -o "$W/rss.small" $B/traceql --db "$W/small.db" import --identifier "$ID-small"
rm -f "$W"/big.db* "$W"/small.db*
anon_big=$(anon_peak $B/traceql --db "$W/big.db" import --identifier "$ID")
anon_small=$(anon_peak $B/traceql --db "$W/small.db" import --identifier "$ID-small")
anon_half=$(anon_peak $B/traceql --db "$W/half.db" import --identifier "$ID-half")
best() { sort -n "$1" | head -1; }
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
rate() { awk -v n="$N" -v s="$1" 'BEGIN { printf "%.0f", n / s }'; }
bb=$(best "$W/bare.s") bm=$(median "$W/bare.s") tb=$(best "$W/tq.s") tm=$(median "$W/tq.s")
echo "traceql import: $N entries, $ROUNDS rounds; seconds: best, median (entries/s of each)"
echo "traceql import: bare sd_journal loop   $bb, $bm s ($(rate "$bb"), $(rate "$bm") entries/s)"
echo "traceql import: traceql import         $tb, $tm s ($(rate "$tb"), $(rate "$tm") entries/s; $rows rows)"
div() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
echo "traceql import: ratio traceql/bare     $(div "$bb" "$tb") of the best times, $(div "$bm" "$tm") of the medians (goal >= 0.8)"
xb=$(best "$W/one.s") xm=$(median "$W/one.s")
echo "traceql import: one reader thread       $xb, $xm s ($(div "$bb" "$xb"), $(div "$bm" "$xm") x the bare loop; traceql may run on $(nproc) CPUs here, and reads a long round with two readers on 2 or more)"
# each round's own ratio (its bare loop, then its import, seconds apart): a
# machine whose speed drifts over minutes moves both of a round alike
paste "$W/bare.s" "$W/tq.s" | awk '{ printf "%.4f\n", $1 / $2 }' | sort -n > "$W/paired.s"
echo "traceql import: ratio of each round    median $(div "$(median "$W/paired.s")" 1), from $(div "$(head -1 "$W/paired.s")" 1) to $(div "$(tail -1 "$W/paired.s")" 1) ($ROUNDS rounds)"
cb=$(best "$W/cursor.s") cm=$(median "$W/cursor.s") fb=$(best "$W/floor.s") fm=$(median "$W/floor.s")
sb=$(best "$W/safe.s") sm=$(median "$W/safe.s")
pb=$(best "$W/pair.s") pm=$(median "$W/pair.s") qb=$(best "$W/pair--safe.s") qm=$(median "$W/pair--safe.s")
echo "traceql import: floor: reader, bare loop + each entry's cursor   $cb, $cm s ($(div "$cb" "$bb"), $(div "$cm" "$bm") x the bare loop)"
echo "traceql import: floor: writer, SQLite alone, no crash safety     $fb, $fm s ($(div "$fb" "$bb"), $(div "$fm" "$bm") x the bare loop)"
echo "traceql import: floor: writer, SQLite alone, crash-safe (WAL)    $sb, $sm s ($(div "$sb" "$bb"), $(div "$sm" "$bm") x the bare loop)"
echo "traceql import: floor: reader and writer at once, two cores      $pb, $pm s; crash-safe $qb, $qm s"
echo "traceql import: ceiling of any import with one reader thread through sd-journal into SQLite rows: bare/both $(div "$bb" "$pb"), $(div "$bm" "$pm"); crash-safe $(div "$bb" "$qb"), $(div "$bm" "$qm") (best, median)"
nb=$(best "$W/none.s") nm=$(median "$W/none.s") zb=$(best "$W/bare-none.s") zm=$(median "$W/bare-none.s")
files=$(find /run/log/journal /var/log/journal -name '*.journal*' 2> /dev/null | wc -l)
echo "traceql import: fixed cost, no entry found (process start to exit): traceql $nb, $nm s; bare loop $zb, $zm s; traceql's is $(awk -v a="$nb" -v b="$tb" 'BEGIN { printf "%.0f", 100 * a / b }')% of its best import ($files journal files; each sd_journal opens all of them)"
echo "traceql import: peak anonymous RSS $((N / 10)) entries $anon_small KiB, $((N / 2)) entries $anon_half KiB, $N entries $anon_big KiB (goal: flat; sampled every 10 ms)"
echo "traceql import: max RSS $((N / 10)) entries $(cat "$W/rss.small") KiB, $N entries $(cat "$W/rss.big") KiB (with the mapped journal files)"
echo "traceql import:   (the bare loop's RSS for $N entries: $(cat "$W/rss.bare") KiB: the journal files sd-journal maps count in RSS)"

# Instructions (callgrind), which a noisy machine does not move: the same
# binaries on the same entries count the same.  The N/2 entries of ID-half:
# the bare loop, the bare loop with cursors, SQLite alone storing them
# crash-safe, and traceql import per thread (the calling thread writes,
# the second reads the journal, a side thread reads the second half of it,
# another checkpoints the WAL: told apart by their functions).
if command -v valgrind > /dev/null 2>&1; then
        H=$((N / 2))
        cg_total() { sed -n 's/^summary: //p' "$1" | head -1; }
        cg() {  # cg OUT CMD...: callgrind's total of CMD (every thread summed)
                out=$1; shift
                valgrind --tool=callgrind --callgrind-out-file="$W/$out" "$@" > /dev/null 2>&1
                cg_total "$W/$out"
        }
        ib=$(cg cg.bare "$W/bare" "$ID-half")
        ic=$(cg cg.cursor "$W/bare" "$ID-half" cursor)
        is=$(cg cg.safe "$W/floor" --safe sql/schema.sql "$W/floor.db" "$H" journal)
        rm -f "$W"/floor.db* "$W"/cg.db*
        valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$W/cg.tq" \
                $B/traceql --db "$W/cg.db" import --identifier "$ID-half" > /dev/null 2>&1
        iw=$(cg_total "$W/cg.tq-01") ir=0 id=0 ik=0
        for f in "$W"/cg.tq-*; do
                case $f in
                *-01) ;;
                *)      if grep -q import_journal_side_main "$f"; then id=$(cg_total "$f")
                        elif grep -q ingest_ckpt_run "$f"; then ik=$(cg_total "$f")
                        else ir=$(cg_total "$f"); fi ;;
                esac
        done
        it=$((ir + id + iw + ik))
        im=$ir
        [ "$id" -gt "$im" ] && im=$id
        [ "$iw" -gt "$im" ] && im=$iw
        rm -f "$W"/cg.db*
        per() { awk -v a="$1" -v n="$H" 'BEGIN { printf "%.0f", a / n }'; }
        echo "traceql import: instructions per entry (callgrind, $H entries; repeatable): bare loop $(per "$ib"), bare loop + cursor $(per "$ic") ($(div "$ic" "$ib") x), SQLite alone crash-safe $(per "$is") ($(div "$is" "$ib") x)"
        echo "traceql import: instructions per entry of traceql import: reader thread $(per "$ir") ($(div "$ir" "$ib") x the bare loop), side reader thread $(per "$id") ($(div "$id" "$ib") x; 0: not split), both readers $(per $((ir + id))) ($(div $((ir + id)) "$ib") x), writer thread $(per "$iw") ($(div "$iw" "$ib") x), checkpointer $(per "$ik"); all threads $(div "$it" "$ib") x"
        echo "traceql import: instruction ceilings of traceql/bare: the busiest thread alone $(div "$ib" "$im"); all threads on one core $(div "$ib" "$it"); on two cores $(div $((2 * ib)) "$it")"
else
        echo "traceql import: instructions per entry: n/a (valgrind missing)"
fi
