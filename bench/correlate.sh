#!/bin/sh
# bench/correlate.sh - traceql leaks and pairs over 1M events (make bench).
#
# Builds a traceql database holding 500k allocations and 500k frees (every
# 1000th never freed) in 4 processes, with addresses reused, straight with
# SQL so only the analysis is timed, the events stored in their order as a
# journal import stores them; then prints events per second and the peak RSS
# of `traceql leaks` and `traceql pairs` (medians of 3 runs).  Then the same
# events stored out of order (all allocations, then all frees, as two files
# imported one after the other), which leaks and pairs sort first.
# Goal (issue 5): 1M alloc/free events analysed in under 1 s on this machine.
set -eu
cd "$(dirname "$0")/.."
TQ=build/traceql
[ -x "$TQ" ] || { echo "bench/correlate.sh: $TQ missing: run make" >&2; exit 2; }
T=$(mktemp -d "${TMPDIR:-/tmp}/tj-bench-corr.XXXXXX")
trap 'rm -rf "$T"' EXIT
N=${CORR_EVENTS:-1000000}
DB=$T/c.db

# build DB ORDER: the events stored in ORDER (time: their order; event: the
# allocations first)
build() {
        $TQ --db "$1" --write --no-sync "
insert into sources (kind, location, filter) values ('export', 'bench', '');
insert into event_types values ('m', 'm', 2, 'size:u ptr:p'), ('f', 'f', 1, 'ptr:p');
insert into event_args values ('m', 0, 'size', 'u'), ('m', 1, 'ptr', 'p'), ('f', 0, 'ptr', 'p');
with recursive i(n) as (select 0 union all select n + 1 from i where n < $N / 2 - 1)
insert into events (time, mono, boot, pid, tid, event, seq, source, code_file, code_line, a0, a1)
select * from (
select n * 2000 as t, n * 2000, 'b', n % 4, n % 4, 'm' as e, n / 4 * 2 + 1, 1, 'x.c', n % 7,
       64 + n % 100, CASE WHEN n % 1000 = 999 THEN 1000000000 + n ELSE 4096 + (n % 5000) * 64 END from i
union all
select n * 2000 + 1000, n * 2000 + 1000, 'b', n % 4, n % 4, 'f', n / 4 * 2 + 2, 1, 'y.c', 1,
       4096 + (n % 5000) * 64, NULL from i where n % 1000 != 999)
order by $2;
" > /dev/null
}
build "$DB" t

run() {
        best=
        for k in 1 2 3; do
                s=$(date +%s%N)
                /usr/bin/time -f %M -o "$T/rss" $TQ --db "$DB" --no-sync --format csv "$@" > "$T/out" || true
                e=$(date +%s%N)
                echo "$(( (e - s) / 1000 )) $(tail -n 1 "$T/rss")"
        done | sort -n | sed -n 2p
}
events=$($TQ --db "$DB" --no-sync --format csv 'select count(*) from events' | tail -n 1)
set -- $(run leaks --alloc m --free f --size size)
lt=$1 lr=$2
leaks=$(sed -n '/^allocs,/{n;p}' "$T/out" | cut -d, -f3)
set -- $(run pairs --begin m --end f)
pt=$1 pr=$2
DB=$T/c2.db
build "$DB" "e desc, t"
set -- $(run leaks --alloc m --free f --size size)
lt2=$1
set -- $(run pairs --begin m --end f)
pt2=$1
printf '%-34s %12s %14s %12s\n' "correlation ($events events)" "time" "events/s" "peak RSS"
awk -v n="$events" -v t="$lt" -v r="$lr" -v l="$leaks" 'BEGIN {
        printf "%-34s %10.3f s %14.0f %9d KiB\n", "traceql leaks (" l " leaks)", t / 1e6, n * 1e6 / t, r }'
awk -v n="$events" -v t="$pt" -v r="$pr" 'BEGIN {
        printf "%-34s %10.3f s %14.0f %9d KiB\n", "traceql pairs", t / 1e6, n * 1e6 / t, r }'
awk -v n="$events" -v t="$lt2" 'BEGIN {
        printf "%-34s %10.3f s %14.0f\n", "leaks, events out of order", t / 1e6, n * 1e6 / t }'
awk -v n="$events" -v t="$pt2" 'BEGIN {
        printf "%-34s %10.3f s %14.0f\n", "pairs, events out of order", t / 1e6, n * 1e6 / t }'
echo "goal: 1M alloc/free events analysed in under 1 s (issue 5)"
