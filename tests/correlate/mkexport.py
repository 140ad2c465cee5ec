#!/usr/bin/env python3
"""mkexport.py - turn a compact crafted trace into a journal export stream.

Each non-comment line: PID TID SEQ EVENT FILE:LINE [NAME:KIND=VALUE ...]
KIND is i, u, p or s.  The monotonic time is SEQ * 1000 ns (+ PID, so two
processes never tie), the realtime 1700000000 s after that.  PID@X puts the
event in boot XXXX... (X repeated) instead of the default one, PID%HOST (or
PID%HOST@X) on host HOST instead of crafted; SEQ/MONO gives
the monotonic time in ns, and -/MONO an event without TRACE_SEQ; SEQ/MONO/TIME
the time too, in ns after 1700000000 s (else MONO's), and a MONO of - an event
without TRACE_MONO_NS (-/-/TIME: neither, as a plain syslog line).  Used by
tests/t-correlate.sh to build exact inputs for traceql leaks / pairs.
"""
import sys

BOOT = "0123456789abcdef0123456789abcdef"
for n, line in enumerate(open(sys.argv[1]), 1):
    line = line.split("#", 1)[0].split()
    if not line:
        continue
    pid, tid, seq, event, site = line[:5]
    args = [a.split("=", 1) for a in line[5:]]
    boot, host = BOOT, "crafted"
    if "%" in pid:
        pid, host = pid.split("%")
        if "@" in host:
            host, b = host.split("@")
            pid += "@" + b
    if "@" in pid:
        pid, b = pid.split("@")
        boot = (b * 32)[:32]
    if "/" in seq:
        seq, mono, *t = seq.split("/")
        t = int(t[0]) if t else int(mono)
        mono = None if mono == "-" else int(mono)
    else:
        mono = t = int(seq) * 1000 + int(pid)
    f, ln = site.split(":")
    out = [
        "__CURSOR=s=fedcba9876543210fedcba9876543210;i=%x;b=%s;m=%x;t=1;x=1" % (n, boot, t),
        "__REALTIME_TIMESTAMP=%d" % (1700000000000000 + t // 1000),
        "__MONOTONIC_TIMESTAMP=%d" % (t // 1000),
        "_BOOT_ID=" + boot, "_HOSTNAME=" + host, "_PID=" + pid, "TID=" + tid,
        "SYSLOG_IDENTIFIER=crafted", "TRACE_GROUP=test", "TRACE_EVENT=" + event,
    ] + (["TRACE_SEQ=" + seq] if seq != "-" else []) + [
        "TRACE_TIME_NS=%d" % (1700000000000000000 + t),
    ] + (["TRACE_MONO_NS=%d" % mono] if mono is not None else []) + [
        "CODE_FILE=" + f, "CODE_LINE=" + ln, "CODE_FUNC=fn_" + ln,
        "TRACE_ARGS=" + " ".join(a[0] for a in args),
    ]
    out += ["TRACE_ARG_%s=%s" % (a[0].split(":")[0].upper(), a[1]) for a in args]
    out.append("MESSAGE=%s %s" % (event, " ".join(a[1] for a in args)))
    print("\n".join(out) + "\n")
