#!/bin/sh
# t-man-api.sh - the man pages cover what the code offers, both ways, parsed
# from both sides (no list here): every tj_ function the shared library
# exports is documented in tracejournal(3) (.Fn or .Fo) and the page documents
# no function the library lacks; every TJ_* variable the library's sources
# name is an .It Ev entry of tracejournal(7), every TRACEQL_* variable of the
# analyzer one of traceql(1), and those pages list no variable the code
# never reads; every exit status of traceql (TQ_EXIT_* in analyzer/traceql.h)
# is an entry of traceql(1)'s EXIT STATUS with its number, and every SQL
# function traceql registers (analyzer/store.c, regexp.c) is one of its SQL
# functions, and the other way round.
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

# traceql's exit statuses: "N TQ_EXIT_NAME" from the enum and from the
# ".It N Pq Dv TQ_EXIT_NAME" entries of EXIT STATUS (9 for leaks was added to
# the code first; a status the page lacks is a script's guess).
grep -oE 'TQ_EXIT_[A-Z_]+ = [0-9]+' "$TOP/analyzer/traceql.h" | awk '{ print $3, $1 }' |
        sort -u > "$T/exit.code"
awk '/^\.Sh / { on = ($2 == "EXIT") } on && /^\.It [0-9]+ Pq Dv TQ_EXIT_/ { print $2, $5 }' \
        "$TOP/man/traceql.1" | sort -u > "$T/exit.doc"
check_eq man-exit-traceql-parsed "yes" "$(grep -qx '9 TQ_EXIT_LEAKS' "$T/exit.code" &&
        grep -qx '0 TQ_EXIT_OK' "$T/exit.doc" && echo yes)"
both man-exit-traceql "$T/exit.code" "$T/exit.doc"

# traceql's SQL functions: the names store.c and regexp.c register, and the
# ".It Fn NAME" entries (REGEXP: ".It Ar x Cm REGEXP") of its SQL functions.
cat "$TOP/analyzer/store.c" "$TOP/analyzer/regexp.c" |
        grep -oE 'sqlite3_create_function(_v2)?\(db, "[a-z0-9_]+"' | sed 's/.*"\(.*\)"/\1/' |
        sort -u > "$T/sqlfn.code"
awk '/^\.S[sh] / { on = ($2 == "SQL" && $3 == "functions") }
     on && /^\.It Fn / { print $3 }
     on && /^\.It Ar [a-z]+ Cm [A-Z]+/ { print tolower($5) }' "$TOP/man/traceql.1" |
        sort -u > "$T/sqlfn.doc"
check_eq man-sqlfn-traceql-parsed "yes" "$(grep -qx u64_sum "$T/sqlfn.code" &&
        grep -qx regexp "$T/sqlfn.doc" && echo yes)"
both man-sqlfn-traceql "$T/sqlfn.code" "$T/sqlfn.doc"
