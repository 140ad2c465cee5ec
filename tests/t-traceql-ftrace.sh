#!/bin/sh
# t-traceql-ftrace.sh - traceql import --ftrace: tests/ftrace/mixed.trace
# (crafted from the tracefs `trace` layout: kernel events, system calls, the
# function tracer, lost events, record-tgid, our marker lines) gives
# mixed.out, typed by --events or from the values alone; qemu.trace and
# qemu-formats.trace, QEMU's ftrace backend lines matched against the
# declared formats (QEMU's hw/scsi and hw/block trace-events from the shared
# corpus for the latter: a trailing space, two numbers with nothing between
# them, '*' widths); tracefs.trace, a
# real capture of lib-emit's ftrace output among kernel events, gives
# tracefs.out, and tracefs-sym.trace (the trace options sym-offset and
# sym-addr on) tracefs-sym.out; each bad-NAME.trace (bad-latency,
# bad-latency-verbose, bad-raw, bad-hex, bad-bin, bad-noctx: real captures
# with the trace options latency-format, verbose, raw, hex, bin on and
# context-info off;
# bad-string-cut, bad-string-cut-escape and bad-number-cut: real captures
# of a marker of ours longer than the kernel keeps, cut in a string, in its
# \x escape and in a number)
# fails with the message in bad.err and adds
# nothing; leaks and pairs work on the rows; the library's ftrace output
# written to a file comes back with its arguments.
# TRACEQL_UPDATE_GOLDEN=1 rewrites the .out and .err files instead of comparing.
. "$(dirname "$0")/lib/common.sh"

TQ=$B/traceql
D=$TOP/tests/ftrace
EV=$TOP/tests/simpletrace/tgroup.trace-events
CORPUS=${CORPUS:-$TOP/../shared/corpus/qemu}   # QEMU's own files, never copied here
cd "$D"
update=${TRACEQL_UPDATE_GOLDEN:-}
Q="select id, time, mono, pid, tid, seq, identifier, event, message, a0, a1, a2, a3, a4, a5, a6
   from events order by id"

golden() {      # NAME FILE [--events FILE]
        name=$1 file=$2
        shift 2
        rm -f "$T/db"
        $RUN "$TQ" --db "$T/db" import --ftrace "$file" "$@"
        { $TQ --db "$T/db" --no-sync --format csv "$Q"
          $TQ --db "$T/db" --no-sync --format csv "select * from event_args order by event, pos"
        } > "$T/got"
        [ "$update" = 1 ] && cp "$T/got" "$name.out"
        check_file "ftrace-$name" "$name.out" "$T/got"
}
golden mixed mixed.trace --events "$EV"
golden mixed-untyped mixed.trace
golden qemu qemu.trace --events "$EV"
golden qemu-formats qemu-formats.trace --events "$CORPUS/hw/scsi/trace-events" \
        --events "$CORPUS/hw/block/trace-events"
golden tracefs tracefs.trace --events "$EV"
# A kernel event has no declaration: the kinds of its arguments are guessed
# from each value (count: 2 is u, count: 0x1000 p), and a guess that differs
# from the event's first is no news.  The import of this real capture said
# "event sys_write: argument count is of kind p in TRACE_ARGS 'fd:u buf:p
# count:p', of kind u in the database's ...", of a TRACE_ARGS the trace
# never had (the fuzz target printed it for most of its inputs).
rm -f "$T/kinds.db"
rc=0
$RUN "$TQ" --db "$T/kinds.db" import --ftrace tracefs.trace 2> "$T/kinds.err" || rc=$?
check_eq ftrace-guessed-kinds-quiet "0||4096" "$rc|$(cat "$T/kinds.err")|$($TQ --db "$T/kinds.db" \
        --no-sync --format csv "select a2 from events where event = 'sys_write' and tid = 7741
                                order by id limit 1" | tail -n 1)"

$RUN "$TQ" --db "$T/db" import --ftrace tracefs.trace --events "$EV"
check_eq ftrace-reimport-adds-nothing 26 \
        "$($TQ --db "$T/db" --no-sync --format csv 'select count(*) from events' | tail -n 1)"
# Real captures with the trace options sym-offset, sym-addr and both on:
# "tracing_mark_write+0x8a/0x170 <ffffffff81498b1a>: ..." failed as "no event
# name"; the same rows as without them.
golden tracefs-sym tracefs-sym.trace --events "$EV"

# --events - reads the trace-events file from standard input, as --ftrace -
# reads the trace (both its catalog and its patterns: standard input read
# once), its errors naming <stdin>; standard input twice, or as the trace
# too, is a usage error, nothing imported.  "-" was opened as a file: "-: No
# such file or directory", exit 4.
rm -f "$T/db"
$RUN "$TQ" --db "$T/db" import --ftrace qemu.trace --events - < "$EV"
{ $TQ --db "$T/db" --no-sync --format csv "$Q"
  $TQ --db "$T/db" --no-sync --format csv "select * from event_args order by event, pos"
} > "$T/got"
check_file ftrace-events-stdin qemu.out "$T/got"
rm -f "$T/ev.db"
rc=0
printf 'x(int a) "%%d"\nbad(\n' |
        $RUN "$TQ" --db "$T/ev.db" import --ftrace qemu.trace --events - 2> "$T/err" || rc=$?
check_eq ftrace-events-stdin-error "4|traceql: <stdin>:2:4: missing ')' to close the argument list|no database" \
        "$rc|$(cat "$T/err")|$([ -e "$T/ev.db" ] && echo database || echo no database)"
for src in ftrace simpletrace; do
        rc=0
        $RUN "$TQ" --db "$T/ev.db" import --$src - --events - < qemu.trace 2> "$T/err" || rc=$?
        check_eq ftrace-events-stdin-is-$src "2|traceql: --events -: standard input is the trace (--$src -)|no database" \
                "$rc|$(cat "$T/err")|$([ -e "$T/ev.db" ] && echo database || echo no database)"
done
rc=0
$RUN "$TQ" --db "$T/ev.db" import --ftrace qemu.trace --events - --events "$EV" --events - \
        < "$EV" 2> "$T/err" || rc=$?
check_eq ftrace-events-stdin-twice "2|traceql: --events -: standard input given twice|no database" \
        "$rc|$(cat "$T/err")|$([ -e "$T/ev.db" ] && echo database || echo no database)"

rm -f "$T/db"
$TQ --db "$T/db" import --ftrace mixed.trace --events "$EV"
rc=0
$TQ --db "$T/db" --no-sync --format csv leaks --alloc tgb_req:req --free tgb_done:req \
        --sql "select count(*) from tq_bad_frees" > "$T/leaks" || rc=$?
check_eq ftrace-leaks-bad-free "0|1" "$rc|$(tail -n 1 "$T/leaks")"
$TQ --db "$T/db" --no-sync --format csv pairs --begin tgb_req:req --end tgb_done:req \
        --sql "select group_concat(latency) from tq_pairs" > "$T/pairs"
check_eq ftrace-pairs-latency 100000 "$(tail -n 1 "$T/pairs")"

: > "$T/bad"
for f in bad-*.trace; do
        rc=0
        $RUN "$TQ" --db "$T/bad.db" import --ftrace "$f" 2>> "$T/bad" || rc=$?
        [ "$rc" = 4 ] || echo "$f: exit $rc" >> "$T/bad"
done
[ "$update" = 1 ] && cp "$T/bad" bad.err
check_file ftrace-bad-files bad.err "$T/bad"
check_eq ftrace-bad-imports-nothing "no database" "$(ls "$T/bad.db"* 2> /dev/null || echo no database)"

# The trace option bin writes binary entries (pid, CPU, timestamp, then
# "type: N\n"): bad-bin failed with "NUL byte in a line", not naming the
# option, and an entry whose pid's low byte is '#' (0x2023 here) was passed
# over up to its newline as a header line: exit 0, nothing said.
printf '# tracer: nop\n#\n\043\040\000\000\000\000\000\000\001\002\003\004\005\000\000\000type: 5\n' \
        > "$T/bin.trace"
rc=0
$RUN "$TQ" --db "$T/bin.db" import --ftrace "$T/bin.trace" 2> "$T/bin.err" || rc=$?
check_eq ftrace-bin-hash-pid "4|traceql: $T/bin.trace:3: binary data (the trace option bin is on): not supported|no database" \
        "$rc|$(cat "$T/bin.err")|$(ls "$T/bin.db"* 2> /dev/null || echo no database)"

# A marker's value is typed by its declared kind as a journal entry's is (a
# value its kind cannot have stays TEXT, as written): i64=9223372036854775808
# was stored as INT64_MIN, u64=-1 as 2^64 - 1, ptr=12 as 12, i32=0x10 as 16;
# and the message showed such a value as the other kind's pattern, or 0.
# The library's own values (signed and unsigned decimal, 0x hex) are typed.
m='  q-4242 [001] ...1.   100.000150: tracing_mark_write: tga_all[4240.'
printf '%s\n' "${m}7]: i64=9223372036854775808 u64=-1 ptr=0x1 s=\"x\" i32=1 u8=1" \
        "${m}8]: i64=1 u64=18446744073709551616 ptr=12 s=\"x\" i32=0x10 u8=1" \
        "${m}9]: i64=-9223372036854775808 u64=18446744073709551615 ptr=0xffffffffffffffff s=\"x\" i32=-5 u8=255" \
        > "$T/declkinds.trace"
