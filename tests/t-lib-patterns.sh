#!/bin/sh
# t-lib-patterns.sh - enabling events: names, globs ('*', '?', case-sensitive,
# no implicit prefix), '-' to disable, lists, events files, QEMU's -trace
# option string, the event list API across two groups, unknown names reported
# (-ENOENT from the API; one warning line each from TJ_EVENTS/TJ_EVENTS_FILE
# at tj_init, silenced by TJ_QUIET=1), duplicate names across groups.
. "$(dirname "$0")/lib/common.sh"
E="$B/tests/lib-emit"
export TJ_OUTPUT=nop

$RUN "$E" enable:tgb_req enable:tg?_* enable:-tga_* enable:nosuch enable: enable:- \
        enable:TGB_REQ enable:tgb_r?q enable:tgb_re enable:'*done' enable:'*' enable:-'*' \
        enable:tgb_req events > "$T/out"
cat > "$T/exp" <<OUT
enable tgb_req=1
enable tg?_*=5
enable -tga_*=3
enable nosuch=-2
enable =-22
enable -=-22
enable TGB_REQ=-2
enable tgb_r?q=1
enable tgb_re=-2
enable *done=1
enable *=5
enable -*=5
enable tgb_req=1
tga_all tga enabled=0 compiled_in=1
tga_void tga enabled=0 compiled_in=1
tga_off tga enabled=0 compiled_in=0
tgb_req tgb enabled=1 compiled_in=1
tgb_done tgb enabled=0 compiled_in=1
count=5
OUT
check_file lib-patterns-enable "$T/exp" "$T/out"

printf '# comment\n\n  tga_void  \nnosuch\n-tgb_req\n\ttgb_done\n' > "$T/events"
$RUN "$E" enable:tgb_req list:tga_all,nosuch,,tga_void list:-tga_void file:"$T/events" \
        file:"$T/missing" events:tg?_[dv]* events:tgb_* > "$T/out"
cat > "$T/exp" <<OUT
enable tgb_req=1
list tga_all,nosuch,,tga_void=-2
list -tga_void=0
file $T/events=-2 line=4
file $T/missing=-2 line=0
count=0
tgb_req tgb enabled=0 compiled_in=1
tgb_done tgb enabled=1 compiled_in=1
count=2
OUT
check_file lib-patterns-list-file "$T/exp" "$T/out"

printf 'tga_all\n' > "$T/ev2"
long=$(printf '%04096d' 0)     # a file= name past the 4095 bytes kept
$RUN "$E" opt:tgb_req,events="$T/ev2",file="$T/log" opt:enable=tga_void opt:bogus=1 \
        opt:nosuch opt: opt:- opt:enable=- opt:file="$long" outputs:journald,log outputs:bogus outputs:simple,ftrace outputs:log,,nop \
        outputs:, outputs:log events:tga_* > "$T/out"
cat > "$T/exp" <<OUT
opt tgb_req,events=$T/ev2,file=$T/log=0
opt enable=tga_void=0
opt bogus=1=-22
opt nosuch=-2
opt =-22
opt -=-22
opt enable=-=-22
opt file=$long=-36
outputs journald,log=0
outputs bogus=-22
outputs simple,ftrace=0
outputs log,,nop=0
outputs ,=-22
outputs log=0
tga_all tga enabled=1 compiled_in=1
tga_void tga enabled=1 compiled_in=1
tga_off tga enabled=0 compiled_in=0
count=3
OUT
check_file lib-patterns-trace-opt "$T/exp" "$T/out"
# A doubled comma is a comma of the item, as in QEMU's option strings: the
# log went to the file 'a' and 'b.log' was taken for a pattern (-ENOENT).
printf 'tga_void\n' > "$T/ev,4"
TJ_OUTPUT=log $RUN "$E" opt:tgb_req,file="$T/a,,b.log",events="$T/ev,,4" init req:1 void flush \
        events:tga_void > "$T/out"
check_eq lib-patterns-trace-opt-comma "opt tgb_req,file=$T/a,,b.log,events=$T/ev,,4=0
tga_void tga enabled=1 compiled_in=1
count=1|tgb_req req 0x1000 sector 0 name r0
tga_void nothing|" "$(cat "$T/out")|$(cat "$T/a,b.log" 2> /dev/null)|$(ls "$T/a" 2> /dev/null)"

# An empty file= is an error, as in QEMU (which cannot open ''), and the log
# stays in the file named before; it was taken (0) and sent the log back to
# standard error without a word.
TJ_OUTPUT=log $RUN "$E" opt:tgb_req,file="$T/e.log" opt:file= opt:tgb_done,file=,tga_void init req:1 \
        > "$T/out" 2> "$T/err"
