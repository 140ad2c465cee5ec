#!/bin/sh
# t-gen.sh - tracegen: golden files, bad inputs with their exact errors, the CLI,
# and the generated code compiled, linked against a stub of the library ABI and run.
#
#   tests/gen/NAME.events + NAME.h.expected + NAME.c.expected (+ NAME.opts: extra
#       options, e.g. --backend=nop): generated with --group=NAME, compared exactly,
#       then compiled with gcc and clang (-Wall -Wextra -Werror -Wformat=2 ...).
#   tests/gen/bad/NAME.events + NAME.err: 'tracegen --check' exits 1 and prints
#       exactly NAME.err on stderr.
# Regenerate a golden file after a deliberate change with REGEN=1 (then review
# the diff before committing it).
. "$(dirname "$0")/lib/common.sh"

TG="$B/tracegen"
if [ ! -x "$TG" ]; then fail gen-built "$TG missing: run make"; exit 0; fi
CFLAGS_GEN="-std=gnu11 -O2 -Wall -Wextra -Werror -Wformat=2 -Wno-format-nonliteral -Wshadow \
-Wstrict-prototypes -Wmissing-prototypes -Wcast-qual"
CCS=gcc
command -v clang > /dev/null 2>&1 && CCS="gcc clang"

# run NAME EXPECTED-STATUS CMD...: runs CMD, stdout/stderr to $T/out, $T/err
# compiles NAME FILE [FLAG...]: FILE compiles warning-free as an object with
# each compiler of CCS (the generated code's flags, then FLAGs): NAME-CC
compiles() {
        c_name=$1 c_file=$2
        shift 2
        for cc in $CCS; do
                # shellcheck disable=SC2086
                if $cc $CFLAGS_GEN "$@" -I"$TOP/include" -I"$T" -c "$c_file" -o "$T/compiles.o" \
                        2> "$T/cerr"; then
                        pass "$c_name-$cc"
                else
                        fail "$c_name-$cc" "$(head -5 "$T/cerr")"
                fi
        done
}

run() {
        n=$1 want=$2; shift 2
        rc=0; "$@" > "$T/out" 2> "$T/err" || rc=$?
        check_eq "$n-status" "$want" "$rc"
}

cd "$TOP/tests/gen"

# ---- golden files ----
for ev in *.events; do
        name=${ev%.events}
        opts=
        [ -f "$name.opts" ] && opts=$(cat "$name.opts")
        rc=0
        # shellcheck disable=SC2086
        "$TG" --group="$name" $opts --header="$T/$name.h" --source="$T/$name.c" "$ev" \
                2> "$T/err" || rc=$?
        if [ "$rc" != 0 ]; then fail "gen-golden-$name" "tracegen exited $rc: $(cat "$T/err")"; continue; fi
        if [ "${REGEN:-}" = 1 ]; then cp "$T/$name.h" "$name.h.expected"; cp "$T/$name.c" "$name.c.expected"; fi
        check_file "gen-golden-$name-h" "$name.h.expected" "$T/$name.h"
        check_file "gen-golden-$name-c" "$name.c.expected" "$T/$name.c"
        compiles "gen-golden-$name-compiles" "$T/$name.c"
done

