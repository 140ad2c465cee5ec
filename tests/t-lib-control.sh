#!/bin/sh
# t-lib-control.sh - the control endpoint and traceql ctl: a running blockdemo
# (TJ_CONTROL=1) is listed, has events enabled (they arrive in its log file)
# and disabled, flushed, its stats read, its outputs changed; every malformed
# or oversized request gets its exact error reply and the program runs on;
# another uid (nobody, through setpriv) is refused and the refusal is
# counted; state changes while threads trace; the socket is removed at exit,
# and another process's at its path is not, even when it comes there in a race;
# a program out of descriptors answers once it has one, without spinning.
. "$(dirname "$0")/lib/common.sh"
TQ="$B/traceql"
DEMO="$B/examples/blockdemo"
SEND="$B/tests/ctl-send"
for p in "$TQ" "$DEMO" "$SEND"; do
        if [ ! -x "$p" ]; then fail control-built "$p missing: run make all examples tests"; exit 0; fi
done
unset TJ_CONTROL_DIR XDG_RUNTIME_DIR
P=
trap '[ -n "$P" ] && kill "$P" 2>/dev/null; rm -f "${S:-}"; rm -rf ${PUB:+"$PUB"}; common_exit' EXIT

# wait_for COND...: up to 10 s for a shell condition to hold
wait_for() {
        i=0
        while ! eval "$*"; do
                i=$((i + 1))
                [ $i -lt 200 ] || return 1
                sleep 0.05
        done
}

# ctl NAME WANT-STATUS ARGS...: traceql ctl $P ARGS, output in $T/out, $T/err
ctl() {
        n=$1 want=$2; shift 2
        rc=0; "$TQ" ctl "$P" "$@" > "$T/out" 2> "$T/err" || rc=$?
        check_eq "$n-status" "$want" "$rc"
}

submits() { grep -c '^blk_req_submit req 0x' "$T/log" || true; }

# ---- a program that runs until killed, 2 worker threads ----
TJ_CONTROL=1 TJ_OUTPUT=log "$DEMO" -t 2 -r 4000000000 --trace file="$T/log" > /dev/null 2>&1 &
P=$!
S=/run/tracejournal/$P.sock
if ! wait_for '[ -S "$S" ]'; then fail control-socket "$S did not appear"; exit 0; fi
pass control-socket
check_eq control-socket-mode "srw-rw-rw-" "$(stat -c %A "$S")"

# Each request's connection is closed once its reply is sent: after 200 of
# them the program has the descriptors it had before (the endpoint's eventfd
# and listening socket already among them: it starts last in tj_init(), and
# its socket file appears once both are open).  Polled, not read at once:
# the endpoint ends the client's stream (shutdown()) just before it closes
# its descriptor, so a client that has read the whole reply may still see
# that one open for a moment, longer under TSan (seen: +3 for +2 in
# control-stdin-closed).
fdcount() { ls "/proc/$P/fd" | wc -l; }
fd0=$(fdcount)
i=0 bad=0
while [ $i -lt 200 ]; do
        "$TQ" ctl "$P" stats > /dev/null 2>&1 || bad=$((bad + 1))
        i=$((i + 1))
done
check_eq control-many-requests-ok 0 "$bad"
if wait_for '[ "$(fdcount)" -eq "$fd0" ]'; then pass control-many-requests-no-fd-left; else
        fail control-many-requests-no-fd-left "$(fdcount) descriptors open after 200 requests, $fd0 before:
$(ls -l "/proc/$P/fd" | head -20 | sed 's/^/    /')"; fi

ctl control-list 0 list 'blk_req*'
printf 'blk_req_submit blockdemo off\nblk_req_complete blockdemo off\nblk_req_error blockdemo off\nblk_req_debug blockdemo compiled-out\n' > "$T/exp"
check_file control-list-out "$T/exp" "$T/out"
ctl control-list-all 0 list
check_eq control-list-all-count 10 "$(wc -l < "$T/out")"
ctl control-list-nomatch 7 list 'nosuch*'
check_eq control-list-nomatch-msg "traceql: ctl $P: no event matches 'nosuch*'" "$(cat "$T/err")"
# a list, as enable takes: each event any pattern matches, once, in the
# registry's order; a pattern that matches none is the error, naming it
ctl control-list-list 0 list 'blk_req_error,blk_req_s*,blk_req_*'
printf 'blk_req_submit blockdemo off\nblk_req_complete blockdemo off\nblk_req_error blockdemo off\nblk_req_debug blockdemo compiled-out\n' > "$T/exp"
check_file control-list-list-out "$T/exp" "$T/out"
ctl control-list-list-nomatch 7 list 'blk_req_error,nosuch,blk_dev_open'
check_eq control-list-list-nomatch-msg "traceql: ctl $P: no event matches 'nosuch'" "$(cat "$T/err")"
ctl control-list-list-empty 7 list ',,'
check_eq control-list-list-empty-msg "traceql: ctl $P: missing PATTERN" "$(cat "$T/err")"

# The log grows fast once enabled: wait for its first bytes, then disable,
# and only read it when it no longer grows.
check_eq control-nothing-before 0 "$(stat -c %s "$T/log")"
ctl control-enable 0 enable blk_req_submit
check_eq control-enable-out "enabled 1" "$(cat "$T/out")"
wait_for '[ -s "$T/log" ]' || true
ctl control-list-on 0 list blk_req_submit
check_eq control-list-on-out "blk_req_submit blockdemo on" "$(cat "$T/out")"
ctl control-disable 0 disable 'blk_req_s*'
check_eq control-disable-out "disabled 1" "$(cat "$T/out")"
ctl control-flush 0 flush
check_eq control-flush-out "" "$(cat "$T/out")"
s1=$(stat -c %s "$T/log"); sleep 0.3; s2=$(stat -c %s "$T/log")
check_eq control-disable-stops "$s1" "$s2"
c2=$(submits)
if [ "$c2" -gt 0 ] && [ "$(wc -l < "$T/log")" = "$c2" ]; then pass control-enable-arrive; else
        fail control-enable-arrive "$c2 blk_req_submit lines of $(wc -l < "$T/log")"; fi
ctl control-enable-nomatch 7 enable nosuch
check_eq control-enable-nomatch-msg "traceql: ctl $P: no event matches 'nosuch' (kept for modules loaded later)" "$(cat "$T/err")"
# a list, as TJ_EVENTS takes: every pattern applied, the events counted, the
# first pattern matching none named (it was taken as one pattern, 'a,b')
ctl control-enable-list 0 enable 'blk_dev_open,blk_drain_all,'
check_eq control-enable-list-out "enabled 2" "$(cat "$T/out")"
ctl control-enable-list-empty 7 enable ',,'
check_eq control-enable-list-empty-msg "traceql: ctl $P: missing PATTERN" "$(cat "$T/err")"
ctl control-disable-list 7 disable 'blk_dev_open,nosuch,blk_drain_all'
check_eq control-disable-list-msg "traceql: ctl $P: no event matches 'nosuch' (kept for modules loaded later)" "$(cat "$T/err")"
ctl control-disable-list-applied 0 list 'blk_d*'
check_eq control-disable-list-applied-out "blk_dev_open blockdemo off
blk_drain_all blockdemo off" "$(sort "$T/out")"
# A list holding a pattern that starts with '-' (the other command's) is
# refused whole, nothing applied: the patterns before it were enabled, and
# 'blk_d*,-blk_drain_all' enabled the very event it meant to leave off.
ctl control-enable-list-dash 7 enable 'blk_d*,-blk_drain_all'
check_eq control-enable-list-dash-msg "traceql: ctl $P: a PATTERN cannot start with '-': '-blk_drain_all'" "$(cat "$T/err")"
ctl control-enable-list-dash-none 0 list 'blk_d*'
check_eq control-enable-list-dash-none-out "blk_dev_open blockdemo off
blk_drain_all blockdemo off" "$(sort "$T/out")"