check_eq lib-patterns-trace-opt-file-empty "opt tgb_req,file=$T/e.log=0
opt file==-22
opt tgb_done,file=,tga_void=-22||tgb_req req 0x1000 sector 0 name r0" "$(cat "$T/out")|$(cat "$T/err")|$(cat "$T/e.log" 2> /dev/null)"

# The environment at tj_init: one warning line per problem, exact.
printf 'tgb_req\nnosuch_either\n# x\n' > "$T/ev3"
TJ_QUIET=0 TJ_EVENTS='tga_all, nosuch ,-tga_void' TJ_EVENTS_FILE="$T/ev3" TJ_OUTPUT=nop,bogus \
        $RUN "$E" dup abi init events:tg[ab]_[ar]* events:tga_all events:tgb_req > "$T/out" 2> "$T/err"
cat > "$T/exp" <<OUT
tracejournal: event 'tgb_done' defined in groups 'tgb' and 'dup'
tracejournal: group 'old' built for ABI 0, library has 1; ignored
tracejournal: TJ_EVENTS: no event matches 'nosuch' (kept for modules loaded later)
tracejournal: TJ_EVENTS_FILE: $T/ev3:2: no event matches 'nosuch_either' (kept for modules loaded later)
tracejournal: TJ_OUTPUT: unknown output 'bogus'
OUT
check_file lib-patterns-env-warnings "$T/exp" "$T/err"
printf 'init=-2\ncount=0\ntga_all tga enabled=1 compiled_in=1\ncount=1\ntgb_req tgb enabled=1 compiled_in=1\ncount=1\n' > "$T/exp"
check_file lib-patterns-env-applied "$T/exp" "$T/out"

# A TJ_OUTPUT that names no known output (a typo) gives the program's choice
# of tj_set_outputs(), else journald, saying so: the events went nowhere,
# counted written.
TJ_QUIET=0 TJ_OUTPUT=sylog $RUN "$E" outputs:log init enable:tgb_req req:1 flush \
        > /dev/null 2> "$T/err"
check_eq lib-patterns-env-output-typo "tracejournal: TJ_OUTPUT: unknown output 'sylog'
tracejournal: TJ_OUTPUT: no known output, using 'log'
tgb_req req 0x1000 sector 0 name r0" "$(cat "$T/err")"
# Blanks around a name are not part of it, as in TJ_EVENTS, for TJ_OUTPUT
# and tj_set_outputs() alike (' log' was an unknown output, and the list
# no known output).
TJ_QUIET=0 TJ_OUTPUT=' log , nop ' $RUN "$E" init enable:tgb_req req:1 flush \
        > /dev/null 2> "$T/err"
check_eq lib-patterns-env-output-blanks "tgb_req req 0x1000 sector 0 name r0" "$(cat "$T/err")"
TJ_QUIET=0 $RUN "$E" init 'outputs: nop ,	log' enable:tgb_req req:1 flush \
        > "$T/out" 2> "$T/err"
check_eq lib-patterns-set-outputs-blanks "outputs  nop ,	log=0
tgb_req req 0x1000 sector 0 name r0" "$(head -1 "$T/out"; cat "$T/err")"
TJ_QUIET=0 TJ_OUTPUT=, $RUN "$E" outputs:nop init > /dev/null 2> "$T/err"
check_eq lib-patterns-env-output-empty "tracejournal: TJ_OUTPUT: no known output, using 'nop'" \
        "$(cat "$T/err")"

# A pattern that matches only 'disable' events enables nothing: said, as
# QEMU says 'trace event ... is not traceable' (nothing was said); init
# returns 0 all the same, and a glob that also matches others is not warned of.
printf 'tga_off\ntga_*\n' > "$T/ev5"
TJ_QUIET=0 TJ_EVENTS='tga_off,tgb_req,-tga_o?f' TJ_EVENTS_FILE="$T/ev5" $RUN "$E" init \
        events:tga_off > "$T/out" 2> "$T/err"
check_eq lib-patterns-env-compiled-out "tracejournal: TJ_EVENTS: 'tga_off' matches only events compiled out ('disable' in trace-events)
tracejournal: TJ_EVENTS: '-tga_o?f' matches only events compiled out ('disable' in trace-events)
tracejournal: TJ_EVENTS_FILE: $T/ev5:1: 'tga_off' matches only events compiled out ('disable' in trace-events)
tga_off tga enabled=0 compiled_in=0
count=1" "$(cat "$T/err" "$T/out")"