$RUN "$TQ" --db "$T/declkinds.db" import --ftrace "$T/declkinds.trace" --events "$EV"
check_eq ftrace-declared-kinds "'9223372036854775808'|'-1'|1|1;tga_all i64 9223372036854775808 u64 -1 ptr 0x1 s x i32 1 u8 1
1|'18446744073709551616'|'12'|'0x10';tga_all i64 1 u64 18446744073709551616 ptr 12 s x i32 0x10 u8 1
-9223372036854775808|-1|-1|-5;tga_all i64 -9223372036854775808 u64 18446744073709551615 ptr 0xffffffffffffffff s x i32 -5 u8 255" \
        "$($TQ --db "$T/declkinds.db" --no-sync --format csv "select quote(a0) || '|' || quote(a1) || '|' ||
                quote(a2) || '|' || quote(a4) || ';' || message as v from events order by id" | tail -n +2)"

# A number at the end of a marker of ours the kernel cut (bad-number-cut,
# 6.18's cut; here 1024 bytes, as before Linux 6.8) was imported with the
# digits that were left, u8=25 for u8=255, without a word.  It fails as a
# cut string does, naming the line; a marker of 1023 bytes, the longest the
# library writes, imports.
mk() {  # WRITTEN KEPT: our marker of WRITTEN bytes ending in u8=255, its first KEPT
        pre='tga_all[1234.5]: i64=1 u64=2 ptr=0x3 s="' post='" i32=4 u8=255'
        printf '# tracer: nop\n  a-1 [000] ..... 1.000000: tracing_mark_write: '
        printf '%s%s%s' "$pre" "$(head -c $(($1 - ${#pre} - ${#post})) /dev/zero | tr '\0' y)" \
                "$post" | head -c $2
        echo
}
for len in 1023 1024; do
        mk $((len == 1023 ? 1023 : 1025)) $len > "$T/numcut.trace"
        rm -f "$T/numcut.db"
        rc=0
        $RUN "$TQ" --db "$T/numcut.db" import --ftrace "$T/numcut.trace" 2> "$T/numcut.err" || rc=$?
        echo "$rc|$(cat "$T/numcut.err")|$($TQ --db "$T/numcut.db" --no-sync --format csv \
                'select a5 from events' 2> /dev/null | tail -n +2)" > "$T/numcut.$len"
done
check_eq ftrace-number-cut "0||255;4|traceql: $T/numcut.trace:2: argument u8=25 of tga_all, not a string, ends a marker of 1024 bytes: its value may be cut short and arguments after it missing (the line cut short? the kernel cuts a marker past about 4 KiB, 1 KiB before Linux 6.8)|" \
        "$(cat "$T/numcut.1023");$(cat "$T/numcut.1024")"
# Cut just after "i32=4", on the space before u8: i32 may be whole, u8 is
# lost, and nothing tells which (i32 may have been 42).  It fails as the
# cut number does, the message saying what may be wrong, not that i32 is
# cut ("argument i32, not a string, ends a marker of 1024 bytes" said neither).
mk 1031 1024 > "$T/numcut.trace"
rm -f "$T/numcut.db"
rc=0
$RUN "$TQ" --db "$T/numcut.db" import --ftrace "$T/numcut.trace" 2> "$T/numcut.err" || rc=$?
check_eq ftrace-number-cut-after "4|traceql: $T/numcut.trace:2: argument i32=4 of tga_all, not a string, ends a marker of 1024 bytes: its value may be cut short and arguments after it missing (the line cut short? the kernel cuts a marker past about 4 KiB, 1 KiB before Linux 6.8)|no database" \
        "$rc|$(cat "$T/numcut.err")|$(ls "$T/numcut.db"* 2> /dev/null || echo no database)"

# Cut inside an argument's name ("u" of u8=255) or just before its '=': it
# failed as a malformed marker, "bad argument in a tracejournal marker
# line", not naming the cut.  It fails as a cut value does; so does a cut
# just after the '=', the value empty.
for cut in name:1029 eq:1028 value:1027; do
        mk ${cut#*:} 1024 > "$T/namecut.trace"
        rm -f "$T/namecut.db"
        rc=0
        $RUN "$TQ" --db "$T/namecut.db" import --ftrace "$T/namecut.trace" 2> "$T/namecut.err" ||
                rc=$?
        echo "${cut%:*} $rc|$(cat "$T/namecut.err")|$(ls "$T/namecut.db"* 2> /dev/null ||
                echo no database)"
done > "$T/namecut.got"
W="(the line cut short? the kernel cuts a marker past about 4 KiB, 1 KiB before Linux 6.8)"
check_eq ftrace-name-cut "name 4|traceql: $T/namecut.trace:2: argument u of tga_all, with no value, ends a marker of 1024 bytes: its name may be cut short, its value and arguments after it missing $W|no database
eq 4|traceql: $T/namecut.trace:2: argument u8 of tga_all, with no value, ends a marker of 1024 bytes: its name may be cut short, its value and arguments after it missing $W|no database
value 4|traceql: $T/namecut.trace:2: argument u8= of tga_all, not a string, ends a marker of 1024 bytes: its value may be cut short and arguments after it missing $W|no database" \
        "$(cat "$T/namecut.got")"

# The kernel's cut falls just after a string's closing quote, or between two
# arguments: the marker of ours ended with whole arguments, and those after
# the cut were missing from the row, exit 0, without a word.  With the
# declaration known (--events), such a marker of 1024 bytes or more with
# fewer arguments than declared fails as a cut value does, naming the
# arguments missing; a marker of 1023 bytes with them all imports.
for cut in quote:1037 space:1030 whole:1023; do
        mk ${cut#*:} $((${cut#*:} < 1024 ? 1023 : 1024)) > "$T/argcut.trace"
        rm -f "$T/argcut.db"
        rc=0
        $RUN "$TQ" --db "$T/argcut.db" import --ftrace "$T/argcut.trace" --events "$EV" \
                2> "$T/argcut.err" || rc=$?
        echo "${cut%:*} $rc|$(cat "$T/argcut.err")|$($TQ --db "$T/argcut.db" --no-sync \
                --format csv 'select a4, a5 from events' 2> /dev/null | tail -n +2)"
done > "$T/argcut.got"
W="(the line cut short? the kernel cuts a marker past about 4 KiB, 1 KiB before Linux 6.8)"
check_eq ftrace-argument-cut "quote 4|traceql: $T/argcut.trace:2: arguments i32, u8 of tga_all missing: a marker of 1024 bytes ends before them $W|
space 4|traceql: $T/argcut.trace:2: argument u8 of tga_all missing: a marker of 1024 bytes ends before it $W|
whole 0||4,255" "$(cat "$T/argcut.got")"

# Without --events nothing tells what such a marker lacks: it was imported,
# its row without i32 and u8, exit 0, without a word.  It still imports as
# it is, but a warning names the first such marker's line and counts the
# others; a whole 1023-byte marker says nothing, nor does the import that
# resumes the file (the markers stored before are not stored again).
mk 1037 1024 > "$T/argcut.trace"
mk 1023 1023 | tail -n 1 >> "$T/argcut.trace"
mk 1030 1024 | tail -n 1 >> "$T/argcut.trace"
mk 1030 1024 | tail -n 1 >> "$T/argcut.trace"
rm -f "$T/argcut.db"
for run in 1 2 3; do
        [ $run = 2 ] && mk 1030 1024 | tail -n 1 >> "$T/argcut.trace"
        [ $run = 3 ] && mk 1023 1023 | tail -n 1 >> "$T/argcut.trace"
        rc=0
        $RUN "$TQ" --db "$T/argcut.db" import --ftrace "$T/argcut.trace" 2> "$T/argcut.err" ||
                rc=$?
        echo "$run $rc|$(cat "$T/argcut.err")|$($TQ --db "$T/argcut.db" --no-sync --format csv \
                "select group_concat(coalesce(a4, '-') || ':' || coalesce(a5, '-'), '/') from
                 (select * from events order by id)" 2> /dev/null | tail -n +2)"
done > "$T/argcut.got"
A="with no declaration (--events) to tell what follows: arguments after it may be missing from its row $W"
check_eq ftrace-argument-cut-undeclared "1 0|traceql: $T/argcut.trace:2: a marker of 1024 bytes ends after argument s of tga_all, $A; 2 more markers end so, the last at line 5|-:-/4:255/4:-/4:-
2 0|traceql: $T/argcut.trace:6: a marker of 1024 bytes ends after argument i32 of tga_all, $A|-:-/4:255/4:-/4:-/4:-
3 0||-:-/4:255/4:-/4:-/4:-/4:255" "$(cat "$T/argcut.got")"

# A marker of ours shorter than a cut one, with fewer arguments than its
# declaration: the library left out the arguments that did not fit in its
# 1024 bytes (a long event name, long argument names), and the import took
# the line with those arguments empty, exit 0, without a word.  With
# --events it fails naming the line, the event and the arguments missing,
# whatever its length; here tga_all lacking u8, then s, i32 and u8, and the
# marker the library wrote for an event of 401 bytes with 10 int64_t
# arguments of 53-byte names (1010 bytes, a8 and a9 left out), its name
# cut to 64 bytes in the message.
S="(written by a libtracejournal that left out what did not fit in 1 KiB, or declared otherwise in --events than in the program that traced it?)"
big=tgz_$(head -c 397 /dev/zero | tr '\0' e)
bigargs= bigdecl= bigfmt=
for i in 0 1 2 3 4 5 6 7 8 9; do
        an=a$i$(head -c 51 /dev/zero | tr '\0' x)
        [ $i -lt 8 ] && bigargs="$bigargs $an=-1000000000000000000"
        bigdecl="$bigdecl${bigdecl:+, }int64_t $an"
        bigfmt="$bigfmt${bigfmt:+ }%\" PRId64 \""
done
echo "$big($bigdecl) \"$bigfmt\"" > "$T/big.te"
for m in 'tga_all[1234.5]: i64=1 u64=2 ptr=0x3 s="y" i32=4' 'tga_all[1234.5]: i64=1 u64=2 ptr=0x3' \
         "$big[1234.5]:$bigargs"; do
        printf '  a-1 [000] ..... 1.000000: tracing_mark_write: %s\n' \
                'tgb_req[1234.4]: req=0x1000 sector=0 name="r0"' "$m" > "$T/short.trace"
        rm -f "$T/short.db"
        rc=0
        $RUN "$TQ" --db "$T/short.db" import --ftrace "$T/short.trace" --events "$EV" \
                --events "$T/big.te" 2> "$T/short.err" || rc=$?
        echo "${#m} $rc|$(cat "$T/short.err")|$(ls "$T/short.db"* 2> /dev/null || echo no database)"
done > "$T/short.got"
check_eq ftrace-argument-short "48 4|traceql: $T/short.trace:2: argument u8 of tga_all missing: a marker of 48 bytes, too short to be cut, lacks it $S|no database
36 4|traceql: $T/short.trace:2: arguments s, i32, u8 of tga_all missing: a marker of 36 bytes, too short to be cut, lacks them $S|no database
1010 4|traceql: $T/short.trace:2: arguments a8$(head -c 51 /dev/zero | tr '\0' x), a9$(head -c 51 /dev/zero | tr '\0' x) of $(printf %.64s "$big")... missing: a marker of 1010 bytes, too short to be cut, lacks them $S|no database" \
        "$(cat "$T/short.got")"

# A marker of ours with an argument its event's declaration (--events) lacks
# had it left out: its value in no column, exit 0, without a word; one
# given twice kept the first value; and either made up, in the count that
# the check for missing arguments went by, for one missing (nam= for name=
# imported with name empty).  Declared, it fails naming the argument, the
# event and the declaration, whatever the marker's length: a cut takes the
# end of a marker, never a name that an '=' follows, so the argument is
# named before a cut after it (a name the cut ends, "u" of u8, is the cut's:
# ftrace-name-cut).  The eleventh argument of an event of ten, past what a
# line holds, is named too.
O="(declared otherwise in --events than in the program that traced it?)"
ten= tenfmt= tenargs=
for i in 0 1 2 3 4 5 6 7 8 9; do
        ten="$ten${ten:+, }int a$i"
        tenfmt="$tenfmt${tenfmt:+ }%d"
        tenargs="$tenargs a$i=$i"
done
echo "tgk($ten) \"$tenfmt\"" > "$T/ten.te"
pre='tga_all[1234.5]: i64=1 u64=2 ptr=0x3 extra=9 s="'
cutm=$pre$(head -c $((1024 - ${#pre})) /dev/zero | tr '\0' y)
for m in 'tgb_req[1234.5]: req=0x1 sector=7 name="r1" extra=3' \
         'tgb_req[1234.5]: req=0x1 sector=7 nam="r1"' \
         'tgb_req[1234.5]: req=0x1 sector=7 sector=8' 'tga_void[1234.5]: x=1' \
         "tgk[1234.5]:$tenargs a10=10" "$cutm"; do
        printf '  a-1 [000] ..... 1.000000: tracing_mark_write: %s\n' \
                'tgb_req[1234.4]: req=0x1000 sector=0 name="r0"' "$m" > "$T/extra.trace"
        rm -f "$T/extra.db"
        rc=0
        $RUN "$TQ" --db "$T/extra.db" import --ftrace "$T/extra.trace" --events "$EV" \
                --events "$T/ten.te" 2> "$T/extra.err" || rc=$?
        echo "$rc|$(cat "$T/extra.err")|$(ls "$T/extra.db"* 2> /dev/null || echo no database)"
done > "$T/extra.got"
check_eq ftrace-argument-undeclared "4|traceql: $T/extra.trace:2: argument extra of tgb_req not in its declaration: $EV:5 declares req, sector, name $O|no database
4|traceql: $T/extra.trace:2: argument nam of tgb_req not in its declaration: $EV:5 declares req, sector, name $O|no database
4|traceql: $T/extra.trace:2: argument sector of tgb_req: given twice, in a tracejournal marker line|no database
4|traceql: $T/extra.trace:2: argument x of tga_void not in its declaration: $EV:3 declares no arguments $O|no database
4|traceql: $T/extra.trace:2: argument a10 of tgk not in its declaration: $T/ten.te:1 declares a0, a1, a2, a3, a4, a5, a6, a7, a8, a9 $O|no database
4|traceql: $T/extra.trace:2: argument extra of tga_all not in its declaration: $EV:2 declares i64, u64, ptr, s, i32, u8 $O|no database" \
        "$(cat "$T/extra.got")"

# Such a failed import leaves a database as it was: its rows, and the file
# not counted imported (the line right, the import takes both its lines).
printf '  a-1 [000] ..... 1.000000: tracing_mark_write: %s\n' \
        'tgb_req[1234.1]: req=0x1000 sector=0 name="r0"' 'tgb_done[1234.2]: req=0x1000' \
        > "$T/keep.trace"
rm -f "$T/keep.db"
$TQ --db "$T/keep.db" import --ftrace "$T/keep.trace" --events "$EV"
rows() {
        $TQ --db "$T/keep.db" --no-sync --format csv "select count(*) from events;
                select * from events order by id" | md5sum
}
before=$(rows)
printf '  a-1 [000] ..... 2.000000: tracing_mark_write: %s\n' \
        'tgb_req[1234.3]: req=0x2000 sector=1 name="r1"' \
        'tgb_done[1234.4]: req=0x2000 extra=1' > "$T/extra.trace"
rc=0
$RUN "$TQ" --db "$T/keep.db" import --ftrace "$T/extra.trace" --events "$EV" 2> "$T/extra.err" ||
        rc=$?
after=$(rows)
sed -i 's/ extra=1$//' "$T/extra.trace"
$TQ --db "$T/keep.db" import --ftrace "$T/extra.trace" --events "$EV"
check_eq ftrace-argument-undeclared-keeps-db "4|traceql: $T/extra.trace:2: argument extra of tgb_done not in its declaration: $EV:6 declares req $O|same rows|4" \
        "$rc|$(cat "$T/extra.err")|$([ "$before" = "$after" ] && echo same rows || echo rows changed)|$($TQ --db "$T/keep.db" --no-sync --format csv 'select count(*) from events' | tail -n 1)"

# A marker with its declaration's arguments, in any order, imports (none
# for an event declared with none); without --events nothing tells what an
# event's arguments are, and one with an extra imports it, as before.
printf '  a-1 [000] ..... 1.000000: tracing_mark_write: %s\n' \
        'tgb_req[1234.1]: name="r1" sector=7 req=0x10' 'tga_void[1234.2]:' \
        "tgk[1234.3]:$tenargs" > "$T/exact.trace"
rm -f "$T/exact.db"
rc=0
$RUN "$TQ" --db "$T/exact.db" import --ftrace "$T/exact.trace" --events "$EV" --events "$T/ten.te" \
        2> "$T/exact.err" || rc=$?
check_eq ftrace-argument-declared-imports "0||tgb_req,16,7,r1,
tga_void,,,,
tgk,0,1,2,9" "$rc|$(cat "$T/exact.err")|$($TQ --db "$T/exact.db" --no-sync --format csv \
        'select event, a0, a1, a2, a9 from events order by id' | tail -n +2)"
printf '  a-1 [000] ..... 1.000000: tracing_mark_write: %s\n' \
        'tgb_req[1234.5]: req=0x1 sector=7 name="r1" extra=3' > "$T/extra.trace"
rm -f "$T/extra.db"
rc=0
$RUN "$TQ" --db "$T/extra.db" import --ftrace "$T/extra.trace" 2> "$T/extra.err" || rc=$?
check_eq ftrace-argument-extra-no-declaration "0||3" "$rc|$(cat "$T/extra.err")|$($TQ \
        --db "$T/extra.db" --no-sync --format csv 'select a3 from events' | tail -n 1)"

# A message quotes at most 64 bytes of a name or value of the input, cut
# between two UTF-8 characters, then "...": an event or argument name of
# 200 bytes (a hostile trace may hold megabytes) was quoted whole, and a
# long enough one pushed the reason out of the message.  A message about an
# argument names it and its event: "bad escape in a string" and "bad
# argument in a tracejournal marker line" named neither.  Bytes that are
# no printable UTF-8 are written as \xHH.
long=$(head -c 200 /dev/zero | tr '\0' n)
ys=$(head -c 1000 /dev/zero | tr '\0' y)
es=$(printf '\033'; for i in $(seq 120); do printf '\303\251'; done)
e31=$(for i in $(seq 31); do printf '\303\251'; done)
for m in "tgb_$long[1.2]: req=0x1 name=\"a\\q\"" "tgb_req[1.2]: $long=\"a\\xZZ\"" \
         "tgb_req[1.2]: req=0x1 =5" "tgb_req[1.2]: req=0x1 $long-x=5" \
         "tgb_req[1.2]: $long=\"a\"b" "tgb_req[1.2]: name=\"$ys\" $long=$es" \
         "tgb_$long[1.2]: name=\"$ys"; do
        printf '  a-1 [000] ..... 1.000000: tracing_mark_write: %s\n' "$m" > "$T/quote.trace"
        rc=0
        $RUN "$TQ" --db "$T/quote.db" import --ftrace "$T/quote.trace" 2> "$T/quote.err" || rc=$?
        echo "$rc|$(cat "$T/quote.err")"
done > "$T/quote.got"
n64=$(printf %.64s "$long")
check_eq ftrace-message-quotes-bounded "4|traceql: $T/quote.trace:1: argument name of tgb_${n64%????}...: bad escape in a string
4|traceql: $T/quote.trace:1: argument $n64... of tgb_req: bad \\x escape in a string
4|traceql: $T/quote.trace:1: argument =5 of tgb_req: not name=value, in a tracejournal marker line
4|traceql: $T/quote.trace:1: argument $n64... of tgb_req: not name=value, in a tracejournal marker line
4|traceql: $T/quote.trace:1: argument $n64... of tgb_req: text after its string's closing quote, in a tracejournal marker line
4|traceql: $T/quote.trace:1: argument $n64...=\\x1b$e31... of tgb_req, not a string, ends a marker of 1464 bytes: its value may be cut short and arguments after it missing $W
4|traceql: $T/quote.trace:1: argument name of tgb_${n64%????}...: unterminated string $W" \
        "$(cat "$T/quote.got")"
# The warning of a marker as long as a cut one, undeclared, that ends after
# a whole argument; and that argument's name, over 64 bytes, has no column.
printf '  a-1 [000] ..... 1.000000: tracing_mark_write: %s\n' \
        "tgb_$long[1.2]: $long=\"$ys\"" > "$T/quote.trace"
rc=0
$RUN "$TQ" --db "$T/quote.db" import --ftrace "$T/quote.trace" 2> "$T/quote.err" || rc=$?
check_eq ftrace-warning-quotes-bounded "0|traceql: $T/quote.trace:1: a marker of 1414 bytes ends after argument $n64... of tgb_${n64%????}..., $A
traceql: $T/quote.trace:1: argument $n64... of tgb_${n64%????}... has a name longer than 64 bytes: no column, it is in the row's message only" \
        "$rc|$(cat "$T/quote.err")"

# The library's output, through a plain file and standard input.
: > "$T/marker"
TJ_OUTPUT=ftrace TJ_FTRACE_MARKER="$T/marker" TJ_EVENTS='tg*' \
        "$B/tests/lib-emit" init req:2 all flush > /dev/null
sed 's/^/  lib-emit-1 [000] ..... 1.000000: tracing_mark_write: /' "$T/marker" |
        $RUN "$TQ" --db "$T/lib.db" import --ftrace - --events "$EV"
$TQ --db "$T/lib.db" --no-sync --format csv \
        "select seq, event, message, a0, a1, a2, a3, a4, a5 from events where seq < 8 order by seq" > "$T/got"
cat > "$T/exp" <<'OUT'
seq,event,message,a0,a1,a2,a3,a4,a5
1,tgb_req,tgb_req req 0x1000 sector 0 name r0,4096,0,r0,,,
2,tgb_req,tgb_req req 0x1001 sector 1 name r1,4097,1,r1,,,
3,tga_all,tga_all i64 -9223372036854775808 u64 18446744073709551615 ptr (nil) s  i32 -1 u8 255,-9223372036854775808,-1,0,"",-1,255
4,tga_all,tga_all i64 9223372036854775807 u64 0 ptr 0xdeadbeefcafe s (null) i32 0 u8 0,9223372036854775807,0,244837814094590,,0,0
5,tga_all,"tga_all i64 -42 u64 42 ptr 0xffffffffffffffff s line1
line2 i32 -2147483648 u8 1",-42,42,-1,"line1
line2",-2147483648,1
6,tga_all,"tga_all i64 0 u64 1 ptr 0x1 s a=b
TRACE_EVENT=forged
MESSAGE=x i32 2147483647 u8 7",0,1,1,"a=b
TRACE_EVENT=forged
MESSAGE=x",2147483647,7
7,tga_all,tga_all i64 1 u64 2 ptr 0x2 s héllo wörld € i32 3 u8 4,1,2,2,héllo wörld €,3,4
OUT
check_file ftrace-library-output "$T/exp" "$T/got"

# The real tracefs: mounted here, or in a private mount namespace when root.
rc=0
with_tracefs sh -c 'TJ_OUTPUT=ftrace TJ_EVENTS=tgb_req "$1" init req:3 flush > /dev/null &&
        cat /sys/kernel/tracing/trace' sh "$B/tests/lib-emit" > "$T/live.trace" 2> "$T/live.err" || rc=$?
if [ $rc = 77 ]; then
        skip ftrace-tracefs-live "no writable tracefs: not mounted and cannot mount it (root and unshare -m needed)"
else
        $TQ --db "$T/tr.db" import --ftrace "$T/live.trace" --events "$EV"
        check_eq ftrace-tracefs-live "0|r0 r1 r2" "$rc|$($TQ --db "$T/tr.db" --no-sync --format csv \
                "select group_concat(name, ' ') from (select name from tgb_req
                 where pid = (select max(pid) from tgb_req where name = 'r2') order by seq)" | tail -n 1)"
fi

# A growing file: the second import adds only the lines appended since.
head -n 20 "$D/mixed.trace" > "$T/grow.trace"
$TQ --db "$T/grow.db" import --ftrace "$T/grow.trace"
first=$($TQ --db "$T/grow.db" --no-sync --format csv 'select count(*) from events' | tail -n 1)
cat "$D/mixed.trace" > "$T/grow.trace"
$TQ --db "$T/grow.db" import --ftrace "$T/grow.trace"
check_eq ftrace-resume-appended "8|13|13" "$first|$($TQ --db "$T/grow.db" --no-sync --format csv \
        'select count(*) || "|" || count(distinct ifnull(mono, 0) || event) from events' | tail -n 1)"

# TASK is any text a program gave itself with prctl(), "[1]" and spaces
# included; a trace clock that is not in seconds (x86-tsc, counter) prints a
# plain integer, which goes to mono as it is.
cat > "$T/prefix.trace" <<'TRACE'
   x[1]-1234  [000] d..1. 100.000001: sched_waking: comm=foo pid=1
  a [2] b-77  (     70) [001] ..... 100.000002: sched_waking: comm=bar pid=2
 bash-7749 [001] ..... 98765432101234: kvm_exit: reason EXIT_IO rip 0xffff
TRACE
rm -f "$T/db"
$RUN "$TQ" --db "$T/db" import --ftrace "$T/prefix.trace"
$TQ --db "$T/db" --no-sync --format csv \
        "select mono, pid, tid, identifier, event, a0, a1 from events order by id" > "$T/got"
cat > "$T/exp" <<'OUT'
mono,pid,tid,identifier,event,a0,a1
100000001000,1234,1234,x[1],sched_waking,foo,1
100000002000,70,77,a [2] b,sched_waking,bar,2
98765432101234,7749,7749,bash,kvm_exit,EXIT_IO,65535
OUT
check_file ftrace-task-brackets-counter-clock "$T/exp" "$T/got"

# ftrace_rows FILE SQL: FILE imported alone into a new database: "STATUS|ROW|ROW..."
# of SQL's rows (CSV)
ftrace_rows() {
        rm -f "$T/db"
        rc=0
        $RUN "$TQ" --db "$T/db" import --ftrace "$1" 2> "$T/err" || rc=$?
        # a failed import leaves no database where there was none
        if [ -e "$T/db" ]; then
                echo "$rc|$($TQ --db "$T/db" --no-sync --format csv "$2" | tail -n +2 | paste -sd '|')"
        else
                echo "$rc|no database"
        fi
}

# The header's '#' lines and "CPU:N [LOST M EVENTS]" begin in the first
# column; a trace line never does (the kernel right-aligns TASK, 15 bytes at
# most, in 16 columns), and its TASK may begin with '#' or be "CPU:..." as
# well: such a line is an event, not a comment passed over or a bad CPU line.
cat > "$T/task-hash.trace" <<'TRACE'
# tracer: nop
           #w1-12      [000] .....   100.000001: sched_waking: comm=a pid=1
        CPU:0-13      [001] .....   100.000002: sched_waking: comm=b pid=2
CPU:1 [LOST 4 EVENTS]
TRACE
check_eq ftrace-task-hash-cpu "0|#w1,12,sched_waking|CPU:0,13,sched_waking|,,tj_dropped" \
        "$(ftrace_rows "$T/task-hash.trace" "select identifier, tid, event from events order by id")"

# The kernel writes "CPU:N [LOST EVENTS]" when it does not know how many
# were lost (the trace file read while tracing goes on): a tj_dropped row
# without a count, whose argument is declared all the same.
cat > "$T/lost.trace" <<'TRACE'
# tracer: function
             cat-2212    [000] d.h..   369.060000: arch_local_irq_restore <-generic_atomic64_read
CPU:0 [LOST EVENTS]
             cat-2212    [000] d....   369.370000: arch_local_save_flags <-generic_atomic64_read
CPU:1 [LOST 5 EVENTS]
TRACE
check_eq ftrace-lost-events-unknown "0|4|? 5|dropped" \
        "$(ftrace_rows "$T/lost.trace" "select (select count(*) from events)
               || '|' || (select group_concat(ifnull(a0, '?'), ' ') from
                          (select a0 from events where event = 'tj_dropped' order by id))
               || '|' || (select group_concat(name) from event_args where event = 'tj_dropped') as r")"

# A system call's exit, "sys_NAME -> 0xRET" (the syscalls:sys_exit_* events),
# is event sys_exit_NAME, as the kernel names it, with argument ret.
cat > "$T/sysexit.trace" <<'TRACE'
             cat-2212    [000] .....   369.060000: sys_openat(dfd: 0xffffff9c, filename: 0x7ffd1c9a2f10, flags: 0x0, mode: 0x0)
             cat-2212    [000] .....   369.060010: sys_openat -> 0x3
             cat-2212    [000] .....   369.060020: sys_close -> 0xfffffffffffffff7
TRACE
check_eq ftrace-syscall-exit "0|sys_openat,\"sys_openat(dfd: 0xffffff9c, filename: 0x7ffd1c9a2f10, flags: 0x0, mode: 0x0)\",4294967196|sys_exit_openat,sys_openat -> 0x3,3|sys_exit_close,sys_close -> 0xfffffffffffffff7,-9" \
        "$(ftrace_rows "$T/sysexit.trace" "select event, message, a0 from events order by id")"

# The function tracer names a compiler's clone of a function as its symbol
# is, "rw_verify_area.isra.0".
cat > "$T/clone.trace" <<'TRACE'
             cat-2212    [000] .....   369.060000: security_file_permission <-vfs_read.part.0
             cat-2212    [000] .....   369.060001: rw_verify_area.isra.0 <-vfs_read
TRACE
check_eq ftrace-function-clone "0|function,security_file_permission,vfs_read.part.0|function,rw_verify_area.isra.0,vfs_read" \
        "$(ftrace_rows "$T/clone.trace" "select event, a0, a1 from events order by id")"

# The trace options sym-offset and sym-addr: the function tracer's ip and
# parent are the functions without their "+0xOFF/0xLEN" and "<addr>" (with
# sym-addr, "no event name"), the message as written.  Crafted after the
# kernel's seq_print_ip_sym() (this machine refuses the function tracer).
cat > "$T/sym-fn.trace" <<'TRACE'
             cat-2212    [000] .....   369.060000: vfs_read+0x4/0x170 <-ksys_read+0x65/0xe0
             cat-2212    [000] .....   369.060001: vfs_read <ffffffff812f0a10> <-ksys_read <ffffffff812f0b20>
             cat-2212    [000] .....   369.060002: vfs_read+0x4/0x170 <ffffffff812f0a14> <-ksys_read+0x65/0xe0 <ffffffff812f0b85>
             cat-2212    [000] .....   369.060003: rw_verify_area.isra.0+0x4/0x90 <ffffffff812f0c04> <-vfs_read+0x8a/0x170 <ffffffff812f0a9a>
TRACE
check_eq ftrace-function-sym "0|function,vfs_read,ksys_read,|function,vfs_read,ksys_read,function vfs_read <ffffffff812f0a10> <-ksys_read <ffffffff812f0b20>|function,vfs_read,ksys_read,|function,rw_verify_area.isra.0,vfs_read," \
        "$(ftrace_rows "$T/sym-fn.trace" "select event, a0, a1, case id when 2 then message end
                                          from events order by id")"

# A marker "name[pid]: text", as syslog-style programs write, is not ours
# (ours has [pid.seq], or is tj_dropped[pid]): a tracing_mark_write row.
cat > "$T/marker.trace" <<'TRACE'
  bash-5 [000] ..... 100.000001: tracing_mark_write: sshd[123]: Accepted publickey for root
  bash-5 [000] ..... 100.000002: tracing_mark_write: tj_dropped[5]: dropped=3
TRACE
rm -f "$T/db"
$RUN "$TQ" --db "$T/db" import --ftrace "$T/marker.trace" --events "$EV"
$TQ --db "$T/db" --no-sync --format csv \
        "select pid, seq, event, a0 from events order by id" > "$T/got"
cat > "$T/exp" <<'OUT'
pid,seq,event,a0
5,,tracing_mark_write,sshd[123]: Accepted publickey for root
5,,tj_dropped,3
OUT
check_file ftrace-marker-name-pid "$T/exp" "$T/got"

# The kernel prints a marker as ": %s": its text is what follows that one
# space.  A text's own leading spaces were dropped with it, and an empty
# marker (echo > trace_marker) was ' ', not ''.
printf '%s\n' '  bash-5 [000] ..... 100.000001: tracing_mark_write:   two leading' \
        '  bash-5 [000] ..... 100.000002: tracing_mark_write: ' \
        '  bash-5 [000] ..... 100.000003: tracing_mark_write:  tgb_req[5.1]: req=0x1' \
        > "$T/marker-spaces.trace"
check_eq ftrace-marker-leading-spaces "0|tracing_mark_write,'tracing_mark_write   two leading','  two leading'|tracing_mark_write,'tracing_mark_write',''|tracing_mark_write,'tracing_mark_write  tgb_req[5.1]: req=0x1',' tgb_req[5.1]: req=0x1'" \
        "$(ftrace_rows "$T/marker-spaces.trace" "select event, quote(message), quote(a0) from events order by id")"

# The message rendered from the declared format is the library's MESSAGE, as
# printf writes it: a conversion prints the bits its length gives (%x of an
# int -1 is ffffffff, %hu of a short -2 65534, PRIx32 32 bits, PRIx64 64),
# and an empty format leaves "name " (the values here are what printf(3)
# writes for these formats and arguments).
cat > "$T/conv.te" <<'TE'
fx_conv(int c, int64_t d, short h, int8_t b, uint32_t u, unsigned o) "c %#x d %" PRIx64 " h %hu b %x u %d o %#o"
fx_pri(int32_t a, int16_t b, int64_t c) "a %" PRIx32 " b %" PRIu16 " c %" PRIo64
fx_empty(void) ""
TE
cat > "$T/conv.trace" <<'TRACE'
  p-7 [000] ..... 1.000001: tracing_mark_write: fx_conv[7.1]: c=-1 d=-1 h=-2 b=-3 u=4294967295 o=4294967295
  p-7 [000] ..... 1.000002: tracing_mark_write: fx_pri[7.2]: a=-1 b=-1 c=-1
  p-7 [000] ..... 1.000003: tracing_mark_write: fx_empty[7.3]:
TRACE
rm -f "$T/db"
$RUN "$TQ" --db "$T/db" import --ftrace "$T/conv.trace" --events "$T/conv.te"
$TQ --db "$T/db" --no-sync --format csv "select quote(message) from events order by seq" > "$T/got"
cat > "$T/exp" <<'OUT'
quote(message)
'fx_conv c 0xffffffff d ffffffffffffffff h 65534 b fffffffd u -1 o 037777777777'
'fx_pri a ffffffff b 4294967295 c 1777777777777777777777'
'fx_empty '
OUT
check_file ftrace-message-conversion-width "$T/exp" "$T/got"

# ... and a width or a precision given as '*' is the next value, as printf
# reads it (QEMU's pflash_sector_erase_start "0x%0*" PRIx64: a negative
# width pads on the right, a negative precision is none); %s and %p take
# their width, '-' flag and precision (a NULL string under a precision
# below 6 is nothing, as glibc writes it); a width past 127 is written
# whole.  The stars were skipped and %s and %p written bare, and the %130d
# cut at 127 bytes.
cat > "$T/pad.te" <<'TE'
fx_star(int w1, uint64_t a, int w2, uint64_t b, int p, const char *s, int q, const char *t) "a 0x%0*" PRIx64 " b 0x%0*" PRIx64 " s [%.*s] t [%.*s]"
fx_pad(const char *s, void *p, const char *n, const char *m, void *z, int w) "s [%-6s] p [%20p] n [%8s] m [%.3s] z [%-7p] w [%130d]"
TE
cat > "$T/pad.trace" <<'TRACE'
  p-7 [000] ..... 1.000001: tracing_mark_write: fx_star[7.1]: w1=8 a=4096 w2=-6 b=8192 p=2 s="xyz" q=-1 t="long"
  p-7 [000] ..... 1.000002: tracing_mark_write: fx_pad[7.2]: s="ab" p=0x1234 n=(null) m=(null) z=0x0 w=5
TRACE
rm -f "$T/db"
$RUN "$TQ" --db "$T/db" import --ftrace "$T/pad.trace" --events "$T/pad.te"
$TQ --db "$T/db" --no-sync --format csv "select quote(message) from events order by seq" > "$T/got"
{ echo 'quote(message)'
  echo "'fx_star a 0x00001000 b 0x2000   s [xy] t [long]'"
  printf "'fx_pad s [ab    ] p [%20s] n [  (null)] m [] z [(nil)  ] w [%130s]'\n" 0x1234 5
} > "$T/exp"
check_file ftrace-message-star-width-pad "$T/exp" "$T/got"

# An unfinished last line (no newline yet) is left for the next import, which
# stores it once it is complete, as the text importers do.
printf '  bash-5 [000] ..... 100.000001: tracing_mark_write: one\n  bash-5 [000] ..... 100.000002: tracing_mark_write: hello wor' > "$T/cut.trace"
rm -f "$T/db"
$RUN "$TQ" --db "$T/db" import --ftrace "$T/cut.trace" 2> "$T/cut.err"
check_eq ftrace-unfinished-line-message \
        "traceql: $T/cut.trace: an unfinished last line is left for the next import" "$(cat "$T/cut.err")"
printf 'ld\n' >> "$T/cut.trace"
$RUN "$TQ" --db "$T/db" import --ftrace "$T/cut.trace" 2> "$T/cut.err"
$RUN "$TQ" --db "$T/db" import --ftrace "$T/cut.trace" 2>> "$T/cut.err"
check_eq ftrace-unfinished-line-later "|one hello world" "$(cat "$T/cut.err")|$($TQ --db "$T/db" --no-sync \
        --format csv "select group_concat(a0, ' ') from (select a0 from events order by id)" | tail -n 1)"
# Standard input is read once, never resumed: its last line is imported with
# or without its newline, as --syslog and --log do (it was said to be left
# for a next import that could never read it).
rm -f "$T/db"
head -c 119 "$T/cut.trace" | $RUN "$TQ" --db "$T/db" import --ftrace - 2> "$T/cut.err"
check_eq ftrace-unfinished-line-stdin "|one hello wor" "$(cat "$T/cut.err")|$($TQ --db "$T/db" --no-sync \
        --format csv "select group_concat(a0, ' ') from (select a0 from events order by id)" | tail -n 1)"

# An entry whose last line is unfinished (a marker's text of two lines, a
# stack trace's frame) is left whole for the next import, as --log leaves an
# event whose lines are not all there: the offset stays where it starts,
# and the import once the line is complete stores it once, with all its
# lines.  So is an entry followed by an unfinished line that may yet go on
# with it (a trace line still without its "[CPU]"); a line that cannot is
# left alone (the offset of the line).  The entry was stored with the lines
# read then, and the next import did not store it again: the last line lost.
l1='  bash-5 [000] ..... 100.000001: tracing_mark_write: one'
l2='  bash-5 [000] ..... 100.000002: tracing_mark_write: first'
l3='  bash-5 [000] d..1. 100.000003: <stack trace>'
l4='  bash-5 [000] ..... 100.000004: tracing_mark_write: last'
rm -f "$T/db"
: > "$T/cut.err"
for add in "$l1\n$l2\nsecond li" "ne\nthird\n$l3\n => f1\n => __sch" "edule\n$l4\n  bash-5 [0" \
           "00] ..... 100.000005: tracing_mark_write: ne" "xt\n" ""; do
        printf "$add" >> "$T/cut2.trace"
        rc=0
        $RUN "$TQ" --db "$T/db" import --ftrace "$T/cut2.trace" 2>> "$T/cut.err" || rc=$?
        echo "exit $rc, $($TQ --db "$T/db" --no-sync --format csv \
                "select count(*) || ' rows at offset ' || (select offset from sources
                  where kind = 'ftrace') as n from events" | tail -n 1)" >> "$T/cut.err"
done
cat > "$T/exp" <<OUT
traceql: $T/cut2.trace: an unfinished last entry (its last line is unfinished) is left for the next import
exit 0, 1 rows at offset 57
traceql: $T/cut2.trace: an unfinished last entry (its last line is unfinished) is left for the next import
exit 0, 2 rows at offset 134
traceql: $T/cut2.trace: an unfinished last entry (its last line is unfinished) is left for the next import
exit 0, 3 rows at offset 203
traceql: $T/cut2.trace: an unfinished last line is left for the next import
exit 0, 4 rows at offset 261
exit 0, 5 rows at offset 319
exit 0, 5 rows at offset 319
OUT
check_file ftrace-unfinished-entry-message "$T/exp" "$T/cut.err"
rows_q="select event || ':' || replace(message, char(10), '/') from events order by id"
check_eq ftrace-unfinished-entry-later "tracing_mark_write:tracing_mark_write one|tracing_mark_write:tracing_mark_write first/second line/third|kernel_stack:<stack trace>/ => f1/ => __schedule|tracing_mark_write:tracing_mark_write last|tracing_mark_write:tracing_mark_write next" \
        "$($TQ --db "$T/db" --no-sync --format csv "$rows_q" | tail -n +2 | paste -sd '|')"
# Standard input, read once, has the entry imported with the lines there are,
# the unfinished one as it is, as --log keeps what there is of an event.
rm -f "$T/db"
printf "$l1\n$l2\nsecond li" | $RUN "$TQ" --db "$T/db" import --ftrace - 2> "$T/cut.err"
check_eq ftrace-unfinished-entry-stdin "|tracing_mark_write:tracing_mark_write one|tracing_mark_write:tracing_mark_write first/second li" \
        "$(cat "$T/cut.err")|$($TQ --db "$T/db" --no-sync --format csv "$rows_q" | tail -n +2 |
        paste -sd '|')"

# An entry whose lines were all there, stored, that goes on in lines appended
# since (cat trace_pipe >> f between two reads of a stack trace or of a text
# holding newlines) is stored again whole, in place of its row of before:
# the same rows as one import of the whole file, counted once in the
# source's rows and not as new in the summary.  The lines appended to it
# were dropped without a word, exit 0.  A copy of the file imported as
# another source keeps its own row; a renamed file's row moves to the new
# source, whose position it resumed from.
l5='  bash-5 [000] ..... 100.000006: tracing_mark_write: after'
rm -f "$T/db" "$T/grow2.trace"
: > "$T/cut.err"
for add in "$l1
$l3
 => f1
" " => f2
" " => f3
$l2
" "second
" "third
$l5
"; do
        printf "$add" >> "$T/grow2.trace"
        rc=0
        script -qec "$TQ --db $T/db import --ftrace $T/grow2.trace" /dev/null > "$T/out" 2>&1 || rc=$?
        echo "exit $rc, $(tr -d '\r' < "$T/out" | sed "s|$T/||"), $($TQ --db "$T/db" --no-sync --format csv \
                "select count(*) || ' rows; ' || (select rows from sources) as n from events" |
                tail -n 1)" >> "$T/cut.err"
done
cat > "$T/exp" <<OUT
exit 0, traceql: 2 new events in db, 2 rows; 2
exit 0, traceql: 0 new events in db, 2 rows; 2
exit 0, traceql: 1 new events in db, 3 rows; 3
exit 0, traceql: 0 new events in db, 3 rows; 3
exit 0, traceql: 1 new events in db, 4 rows; 4
OUT
check_file ftrace-entry-goes-on-counts "$T/exp" "$T/cut.err"
check_eq ftrace-entry-goes-on-rows "tracing_mark_write:tracing_mark_write one|kernel_stack:<stack trace>/ => f1/ => f2/ => f3|tracing_mark_write:tracing_mark_write first/second/third|tracing_mark_write:tracing_mark_write after" \
        "$($TQ --db "$T/db" --no-sync --format csv "$rows_q" | tail -n +2 | paste -sd '|')"
rm -f "$T/db1"
$RUN "$TQ" --db "$T/db1" import --ftrace "$T/grow2.trace"
check_eq ftrace-entry-goes-on-same-as-whole \
        "$($TQ --db "$T/db1" --no-sync --format csv "$rows_q" | tail -n +2 | paste -sd '|')" \
        "$($TQ --db "$T/db" --no-sync --format csv "$rows_q" | tail -n +2 | paste -sd '|')"
rm -f "$T/db" "$T/grow3.trace" "$T/grow3.1.trace"
printf "$l2
" > "$T/grow3.trace"
$RUN "$TQ" --db "$T/db" import --ftrace "$T/grow3.trace"
cp "$T/grow3.trace" "$T/grow3-copy.trace"
$RUN "$TQ" --db "$T/db" import --ftrace "$T/grow3-copy.trace"
printf "second
" >> "$T/grow3.trace"
$RUN "$TQ" --db "$T/db" import --ftrace "$T/grow3.trace"
mv "$T/grow3.trace" "$T/grow3.1.trace"
printf "third
" >> "$T/grow3.1.trace"
$RUN "$TQ" --db "$T/db" import --ftrace "$T/grow3.1.trace" 2> /dev/null
check_eq ftrace-entry-goes-on-copy-renamed "grow3.trace:0|grow3-copy.trace:1:first|grow3.1.trace:1:first/second/third" \
        "$($TQ --db "$T/db" --no-sync --format csv "select replace(s.location, '$T/', '') || ':' || s.rows ||
                coalesce(':' || replace(group_concat(e.a0), char(10), '/'), '') as v from sources s
                left join events e on e.source = s.id group by s.id order by s.id" | tail -n +2 | paste -sd '|')"

# Standard input is spooled to an unlinked file in $TMPDIR and mapped, as a
# regular file is: 10000 lines of 4 KiB (40 MB) under a 10000 KiB data limit
# (ulimit -d, which a read-only file mapping does not count) import every
# line, and no file is left in $TMPDIR.  Standard input was read whole into
# a buffer that doubled past the limit: exit 5, 'out of memory'.  Not under
# valgrind or a sanitizer, whose runtimes need more memory.
if [ -z "${VALGRIND:-}" ] && [ -z "${SANITIZE:-}" ]; then
        awk 'BEGIN { t = sprintf("%4000s", ""); gsub(/ /, "x", t)
                for (i = 0; i < 10000; i++)
                        printf "  bash-5 [000] ..... %d.000001: tracing_mark_write: %s\n", 100 + i, t }' \
                > "$T/big.trace"
        mkdir "$T/spool"
        rc=0
        (ulimit -d 10000; TMPDIR=$T/spool exec "$TQ" --db "$T/big.db" import --ftrace - \
                < "$T/big.trace") 2> "$T/err" || rc=$?
        check_eq ftrace-stdin-spooled-flat-memory "0||10000|40000000|" \
                "$rc|$(cat "$T/err")|$($TQ --db "$T/big.db" --no-sync --format csv \
                "select count(*) || '|' || sum(length(a0)) from events" | tail -n 1)|$(ls -A "$T/spool")"
        rm -f "$T/big.trace" "$T"/big.db*
else
        skip ftrace-stdin-spooled-flat-memory "ulimit -d leaves valgrind and the sanitizers no room"
fi

# A marker whose text holds newlines is printed by the kernel as written:
# the lines after its first follow without a prefix (an empty one too).  The
# stacktrace and userstacktrace options add an entry "<stack trace>" or
# "<user stack trace>" with a " => FUNC" line per frame: events kernel_stack
# and user_stack, the stack their message.  Each failed the import at its
# second line, 'not a trace line (no [CPU] field)'.
printf '%s\n' '# tracer: nop' \
        '            bash-5       [000] .....   100.000001: tracing_mark_write: first line' \
        'second line' '' 'third' \
        '            bash-5       [000] .....   100.000002: tracing_mark_write: after' \
        '            bash-5       [000] d..1.   100.000003: <stack trace>' \
        ' => __schedule' ' => schedule+0x4a/0xd0' \
        '            bash-5       [000] d..1.   100.000004: <user stack trace>' \
        ' =>  <00007f0e1b2c3d4e>' > "$T/multi.trace"
check_eq ftrace-multi-line "0|tracing_mark_write,first line/second line//third,first line/second line//third|tracing_mark_write,after,after|kernel_stack,<stack trace>/ => __schedule/ => schedule+0x4a/0xd0,|user_stack,<user stack trace>/ =>  <00007f0e1b2c3d4e>," \
        "$(ftrace_rows "$T/multi.trace" "select event, replace(replace(message, 'tracing_mark_write ', ''), char(10), '/'),
                replace(a0, char(10), '/') from events order by id")"

# The text of any "name: TEXT" entry goes on so: trace_printk() prints as
# "FUNC: TEXT", and a kernel event's string may hold a newline too (the
# arguments are the first line's).  Each failed the import at its second
# line, 'not a trace line (no [CPU] field)'.
printf '%s\n' '            bash-5       [000] .....   100.000001: do_work: a=1 first' 'more text' \
        '            bash-5       [000] .....   100.000002: sched_waking: comm=a pid=1' 'c d' \
        > "$T/printk.trace"
check_eq ftrace-multi-line-printk "0|do_work,do_work a=1 first/more text,1|sched_waking,sched_waking comm=a pid=1/c d,a" \
        "$(ftrace_rows "$T/printk.trace" "select event, replace(message, char(10), '/'), a0
                from events order by id")"

# A line of a text that begins with a space, '#' or 'CPU:', or is ' => ...',
# is the text going on unless it is a trace line (the [CPU] field with
# TASK-PID before it or a timestamp after it), a loss exactly, the annotate
# option's '##### CPU N buffer started ####' or a header's first line
# '# tracer: NAME' (a capture appended to another).  Such text lines were
# passed over as header lines, or failed as a bad loss or trace line.
printf '%s\n' '# tracer: nop' \
        '            bash-5       [000] .....   100.000001: tracing_mark_write: title' \
        '# not a header' '  indented [1] text' 'CPU: busy' 'CPU:1 [LOST 3 EVENTS] and more' \
        ' => not a frame' '##### CPU 1 buffer started ####' \
        '            bash-5       [001] .....   100.000002: tracing_mark_write: next' \
        'CPU:1 [LOST 3 EVENTS]' \
        '            bash-5       [001] .....   100.000003: tracing_mark_write: then' \
        '# tracer: nop' '#' '            bash-5       [001] .....   100.000004: tracing_mark_write: last' \
        > "$T/text.trace"
check_eq ftrace-multi-line-text-lines "0|tracing_mark_write,title/# not a header/  indented [1] text/CPU: busy/CPU:1 [LOST 3 EVENTS] and more/ => not a frame|tracing_mark_write,next|tj_dropped,3|tracing_mark_write,then|tracing_mark_write,last" \
        "$(ftrace_rows "$T/text.trace" "select event, replace(a0, char(10), '/') from events order by id")"

# A line that is no trace line still fails, at its own line number: after
# an entry that has no text to go on (the function tracer, a system call, a
# loss, the header), after a stack trace's frames; and so does a trace line,
# well formed or not, after a text.
printf '%s\n' '            bash-5       [000] .....   100.000001: tracing_mark_write: a' 'b' \
        '            bash-5       [000] .....   100.000002: sched_waking: comm=a pid=1' 'c' \
        '             cat-2       [000] .....   100.000003: vfs_read <-ksys_read' 'd' \
        > "$T/multi-bad.trace"
printf '%s\n' '             cat-2       [000] .....   100.000003: sys_close(fd: 3)' 'd' > "$T/multi-bad2.trace"
printf '%s\n' 'CPU:0 [LOST 2 EVENTS]' 'x' > "$T/multi-bad3.trace"
printf '%s\n' '# tracer: nop' 'x' > "$T/multi-bad4.trace"
printf '%s\n' '             cat-2       [000] d..1.   100.000003: <stack trace>' ' => f' 'f2' \
        > "$T/multi-bad5.trace"
printf '%s\n' '            bash-5       [000] .....   100.000001: tracing_mark_write: a' 'b' \
        '  bash-5 [000] ..... 1x0.2: kvm_exit: reason X' > "$T/multi-bad6.trace"
printf '%s\n' '            bash-5       [000] .....   100.000001: tracing_mark_write: a' \
        '  bash 5 (     5) [000] ..... 100.2: kvm_exit: reason X' > "$T/multi-bad7.trace"
got=
for i in '' 2 3 4 5 6 7; do
        got="$got$(ftrace_rows "$T/multi-bad$i.trace" "select count(*) from events")|$(cat "$T/err");"
done
check_eq ftrace-multi-line-bad "4|no database|traceql: $T/multi-bad.trace:6: not a trace line (no [CPU] field);4|no database|traceql: $T/multi-bad2.trace:2: not a trace line (no [CPU] field);4|no database|traceql: $T/multi-bad3.trace:2: not a trace line (no [CPU] field);4|no database|traceql: $T/multi-bad4.trace:2: not a trace line (no [CPU] field);4|no database|traceql: $T/multi-bad5.trace:3: not a trace line (no [CPU] field);4|no database|traceql: $T/multi-bad6.trace:3: not a trace line (bad timestamp);4|no database|traceql: $T/multi-bad7.trace:2: not a trace line (no TASK-PID);" \
        "$got"

# TASK is the thread's name (prctl(PR_SET_NAME), as QEMU names its vCPU and
# worker threads), and it goes to identifier: the marker events of one
# process, whose TRACE_SEQ counts all its threads' events, are told apart by
# pid alone in losses, one gap where a number is missing in the process.
# Each thread's name made a process of its own before, gaps where another
# thread's events were ('seq 2..3' of qemu-system-x86, 'seq 3..4' of CPU 0/KVM).
printf '%s\n' '# tracer: nop' \
        ' qemu-system-x86-4240    [001] ...1.   100.000100: tracing_mark_write: tgb_done[4240.1]: req=0x1' \
        '       CPU 0/KVM-4242    [000] ...1.   100.000150: tracing_mark_write: tgb_done[4240.2]: req=0x2' \
        '          worker-4243    [001] ...1.   100.000160: tracing_mark_write: tgb_done[4240.3]: req=0x3' \
        ' qemu-system-x86-4240    [001] ...1.   100.000250: tracing_mark_write: tgb_done[4240.4]: req=0x4' \
        '       CPU 0/KVM-4242    [000] ...1.   100.000350: tracing_mark_write: tgb_done[4240.6]: req=0x6' \
        > "$T/threads.trace"
rm -f "$T/db"
$RUN "$TQ" --db "$T/db" import --ftrace "$T/threads.trace"
check_eq ftrace-losses-thread-names "seq_gap,,,4240,CPU 0/KVM,1,seq 5..5," \
        "$($RUN "$TQ" --db "$T/db" --no-sync --format csv losses | tail -n +2)"
# The library's tj_dropped reports of such a process, written by whichever
# thread found the drops, are summed per run of the process as its gaps are,
# under the name of the thread of the last report; each thread's name made
# a row of its own before ('CPU 0/KVM,3,1 report' and 'qemu-system-x86,2,1
# report').
printf '%s\n' '# tracer: nop' \
        ' qemu-system-x86-4240    [001] ...1.   100.000100: tracing_mark_write: tgb_done[4240.1]: req=0x1' \
        '       CPU 0/KVM-4242    [000] ...1.   100.000150: tracing_mark_write: tj_dropped[4240]: dropped=3' \
        '          worker-4243    [001] ...1.   100.000160: tracing_mark_write: tgb_done[4240.5]: req=0x5' \
        ' qemu-system-x86-4240    [001] ...1.   100.000250: tracing_mark_write: tj_dropped[4240]: dropped=2' \
        ' qemu-system-x86-4240    [001] ...1.   100.000300: tracing_mark_write: tgb_done[4240.1]: req=0x1' \
        '          worker-4243    [001] ...1.   100.000350: tracing_mark_write: tj_dropped[4240]: dropped=4' \
        > "$T/threads-dropped.trace"
rm -f "$T/db"
$RUN "$TQ" --db "$T/db" import --ftrace "$T/threads-dropped.trace"
check_eq ftrace-losses-dropped-threads "seq_gap,,,4240,worker,3,seq 2..4,|tj_dropped,,,4240,qemu-system-x86,5,2 reports,|tj_dropped,,,4240,worker,4,1 report," \
        "$($RUN "$TQ" --db "$T/db" --no-sync --format csv losses | tail -n +2 | sort | paste -sd '|')"

# A line holds at most 256 MiB, as a line of --export, --log or --syslog
# does ($TRACEQL_TEST_MAX_LINE: a cap of 100 bytes here): a longer one fails
# at its own line, as the first of an entry, as a line of a marker's text or
# as an unfinished last line, the database as it was and the import of the
# file resumable; standard input's as soon as it is read past the cap.  There
# was no cap: standard input was read whole into memory, a line with no end
# (/dev/zero) until memory ran out.  A line of 99 bytes and \r is not too
# long (nor one of 100 and \r: below).
ml='  bash-5 [000] ..... 100.000001: tracing_mark_write: one'
printf '%s\n  bash-5 [000] ..... 100.000002: tracing_mark_write: %046d\r\n' "$ml" 0 > "$T/cap.trace"
rm -f "$T/db"
TRACEQL_TEST_MAX_LINE=100 $RUN "$TQ" --db "$T/db" import --ftrace "$T/cap.trace"
cp "$T/cap.trace" "$T/cap-first.trace"
printf '%0101d\n%s\n' 0 "$ml" >> "$T/cap.trace"
printf '             cat-2 [000] ..... 100.000003: vfs_read <-ksys_read%038d\n%s\n' 0 "$ml" \
        >> "$T/cap-first.trace"
printf '%s\n  bash-5 [000] ..... 100.000002: tracing_mark_write: %048d' "$ml" 0 > "$T/cap-cut.trace"
got=
for f in "$T/cap.trace" "$T/cap-first.trace" "$T/cap-cut.trace" -; do
        rc=0
        TRACEQL_TEST_MAX_LINE=100 $RUN "$TQ" --db "$T/db" import --ftrace "$f" < "$T/cap.trace" \
                2> "$T/err" || rc=$?
        got="$got$rc|$(cat "$T/err")|$($TQ --db "$T/db" --no-sync --format csv \
                'select count(*) from events' | tail -n 1);"
done
check_eq ftrace-line-too-long "4|traceql: $T/cap.trace:3: line too long (more than 100 bytes without a newline)|2;4|traceql: $T/cap-first.trace:3: line too long (more than 100 bytes without a newline)|2;4|traceql: $T/cap-cut.trace:2: line too long (more than 100 bytes without a newline)|2;4|traceql: <stdin>:3: line too long (more than 100 bytes without a newline)|2;" \
        "$got"
# Without the small cap the import of the file goes on after line 2: its
# offset stayed (the 101 bytes are line 2's text going on, stored before).
$RUN "$TQ" --db "$T/db" import --ftrace "$T/cap.trace"
check_eq ftrace-line-too-long-resumed "3|one" \
        "$($TQ --db "$T/db" --no-sync --format csv "select count(*) || '|' ||
                (select a0 from events order by id desc limit 1) from events" | tail -n 1)"

# The CR of a CRLF line is not one of the cap's bytes, as in the text
# importers: a CRLF line of 100 bytes is read as its LF twin is, from the
# file, standard input, and standard input whose CR and LF come in two
# reads; 101 bytes and the CRLF are too many, the database as it was.  The
# CR was counted: the CRLF line of 100 bytes was too long.
p100=$(printf '  bash-5 [000] ..... 100.000002: tracing_mark_write: %047d' 0)
printf '%s\n%s\n' "$ml" "$p100" > "$T/cap-lf.trace"
printf '%s\r\n%s\r\n' "$ml" "$p100" > "$T/cap-crlf.trace"
printf '%s\r\n%s0\r\n' "$ml" "$p100" > "$T/cap-over.trace"
capq="select count(*) || '/' || count(distinct length(a0)) || '/' || max(length(a0)) from events"
got=
for f in lf crlf crlf-stdin crlf-split over over-stdin over-split; do
        rm -f "$T/cap-$f.db"
        [ "${f#over}" = "$f" ] || cp "$T/cap-lf.db" "$T/cap-$f.db"
        rc=0
        case $f in
        *-stdin) TRACEQL_TEST_MAX_LINE=100 $RUN "$TQ" --db "$T/cap-$f.db" import --ftrace - \
                        < "$T/cap-${f%-stdin}.trace" 2> "$T/err" || rc=$? ;;
        *-split) { printf '%s\r\n%s\r' "$ml" "$p100"; sleep 0.5
                   if [ "$f" = crlf-split ]; then printf '\n'; else printf '0\r\n'; fi; } |
                 TRACEQL_TEST_MAX_LINE=100 $RUN "$TQ" --db "$T/cap-$f.db" import --ftrace - \
                        2> "$T/err" || rc=$? ;;
        *) TRACEQL_TEST_MAX_LINE=100 $RUN "$TQ" --db "$T/cap-$f.db" import --ftrace \
                        "$T/cap-$f.trace" 2> "$T/err" || rc=$? ;;
        esac
        got="$got$f $rc|$(cat "$T/err")|$($TQ --db "$T/cap-$f.db" --no-sync --format csv "$capq" |
                tail -n 1);"
