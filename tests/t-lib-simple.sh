#!/bin/sh
# t-lib-simple.sh - the simple output: a simpletrace v4 file (header, event
# mappings, event records with string arguments), decoded here by a small
# reader written from QEMU's scripts/simpletrace.py layout; mode 0600.
# No Debian package ships simpletrace.py (qemu-system-common, qemu-utils and
# qemu-system-data checked): QEMU's own reader was run by hand on this output
# (see backend/out_simple.c); t-traceql-simpletrace.sh imports it back.
. "$(dirname "$0")/lib/common.sh"
E="$B/tests/lib-emit"

TJ_OUTPUT=simple TJ_SIMPLE_FILE="$T/trace" TJ_EVENTS=tgb_req,tga_void \
        $RUN "$E" init req:2 void flush > /dev/null 2> "$T/err"
check_eq lib-simple-no-warning "" "$(cat "$T/err")"
check_eq lib-simple-mode 600 "$(stat -c %a "$T/trace")"
python3 - "$T/trace" > "$T/got" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
hid, magic, ver = struct.unpack_from('=QQQ', d, 0)
print('header %x %x %d' % (hid, magic, ver))
o, names = 24, {}
while o < len(d):
    (t,) = struct.unpack_from('=Q', d, o); o += 8
    if t == 0:
        eid, n = struct.unpack_from('=QI', d, o); o += 12
        names[eid] = d[o:o + n].decode(); o += n
        print('mapping', names[eid])
    else:
        eid, ts, ln, pid = struct.unpack_from('=QQII', d, o)
        body = d[o + 24:o + ln]; o += ln
        print('event', names.get(eid, eid), ln, body.hex())
PY
cat > "$T/exp" <<OUT
header ffffffffffffffff f2b177cb0aa429b4 4
mapping tgb_req
event tgb_req 46 00100000000000000000000000000000020000007230
OUT
head -3 "$T/got" > "$T/got3"
check_file lib-simple-records "$T/exp" "$T/got3"
check_eq lib-simple-count 6 "$(wc -l < "$T/got")"

# A fork child writes a file of its own (TJ_SIMPLE_FILE.<pid>): the parent's
# file has the parent's records only, one header (the child's copy of the
# unwritten buffer, header and all, used to land in its middle).
# Not under ASan or TSan (see t-lib-async.sh: a forked child can deadlock).
case "${SANITIZE:-}" in
*address*|*thread*)
        skip lib-simple-fork "the ASan and TSan runtimes can deadlock in a forked child" ;;
*)
        TJ_OUTPUT=simple TJ_SIMPLE_FILE="$T/fk" TJ_EVENTS=tgb_req $RUN "$E" init req:200 fork:2 flush \
                > /dev/null 2> "$T/err"
        set -- "$T"/fk.*
        check_eq lib-simple-fork-files "1|" "$#|$(cat "$T/err")"
        counts=
        for f in "$T/fk" "$1"; do
                rm -f "$T/fk.db"
                "$B/traceql" --db "$T/fk.db" import --simpletrace "$f" \
                        --events "$TOP/tests/simpletrace/tgroup.trace-events" 2>&1
                counts="$counts $("$B/traceql" --db "$T/fk.db" --no-sync --format csv \
                        "select count(*) || ':' || count(distinct pid) as n from events" | tail -n 1)"
        done
        check_eq lib-simple-fork-own-file " 200:1 2:1" "$counts"
        check_eq lib-simple-fork-child-pid "${1##*.}" "$("$B/traceql" --db "$T/fk.db" --no-sync --format csv \
                'select distinct pid from events' | tail -n 1)" ;;
esac

# st_names FILE: "header,EVENT,EVENT..." of a simple trace file ("bad-header"
# first when its header is not one, "unreadable" last where it cannot be read
# on), dropped-events records as their id
st_names() {
        python3 - "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
o, names = 24, {}
ok = struct.unpack_from('=QQQ', d, 0) == (2**64 - 1, 0xf2b177cb0aa429b4, 4)
out = ['header' if ok else 'bad-header']
try:
    while o < len(d):
        (t,) = struct.unpack_from('=Q', d, o); o += 8
        if t == 0:
            eid, n = struct.unpack_from('=QI', d, o); o += 12
            names[eid] = d[o:o + n].decode(); o += n
        else:
            eid, ts, ln, pid = struct.unpack_from('=QQII', d, o)
            o += max(ln, 24)
            out.append(str(names.get(eid, eid)))
except (struct.error, UnicodeDecodeError):
    out.append('unreadable')
print(','.join(out))
PY
}

