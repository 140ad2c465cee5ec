# common.sh - shared setup for the end-to-end shell tests (after jq's tests/setup).
#
# Source it from a test script: it sets -eu, makes a scratch directory $T that a
# trap removes, gives every run its own identifier $TJ_TEST_ID (so tests never
# read each other's journal entries), and offers the result helpers below.  Each
# check prints one line that tests/run counts:
#     PASS: name        FAIL: name (why)        SKIP: name (why)
# VALGRIND=1 runs the programs started through $RUN under memcheck.
set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
B="$TOP/build"
T=$(mktemp -d "${TMPDIR:-/tmp}/tj-test.XXXXXX")
trap 'common_exit' EXIT
TJ_TEST_ID="tjtest-$(basename "$0" .sh)-$$-$(date +%s%N)"
export TJ_QUIET=1
RUN=
if [ "${VALGRIND:-}" = 1 ]; then
        # Each process writes its own log: a report is a FAIL line at exit even
        # when the test only looks at the program's output, not its status.
        mkdir "$T/valgrind"
        RUN="valgrind -q --error-exitcode=99 --leak-check=full --log-file=$T/valgrind/%p.log"
fi

# run_fdclosed FD PROGRAM ARGS...: $RUN PROGRAM with descriptor FD (0 or 1)
# closed.  valgrind --log-file opens its log before it starts the program and
# leaves it open there, on the lowest free descriptor: the program would find
# its stdin or stdout taken by the log (and a report in what it wrote).  Under
# valgrind the log goes to descriptor 9 instead (--log-fd), which the program
# sees as one more descriptor, open from start to end.
run_fdclosed() {
        _fd=$1
        shift
        if [ "${VALGRIND:-}" = 1 ]; then
                set -- valgrind -q --error-exitcode=99 --leak-check=full --log-fd=9 "$@"
                case $_fd in
                0) "$@" 0<&- 9>> "$T/valgrind/fd0-$(date +%s%N).log" ;;
                1) "$@" >&- 9>> "$T/valgrind/fd1-$(date +%s%N).log" ;;
                esac
        else
                case $_fd in
                0) "$@" 0<&- ;;
                1) "$@" >&- ;;
                esac
        fi
}

common_exit() {
        if [ -d "$T/valgrind" ]; then
                for log in "$T"/valgrind/*.log; do
                        [ -s "$log" ] || continue
                        echo "FAIL: valgrind-$(basename "$0" .sh) (memcheck report, pid $(basename "$log" .log))"
                        head -40 "$log" | sed 's/^/    /'
                done
        fi
        rm -rf "$T"
}

# A sanitized build (make SANITIZE=... check passes SANITIZE down): programs a
# test links against build/libtracejournal.a need the same runtime.
SAN_FLAGS=${SANITIZE:+-fsanitize=$SANITIZE}

pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1${2:+ ($2)}"; }
skip() { echo "SKIP: $1${2:+ ($2)}"; }

# check_eq NAME EXPECTED ACTUAL
check_eq() {
        if [ "$2" = "$3" ]; then pass "$1"; else
                fail "$1" "expected [$2], got [$3]"; fi
}

# check_file NAME EXPECTED-FILE ACTUAL-FILE: exact comparison, diff on failure.
# With TJ_TEST_REGEN=1 a differing EXPECTED-FILE is rewritten and the check
# fails still: review the change with git diff, then run again.
check_file() {
        if cmp -s "$2" "$3"; then pass "$1"; else
                [ "${TJ_TEST_REGEN:-}" = 1 ] && cp "$3" "$2"
                fail "$1" "differs from $2"; diff -u "$2" "$3" | head -40 | sed 's/^/    /'; fi
}

# fds_rel FILE: FILE (lib-emit's output) with the count of its fds steps
# given relative to the first's, n=+K: what the test's caller left open is
# not the library's
fds_rel() {
        awk '/^fds .* n=[0-9]+$/ { n = $NF; sub(/^n=/, "", n); if (b == "") b = n
                                  sub(/n=[0-9]+$/, "n=" (n - b >= 0 ? "+" : "") n - b) } 1' "$1"
}

# wait_pipe_writer PID: wait until the program PID started (PID is its
# 'timeout'; the program's main thread) is blocked in a write to a full pipe,
# as /proc says (the kernel's name: anon_pipe_write in recent ones), at
# most 10 s; then return, blocked or not.  A hang guard, not a timing.
wait_pipe_writer() {
        _i=0
        while [ $_i -lt 200 ]; do
                _c=$(cat "/proc/$1/task/$1/children" 2>/dev/null || true)
                case $(cat "/proc/${_c%% *}/wchan" 2>/dev/null || true) in
                pipe_write|anon_pipe_write|pipe_wait) return 0 ;;
                esac
                sleep 0.05; _i=$((_i + 1))
        done
}

# fifo_stalled_run FIFO READOUT CMD...: make FIFO, whose reader (cat into
# READOUT) stops itself before it reads; run CMD in the background, its
# output in $T/out and $T/err; once CMD is blocked writing into the full
# FIFO (wait_pipe_writer), 0.2 s more, then the reader goes on.  Sets rc to
# CMD's exit status.  CMD must exec the program (env, timeout) so that its
# pid is the one wait_pipe_writer looks under.
fifo_stalled_run() {
        _fifo=$1 _readout=$2
        shift 2
        mkfifo "$_fifo"
        sh -c 'kill -STOP $$; exec cat' < "$_fifo" > "$_readout" &
        _rpid=$!
        "$@" > "$T/out" 2> "$T/err" &
        _epid=$!
        wait_pipe_writer $_epid
        sleep 0.2
        kill -CONT $_rpid
        rc=0
        wait $_epid || rc=$?
        wait $_rpid || true
}

# tq_run NAME STATUS STDERR ARGS...: run $TQ (traceql) with ARGS under $RUN,
# standard input from $STDIN (/dev/null), standard output in $T/out; check
# its exact exit status and standard error.  Sets rc.
tq_run() {
        name=$1 st=$2 msg=$3
        shift 3
        rc=0
        $RUN "$TQ" "$@" > "$T/out" 2> "$T/err" < "${STDIN:-/dev/null}" || rc=$?
        check_eq "$name" "$st|$msg" "$rc|$(cat "$T/err")"
}

# have_journald: a journald socket is there (tests/run starts one when root)
have_journald() { [ -S /run/systemd/journal/socket ]; }

# with_tracefs CMD...: run CMD with a writable tracefs at /sys/kernel/tracing:
# as it is when it is mounted and writable, else (as root) in a private mount
# namespace where tracefs is mounted for CMD alone.  Exit status 77 when
# neither works (the caller SKIPs, saying why), else CMD's.  unshare -m is
# tried first, as the other tests do: where it fails (a chroot whose / is not a
# mount point, no CAP_SYS_ADMIN) its own status 1 would read as CMD's.
with_tracefs() {
        if [ -w /sys/kernel/tracing/trace_marker ] && [ -r /sys/kernel/tracing/trace ]; then
                "$@"; return
        fi
        [ "$(id -u)" = 0 ] && unshare -m true 2> /dev/null || return 77
        unshare -m sh -c 'mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null &&
                [ -w /sys/kernel/tracing/trace_marker ] || exit 77
                echo 1 > /sys/kernel/tracing/tracing_on
                exec "$@"' sh "$@"
}