# ---- bad inputs: exact stderr, exit status 1 ----
for ev in bad/*.events; do
        name=$(basename "$ev" .events)
        rc=0
        "$TG" --check "$ev" > "$T/out" 2> "$T/err" || rc=$?
        if [ "${REGEN:-}" = 1 ]; then cp "$T/err" "bad/$name.err"; fi
        if [ "$rc" = 1 ] && [ ! -s "$T/out" ]; then
                check_file "gen-bad-$name" "bad/$name.err" "$T/err"
        else
                fail "gen-bad-$name" "exit status $rc, expected 1"
        fi
done

# ---- the CLI ----
# A file name's control characters are shown as \xHH in messages, as the
# line's own are: a hostile name sends no escape sequence to the terminal.
esc=$(printf '\033')
printf 'bad(int a "x\n' > "$T/bad${esc}[31mname.events"
run gen-cli-name-escaped 1 "$TG" --check "$T/bad${esc}[31mname.events"
check_eq gen-cli-name-escaped-msg "tracegen: $T/bad\\x1b[31mname.events:1:4: missing ')' to close the argument list" "$(cat "$T/err")"
run gen-cli-missing-escaped 3 "$TG" --check "$T/no${esc}file"
# A file name that is not UTF-8 (Latin-1 'caf\351') is an escape in the
# group's source string, which clang refused raw in a literal
# (-Winvalid-source-encoding); the #include keeps a header's name as it is.
latin1=$(printf 'caf\351')
printf 'latin1_ev(int a) "a %%d"\n' > "$T/$latin1.events"
(cd "$T" && "$TG" --group=latin1 --header="$latin1.h" --source="$latin1.c" "$latin1.events")
check_eq gen-cli-name-not-utf8-source "#include \"$latin1.h\"|.source = \"caf\\351.events\"," \
        "$(sed -n 's/^ *\(\.source = .*\)/\1/p; /^#include "/p' "$T/$latin1.c" | paste -sd '|')"
compiles gen-cli-name-not-utf8-compiles "$T/$latin1.c"
check_eq gen-cli-missing-escaped-msg "tracegen: $T/no\\x1bfile: No such file or directory" "$(cat "$T/err")"
# ... and so are its bytes past ASCII ('caf\351' in Latin-1; 0x9b is CSI to
# a terminal with 8-bit controls): they went out raw.
run gen-cli-missing-high-escaped 3 "$TG" --check "$T/caf$(printf '\351\233')"
check_eq gen-cli-missing-high-escaped-msg "tracegen: $T/caf\\xe9\\x9b: No such file or directory" \
        "$(cat "$T/err")"
version=$(sed -n 's/^VERSION *= *//p' "$TOP/Makefile")
run gen-cli-version 0 "$TG" --version
check_eq gen-cli-version-text "tracegen $version" "$(cat "$T/out")"
run gen-cli-help 0 "$TG" --help
check_eq gen-cli-help-text "Usage: tracegen [OPTION]... TRACE-EVENTS..." "$(head -1 "$T/out")"
usage_tail="Try 'tracegen --help' for more information."
# A file given twice: each of its events was "duplicate event 'foo' (first
# defined at F:2)" at F:2 itself, exit 1
run gen-cli-twice 2 "$TG" --check basic.events basic.events
check_eq gen-cli-twice-msg "tracegen: basic.events: given twice
Try 'tracegen --help' for more information." "$(cat "$T/err")"
run gen-cli-twice-other-name 2 "$TG" --group=g --header="$T/twice.h" basic.events ../gen/basic.events
check_eq gen-cli-twice-other-name-msg "tracegen: ../gen/basic.events: the same file as basic.events
Try 'tracegen --help' for more information.|no output" \
        "$(cat "$T/err")|$([ -e "$T/twice.h" ] && echo output || echo no output)"
run gen-cli-twice-dev-null 0 "$TG" --check /dev/null /dev/null
# Standard input given twice (the second '-' read nothing) or as the same
# file as an operand (each event a duplicate of itself, exit 1): usage errors.
run gen-cli-twice-stdin 2 "$TG" --check - - < basic.events
check_eq gen-cli-twice-stdin-msg "tracegen: -: given twice
$usage_tail" "$(cat "$T/err")"
run gen-cli-twice-stdin-file 2 "$TG" --check basic.events - < basic.events
check_eq gen-cli-twice-stdin-file-msg "tracegen: -: the same file as basic.events
$usage_tail" "$(cat "$T/err")"
# A line getline() has no memory for: -1 as at the end, with no error on
# the stream, so the rest went unread and tracegen exited 0 with what it had
# read (the headers written).  Now 'out of memory', exit 3, as tracegen.1
# says.  Not under valgrind or a sanitizer, whose runtimes need the room.
if [ -z "${VALGRIND:-}" ] && [ -z "${SANITIZE:-}" ]; then
        rc=0
        (ulimit -v 100000; exec "$TG" --check /dev/zero) > "$T/out" 2> "$T/err" || rc=$?
        check_eq gen-cli-line-nomem "3|tracegen: out of memory" "$rc|$(cat "$T/err")"
        rc=0
        { printf 'foo(int a) "%%d"\n'; head -c 200000000 /dev/zero; } |
                (ulimit -v 100000; exec "$TG" --group=g -H "$T/nomem.h" -) > "$T/out" 2> "$T/err" || rc=$?
        check_eq gen-cli-line-nomem-no-output "3|tracegen: out of memory|no output" \
                "$rc|$(cat "$T/err")|$([ -e "$T/nomem.h" ] && echo output || echo no output)"
else
        skip gen-cli-line-nomem "ulimit -v leaves valgrind and the sanitizers no room"
        skip gen-cli-line-nomem-no-output "ulimit -v leaves valgrind and the sanitizers no room"
fi
# Outputs that are one file, or an input: the source replaced the header
# (which then included itself), --header=IN replaced the input with code;
# both exit 0.  Now usage errors, nothing written, the input as it was.
mkdir "$T/outs"
cp basic.events "$T/outs/in.events"
n=0
for args in "-H t.h -s t.h|t.h: both the header and the source" \
        "-H t.h -s ./t.h|./t.h: both the header and the source" \
        "-H t.h -s $T/outs/t.h|$T/outs/t.h: both the header and the source" \
        "--backend=ust -H t.h -s t-ust.h|t-ust.h: both the ust backend's header and the source" \
        "-H in.events|in.events: an input, would be replaced by the header" \
        "-H x.h -s ../outs/in.events|in.events: an input, would be replaced by the source"; do
        rc=0 n=$((n + 1))
        # shellcheck disable=SC2086  # the options are words on purpose
        (cd "$T/outs" && "$TG" --group=g ${args%%|*} in.events) > "$T/out" 2> "$T/err" || rc=$?
        check_eq "gen-cli-output-clash-$n" "2|tracegen: ${args#*|}
