#!/bin/sh
# t-traceql-xentrace.sh - traceql import --xentrace: tests/xentrace/basic.xt
# (gen.py writes it from the t_rec layout: CPU windows, records with and
# without TSC, lost records, 0 to 7 data words) named and rendered through
# tests/xentrace/formats gives basic.out, and without --formats
# basic-noformats.out; xen.xt, one record of each event of formats-xen (lines
# of Xen's own formats file: names with ':' and spaces, CPUID), gives xen.out;
# each bad-NAME.xt and bad formats file fails with the message in bad.err
# and adds nothing (a lost records record without a count was 0 lost; a CPU
# change record inside a window, bad-inside*.xt, was taken as the next
# window's); a re-import adds nothing; a file that ends inside a window or
# a record (being written) imports its whole records and leaves the rest for
# the next import, standard input fails on it; pairs matches VMEXIT with
# VMENTRY by CPU; a formats line past the line cap ($TRACEQL_TEST_MAX_LINE)
# fails at its line; CR LF formats lines read as LF ones, a CR or a NUL
# inside a line fails at it; a TSC that steps back renders reltsc negative,
# and the flags of integer conversions render, as Python does (tsc-back.xt,
# formats-back); so do %c and the length modifiers h, l, L (chars.xt);
# buffer wrap records are no rows, counted (wrap.xt); --formats - is
# standard input; event ids are Python 3 integers.
# TRACEQL_UPDATE_GOLDEN=1 rewrites the .out and .err files instead of comparing.
. "$(dirname "$0")/lib/common.sh"

TQ=$B/traceql
D=$TOP/tests/xentrace
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
Q="select id, time, mono, pid, tid, seq, event, message, a0, a1, a2, a3, a4, a5, a6, a7, a8
   from events order by id"

golden() {      # NAME FILE [--formats FILE]
        name=$1 file=$2
        shift 2
        rm -f "$T/db"
        $RUN "$TQ" --db "$T/db" import --xentrace "$file" "$@"
        { $TQ --db "$T/db" --no-sync --format csv "$Q"
          $TQ --db "$T/db" --no-sync --format csv "select * from event_args order by event, pos"
        } > "$T/got"
        [ "$update" = 1 ] && cp "$T/got" "$name.out"
        check_file "xentrace-$name" "$name.out" "$T/got"
}
golden xen xen.xt --formats formats-xen
golden basic-noformats basic.xt
golden basic basic.xt --formats formats

$RUN "$TQ" --db "$T/db" import --xentrace basic.xt --formats formats
check_eq xentrace-reimport-adds-nothing 9 \
        "$($TQ --db "$T/db" --no-sync --format csv 'select count(*) from events' | tail -n 1)"
$TQ --db "$T/db" --no-sync --format csv pairs --begin VMEXIT:cpu --end VMENTRY:cpu \
        --sql "select begin_id || '-' || end_id from tq_pairs" > "$T/pairs"
check_eq xentrace-pairs-by-cpu 1-2 "$(tail -n 1 "$T/pairs")"

# xentrace writes a window at a time, and the file often ends inside one,
# and inside a record: each import stores the whole records and leaves the
# one cut short for the next, saying so, which stores it once it is complete.
# basic.xt grows to end in a CPU change record's header, in its data words,
# in a record of a window (the window's other records imported), after a
# record of a window, in another record, then whole: the rows of a one-shot
# import.
$TQ --db "$T/db" --no-sync --format csv "$Q" > "$T/whole"
: > "$T/cut.xt"
: > "$T/err"
at=0
for to in 2 66 82 112 150 216; do
        tail -c +$((at + 1)) basic.xt | head -c $((to - at)) >> "$T/cut.xt"
        at=$to
        rc=0
        $RUN "$TQ" --db "$T/cut.db" import --xentrace "$T/cut.xt" --formats formats \
                2>> "$T/err" || rc=$?
        echo "exit $rc, $($TQ --db "$T/cut.db" --no-sync --format csv \
                'select count(*) from events' | tail -n 1) rows" >> "$T/err"
