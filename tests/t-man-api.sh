#!/bin/sh
# t-man-api.sh - the man pages cover what the code offers, both ways, parsed
# from both sides (no list here): every tj_ function the shared library
# exports is documented in tracejournal(3) (.Fn or .Fo) and the page documents
# no function the library lacks; every TJ_* variable the library's sources
# name is an .It Ev entry of tracejournal(7), every TRACEQL_* variable of the
# analyzer one of traceql(1), and those pages list no variable the code
# never reads.
. "$(dirname "$0")/lib/common.sh"

# list: sorted unique lines of stdin, on one line
list() { sort -u | tr '\n' ' ' | sed 's/ $//'; }
# both NAME CODE-FILE DOC-FILE
both() {
        check_eq "$1-code-documented" "" "$(comm -23 "$2" "$3" | list)"
        check_eq "$1-documented-exists" "" "$(comm -13 "$2" "$3" | list)"
}

nm -D --defined-only "$B/libtracejournal.so" | awk '$2 ~ /^[TWi]$/ { sub(/@.*/, "", $3); print $3 }' |
        grep '^tj_' | sort -u > "$T/fn.code"
grep -hoE '^\.(Fn|Fo) tj_[A-Za-z0-9_]+' "$TOP/man/tracejournal.3" | awk '{ print $2 }' |
        sort -u > "$T/fn.doc"
check_eq man-api-functions-parsed "yes" "$(grep -qx tj_init "$T/fn.code" && grep -qx tj_init "$T/fn.doc" && echo yes)"
both man-api-functions "$T/fn.code" "$T/fn.doc"

# env CODE-FILES... : the "PREFIX_NAME" string literals of the sources
env_code() {
        p=$1; shift
        cat "$@" | grep -oE "\"${p}_[A-Z0-9_]+\"" | tr -d '"' | sort -u
}
env_doc() { grep -hoE "^\\.It Ev $1_[A-Z0-9_]+" "$2" | awk '{ print $3 }' | sort -u; }

env_code TJ "$TOP"/backend/*.c > "$T/tj.code"
env_doc TJ "$TOP/man/tracejournal.7" > "$T/tj.doc"
check_eq man-env-tj-parsed "yes" "$(grep -qx TJ_OUTPUT "$T/tj.code" && grep -qx TJ_OUTPUT "$T/tj.doc" && echo yes)"
both man-env-tj "$T/tj.code" "$T/tj.doc"

env_code TRACEQL "$TOP"/analyzer/*.c > "$T/tq.code"
env_doc TRACEQL "$TOP/man/traceql.1" > "$T/tq.doc"
check_eq man-env-traceql-parsed "yes" "$(grep -qx TRACEQL_DB "$T/tq.code" && grep -qx TRACEQL_DB "$T/tq.doc" && echo yes)"
both man-env-traceql "$T/tq.code" "$T/tq.doc"
