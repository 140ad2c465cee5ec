#!/bin/sh
# bench/backends.sh - rows of the 'make bench' table for tracegen's dtrace
# (USDT) and ust (LTTng-UST) backends: the cost of a disabled trace point
# and of an enabled one, next to the library's own rows.  Builds
# bench/backends.c in a scratch folder; the enabled USDT figure needs
# bpftrace allowed to attach, the enabled LTTng-UST one an lttng-sessiond
# (started for the run when none is there, then stopped); otherwise the row
# says why it is missing.  Prints markdown table rows only.
#
#   sh bench/backends.sh [N]        N calls per round (default 20000000)
set -eu
cd "$(dirname "$0")/.."
N=${1:-20000000}
NE=200000
W=$(mktemp -d "${TMPDIR:-/tmp}/tj-backends.XXXXXX")
spid=
trap '[ -n "$spid" ] && kill "$spid" 2>/dev/null; rm -rf "$W"' EXIT
val() { sed -n "s/^$1 //p" "$2"; }
row() { printf '| %s | %s | %s |\n' "$1" "$2" "$3"; }

sed 's/^bench_req(/bench_req_dt(/' bench/backends.events > "$W/bdt.events"
sed 's/^bench_req(/bench_req_ust(/' bench/backends.events > "$W/bust.events"
if ! build/tracegen --group=bdt --backend=dtrace --header="$W/bdt.h" --source="$W/bdt.c" \
        "$W/bdt.events" > "$W/gen.err" 2>&1 ||
   ! build/tracegen --group=bust --backend=ust --header="$W/bust.h" --source="$W/bust.c" \
        "$W/bust.events" >> "$W/gen.err" 2>&1 ||
   ! ${CC:-cc} -std=gnu11 -O2 -D_GNU_SOURCE -I"$W" -o "$W/tjbackends" bench/backends.c \
        "$W/bdt.c" "$W/bust.c" -llttng-ust -ldl > "$W/cc.err" 2>&1; then
        row "USDT / LTTng-UST trace point" "n/a: cannot build ($(cat "$W"/*.err | head -1))" "-"
        exit 0
fi
X="$W/tjbackends"
LTTNG_UST_REGISTER_TIMEOUT=0 "$X" disabled "$N" > "$W/dis"
# Instructions per disabled call beyond the empty loop, as bench/run counts ours.
insn() { echo "n/a (valgrind missing)"; }
if command -v valgrind > /dev/null 2>&1 &&
   LTTNG_UST_REGISTER_TIMEOUT=0 valgrind --tool=callgrind --callgrind-out-file="$W/cg.out" \
        "$X" disabled 1000000 > /dev/null 2>&1; then
        callgrind_annotate --inclusive=yes "$W/cg.out" > "$W/cg.txt" 2> /dev/null || true
        insn() {
                awk -v f="$1" -v n=5000000 '$0 ~ f { d = $1 } /backends_empty_loop/ { e = $1 }
                        END { gsub(",", "", d); gsub(",", "", e);
                              printf "%.2f instructions/call beyond the loop", (d - e) / n }' "$W/cg.txt"
        }
fi
row "disabled trace point, USDT (dtrace backend, semaphore down)" \
    "$(val dtrace_disabled_ns "$W/dis") ns/call (empty loop $(val empty_loop_ns "$W/dis") ns); $(insn backends_dtrace_loop)" \
    "same as ours: a load + unlikely branch"
row "disabled trace point, LTTng-UST (ust backend, no session)" \
    "$(val ust_disabled_ns "$W/dis") ns/call (empty loop $(val empty_loop_ns "$W/dis") ns); $(insn backends_ust_loop)" \
    "LTTng-UST: a load + unlikely branch"

# USDT enabled: bpftrace counting the probe (each hit traps into the kernel).
if command -v bpftrace > /dev/null 2>&1 &&
   LTTNG_UST_REGISTER_TIMEOUT=0 timeout 120 bpftrace -c "$X enabled-dtrace $NE" \
        -e "usdt:$X:bdt:bench_req_dt { @n = count(); }" > "$W/dt" 2> "$W/dt.err" &&
   [ -n "$(val dtrace_enabled_ns "$W/dt")" ]; then
        row "enabled, USDT probe with bpftrace counting it, per call" \
            "$(val dtrace_enabled_ns "$W/dt") ns" "uprobe trap: microseconds"
else
        row "enabled, USDT probe with bpftrace counting it, per call" \
            "n/a: bpftrace cannot attach here ($(grep -v '^$' "$W/dt.err" 2>/dev/null | tail -1))" "-"
fi

# LTTng-UST enabled: a session recording the tracepoint to a scratch folder.
ust_row="enabled, LTTng-UST tracepoint recorded by a session, per call"
export LTTNG_HOME="$W"
if ! command -v lttng > /dev/null 2>&1 || ! command -v lttng-sessiond > /dev/null 2>&1; then
        row "$ust_row" "n/a: lttng-tools not installed" "~150 ns (DESIGN.md)"; exit 0
fi
if ! lttng list > /dev/null 2>&1; then
        if ! lttng-sessiond --no-kernel --daemonize > "$W/sd.log" 2>&1; then
                row "$ust_row" "n/a: lttng-sessiond cannot run ($(tail -1 "$W/sd.log"))" "~150 ns"
                exit 0
        fi
        for f in /var/run/lttng/lttng-sessiond.pid "$W/.lttng/lttng-sessiond.pid"; do
                [ -f "$f" ] && { spid=$(cat "$f"); break; }
        done
fi
S="tjbench-$$"
if lttng create "$S" --output="$W/trace" > "$W/lt.log" 2>&1 &&
   lttng enable-event --session="$S" -u bust:bench_req_ust >> "$W/lt.log" 2>&1 &&
   lttng start "$S" >> "$W/lt.log" 2>&1; then
        "$X" enabled-ust "$NE" > "$W/ust"
        lttng destroy "$S" >> "$W/lt.log" 2>&1 || true
        row "$ust_row" "$(val ust_enabled_ns "$W/ust") ns" "~150 ns (DESIGN.md)"
else
        row "$ust_row" "n/a: no LTTng session ($(tail -1 "$W/lt.log"))" "~150 ns"
fi