done
cat > "$T/exp" <<OUT
traceql: $T/cut.xt: an unfinished last record (2 bytes) is left for the next import
exit 0, 0 rows
traceql: $T/cut.xt: an unfinished last record (6 bytes) is left for the next import
exit 0, 3 rows
traceql: $T/cut.xt: an unfinished last record (10 bytes) is left for the next import
exit 0, 3 rows
exit 0, 5 rows
traceql: $T/cut.xt: an unfinished last record (10 bytes) is left for the next import
exit 0, 6 rows
exit 0, 9 rows
OUT
check_file xentrace-unfinished-record-message "$T/exp" "$T/err"
$TQ --db "$T/cut.db" --no-sync --format csv "$Q" > "$T/got"
check_file xentrace-unfinished-record-later "$T/whole" "$T/got"

# Standard input is read once: a window or a record it ends inside is an
# error, and nothing is stored.
: > "$T/err"
for to in 112 62; do
        rc=0
        head -c $to basic.xt | $RUN "$TQ" --db "$T/in.db" import --xentrace - 2>> "$T/err" ||
                rc=$?
        echo "exit $rc" >> "$T/err"
done
check_eq xentrace-unfinished-record-stdin "traceql: <stdin>:60: CPU window runs past the end of the file|exit 4|traceql: <stdin>:60: truncated record|exit 4|no database" \
        "$(paste -sd '|' "$T/err")|$(nevents "$T/in.db")"

# Standard input is spooled to an unlinked file in $TMPDIR and mapped, as a
# regular file is: 40 MB (3.3 million empty CPU windows, then one of three
# records) under a 10000 KiB data limit (ulimit -d, which a read-only file
# mapping does not count) import every record, and no file is left in
# $TMPDIR.  Standard input was read whole into a buffer that doubled past
# the limit: exit 5, 'out of memory'.  Not under valgrind or a sanitizer,
# whose runtimes need more memory.
if [ -z "${VALGRIND:-}" ] && [ -z "${SANITIZE:-}" ]; then
        python3 -c 'import struct, sys
rec = struct.pack("<III", 0x00021011 | 1 << 28 | 1 << 31, 7, 0) + struct.pack("<I", 5)
sys.stdout.buffer.write(struct.pack("<III", 0x0001f003 | 2 << 28, 0, 0) * 3333333 +
                        struct.pack("<III", 0x0001f003 | 2 << 28, 1, 3 * len(rec)) + rec * 3)' \
                > "$T/big.xt"
        mkdir "$T/spool"
        rc=0
        (ulimit -d 10000; TMPDIR=$T/spool exec "$TQ" --db "$T/big.db" import --xentrace - \
                --formats formats < "$T/big.xt") 2> "$T/err" || rc=$?
        check_eq xentrace-stdin-spooled-flat-memory "0||3|running_to_runnable|" \
                "$rc|$(cat "$T/err")|$($TQ --db "$T/big.db" --no-sync --format csv \
                "select count(*) || '|' || group_concat(distinct event) from events" |
                tail -n 1)|$(ls -A "$T/spool")"
        rm -f "$T/big.xt" "$T"/big.db*
else
        skip xentrace-stdin-spooled-flat-memory "ulimit -d leaves valgrind and the sanitizers no room"
fi

# --formats - reads the formats file from standard input, as --xentrace -
# reads the trace, its errors naming <stdin>; both standard input is a usage
# error, nothing imported.  "-" was opened as a file: "-: No such file or
# directory", exit 4.
rm -f "$T/db"
$RUN "$TQ" --db "$T/db" import --xentrace basic.xt --formats - < formats
{ $TQ --db "$T/db" --no-sync --format csv "$Q"
  $TQ --db "$T/db" --no-sync --format csv "select * from event_args order by event, pos"
} > "$T/got"
check_file xentrace-formats-stdin basic.out "$T/got"
rc=0
$RUN "$TQ" --db "$T/in.db" import --xentrace basic.xt --formats - < bad-formats-key \
        2> "$T/err" || rc=$?
check_eq xentrace-formats-stdin-error "4|traceql: <stdin>:3: bad conversion '%(8)d' (keys: cpu, tsc, reltsc, event, 1 to 7)|no database" \
        "$rc|$(cat "$T/err")|$(nevents "$T/in.db")"
rc=0
$RUN "$TQ" --db "$T/in.db" import --xentrace - --formats - < basic.xt 2> "$T/err" || rc=$?
check_eq xentrace-formats-stdin-twice "2|traceql: --formats -: standard input is the trace (--xentrace -)|no database" \
        "$rc|$(cat "$T/err")|$(nevents "$T/in.db")"

