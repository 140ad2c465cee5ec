#!/bin/sh
# t-fuzz.sh - the fuzz targets (tests/fuzz/fuzz_*.c) in the test suite.
#
# 1. Replay: build/fuzz/replay-NAME (the target built with $(CC) and a plain
#    main, `make fuzz-replay`, a prerequisite of `make check`) runs every seed
#    and every crash reproducer under tests/fuzz/regress/NAME/, under $RUN
#    (VALGRIND=1) and whatever SANITIZE the build used.
# 2. Fuzz: with clang and libclang-rt's libFuzzer, `make fuzz-build` builds the
#    libFuzzer binaries and each runs for FUZZ_CHECK_SECONDS (default 3) from
#    its seeds (tests/fuzz/run.sh), in a scratch corpus; any crash fails.
#    libFuzzer's random seed is fixed (FUZZ_SEED, default 1), so every run
#    of the suite follows the same sequence of mutations (nearly the same
#    inputs: coverage varies a little between runs) up to where its time
#    runs out: a test, not a lottery.  `make fuzz` searches for new inputs.
#    Without clang or libFuzzer: one SKIP line saying which is missing.
. "$(dirname "$0")/lib/common.sh"

names=$(cd "$TOP/tests/fuzz" && ls fuzz_*.c | sed 's/^fuzz_//; s/\.c$//')

for n in $names; do
        bin="$B/fuzz/replay-$n"
        if [ ! -x "$bin" ]; then
                fail "fuzz-replay-$n" "$bin not built (make fuzz-replay)"
                continue
        fi
        set -- "$TOP/tests/fuzz/seeds/$n"
        [ -d "$TOP/tests/fuzz/regress/$n" ] && set -- "$@" "$TOP/tests/fuzz/regress/$n"
        if $RUN "$bin" "$@" > "$T/replay.out" 2> "$T/replay.err"; then
                pass "fuzz-replay-$n"
        else
                fail "fuzz-replay-$n" "exit $?: $(head -c 300 "$T/replay.err")"
        fi
done

# What the fixed crashes did, checked by behaviour with the plain build (a
# signed overflow is silent without UBSan): an out-of-range
# __REALTIME_TIMESTAMP (microseconds that overflow as ns) gives no time.
for us in 17020000000011000 -9223372036854775807; do
        printf '__CURSOR=s=0123;i=1;b=0123456789abcdef0123456789abcdef;m=1;t=1;x=1\n__REALTIME_TIMESTAMP=%s\n_PID=1\nTRACE_EVENT=ev\n\n_TRANSPORT=driver\nMESSAGE_ID=fe6faa94e7774663a0da52717891d8ef\nMESSAGE=Suppressed 3 messages\n__REALTIME_TIMESTAMP=%s\n\n' \
                "$us" "$us" > "$T/rt.export"
        rm -f "$T/rt.db"*
        "$B/traceql" --db "$T/rt.db" import --export "$T/rt.export" > /dev/null 2>&1 || true
        check_eq "fuzz-regress-export-realtime-overflow$us" "1|1" \
                "$("$B/traceql" --db "$T/rt.db" --no-sync --format csv \
                   "select (select count(*) from events where time is null) || '|' ||
                           (select count(*) from journal_suppressed where time is null)" | tail -1)"
done

# An ISO 8601 time past 2262 (nanoseconds overflow 64 bits) in a syslog or
# log line is a bad timestamp, named, not a signed overflow.
printf '3334-06-03T11:22:33.123456Z vm qemu-trace[42]: blk_dev_open name disk1\n' > "$T/y.log"
rc=0; "$B/traceql" --db "$T/y.db" import --syslog "$T/y.log" 2> "$T/y.err" || rc=$?
check_eq fuzz-regress-syslog-iso8601-overflow \
        "4|traceql: $T/y.log:1: invalid timestamp '3334-06-03T11:22:33.123456Z'" "$rc|$(cat "$T/y.err")"
