#!/bin/sh
# t-lib-journald.sh - journald round trip of every argument kind, through the
# library and a real journald, read back with the sd-journal API
# (build/tests/journal-dump).  Every field of every entry is compared exactly
# with tests/c/journald-all.expected, so a missing, altered or forged field
# fails; only the clocks, the thread id and the identifier are normalised
# (the clocks are checked to lie within the run), and CODE_LINE is given
# relative to the first call in lib-emit.c.  Both delivery modes.
. "$(dirname "$0")/lib/common.sh"
L=$(grep -n 'trace_tga_all(INT64_MIN' "$TOP/tests/c/lib-emit.c" | cut -d: -f1)

if ! have_journald; then skip lib-journald "no journald socket"; exit 0; fi

for mode in async sync; do
        id="$TJ_TEST_ID-$mode"
        sync=0; [ $mode = sync ] && sync=1
        before=$(date +%s%N)
        TJ_IDENTIFIER="$id" TJ_SYNC=$sync TJ_EVENTS=tga_all $RUN "$B/tests/lib-emit" init all \
                > "$T/out" 2>&1 &
        pid=$!
        wait $pid || fail "lib-journald-$mode-run" "exit status $?"
        after=$(date +%s%N)
        check_eq "lib-journald-$mode-quiet" "" "$(cat "$T/out")"
        "$B/tests/journal-dump" "$id" 6 + > "$T/raw" || true
        sed -E -e "s/SYSLOG_IDENTIFIER=$id /SYSLOG_IDENTIFIER=ID /" -e "s/ TID=$pid / TID=PID /" \
               -e 's/TRACE_MONO_NS=[0-9]+ /TRACE_MONO_NS=M /' \
               -e "s/CODE_LINE=$L /CODE_LINE=L+0 /;s/CODE_LINE=$((L+1)) /CODE_LINE=L+1 /" \
               -e "s/CODE_LINE=$((L+2)) /CODE_LINE=L+2 /;s/CODE_LINE=$((L+3)) /CODE_LINE=L+3 /" \
               -e "s/CODE_LINE=$((L+4)) /CODE_LINE=L+4 /;s/CODE_LINE=$((L+5)) /CODE_LINE=L+5 /" \
               -e 's/TRACE_TIME_NS=[0-9]+$/TRACE_TIME_NS=T/' "$T/raw" > "$T/got"
        check_file "lib-journald-$mode-fields" "$TOP/tests/c/journald-all.expected" "$T/got"
        bad=$(grep -o 'TRACE_TIME_NS=[0-9]*' "$T/raw" | cut -d= -f2 |
              awk -v b="$before" -v a="$after" '$1 < b || $1 > a' | head -1)
        check_eq "lib-journald-$mode-time" "" "$bad"
done
