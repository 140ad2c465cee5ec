#!/bin/sh
# t-security.sh - hostile input (issue 9):
#   - argument strings with newlines, a NUL, '=', ']', quotes, backslashes,
#     control bytes and invalid UTF-8 cannot forge a journal field (read back
#     with `journalctl -o export` and a strict export parser, then through
#     traceql import --export), a syslog line or an RFC 5424 parameter (the
#     datagrams read from a socket of the test's own, parsed as RFC 5424);
#   - traceql opens a database built by someone else safely: views and
#     triggers calling unsafe functions are refused (trusted_schema=OFF), no
#     write without --write, the file unchanged by queries;
#   - files the library creates are the owner's only (log output file 0600,
#     whatever the umask; the simple output: t-lib-simple.sh).
. "$(dirname "$0")/lib/common.sh"
E="$B/tests/lib-emit"
TQ="$B/traceql"
CHK="python3 $TOP/tests/sec-check.py"

# The hostile strings, as hex (lib-emit str:HEX).  The one with a NUL must
# arrive cut at the NUL, as any C string.
python3 - > "$T/strings" <<'PY'
for s in [b"line1\nTRACE_EVENT=forged\nMESSAGE=forged",
          b"\n\n__CURSOR=x\nTRACE_EVENT=forged2\n\n",
          b"a=b=c",
          b"q\"' ]] [x=\"y\"] \\",
          b"\xff\xfe\xc3(\xed\xa0\x80",
          b"before\x00after",
          b"\x01\x1b[31m\x7f\r\t"]:
    print(s.hex())
PY
steps=$(sed 's/^/str:/' "$T/strings" | tr '\n' ' ')
# What each string becomes: cut at the NUL; in syslog, control bytes as #ooo;
# in an RFC 5424 param value also each byte outside well-formed UTF-8.
python3 - "$T/strings" > "$T/expect-hex" <<'PY'
import sys
def sd(s):
    out, i = b"", 0
    while i < len(s):
        c = s[i]
        n = 1 if c < 0x80 else 2 if 0xc2 <= c <= 0xdf else 3 if 0xe0 <= c <= 0xef else 4 if 0xf0 <= c <= 0xf4 else 0
        try:
            ok = n > 0 and len(s[i:i + n].decode("utf-8")) == 1
        except UnicodeDecodeError:
            ok = False
        if c < 0x20 or c == 0x7f or not ok:
            out, i = out + b"#%03o" % c, i + 1
        else:
            out, i = out + s[i:i + n], i + n
    return out
for line in open(sys.argv[1]):
    s = bytes.fromhex(line.strip()).split(b"\0")[0]
    esc = b"".join(b"#%03o" % c if c < 0x20 or c == 0x7f else bytes([c]) for c in s)
    print(s.hex(), esc.hex(), sd(s).hex())
PY

# ---- journald, read back as journalctl -o export -------------------------
if have_journald && command -v journalctl > /dev/null; then
        id="$TJ_TEST_ID-j"
        # shellcheck disable=SC2086
        TJ_IDENTIFIER="$id" TJ_EVENTS=tga_all,tga_void $RUN "$E" init $steps void flush > /dev/null
        "$B/tests/journal-dump" "$id" until:TRACE_EVENT=tga_void TRACE_EVENT > /dev/null || true
        journalctl -q -o export SYSLOG_IDENTIFIER="$id" > "$T/j.export"
        $CHK export "$T/j.export" > "$T/j.got"
        { while read -r raw _; do echo "1 TRACE_EVENT fields: tga_all S=$raw"; done < "$T/expect-hex"
          echo "1 TRACE_EVENT fields: tga_void S="; } > "$T/j.exp"
        check_file sec-journald-no-forged-field "$T/j.exp" "$T/j.got"
        # The same stream through traceql's export reader: same bytes stored.
        $TQ --db "$T/j.db" import --export "$T/j.export" > /dev/null 2>&1 || true
        $TQ --db "$T/j.db" --no-sync --format csv \
                "select lower(hex(s)) from tga_all order by seq" | tail -n +2 > "$T/j.db.got"
        cut -d' ' -f1 "$T/expect-hex" > "$T/j.db.exp"
        check_file sec-journald-traceql-roundtrip "$T/j.db.exp" "$T/j.db.got"
        check_eq sec-journald-traceql-events "tga_all 7
tga_void 1" "$($TQ --db "$T/j.db" --no-sync --format csv \
                "select event, count(*) from events group by event order by event" |
                tail -n +2 | tr ',' ' ')"
else
        skip sec-journald "no journald socket or journalctl"
fi