# A fork child that closes the output and opens it again (tj_shutdown() then
# tj_init(), an outputs change away and back) still writes its own file: the
# reopen took TJ_SIMPLE_FILE itself, truncated the parent's file and put the
# child's records in it, the parent's next ones after a hole of zeros.
case "${SANITIZE:-}" in
*address*|*thread*)
        skip lib-simple-fork-reopen "the ASan and TSan runtimes can deadlock in a forked child" ;;
*)
        for steps in shutdown+init+req:1 req:1+outputs:nop+outputs:simple+req:1; do
                rm -f "$T"/fr "$T"/fr.*
                TJ_OUTPUT=simple TJ_SIMPLE_FILE="$T/fr" TJ_EVENTS=tgb_req $RUN "$E" init req:2 \
                        flush "forkdo:$steps" req:1 flush > /dev/null 2> "$T/err" || true
                got=
                for f in "$T"/fr "$T"/fr.*; do
                        [ -e "$f" ] || continue
                        got="$got $(basename "$f" | sed 's/\.[0-9]*$/.PID/'):$(st_names "$f")"
                done
                case $steps in
                shutdown*) child=header,tgb_req ;;
                *) child=header,tgb_req,tgb_req ;;
                esac
                check_eq "lib-simple-fork-reopen-${steps%%+*}" \
                        " fr:header,tgb_req,tgb_req,tgb_req fr.PID:$child|" "$got|$(cat "$T/err")"
        done
        # The output closed at the fork (outputs nop), opened by the child:
        # its records went into the parent's file, each process writing at
        # its own offset over the other's.
        rm -f "$T"/fr "$T"/fr.*
        TJ_OUTPUT=simple TJ_SIMPLE_FILE="$T/fr" TJ_EVENTS=tgb_req $RUN "$E" init req:2 flush \
                outputs:nop forkdo:outputs:simple+req:1 outputs:simple req:1 flush \
                > /dev/null 2> "$T/err" || true
        got=
        for f in "$T"/fr "$T"/fr.*; do
                [ -e "$f" ] || continue
                got="$got $(basename "$f" | sed 's/\.[0-9]*$/.PID/'):$(st_names "$f")"
        done
        check_eq lib-simple-fork-closed-own-file \
                " fr:header,tgb_req,tgb_req,tgb_req fr.PID:header,tgb_req|" "$got|$(cat "$T/err")" ;;
esac

# out_of_order FILE: "N M" of a simple trace file: N event records (not
# dropped-events ones), M of them timed before the one before them
out_of_order() {
        python3 - "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
o, times = 24, []
while o < len(d):
    (t,) = struct.unpack_from('=Q', d, o); o += 8
    if t == 0:
        eid, n = struct.unpack_from('=QI', d, o); o += 12 + n
    else:
        eid, ts, ln, pid = struct.unpack_from('=QQII', d, o)
        o += ln
        if eid != 0xfffffffffffffffe:
            times.append(ts)
print(len(times), sum(1 for a, b in zip(times, times[1:]) if b < a))
PY
}

# Several threads' events are written in the order they were traced: here
# each thread traces after the one before exited, so every record's time is
# at or after the one before it in the file.  The writer drained one ring
# after another (the newest thread's first), and a free traced by a second
# thread came before the allocation the first made (found comparing imports:
# traceql leaks on the simple file reported a leak and an unknown free).
steps=
for i in $(seq 40); do steps="$steps req:1 texit:1"; done
# shellcheck disable=SC2086
TJ_OUTPUT=simple TJ_SIMPLE_FILE="$T/order" TJ_EVENTS=tgb_req $RUN "$E" init $steps flush > /dev/null
check_eq lib-simple-threads-in-order "80 0" "$(out_of_order "$T/order")"

# The same while the writer thread has read its list of rings but waits for
# its lock, which tj_set_outputs() holds opening a FIFO as the ftrace marker
# (open() waits for a reader): meanwhile a new thread traces and exits, then
# the main thread traces.  The new thread's ring was not in the writer's list
# and the main thread's event went out first, one pass before it.  The sleep
# lets the writer reach its lock (it wakes at least every 64 ms); should it
# not have, the check passes without having tested this, never fails.
mkfifo "$T/marker"
TJ_OUTPUT=simple TJ_SIMPLE_FILE="$T/order2" TJ_FTRACE_MARKER="$T/marker" TJ_EVENTS=tgb_req \
        timeout 60 $RUN "$E" init req:1 flush bgoutputs:simple,ftrace sleep:200 texit:1 req:1 \
        fifo:"$T/marker" bgjoin flush > "$T/out"
