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

# Records are at most 16384 bytes, and a quarter of the ring: a longer string
# is cut short.  tga_all's record: 56-byte header, 6 slots, the string's NUL.
for mode in 0 1; do
        id="$TJ_TEST_ID-long$mode"
        TJ_IDENTIFIER="$id" TJ_SYNC=$mode TJ_EVENTS=tga_all $RUN "$B/tests/lib-emit" init long:20000 long:100
        "$B/tests/journal-dump" "$id" 2 TRACE_ARG_S | awk '{ print length($0) - 12 }' > "$T/len" || true
        check_eq "lib-journald-truncate-sync$mode" "$((16384 - 56 - 48 - 1)) 100" "$(echo $(cat "$T/len"))"
done
id="$TJ_TEST_ID-longring"
TJ_IDENTIFIER="$id" TJ_RING_SIZE=4096 TJ_EVENTS=tga_all $RUN "$B/tests/lib-emit" init long:20000
"$B/tests/journal-dump" "$id" 1 TRACE_ARG_S | awk '{ print length($0) - 12 }' > "$T/len" || true
check_eq lib-journald-truncate-ring-quarter "$((1024 - 56 - 48 - 1))" "$(cat "$T/len")"
id="$TJ_TEST_ID-twolong"
TJ_IDENTIFIER="$id" TJ_EVENTS=tgc_two $RUN "$B/tests/lib-emit" two init twolong:20000
"$B/tests/journal-dump" "$id" 1 MESSAGE TRACE_ARG_B > "$T/got" || true
check_eq lib-journald-truncate-second-string "MESSAGE=tgc_two a $((16384 - 56 - 16 - 1)) b 0 TRACE_ARG_B=" "$(cat "$T/got")"

# An entry bigger than a datagram can be (a MESSAGE rendered with a wide field
# width, 9 MB, over the socket's 8 MiB send buffer) goes in a sealed memfd, as
# sd_journal_sendv() sends it, rather than being lost.  Both delivery modes.
# The flush waits as long as it takes: rendering 9 MB under valgrind can take
# longer than the default bound.
for mode in 0 1; do
        id="$TJ_TEST_ID-memfd$mode"
        TJ_FLUSH_TIMEOUT_MS=60000 TJ_IDENTIFIER="$id" TJ_SYNC=$mode TJ_EVENTS=tgw_wide $RUN "$B/tests/lib-emit" wide init \
                wide:9000000 wide:3 flush stats > "$T/out" 2>&1
        check_eq "lib-journald-memfd-sync$mode-stats" "emitted=2 written=2 dropped=0" "$(cat "$T/out")"
        "$B/tests/journal-dump" "$id" 2 TRACE_ARG_W MESSAGE |
                awk '{ print $1, length($0) - length($1) - 9 }' > "$T/got" || true
        check_eq "lib-journald-memfd-sync$mode" "TRACE_ARG_W=9000000 9000009
TRACE_ARG_W=3 12" "$(cat "$T/got")"
done

# An identifier is kept up to 127 bytes; a longer one is cut there, at a
# character boundary (no lone UTF-8 lead byte), with a warning.  126 bytes of
# the test's identifier padded with 'x', then an 'é' (2 bytes) over the limit.
long=$(printf '%s%0200d' "$TJ_TEST_ID-" 0 | tr 0 x | cut -c1-126)
TJ_QUIET=0 TJ_IDENTIFIER="$long$(printf '\303\251')tail" TJ_EVENTS=tga_void $RUN "$B/tests/lib-emit" \
        init void > "$T/out" 2>&1
check_eq lib-journald-identifier-long-warning \
        "tracejournal: TJ_IDENTIFIER: too long (132 bytes, at most 127), cut to its first 126" \
        "$(cat "$T/out")"
"$B/tests/journal-dump" "$long" 1 TRACE_EVENT > "$T/got" || true
check_eq lib-journald-identifier-long "TRACE_EVENT=tga_void" "$(cat "$T/got")"

# Outputs changed while threads trace faster than journald takes entries: the
# writer is never idle, yet every pass goes through.  It took its lock back as
# soon as a pass ended (a mutex is not fair), so tj_set_outputs() timed out
# (-ETIMEDOUT) and an outputs request was answered 'outputs busy ... (an
# output does not take events)', most of the time.  Four tries each way; a
# bound of 3 s for a slow (sanitized) build: the writer was never let in.
# Not under valgrind: it runs one thread at a time, so there is no race to
# show, and the tracing threads, which never stop, took every time slice
# (the file timed out after 600 s in CI's valgrind run).
mkdir "$T/ctl"
if [ -n "${VALGRIND:-}" ]; then
        skip lib-journald-outputs-while-busy "a race of threads: valgrind runs one at a time"
else
        TJ_CONTROL_DIR="$T/ctl" TJ_IDENTIFIER="$TJ_TEST_ID-busy" TJ_OUTPUT=journald \
                TJ_EVENTS=tgb_req TJ_FLUSH_TIMEOUT_MS=3000 $RUN "$B/tests/lib-emit" init \
                bgtrace bgtrace outputs:nop outputs:journald outputs:nop outputs:journald \
                'ctl:outputs nop' 'ctl:outputs journald' 'ctl:outputs nop' \
                'ctl:outputs journald' > "$T/out" 2>&1
        check_eq lib-journald-outputs-while-busy "outputs nop=0
outputs journald=0
outputs nop=0
outputs journald=0
ctl outputs nop=outputs nop|ok|
ctl outputs journald=outputs journald|ok|
ctl outputs nop=outputs nop|ok|
ctl outputs journald=outputs journald|ok|" "$(cat "$T/out")"
fi

# A program started with standard input closed: the journald socket was
# descriptor 0, what the program read there (and, with stdout closed, where
# its printf() failed).  It is above 2, and an outputs change away and back,
# tj_shutdown() and tj_init() leave no descriptor behind.
TJ_IDENTIFIER="$TJ_TEST_ID-stdin" TJ_EVENTS=tga_void run_fdclosed 0 "$B/tests/lib-emit" fds init void fds \
        outputs:nop fds outputs:journald void fds shutdown fds init void fds shutdown fds \
        > "$T/out" 2>&1
check_eq lib-journald-stdin-closed-no-leak "fds 0=closed 1=file 2=file n=+0
fds 0=closed 1=file 2=file n=+1
outputs nop=0
fds 0=closed 1=file 2=file n=+0
outputs journald=0
fds 0=closed 1=file 2=file n=+1
fds 0=closed 1=file 2=file n=+0
fds 0=closed 1=file 2=file n=+1
fds 0=closed 1=file 2=file n=+0" "$(fds_rel "$T/out")"