# %c renders as Python 3's does (chars.out is its output, but for the
# second line: Python fails on those values): UTF-8, padded to the width in
# characters, the other flags and the precision ignored; 0, a surrogate and
# a value past U+10FFFF as U+FFFD.  The length modifiers h, l and L are
# accepted and ignored, as Python's.  %c was C's of the low byte ("," for
# 300, the rest cut at a NUL), and "%(1)ld" a bad conversion.
rm -f "$T/db"
$RUN "$TQ" --db "$T/db" import --xentrace chars.xt --formats formats-back
$TQ --db "$T/db" --no-sync --format csv "select message from events order by id" |
        tail -n +2 > "$T/got"
check_file xentrace-formats-char-and-length chars.out "$T/got"

# Buffer wrap records (wrap.xt: one with a TSC, one without) are Xen's
# padding, their data words never written: no rows, counted on stderr; the
# TSC of one is the reltsc base of the next record on its CPU, as in
# xentrace_format; a re-import adds nothing and says nothing.  They were
# rows, 'wrap_buffer' with the buffer's stale words as arguments.
rm -f "$T/db"
$RUN "$TQ" --db "$T/db" import --xentrace wrap.xt --formats formats 2> "$T/err"
$RUN "$TQ" --db "$T/db" import --xentrace wrap.xt --formats formats 2>> "$T/err"
cat > "$T/exp" <<OUT
traceql: wrap.xt: 2 buffer wrap records skipped (Xen's padding, its data words never written)
OUT
check_file xentrace-wrap-skipped-message "$T/exp" "$T/err"
$TQ --db "$T/db" --no-sync --format csv "select seq, event, message, a0, a1, a2 from events
        order by id" > "$T/got"
cat > "$T/exp" <<OUT
seq,event,message,a0,a1,a2
1,VMENTRY,CPU0  1000 (+       0)  VMENTRY,0,1000,
2,VMENTRY,CPU0  1300 (+     200)  VMENTRY,0,1300,
3,running_to_runnable,CPU1  5000 (+       0)  running_to_runnable [ dom:vcpu = 0x00010002 ],1,5000,65538
OUT
check_file xentrace-wrap-no-rows "$T/exp" "$T/got"

# formats-xen has Xen's id-0 line: ids it does not name are rendered by it,
# as xentrace_format does, and keep their xen_<id> names.
golden basic-unknown basic.xt --formats formats-xen
# A TSC from 2^63 up is rendered unsigned, as Python renders it.
golden tsc-high tsc-high.xt --formats formats
# A TSC that steps back on its CPU makes reltsc negative, and Python renders
# it so under each conversion (tsc-back.out is xentrace_format's output): it
# was rendered as 2^64 - 5.  So are the flags '+', ' ', '#' (0x0), '0' with
# a precision, a precision of 0 for 0, and s's precision and '0': C's
# conversions of an unsigned number dropped them.
# Event ids are read as xentrace_format's eval() of Python 3 reads them:
# decimal, 0x, 0o, 0b, upper case, '_' between digits and after the prefix
# (strtoull() stopped at the '_'); 010 (bad-formats-octal) is an error, not 8.
sed -e 's/^0x00021011/135_185/' -e 's/^0x00028004/0b10_1000_0000_0000_0100/' \
    -e 's/^0x00081002/0o2010002/' -e 's/^0x00082001/0X0008_2001/' \
    -e 's/^0x00081001/0x_00081001/' formats > "$T/formats-ids"
rm -f "$T/db"
$RUN "$TQ" --db "$T/db" import --xentrace basic.xt --formats "$T/formats-ids"
{ $TQ --db "$T/db" --no-sync --format csv "$Q"
  $TQ --db "$T/db" --no-sync --format csv "select * from event_args order by event, pos"
} > "$T/got"
check_file xentrace-formats-python-ids basic.out "$T/got"
rm -f "$T/db"
$RUN "$TQ" --db "$T/db" import --xentrace tsc-back.xt --formats formats-back
$TQ --db "$T/db" --no-sync --format csv "select message from events order by id" |
        tail -n +2 | tr -d '"' > "$T/got"
check_file xentrace-reltsc-negative tsc-back.out "$T/got"

: > "$T/bad"
for f in bad-*.xt; do
        rc=0
        $RUN "$TQ" --db "$T/bad.db" import --xentrace "$f" 2>> "$T/bad" || rc=$?
        [ "$rc" = 4 ] || echo "$f: exit $rc" >> "$T/bad"
done
for f in bad-formats-*; do
        rc=0
        $RUN "$TQ" --db "$T/bad.db" import --xentrace basic.xt --formats "$f" 2>> "$T/bad" || rc=$?
        [ "$rc" = 4 ] || echo "$f: exit $rc" >> "$T/bad"
done
rc=0
$TQ --db "$T/bad.db" import --formats formats 2>> "$T/bad" || rc=$?
echo "exit $rc" >> "$T/bad"
[ "$update" = 1 ] && cp "$T/bad" bad.err
check_file xentrace-bad-files bad.err "$T/bad"
check_eq xentrace-bad-imports-nothing "no database" \
        "$(nevents "$T/bad.db")"
# A formats file that cannot be read (a directory) fails; it imported the
# trace as if no --formats had been given, and exited 0.
mkdir "$T/formats.d"
rc=0
$RUN "$TQ" --db "$T/bad.db" import --xentrace basic.xt --formats "$T/formats.d" 2> "$T/err" || rc=$?
check_eq xentrace-formats-directory "4|traceql: $T/formats.d: Is a directory|no database" \
        "$rc|$(cat "$T/err")|$(nevents "$T/bad.db")"
# A formats file's line holds no more than a text import's (256 MiB, 100
# bytes here): a longer one fails at its line, nothing imported, rather than
# being read whole into memory (getline() had no cap).  100 bytes before the
# newline are not too long; 101 are.
export TRACEQL_TEST_MAX_LINE=100
l100=$(printf '0x00021011 CPU%%(cpu)d %%(1)d %072d' 0)
{ echo '# a formats file'; echo "$l100"; } > "$T/cap-formats"
rc=0
$RUN "$TQ" --db "$T/cap.db" import --xentrace basic.xt --formats "$T/cap-formats" 2> /dev/null || rc=$?
check_eq xentrace-formats-line-at-cap "0|100" "$rc|$(sed -n 2p "$T/cap-formats" | tr -d '\n' | wc -c)"
{ echo '# a formats file'; echo "${l100}0"; } > "$T/cap-formats"
rc=0
$RUN "$TQ" --db "$T/cap2.db" import --xentrace basic.xt --formats "$T/cap-formats" 2> "$T/err" || rc=$?
check_eq xentrace-formats-line-too-long \
        "4|traceql: $T/cap-formats:2: line too long (more than 100 bytes without a newline)|no database" \
        "$rc|$(cat "$T/err")|$(nevents "$T/cap2.db")"
# The CR of a CRLF line, which goes, is not one of them: the CRLF line of
# 100 bytes is read as its LF twin; 101 bytes and the CRLF are too many.
# The CR was counted: the CRLF line of 100 bytes was too long.
printf '# a formats file\r\n%s\r\n' "$l100" > "$T/cap-formats"
rc=0
$RUN "$TQ" --db "$T/cap3.db" import --xentrace basic.xt --formats "$T/cap-formats" 2> /dev/null || rc=$?
check_eq xentrace-formats-crlf-line-at-cap "0|$($TQ --db "$T/cap.db" --no-sync --format csv \
        'select group_concat(message, char(10)) from events' | tail -n +2)" \
        "$rc|$($TQ --db "$T/cap3.db" --no-sync --format csv \
        'select group_concat(message, char(10)) from events' | tail -n +2)"
printf '# a formats file\r\n%s0\r\n' "$l100" > "$T/cap-formats"
rc=0
$RUN "$TQ" --db "$T/cap2.db" import --xentrace basic.xt --formats "$T/cap-formats" 2> "$T/err" || rc=$?
check_eq xentrace-formats-crlf-line-too-long \
        "4|traceql: $T/cap-formats:2: line too long (more than 100 bytes without a newline)|no database" \
        "$rc|$(cat "$T/err")|$(nevents "$T/cap2.db")"
unset TRACEQL_TEST_MAX_LINE
# Without the tests' cap, a formats file's line holds 64 KiB, not a text
# import's 256 MiB: a valid one is far shorter (a format over 1024 bytes is
# an error).  A comment of 65536 bytes is not too long; 65537 are, nothing
# imported.  A line was read up to 256 MiB into memory.
{ printf '#%065535d\r\n' 0; echo "$l100"; } > "$T/cap-formats"
rc=0
$RUN "$TQ" --db "$T/cap4.db" import --xentrace basic.xt --formats "$T/cap-formats" 2> /dev/null || rc=$?
check_eq xentrace-formats-line-at-64k "0|$($TQ --db "$T/cap.db" --no-sync --format csv \
        'select group_concat(message, char(10)) from events' | tail -n +2)" \
        "$rc|$($TQ --db "$T/cap4.db" --no-sync --format csv \
        'select group_concat(message, char(10)) from events' | tail -n +2)"
{ printf '#%065536d\n' 0; echo "$l100"; } > "$T/cap-formats"
rc=0
$RUN "$TQ" --db "$T/cap2.db" import --xentrace basic.xt --formats "$T/cap-formats" 2> "$T/err" || rc=$?
check_eq xentrace-formats-line-past-64k \
        "4|traceql: $T/cap-formats:1: line too long (more than 65536 bytes without a newline)|no database" \
        "$rc|$(cat "$T/err")|$(nevents "$T/cap2.db")"

# A formats file with CR LF line ends renders the rows of its LF twin, and a
# last line that ends in a CR (its LF not written) reads as one ending in
# CR LF.  A CR before the line's end, which a file with CR line ends has at
# each line, is an error at its line, in a comment too, nothing imported:
# the line was cut at it, the rest of the format dropped, silently (a
# CR-ended file read as its first line).
sed 's/$/\r/' formats > "$T/crlf-formats"
rm -f "$T/db"
$RUN "$TQ" --db "$T/db" import --xentrace basic.xt --formats "$T/crlf-formats"
{ $TQ --db "$T/db" --no-sync --format csv "$Q"
  $TQ --db "$T/db" --no-sync --format csv "select * from event_args order by event, pos"
} > "$T/got"
check_file xentrace-formats-crlf basic.out "$T/got"
{ cat formats; printf '0x00081001  CPU%%(cpu)d  VMENTRY [ at %%(tsc)d ]\r'; } > "$T/cr-last-formats"
rm -f "$T/db"
$RUN "$TQ" --db "$T/db" import --xentrace basic.xt --formats "$T/cr-last-formats"
check_eq xentrace-formats-cr-last-line "CPU0  VMENTRY [ at 1250 ]|CPU0  VMENTRY [ at 6000 ]" \
        "$($TQ --db "$T/db" --no-sync --format csv \
        "select message from events where event = 'VMENTRY' order by id" | tail -n +2 |
        paste -sd '|')"