check_eq lib-simple-threads-in-order-new-ring "bgoutputs simple,ftrace=0 3 0" "$(cat "$T/out") $(out_of_order "$T/order2")"

# A write that fails (RLIMIT_FSIZE: EFBIG, as a full disk's ENOSPC) costs
# the records not known written, and only them: the file is cut back to its
# last whole record, the losses counted and reported in a dropped-events
# record once writes go through again, and the file reads to its end.  The
# stream had left a record cut short in the file with the next ones after
# it (unreadable from there), and its lost buffer counted written.
TJ_OUTPUT=simple TJ_SIMPLE_FILE="$T/efbig" TJ_EVENTS=tgb_req $RUN "$E" init req:10 flush \
        fsize:5000 req:200 flush fsize:0 req:10 flush stats > "$T/out"
check_eq lib-simple-write-failed "ok" "$(python3 - "$T/efbig" "$(cat "$T/out")" <<'PY'
import re, struct, sys
d = open(sys.argv[1], 'rb').read()
st = dict(re.findall(r'(\w+)=(\d+)', sys.argv[2]))
o, mapped, events, dropped, sectors = 24, set(), 0, 0, []
while o + 8 <= len(d):
    (t,) = struct.unpack_from('=Q', d, o); o += 8
    if t == 0:
        eid, n = struct.unpack_from('=QI', d, o); o += 12 + n
        mapped.add(eid)
        continue
    eid, ts, ln, pid = struct.unpack_from('=QQII', d, o)
    if eid == 0xfffffffffffffffe:
        dropped += struct.unpack_from('=Q', d, o + 24)[0]
    elif eid in mapped:
        events += 1
        sectors.append(struct.unpack_from('=Q', d, o + 32)[0])
    else:
        break
    o += ln
got = (o, events, dropped, sectors[-10:])
want = (len(d), int(st['written']), int(st['dropped']), list(range(10)))
ok = got == want and st['emitted'] == '220' and dropped > 0
print('ok' if ok else 'file end %d/%d, events %d/%s, dropped %d/%s, last %s, stats %s' %
      (o, len(d), events, st['written'], dropped, st['dropped'], sectors[-10:], sys.argv[2]))
PY
)"

# At tj_shutdown() too: the losses of the flush's pass are reported by the
# writer's last pass, the file cut back far below the limit.
TJ_OUTPUT=simple TJ_SIMPLE_FILE="$T/efbig3" TJ_EVENTS=tgb_req $RUN "$E" init req:10 flush \
        fsize:5000 req:200 shutdown fsize:0 stats > "$T/out"
stats=$(cat "$T/out")
file=$(python3 "$TOP/tests/simple-count.py" "$T/efbig3" 2> /dev/null || echo unreadable)
check_eq lib-simple-write-failed-at-shutdown "ok" \
        "$(if [ "${stats#emitted=210 written=}" != "$stats" ] && [ "$file" != "events=210 dropped=0" ] &&
              [ "$file" = "$(echo "$stats" | sed 's/emitted=210 written=/events=/; s/ dropped=/ dropped=/')" ]; then
                echo ok; else echo "$stats | file $file"; fi)"

# The same beside an output that loses every event (a syslog socket that is
# not there): those events were counted dropped already, and the simple
# output's losses move none of them again (written went below zero).
TJ_OUTPUT=simple,syslog TJ_SYSLOG_SOCKET="$T/none.sock" TJ_SIMPLE_FILE="$T/efbig2" \
        TJ_EVENTS=tgb_req $RUN "$E" init req:10 flush fsize:5000 req:200 flush fsize:0 req:10 \
        flush stats > "$T/out"
check_eq lib-simple-write-failed-all-lost "emitted=220 written=0 dropped=220" "$(cat "$T/out")"

# Changing the outputs leaves an output that stays open: the simple file
# and the log's file= keep what they hold (reopening truncated both).
TJ_OUTPUT=simple TJ_SIMPLE_FILE="$T/kept" $RUN "$E" opt:file="$T/kept.log" init enable:tgb_req \
        req:100 flush outputs:simple,log,nop req:1 flush outputs:log,simple req:1 flush > /dev/null
check_eq lib-simple-outputs-changed-kept "events=102 dropped=0 2" \
        "$(python3 "$TOP/tests/simple-count.py" "$T/kept") $(wc -l < "$T/kept.log")"