# ---- syslog, both formats, from a socket of our own ----------------------
n=$(($(wc -l < "$T/strings")))
for fmt in rfc5424 rfc3164; do
        rm -f "$T/s.sock"
        $CHK recv "$T/s.sock" "$n" > "$T/$fmt.hex" &
        recv=$!
        i=0; while [ ! -S "$T/s.sock" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
        # shellcheck disable=SC2086
        TJ_OUTPUT=syslog TJ_SYSLOG_SOCKET="$T/s.sock" TJ_SYSLOG_FORMAT=$fmt TJ_EVENTS=tga_all \
                $RUN "$E" init $steps flush > /dev/null
        wait $recv || true
        tail -n +2 "$T/$fmt.hex" > "$T/$fmt.dgrams"
        $CHK $fmt "$T/$fmt.dgrams" > "$T/$fmt.got" 2>&1 || true
        if [ $fmt = rfc5424 ]; then
                # One SD-ELEMENT per datagram, exactly these parameters, arg_s
                # unescaped equal to the string (control bytes and bytes
                # outside well-formed UTF-8 as #ooo).
                while read -r raw esc sdesc; do
                        echo "tj@32473 event,group,seq,time_ns,mono_ns,tid,file,line,func,arg_i64,arg_u64,arg_ptr,arg_s,arg_i32,arg_u8 arg_s=$sdesc ctl=0"
                done < "$T/expect-hex" > "$T/$fmt.exp"
        else
                # One line per event: no control byte, the message as given.
                while read -r raw esc _; do
                        echo "ctl=0 tail=$(printf 'i64 1 u64 2 ptr 0x3 s ' | od -An -tx1 | tr -d ' \n')${esc}$(printf ' i32 4 u8 5' | od -An -tx1 | tr -d ' \n')"
                done < "$T/expect-hex" > "$T/$fmt.exp"
        fi
        check_file "sec-syslog-$fmt-no-forgery" "$T/$fmt.exp" "$T/$fmt.got"
done
# The RFC 5424 datagrams as a central server's file, imported: every
# argument's bytes come back (control and non-UTF-8 bytes were #ooo).
python3 -c 'import sys; sys.stdout.buffer.write(b"".join(bytes.fromhex(l.strip()) + b"\n" for l in open(sys.argv[1])))' \
        "$T/rfc5424.dgrams" > "$T/central.log"
$TQ --db "$T/sl.db" import --syslog "$T/central.log" --events "$TOP/tests/simpletrace/tgroup.trace-events" \
        > /dev/null 2>&1 || true
$TQ --db "$T/sl.db" --no-sync --format csv "select lower(hex(s)) from tga_all order by seq" |
        tail -n +2 > "$T/sl.got"
cut -d' ' -f1 "$T/expect-hex" > "$T/sl.exp"
check_file sec-syslog-rfc5424-traceql-roundtrip "$T/sl.exp" "$T/sl.got"

# ---- a database built by someone else ------------------------------------
$TQ --db "$T/evil.db" import --export "$TOP/tests/sql/fixture.export" > /dev/null
sqlite3 "$T/evil.db" "
create view evil_view as select load_extension('$T/nonexistent.so') as x;
create view evil_fts as select fts3_tokenizer('simple') as x;
create trigger evil_trigger after insert on events begin select load_extension('$T/nonexistent.so'); end;"
cp "$T/evil.db" "$T/evil.copy"
q() { rc=0; $TQ --db "$T/evil.db" --no-sync "$@" 2>&1 || rc=$?; echo "exit=$rc"; }
check_eq sec-db-view-unsafe-function "traceql: $T/evil.db: unsafe use of load_extension()
exit=1" "$(q 'select * from evil_view')"
check_eq sec-db-view-unsafe-fts "traceql: $T/evil.db: unsafe use of fts3_tokenizer()
exit=1" "$(q 'select * from evil_fts')"
check_eq sec-db-no-write-without-flag "traceql: $T/evil.db: attempt to write a readonly database (the database is opened read-only without --write)
exit=1" "$(q 'delete from events')"
check_file sec-db-unchanged-by-queries "$T/evil.copy" "$T/evil.db"
printf '__CURSOR=s=99999999999999999999999999999999;i=1;b=0123456789abcdef0123456789abcdef;m=1;t=1;x=1\n_PID=1\nTRACE_EVENT=ev\n\n' > "$T/one.export"
check_eq sec-db-trigger-unsafe-function "traceql: $T/evil.db: unsafe use of load_extension()
exit=4" "$(rc=0; $TQ --db "$T/evil.db" import --export "$T/one.export" 2>&1 || rc=$?; echo "exit=$rc")"
check_eq sec-db-trigger-nothing-imported "0" \
        "$($TQ --db "$T/evil.db" --no-sync --format csv "select count(*) from events where event = 'ev'" | tail -1)"

# ---- permissions of what the library creates -----------------------------
(umask 000; TJ_OUTPUT=log TJ_EVENTS=tgb_req $RUN "$E" "opt:file=$T/trace.log" init req:1 flush > /dev/null)
check_eq sec-log-file-mode "600" "$(stat -c %a "$T/trace.log" 2>&1)"
(umask 000; TJ_OUTPUT=simple TJ_SIMPLE_FILE="$T/trace.simple" TJ_EVENTS=tgb_req $RUN "$E" init req:1 flush > /dev/null)
check_eq sec-simple-file-mode-umask-000 "600" "$(stat -c %a "$T/trace.simple" 2>&1)"
