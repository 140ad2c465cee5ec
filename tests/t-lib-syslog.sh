#!/bin/sh
# t-lib-syslog.sh - the syslog output: exact datagrams on a test socket in
# RFC 3164 and RFC 5424 form (tests/c/lib-syslog.c), the same bytes as glibc's
# syslog(3) (in a private mount namespace where /dev/log is our socket), and a
# missing socket: the program goes on, one warning, the events counted as dropped;
# one warning per cause (a message too long for the socket, no daemon);
# a stream socket (tests/c/dgram-recv.c stream): NUL-ended messages, a closed
# connection made again, the same bytes as glibc's syslog(3); a fork child's
# first message when the parent's writer was in the middle of one; through a
# real rsyslogd, the identifier changed by tj_init() again and one with bytes
# RFC 3164/5424 do not allow.
. "$(dirname "$0")/lib/common.sh"

$RUN "$B/tests/lib-syslog" "$T/sys.sock" rfc3164 || true
$RUN "$B/tests/lib-syslog" "$T/sys.sock" rfc5424 || true
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
        TJ_TEST_BIND_DEVLOG=1 unshare -m "$B/tests/lib-syslog" "$T/sys.sock" rfc3164 |
                grep glibc || true
else
        skip lib-syslog-same-as-glibc "needs root and unshare -m"
fi

# No socket: exit 0, exactly one warning (TJ_QUIET unset), 5 events dropped.
TJ_QUIET=0 TJ_OUTPUT=syslog TJ_SYSLOG_SOCKET="$T/none.sock" TJ_EVENTS=tgb_req \
        $RUN "$B/tests/lib-emit" init req:5 flush stats > "$T/out" 2> "$T/err"
check_eq lib-syslog-absent-stats "emitted=5 written=0 dropped=5" "$(cat "$T/out")"
check_eq lib-syslog-absent-warning \
        "tracejournal: syslog: cannot send to $T/none.sock: No such file or directory; events are counted as dropped" \
        "$(cat "$T/err")"

# One warning per cause: a message too long for the socket (EMSGSIZE: a
# field width of 300000 bytes, past the 212992 of a datagram socket's
# default send buffer) and no daemon (no socket; a socket nobody reads any
# more: ECONNREFUSED), each said once, in whichever order they come.  One
# warning served every cause: the first message too long used it up, and
# the daemon's absence after it was never said (nor a message too long
# after the daemon was found absent).
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).bind(sys.argv[1])' \
        "$T/stale.sock"
for order in long-first absent-first stale-long-first; do
        sock=$T/none.sock why="No such file or directory"
        case $order in
        long-first) steps="wide:300000 req:1 wide:300000 req:2" ;;
        absent-first) steps="req:1 wide:300000 req:2 wide:300000" ;;
        stale-long-first) steps="wide:300000 req:1 wide:300000 req:2"
                sock=$T/stale.sock why="Connection refused" ;;
        esac
        # shellcheck disable=SC2086
        TJ_QUIET=0 TJ_OUTPUT=syslog TJ_SYSLOG_SOCKET="$sock" TJ_EVENTS=tgb_req,tgw_wide \
                $RUN "$B/tests/lib-emit" wide init $steps flush stats > "$T/out" 2> "$T/err"
        long="tracejournal: syslog: cannot send to $sock: Message too long; events whose message is longer than the socket's send buffer are counted as dropped"
        absent="tracejournal: syslog: cannot send to $sock: $why; events are counted as dropped"
        case $order in
        absent-first) exp="$absent
$long" ;;
        *) exp="$long
$absent" ;;
        esac
        check_eq "lib-syslog-warning-per-cause-$order" "emitted=5 written=0 dropped=5|$exp" \
                "$(cat "$T/out")|$(cat "$T/err")"
done