done
check_eq ftrace-crlf-line-at-cap "lf 0||2/2/47;crlf 0||2/2/47;crlf-stdin 0||2/2/47;crlf-split 0||2/2/47;over 4|traceql: $T/cap-over.trace:2: line too long (more than 100 bytes without a newline)|2/2/47;over-stdin 4|traceql: <stdin>:2: line too long (more than 100 bytes without a newline)|2/2/47;over-split 4|traceql: <stdin>:2: line too long (more than 100 bytes without a newline)|2/2/47;" \
        "$got"

# Standard input fails at the first error as the file does: line 2 is not a
# trace line, line 3 an unfinished line past the cap.  Its copy stopped at
# line 3 and said so, the error of line 2 unseen.
printf '             cat-2 [000] ..... 100.000003: vfs_read <-ksys_read\nbad line\n%0200d' 0 \
        > "$T/cap-early.trace"
got=
for f in "$T/cap-early.trace" - pipe; do
        cp "$T/cap-lf.db" "$T/cap-early.db"
        rc=0
        if [ "$f" = pipe ]; then
                cat "$T/cap-early.trace" | TRACEQL_TEST_MAX_LINE=100 $RUN "$TQ" \
                        --db "$T/cap-early.db" import --ftrace - 2> "$T/err" || rc=$?
        else
                TRACEQL_TEST_MAX_LINE=100 $RUN "$TQ" --db "$T/cap-early.db" import --ftrace "$f" \
                        < "$T/cap-early.trace" 2> "$T/err" || rc=$?
        fi
        got="$got$rc|$(cat "$T/err")|$($TQ --db "$T/cap-early.db" --no-sync --format csv "$capq" |
                tail -n 1);"