# Each argument is written as QEMU's simple backend records it and
# simpletrace.py reads it: by the type as written (a string when it begins
# with 'const char *' or 'char *' and has one '*'), not by the conversion.  The record has
# no string for a 'const char *' printed with %p, nor an address for an
# 'unsigned char *' or a 'char const *' printed with %s: an empty string and
# address 0 keep the file readable, said once per event.  The reader below
# takes the arguments by the trace-events types as simpletrace.py does.
# The output wrote by the conversion: a pointer where the reader takes a
# string, and the rest of the file was read out of step.
printf '%s\n' 'st_cp(const char *s, int n) "s %p n %d"' \
        'st_us(const unsigned char *s, int n) "s %s n %d"' \
        'st_cc(char const *s, int n) "s %s n %d"' \
        'st_ok(const char*s, int n) "s %s n %d"' \
        'st_pp(char **v, int n) "v %p n %d"' > "$T/st.events"
printf '#include "st.h"\nint main(void) { tj_init("st"); trace_st_cp("ab", 1); trace_st_us((const unsigned char *)"cd", 2); trace_st_cc("ef", 3); trace_st_ok("gh", 4); trace_st_cp("ab", 5); trace_st_pp(NULL, 6); tj_shutdown(); return 0; }\n' \
        > "$T/st_main.c"
"$B/tracegen" --group=st --header="$T/st.h" --source="$T/st.c" "$T/st.events"
# shellcheck disable=SC2086
if ${CC:-cc} -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -I"$TOP/include" -I"$T" -o "$T/st" \
        "$T/st_main.c" "$T/st.c" "$B/libtracejournal.a" $SAN_FLAGS -lsystemd -lpthread 2> "$T/cc"; then
        TJ_QUIET=0 TJ_OUTPUT=simple TJ_SIMPLE_FILE="$T/st.trace" TJ_EVENTS='st_*' $RUN "$T/st" 2> "$T/err"
        python3 - "$T/st.events" "$T/st.trace" > "$T/got" <<'PY'
import re, struct, sys
types = {}
for line in open(sys.argv[1]):
    m = re.match(r'(\w+)\(([^)]*)\)', line)
    args = []
    for a in m.group(2).split(','):
        a = a.strip()
        args.append(a.rsplit('*', 1)[0] + '*' if '*' in a else a.rsplit(None, 1)[0])
    types[m.group(1)] = args
d = open(sys.argv[2], 'rb').read()
o, names = 24, {}
try:
    while o < len(d):
        (t,) = struct.unpack_from('=Q', d, o); o += 8
        if t == 0:
            eid, n = struct.unpack_from('=QI', d, o); o += 12
            names[eid] = d[o:o + n].decode(); o += n
            continue
        eid, ts, ln, pid = struct.unpack_from('=QQII', d, o)
        start, o, vals = o, o + 24, []
        for ty in types[names[eid]]:
            if ty.lstrip().startswith(('const char*', 'char*', 'const char *', 'char *')) and \
                    ty.count('*') == 1:
                (n,) = struct.unpack_from('=I', d, o)
                vals.append(repr(d[o + 4:o + 4 + n].decode())); o += 4 + n
            else:
                vals.append(hex(struct.unpack_from('=Q', d, o)[0])); o += 8
        print(names[eid], ' '.join(vals), 'length ok' if o - start == ln else 'length %d' % ln)
except Exception as e:
    print('unreadable at %d: %s' % (o, type(e).__name__))
PY
        cat > "$T/exp" <<'OUT'
st_cp '' 0x1 length ok
st_us 0x0 0x2 length ok
st_cc 0x0 0x3 length ok
st_ok 'gh' 0x4 length ok
st_cp '' 0x5 length ok
st_pp 0x0 0x6 length ok
OUT
        check_file lib-simple-args-as-qemu-reads "$T/exp" "$T/got"
        cat > "$T/exp" <<'OUT'
tracejournal: simple: st_cp: argument 's' ('const char *' printed with %p) is written as an empty string, as QEMU's simpletrace reads a string there
tracejournal: simple: st_us: argument 's' ('const unsigned char *' printed with %s) is written as address 0, as QEMU's simpletrace reads an address there
tracejournal: simple: st_cc: argument 's' ('char const *' printed with %s) is written as address 0, as QEMU's simpletrace reads an address there
OUT
        check_file lib-simple-args-as-qemu-reads-warning "$T/exp" "$T/err"
else
        fail lib-simple-args-as-qemu-reads-build "$(head -3 "$T/cc")"
fi