ctl control-stats 0 stats
sed -e 's/[0-9][0-9]*/N/g' "$T/out" > "$T/shape"
printf 'emitted N\nwritten N\ndropped N\noutput log written N dropped N\nrings N size N used N fullest N\ncontrol served N refused N\n' > "$T/exp"
check_file control-stats-shape "$T/exp" "$T/shape"
emitted=$(sed -n 's/^emitted //p' "$T/out")
if [ "$emitted" -ge "$c2" ]; then pass control-stats-emitted; else
        fail control-stats-emitted "emitted $emitted < $c2 events in the log"; fi
# The log output is written by the calling threads alone: its own counter
# must count what they wrote (it stayed 0 without an asynchronous output).
check_eq control-stats-output-log "output log written $(sed -n 's/^written //p' "$T/out") dropped 0" \
        "$(grep '^output log ' "$T/out")"

ctl control-outputs 0 outputs
check_eq control-outputs-out "outputs log" "$(cat "$T/out")"
ctl control-outputs-set 0 outputs nop,log
check_eq control-outputs-set-out "outputs nop,log" "$(cat "$T/out")"
ctl control-outputs-bad 7 outputs bogus
check_eq control-outputs-bad-msg "traceql: ctl $P: bad output list 'bogus' (known: journald, syslog, log, nop, ftrace, simple)" "$(cat "$T/err")"

# ---- bad requests: exact error, and the program runs on ----
ctl control-bad-command 7 bogus
check_eq control-bad-command-msg "traceql: ctl $P: unknown command 'bogus'" "$(cat "$T/err")"
ctl control-bad-missing 7 enable
check_eq control-bad-missing-msg "traceql: ctl $P: enable: missing PATTERN" "$(cat "$T/err")"
ctl control-bad-extra 7 flush now
check_eq control-bad-extra-msg "traceql: ctl $P: flush: takes no argument" "$(cat "$T/err")"
ctl control-bad-two 7 enable a b
check_eq control-bad-two-msg "traceql: ctl $P: enable: too many arguments" "$(cat "$T/err")"
ctl control-bad-dash 7 enable -blk_req_submit
check_eq control-bad-dash-msg "traceql: ctl $P: enable: a PATTERN cannot start with '-'" "$(cat "$T/err")"
long=$(printf '%0600d' 0)
ctl control-bad-long-arg 7 enable "$long"
check_eq control-bad-long-arg-msg "traceql: ctl $P: enable: PATTERN too long (at most 511 bytes)" "$(cat "$T/err")"
huge=$(printf '%010000d' 0)
ctl control-bad-huge 7 enable "$huge"
check_eq control-bad-huge-msg "traceql: ctl $P: request too long (at most 4095 bytes)" "$(cat "$T/err")"

# raw bytes: SEND-NAME PRINTF-FORMAT EXPECTED-REPLY
raw() {
        # shellcheck disable=SC2059
        printf "$2" | "$SEND" "$S" > "$T/reply" 2> "$T/err" || true
        check_eq "control-raw-$1" "$3" "$(cat "$T/reply")"
}
raw empty '' 'error empty request'
raw newline '\n' 'error empty request'
raw nul 'stats\000\n' 'error byte 0x00 at offset 5: requests are printable ASCII'
raw ctrl 'li\033st\n' 'error byte 0x1b at offset 2: requests are printable ASCII'
raw high 'list \377\n' 'error byte 0xff at offset 5: requests are printable ASCII'
raw two 'stats\nstats\n' 'error one request per connection'
raw blank ' stats\n' 'error blank before the command'
raw crlf 'outputs\r\n' 'outputs nop,log
ok'
raw no-newline 'list blk_dev_open' 'blk_dev_open blockdemo off
ok'
head -c 1000000 /dev/zero | "$SEND" "$S" > "$T/reply" 2> /dev/null || true
check_eq control-raw-megabyte "error request too long (at most 4095 bytes)" "$(cat "$T/reply")"
head -c 300000 /dev/urandom | "$SEND" "$S" > /dev/null 2>&1 || true
"$SEND" "$S" idle > "$T/reply" 2> /dev/null || true
check_eq control-raw-idle "error timed out waiting for the request" "$(cat "$T/reply")"
# A client that sends nothing holds up no other: a request made while it is
# connected is answered before its time-out (one connection at a time, the
# second waited the idle one's 2 s out).  Order, not time, is asserted.
rm -f "$T/order"
{ "$SEND" "$S" idle > "$T/idle.reply" 2> "$T/idle.err"; echo idle >> "$T/order"; } &
ipid=$!
i=0; while ! grep -q connected "$T/idle.err" 2> /dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
$RUN "$TQ" ctl "$P" stats > /dev/null 2>&1 && echo stats >> "$T/order"
wait $ipid
check_eq control-idle-holds-none "stats idle|error timed out waiting for the request" \
        "$(tr '\n' ' ' < "$T/order" | sed 's/ $//')|$(cat "$T/idle.reply")"
# Nine idle clients take the eight slots and one waits in the listen queue;
# a request behind them is answered once slots free up, and all nine get
# their time-out.
pids=
for k in 1 2 3 4 5 6 7 8 9; do "$SEND" "$S" idle > "$T/idle$k.reply" 2> /dev/null & pids="$pids $!"; done
sleep 0.3
rc=0; $RUN "$TQ" ctl "$P" stats > "$T/out" 2>&1 || rc=$?
for k in $pids; do wait "$k" || true; done
check_eq control-slots-full "0|9" "$rc|$(cat "$T"/idle?.reply | grep -c 'error timed out waiting for the request')"
if kill -0 "$P" 2> /dev/null; then pass control-survives-bad-requests; else
        fail control-survives-bad-requests "blockdemo is gone"; fi

# ---- another uid is refused, and the refusal is reported and counted ----
if command -v setpriv > /dev/null 2>&1 && [ "$(id -u)" = 0 ] && id nobody > /dev/null 2>&1; then
        # A copy nobody can run, wherever the tree lives (/root is 0700).
        PUB=$(mktemp -d "${TMPDIR:-/tmp}/tj-ctl-pub.XXXXXX")
        chmod 755 "$PUB"
        cp "$TQ" "$PUB/traceql"
        chmod 755 "$PUB/traceql"
        rc=0
        setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups "$PUB/traceql" ctl "$P" \
                stats > "$T/out" 2> "$T/err" || rc=$?
        check_eq control-refused-status 7 "$rc"
        check_eq control-refused-msg \
                "traceql: ctl $P: permission denied: uid $(id -u nobody) is neither the owner (uid 0) nor root" \
                "$(cat "$T/err")"
        check_eq control-refused-no-data "" "$(cat "$T/out")"
        ctl control-refused-counted 0 stats
        check_eq control-refused-counted-out "refused 1" "$(sed -n 's/^control served [0-9]* //p' "$T/out")"
else
        skip control-refused "needs root, setpriv and a 'nobody' user"
fi

# ---- state changes while both threads trace ----
i=0 bad=0
while [ $i -lt 40 ]; do
        "$TQ" ctl "$P" enable 'blk_*' > /dev/null 2>&1 || bad=$((bad + 1))
        "$TQ" ctl "$P" outputs "$([ $((i % 2)) = 0 ] && echo log || echo nop,log)" > /dev/null 2>&1 || bad=$((bad + 1))
        "$TQ" ctl "$P" disable 'blk_*' > /dev/null 2>&1 || bad=$((bad + 1))
        i=$((i + 1))
done
check_eq control-toggle-all-ok 0 "$bad"
if kill -0 "$P" 2> /dev/null; then pass control-toggle-survives; else
        fail control-toggle-survives "blockdemo is gone"; fi
# Killed by a signal, it cannot remove its socket: the test does.
kill "$P"; wait "$P" 2> /dev/null || true; P=
rm -f "$S"