done
check_eq ftrace-line-too-long-after-error "4|traceql: $T/cap-early.trace:2: not a trace line (no [CPU] field)|2/2/47;4|traceql: <stdin>:2: not a trace line (no [CPU] field)|2/2/47;4|traceql: <stdin>:2: not a trace line (no [CPU] field)|2/2/47;" \
        "$got"

# An entry of several lines (a marker's text holding newlines) holds no more
# than a line may, as a --log event joined from lines does: 100 bytes here,
# the newlines between its lines counted, the CR of a CRLF not.  The one of
# 101 bytes fails at its first line, the database as it was, the import of
# the file resumable.  There was no cap on the whole.
fl='             cat-2 [000] ..... 100.000003: vfs_read <-ksys_read'
{ echo "$fl"; echo "$ml"; printf 'second %013d\nthird %016d\n' 2 3; } > "$T/join.trace"
sed 's/$/\r/' "$T/join.trace" > "$T/join-crlf.trace"
joinq="select count(*) || '|' || max(length(a0)) from events"
got=
for f in join join-crlf; do
        rm -f "$T/$f.db"
        rc=0
        TRACEQL_TEST_MAX_LINE=100 $RUN "$TQ" --db "$T/$f.db" import --ftrace "$T/$f.trace" \
                2> "$T/err" || rc=$?
        got="$got$rc|$(cat "$T/err")|$($TQ --db "$T/$f.db" --no-sync --format csv "$joinq" |
                tail -n 1);"
