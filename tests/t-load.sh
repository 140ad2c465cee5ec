#!/bin/sh
# t-load.sh - sustained load with exact loss accounting (issue 9): 8 threads x
# 1M events into the simple output (a file, written by the writer thread,
# which records every loss as a "dropped" record), in drop mode: the events in
# the file plus the dropped counts in the file equal the events emitted, and
# match tj_get_stats.  Then 8 x 100k in block mode: nothing dropped, every
# event in the file.  The file is counted by tests/simple-count.py.  (journald
# would take minutes for 8M entries; the figures, including block mode at
# full size, are in `make bench`, bench/load.sh.)
. "$(dirname "$0")/lib/common.sh"
E="$B/tests/lib-emit"

# load NAME THREADS EVENTS [ENV...]: run, then compare stats with the file
load() {
        name=$1 threads=$2 n=$3
        shift 3
        env "$@" TJ_OUTPUT=simple TJ_SIMPLE_FILE="$T/load.simple" TJ_EVENTS=tgb_req \
                $RUN "$E" init "threads:$threads:$n" flush stats > "$T/stats"
        python3 "$TOP/tests/simple-count.py" "$T/load.simple" > "$T/count"
        total=$((threads * n))
        set -- $(sed 's/[a-z]*=//g' "$T/stats") $(sed 's/[a-z]*=//g' "$T/count")
        # $1 emitted, $2 written, $3 dropped (stats); $4 events, $5 dropped (file)
        check_eq "load-$name-accounting" "emitted=$total file=$total stats=$total" \
                "emitted=$1 file=$(($4 + $5)) stats=$(($2 + $3))"
        check_eq "load-$name-file-matches-stats" "events=$2 dropped=$3" "events=$4 dropped=$5"
        rm -f "$T/load.simple"
}

load drop-8x1M 8 1000000
load block-8x100k 8 100000 TJ_ON_FULL=block
check_eq load-block-nothing-dropped "0" "$(sed 's/.*dropped=//' "$T/count")"
