#!/bin/sh
# t-gen-dtrace.sh - tracegen --backends=tracejournal,dtrace: the example built
# with USDT probes has one stapsdt note per call site of every event that is
# not 'disable', with provider blockdemo, the event's name, a semaphore and
# argument specs of the right sizes and signs (readelf -n); the tracejournal
# side still works; and where BPF is allowed, bpftrace attached to probes
# sees the arguments, and raising the semaphore opens the
# trace_event_get_state_backends() guard of an expensive argument.
. "$(dirname "$0")/lib/common.sh"
TG="$B/tracegen"
if [ ! -x "$TG" ] || [ ! -f "$B/libtracejournal.a" ]; then fail dtrace-built "run make"; exit 0; fi
if ! echo '#include <sys/sdt.h>' | ${CC:-cc} -E - > /dev/null 2>&1; then
        skip dtrace "no <sys/sdt.h> (Debian: systemtap-sdt-dev)"; exit 0
fi
CF="-std=gnu11 -O2 -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wno-format-nonliteral \
-Wstrict-prototypes -Wmissing-prototypes -D_GNU_SOURCE"

cd "$T"
"$TG" --group=blockdemo --backend=tracejournal --backend=dtrace --header=trace.h \
        --source=trace.c "$TOP/examples/trace-events"
# shellcheck disable=SC2086
if ${CC:-cc} $CF -I"$TOP/include" -I. -o blockdemo "$TOP/examples/blockdemo.c" trace.c \
        "$B/libtracejournal.a" $SAN_FLAGS -lsystemd -lpthread 2> cc.err; then
        pass dtrace-example-builds
else
        fail dtrace-example-builds "$(head -5 cc.err)"; exit 0
fi

# One line per note: provider, name, whether it has a semaphore, then the
# argument sizes (negative: signed) with their locations stripped.
readelf -n blockdemo | awk '
        function out() { if (p != "") print p, n, s a; p = "" }
        /NT_STAPSDT/ { out() }
        /Provider:/ { p = $2; a = "" }
        /Name:/ { n = $2 }
        /Semaphore:/ { s = ($NF ~ /^0x0+$/) ? "nosem" : "sem" }
        /Arguments:/ { for (i = 2; i <= NF; i++) { sub(/@.*/, "", $i); a = a " " $i } }
        END { out() }' | sort -u > notes
cat > exp <<'EOF'
blockdemo blk_dev_open sem 8 8
blockdemo blk_drain_all sem
blockdemo blk_req_complete sem 8 -4
blockdemo blk_req_error sem 8 8 8
blockdemo blk_req_submit sem 8 8 4 -4
blockdemo blk_worker_start sem -4 4
blockdemo blk_worker_stats sem -4 8
blockdemo qemu_vfree sem 8
blockdemo qemu_vmalloc sem 8 8
EOF
check_file dtrace-notes exp notes
# Repeated --backend, one list, QEMU's --backends and nop in a list: same code.
for opts in "--backend=tracejournal,dtrace" "--backends=dtrace,tracejournal" \
            "--backend=nop,dtrace --backend=tracejournal"; do
        # shellcheck disable=SC2086
        "$TG" --group=blockdemo $opts --header=t2.h --header-include=trace.h --source=t2.c \
                "$TOP/examples/trace-events"
        if cmp -s trace.h t2.h && cmp -s trace.c t2.c; then pass "dtrace-opts $opts"; else
                fail "dtrace-opts $opts" "generated code differs"; fi
done
check_eq dtrace-no-disabled-probe "" "$(readelf -n blockdemo | grep 'Name: blk_req_debug' || true)"

# The tracejournal backend beside it is unchanged.
TJ_OUTPUT=log ./blockdemo -t 1 -r 3 --trace blk_req_complete > /dev/null 2> log
check_eq dtrace-tracejournal-side "3" "$(grep -c '^blk_req_complete req 0x' log)"

# Two groups linked into one program whose names split differently at an
# underscore (group a, event b_c; group a_b, event c): each probe has a
# semaphore of its own (both were a_b_c_semaphore, defined twice: the link
# failed).
printf 'b_c(int x) "x %%d"\n' > a.events
printf 'c(int y) "y %%d"\n' > ab.events
printf '#include "a.h"\n#include "ab.h"\nint main(void) { trace_b_c(1); trace_c(2); return 0; }\n' \
        > two.c
for be in dtrace tracejournal,dtrace; do
        "$TG" --group=a --backend=$be --header=a.h --source=a.c a.events
        "$TG" --group=a_b --backend=$be --header=ab.h --source=ab.c ab.events
        # shellcheck disable=SC2086
        if ${CC:-cc} $CF -I"$TOP/include" -I. -o two two.c a.c ab.c "$B/libtracejournal.a" \
                $SAN_FLAGS -lsystemd -lpthread 2> cc.err; then
                check_eq "dtrace-two-groups-$be" "2" \
                        "$(readelf -n two | sed -n 's/.*Semaphore: //p' | sort -u | wc -l)"
        else
                fail "dtrace-two-groups-$be" "$(grep -m1 -E 'error|multiple' cc.err)"
        fi