$usage_tail|in.events|same" "$rc|$(cat "$T/err")|$(ls "$T/outs" | paste -sd ' ')|$(cmp -s basic.events "$T/outs/in.events" && echo same)"
done
# ... and so is standard input redirected from an output (the input was
# replaced by the header, exit 0)
rc=0
(cd "$T/outs" && "$TG" --group=g -H in.events - < in.events) > "$T/out" 2> "$T/err" || rc=$?
check_eq gen-cli-output-clash-stdin "2|tracegen: -: an input, would be replaced by the header
$usage_tail|same" "$rc|$(cat "$T/err")|$(cmp -s basic.events "$T/outs/in.events" && echo same)"
# A file that is no regular file is written into directly: two outputs may
# share one (both to standard output, a pipe).
"$TG" --group=g -H /dev/stdout -s /dev/stdout basic.events 2> "$T/err" | cat > "$T/out"
check_eq gen-cli-output-both-stdout "|2" "$(cat "$T/err")|$(grep -c '^/\* Generated by tracegen' "$T/out")"
run gen-cli-no-input 2 "$TG" --group=g --header="$T/x.h"
check_eq gen-cli-no-input-msg "tracegen: no trace-events file given
$usage_tail" "$(cat "$T/err")"
run gen-cli-no-group 2 "$TG" --header="$T/x.h" basic.events
check_eq gen-cli-no-group-msg "tracegen: missing --group
$usage_tail" "$(cat "$T/err")"
run gen-cli-bad-group 2 "$TG" --group=hw-block --header="$T/x.h" basic.events
check_eq gen-cli-bad-group-msg "tracegen: --group must be a C identifier: hw-block
$usage_tail" "$(cat "$T/err")"
run gen-cli-bad-backend 2 "$TG" --group=g --backend=lttng --header="$T/x.h" basic.events
check_eq gen-cli-bad-backend-msg "tracegen: unknown backend (use tracejournal, dtrace, ust or nop): lttng
$usage_tail" "$(cat "$T/err")"
run gen-cli-bad-option 2 "$TG" --frobnicate basic.events
check_eq gen-cli-bad-option-msg "tracegen: unknown option: --frobnicate
$usage_tail" "$(cat "$T/err")"
# A short option in a group is named alone (the whole group was named, or,
# when it came first, the word before it: the program's path), and a value
# given to an option that takes none is said so (it was "unknown option").
run gen-cli-bad-short-first 2 "$TG" -Zc basic.events
check_eq gen-cli-bad-short-first-msg "tracegen: unknown option: -Z
$usage_tail" "$(cat "$T/err")"
run gen-cli-bad-short-last 2 "$TG" -cZ basic.events
check_eq gen-cli-bad-short-last-msg "tracegen: unknown option: -Z
$usage_tail" "$(cat "$T/err")"
# ... also after a long option of the same letter's (named "--check": it
# came before the group), and "--chec=1" is --check abbreviated
run gen-cli-bad-short-after-long 2 "$TG" --check -Zc basic.events
check_eq gen-cli-bad-short-after-long-msg "tracegen: unknown option: -Z
$usage_tail" "$(cat "$T/err")"
# An abbreviation of several long options is said to be one (it was
# "unknown option: --he")
run gen-cli-ambiguous 2 "$TG" --he basic.events
check_eq gen-cli-ambiguous-msg "tracegen: ambiguous option: --he (--header, --header-include, --help)
$usage_tail" "$(cat "$T/err")"
run gen-cli-ambiguous-value 2 "$TG" --h=x basic.events
check_eq gen-cli-ambiguous-value-msg "tracegen: ambiguous option: --h (--header, --header-include, --help)
$usage_tail" "$(cat "$T/err")"
run gen-cli-flag-value-abbrev 2 "$TG" --chec=1 basic.events
check_eq gen-cli-flag-value-abbrev-msg "tracegen: option takes no value: --chec
$usage_tail" "$(cat "$T/err")"
run gen-cli-flag-value 2 "$TG" --check=yes basic.events
check_eq gen-cli-flag-value-msg "tracegen: option takes no value: --check
$usage_tail" "$(cat "$T/err")"
run gen-cli-missing-arg-group 2 "$TG" -cg
check_eq gen-cli-missing-arg-group-msg "tracegen: option requires an argument: -g
$usage_tail" "$(cat "$T/err")"
# An empty name is no file: --output-dir= wrote /trace-g.h and /trace-g.c
# (absolute outputs here, which it leaves alone), --source= failed (exit 3)
# after the header was replaced, and --header-include= gave '#include ""'.
printf 'old header\n' > "$T/empty.h"
for opt in header source output-dir header-include; do
        rc=0
        "$TG" --group=g -H "$T/empty.h" -s "$T/empty.c" --$opt= basic.events \
                > "$T/out" 2> "$T/err" || rc=$?
        check_eq "gen-cli-empty-$opt" "2|tracegen: --$opt must not be empty
