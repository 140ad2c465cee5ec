#!/bin/sh
# t-lib-man.sh - the library's man pages are clean under mandoc -Tlint
# (warnings and worse; STYLE notes about pages not installed yet are fine).
. "$(dirname "$0")/lib/common.sh"
if ! command -v mandoc > /dev/null; then skip lib-man "mandoc missing"; exit 0; fi
for m in tracejournal.3 tracejournal.7; do
        check_eq "lib-man-$m" "" "$(mandoc -Tlint -W warning "$TOP/man/$m" 2>&1)"
done