done

# dtrace alone (no library): every spelling of tests/gen/basic.events calls
# a probe, compiled by gcc and clang; the 'disable' event has none.
"$TG" --group=dtrace_only --backend=dtrace --header=dt.h --source=dt.c "$TOP/tests/gen/dtrace_only.events"
cat > calls.c <<'EOF'
#include <stdio.h>
#include "dt.h"
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
        if $cc $CF -I. -o calls calls.c dt.c 2> cc.err; then
                check_eq "dtrace-only-$cc" "0 9" "$(./calls) $(readelf -n calls | grep -c NT_STAPSDT)"
        else
                fail "dtrace-only-$cc" "$(head -5 cc.err)"
        fi
done

# An event name that begins with a digit (QEMU's \w+): sdt.h writes it as
# a string in the note and pastes it behind the provider's name only
# (dtd_1foo_semaphore), so the probe is dtd:1foo with its semaphore.
"$TG" --group=dtd --backends=tracejournal,dtrace --header=dd.h --source=dd.c \
        "$TOP/tests/gen/digit.events"
printf '#include "dd.h"\nint main(void) { trace_1foo(1); trace_2bar_baz("s", 2); trace_3off(); return 0; }\n' \
        > dd_use.c
for cc in gcc clang; do
        command -v $cc > /dev/null 2>&1 || continue
        # shellcheck disable=SC2086
        if $cc $CF -I"$TOP/include" -I. -o dd dd_use.c dd.c "$B/libtracejournal.a" $SAN_FLAGS \
                -lsystemd -lpthread 2> cc.err; then
                check_eq "dtrace-digit-name-$cc" "1foo sem 2bar_baz sem " "$(readelf -n dd | awk '
                        /Name:/ { n = $2 }
                        /Semaphore:/ { printf "%s %s ", n, ($NF ~ /^0x0+$/) ? "nosem" : "sem" }')"
        else
                fail "dtrace-digit-name-$cc" "$(head -5 cc.err)"
        fi
done

# What <sys/sdt.h> would get wrong is refused: an event or group named by a
# macro ('unix', predefined by gcc and clang in GNU C, or <stdio.h>'s EOF)
# failed to compile ('dt_1_semaphore' undeclared: sdt.h pastes the name
# after expanding it), and an argument named dt_EVENT_semaphore was replaced
# by the macro around STAP_PROBE, so the probe recorded the semaphore.  A
# 'disable' event has no probe, and tracejournal alone takes them all.
printf '%s\n' 'unix(int a) "a %d"' 'EOF(void)' 'x(int dt_x_semaphore) "x %d"' \
        'disable linux(int a) "a %d"' 'y(int dt_x_semaphore, int dt_y_semaphore) "%d %d"' \
        > macros.events
rc=0; "$TG" --group=dt --backend=tracejournal,dtrace --header=m.h --source=m.c macros.events \
        2> err || rc=$?
check_eq dtrace-macro-names "1|tracegen: macros.events:1:1: event name 'unix' is a macro the compiler predefines: the dtrace backend's probe would be named by its value
tracegen: macros.events:2:1: event name 'EOF' is a standard macro: the dtrace backend's probe would be named by its value
tracegen: macros.events:3:7: argument name 'dt_x_semaphore' is the dtrace backend's semaphore macro of the event's probe (group 'dt')
tracegen: macros.events:5:27: argument name 'dt_y_semaphore' is the dtrace backend's semaphore macro of the event's probe (group 'dt')|no output" \
        "$rc|$(cat err)|$([ -e m.h ] || echo no output)"
rc=0; "$TG" --check --backend=dtrace macros.events 2> err || rc=$?
check_eq dtrace-macro-names-check "1 2" "$rc $(wc -l < err)"
rc=0; "$TG" --group=linux --backend=dtrace --header=m.h macros.events 2> err || rc=$?
check_eq dtrace-macro-group "2|tracegen: --group 'linux' is a macro the compiler predefines: the dtrace backend's provider would be named by its value
Try 'tracegen --help' for more information." "$rc|$(cat err)"
rc=0; "$TG" --group=dt --backend=tracejournal --header=m.h --source=m.c macros.events || rc=$?
check_eq dtrace-macro-names-tracejournal-alone 0 "$rc"
# <sys/sdt.h>'s own object-like macro: 'g_nor_semaphore' undeclared.  An
# argument so named is replaced in the parameter and the probe alike.
printf '%s\n' 'STAP_SDT_ARG_CONSTRAINT(int a) "a %d"' 'z(int STAP_SDT_ARG_CONSTRAINT) "%d"' \
        > sdt.events
rc=0; "$TG" --group=dt --backend=dtrace --header=m.h --source=m.c sdt.events 2> err || rc=$?
check_eq dtrace-sdt-macro-name "1|tracegen: sdt.events:1:1: event name 'STAP_SDT_ARG_CONSTRAINT' is a macro of <sys/sdt.h>: the dtrace backend's probe would be named by its value" \
        "$rc|$(cat err)"
