#!/bin/sh
# t-gen-ust.sh - tracegen --backends=tracejournal,ust: the LTTng-UST
# tracepoint provider (trace-ust.h, golden file) compiles and links into the
# example and into a program calling every spelling of tests/gen/basic.events
# (gcc and clang); where an lttng-sessiond can run, a session records the
# example's events and babeltrace2 prints them with the right values.
. "$(dirname "$0")/lib/common.sh"
TG="$B/tracegen"
if [ ! -x "$TG" ] || [ ! -f "$B/libtracejournal.a" ]; then fail ust-built "run make"; exit 0; fi
if ! echo '#include <lttng/tracepoint.h>' | ${CC:-cc} -E - > /dev/null 2>&1; then
        skip ust "no <lttng/tracepoint.h> (Debian: liblttng-ust-dev)"; exit 0
fi
CF="-std=gnu11 -O2 -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wno-format-nonliteral \
-Wstrict-prototypes -Wmissing-prototypes -D_GNU_SOURCE"
UST_LIBS="-llttng-ust -ldl"

cd "$T"
cp "$TOP/examples/trace-events" trace-events
"$TG" --group=blockdemo --backends=tracejournal,ust --header=trace.h --source=trace.c trace-events
check_file ust-provider-golden "$TOP/tests/gen/blockdemo-ust.h.expected" trace-ust.h
rc=0; "$TG" --group=blockdemo --backend=ust --source=only.c trace-events 2> err || rc=$?
check_eq ust-needs-header "2 tracegen: the ust backend needs --header (or --output-dir without --source)
Try 'tracegen --help' for more information." "$rc $(cat err)"
# --output-dir with --source writes no header either: the message said
# "(or --output-dir)", which was given
mkdir od-s
rc=0; "$TG" --group=blockdemo --backend=ust --output-dir=od-s --source=only.c trace-events 2> err || rc=$?
check_eq ust-needs-header-output-dir-source "2 tracegen: the ust backend needs --header (or --output-dir without --source)
Try 'tracegen --help' for more information.|" "$rc $(cat err)|$(ls od-s)"
mkdir od
"$TG" --group=blockdemo --backend=ust --output-dir=od trace-events
check_eq ust-output-dir "trace-blockdemo-ust.h trace-blockdemo.c trace-blockdemo.h" "$(ls od | tr '\n' ' ' | sed 's/ $//')"
# shellcheck disable=SC2086
if ${CC:-cc} $CF -I"$TOP/include" -I. -o blockdemo "$TOP/examples/blockdemo.c" trace.c \
        "$B/libtracejournal.a" $SAN_FLAGS -lsystemd -lpthread $UST_LIBS 2> cc.err; then
        pass ust-example-links
else
        fail ust-example-links "$(head -5 cc.err)"; exit 0
fi
TJ_OUTPUT=log LTTNG_UST_REGISTER_TIMEOUT=0 ./blockdemo -t 1 -r 3 --trace blk_req_complete \
        > /dev/null 2> log
check_eq ust-tracejournal-side "3" "$(grep -c '^blk_req_complete req 0x' log)"

