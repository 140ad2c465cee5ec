#!/bin/sh
# t-doc-systemd.sh - the `traceql losses` example of tracejournal(7),
# RUNNING UNDER SYSTEMD: a process whose events journald's rate limit cut
# (a TRACE_SEQ gap, no tj_dropped report) next to journald's own
# "Suppressed N messages from UNIT" entry, imported from an export stream.
. "$(dirname "$0")/lib/common.sh"

cat > "$T/l.trace" <<'TR'
4242 4242 1 blk_req_submit b.c:3 req:p=0x2000
4242 4242 2 blk_req_complete b.c:4 req:p=0x2000 ret:i=0
4242 4242 9000 blk_req_submit b.c:3 req:p=0x3000
TR
python3 "$TOP/tests/correlate/mkexport.py" "$T/l.trace" |
        sed 's/^SYSLOG_IDENTIFIER=crafted$/SYSLOG_IDENTIFIER=blockdemo-trace/; s/^_HOSTNAME=crafted$/_HOSTNAME=vm1/' > "$T/l.export"
cat >> "$T/l.export" <<'EX'
__CURSOR=s=fedcba9876543210fedcba9876543210;i=99;b=0123456789abcdef0123456789abcdef;m=1;t=1;x=1
__REALTIME_TIMESTAMP=1700000000005000
__MONOTONIC_TIMESTAMP=5000
_BOOT_ID=0123456789abcdef0123456789abcdef
_HOSTNAME=vm1
_PID=1
_TRANSPORT=driver
SYSLOG_IDENTIFIER=systemd-journald
MESSAGE_ID=fe6faa94e7774663a0da52717891d8ef
MESSAGE=Suppressed 8997 messages from blockdemo.service

EX
"$B/traceql" --db "$T/db" import --export "$T/l.export"
check_eq doc-systemd-losses "journald_suppressed,vm1,,,8997,Suppressed 8997 messages from blockdemo.service
seq_gap,vm1,4242,blockdemo-trace,8997,seq 3..8999" \
        "$("$B/traceql" --db "$T/db" --no-sync --format csv losses | sed 1d | cut -d, -f1,3-7)"
# The page shows the same rows.
check_eq doc-systemd-man-example "2" "$(grep -cE \
        '^(journald_suppressed +0123\.\.\. +vm1 +8997 +Suppressed 8997 messages from blockdemo\.service|seq_gap +0123\.\.\. +vm1 +4242 +blockdemo-trace +8997 +seq 3\.\.8999)$' \
        "$TOP/man/tracejournal.7")"