$usage_tail|old header|no source" "$rc|$(cat "$T/err")|$(cat "$T/empty.h")|$([ -e "$T/empty.c" ] && echo source || echo no source)"
done
run gen-cli-nothing-to-write 2 "$TG" --group=g basic.events
check_eq gen-cli-nothing-to-write-msg "tracegen: nothing to write: give --header, --source or --output-dir
$usage_tail" "$(cat "$T/err")"
# --source with nothing to name in its #include: a usage error like the
# others, with their last line, and before the inputs are read (it lacked
# the line, and came after an input error's exit 1)
run gen-cli-source-no-header 2 "$TG" --group=g --source="$T/x.c" basic.events
check_eq gen-cli-source-no-header-msg "tracegen: --source needs --header or --header-include
$usage_tail" "$(cat "$T/err")"
run gen-cli-source-no-header-before-input 2 "$TG" --group=g --source="$T/x.c" "$T/nope.events"
run gen-cli-missing-file 3 "$TG" --check "$T/nope.events"
check_eq gen-cli-missing-file-msg "tracegen: $T/nope.events: No such file or directory" "$(cat "$T/err")"
run gen-cli-dir-input 3 "$TG" --check "$T"
check_eq gen-cli-dir-input-msg "tracegen: $T: Is a directory" "$(cat "$T/err")"
for o in --help --version; do
        rc=0
        "$TG" $o > /dev/full 2> "$T/err" || rc=$?
        check_eq "gen-cli$o-output-full" "3|tracegen: write error: No space left on device" \
                "$rc|$(cat "$T/err")"
done
# An output path that is a symbolic link: the file it names is replaced and
# the link stays (it was replaced by a regular file); one naming no regular
# file (/dev/null here, /dev/stdout in a build) is written into, not replaced.
echo old > "$T/real.h"
ln -sf real.h "$T/link.h"
ln -sf /dev/null "$T/null.h"
run gen-cli-output-symlink 0 "$TG" --group=g --header="$T/link.h" --source="$T/null.h" basic.events
check_eq gen-cli-output-symlink-kept "link link" \
        "$([ -L "$T/link.h" ] && echo link) $([ -L "$T/null.h" ] && echo link)"
check_eq gen-cli-output-symlink-target "/* Generated by tracegen from basic.events. Do not edit. */" \
        "$(head -1 "$T/real.h")"
# a link to a file not made yet (the first build) names the file to create,
# through a chain of links, relative to each link's folder; a loop is an error
# (the link was replaced by a regular file)
mkdir "$T/gen"
ln -s gen/new.h "$T/dangling.h"
ln -s ../dangling.h "$T/gen/chain.h"
run gen-cli-output-symlink-dangling 0 "$TG" --group=g --header="$T/gen/chain.h" \
        --source="$T/null.h" basic.events
check_eq gen-cli-output-symlink-dangling-kept "link link /* Generated by tracegen from basic.events. Do not edit. */" \
        "$([ -L "$T/dangling.h" ] && echo link) $([ -L "$T/gen/chain.h" ] && echo link) $(head -1 "$T/gen/new.h" 2>/dev/null)"
ln -s loop2.h "$T/loop1.h"
ln -s loop1.h "$T/loop2.h"
run gen-cli-output-symlink-loop 3 "$TG" --group=g --header="$T/loop1.h" basic.events
check_eq gen-cli-output-symlink-loop-msg "tracegen: $T/loop1.h: Too many levels of symbolic links link" \
        "$(cat "$T/err") $([ -L "$T/loop1.h" ] && echo link)"
run gen-cli-output-stdout 0 "$TG" --group=g --header=/dev/stdout --source="$T/null.h" basic.events
check_eq gen-cli-output-stdout-text "/* Generated by tracegen from basic.events. Do not edit. */" \
        "$(head -1 "$T/out")"
run gen-cli-check-ok 0 "$TG" --check basic.events nop.events
check_eq gen-cli-check-ok-quiet "" "$(cat "$T/out" "$T/err")"