# ust alone: every spelling, no tracejournal library.
"$TG" --group=ust_only --backend=ust --header=u.h --source=u.c "$TOP/tests/gen/basic.events"
cat > calls.c <<'EOF'
#include <stdio.h>
#include "u.h"
int main(void)
{
        uint64_t u = 1;
        void *pp = &u;

        trace_foo(1, "s");
        trace_bar_void();
        trace_bar_silent();
        trace_off_event(1, 2);
        trace_ptrs(&u, "n", "l", &u, &pp);
        trace_ints(1, 2, 3, 4, 5, 6, 7, 8, true, 'c');
        trace_words(1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
        trace_literals(1, "q");
        trace_star(1, 2, "s");
        trace_empty_fmt();
        printf("%d\n", trace_event_get_state_backends(TRACE_FOO));
        return 0;
}
EOF
for cc in gcc clang; do
        command -v $cc > /dev/null 2>&1 || continue
        # shellcheck disable=SC2086
        if $cc $CF -I. -o calls calls.c u.c $UST_LIBS 2> cc.err; then
                check_eq "ust-only-$cc" 0 "$(LTTNG_UST_REGISTER_TIMEOUT=0 ./calls)"
        else
                fail "ust-only-$cc" "$(head -5 cc.err)"
        fi
done

# An event name that begins with a digit (QEMU's \w+): LTTng-UST pastes it
# behind the provider's name, and registers it as provider:1foo.
"$TG" --group=ust_digit --backend=ust --header=d.h --source=d.c "$TOP/tests/gen/digit.events"
cat > dcalls.c <<'EOF'
#include "d.h"
int main(void)
{
        trace_1foo(1);
        trace_2bar_baz("s", 2);
        trace_3off();
        return 0;
}
EOF
for cc in gcc clang; do
        command -v $cc > /dev/null 2>&1 || continue
        # shellcheck disable=SC2086
        if $cc $CF -I. -o dcalls dcalls.c d.c $UST_LIBS 2> cc.err; then
                LTTNG_UST_DEBUG=1 LTTNG_UST_REGISTER_TIMEOUT=0 ./dcalls 2> dbg || :
                check_eq "ust-digit-name-$cc" 'registered tracepoint: "ust_digit:1foo"' \
                        "$(grep -o 'registered tracepoint: "ust_digit:1foo"' dbg)"
        else
                fail "ust-digit-name-$cc" "$(head -5 cc.err)"
        fi
done

# C++ includes the header and with it the provider: arguments named by C++
# keywords are renamed there too, their fields keep the declared name.
"$TG" --group=cxx --backend=ust --header=cxx.h --source=cxx.c "$TOP/tests/gen/cxx.events"
printf '#include "cxx.h"\nvoid f();\nvoid f() { trace_cxx_names(1, 2, "c", 3); trace_cxx_void(); }\n' > cxx.cc
# shellcheck disable=SC2086
if g++ -Wall -Wextra -Werror -Wshadow -I. -c cxx.cc 2> cc.err &&
   ${CC:-cc} $CF -I. -c cxx.c 2>> cc.err; then
        check_eq ust-cxx-fields "lttng_ust_field_integer(int64_t, new, _tj_new)" \
                "$(grep -o 'lttng_ust_field_integer(int64_t, new, [^)]*)' cxx-ust.h)"
else
        fail ust-cxx-fields "$(grep -m1 error cc.err)"
fi

# <lttng/tracepoint.h> pastes the provider and event names after expanding
# them, as <sys/sdt.h> does: an event 'EOF' failed to compile ('pasting
# "lttng_ust_tracepoint_g___" and "(" does not give a valid preprocessing
# token'), and 'unix' registered a tracepoint g:1.  Refused like dtrace's;
# offsetof and assert, function-like, are not expanded there and pass.
printf '%s\n' 'unix(int a) "a %d"' 'EOF(void)' 'disable linux(int a) "a %d"' \
        'offsetof(int a) "a %d"' 'assert(void)' > macros.events
rc=0; "$TG" --group=g --backend=tracejournal,ust --header=m.h --source=m.c macros.events \
        2> err || rc=$?
check_eq ust-macro-names "1|tracegen: macros.events:1:1: event name 'unix' is a macro the compiler predefines: the ust backend's tracepoint would be named by its value
tracegen: macros.events:2:1: event name 'EOF' is a standard macro: the ust backend's tracepoint would be named by its value|no output" \
        "$rc|$(cat err)|$([ -e m.h ] || [ -e m-ust.h ] || echo no output)"
rc=0; "$TG" --group=linux --backend=ust --header=m.h macros.events 2> err || rc=$?
check_eq ust-macro-group "2|tracegen: --group 'linux' is a macro the compiler predefines: the ust backend's provider would be named by its value
Try 'tracegen --help' for more information." "$rc|$(cat err)"
sed -n '3,5p' macros.events > fnm.events
printf '#include <assert.h>\n#include <stddef.h>\n#include "fnm.h"\nint main(void) { trace_offsetof(1); trace_assert(); return 0; }\n' \
        > fnm_use.c
rc=0; "$TG" --group=assert --backend=ust --header=fnm.h --source=fnm.c fnm.events 2> err || rc=$?
# shellcheck disable=SC2086
if [ "$rc" = 0 ] && ${CC:-cc} $CF -I. -o fnm fnm_use.c fnm.c $UST_LIBS 2> cc.err; then
        check_eq ust-fn-macro-names "lttng_ust_tracepoint_assert___assert lttng_ust_tracepoint_assert___offsetof" \
                "$(nm fnm | grep -o 'lttng_ust_tracepoint_assert___[a-z]*$' | sort -u | paste -sd ' ')"
else
        fail ust-fn-macro-names "exit $rc: $(cat err) $(grep -m1 error cc.err 2>/dev/null)"
fi

# Arguments named as functions LTTng-UST's probe code calls: the provider's
# parameters hid them ("called object 'strlen' is not a function"); they are
# spelled _tj_NAME, their fields keep the declared name.
printf '%s\n' 'fns(const char *strlen, int memcpy, bool abort) "%s %d %d"' > fns.events
"$TG" --group=fns --backend=tracejournal,ust --header=fns.h --source=fns.c fns.events
printf '#include "fns.h"\nint main(void) { trace_fns("s", 1, true); return 0; }\n' > fns_use.c
# shellcheck disable=SC2086
if ${CC:-cc} $CF -I"$TOP/include" -I. -o fns fns_use.c fns.c "$B/libtracejournal.a" $SAN_FLAGS \
        -lsystemd -lpthread $UST_LIBS 2> cc.err; then
        check_eq ust-libc-arg-names "lttng_ust_field_string(strlen, _tj_strlen)
lttng_ust_field_integer(int, memcpy, _tj_memcpy)
lttng_ust_field_integer(uint8_t, abort, _tj_abort)" "$(grep -o 'lttng_ust_field_[^ ].*' fns-ust.h)"
else
        fail ust-libc-arg-names "$(grep -m1 error cc.err)"
fi

# LTTng-UST takes a tracepoint name PROVIDER:EVENT of 255 characters at
# most: one more failed the provider's static assertion ("Tracepoint name
# length is too long"); refused with file and line.  255 compiles.
e253=$(printf '%0253d' 0 | tr 0 e)
printf '%s(int a) "%%d"\nok(void)\n%se(void)\n' "$e253" "$e253" > long.events
rc=0; "$TG" --group=gg --backend=ust --header=long.h --source=long.c long.events 2> err || rc=$?
check_eq ust-name-too-long "1|tracegen: long.events:1:1: event name '$e253' is too long for the ust backend: its tracepoint gg:EVENT would have 256 characters, LTTng-UST takes 255 at most
tracegen: long.events:3:1: event name '${e253}e' is too long for the ust backend: its tracepoint gg:EVENT would have 257 characters, LTTng-UST takes 255 at most|no output" \
        "$rc|$(cat err)|$([ -e long.h ] || echo no output)"
sed -n 1,2p long.events > longest.events
"$TG" --group=g --backend=ust --header=long.h --source=long.c longest.events 2> err || rc=$?
printf '#include "long.h"\nint main(void) { trace_%s(1); trace_ok(); return 0; }\n' "$e253" > long_use.c
# shellcheck disable=SC2086
if ${CC:-cc} $CF -I. -o long long_use.c long.c $UST_LIBS 2> cc.err; then
        check_eq ust-name-longest "" "$(cat err)"
else
        fail ust-name-longest "$(cat err) $(grep -m1 error cc.err)"
fi

# Names of LTTng-UST's own: <lttng/tracepoint.h> defines the old API's
# names as object-like macros, so an event 'tracepoint' registered as
# g:lttng_ust_tracepoint (and beside dtrace did not compile), an argument
# 'tp_rcu_read_lock' became 'lttng_ust_tracepoint_dlopen_ptr->...' in the
# provider and in the header that includes it (a 'disable' event's too), and
# an argument named as a global of its probe code shadowed it.  Refused.
printf '%s\n' 'tracepoint(int a) "a %d"' 'disable d(int tp_rcu_read_lock) "%d"' \
        'e(int lttng_ust_tracepoint_dlopen_ptr) "%d"' 'disable ctf_string(void)' > ustnames.events
rc=0; "$TG" --group=g --backend=ust --header=un.h --source=un.c ustnames.events 2> err || rc=$?
check_eq ust-lttng-names "1|tracegen: ustnames.events:1:1: event name 'tracepoint' is a macro of LTTng-UST's headers: the ust backend's tracepoint would be named by its value
tracegen: ustnames.events:2:15: argument name 'tp_rcu_read_lock' is a macro of LTTng-UST's headers, which the ust backend's provider cannot take
tracegen: ustnames.events:3:7: argument name 'lttng_ust_tracepoint_dlopen_ptr' has LTTng-UST's prefix, that of its macros, which the ust backend's provider cannot take|no output" \
        "$rc|$(cat err)|$([ -e un.h ] || [ -e un-ust.h ] || echo no output)"
rc=0; "$TG" --group=tracepoint --backend=ust --header=un.h ustnames.events 2> err || rc=$?
check_eq ust-lttng-group "2|tracegen: --group 'tracepoint' is a macro of LTTng-UST's headers: the ust backend's provider would be named by its value
Try 'tracegen --help' for more information." "$rc|$(cat err)"
rc=0; "$TG" --group=g --backend=tracejournal,dtrace --header=un.h --source=un.c ustnames.events || rc=$?
check_eq ust-lttng-names-without-ust 0 "$rc"

# ---- a real session, where lttng-sessiond can run ----
if ! command -v lttng > /dev/null 2>&1 || ! command -v lttng-sessiond > /dev/null 2>&1 ||
   ! command -v babeltrace2 > /dev/null 2>&1; then
        skip ust-session "lttng-tools or babeltrace2 not installed"; exit 0
fi
export LTTNG_HOME="$T"
started=
if ! lttng list > /dev/null 2>&1; then
        if ! lttng-sessiond --no-kernel --daemonize > sessiond.log 2>&1; then
                skip ust-session "lttng-sessiond cannot run here: $(tail -1 sessiond.log)"; exit 0
        fi
        started=1
fi
sessiond_pid() {
        for f in /var/run/lttng/lttng-sessiond.pid "$T/.lttng/lttng-sessiond.pid"; do
                [ -f "$f" ] && { cat "$f"; return; }
        done
}
spid=$([ -n "$started" ] && sessiond_pid || true)
trap '[ -n "$spid" ] && kill "$spid" 2>/dev/null; common_exit' EXIT
S="$TJ_TEST_ID"
if lttng create "$S" --output="$T/trace" > lttng.log 2>&1 &&
   lttng enable-event --session="$S" -u 'blockdemo:blk_dev_open,blockdemo:blk_req_submit' >> lttng.log 2>&1 &&
   lttng start "$S" >> lttng.log 2>&1; then
        TJ_OUTPUT=nop ./blockdemo -t 1 -r 4 > /dev/null
        lttng stop "$S" >> lttng.log 2>&1 || true
        lttng destroy "$S" >> lttng.log 2>&1 || true
        babeltrace2 "$T/trace" 2> bt.err | sed -e 's/^.* blockdemo:/blockdemo:/' \
                -e 's/{ cpu_id = [0-9]* }, //' -e 's/0x[0-9A-Fa-f]*/0xPTR/' > got || true
        cat > exp <<'EOF'
blockdemo:blk_dev_open: { name = "disk0", nb_sectors = 1048576 }
blockdemo:blk_dev_open: { name = "disk1", nb_sectors = 1048576 }
blockdemo:blk_req_submit: { req = 0xPTR, sector = 0, nb_sectors = 8, is_write = 1 }
blockdemo:blk_req_submit: { req = 0xPTR, sector = 64, nb_sectors = 16, is_write = 0 }
blockdemo:blk_req_submit: { req = 0xPTR, sector = 128, nb_sectors = 32, is_write = 0 }
blockdemo:blk_req_submit: { req = 0xPTR, sector = 192, nb_sectors = 64, is_write = 1 }
EOF
        check_file ust-session-babeltrace2 exp got
else
        skip ust-session "lttng could not set up a session: $(tail -1 lttng.log)"
fi
