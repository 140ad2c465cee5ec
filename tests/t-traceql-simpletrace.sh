#!/bin/sh
# t-traceql-simpletrace.sh - traceql import --simpletrace: the crafted files
# of tests/simpletrace/ (gen.py writes them from the v4 layout) give the rows
# of basic.out; each bad-NAME.st fails with the message in bad.err and adds
# nothing; a re-import adds nothing; a file that ends inside a record (being
# written) imports its whole records and leaves that one for the next import,
# standard input fails on it; the library's own simple output comes back with
# the same arguments and messages; leaks works on the rows; no memory for an
# id mapped again leaks nothing.
# TRACEQL_UPDATE_GOLDEN=1 rewrites basic.out and bad.err instead of comparing.
. "$(dirname "$0")/lib/common.sh"

TQ=$B/traceql
D=$TOP/tests/simpletrace
EV=$D/tgroup.trace-events
cd "$D"
update=${TRACEQL_UPDATE_GOLDEN:-}
# The number of events in DB, or "no database": an import that fails having
# stored nothing leaves no database where there was none.
nevents() {
        if [ -e "$1" ]; then
                $TQ --db "$1" --no-sync --format csv 'select count(*) from events' | tail -n 1
        else
                echo "no database"
        fi
}

$RUN "$TQ" --db "$T/b.db" import --simpletrace basic.st --events "$EV"
$TQ --db "$T/b.db" --no-sync --format csv \
        "select id, time, mono, pid, tid, seq, event, message, a0, a1, a2, a3, a4, a5,
                typeof(a0) || typeof(a2) from events order by id" > "$T/got"
$TQ --db "$T/b.db" --no-sync --format csv "select * from event_args order by event, pos" >> "$T/got"
$TQ --db "$T/b.db" --no-sync --format csv "select req, sector, name from tgb_req" >> "$T/got"
[ "$update" = 1 ] && cp "$T/got" basic.out
check_file simpletrace-basic basic.out "$T/got"

$RUN "$TQ" --db "$T/b.db" import --simpletrace basic.st --events "$EV"
check_eq simpletrace-reimport-adds-nothing 7 \
        "$($TQ --db "$T/b.db" --no-sync --format csv 'select count(*) from events' | tail -n 1)"

check_eq simpletrace-losses "seq_gap,,,42,,3,seq 4..6,|tj_dropped,,,42,,3,1 report," \
        "$($TQ --db "$T/b.db" --no-sync --format csv losses | tail -n +2 | paste -sd '|')"

rc=0
$TQ --db "$T/b.db" --no-sync --format csv leaks --alloc tgb_req:req --free tgb_done:req \
        --sql "select count(*) from tq_leaks" > "$T/leaks" || rc=$?
check_eq simpletrace-leaks-none "0|0" "$rc|$(tail -n 1 "$T/leaks")"

: > "$T/bad"
for f in bad-*.st; do
        rc=0
        $RUN "$TQ" --db "$T/bad.db" import --simpletrace "$f" --events "$EV" 2>> "$T/bad" || rc=$?
        [ "$rc" = 4 ] || echo "$f: exit $rc" >> "$T/bad"
done
[ "$update" = 1 ] && cp "$T/bad" bad.err
check_file simpletrace-bad-files bad.err "$T/bad"
check_eq simpletrace-bad-imports-nothing "no database" "$(nevents "$T/bad.db")"

# A file being written ends inside a record (QEMU's writeout thread and the
# library's simple output write through stdio buffers): each import stores
# the whole records and leaves the one cut short for the next, saying so,
# which stores it once it is complete.  basic.st grows to end in the header,
# in a record's type word, in the middle of the arguments, inside a string
# argument, then whole: the rows of a one-shot import.
Q="select seq, event, message, a0, a1, a2, a3, a4, a5, pid, mono from events order by id"
$TQ --db "$T/b.db" --no-sync --format csv "$Q" > "$T/whole"
: > "$T/cut.st"
: > "$T/err"
at=0
for to in 10 107 141 160 478; do
        tail -c +$((at + 1)) basic.st | head -c $((to - at)) >> "$T/cut.st"
        at=$to
        rc=0
        $RUN "$TQ" --db "$T/cut.db" import --simpletrace "$T/cut.st" --events "$EV" \
                2>> "$T/err" || rc=$?
        echo "exit $rc, $($TQ --db "$T/cut.db" --no-sync --format csv \
                'select count(*) from events' | tail -n 1) rows" >> "$T/err"