# ---- client errors ----
rc=0; "$TQ" ctl 2147483647 stats > /dev/null 2> "$T/err" || rc=$?
check_eq control-client-nosuch "6 traceql: ctl 2147483647: no such process" "$rc $(cat "$T/err")"
rc=0; "$TQ" ctl $$ stats > /dev/null 2> "$T/err" || rc=$?
check_eq control-client-noendpoint \
        "6 traceql: ctl $$: no control endpoint (start the program with TJ_CONTROL=1)" "$rc $(cat "$T/err")"
rc=0; "$TQ" ctl 12x stats > /dev/null 2> "$T/err" || rc=$?
check_eq control-client-badpid "2 traceql: ctl: '12x' is not a process id" "$rc $(cat "$T/err")"
# strtol() takes leading blanks and a sign; the word is printed as given.
rc=0; "$TQ" ctl "
$$" stats > /dev/null 2> "$T/err" || rc=$?
check_eq control-client-badpid-newline "2 traceql: ctl: '\\x0a$$' is not a process id" "$rc $(cat "$T/err")"
rc=0; "$TQ" ctl " $$" stats > /dev/null 2> "$T/err" || rc=$?
check_eq control-client-badpid-blank "2 traceql: ctl: ' $$' is not a process id" "$rc $(cat "$T/err")"
rc=0; "$TQ" ctl "+$$" stats > /dev/null 2> "$T/err" || rc=$?
check_eq control-client-badpid-sign "2 traceql: ctl: '+$$' is not a process id" "$rc $(cat "$T/err")"
rc=0; "$TQ" ctl 1 > /dev/null 2>&1 || rc=$?
check_eq control-client-usage 2 "$rc"
# The request is the words joined by blanks: an empty word vanished ("list
# ''" listed every event, "stats ''" was served), a word with a blank was
# two, one with a newline two requests.  Usage errors, before any process
# is looked for (2147483647 is none).
rc=0; "$TQ" ctl 2147483647 list '' > /dev/null 2> "$T/err" || rc=$?
check_eq control-client-empty-arg "2 traceql: ctl: an empty argument (after 'list')" "$rc $(cat "$T/err")"
rc=0; "$TQ" ctl 2147483647 enable 'blk_a blk_b' > /dev/null 2> "$T/err" || rc=$?
check_eq control-client-blank-arg \
        "2 traceql: ctl: argument 'blk_a blk_b' holds a blank: give each word as an argument of its own" \
        "$rc $(cat "$T/err")"
rc=0; "$TQ" ctl 2147483647 list "blk_a
stats" > /dev/null 2> "$T/err" || rc=$?
check_eq control-client-newline-arg \
        "2 traceql: ctl: argument 'blk_a\\x0astats' holds a line break: give each word as an argument of its own" \
        "$rc $(cat "$T/err")"

# ---- TJ_CONTROL_DIR, and the socket is removed at exit ----
mkdir "$T/ctl"
TJ_CONTROL_DIR="$T/ctl" TJ_CONTROL=1 TJ_OUTPUT=nop "$DEMO" -r 10 > /dev/null 2>&1 &
Q=$!
wait "$Q"
check_eq control-removed-at-exit "" "$(ls "$T/ctl")"
# A stale socket of an earlier process is not trusted: served by another pid.
TJ_CONTROL_DIR="$T/ctl" TJ_CONTROL=1 TJ_OUTPUT=log "$DEMO" -t 1 -r 4000000000 \
        --trace file=/dev/null > /dev/null 2>&1 &
P=$!
if wait_for '[ -S "$T/ctl/$P.sock" ]'; then
        TJ_CONTROL_DIR="$T/ctl" "$TQ" ctl "$P" enable blk_drain_all > "$T/out" 2>&1 || true
        check_eq control-dir "enabled 1" "$(cat "$T/out")"
        # A socket in a directory another user may not search ($T is 0700,
        # as an XDG_RUNTIME_DIR): the kernel refuses, and that is what the
        # other user is told (it was "no control endpoint (start the program
        # with TJ_CONTROL=1)", to a program started with it).
        if [ -n "${PUB:-}" ]; then
                rc=0
                TJ_CONTROL_DIR="$T/ctl" setpriv --reuid=nobody --regid="$(id -g nobody)" \
                        --clear-groups "$PUB/traceql" ctl "$P" stats > /dev/null 2> "$T/err" || rc=$?
                check_eq control-client-dir-denied "6 traceql: ctl $P: $T/ctl/$P.sock: Permission denied" \
                        "$rc $(cat "$T/err")"
        else
                skip control-client-dir-denied "needs root, setpriv and a 'nobody' user"
        fi
        ln -s "$T/ctl/$P.sock" "$T/ctl/$$.sock"
        rc=0; TJ_CONTROL_DIR="$T/ctl" "$TQ" ctl $$ stats > /dev/null 2> "$T/err" || rc=$?
        check_eq control-client-wrong-pid "6 traceql: ctl $$: $T/ctl/$$.sock is served by pid $P, not $$" \
                "$rc $(cat "$T/err")"
else
        fail control-dir "$T/ctl/$P.sock did not appear"
fi
# (it ran until killed, and P is taken again below: it was left running,
# at a core's full speed, after the test had ended)
kill "$P" 2> /dev/null || true; wait "$P" 2> /dev/null || true; P=

# A relative TJ_CONTROL_DIR, then the program changes its working directory:
# its socket is removed at exit all the same (it unlinked rel/PID.sock under
# the new working directory, and left its own behind).
mkdir "$T/rel"
(cd "$T" && TJ_CONTROL_DIR=rel TJ_OUTPUT=nop "$B/tests/lib-emit" ctlstart chdir:/ exit) \
        > "$T/out" 2>&1 || true
check_eq control-relative-dir-chdir "|" "$(cat "$T/out")|$(ls "$T/rel")"

# A program started with standard input closed: the endpoint's eventfd was
# descriptor 0 (and its listening socket the next free one below 3 with
# more closed), what the program read there.  Both are above 2, and the
# socket file is removed at exit.
mkdir "$T/in"
TJ_CONTROL_DIR="$T/in" TJ_OUTPUT=nop run_fdclosed 0 "$B/tests/lib-emit" fds ctlstart fds exit \
        > "$T/out" 2>&1 || true
check_eq control-stdin-closed "fds 0=closed 1=file 2=file n=+0
fds 0=closed 1=file 2=file n=+2|" "$(fds_rel "$T/out")|$(ls "$T/in")"

# The socket at the path is not the one the program bound (removed, and
# another process of the same pid number, in another pid namespace, bound its
# own there): it is left alone at exit (it was removed).
mkdir "$T/swap"
TJ_CONTROL_DIR="$T/swap" TJ_OUTPUT=nop "$B/tests/lib-emit" ctlstart waitfor:"$T/swap.go" exit \
        > "$T/out" 2>&1 &
Q=$!
if wait_for '[ -S "$T/swap/$Q.sock" ]'; then
        rm "$T/swap/$Q.sock"
        python3 -c 'import socket, sys
socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).bind(sys.argv[1])' "$T/swap/$Q.sock"
        ino=$(stat -c %i "$T/swap/$Q.sock")
        touch "$T/swap.go"
        wait "$Q" || true
        check_eq control-other-socket-kept "|$ino" "$(cat "$T/out")|$(stat -c %i "$T/swap/$Q.sock" 2>&1)"
else
        fail control-other-socket-kept "$T/swap/$Q.sock did not appear"
        kill "$Q" 2> /dev/null || true; wait "$Q" 2> /dev/null || true
fi

# The same, but the other socket comes between the program's last look at
# the path and its removal (by an lstat() shim here; a race with another
# process of the same pid number): it is left alone all the same (the lstat()
# said "ours", and the unlink() of the path removed the other's); nothing is
# left beside it.  And another's socket that comes at the path between the
# program's bind() and its listen() (by a bind() shim; that other process took
# the socket not yet listening for stale, removed it and bound its own): the
# start is refused with -EADDRINUSE and the other's is left (the program
# recorded the other's inode as its own, started, and removed it at exit).
if [ -z "${SANITIZE:-}" ]; then
        cat > "$T/race.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* Put a listening socket of our own at PATH, whatever is there. */