rc=0; "$TG" --group=STAP_SDT_ARG_CONSTRAINT --backend=dtrace --header=m.h sdt.events 2> err || rc=$?
check_eq dtrace-sdt-macro-group "2|tracegen: --group 'STAP_SDT_ARG_CONSTRAINT' is a macro of <sys/sdt.h>: the dtrace backend's provider would be named by its value
Try 'tracegen --help' for more information." "$rc|$(cat err)"
rc=0; "$TG" --group=dt --backend=tracejournal --header=m.h --source=m.c sdt.events || rc=$?
check_eq dtrace-sdt-macro-tracejournal-alone 0 "$rc"
sed 1d sdt.events > sdt-arg.events
"$TG" --group=dt --backend=dtrace --header=sdt.h --source=sdt.c sdt-arg.events
printf '#include "sdt.h"\nint main(void) { trace_z(1); return 0; }\n' > sdt_use.c
if gcc -std=gnu11 -Wall -Wextra -Werror -I"$TOP/include" -I. -c sdt.c -o sdt.o 2> cc.err &&
   gcc -std=gnu11 -Wall -Wextra -Werror -I"$TOP/include" -I. -c sdt_use.c -o sdt_use.o 2>> cc.err; then
        pass dtrace-sdt-macro-arg-compiles
else
        fail dtrace-sdt-macro-arg-compiles "$(head -5 cc.err)"
fi
printf '%s\n' 'unix_ev(int a) "a %d"' 'disable linux(int a) "a %d"' 'x(int dt_x_sema) "x %d"' \
        > near.events
printf '#include "near.h"\nint main(void) { trace_unix_ev(1); trace_linux(2); trace_x(3); return 0; }\n' \
        > near_use.c
"$TG" --group=dt --backend=dtrace --header=near.h --source=near.c near.events
# shellcheck disable=SC2086
if ${CC:-cc} $CF -I. -o near near_use.c near.c 2> cc.err; then
        check_eq dtrace-macro-names-near "2" "$(readelf -n near | grep -c NT_STAPSDT)"
else
        fail dtrace-macro-names-near "$(grep -m1 error cc.err)"
fi
# offsetof and assert are function-like macros: a name not followed by '('
# is not expanded, so an event or group so named keeps its probe name.
printf '%s\n' 'offsetof(int a) "a %d"' 'assert(void)' > fnmacros.events
printf '#include <assert.h>\n#include <stddef.h>\n#include "fnm.h"\nint main(void) { trace_offsetof(1); trace_assert(); return 0; }\n' \
        > fnm_use.c
rc=0; "$TG" --group=assert --backend=dtrace --header=fnm.h --source=fnm.c fnmacros.events \
        2> err || rc=$?
# shellcheck disable=SC2086
if [ "$rc" = 0 ] && ${CC:-cc} $CF -I. -o fnm fnm_use.c fnm.c 2> cc.err; then
        check_eq dtrace-fn-macro-names "assert offsetof|assert assert" \
                "$(readelf -n fnm | sed -n 's/^ *Provider: \(.*\)/\1/p; s/^ *Name: \(.*\)/\1/p' |
                   paste -d ' ' - - | tr '\n' '|' | sed 's/|$//')"
else
        fail dtrace-fn-macro-names "exit $rc: $(cat err) $(grep -m1 error cc.err 2>/dev/null)"
fi

# bpftrace, where the kernel and our privileges allow BPF.
if ! command -v bpftrace > /dev/null 2>&1; then
        skip dtrace-bpftrace "bpftrace is not installed"; exit 0
fi
if ! timeout 30 bpftrace -e 'BEGIN { printf("bpf-ok\n"); exit(); }' > bpf.out 2>&1 ||
   ! grep -q '^bpf-ok$' bpf.out; then
        skip dtrace-bpftrace "BPF not allowed here: $(grep -v '^$' bpf.out | tail -1)"; exit 0
fi
TJ_OUTPUT=nop timeout 60 bpftrace -c "./blockdemo -t 1 -r 8" -e '
usdt:./blockdemo:blockdemo:blk_dev_open { printf("open %s %u\n", str(arg0), arg1); }
usdt:./blockdemo:blockdemo:blk_req_submit { printf("submit %u %u %d\n", arg1, arg2, arg3); }
usdt:./blockdemo:blockdemo:blk_worker_stats { printf("stats %d %s\n", arg0, str(arg1)); }' \
        > bpf.out 2> bpf.err || true
grep -E '^(open|submit|stats) ' bpf.out > got || true
cat > exp <<'EOF'
open disk0 1048576
open disk1 1048576
submit 0 8 1
submit 64 16 0
submit 128 32 0
submit 192 64 1
submit 256 8 0
submit 320 16 0
submit 384 32 1
submit 448 64 0
stats 0 4k:2 8k:2 16k:2 32k:2
EOF
check_file dtrace-bpftrace-args exp got