done
cat > "$T/exp" <<OUT
traceql: $T/cut.st: an unfinished last record (10 bytes) is left for the next import
exit 0, 0 rows
traceql: $T/cut.st: an unfinished last record (2 bytes) is left for the next import
exit 0, 1 rows
traceql: $T/cut.st: an unfinished last record (36 bytes) is left for the next import
exit 0, 1 rows
traceql: $T/cut.st: an unfinished last record (55 bytes) is left for the next import
exit 0, 1 rows
exit 0, 7 rows
OUT
check_file simpletrace-unfinished-record-message "$T/exp" "$T/err"
$TQ --db "$T/cut.db" --no-sync --format csv "$Q" > "$T/got"
check_file simpletrace-unfinished-record-later "$T/whole" "$T/got"

# Standard input is read once: a record it ends inside is an error, and
# nothing is stored; whole, it is imported.
head -c 141 basic.st > "$T/cut.st"
rc=0
$RUN "$TQ" --db "$T/in.db" import --simpletrace - --events "$EV" < "$T/cut.st" 2> "$T/err" || rc=$?
$RUN "$TQ" --db "$T/in.db" import --simpletrace - --events "$EV" < basic.st 2>> "$T/err"
check_eq simpletrace-unfinished-record-stdin "4|traceql: <stdin>:105: truncated event record|7" \
        "$rc|$(cat "$T/err")|$($TQ --db "$T/in.db" --no-sync --format csv \
        'select count(*) from events' | tail -n 1)"

# The same for a mapping, and for a record type word, standard input ends in.
for cut in 27:record 36:event-mapping; do
        rc=0
        head -c "${cut%%:*}" basic.st | $RUN "$TQ" --db "$T/in2.db" import --simpletrace - \
                --events "$EV" 2> "$T/err" || rc=$?
        what=$(echo "${cut#*:}" | tr - ' ')
        check_eq "simpletrace-stdin-ends-in-${cut#*:}" "4|traceql: <stdin>:24: truncated $what|no database" \
                "$rc|$(cat "$T/err")|$(nevents "$T/in2.db")"
done

# Standard input is spooled to an unlinked file in $TMPDIR and mapped, as a
# regular file is, so the memory it takes does not grow with it: 10000
# records of 4 KiB (40 MB) under a 10000 KiB data limit (ulimit -d: the
# heap and anonymous mappings; a read-only file mapping is not counted, as
# it is in ulimit -v, which the mapping needs room in) import every record,
# and no file is left in $TMPDIR.  Standard input was read whole into a
# buffer that doubled past the limit: exit 5, 'out of memory'.  Not under
# valgrind or a sanitizer, whose runtimes need more memory.
if [ -z "${VALGRIND:-}" ] && [ -z "${SANITIZE:-}" ]; then
        python3 -c 'import struct, sys
name = b"n" * 4000
rec = b"".join(struct.pack("<QQQIIQQI", 1, 0, 1000 * (i + 1), 24 + 20 + len(name), 42, i, i,
                           len(name)) + name for i in range(1000))
sys.stdout.buffer.write(struct.pack("<QQQ", 2**64 - 1, 0xf2b177cb0aa429b4, 4) +
                        struct.pack("<QQI", 0, 0, 7) + b"tgb_req" + rec * 10)' > "$T/big.st"
        mkdir "$T/spool"
        rc=0
        (ulimit -d 10000; TMPDIR=$T/spool exec "$TQ" --db "$T/big.db" import --simpletrace - \
                --events "$EV" < "$T/big.st") 2> "$T/err" || rc=$?
        check_eq simpletrace-stdin-spooled-flat-memory "0||10000|40000000|" \
                "$rc|$(cat "$T/err")|$($TQ --db "$T/big.db" --no-sync --format csv \
                "select count(*) || '|' || sum(length(a2)) from events" | tail -n 1)|$(ls -A "$T/spool")"
        rm -f "$T/big.st" "$T"/big.db*