# A name the source or header would #include holding '"', '\' or a control
# character is a usage error: C has no escapes in '#include "..."', so the
# escaped name written before named another file ('a\"b.h' ended the name).
inc_msg="C cannot #include a file whose name holds '\"', '\\' or a control character"
run gen-cli-include-quote 2 "$TG" --group=g --header="$T/i.h" --header-include='a"b.h' \
        --source="$T/i.c" basic.events
check_eq gen-cli-include-quote-msg "tracegen: --header-include: $inc_msg: a\"b.h
$usage_tail|no output" "$(cat "$T/err")|$([ -e "$T/i.h" ] || [ -e "$T/i.c" ] || echo no output)"
run gen-cli-include-backslash 2 "$TG" --group=g --header-include='a\b.h' --source="$T/i.c" \
        basic.events
check_eq gen-cli-include-backslash-msg "tracegen: --header-include: $inc_msg: a\\x5cb.h
$usage_tail" "$(cat "$T/err")"
run gen-cli-include-control 2 "$TG" --group=g --header-include="$(printf 'a\tb.h')" \
        --source="$T/i.c" basic.events
check_eq gen-cli-include-control-msg "tracegen: --header-include: $inc_msg: a\\x09b.h
$usage_tail" "$(cat "$T/err")"
# The message shows a backslash as \x5c, as a control character as \xHH: the
# name 'a\x09b.h' (backslash, x, 0, 9) showed as 'a\x09b.h', as the one with
# a tab does.
run gen-cli-include-backslash-escape 2 "$TG" --group=g --header-include='a\x09b.h' \
        --source="$T/i.c" basic.events
check_eq gen-cli-include-backslash-escape-msg "tracegen: --header-include: $inc_msg: a\\x5cx09b.h
$usage_tail" "$(cat "$T/err")"
# ... and so is a --header whose file name is #included by default (by the
# source, or by the header for the ust backend's provider header); alone,
# or with another --header-include, it is written.
run gen-cli-include-header-quote 2 "$TG" --group=g --header="$T/q\"x.h" --source="$T/i.c" \
        basic.events
check_eq gen-cli-include-header-quote-msg "tracegen: --header: $inc_msg: q\"x.h
$usage_tail" "$(cat "$T/err")"
run gen-cli-include-header-ust 2 "$TG" --group=g --backend=ust --header="$T/q\\x.h" basic.events
check_eq gen-cli-include-header-ust-msg "tracegen: --header: $inc_msg: q\\x5cx.h
$usage_tail" "$(cat "$T/err")"
run gen-cli-include-header-alone 0 "$TG" --group=g --header="$T/q\"x.h" basic.events
run gen-cli-include-header-other 0 "$TG" --group=g --header="$T/q\"x.h" --header-include=q.h \
        --source="$T/i.c" basic.events
check_eq gen-cli-include-header-other-line '#include "q.h"' "$(grep '^#include "' "$T/i.c")"

# Outputs are left untouched when the input has errors, and no temporary remains.
printf 'old header\n' > "$T/keep.h"
printf 'old source\n' > "$T/keep.c"
run gen-cli-error-keeps-outputs 1 "$TG" --group=g --header="$T/keep.h" --source="$T/keep.c" \
        basic.events bad/unknown-type.events
check_eq gen-cli-error-keeps-header "old header" "$(cat "$T/keep.h")"
check_eq gen-cli-error-keeps-source "old source" "$(cat "$T/keep.c")"
check_eq gen-cli-error-no-temp "" "$(ls "$T" | grep '\.tmp' || true)"

# An unwritable output: the other output is not replaced either.
run gen-cli-unwritable 3 "$TG" --group=g --header="$T/keep.h" --source="$T/nodir/keep.c" basic.events
check_eq gen-cli-unwritable-keeps-header "old header" "$(cat "$T/keep.h")"
check_eq gen-cli-unwritable-no-temp "" "$(ls "$T" | grep '\.tmp' || true)"
# An output that is a folder was found at commit, after the header before it
# had been replaced (exit 3, the header new): now before any is written.
mkdir "$T/folder.c"
run gen-cli-output-folder 3 "$TG" --group=g --header="$T/keep.h" --source="$T/folder.c" basic.events
check_eq gen-cli-output-folder-keeps-header "tracegen: $T/folder.c: Is a directory|old header" \
        "$(cat "$T/err")|$(cat "$T/keep.h")"
check_eq gen-cli-output-folder-no-temp "" "$(ls "$T" | grep '\.tmp' || true)"

# Duplicate event names across the files of one run.
printf 'dup_ev(int a) "a %%d"\n' > "$T/one.events"
printf '# second file\ndup_ev(int b) "b %%d"\n' > "$T/two.events"
run gen-cli-dup-across-files 1 "$TG" --check "$T/one.events" "$T/two.events"
check_eq gen-cli-dup-across-files-msg \
        "tracegen: $T/two.events:2:1: duplicate event 'dup_ev' (first defined at $T/one.events:1)" \
        "$(cat "$T/err")"