static void other(const char *path)
{
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        int fd = socket(AF_UNIX, SOCK_STREAM, 0);

        snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
        unlink(path);
        if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 1) < 0)
                abort();
}

int lstat(const char *path, struct stat *st)
{
        static int (*real)(const char *, struct stat *);
        static int done;
        const char *at = getenv("RACE_LSTAT");
        int r;

        if (!real)
                real = (int (*)(const char *, struct stat *))dlsym(RTLD_NEXT, "lstat");
        r = real(path, st);
        if (at && !done && strcmp(path, at) == 0) {
                done = 1;
                other(path);
        }
        return r;
}

int bind(int fd, const struct sockaddr *sa, socklen_t len)
{
        static int (*real)(int, const struct sockaddr *, socklen_t);
        static int done;
        const char *at = getenv("RACE_BIND");
        int r;

        if (!real)
                real = (int (*)(int, const struct sockaddr *, socklen_t))dlsym(RTLD_NEXT, "bind");
        r = real(fd, sa, len);
        if (r == 0 && at && !done) {
                done = 1;
                other(at);
        }
        return r;
}
C
        ${CC:-cc} -shared -fPIC -o "$T/race.so" "$T/race.c" -ldl
        mkdir "$T/race"
        RACE_LSTAT_DIR="$T/race" TJ_CONTROL_DIR="$T/race" TJ_OUTPUT=nop LD_PRELOAD="$T/race.so" \
                sh -c 'RACE_LSTAT="$RACE_LSTAT_DIR/$$.sock" exec "$1" ctlstart exit' sh \
                "$B/tests/lib-emit" > "$T/out" 2>&1 &
        Q=$!
        wait "$Q" || true
        check_eq control-other-socket-kept-race "|$Q.sock|socket" \
                "$(cat "$T/out")|$(ls -A "$T/race")|$(stat -c %F "$T/race/$Q.sock" 2>&1)"
        mkdir "$T/race2"
        RACE_DIR="$T/race2" TJ_CONTROL_DIR="$T/race2" TJ_OUTPUT=nop LD_PRELOAD="$T/race.so" \
                sh -c 'RACE_BIND="$RACE_DIR/$$.sock" exec "$1" ctlstart exit' sh \
                "$B/tests/lib-emit" > "$T/out" 2>&1 &
        Q=$!
        wait "$Q" || true
        check_eq control-other-socket-kept-bind "ctlstart=-98|$Q.sock|socket" \
                "$(cat "$T/out")|$(ls -A "$T/race2")|$(stat -c %F "$T/race2/$Q.sock" 2>&1)"
else
        skip control-other-socket-kept-race "a preloaded shim, no sanitizer"
fi

# Two processes that are both pid 1, each in a pid namespace of its own,
# with one TJ_CONTROL_DIR: the second does not take the live socket of the
# first (it removed it and bound its own, and exiting removed that: the
# first was left without one); it is told -EADDRINUSE, and the first's
# socket is served until the first exits and removes it.
if [ "$(id -u)" = 0 ] && unshare --pid --fork true 2> /dev/null; then
        mkdir "$T/ns"
        TJ_CONTROL_DIR="$T/ns" TJ_OUTPUT=nop unshare --pid --fork "$B/tests/lib-emit" ctlstart \
                waitfor:"$T/ns.go" exit > "$T/ns1.out" 2>&1 &
        Q=$!
        if wait_for '[ -S "$T/ns/1.sock" ]'; then
                TJ_CONTROL_DIR="$T/ns" TJ_OUTPUT=nop unshare --pid --fork "$B/tests/lib-emit" \
                        ctlstart exit > "$T/ns2.out" 2>&1 || true
                "$SEND" "$T/ns/1.sock" < /dev/null > "$T/ns.reply" 2>&1 || true
                # the second's check that the socket is live (a connection
                # that sends nothing) and the empty one above are no
                # requests: only this stats is counted (3 before)
                printf 'stats\n' | "$SEND" "$T/ns/1.sock" 2>&1 | grep '^control ' > "$T/ns.stats" || true
                touch "$T/ns.go"
                wait "$Q" || true
                check_eq control-pidns-live-kept "ctlstart=-98|error empty request||" \
                        "$(cat "$T/ns2.out")|$(cat "$T/ns.reply")|$(cat "$T/ns1.out")|$(ls "$T/ns")"
                check_eq control-pidns-live-not-served "control served 1 refused 0" "$(cat "$T/ns.stats")"
        else
                fail control-pidns-live-kept "$T/ns/1.sock did not appear"
                touch "$T/ns.go"; wait "$Q" 2> /dev/null || true
        fi
else
        skip control-pidns-live-kept "needs root and unshare --pid"
fi

# A program in a pid namespace of its own (a container): its socket is
# named after its pid there, 1; traceql ctl, here, takes the pid it has here
# and finds the socket by the process's NSpid (it looked for HOSTPID.sock:
# "no control endpoint").  Asked for pid 1 (here: another process), the
# socket is not trusted.
if [ "$(id -u)" = 0 ] && unshare --pid --fork --mount-proc true 2> /dev/null; then
        mkdir "$T/nsc"
        TJ_CONTROL_DIR="$T/nsc" TJ_CONTROL=1 TJ_OUTPUT=nop unshare --pid --fork --mount-proc \
                "$B/tests/lib-emit" init waitfor:"$T/nsc.go" exit > /dev/null 2>&1 &
        Q=$!
        if wait_for '[ -S "$T/nsc/1.sock" ]'; then
                H=$(pgrep -P "$Q")
                rc=0; TJ_CONTROL_DIR="$T/nsc" "$TQ" ctl "$H" outputs > "$T/out" 2>&1 || rc=$?
                check_eq control-client-pidns "0|outputs nop" "$rc|$(cat "$T/out")"
                rc=0; TJ_CONTROL_DIR="$T/nsc" "$TQ" ctl 1 outputs > "$T/out" 2>&1 || rc=$?
                check_eq control-client-pidns-other "6|traceql: ctl 1: $T/nsc/1.sock is served by pid $H, not 1" \
                        "$rc|$(cat "$T/out")"
        else
                fail control-client-pidns "$T/nsc/1.sock did not appear"
        fi
        touch "$T/nsc.go"; wait "$Q" 2> /dev/null || true
else
        skip control-client-pidns "needs root and unshare --pid --mount-proc"
fi

# The socket is mode 0666 whatever the umask; and a symlink put in its place
# between bind() and the chmod (by a bind() shim here; another user, in a
# directory others may write) is not followed: the start fails with -EEXIST
# and the file the symlink names keeps its mode (it was made 0666).
mkdir "$T/mode"
(umask 077; TJ_CONTROL_DIR="$T/mode" TJ_OUTPUT=nop "$B/tests/lib-emit" ctlstart \
        waitfor:"$T/mode.go" exit > /dev/null 2>&1) &