# TJ_SYSLOG_SOCKET's reader stopped (SIGSTOP), TJ_SYNC=1: the calling
# thread's send waits for room in the socket's queue; a SIGALRM every
# millisecond, its handler installed without SA_RESTART, interrupts it
# (EINTR) until the reader goes on.  The interrupted send was the event lost,
# counted dropped, with the warning "Interrupted system call".  (It waits for
# the sender to be blocked in its send, as /proc says, at most 5 s, then
# 0.2 s more of signals.)
"$B/tests/dgram-recv" "$T/eintr.sock" 100 > "$T/recv" &
rpid=$!
while [ ! -S "$T/eintr.sock" ]; do sleep 0.1; done
kill -STOP $rpid
TJ_SYNC=1 TJ_QUIET=0 TJ_OUTPUT=syslog TJ_SYSLOG_SOCKET="$T/eintr.sock" TJ_EVENTS=tgb_req \
        $RUN "$B/tests/lib-emit" init alarm:1000 req:100 stats > "$T/out" 2>&1 &
epid=$!
i=0
while [ $i -lt 100 ] && [ "$(cat "/proc/$epid/wchan" 2>/dev/null || true)" != unix_wait_for_peer ]; do
        sleep 0.05; i=$((i + 1))
done
sleep 0.2
kill -CONT $rpid
wait $epid || true
wait $rpid || true
check_eq lib-syslog-sync-eintr "emitted=100 written=100 dropped=0|100" \
        "$(cat "$T/out")|$(wc -l < "$T/recv")"

# A second tj_init() reads the environment afresh: a variable unset since the
# first one has its default again (TJ_SYSLOG_FORMAT stayed rfc5424).
"$B/tests/dgram-recv" "$T/re.sock" 2 > "$T/recv" &
rpid=$!
while [ ! -S "$T/re.sock" ]; do sleep 0.1; done
TJ_OUTPUT=syslog TJ_SYSLOG_SOCKET="$T/re.sock" TJ_SYSLOG_FORMAT=rfc5424 TJ_EVENTS=tgb_req \
        $RUN "$B/tests/lib-emit" init req:1 flush shutdown unsetenv:TJ_SYSLOG_FORMAT init \
        req:1 flush > /dev/null
wait $rpid || true
check_eq lib-syslog-reinit-default "rfc5424 rfc3164" \
        "$(sed -E 's/^<30>1 .*/rfc5424/; s/^<30>[A-Z][a-z]{2} .*/rfc3164/' "$T/recv" | tr '\n' ' ' | sed 's/ $//')"

