#!/bin/sh
# t-lib-nomem.sh - allocation and thread-creation failures in the library's
# init and first-event paths (build/tests/lib-nomem, whose wrappers make the
# library's own malloc/calloc/realloc/strdup, posix_memalign or
# pthread_create calls fail for real): the program keeps running, untraced or
# degraded, the failures show in return values and stats, and it exits 0
# through atexit's tj_shutdown().
. "$(dirname "$0")/lib/common.sh"
P="$B/tests/lib-nomem"

# nomem NAME OUTPUT WHAT EXPECTED
nomem() {
        got=$(TJ_IDENTIFIER="$TJ_TEST_ID" TJ_EVENTS=tgb_req TJ_OUTPUT=$2 $RUN "$P" "$3" 2>&1; echo "exit=$?")
        check_eq "$1" "$4" "$got"
}

nomem lib-nomem-none nop none "init=0 opt=0 flush=0
emitted=200 written=200 dropped=0
no-failures alive
exit=0"
# No ring for any thread: every event is counted as dropped.
nomem lib-nomem-rings nop memalign "init=0 opt=0 flush=0
emitted=200 written=0 dropped=200
failures alive
exit=0"
# No writer message buffer: events still go out (the message falls back to
# the event name); tj_trace_opt cannot copy its argument; TJ_EVENTS is
# applied but cannot be kept for modules loaded later: tj_init says -ENOMEM.
nomem lib-nomem-malloc nop malloc "init=-12 opt=-12 flush=0
emitted=200 written=200 dropped=0
failures alive
exit=0"
# Into a file, not a pipe to head: head exiting after one line would kill the
# program with SIGPIPE, threads running (a leak report under valgrind).
TJ_QUIET=0 TJ_EVENTS=tgb_req TJ_OUTPUT=nop $RUN "$P" malloc > "$T/out" 2>&1 || true
got=$(head -1 "$T/out")
check_eq lib-nomem-malloc-warning \
        "tracejournal: TJ_EVENTS: 'tgb_req': out of memory, not kept for modules loaded later" "$got"
# No writer thread: tj_init says -EAGAIN, events wait in the rings, nothing
# is written, tj_flush does not wait for a writer that is not there.
nomem lib-nomem-thread nop thread "init=-11 opt=0 flush=0
emitted=200 written=0 dropped=0
failures alive
exit=0"
nomem lib-nomem-all nop all "init=-12 opt=-12 flush=0
emitted=200 written=0 dropped=0
failures alive
exit=0"
if have_journald; then
        # The journald output cannot grow its entry buffer: dropped, not crashed.
        nomem lib-nomem-journald-malloc journald malloc "init=-12 opt=-12 flush=0
emitted=200 written=0 dropped=200
failures alive
exit=0"
else
        skip lib-nomem-journald-malloc "no journald socket"
fi