# Opened again in the same process (tj_shutdown() then tj_init(), or an
# outputs change away and back, which traceql ctl makes at any time), the
# file goes on after what it holds, with no second header, as the log
# output's file= does; truncated only when first opened.  Reopening
# truncated it: the events written before were gone, though counted
# written.
printf 'junk from an earlier run' > "$T/again"
TJ_OUTPUT=simple TJ_SIMPLE_FILE="$T/again" TJ_EVENTS=tgb_req $RUN "$E" init req:3 shutdown \
        init req:2 outputs:nop outputs:simple req:4 flush stats > "$T/out" 2>&1
check_eq lib-simple-reopen-appends "outputs nop=0
outputs simple=0
emitted=9 written=9 dropped=0
events=9 dropped=0 headers=1" \
        "$(cat "$T/out"; python3 "$TOP/tests/simple-count.py" "$T/again" 2>&1 | tr -d '\n';
           printf ' headers=%s' "$(od -An -tx8 -w8 -v "$T/again" | grep -c f2b177cb0aa429b4)")"
# A file the process opened before, then another one (TJ_SIMPLE_FILE set
# anew, the output closed and opened), then the first again, by its name or
# by another link to it: appended to, each file truncated only the first
# time the process opens it.  Only the file truncated last was remembered:
# coming back to A after B truncated A, its events lost though counted
# written.
printf 'junk' > "$T/sa"
printf 'junk' > "$T/sb"
ln -f "$T/sa" "$T/sa-link"
TJ_OUTPUT=simple TJ_SIMPLE_FILE="$T/sa" TJ_EVENTS=tgb_req $RUN "$E" init req:2 flush outputs:nop \
        setenv:TJ_SIMPLE_FILE="$T/sb" outputs:simple req:1 flush outputs:nop \
        setenv:TJ_SIMPLE_FILE="$T/sa" outputs:simple req:3 flush outputs:nop \
        setenv:TJ_SIMPLE_FILE="$T/sa-link" outputs:simple req:4 flush stats > "$T/out" 2>&1
got=
for f in sa sb; do
        got="$got $f: $(python3 "$TOP/tests/simple-count.py" "$T/$f" 2>&1 | tr -d '\n')"
        got="$got headers=$(od -An -tx8 -w8 -v "$T/$f" | grep -c f2b177cb0aa429b4)"
done
check_eq lib-simple-back-to-file-appends "emitted=10 written=10 dropped=0| sa: events=9 dropped=0 headers=1 sb: events=1 dropped=0 headers=1" \
        "$(grep -v '^outputs ' "$T/out")|$got"

# exit() while the file is a FIFO whose reader stopped reading but keeps it
# open: the bounded flush leaves the writer stuck in its write, and exit()
# completes, what was not written counted dropped.  The output wrote through
# stdio, and glibc's flush of every FILE at exit (_IO_cleanup, without the
# FILE's lock) blocked in write(2) for ever.  Not through $RUN: the writer
# left stuck at exit, as meant, is memcheck's "possibly lost" thread.
mkfifo "$T/stuck"
rc=0
TJ_OUTPUT=simple TJ_SIMPLE_FILE="$T/stuck" TJ_FLUSH_TIMEOUT_MS=200 TJ_EVENTS=tgb_req \
        timeout 20 "$E" atexitstats fifo:"$T/stuck" init req:20000 exit > "$T/out" 2>&1 || rc=$?
check_eq lib-simple-fifo-exit "0 ok" "$rc $(awk -F'[ =]' '/^emitted=/ {
        print ($2 == 20000 && $4 + $6 == $2 && $6 > 0 ? "ok" : $0) }' "$T/out")"

# A program started with standard output closed: the file was opened as
# descriptor 1, and the program's own printf() (stats here) went into it,
# between the records: the file could not be read past them.  It is above 2
# now: the output is lost to the program, as it asked, and the file reads.
rm -f "$T/fd1" "$T/fd1.db"
TJ_OUTPUT=simple TJ_SIMPLE_FILE="$T/fd1" TJ_EVENTS=tgb_req run_fdclosed 1 "$E" init req:2 flush \
        stats req:1 flush 2> "$T/err" || true
rc=0
"$B/traceql" --db "$T/fd1.db" import --simpletrace "$T/fd1" \
        --events "$TOP/tests/simpletrace/tgroup.trace-events" > "$T/imp" 2>&1 || rc=$?
check_eq lib-simple-stdout-closed-not-file "|0||3|0" "$(cat "$T/err")|$rc|$(cat "$T/imp")|$(
        "$B/traceql" --db "$T/fd1.db" --no-sync --format csv 'select count(*) from events' |
        tail -n 1)|$(grep -c emitted= "$T/fd1" || true)"