else
        skip simpletrace-stdin-spooled-flat-memory "ulimit -d leaves valgrind and the sanitizers no room"
fi
# A file that shrinks under the import (TRACEQL_TEST_SHRINK_TO truncates it
# once it is mapped): to 0, the parser's first read is past the end (SIGBUS);
# by one byte, its last page is still mapped and the size tells.  Either way
# exit 4, the message, and nothing stored.
for to in 0 477; do
        cp basic.st "$T/shrink.st"
        rc=0
        TRACEQL_TEST_SHRINK_TO=$to $RUN "$TQ" --db "$T/shrink.db" import --simpletrace \
                "$T/shrink.st" --events "$EV" 2> "$T/err" || rc=$?
        check_eq "simpletrace-shrinks-to-$to" "4|traceql: $T/shrink.st: the file shrank while being read (478 bytes mapped): nothing imported|no database" \
                "$rc|$(cat "$T/err")|$(nevents "$T/shrink.db")"
done

# A file replaced by another one, longer than the part imported: imported
# from the start, as a new file; then appended to, only the new record.
st() {  # st FILE REQ...: a file of tgb_done events with these req values
        f=$1; shift
        python3 -c 'import struct, sys
d = struct.pack("<QQQ", 2**64 - 1, 0xf2b177cb0aa429b4, 4) + struct.pack("<QQI", 0, 0, 8) + b"tgb_done"
for i, a in enumerate(sys.argv[2:]):
    d += struct.pack("<QQQIIQ", 1, 0, 1000 * (i + 1), 32, 42, int(a))
open(sys.argv[1], "wb").write(d)' "$f" "$@"
}
st "$T/r.st" 1 2 3
$RUN "$TQ" --db "$T/r.db" import --simpletrace "$T/r.st" --events "$EV"
rm "$T/r.st"
st "$T/r.st" 11 12 13 14 15
$RUN "$TQ" --db "$T/r.db" import --simpletrace "$T/r.st" --events "$EV" 2> "$T/err"
$RUN "$TQ" --db "$T/r.db" import --simpletrace "$T/r.st" --events "$EV" 2>> "$T/err"
python3 -c 'import struct, sys
open(sys.argv[1], "ab").write(struct.pack("<QQQIIQ", 1, 0, 6000, 32, 42, 16))' "$T/r.st"
$RUN "$TQ" --db "$T/r.db" import --simpletrace "$T/r.st" --events "$EV" 2>> "$T/err"
check_eq simpletrace-replaced-file "traceql: $T/r.st: not the file imported before (replaced or rotated): importing it from the start|1 2 3 11 12 13 14 15 16" \
        "$(cat "$T/err")|$($TQ --db "$T/r.db" --no-sync --format csv \
        "select group_concat(a0, ' ') from (select a0 from events order by id)" | tail -n 1)"

# The same file renamed (a second trace kept under another name) and
# appended to: only the new record, saying where it resumes.
python3 -c 'import struct, sys
open(sys.argv[1], "ab").write(struct.pack("<QQQIIQ", 1, 0, 7000, 32, 42, 17))' "$T/r.st"
mv "$T/r.st" "$T/r.st.1"
$RUN "$TQ" --db "$T/r.db" import --simpletrace "$T/r.st.1" --events "$EV" 2> "$T/err"
check_eq simpletrace-renamed-file "traceql: $T/r.st.1: the file imported before as $T/r.st (renamed): resuming at byte 292|1 2 3 11 12 13 14 15 16 17" \
        "$(cat "$T/err")|$($TQ --db "$T/r.db" --no-sync --format csv \
        "select group_concat(a0, ' ') from (select a0 from events order by id)" | tail -n 1)"

rc=0
$TQ --db "$T/u.db" import --simpletrace basic.st > /dev/null 2> "$T/err" || rc=$?
check_eq simpletrace-needs-events "2|traceql: --simpletrace needs --events TRACE-EVENTS" \
        "$rc|$(cat "$T/err")"
