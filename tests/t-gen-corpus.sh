#!/bin/sh
# t-gen-corpus.sh - every real QEMU trace-events file must generate and compile;
# and the example error of tracegen(1) and trace-events(5) is real.
#
# For each trace-events file under $CORPUS (default ../shared/corpus/qemu beside
# the repository), tracegen writes a header and a source (group named after the
# folder, hw/block -> hw_block) and the source is compiled with gcc and, when
# present, clang, with the strictest flags the project uses; the header is
# included from C++ too.  The nop backend's output is compiled too.  Run it
# over another set by hand:
#     CORPUS=/path/to/qemu-trace-events sh tests/t-gen-corpus.sh
. "$(dirname "$0")/lib/common.sh"

CORPUS=${CORPUS:-$TOP/../shared/corpus/qemu}
TG="$B/tracegen"
if [ ! -x "$TG" ]; then fail gen-corpus-built "$TG missing: run make"; exit 0; fi
if [ ! -d "$CORPUS" ]; then fail gen-corpus-present "no corpus at $CORPUS"; exit 0; fi
CFLAGS_GEN="-std=gnu11 -Wall -Wextra -Werror -Wformat=2 -Wno-format-nonliteral -Wshadow \
-Wstrict-prototypes -Wmissing-prototypes"
CCS=gcc
command -v clang > /dev/null 2>&1 && CCS="gcc clang"

files=$(cd "$CORPUS" && find . -name 'trace-events' -type f | sed 's|^\./||' | sort)
count=0 good=0
for f in $files; do
        count=$((count + 1))
        dir=$(dirname "$f")
        if [ "$dir" = . ]; then group=root; else group=$(echo "$dir" | tr '/-' '__'); fi
        name="gen-corpus-$dir"
        [ "$dir" = . ] && name=gen-corpus-root
        ok=1
        if ! "$TG" --group="$group" --header="$T/$group.h" --source="$T/$group.c" \
                "$CORPUS/$f" 2> "$T/err"; then
                fail "$name-generate" "$(head -3 "$T/err")"
                continue
        fi
        for cc in $CCS; do
                # shellcheck disable=SC2086
                if ! $cc $CFLAGS_GEN -I"$TOP/include" -I"$T" -c "$T/$group.c" -o "$T/$group.o" \
                        2> "$T/cerr"; then
                        fail "$name-compile-$cc" "$(grep -m3 error "$T/cerr")"
                        ok=0
                fi
        done
        # C++ includes the header too (util/trace-events has an argument 'new')
        printf '#include "%s.h"\n' "$group" > "$T/use.cc"
        if ! g++ -Wall -Wextra -Werror -Wshadow -I"$TOP/include" -I"$T" -fsyntax-only "$T/use.cc" \
                2> "$T/cerr"; then
                fail "$name-cxx" "$(grep -m3 error "$T/cerr")"
                ok=0
        fi
        "$TG" --group="$group" --backend=nop --header="$T/nop_$group.h" --source="$T/nop_$group.c" \
                "$CORPUS/$f"
        printf '#include "nop_%s.h"\n' "$group" > "$T/nop_use.c"
        # shellcheck disable=SC2086
        if ! gcc $CFLAGS_GEN -Wpedantic -I"$T" -c "$T/nop_use.c" -o "$T/nop_use.o" 2> "$T/cerr" ||
           ! gcc $CFLAGS_GEN -Wpedantic -c "$T/nop_$group.c" -o "$T/nop_$group.o" 2>> "$T/cerr"; then
                fail "$name-nop" "$(grep -m3 error "$T/cerr")"
                ok=0
        fi
        if [ $ok = 1 ]; then
                pass "$name"
                good=$((good + 1))
        fi
done
echo "# $good of $count trace-events files generated and compiled ($CCS)"
[ "$count" -gt 0 ] || fail gen-corpus-nonempty "no trace-events file under $CORPUS"

# The example error of tracegen(1) and trace-events(5) is what tracegen
# prints for it: QEMU's hw/block/trace-events with 'float offset' for
# 'uint64_t offset' on line 12 (the pages said column 31, made up).
if [ -f "$CORPUS/hw/block/trace-events" ]; then
        mkdir -p "$T/ex/hw/block"
        sed '12s/uint64_t offset/float offset/' "$CORPUS/hw/block/trace-events" \
                > "$T/ex/hw/block/trace-events"
        rc=0
        (cd "$T/ex" && "$TG" --check hw/block/trace-events) > "$T/out" 2> "$T/err" || rc=$?
        check_eq gen-corpus-man-example-ran "1|float offset" \
                "$rc|$(sed -n '12s/.*\(float offset\).*/\1/p' "$T/ex/hw/block/trace-events")"
        for m in tracegen.1 trace-events.5; do
                check_eq "gen-corpus-man-example-$m" "$(cat "$T/err")" \
                        "$(grep '^tracegen: hw/block/trace-events:' "$TOP/man/$m")"
        done
else
        skip gen-corpus-man-example "no hw/block/trace-events under $CORPUS"
fi