printf '5555-06-03T11:22:33.123456Z blk_dev_open name disk1\n' > "$T/y2.log"
rc=0; "$B/traceql" --db "$T/y2.db" import --log "$T/y2.log" 2> "$T/y2.err" || rc=$?
check_eq fuzz-regress-log-iso8601-overflow \
        "4|traceql: $T/y2.log:1: invalid timestamp '5555-06-03T11:22:33.123456Z'" "$rc|$(cat "$T/y2.err")"

# An empty STRUCTURED-DATA value as the first value of a run: no memchr() or
# memcpy() on the NULL scratch buffer (UBSan, found by fuzz-syslog), and the
# field is there, empty.
printf '<30>1 2026-11-21T17:13:11Z central app 1 ev [tj@32473 arg_name="" event="blk_x"] blk_x name \n' > "$T/sd.log"
rc=0; "$B/traceql" --db "$T/sd.db" import --syslog "$T/sd.log" 2> "$T/sd.err" || rc=$?
check_eq fuzz-regress-syslog-empty-sd-value "0|blk_x|text|0" "$rc|$("$B/traceql" --db "$T/sd.db" --no-sync --format csv \
        "select event || '|' || typeof(a0) || '|' || length(a0) from events" | tail -1)"

# A line whose every text value is empty (no host, no identifier, empty
# message): the row is there, with event '', not bound as NULL and turned
# away by INSERT OR IGNORE in silence (UBSan found the memcpy on the batch's
# not yet allocated buffer, fuzz-syslog).
printf 'Nov 21 10:00:00 \n' > "$T/e.log"
printf '2026-11-21T10:00:00Z \n' > "$T/e2.log"
for kind in syslog log; do
        f="$T/e.log"
        [ $kind = log ] && f="$T/e2.log"
        rc=0; "$B/traceql" --db "$T/e-$kind.db" import --$kind "$f" 2> "$T/e.err" || rc=$?
        check_eq "fuzz-regress-$kind-all-text-empty" \
                "0|traceql: $f: 1 line, 1 new event, 1 of them without a known event|1|1||" \
                "$rc|$(cat "$T/e.err")|$("$B/traceql" --db "$T/e-$kind.db" --no-sync --format csv \
                   "select count(*) || '|' || (select rows from sources) || '|' || event || '|' ||
                           coalesce(host, '') from events" | tail -1)"
done

# An ftrace timestamp whose seconds pass INT64_MAX (they came back negative
# from the parser and slipped by the range check: a signed overflow, found by
# fuzz-ftrace) is a bad timestamp, named, and nothing is imported (the new
# database it made is not left behind).
printf '# tracer: nop\n  cat-1 [000] ..... 1.000001: a: x=1\n  cat-1 [000] ..... 14444444444444442775.988955: b: x=2\n' > "$T/ft.txt"
rc=0; "$B/traceql" --db "$T/ft.db" import --ftrace "$T/ft.txt" 2> "$T/ft.err" || rc=$?
check_eq fuzz-regress-ftrace-seconds-above-int64-max \
        "4|traceql: $T/ft.txt:3: not a trace line (bad timestamp)|none" \
        "$rc|$(cat "$T/ft.err")|$(ls "$T/ft.db"* 2> /dev/null || echo none)"

# The same in QEMU's old log prefix: 12 digits of seconds are more
# nanoseconds than 64 bits hold (an unsigned wrap, no sanitizer saw it: the
# line came in with a wrong time); the largest second that fits still does.
printf '1@999999999999.000000:blk_x name a\n' > "$T/lp.log"
printf '1@9223372035.999999:blk_x name a\n' > "$T/lp2.log"
rc=0; "$B/traceql" --db "$T/lp.db" import --log "$T/lp.log" 2> "$T/lp.err" || rc=$?
"$B/traceql" --db "$T/lp2.db" import --log "$T/lp2.log" 2> /dev/null
check_eq fuzz-regress-log-prefix-seconds-overflow \
        "4|traceql: $T/lp.log:1: invalid 'TID@SEC.USEC:' prefix '1@999999999999.000000:'|9223372035999999000" \
        "$rc|$(cat "$T/lp.err")|$("$B/traceql" --db "$T/lp2.db" --no-sync --format csv \
           'select time from events' | tail -1)"