Q=$!
wait_for '[ -S "$T/mode/$Q.sock" ]' || true
check_eq control-socket-mode-umask "srw-rw-rw-" "$(stat -c %A "$T/mode/$Q.sock" 2>&1)"
touch "$T/mode.go"; wait "$Q" || true
if [ -z "${SANITIZE:-}" ]; then
        cat > "$T/swap.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int bind(int fd, const struct sockaddr *sa, socklen_t len)
{
        int (*real)(int, const struct sockaddr *, socklen_t) =
                (int (*)(int, const struct sockaddr *, socklen_t))dlsym(RTLD_NEXT, "bind");
        const char *path = ((const struct sockaddr_un *)sa)->sun_path;
        char moved[sizeof(((struct sockaddr_un *)0)->sun_path) + 8];
        int r = real(fd, sa, len);

        if (r == 0 && sa->sa_family == AF_UNIX && getenv("SWAP_TO")) {
                snprintf(moved, sizeof(moved), "%s.moved", path);
                if (rename(path, moved) < 0 || symlink(getenv("SWAP_TO"), path) < 0)
                        return -1;
        }
        return r;
}
C
        ${CC:-cc} -shared -fPIC -o "$T/swap.so" "$T/swap.c" -ldl
        mkdir "$T/sym"
        : > "$T/victim"
        chmod 600 "$T/victim"
        SWAP_TO="$T/victim" LD_PRELOAD="$T/swap.so" TJ_CONTROL_DIR="$T/sym" TJ_OUTPUT=nop \
                "$B/tests/lib-emit" ctlstart > "$T/out" 2>&1 || true
        check_eq control-symlink-not-followed "ctlstart=-17|-rw-------" \
                "$(cat "$T/out")|$(stat -c %A "$T/victim")"
else
        skip control-symlink-not-followed "a preloaded shim, no sanitizer"
fi

# /run/tracejournal is made 0755 whatever the umask (other users reach the
# socket and are told they may not use it); in a mount namespace whose /run
# is a fresh tmpfs, so the machine's own is not touched.
if [ "$(id -u)" = 0 ] && unshare -m true 2> /dev/null; then
        got=$(unshare -m sh -c 'mount -t tmpfs tmpfs /run && umask 077 &&
                env -u XDG_RUNTIME_DIR -u TJ_CONTROL_DIR TJ_CONTROL=1 TJ_OUTPUT=nop "$1" -r 10 \
                > /dev/null 2>&1; stat -c %a /run/tracejournal' sh "$DEMO" 2>&1)
        check_eq control-default-dir-mode "755" "$got"
else
        skip control-default-dir-mode "needs root and unshare -m"
fi

# A program in a mount namespace of its own whose /run is its own tmpfs (a
# container): its /run/tracejournal/PID.sock is not ours, and traceql ctl
# finds it under /proc/PID/root (it said "no control endpoint").  The
# container's files are looked up as in its root: a /run/tracejournal that is
# a symlink through /proc/self/cwd, which would name traceql's own working
# directory and a socket there, leads nowhere.
if [ "$(id -u)" = 0 ] && unshare -m true 2> /dev/null; then
        unshare -m sh -c 'mount -t tmpfs tmpfs /run && exec env -u XDG_RUNTIME_DIR \
                -u TJ_CONTROL_DIR TJ_CONTROL=1 TJ_OUTPUT=nop "$1" init waitfor:"$2" exit' \
                sh "$B/tests/lib-emit" "$T/mntns.go" > /dev/null 2>&1 &
        Q=$!
        if wait_for '[ -S "/proc/$Q/root/run/tracejournal/$Q.sock" ]'; then
                rc=0; env -u TJ_CONTROL_DIR -u XDG_RUNTIME_DIR "$TQ" ctl "$Q" outputs \
                        > "$T/out" 2>&1 || rc=$?
                check_eq control-client-mntns "0|outputs nop" "$rc|$(cat "$T/out")"
        else
                fail control-client-mntns "/proc/$Q/root/run/tracejournal/$Q.sock did not appear"
        fi
        touch "$T/mntns.go"; wait "$Q" 2> /dev/null || true
        unshare -m sh -c 'mount -t tmpfs tmpfs /run && ln -s /proc/self/cwd /run/tracejournal &&
                touch /run/ready && exec "$1" waitfor:"$2" exit' \
                sh "$B/tests/lib-emit" "$T/mntns2.go" > /dev/null 2>&1 &
        Q=$!
        mkdir "$T/cwd"
        python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1]); s.listen(4); time.sleep(30)' "$T/cwd/$Q.sock" &
        M=$!
        if wait_for '[ -e "/proc/$Q/root/run/ready" ] && [ -S "$T/cwd/$Q.sock" ]'; then
                rc=0; (cd "$T/cwd" && env -u TJ_CONTROL_DIR -u XDG_RUNTIME_DIR "$TQ" ctl "$Q" \
                        outputs) > "$T/out" 2>&1 || rc=$?
                check_eq control-client-mntns-contained \
                        "6|traceql: ctl $Q: no control endpoint (start the program with TJ_CONTROL=1)" \
                        "$rc|$(cat "$T/out")"
        else
                fail control-client-mntns-contained "the namespace or the socket did not appear"
        fi
        touch "$T/mntns2.go"; wait "$Q" 2> /dev/null || true
        kill "$M" 2> /dev/null || true; wait "$M" 2> /dev/null || true
else
        skip control-client-mntns "needs root and unshare -m"
fi

# An endpoint that takes the request and never answers: the client gives up
# after its timeout (60 s; 1 s here) saying so, not "Resource temporarily
# unavailable".
mkdir "$T/mute"
python3 -c 'import os, socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1] + "/%d.sock" % os.getpid()); s.listen(4)
c, _ = s.accept(); time.sleep(30)' "$T/mute" &
M=$!
if wait_for '[ -S "$T/mute/$M.sock" ]'; then
        rc=0
        TRACEQL_TEST_CTL_TIMEOUT_S=1 TJ_CONTROL_DIR="$T/mute" "$TQ" ctl "$M" stats > /dev/null 2> "$T/err" || rc=$?
        check_eq control-client-no-answer "6 traceql: ctl $M: $T/mute/$M.sock: no answer within 1 s" \
                "$rc $(cat "$T/err")"
else
        fail control-client-no-answer "$T/mute/$M.sock did not appear"
fi
kill "$M" 2> /dev/null || true; wait "$M" 2> /dev/null || true

# An endpoint that answers with escape sequences and bytes outside ASCII (a
# program of another user that root asks): they reach the terminal as \xHH,
# not as they came (they went to stdout and stderr raw).
mkdir "$T/esc"
python3 -c 'import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1] + "/%d.sock" % os.getpid()); s.listen(4)
c, _ = s.accept(); c.recv(4096)
c.sendall(b"ev\x1b]0;owned\x07 grp\ton\nx\xff\x7f\nerror bad\x1b[2J\n"); c.close()' "$T/esc" &
M=$!
if wait_for '[ -S "$T/esc/$M.sock" ]'; then
        rc=0
        TJ_CONTROL_DIR="$T/esc" "$TQ" ctl "$M" list > "$T/out" 2> "$T/err" || rc=$?
        check_eq control-client-reply-escaped '7|ev\x1b]0;owned\x07 grp\x09on