done
check_eq ftrace-multi-line-at-cap "0||2|47;0||2|47;" "$got"
{ echo "${ml%1: *}4: tracing_mark_write: one"; printf 'second %013d\nthird %017d\n' 5 6; echo "$fl"; } \
        >> "$T/join.trace"
got=
for f in "$T/join.trace" -; do
        db=$T/join.db
        [ "$f" = - ] && db=$T/join2.db
        rc=0
        TRACEQL_TEST_MAX_LINE=100 $RUN "$TQ" --db "$db" import --ftrace "$f" \
                < "$T/join.trace" 2> "$T/err" || rc=$?
        got="$got$rc|$(cat "$T/err")|$(if [ -e "$db" ]; then $TQ --db "$db" --no-sync \
                --format csv "select count(*) from events" | tail -n 1; fi);"
done
# the first import committed 2 events; the second none, and left no database
check_eq ftrace-multi-line-too-long "4|traceql: $T/join.trace:5: event too long (more than 100 bytes joined from lines 5 to 7)|2;4|traceql: <stdin>:5: event too long (more than 100 bytes joined from lines 5 to 7)|;" \
        "$got"
$RUN "$TQ" --db "$T/join.db" import --ftrace "$T/join.trace"
check_eq ftrace-multi-line-too-long-resumed "4|47 48" "$($TQ --db "$T/join.db" --no-sync --format csv \
        "select count(*) || '|' || (select group_concat(length(a0), ' ') from events
         where event = 'tracing_mark_write') from events" | tail -n 1)"

