#!/bin/sh
# t-qemu-tree.sh - QEMU's trace-events files end to end (tests/qemu-tree-check.py).
#
# For each trace-events file: tracegen accepts it; the generated code and a
# caller of every trace_<event>() compile warning-free with gcc and clang; the
# library's log output is the text QEMU's log backend prints; and traceql
# import --log gives back every argument (small and extreme values).  Runs over
# the eight files of ../shared/corpus/qemu (CORPUS), and over a whole QEMU tree
# when QEMU_TREE names a directory holding one (tests/README says how to fetch
# it); without QEMU_TREE that part is a SKIP line.
. "$(dirname "$0")/lib/common.sh"

CORPUS=${CORPUS:-$TOP/../shared/corpus/qemu}
for p in tracegen traceql libtracejournal.a; do
        if [ ! -e "$B/$p" ]; then fail qemu-tree-built "$B/$p missing: run make"; exit 0; fi
done
if ! command -v python3 > /dev/null 2>&1; then skip qemu-tree "no python3"; exit 0; fi
export SAN_FLAGS
if [ -d "$CORPUS" ]; then
        python3 "$TOP/tests/qemu-tree-check.py" "$TOP" "$CORPUS" "$T/corpus" qemu-corpus
else
        fail qemu-corpus-present "no corpus at $CORPUS"
fi
if [ -z "${QEMU_TREE:-}" ]; then
        skip qemu-tree "QEMU_TREE not set: the whole tree's trace-events files not checked"
elif [ ! -d "$QEMU_TREE" ]; then
        fail qemu-tree-present "QEMU_TREE=$QEMU_TREE is not a directory"
else
        python3 "$TOP/tests/qemu-tree-check.py" "$TOP" "$QEMU_TREE" "$T/tree" qemu-tree
fi
