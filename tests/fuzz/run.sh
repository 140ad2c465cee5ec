#!/bin/sh
# tests/fuzz/run.sh - run libFuzzer targets (make fuzz, tests/t-fuzz.sh).
#
#     sh tests/fuzz/run.sh SECONDS NAME...
#
# Runs build/fuzz/fuzz_NAME for SECONDS on a working corpus build/fuzz/corpus/
# NAME (new inputs land there; the committed seeds in tests/fuzz/seeds/NAME are
# read, never written), crash reproducers go to build/fuzz/crash/NAME-*.  Logs
# in build/fuzz/NAME.log.  Prints one line per target:
#     NAME: N execs in S s, corpus C, crashes K
# (S the seconds it really ran: a crash stops a target early).
# and appends it to build/fuzz/summary.  Exits 1 when a target crashed.
# FUZZ_DIR overrides build/fuzz (t-fuzz.sh uses its scratch directory).
# FUZZ_SEED=N fixes libFuzzer's random seed (-seed=N): the run then follows
# one sequence of inputs, and a shorter run (a slower machine) only stops
# earlier in it.  t-fuzz.sh does so; `make fuzz` leaves the seed random.
cd "$(dirname "$0")/../.." || exit 2
secs=$1
shift
dir=${FUZZ_DIR:-build/fuzz}
mkdir -p "$dir/crash"
status=0
for name in "$@"; do
        bin=build/fuzz/fuzz_$name
        mkdir -p "$dir/corpus/$name"
        seeds=
        [ -d "tests/fuzz/seeds/$name" ] && seeds="tests/fuzz/seeds/$name"
        rm -f "$dir/crash/$name-"*
        start=$(date +%s)
        "$bin" ${FUZZ_SEED:+-seed="$FUZZ_SEED"} -max_total_time="$secs" -timeout=10 -rss_limit_mb=1024 -print_final_stats=1 \
                -artifact_prefix="$dir/crash/$name-" "$dir/corpus/$name" $seeds \
                > "$dir/$name.log" 2>&1
        rc=$?
        secs_run=$(($(date +%s) - start))
        execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/$name.log" | tail -1)
        corpus=$(ls "$dir/corpus/$name" | wc -l)
        crashes=$(ls "$dir/crash" | grep -c "^$name-" || true)
        line="$name: ${execs:-?} execs in $secs_run s, corpus $corpus, crashes $crashes"
        if [ $rc -ne 0 ] || [ "$crashes" -ne 0 ]; then
                line="$line (exit $rc, see $dir/$name.log)"
                status=1
        fi
        echo "$line"
        echo "$(date -u +%FT%TZ) $line" >> "$dir/summary"
done
exit $status