# A TID of 12 digits or more was not counted past 11: the line was read as
# one without a prefix, its event, TID and time lost, exit 0.  It fails as
# 11 digits do; leading zeros are a TID as any other digits; a prefix of
# more than 64 bytes is quoted cut.
printf '123456789012@1.000000:blk_x name a\n' > "$T/lt.log"
printf '000000000042@1.000000:blk_x name a\n' > "$T/lt2.log"
awk 'BEGIN { s = sprintf("%100s", ""); gsub(/ /, "1", s); print s "@1.000000:blk_x name a" }' \
        > "$T/lt3.log"
rc=0; "$B/traceql" --db "$T/lt.db" import --log "$T/lt.log" 2> "$T/lt.err" || rc=$?
rc3=0; "$B/traceql" --db "$T/lt3.db" import --log "$T/lt3.log" 2> "$T/lt3.err" || rc3=$?
"$B/traceql" --db "$T/lt2.db" import --log "$T/lt2.log" 2> /dev/null
check_eq fuzz-regress-log-prefix-tid-digits \
        "4|traceql: $T/lt.log:1: invalid 'TID@SEC.USEC:' prefix '123456789012@1.000000:'|none|4|traceql: $T/lt3.log:1: invalid 'TID@SEC.USEC:' prefix '1111111111111111111111111111111111111111111111111111111111111111...'|42,1000000000" \
        "$rc|$(cat "$T/lt.err")|$(ls "$T/lt.db"* 2> /dev/null || echo none)|$rc3|$(cat "$T/lt3.err")|$("$B/traceql" --db "$T/lt2.db" --no-sync --format csv \
           'select tid, time from events' | tail -1)"

# libFuzzer needs clang and libclang_rt.fuzzer (libclang-rt-14-dev on Debian 12).
why=
if ! command -v "${FUZZ_CC:-clang}" > /dev/null 2>&1; then
        why="${FUZZ_CC:-clang} not installed"
elif ! printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void) d; (void) n; return 0; }\n' |
     "${FUZZ_CC:-clang}" -fsanitize=fuzzer -x c -o "$T/probe" - > /dev/null 2>&1; then
        why="${FUZZ_CC:-clang} cannot link -fsanitize=fuzzer (libclang-rt-14-dev missing?)"
fi
if [ -n "$why" ]; then
        skip fuzz-libfuzzer "$why"
        exit 0
fi
if ! make -s -C "$TOP" fuzz-build > "$T/build.log" 2>&1; then
        fail fuzz-build "make fuzz-build failed: $(tail -5 "$T/build.log")"
        exit 0
fi
pass fuzz-build
for n in $names; do
        if FUZZ_DIR="$T/fuzz" FUZZ_SEED="${FUZZ_SEED:-1}" sh "$TOP/tests/fuzz/run.sh" "${FUZZ_CHECK_SECONDS:-3}" "$n" > "$T/run.out"; then
                pass "fuzz-$n"
        else
                mkdir -p "$B/fuzz/crash"
                cp "$T/fuzz/crash/"* "$B/fuzz/crash/" 2> /dev/null || true
                fail "fuzz-$n" "$(cat "$T/run.out"); reproducers kept in $B/fuzz/crash"
                sed 's/^/    /' "$T/fuzz/$n.log" | grep -A30 'ERROR\|==ERROR\|runtime error' | head -40
        fi
        sed 's/^/    /' "$T/run.out"
done