printf 'tgb_req(float x) "%%f"\n' > "$T/te"
rc=0
$TQ --db "$T/u.db" import --simpletrace basic.st --events "$T/te" > /dev/null 2> "$T/err" || rc=$?
check_eq simpletrace-bad-events "4|traceql: $T/te:1:9: unknown type 'float'" "$rc|$(cat "$T/err")"

# The library's simple output, read back: same rows as the journald contract.
TJ_OUTPUT=simple TJ_SIMPLE_FILE="$T/lib.st" TJ_EVENTS='tg*' \
        "$B/tests/lib-emit" init req:2 void all flush > /dev/null
$RUN "$TQ" --db "$T/lib.db" import --simpletrace "$T/lib.st" --events "$EV"
$TQ --db "$T/lib.db" --no-sync --format csv \
        "select seq, event, message, a0, a1, a2, a4, a5 from events
         where seq < 8 order by seq" > "$T/got"
cat > "$T/exp" <<'OUT'
seq,event,message,a0,a1,a2,a4,a5
1,tgb_req,tgb_req req 0x1000 sector 0 name r0,4096,0,r0,,
2,tgb_req,tgb_req req 0x1001 sector 1 name r1,4097,1,r1,,
3,tga_void,tga_void nothing,,,,,
4,tga_all,tga_all i64 -9223372036854775808 u64 18446744073709551615 ptr (nil) s  i32 -1 u8 255,-9223372036854775808,-1,0,-1,255
5,tga_all,tga_all i64 9223372036854775807 u64 0 ptr 0xdeadbeefcafe s  i32 0 u8 0,9223372036854775807,0,244837814094590,0,0
6,tga_all,"tga_all i64 -42 u64 42 ptr 0xffffffffffffffff s line1
line2 i32 -2147483648 u8 1",-42,42,-1,-2147483648,1
7,tga_all,"tga_all i64 0 u64 1 ptr 0x1 s a=b
TRACE_EVENT=forged
MESSAGE=x i32 2147483647 u8 7",0,1,1,2147483647,7
OUT
check_file simpletrace-library-output "$T/exp" "$T/got"
# A NULL string is written with length 0, as QEMU does: an empty string.
check_eq simpletrace-library-null-string "''|text" "$($TQ --db "$T/lib.db" --no-sync --format csv \
        "select quote(a3) || '|' || typeof(a3) from events where seq = 5" | tail -n 1)"

rc=0
$TQ --db "$T/u.db" import --simpletrace basic.st --ftrace x --events "$EV" 2> "$T/err" || rc=$?
check_eq import-one-source "2|traceql: import takes one source (--export, --directory, --file, --simpletrace, --ftrace or --xentrace)" \
        "$rc|$(cat "$T/err")"
rc=0
$TQ --db "$T/u.db" import --xentrace basic.st --since now 2> "$T/err" || rc=$?
check_eq import-file-no-filter "2|traceql: a trace file import takes no filter and no --follow" \
        "$rc|$(cat "$T/err")"
rc=0
$TQ --db "$T/u.db" --events "$EV" 'select 1' 2> "$T/err" || rc=$?
check_eq import-options-need-import "2|traceql: import options given without 'import'" "$rc|$(cat "$T/err")"

# No memory for the new name of an id mapped again (here not the last id
# mapped): exit 5 and nothing leaked.  The failure dropped the last mapping
# from the list instead, so its name was never freed (memcheck: definitely
# lost).  strndup() fails for that name alone, through a preloaded shim.
if command -v valgrind > /dev/null && command -v python3 > /dev/null &&
   [ -z "${SANITIZE:-}" ]; then
        python3 -c 'import struct, sys
def m(eid, name): return struct.pack("<QQI", 0, eid, len(name)) + name
sys.stdout.buffer.write(struct.pack("<QQQ", 2**64 - 1, 0xf2b177cb0aa429b4, 4) +
                        m(0, b"tgb_req") + m(1, b"tgb_done") + m(0, b"zz_remap"))' > "$T/remap.st"
        cat > "$T/shim.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <string.h>