x\xff\x7f|traceql: ctl '"$M"': bad\x1b[2J' "$rc|$(cat "$T/out")|$(cat "$T/err")"
else
        fail control-client-reply-escaped "$T/esc/$M.sock did not appear"
fi
kill "$M" 2> /dev/null || true; wait "$M" 2> /dev/null || true

# ---- a flush or an outputs change that cannot finish holds up no other
# request: the writer is stuck in its send to a syslog socket nobody reads; a
# flush asked then gets its time-out error (TJ_FLUSH_TIMEOUT_MS, 1.5 s), an
# outputs change its own (after the flush's time-out and as long again
# waiting for the writer to let go of the outputs), unchanged, and a stats
# request made while both wait is answered within the client's own time-out,
# 1 s here (they waited in the control thread, every request behind them:
# "no answer within 1 s").
mkdir "$T/stuck"
python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind(sys.argv[1]); time.sleep(60)' \
        "$T/stuck/log.sock" &
L=$!
wait_for '[ -S "$T/stuck/log.sock" ]' || true
TJ_CONTROL_DIR="$T/stuck" TJ_CONTROL=1 TJ_OUTPUT=syslog TJ_SYSLOG_SOCKET="$T/stuck/log.sock" \
        TJ_FLUSH_TIMEOUT_MS=1500 TJ_EVENTS=blk_req_submit "$DEMO" -t 1 -r 4000000000 > /dev/null 2>&1 &
P=$!
if wait_for '[ -S "$T/stuck/$P.sock" ]'; then
        { rc=0; TJ_CONTROL_DIR="$T/stuck" "$TQ" ctl "$P" flush > /dev/null 2> "$T/flush.err" || rc=$?
          echo "$rc" > "$T/flush.rc"; } &
        fpid=$!
        { rc=0; TJ_CONTROL_DIR="$T/stuck" "$TQ" ctl "$P" outputs log > /dev/null 2> "$T/outputs.err" ||
                rc=$?; echo "$rc" > "$T/outputs.rc"; } &
        opid=$!
        sleep 0.5
        rc=0; TRACEQL_TEST_CTL_TIMEOUT_S=1 TJ_CONTROL_DIR="$T/stuck" "$TQ" ctl "$P" stats \
                > /dev/null 2> "$T/stats.err" || rc=$?
        wait $fpid $opid
        check_eq control-flush-holds-none "0|7 traceql: ctl $P: flush timed out after 1500 ms" \
                "$rc$(cat "$T/stats.err")|$(cat "$T/flush.rc") $(cat "$T/flush.err")"
        TJ_CONTROL_DIR="$T/stuck" "$TQ" ctl "$P" outputs > "$T/out" 2>&1 || true
        check_eq control-outputs-holds-none "7 traceql: ctl $P: outputs busy for 1500 ms (an output does not take events): unchanged|outputs syslog" \
                "$(cat "$T/outputs.rc") $(cat "$T/outputs.err")|$(cat "$T/out")"
else
        fail control-flush-holds-none "$T/stuck/$P.sock did not appear"
fi
kill "$P" "$L" 2> /dev/null; wait "$P" 2> /dev/null || true; wait "$L" 2> /dev/null || true; P=

# ---- tj_shutdown() stops the endpoint while a flush and an outputs change
# wait for a writer stuck in its send (a syslog socket nobody reads): each
# is told so, exit status 7, rather than have its connection closed with no
# reply ("the reply ended early", status 6).  The stats' served count says
# when the endpoint has read both requests; then the program shuts down ----
mkdir "$T/stop"
python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind(sys.argv[1]); time.sleep(60)' \
        "$T/stop/log.sock" &
L=$!
wait_for '[ -S "$T/stop/log.sock" ]' || true
TJ_CONTROL_DIR="$T/stop" TJ_OUTPUT=syslog TJ_SYSLOG_SOCKET="$T/stop/log.sock" \
        TJ_FLUSH_TIMEOUT_MS=20000 TJ_EVENTS=tgb_req "$B/tests/lib-emit" init ctlstart req:3000 \
        waitfor:"$T/stop/go" shutdown > /dev/null 2>&1 &
P=$!
if wait_for '[ -S "$T/stop/$P.sock" ]'; then
        { rc=0; TJ_CONTROL_DIR="$T/stop" "$TQ" ctl "$P" flush > /dev/null 2> "$T/flush.err" ||
                rc=$?; echo "$rc" > "$T/flush.rc"; } &
        fpid=$!
        { rc=0; TJ_CONTROL_DIR="$T/stop" "$TQ" ctl "$P" outputs log > /dev/null \
                2> "$T/outputs.err" || rc=$?; echo "$rc" > "$T/outputs.rc"; } &
        opid=$!
        # the K-th stats counts K, + 2 once both requests were read
        k=0
        while [ $k -lt 200 ]; do
                k=$((k + 1))
                n=$(TJ_CONTROL_DIR="$T/stop" "$TQ" ctl "$P" stats 2> /dev/null |
                        awk '/^control served/ { print $3 }')
                [ "${n:-0}" -lt $((k + 2)) ] || break
                sleep 0.05
        done
        touch "$T/stop/go"
        wait $fpid $opid
        check_eq control-stop-tells-waiting "7 traceql: ctl $P: flush not done: the control endpoint stopped (tj_shutdown(), tj_control_stop() or exit)|7 traceql: ctl $P: outputs unchanged: the control endpoint stopped (tj_shutdown(), tj_control_stop() or exit)" \
                "$(cat "$T/flush.rc") $(cat "$T/flush.err")|$(cat "$T/outputs.rc") $(cat "$T/outputs.err")"
else
        fail control-stop-tells-waiting "$T/stop/$P.sock did not appear"
fi
kill "$P" "$L" 2> /dev/null; wait "$P" 2> /dev/null || true; wait "$L" 2> /dev/null || true; P=

# ---- the API: tj_control_start/path/stop, and a fork child leaves the
# parent's socket alone ----
cat > "$T/api.c" <<'SRC'
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <tracejournal.h>
static int exists(const char *p) { struct stat st; return stat(p, &st) == 0; }
int main(void)
{
        char path[256], small[4];
        int r0 = tj_control_path(path, sizeof(path));
        int r1 = tj_control_start(), r2 = tj_control_start();
        int r3 = tj_control_path(path, sizeof(path));
        int r4 = tj_control_path(small, sizeof(small));
        pid_t child = fork();

        if (child == 0) {
                tj_control_stop();
                _exit(exists(path) ? 0 : 1);    /* exit() would run atexit */
        }
        int st = 0;
        waitpid(child, &st, 0);
        printf("%d %d %d %d %d child-kept=%d exists=%d", r0, r1, r2, r3, r4,
               WIFEXITED(st) && WEXITSTATUS(st) == 0, exists(path));
        tj_control_stop();
        printf(" after-stop=%d\n", exists(path));
        return 0;
}
SRC
if ${CC:-cc} -std=gnu11 -Wall -Wextra -Werror -I"$TOP/include" -o "$T/api" "$T/api.c" \
        "$B/libtracejournal.a" $SAN_FLAGS -lsystemd -lpthread 2> "$T/err"; then
        check_eq control-api "-107 0 0 0 -36 child-kept=1 exists=1 after-stop=0" \
                "$(TJ_CONTROL_DIR="$T/ctl" "$T/api")"
else
        fail control-api "$(head -3 "$T/err")"
fi

# ---- tj_shutdown() stops the endpoint before the writer, but another
# thread may start it again (tj_control_start()) meanwhile: tj_shutdown()
# stops that one too before it returns (it served on, and a flush there
# got "ok" with nothing written: ctlpath=0).  A flush asked there after the
# writer's last pass began is done by no pass, and is answered at once (it
# waited all of TJ_FLUSH_TIMEOUT_MS, 20 s here, then got "error flush timed
# out after 20000 ms"; timeout(1) ends the run at 10 s, status 124); an
# outputs change whose flush is so left waits for tj_shutdown(), which
# stops the endpoint first: unchanged.  lib-emit's ctlstop has each pass of
# the writer send the request and wait until the endpoint read it;
# 'outputs' alone is answered meanwhile, not waiting for the writer ----
for c in "flush|error flush not done: tj_shutdown() stopped the writer thread first|" \
         "outputs log|error outputs unchanged: the control endpoint stopped (tj_shutdown(), tj_control_stop() or exit)|" \
         "outputs|outputs nop|ok|"; do
        req=${c%%|*}
        st=0; TJ_CONTROL_DIR="$T/ctl" TJ_OUTPUT=nop TJ_FLUSH_TIMEOUT_MS=20000 timeout 10 \
                "$B/tests/lib-emit" init "ctlstop:$req" ctlpath > "$T/out" 2>&1 || st=$?
        check_eq "control-during-shutdown-$(echo "$req" | tr ' ' -)" "ctlstop reply=${c#*|}
ctlpath=-107
status 0" "$(cat "$T/out"; echo "status $st")"
done

# ---- enable/disable of a pattern that matches no event: the error says it
# is kept, as TJ_EVENTS's are, and a group registered after it (lib-emit's
# nest, tgn_nest) has its events enabled by it, or disabled ----
TJ_CONTROL_DIR="$T/ctl" TJ_OUTPUT=nop "$B/tests/lib-emit" init "ctl:enable tgn_*" nest \
        "ctl:list tgn_*" "ctl:disable tgn_n*" "ctl:disable tgx_*" "ctl:list tgn_*" \
        > "$T/out" 2>&1 || true
check_eq control-nomatch-kept "ctl enable tgn_*=error no event matches 'tgn_*' (kept for modules loaded later)|
ctl list tgn_*=tgn_nest tgn on|ok|
ctl disable tgn_n*=disabled 1|ok|
ctl disable tgx_*=error no event matches 'tgx_*' (kept for modules loaded later)|
ctl list tgn_*=tgn_nest tgn off|ok|" "$(cat "$T/out")"

# ---- a reply decided when the endpoint stops (the loop left before the
# poll() that would have sent it: under TSan a flush the writer left undone,
# answered as tj_shutdown() stopped the endpoint) is sent, not dropped (the
# client saw the connection end with no reply).  A poll() shim holds the
# endpoint's first poll() for a writable connection 500 ms, and the program
# stops the endpoint meanwhile.  Not under the sanitizers (a preloaded
# shim) ----
if [ -z "${SANITIZE:-}" ]; then
        cat > "$T/hold.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>

/* The first poll() for a writable descriptor: create $HOLD_FLAG, sleep. */
int poll(struct pollfd *p, nfds_t n, int timeout)
{
        static int (*real)(struct pollfd *, nfds_t, int);
        static int done;
        const char *flag = getenv("HOLD_FLAG");

        if (!real)
                real = (int (*)(struct pollfd *, nfds_t, int))dlsym(RTLD_NEXT, "poll");
        for (nfds_t i = 0; flag && i < n && !done; i++)
                if (p[i].fd >= 0 && (p[i].events & POLLOUT)) {
                        done = 1;
                        close(open(flag, O_WRONLY | O_CREAT, 0600));
                        usleep(500000);
                }
        return real(p, n, timeout);
}
C
        if ${CC:-cc} -shared -fPIC -o "$T/hold.so" "$T/hold.c" -ldl 2> "$T/err"; then
                mkdir -p "$T/hold"
                rm -f "$T/held"
                HOLD_FLAG="$T/held" LD_PRELOAD="$T/hold.so" TJ_CONTROL_DIR="$T/hold" \
                        TJ_OUTPUT=nop "$B/tests/lib-emit" init ctlstart waitfor:"$T/held" \
                        shutdown ctlpath > "$T/out" 2>&1 &
                Q=$!
                wait_for test -S "$T/hold/$Q.sock" || true
                st=0; printf 'outputs\n' | "$SEND" "$T/hold/$Q.sock" > "$T/reply" 2>&1 || st=$?
                wait "$Q" || true
                check_eq control-stopped-reply-sent "outputs nop
ok
status 0
ctlpath=-107" "$(cat "$T/reply"; echo "status $st"; cat "$T/out")"
        else
                fail control-stopped-reply-sent "$(head -3 "$T/err")"
        fi
else
        skip control-stopped-reply-sent "a preloaded shim, no sanitizer"
fi

# ---- an endpoint serving without a writer thread (before tj_init(), after
# tj_shutdown()): a flush is not done, what was traced waits in the rings
# (it was answered "ok") ----
nowriter="error flush not done: no writer thread (before tj_init() or after tj_shutdown())|"
TJ_CONTROL_DIR="$T/ctl" TJ_OUTPUT=nop "$B/tests/lib-emit" req:5 ctl:flush init ctl:flush shutdown \
        ctl:flush ctlpath > "$T/out" 2>&1 || true
check_eq control-flush-no-writer "ctl flush=$nowriter
ctl flush=ok|
ctl flush=$nowriter
ctlpath=0" "$(cat "$T/out")"

# ---- outputs before tj_init() and after tj_shutdown(): no output is open,
# the reply shows the list kept for the next tj_init() (it showed none):
# none chosen yet (tj_init() takes TJ_OUTPUT, else journald), then what an
# outputs change or tj_set_outputs() chose ----
env -u TJ_OUTPUT TJ_CONTROL_DIR="$T/ctl" "$B/tests/lib-emit" ctl:outputs 'ctl:outputs nop' \
        ctl:outputs init ctl:outputs shutdown ctl:outputs outputs:syslog ctl:outputs \
        > "$T/out" 2>&1 || true
check_eq control-outputs-kept "ctl outputs=outputs |ok|
ctl outputs nop=outputs nop|ok|
ctl outputs=outputs nop|ok|
ctl outputs=outputs nop|ok|
ctl outputs=outputs nop|ok|
outputs syslog=0
ctl outputs=outputs syslog|ok|" "$(cat "$T/out")"

# ---- outputs changed after tj_init() (tj_set_outputs(), an outputs
# request) are the ones kept for the next tj_init(): the reply after
# tj_shutdown() shows them and the next tj_init() opens them again (both
# had the list chosen before the first tj_init(), or none: journald);
# TJ_OUTPUT still overrides the kept list at tj_init() ----
env -u TJ_OUTPUT TJ_CONTROL_DIR="$T/ctl" TJ_SYSLOG_SOCKET="$T/no.sock" "$B/tests/lib-emit" \
        outputs:nop init ctl:outputs outputs:syslog shutdown ctl:outputs init ctl:outputs \
        shutdown > "$T/out" 2> /dev/null || true
check_eq control-outputs-kept-after-init "outputs nop=0
ctl outputs=outputs nop|ok|
outputs syslog=0
ctl outputs=outputs syslog|ok|
ctl outputs=outputs syslog|ok|" "$(cat "$T/out")"
env -u TJ_OUTPUT TJ_CONTROL_DIR="$T/ctl" "$B/tests/lib-emit" init 'ctl:outputs nop' shutdown \
        ctl:outputs init ctl:outputs shutdown > "$T/out" 2>&1 || true
check_eq control-outputs-kept-after-init-ctl "ctl outputs nop=outputs nop|ok|
ctl outputs=outputs nop|ok|
ctl outputs=outputs nop|ok|" "$(cat "$T/out")"
TJ_OUTPUT=nop TJ_CONTROL_DIR="$T/ctl" TJ_SYSLOG_SOCKET="$T/no.sock" "$B/tests/lib-emit" init \
        outputs:syslog shutdown ctl:outputs init ctl:outputs shutdown > "$T/out" 2> /dev/null || true
check_eq control-outputs-kept-env-overrides "outputs syslog=0
ctl outputs=outputs syslog|ok|
ctl outputs=outputs nop|ok|" "$(cat "$T/out")"

# ---- the list kept for tj_init() is kept as applied, not as given: blanks
# and empty items gone, each name once, in the order first given, as the
# open ones are shown (it was echoed as given: 'log,,nop,log,'); the
# TJ_OUTPUT warning quotes it so too ----
env -u TJ_OUTPUT TJ_CONTROL_DIR="$T/ctl" TJ_SYSLOG_SOCKET="$T/no.sock" "$B/tests/lib-emit" \
        'ctl:outputs log,,nop,log,' ctl:outputs 'outputs: nop , ,log,nop' ctl:outputs init \
        ctl:outputs 'ctl:outputs ,syslog,,nop,syslog' shutdown ctl:outputs > "$T/out" 2> /dev/null || true
check_eq control-outputs-kept-normalised "ctl outputs log,,nop,log,=outputs log,nop|ok|
ctl outputs=outputs log,nop|ok|
outputs  nop , ,log,nop=0
ctl outputs=outputs nop,log|ok|
ctl outputs=outputs nop,log|ok|
ctl outputs ,syslog,,nop,syslog=outputs syslog,nop|ok|
ctl outputs=outputs syslog,nop|ok|" "$(cat "$T/out")"
TJ_QUIET=0 TJ_OUTPUT=, TJ_CONTROL_DIR="$T/ctl" "$B/tests/lib-emit" 'outputs:nop,,nop' init > "$T/out" 2>&1 || true
check_eq control-outputs-kept-normalised-warning "outputs nop,,nop=0
tracejournal: TJ_OUTPUT: no known output, using 'nop'" "$(cat "$T/out")"

# ---- fork() while a connection is open: the child's copy of it does not
# keep the client waiting for the end of the reply (it got the reply, then
# no end of stream while the child lived: traceql ctl said "no answer within
# 60 s").  Connection A is accepted before B (the listen queue's order), B's
# reply shows it was; the fork comes while A's request is unfinished; the
# child lives until A's reply is read to its end or 10 s have passed ----
cat > "$T/forkconn.c" <<'SRC'
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <tracejournal.h>
static int conn(const char *path)
{
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        int fd = socket(AF_UNIX, SOCK_STREAM, 0);

        strcpy(sa.sun_path, path);
        return fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 ? fd : -1;
}
/* read to the end of stream: "eof", or the error that came first */
static const char *all(int fd, char *buf, size_t cap)
{
        size_t got = 0;
        ssize_t n = 0;

        while (got < cap - 1 && (n = recv(fd, buf + got, cap - 1 - got, 0)) > 0)
                got += (size_t)n;
        buf[got] = '\0';
        return n == 0 ? "eof" : n < 0 ? strerror(errno) : "full";
}
int main(void)
{
        struct timeval tv = { 10, 0 };
        char path[108], buf[4096];
        int a, b, p[2];
        pid_t child;

        if (tj_init("forkconn") < 0 || tj_control_start() < 0 ||
            tj_control_path(path, sizeof(path)) < 0 || pipe(p) < 0 ||
            (a = conn(path)) < 0 || send(a, "outputs", 7, 0) != 7 || (b = conn(path)) < 0 ||
            send(b, "outputs\n", 8, 0) != 8 || strcmp(all(b, buf, sizeof(buf)), "eof") != 0)
                return 1;
        child = fork();
        if (child == 0) {
                char x;

                close(p[1]);
                _exit(read(p[0], &x, 1) < 0);
        }
        close(p[0]);
        setsockopt(a, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        send(a, "\n", 1, 0);
        const char *end = all(a, buf, sizeof(buf));
        printf("%s|%s\n", buf, end);
        close(p[1]);
        waitpid(child, NULL, 0);
        return 0;
}
SRC
if ${CC:-cc} -std=gnu11 -Wall -Wextra -Werror -I"$TOP/include" -o "$T/forkconn" "$T/forkconn.c" \
        "$B/libtracejournal.a" $SAN_FLAGS -lsystemd -lpthread 2> "$T/err"; then
        check_eq control-fork-connection-ends "outputs nop
ok
|eof" "$(TJ_CONTROL_DIR="$T/ctl" TJ_OUTPUT=nop "$T/forkconn" 2>&1)"
else
        fail control-fork-connection-ends "$(head -3 "$T/err")"
fi

# ---- a fork child's stats count since the child started, the outputs'
# lines too: they went on from the parent's (output nop written 10 beside
# written 3), though emitted, written, dropped and the control counters
# start again ----
# (standard error apart: LeakSanitizer's note on the fork child's threads)
TJ_CONTROL_DIR="$T/ctl" TJ_OUTPUT=nop TJ_EVENTS=tgb_req "$B/tests/lib-emit" init req:7 flush \
        forkctl:3 > "$T/out" 2> "$T/err" || true
check_eq control-fork-child-output-stats "emitted 3
written 3
dropped 0
output nop written 3 dropped 0
ok" "$(cat "$T/out")"

# ---- a program out of descriptors: the control thread cannot accept() the
# connection, which stays queued; it waits for a descriptor instead of
# spinning on a core (it used a whole one, poll() reporting the connection
# again at once), and answers once the program closed some ----
cat > "$T/nofd.c" <<'SRC'
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/resource.h>
#include <tracejournal.h>
int main(int argc, char **argv)
{
        struct rlimit rl = { 64, 64 };
        int fd, last = -1;

        if (argc < 2 || tj_init("nofd") < 0 || tj_control_start() < 0 ||
            setrlimit(RLIMIT_NOFILE, &rl) < 0)
                return 1;
        while ((fd = open("/dev/null", O_RDONLY)) >= 0)
                last = fd;
        fd = open(argv[1], O_WRONLY | O_CREAT, 0600);   /* fails: the sign to start */
        close(last);
        close(last - 1);
        if ((fd = open(argv[1], O_WRONLY | O_CREAT, 0600)) < 0)
                return 1;
        close(fd);
        last = dup(0);  /* and none left again */
        last = dup(0);
        sleep(3);
        close(last);
        sleep(10);
        return 0;
}
SRC
if ${CC:-cc} -std=gnu11 -Wall -Wextra -I"$TOP/include" -o "$T/nofd" "$T/nofd.c" \
        "$B/libtracejournal.a" $SAN_FLAGS -lsystemd -lpthread 2> "$T/err"; then
        TJ_CONTROL_DIR="$T/ctl" TJ_OUTPUT=nop "$T/nofd" "$T/nofd.ready" &
        Q=$!
        if wait_for '[ -e "$T/nofd.ready" ]'; then
                rc=0
                TJ_CONTROL_DIR="$T/ctl" "$TQ" ctl "$Q" outputs > "$T/out" 2> "$T/err" &
                C=$!
                sleep 2
                ticks=$(awk '{ print $14 + $15 }' "/proc/$Q/stat")
                wait "$C" || rc=$?
                if [ "$ticks" -lt 30 ]; then pass control-nofd-no-spin; else
                        fail control-nofd-no-spin "$ticks clock ticks of CPU in 2 s"; fi
                check_eq control-nofd-served "0|outputs nop|" "$rc|$(cat "$T/out")|$(cat "$T/err")"
        else
                fail control-nofd "the program did not start"
        fi
        kill "$Q" 2> /dev/null || true; wait "$Q" 2> /dev/null || true
else
        fail control-nofd "$(head -3 "$T/err")"
fi

# ---- the fuzz target, replayed: its seeds, then mutations of them and
# random buffers (a fixed PRNG), under ASan/UBSan when the compiler has them ----
cat > "$T/replay.c" <<'SRC'
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int main(int argc, char **argv)
{
        static uint8_t buf[9000];
        uint64_t x = 88172645463325252ull;
        long runs = 0;

        for (int i = 1; i < argc; i++) {
                FILE *f = fopen(argv[i], "rb");
                size_t n = f ? fread(buf, 1, sizeof(buf), f) : 0;

                if (f)
                        fclose(f);
                for (int k = 0; k < 20000; k++, runs++) {
                        uint8_t m[9000];
                        size_t len = n;

                        memcpy(m, buf, n);
                        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
                        if (len && k)
                                m[x % len] = (uint8_t)(x >> 24);
                        if (k % 7 == 3)
                                len = (size_t)(x >> 40) % (sizeof(m) + 1);
                        LLVMFuzzerTestOneInput(m, len);
                }
        }
        printf("%ld\n", runs);
        return 0;
}
SRC
seeds=$(ls "$TOP"/tests/fuzz/seeds/ctl/*)
san="-fsanitize=address,undefined -fno-sanitize-recover=all"
# shellcheck disable=SC2086
if ${CC:-cc} -std=gnu11 -O1 -g $san -I"$TOP/backend" -o "$T/replay" "$T/replay.c" \
        "$TOP/tests/fuzz/fuzz_ctl.c" "$TOP/backend/control_request.c" 2> /dev/null ||
   ${CC:-cc} -std=gnu11 -O1 -g -I"$TOP/backend" -o "$T/replay" "$T/replay.c" \
        "$TOP/tests/fuzz/fuzz_ctl.c" "$TOP/backend/control_request.c" 2> "$T/err"; then
        # shellcheck disable=SC2086
        check_eq control-fuzz-replay "$(( $(echo $seeds | wc -w) * 20000 ))" "$("$T/replay" $seeds 2>&1)"
else
        fail control-fuzz-replay "$(head -3 "$T/err")"
fi