# A CRLF file reads as the same file with LF: the CR before each newline
# goes, in the lines an entry goes on with as at the end of its last one, as
# --log drops it.  The lines after the first kept their CR (a message and a
# marker's text "first\r\nsecond\r\n\r\nthird", a kernel event's last
# argument "1\r"), a loss after a text, "CPU:1 [LOST 3 EVENTS]\r", was
# taken for the text going on, and an empty line, "\r", failed the import
# (line 12: 'not a trace line (no [CPU] field)').
printf '%s\n' '# tracer: nop' \
        '            bash-5       [000] .....   100.000001: tracing_mark_write: first' 'second' '' 'third' \
        '            bash-5       [000] .....   100.000002: sched_waking: comm=a pid=1' 'c d' \
        'CPU:1 [LOST 3 EVENTS]' \
        '            bash-5       [000] d..1.   100.000003: <stack trace>' ' => f1' ' => f2' \
        '' '            bash-5       [000] .....   100.000004: tracing_mark_write: x' > "$T/lf.trace"
sed 's/$/\r/' "$T/lf.trace" > "$T/crlf.trace"
crq="select event, replace(replace(message, char(13), '\\r'), char(10), '/'),
        replace(replace(a0, char(13), '\\r'), char(10), '/'), replace(a1, char(13), '\\r')
     from events order by id"