# ... among many events (the check is a hash set of the upper-case names,
# grown as events come): each duplicate or clash names the first event.
awk 'BEGIN { for (i = 0; i < 5000; i++) printf "ev_%d(int a) \"a %%d\"\n", i
             print "ev_2500(int b) \"b %d\""; print "EV_4999(void)"; print "Ev_0(void)"
             print "ev_5000(void)"; print "EV_5000(void)" }' > "$T/many.events"
run gen-cli-dup-many 1 "$TG" --check "$T/many.events"
check_eq gen-cli-dup-many-msg "tracegen: $T/many.events:5001:1: duplicate event 'ev_2500' (first defined at $T/many.events:2501)
tracegen: $T/many.events:5002:1: event 'EV_4999' clashes with event 'ev_4999' at $T/many.events:5000 (the same name in upper case)
tracegen: $T/many.events:5003:1: event 'Ev_0' clashes with event 'ev_0' at $T/many.events:1 (the same name in upper case)
tracegen: $T/many.events:5005:1: event 'EV_5000' clashes with event 'ev_5000' at $T/many.events:5004 (the same name in upper case)" \
        "$(cat "$T/err")"

# A form feed or vertical tab after or between the format's literals is
# white space, in C as for QEMU's tracetool (whose format is the rest of the
# line): it was "unexpected '\x0c' after the format".
printf 'ff_ev(int a) "a %%d"\f\nvt_ev(int a) "a %%d"\v "b"\n' > "$T/ffvt.events"
run gen-cli-format-ff-vt 0 "$TG" --group=ffvt --header="$T/ffvt.h" --source="$T/ffvt.c" \
        "$T/ffvt.events"
compiles gen-cli-format-ff-vt-compiles "$T/ffvt.c"

# CRLF line ends are taken (a raw CR inside a literal is not: bad/carriage-return).
sed 's/$/\r/' basic.events > "$T/crlf.events"
run gen-cli-crlf 0 "$TG" --check "$T/crlf.events"
check_eq gen-cli-crlf-quiet "" "$(cat "$T/out" "$T/err")"

# Distinct events whose names would make the same identifier in generated code
# ('foo' and 'foo_inline', with every backend) must still compile.
printf 'foo(int a) "a %%d"\nfoo_inline(int b) "b %%d"\n' > "$T/clash.events"
for be in tracejournal nop tracejournal,dtrace; do
        "$TG" --group=clash --backend=$be --header="$T/clash.h" --source="$T/clash.c" "$T/clash.events"
        printf '#include "clash.h"\nvoid f(void);\nvoid f(void) { trace_foo(1); trace_foo_inline(2); }\n' \
                > "$T/clash_use.c"
        # shellcheck disable=SC2086
        if gcc $CFLAGS_GEN -I"$TOP/include" -I"$T" -c "$T/clash.c" -o "$T/clash.o" 2> "$T/cerr" &&
           gcc $CFLAGS_GEN -I"$TOP/include" -I"$T" -c "$T/clash_use.c" -o "$T/clash_use.o" 2>> "$T/cerr"; then
                pass "gen-name-suffix-inline-$be"
        else
                fail "gen-name-suffix-inline-$be" "$(grep -m1 error "$T/cerr")"
        fi
done

# Groups whose names differ only in case have distinct include guards: with
# both headers included, the second's declarations were dropped.
printf 'upper_ev(int a) "a %%d"\n' > "$T/Block.events"
printf 'lower_ev(int a) "a %%d"\n' > "$T/block.events"
"$TG" --group=Block --header="$T/Block.h" "$T/Block.events"
"$TG" --group=block --header="$T/block.h" "$T/block.events"
printf '#include "Block.h"\n#include "block.h"\nvoid f(void);\nvoid f(void) { trace_upper_ev(1); trace_lower_ev(2); }\n' \
        > "$T/guards.c"
# shellcheck disable=SC2086
if gcc $CFLAGS_GEN -I"$TOP/include" -I"$T" -c "$T/guards.c" -o "$T/guards.o" 2> "$T/cerr"; then
        pass gen-guard-case
else
        fail gen-guard-case "$(grep -m1 -E 'error|warning' "$T/cerr")"
fi

# --output-dir with default names; standard input as '-'.
mkdir "$T/od"
run gen-cli-output-dir 0 "$TG" --group=blk --output-dir="$T/od" basic.events
check_eq gen-cli-output-dir-files "trace-blk.c trace-blk.h" "$(cd "$T/od" && echo *)"
check_eq gen-cli-output-dir-include '#include "trace-blk.h"' "$(grep '^#include "' "$T/od/trace-blk.c")"
run gen-cli-stdin 0 sh -c "'$TG' --group=basic --header='$T/stdin.h' - < basic.events"
check_eq gen-cli-stdin-banner "/* Generated by tracegen from <stdin>. Do not edit. */" "$(head -1 "$T/stdin.h")"

