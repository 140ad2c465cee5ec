#!/bin/sh
# t-lib-symbols.sh - the library exports only the tj_* API: from the shared
# library (version script) and from the static one (hidden symbols made
# local), so a program with its own 'config' or 'ring_new' links and runs.
. "$(dirname "$0")/lib/common.sh"

got=$(nm -D --defined-only "$B/libtracejournal.so" | awk 'NF == 3 && $3 !~ /^tj_/ && $3 !~ /^TRACEJOURNAL_/ { print $3 }')
check_eq lib-symbols-so "" "$got"
got=$(nm -g --defined-only "$B/libtracejournal.a" | awk 'NF == 3 && $3 !~ /^tj_/ { print $3 }')
check_eq lib-symbols-static "" "$got"

cat > "$T/clash.c" <<'SRC'
#include <stdio.h>
#include <tracejournal.h>
int config = 42;
int ring_new(void) { return 7; }
int writer_start(void) { return 8; }
int main(void)
{
        tj_set_outputs("nop");
        tj_init("clash");
        printf("%d %d %d %d\n", config, ring_new(), writer_start(), tj_enable("nosuch"));
        return 0;
}
SRC
if ${CC:-cc} -std=gnu11 -Wall -Wextra -Werror -I"$TOP/include" -o "$T/clash" "$T/clash.c" \
        "$B/libtracejournal.a" $SAN_FLAGS -lsystemd -lpthread 2> "$T/err"; then
        check_eq lib-symbols-no-clash "42 7 8 -2" "$("$T/clash")"
else
        fail lib-symbols-no-clash "$(head -3 "$T/err")"
fi