check_eq ftrace-crlf-multi-line "0|tracing_mark_write,tracing_mark_write first/second//third,first/second//third,|sched_waking,sched_waking comm=a pid=1/c d,a,1|tj_dropped,CPU:1 [LOST 3 EVENTS],3,|kernel_stack,<stack trace>/ => f1/ => f2,,|tracing_mark_write,tracing_mark_write x,x," \
        "$(ftrace_rows "$T/crlf.trace" "$crq")"
check_eq ftrace-crlf-as-lf "$(ftrace_rows "$T/lf.trace" "$crq")" "$(ftrace_rows "$T/crlf.trace" "$crq")"

# An event --events does not declare gets its columns from the line's
# name=value words: up to 10 columns, all 12 in the message, said once per
# event (as for any source); a name given again keeps its first value in its
# column (the second column of the same name held the first value, 5 was in
# no column); a name over 64 bytes has no column; past 64 arguments none is
# kept.  The last three are said once, with how many more, naming file and
# line.  Before, all but the first were silent.
L65=$(printf '%065d' 0 | tr 0 n)
{
        echo "             cat-2212    [000] .....   369.060000: big_event: a=1 b=2 c=3 d=4 e=5 f=6 g=7 h=8 i=9 j=10 k=11 l=12"
        echo "             cat-2212    [000] .....   369.060001: dup_event: a=1 a=5 b=2"
        echo "             cat-2212    [000] .....   369.060002: long_event: $L65=1 b=2"
        printf '             cat-2212    [000] .....   369.060003: huge_event:'
        i=0; while [ $i -lt 66 ]; do printf ' x%d=%d' $i $i; i=$((i + 1)); done; echo
} > "$T/manyargs.trace"
check_eq ftrace-undeclared-args-columns "0|big_event,1,10,10|dup_event,1,,2|long_event,2,,1|huge_event,0,9,10" \
        "$(ftrace_rows "$T/manyargs.trace" "select event, a0, a9, (select count(*) from event_args a where a.event = e.event) from events e order by id")"
check_eq ftrace-undeclared-args-said "traceql: event big_event has 12 arguments: the first 10 are its columns, all are in its message
traceql: event huge_event has 64 arguments: the first 10 are its columns, all are in its message
traceql: $T/manyargs.trace:2: argument a of dup_event given again: its column holds the first value, this one is in the row's message only; 2 more arguments so, the last at line 4" \
        "$(cat "$T/err")"
check_eq ftrace-undeclared-args-long "traceql: $T/long.trace:1: argument ${L65%?}... of long_event has a name longer than 64 bytes: no column, it is in the row's message only" \
        "$(sed -n 3p "$T/manyargs.trace" > "$T/long.trace"; ftrace_rows "$T/long.trace" "select 1" > /dev/null; cat "$T/err")"