# ---- generated code at run time, against a stub of the library side of the ABI ----
cat > "$T/stub.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include <tracejournal.h>
#include "basic.h"

static const struct tj_group *registered;
static char last[256];
static const struct tj_site *last_site;
static int emitted;

void tj_group_register(struct tj_group *group) { registered = group; }
void tj_group_unregister(struct tj_group *group) { (void)group; }

void tj_emit(const struct tj_event *ev, const struct tj_site *site, const tj_value *v)
{
        char buf[200];

        ev->render(buf, sizeof(buf), v);
        snprintf(last, sizeof(last), "%s %s [%s]", ev->name, buf, ev->argsig);
        last_site = site;
        emitted++;
}

int main(void)
{
        unsigned line;

        printf("group %s abi %u events %zu source %s\n", registered->name, registered->abi,
               registered->nevents, registered->source);
        printf("guard off %d\n", trace_event_get_state_backends(TRACE_FOO));
        trace_foo(1, "not traced");
        printf("emitted while off %d\n", emitted);
        _TRACE_FOO_DSTATE = 1;
        printf("guard on %d\n", trace_event_get_state_backends(TRACE_FOO));
        trace_foo(-42, "hi"); line = __LINE__;
        printf("%s\n", last);
        printf("site %s %s %d\n", strrchr(last_site->file, '/') ? "path" : last_site->file,
               last_site->func, last_site->line == line);
        trace_foo(7, NULL);
        printf("%s\n", last);
        _TRACE_OFF_EVENT_DSTATE = 1;
        trace_off_event(1, 2);
        printf("disabled event emitted %d, guard %d\n", emitted,
               trace_event_get_state_backends(TRACE_OFF_EVENT));
        _TRACE_INTS_DSTATE = 1;
        trace_ints(-128, 255, -32768, 65535, INT32_MIN, UINT32_MAX, INT64_MIN, UINT64_MAX, true, 'x');
        printf("%s\n", last);
        _TRACE_STAR_DSTATE = 1;
        trace_star(6, 2, "abcdef");
        printf("%s\n", last);
        _TRACE_LITERALS_DSTATE = 1;
        trace_literals(3, "q\"");
        printf("%s\n", last);
        _TRACE_EMPTY_FMT_DSTATE = 1;
        trace_empty_fmt();
        printf("%s\n", last);
        _TRACE_UCHARS_DSTATE = 1;
        trace_uchars((unsigned char *)"u", (const unsigned char *)"cu", NULL);
        printf("%s\n", last);
        return 0;
}
EOF
cat > "$T/stub.expected" <<'EOF'
group basic abi 1 events 11 source basic.events
guard off 0
emitted while off 0
guard on 1
foo a -42 s hi [TRACE_ARGS=a:i s:s]
site stub.c main 1
foo a 7 s (null) [TRACE_ARGS=a:i s:s]
disabled event emitted 2, guard 0
ints -128 255 -32768 65535 -2147483648 ffffffff -9223372036854775808 18446744073709551615 1 x [TRACE_ARGS=i8:i u8:u i16:i u16:u i32:i u32:u i64:i u64:u b:u c:i]
star [    ab] [TRACE_ARGS=w:i prec:i s:s]
literals 100% of "3" quoted 'q'=q"	(tab) [TRACE_ARGS=pct:i q:s]
empty_fmt  [TRACE_ARGS=]
uchars u cu (null) [TRACE_ARGS=u:s cu:s s:s]
EOF
"$TG" --group=basic --header="$T/basic.h" --source="$T/basic.c" basic.events
for cc in $CCS; do
        # shellcheck disable=SC2086
        if (cd "$T" && $cc $CFLAGS_GEN -I"$TOP/include" -I. -o stub basic.c stub.c) 2> "$T/cerr"; then
                (cd "$T" && $RUN ./stub) > "$T/stub.out" 2>&1 || true
                check_file "gen-run-stub-$cc" "$T/stub.expected" "$T/stub.out"
        else
                fail "gen-run-stub-$cc" "$(head -5 "$T/cerr")"
        fi
done

# C++ may include a header and link with the source compiled as C: the
# declarations have C linkage (they were mangled: undefined reference to
# _tj_trace_cxx_names(tj_site const*, ...)), and arguments named by C++
# keywords ('new', 'class', 'and') are renamed in the code.
cat > "$T/cxxstub.c" <<'EOF'
#include <stdio.h>
#include <tracejournal.h>

void tj_group_register(struct tj_group *group) { printf("group %s\n", group->name); }
void tj_group_unregister(struct tj_group *group) { (void)group; }