: > "$T/err"
for line in '0x00081001  CPU%(cpu)d  VMENTRY\r[ %(1)d ]' '# a formats file\r0x00081001 VMENTRY' \
            '0x00081001  CPU%(cpu)d  VMENTRY \r\r'; do
        { cat formats; printf '%s\r\n' "$line" | sed 's/\\r/\r/g'; } > "$T/cr-formats"
        rc=0
        $RUN "$TQ" --db "$T/cr.db" import --xentrace basic.xt --formats "$T/cr-formats" \
                2>> "$T/err" || rc=$?
        echo "exit $rc" >> "$T/err"
done
cat > "$T/exp" <<OUT
traceql: $T/cr-formats:8: carriage return inside the line (lines end in LF or CR LF)
exit 4
traceql: $T/cr-formats:8: carriage return inside the line (lines end in LF or CR LF)
exit 4
traceql: $T/cr-formats:8: carriage return inside the line (lines end in LF or CR LF)
exit 4
OUT
check_file xentrace-formats-cr-inside-line "$T/exp" "$T/err"
check_eq xentrace-formats-cr-imports-nothing "no database" \
        "$(nevents "$T/cr.db")"
# A NUL byte in a line is an error at its line, nothing imported: the
# format was cut at it, silently.
{ cat formats; printf '0x00081001  CPU%%(cpu)d  VMENTRY\0[ %%(1)d ]\n'; } > "$T/nul-formats"
rc=0
$RUN "$TQ" --db "$T/nul.db" import --xentrace basic.xt --formats "$T/nul-formats" 2> "$T/err" ||
        rc=$?
check_eq xentrace-formats-nul-byte "4|traceql: $T/nul-formats:8: NUL byte in a line|no database" \
        "$rc|$(cat "$T/err")|$(nevents "$T/nul.db")"