# A program started with standard input closed: the socket, datagram or
# stream, was descriptor 0, what the program read there.  It is above 2, and
# an outputs change away and back leaves no descriptor behind.
for kind in dgram stream; do
        rm -f "$T/in.sock"
        "$B/tests/dgram-recv" "$T/in.sock" 2 ${kind#dgram} > "$T/recv" &
        rpid=$!
        while [ ! -S "$T/in.sock" ]; do sleep 0.1; done
        TJ_OUTPUT=syslog TJ_SYSLOG_SOCKET="$T/in.sock" TJ_EVENTS=tgb_req run_fdclosed 0 "$B/tests/lib-emit" \
                fds init req:1 flush fds outputs:nop fds outputs:syslog req:1 flush fds \
                > "$T/out" 2>&1
        wait $rpid || true
        check_eq lib-syslog-$kind-stdin-closed "fds 0=closed 1=file 2=file n=+0
fds 0=closed 1=file 2=file n=+1
outputs nop=0
fds 0=closed 1=file 2=file n=+0
outputs syslog=0
fds 0=closed 1=file 2=file n=+1|2" "$(fds_rel "$T/out")|$(wc -l < "$T/recv")"
done

# The values of TJ_SYSLOG_FORMAT (and TJ_ON_FULL) are read in any case, as
# the boolean variables are: RFC5424 is rfc5424, without a warning.
"$B/tests/dgram-recv" "$T/uc.sock" 1 > "$T/recv" &
rpid=$!
while [ ! -S "$T/uc.sock" ]; do sleep 0.1; done
TJ_QUIET=0 TJ_OUTPUT=syslog TJ_SYSLOG_SOCKET="$T/uc.sock" TJ_SYSLOG_FORMAT=RFC5424 TJ_ON_FULL=Block \
        TJ_EVENTS=tgb_req $RUN "$B/tests/lib-emit" init req:1 flush > /dev/null 2> "$T/err"
wait $rpid || true
check_eq lib-syslog-format-case "rfc5424|" \
        "$(sed -E 's/^<30>1 .*/rfc5424/; s/^<30>[A-Z][a-z]{2} .*/rfc3164/' "$T/recv")|$(cat "$T/err")"

# A stream socket, as syslog(3) falls back to (sendto() was refused with
# EPROTOTYPE and every event dropped): each message ends with a NUL.
R="$B/tests/dgram-recv"
S='s/^<30>[A-Z][a-z]{2} [ 0-9][0-9] [0-9]{2}:[0-9]{2}:[0-9]{2} lib-emit\[[0-9]+\]: //'
"$R" "$T/st.sock" 3 stream > "$T/recv" &
rpid=$!
while [ ! -S "$T/st.sock" ]; do sleep 0.1; done
TJ_QUIET=0 TJ_OUTPUT=syslog TJ_SYSLOG_SOCKET="$T/st.sock" TJ_EVENTS=tgb_req \
        $RUN "$B/tests/lib-emit" init req:3 flush stats > "$T/out" 2> "$T/err"
wait $rpid || true
check_eq lib-syslog-stream-stats "emitted=3 written=3 dropped=0" "$(cat "$T/out" "$T/err")"
check_eq lib-syslog-stream "tgb_req req 0x1000 sector 0 name r0
tgb_req req 0x1001 sector 1 name r1
tgb_req req 0x1002 sector 2 name r2" "$(sed -E "$S" "$T/recv")"

# A daemon that closes the connection (restarts): the next message goes on a
# new connection, none lost.  TJ_SYNC sends each at its call, 0.2 s apart.
"$R" "$T/st1.sock" 3 stream1 > "$T/recv" &
rpid=$!
while [ ! -S "$T/st1.sock" ]; do sleep 0.1; done
TJ_QUIET=0 TJ_SYNC=1 TJ_OUTPUT=syslog TJ_SYSLOG_SOCKET="$T/st1.sock" TJ_EVENTS=tgb_req \
        $RUN "$B/tests/lib-emit" init slow:3:200000 stats > "$T/out" 2> "$T/err"
wait $rpid || true
check_eq lib-syslog-stream-reconnect-stats "emitted=3 written=3 dropped=0" "$(cat "$T/out" "$T/err")"
check_eq lib-syslog-stream-reconnect "3 tgb_req req 0x1000 sector 0 name r0" \
        "$(sed -E "$S" "$T/recv" | uniq -c | sed 's/^ *//')"

# The same bytes as glibc's syslog(3) on a stream /dev/log (Python's syslog
# module calls it), NUL included, but for the pid.
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null && command -v python3 > /dev/null; then
        "$R" "$T/dl.sock" 2 stream > "$T/recv" &
        rpid=$!
        while [ ! -S "$T/dl.sock" ]; do sleep 0.1; done
        TJ_OUTPUT=syslog TJ_EVENTS=tgb_req unshare -m sh -c 'mount --bind "$1" /dev/log &&
                python3 -c "import syslog
syslog.openlog(\"lib-emit\", syslog.LOG_PID, syslog.LOG_DAEMON)
syslog.syslog(syslog.LOG_INFO, \"tgb_req req 0x1000 sector 0 name r0\")" &&
                exec "$2" init req:1' sh "$T/dl.sock" "$B/tests/lib-emit" || true
        wait $rpid || true
        sed -E 's/^(<30>[A-Z][a-z]{2} [ 0-9][0-9] )[0-9:]{8} (lib-emit)\[[0-9]+\]/\1T \2[PID]/' \
                "$T/recv" > "$T/got"
        check_eq lib-syslog-stream-same-as-glibc "2 records, 1 distinct" \
                "$(wc -l < "$T/got") records, $(sort -u "$T/got" | wc -l) distinct"
else
        skip lib-syslog-stream-same-as-glibc "needs root, unshare -m and python3"
fi

# fork() while the writer is in the middle of a message (blocked in its send
# to a socket nobody reads yet: the flush times out): the child's first
# message is its own alone.  The child inherited the message being built and
# put its own after it, the two in one datagram.  The receiver reads once the
# parent's flush has given up (2000 datagrams fill any socket's queue, and
# fit in a 1M ring); the child flushes until its event is out.
if command -v python3 > /dev/null; then
        python3 -c 'import os, socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind(sys.argv[1])
while not os.path.exists(sys.argv[2]): time.sleep(0.05)
s.settimeout(30)
for i in range(int(sys.argv[3])): sys.stdout.buffer.write(s.recv(65536) + b"\n"); sys.stdout.flush()' \
                "$T/fk.sock" "$T/fk.go" 2001 > "$T/recv" &
        rpid=$!
        while [ ! -S "$T/fk.sock" ]; do sleep 0.05; done
        TJ_OUTPUT=syslog TJ_SYSLOG_SOCKET="$T/fk.sock" TJ_FLUSH_TIMEOUT_MS=300 TJ_RING_SIZE=1M \
                TJ_EVENTS=tgb_req timeout 60 "$B/tests/lib-emit" init req:2000 flush forkflush:1 \
                flush stats > "$T/out" &
        epid=$!
        while ! grep -q flush= "$T/out" && kill -0 $epid 2> /dev/null; do sleep 0.05; done
        touch "$T/fk.go"
        wait $epid || true
        wait $rpid || true
        check_eq lib-syslog-fork-mid-message "flush=-110
emitted=2000 written=2000 dropped=0
2001 datagrams, 0 with two messages, child's r0 alone" \
                "$(cat "$T/out")
$(wc -l < "$T/recv") datagrams, $(grep -c '<30>.*<30>' "$T/recv") with two messages, child's r0 $(
                        grep -c '^<30>[^<]* name r0$' "$T/recv" | sed 's/^2$/alone/')"
else
        skip lib-syslog-fork-mid-message "needs python3"
fi

# TJ_IDENTIFIER is RFC 5424's APP-NAME in both forms: printable US-ASCII, at
# most 48 characters, any other byte and ':', '[', ']' as '_'.  The RFC 3164
# header took it raw: its newline split the datagram into two lines of a
# text log, and '[1]: forged' gave the line a pid and message of its own.
id=$(printf 'evil[1]: forged\nx\377zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz')
want=evil_1___forged_x_zzzzzzzzzzzzzzzzzzzzzzzzzzzzzz
for fmt in rfc3164 rfc5424; do
        "$R" "$T/id.sock" 1 > "$T/recv" &
        rpid=$!
        while [ ! -S "$T/id.sock" ]; do sleep 0.1; done
        TJ_IDENTIFIER=$id TJ_OUTPUT=syslog TJ_SYSLOG_SOCKET="$T/id.sock" TJ_SYSLOG_FORMAT=$fmt \
                TJ_EVENTS=tgb_req $RUN "$B/tests/lib-emit" init req:1 flush > /dev/null
        wait $rpid || true
        if [ $fmt = rfc3164 ]; then
                got=$(sed -E "s/^<30>[A-Z][a-z]{2} [ 0-9][0-9] [0-9:]{8} (.*)\[[0-9]+\]: (tgb_req .*)/\1 \2/" "$T/recv")
        else
                got=$(awk '{ print $4, $6 }' "$T/recv")
        fi
        check_eq lib-syslog-$fmt-identifier-sanitized "$want tgb_req" "$(printf '%s' "$got" | sed 's/ tgb_req req .*/ tgb_req/')"
        rm -f "$T/id.sock"
done

# ---- through a real rsyslogd (imuxsock, as on /dev/log) ----
# The identifier changes at run time only by tj_shutdown() and tj_init()
# again (the control endpoint has no command for it): the lines rsyslogd
# writes carry the new one from then on, in both forms, as a TJ_IDENTIFIER
# set in between does; and rsyslogd parses a TJ_IDENTIFIER with bytes outside
# RFC 3164's TAG and RFC 5424's APP-NAME (a space, ':', '[', ']', a newline,
# a byte above 0x7e) as the identifier tracejournal.3 says is sent, with the
# message and pid of the program, not one the identifier forged.
if ! command -v rsyslogd > /dev/null; then
        fail lib-syslog-rsyslog "rsyslogd missing: packaging/install-deps.sh installs rsyslog"
        exit 0
fi
mkdir -p "$T/rs"
cat > "$T/rs.conf" <<RS
global(workDirectory="$T/rs")
module(load="imuxsock" SysSock.Use="off")
input(type="imuxsock" Socket="$T/rs.sock" UseSpecialParser="off" RateLimit.Interval="0")
template(name="t" type="string" string="%app-name%|%procid%|%msg%\n")
action(type="omfile" file="$T/rs.log" template="t")
RS
rsyslogd -n -f "$T/rs.conf" -i "$T/rs.pid" > "$T/rs.out" 2>&1 &
rs=$!
trap 'kill $rs 2> /dev/null || true; common_exit' EXIT
i=0
until [ -S "$T/rs.sock" ] || [ $i -ge 100 ]; do i=$((i + 1)); sleep 0.1; done
# rs_run NAME NLINES ARGS...: lib-emit ARGS to rsyslogd; its NLINES new lines
# in $T/rs.got, the pid as PID (and without the blank RFC 3164 keeps before
# the message)
rs_run() {
        n=$1 want=$2; shift 2
        : > "$T/rs.log"
        TJ_OUTPUT=syslog TJ_SYSLOG_SOCKET="$T/rs.sock" TJ_EVENTS=tgb_req "$@" > "$T/rs.run" &
        epid=$!
        wait $epid || true
        i=0
        while [ "$(wc -l < "$T/rs.log")" -lt "$want" ] && [ $i -lt 100 ]; do
                i=$((i + 1)); sleep 0.1; done
        sed "s/|$epid| \\{0,1\\}/|PID|/" "$T/rs.log" > "$T/rs.got"
}
if [ -S "$T/rs.sock" ]; then
        for fmt in rfc3164 rfc5424; do
                rs_run "$fmt" 3 env TJ_SYSLOG_FORMAT=$fmt $RUN "$B/tests/lib-emit" init:first \
                        req:1 flush shutdown init:second req:1 flush shutdown \
                        setenv:TJ_IDENTIFIER=third init:second req:1 flush
                check_eq lib-syslog-rsyslog-$fmt-identifier-changed "first|PID|tgb_req req 0x1000 sector 0 name r0
second|PID|tgb_req req 0x1000 sector 0 name r0
third|PID|tgb_req req 0x1000 sector 0 name r0" "$(cat "$T/rs.got")"
                id=$(printf 'a b[7]: forged\nx\377y')
                rs_run "$fmt" 1 env TJ_IDENTIFIER="$id" TJ_SYSLOG_FORMAT=$fmt $RUN \
                        "$B/tests/lib-emit" init:first req:1 flush
                check_eq lib-syslog-rsyslog-$fmt-identifier-replaced \
                        "a_b_7___forged_x_y|PID|tgb_req req 0x1000 sector 0 name r0" "$(cat "$T/rs.got")"
        done
else
        fail lib-syslog-rsyslog "rsyslogd did not start: $(cat "$T/rs.out")"
fi
