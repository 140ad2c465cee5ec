#!/bin/sh
# t-lib-ftrace.sh - the ftrace output: "<event> <message>" lines written to
# the trace_marker given by TJ_FTRACE_MARKER (a plain file here), and to the
# real tracefs trace_marker when it is writable (SKIP line otherwise).
. "$(dirname "$0")/lib/common.sh"
E="$B/tests/lib-emit"

: > "$T/marker"
TJ_OUTPUT=ftrace TJ_FTRACE_MARKER="$T/marker" TJ_EVENTS=tgb_req,tga_void \
        $RUN "$E" init req:2 void flush > /dev/null 2> "$T/err"
cat > "$T/exp" <<OUT
tgb_req req 0x1000 sector 0 name r0
tgb_req req 0x1001 sector 1 name r1
tga_void nothing
OUT
check_file lib-ftrace-marker-file "$T/exp" "$T/marker"
check_eq lib-ftrace-no-warning "" "$(cat "$T/err")"

TJ_QUIET=0 TJ_OUTPUT=ftrace TJ_FTRACE_MARKER="$T/nodir/marker" TJ_EVENTS=tga_void \
        $RUN "$E" init void flush > /dev/null 2> "$T/err"
check_eq lib-ftrace-missing-marker-warns "tracejournal: ftrace: $T/nodir/marker: No such file or directory" "$(cat "$T/err")"

TR=/sys/kernel/tracing
if [ -w "$TR/trace_marker" ] && [ -r "$TR/trace" ]; then
        TJ_OUTPUT=ftrace TJ_EVENTS=tga_void $RUN "$E" init void flush > /dev/null 2>&1
        check_eq lib-ftrace-tracefs 1 "$(grep -c 'tracing_mark_write: tga_void nothing' "$TR/trace" | sed 's/^[1-9][0-9]*$/1/')"
else
        skip lib-ftrace-tracefs "$TR/trace_marker not writable"
fi