char *strndup(const char *s, size_t n)
{
        char *(*real)(const char *, size_t) =
                (char *(*)(const char *, size_t))dlsym(RTLD_NEXT, "strndup");

        if (n >= 8 && memcmp(s, "zz_remap", 8) == 0) {
                errno = ENOMEM;
                return NULL;
        }
        return real(s, n);
}
C
        ${CC:-cc} -shared -fPIC -o "$T/shim.so" "$T/shim.c" -ldl
        rc=0
        LD_PRELOAD=$T/shim.so valgrind -q --leak-check=full --errors-for-leak-kinds=definite \
                --show-leak-kinds=definite --error-exitcode=99 --log-file="$T/vg.log" \
                "$TQ" --db "$T/remap.db" import --simpletrace "$T/remap.st" --events "$EV" \
                2> "$T/err" || rc=$?
        check_eq simpletrace-remap-nomem-no-leak "5|traceql: out of memory|" \
                "$rc|$(cat "$T/err")|$(grep -o '[0-9,]* bytes in [0-9,]* blocks are definitely lost' "$T/vg.log" || true)"
else
        skip simpletrace-remap-nomem-no-leak "needs valgrind and python3, no sanitizer"
fi

# The message is rebuilt from the format as C reads it: hex and octal
# escapes and the simple ones are their characters (they were their letters:
# '\x41' read as 'x41').
printf '%s\n' 'tgb_done(void *req) "h\x41 o\102\103 q\? b\\ %p"' > "$T/esc.events"
st "$T/esc.st" 1
$RUN "$TQ" --db "$T/esc.db" import --simpletrace "$T/esc.st" --events "$T/esc.events"
check_eq simpletrace-format-escapes "tgb_done hA oBC q? b\\ 0x1" \
        "$($TQ --db "$T/esc.db" --no-sync --format csv 'select message from events' | tail -n 1)"

# A format past 4 KiB is rendered whole (it was cut at 4 KiB of the decoded
# text, the conversions after the cut not rendered): 1200 universal
# characters (4 bytes each decoded, 4800 bytes) before the conversion.
printf 'tgb_done(void *req) "%s %%p"\n' "$(awk 'BEGIN { for (i = 0; i < 1200; i++) printf "\\U0001F600" }')" \
        > "$T/long.events"
st "$T/long.st" 1
$RUN "$TQ" --db "$T/long.db" import --simpletrace "$T/long.st" --events "$T/long.events"
check_eq simpletrace-format-long "4813|$(printf '\360\237\230\200') 0x1" \
        "$($TQ --db "$T/long.db" --no-sync --format csv "select length(cast(message as blob)) || '|' || substr(message, -5) from events" | tail -n 1)"

# A string is what QEMU's simple backend records by the type as written
# (tracetool's is_string(): it begins with 'const char *' or 'char *' and
# has one '*'), not by the conversion: 'char const *', 'unsigned char *' and
# 'char **' are an address (a u64) even under %s, a 'const char *' under %p
# is its string.  The message
# shows what the file holds.  'char const *' was read as a string: "record
# length 51 does not match the arguments of 'q_types'".
printf '%s\n' 'q_types(char const *a, const char *b, unsigned char *c, const char*d, char **e) "a %s b %p c %s d %s e %p"' \
        > "$T/types.events"
python3 -c 'import struct, sys
a = struct.pack("<QI", 0x1234, 2) + b"bb" + struct.pack("<QI", 0x5678, 1) + b"d" + struct.pack("<Q", 0x9abc)
open(sys.argv[1], "wb").write(struct.pack("<QQQ", 2**64 - 1, 0xf2b177cb0aa429b4, 4) +
                              struct.pack("<QQI", 0, 3, 7) + b"q_types" +
                              struct.pack("<QQQII", 1, 3, 1000, 24 + len(a), 42) + a)' "$T/types.st"
rc=0
$RUN "$TQ" --db "$T/types.db" import --simpletrace "$T/types.st" --events "$T/types.events" \
        2> "$T/err" || rc=$?
check_eq simpletrace-string-by-type "0||\"q_types a 0x1234 b bb c 0x5678 d d e 0x9abc|NULL,bb,NULL,d,39612\"" \
        "$rc|$(cat "$T/err")|$($TQ --db "$T/types.db" --no-sync --format csv \
        "select message || '|' || quote(a0) || ',' || a1 || ',' || quote(a2) || ',' || a3 || ',' || a4 from events" |
        tail -n 1)"