void tj_emit(const struct tj_event *ev, const struct tj_site *site, const tj_value *v)
{
        char buf[200];

        ev->render(buf, sizeof(buf), v);
        printf("%s %s [%s] %s\n", ev->name, buf, ev->argsig, site->func);
}
EOF
cat > "$T/cxxuse.cc" <<'EOF'
#include "cxx.h"

int main()
{
        _TRACE_CXX_NAMES_DSTATE = 1;
        _TRACE_CXX_VOID_DSTATE = 1;
        trace_cxx_names(1, 2, "c", 3);
        trace_cxx_void();
        return trace_event_get_state_backends(TRACE_CXX_NAMES) ? 0 : 1;
}
EOF
"$TG" --group=cxx --backends=tracejournal,dtrace --header="$T/cxx.h" --source="$T/cxx.c" cxx.events
printf '%s\n' "group cxx" \
        "cxx_names old 1 new 2 class c and 3 [TRACE_ARGS=old:i new:i class:s and:i] main" \
        "cxx_void no argument [TRACE_ARGS=] main" > "$T/cxx.expected"
for cxx in g++ clang++; do
        command -v $cxx > /dev/null 2>&1 || continue
        cc=gcc; [ $cxx = clang++ ] && cc=clang
        # shellcheck disable=SC2086
        if (cd "$T" && $cc $CFLAGS_GEN -I"$TOP/include" -I. -c cxx.c cxxstub.c &&
            $cxx -O2 -Wall -Wextra -Werror -Wshadow -I"$TOP/include" -I. -c cxxuse.cc &&
            $cxx -o cxxuse cxxuse.o cxx.o cxxstub.o) 2> "$T/cerr"; then
                (cd "$T" && $RUN ./cxxuse) > "$T/cxx.out" 2>&1 || true
                check_file "gen-cxx-caller-$cxx" "$T/cxx.expected" "$T/cxx.out"
        else
                fail "gen-cxx-caller-$cxx" "$(grep -m1 -E 'error|undefined' "$T/cerr")"
        fi
done
# ... and with the backends that need no library
printf '#include "cxx.h"\nvoid f();\nvoid f() { trace_cxx_names(1, 2, "c", 3); trace_cxx_void(); }\n' \
        > "$T/cxxcall.cc"
for be in nop dtrace; do
        "$TG" --group=cxx --backend=$be --header="$T/cxx.h" cxx.events
        if g++ -Wall -Wextra -Werror -Wshadow -I"$T" -c "$T/cxxcall.cc" -o "$T/cxxcall.o" 2> "$T/cerr"; then
                pass "gen-cxx-caller-$be"
        else
                fail "gen-cxx-caller-$be" "$(grep -m1 error "$T/cerr")"
        fi
done

# A program built with -Wpedantic may call trace points (TJ_SITE() is a GNU
# statement expression, marked __extension__).
printf '#include "basic.h"\nvoid f(int a);\nvoid f(int a) { trace_foo(a, "s"); trace_bar_void(); }\n' \
        > "$T/pedantic.c"
compiles gen-pedantic-caller "$T/pedantic.c" -Wpedantic
# ... and compile the source so: %p takes a void pointer (a 'uint64_t *' and
# a 'void **' argument were cast back to their types for it)
compiles gen-pedantic-source "$T/basic.c" -Wpedantic -Wconversion

# The nop backend: calls type-check and vanish; nothing to link.
cat > "$T/nopuse.c" <<'EOF'
#include <stdio.h>
#include "nop.h"

int main(void)
{
        int calls = 0;

        trace_nop_event(++calls, "s");
        trace_nop_void();
        trace_nop_disabled(-1);
        printf("%d %d\n", calls, trace_event_get_state_backends(TRACE_NOP_EVENT));
        return 0;
}
EOF
"$TG" --group=nop --backend=nop --header="$T/nop.h" --source="$T/nop.c" nop.events
for cc in $CCS; do
        # shellcheck disable=SC2086
        if (cd "$T" && $cc $CFLAGS_GEN -Wpedantic -I. -o nopuse nopuse.c nop.c) 2> "$T/cerr"; then
                check_eq "gen-nop-run-$cc" "0 0" "$(cd "$T" && ./nopuse)"
        else
                fail "gen-nop-run-$cc" "$(head -5 "$T/cerr")"
        fi
done
printf '#include "nop.h"\nvoid f(void);\nvoid f(void) { trace_nop_event("wrong", 1); }\n' > "$T/nopbad.c"
if gcc $CFLAGS_GEN -I"$T" -c "$T/nopbad.c" -o "$T/nopbad.o" 2> /dev/null; then
        fail gen-nop-typechecks "a call with wrong argument types compiled"
else
        pass gen-nop-typechecks
fi