# The values a warning quotes are written with every byte outside printable
# ASCII as \xHH: an escape sequence or a newline in TJ_EVENTS, TJ_OUTPUT or
# a file name reached the terminal as it was (retitling it, or making a line
# that reads as a warning of its own).
TJ_QUIET=0 TJ_EVENTS="$(printf 'a\033]0;owned\007\ntracejournal: forged\303\251')" \
        TJ_OUTPUT="$(printf 'nop,x\033[2J')" TJ_EVENTS_FILE="$(printf '/nonexistent/\033[1m\tf')" \
        $RUN "$E" init > /dev/null 2> "$T/err"
cat > "$T/exp" <<'OUT'
tracejournal: TJ_EVENTS: no event matches 'a\x1b]0;owned\x07\x0atracejournal: forged\xc3\xa9' (kept for modules loaded later)
tracejournal: TJ_EVENTS_FILE: /nonexistent/\x1b[1m\x09f: No such file or directory
tracejournal: TJ_OUTPUT: unknown output 'x\x1b[2J'
OUT
check_file lib-patterns-env-warning-escaped "$T/exp" "$T/err"
TJ_EVENTS_FILE=/nonexistent/events TJ_QUIET=0 $RUN "$E" init > /dev/null 2> "$T/err"
check_eq lib-patterns-env-missing-file \
        "tracejournal: TJ_EVENTS_FILE: /nonexistent/events: No such file or directory" "$(cat "$T/err")"
# A file that opens but cannot be read (a directory: EISDIR) is said as one
# that does not open, with its errno: it was -EIO, without a word.
TJ_EVENTS_FILE="$T" TJ_QUIET=0 TJ_OUTPUT=nop $RUN "$E" init file:"$T" > "$T/out" 2> "$T/err"
check_eq lib-patterns-env-file-unreadable "init=-21
file $T=-21 line=0
tracejournal: TJ_EVENTS_FILE: $T: Is a directory" "$(cat "$T/out" "$T/err")"
# A line is read up to 4096 bytes: TJ_EVENTS_FILE=/dev/zero, one endless
# line, grew a buffer without end inside tj_init().  A longer line is said,
# with its number, and the file not read further; one of 4096 bytes is a
# pattern like any other (too long for an event name).
TJ_EVENTS_FILE=/dev/zero TJ_QUIET=0 TJ_OUTPUT=nop $RUN "$E" init > "$T/out" 2> "$T/err"
check_eq lib-patterns-env-file-endless-line "init=-22
tracejournal: TJ_EVENTS_FILE: /dev/zero:1: line longer than 4096 bytes; the rest of the file is not read" \
        "$(cat "$T/out" "$T/err")"
{ echo tgb_req; head -c 4096 /dev/zero | tr '\0' x; echo; head -c 4097 /dev/zero | tr '\0' y; echo; echo tga_void; } > "$T/evlong"
TJ_QUIET=0 TJ_OUTPUT=nop $RUN "$E" init file:"$T/evlong" events:tgb_req events:tga_void > "$T/out" 2> "$T/err"
check_eq lib-patterns-file-long-line "file $T/evlong=-2 line=2
tgb_req tgb enabled=1 compiled_in=1
count=1
tga_void tga enabled=0 compiled_in=1
count=1" "$(cat "$T/out" "$T/err")"
TJ_QUIET=1 TJ_EVENTS=nosuch TJ_OUTPUT=bogus $RUN "$E" init > /dev/null 2> "$T/err"
check_eq lib-patterns-env-quiet "" "$(cat "$T/err")"

# The other variables: one warning per bad value, the default kept.  A size
# whose suffix wraps it round 2^64 is as invalid as any above 1 GiB.
TJ_QUIET=0 TJ_ON_FULL=wait TJ_SYSLOG_FORMAT=json TJ_RING_SIZE=18014398509481985K \
        TJ_FLUSH_TIMEOUT_MS=-1 $RUN "$E" init > /dev/null 2> "$T/err"
cat > "$T/exp" <<'OUT'
tracejournal: TJ_ON_FULL: unknown value 'wait', using 'drop'
tracejournal: TJ_SYSLOG_FORMAT: unknown value 'json', using 'rfc3164'
tracejournal: TJ_RING_SIZE: invalid size '18014398509481985K', using '128K'
tracejournal: TJ_FLUSH_TIMEOUT_MS: invalid value '-1', using '1000'
OUT
check_file lib-patterns-env-bad-values "$T/exp" "$T/err"

# The boolean variables take 1, yes, true, on and 0, no, false, off, in any
# case; anything else is off, said once per variable.  They ignored any value
# but 1 without a word (TJ_SYNC=yes was off).
TJ_QUIET=0 TJ_SYNC=maybe TJ_LOG_TIMESTAMP=2 TJ_CONTROL=enable $RUN "$E" init > "$T/out" 2> "$T/err"
cat > "$T/exp" <<'OUT'
tracejournal: TJ_SYNC: unknown value 'maybe', using '0'
tracejournal: TJ_LOG_TIMESTAMP: unknown value '2', using '0'
tracejournal: TJ_CONTROL: unknown value 'enable', using '0'
OUT
check_file lib-patterns-env-bad-flags "$T/exp" "$T/err"
check_eq lib-patterns-env-bad-flags-off "" "$(cat "$T/out")"
TJ_QUIET=Yes TJ_ON_FULL=wait $RUN "$E" init > /dev/null 2> "$T/err"
check_eq lib-patterns-env-quiet-yes "" "$(cat "$T/err")"
TJ_QUIET=silent TJ_ON_FULL=wait $RUN "$E" init > /dev/null 2> "$T/err"
check_eq lib-patterns-env-quiet-bad "tracejournal: TJ_QUIET: unknown value 'silent', using '0'
tracejournal: TJ_ON_FULL: unknown value 'wait', using 'drop'" "$(cat "$T/err")"
TJ_QUIET=off TJ_SYNC=FALSE TJ_LOG_TIMESTAMP=no TJ_CONTROL=0 $RUN "$E" init > /dev/null 2> "$T/err"
check_eq lib-patterns-env-flags-off "" "$(cat "$T/err")"
# TJ_CONTROL=on serves the endpoint: here a directory that cannot be made says so,
# naming it.
TJ_QUIET=0 TJ_CONTROL=on TJ_CONTROL_DIR="$T/none/ctl" $RUN "$E" init > "$T/out" 2> "$T/err"
check_eq lib-patterns-env-control-on "init=-2
tracejournal: TJ_CONTROL: cannot serve the control endpoint in $T/none/ctl: No such file or directory" \
        "$(cat "$T/out" "$T/err")"

# A ring size of 0 (or 0K) is as invalid as any other: said, the default kept;
# it silently gave the smallest ring, 4096 bytes.
TJ_QUIET=0 TJ_RING_SIZE=0 $RUN "$E" init > /dev/null 2> "$T/err"
check_eq lib-patterns-env-ring-zero "tracejournal: TJ_RING_SIZE: invalid size '0', using '128K'" "$(cat "$T/err")"
TJ_QUIET=0 TJ_RING_SIZE=0K $RUN "$E" init > /dev/null 2> "$T/err"
check_eq lib-patterns-env-ring-zero-k "tracejournal: TJ_RING_SIZE: invalid size '0K', using '128K'" "$(cat "$T/err")"
# Digits only: a leading blank or sign was taken (strtoul's), ' 64K' as 64K
# and '+5' as 5.
TJ_QUIET=0 TJ_RING_SIZE=' 64K' TJ_FLUSH_TIMEOUT_MS=+5 $RUN "$E" init > /dev/null 2> "$T/err"
check_eq lib-patterns-env-numbers-digits "tracejournal: TJ_RING_SIZE: invalid size ' 64K', using '128K'
tracejournal: TJ_FLUSH_TIMEOUT_MS: invalid value '+5', using '1000'" "$(cat "$T/err")"
# Trailing junk and numbers past the range: invalid too.  Each warning says
# what is used instead, as the others do; these two did not.
TJ_QUIET=0 TJ_RING_SIZE='64K ' TJ_FLUSH_TIMEOUT_MS=10ms $RUN "$E" init > /dev/null 2> "$T/err"
check_eq lib-patterns-env-numbers-trailing "tracejournal: TJ_RING_SIZE: invalid size '64K ', using '128K'
tracejournal: TJ_FLUSH_TIMEOUT_MS: invalid value '10ms', using '1000'" "$(cat "$T/err")"
TJ_QUIET=0 TJ_RING_SIZE=2G TJ_FLUSH_TIMEOUT_MS=99999999999999999999 $RUN "$E" init > /dev/null 2> "$T/err"
check_eq lib-patterns-env-numbers-range "tracejournal: TJ_RING_SIZE: invalid size '2G', using '128K'
tracejournal: TJ_FLUSH_TIMEOUT_MS: invalid value '99999999999999999999', using '1000'" "$(cat "$T/err")"
# A socket path too long for sockaddr_un says how long it is, the limit and
# what is used instead.
TJ_QUIET=0 TJ_SYSLOG_SOCKET=/$(printf '%0199d' 0) $RUN "$E" init > /dev/null 2> "$T/err"
check_eq lib-patterns-env-syslog-socket-long \
        "tracejournal: TJ_SYSLOG_SOCKET: path too long (200 bytes, at most 107), using '/dev/log'" "$(cat "$T/err")"
