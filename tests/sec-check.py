#!/usr/bin/env python3
"""sec-check.py - strict readers for t-security.sh.

  sec-check.py export FILE      journal export stream -> one line per entry:
                                "<n> TRACE_EVENT fields: <values> S=<hex of TRACE_ARG_S>"
  sec-check.py recv SOCKET N    bind a datagram socket, print N datagrams as hex
                                (30 s without one: exit 1, a hang guard)
  sec-check.py rfc5424 HEXFILE  parse each datagram as RFC 5424; print
                                "<sd-id> <param names> arg_s=<hex of unescaped value> ctl=<n>"
  sec-check.py rfc3164 HEXFILE  print "ctl=<control bytes> tail=<hex after 'tga_all '>"
"""
import socket
import struct
import sys


def export_entries(data):
    """Parse journal export format strictly; yields lists of (name, value)."""
    i, entry = 0, []
    while i < len(data):
        nl = data.index(b"\n", i)
        line = data[i:nl]
        i = nl + 1
        if not line:
            if entry:
                yield entry
            entry = []
            continue
        if b"=" in line:
            name, value = line.split(b"=", 1)
        else:
            name = line
            (size,) = struct.unpack("<Q", data[i:i + 8])
            value = data[i + 8:i + 8 + size]
            assert data[i + 8 + size:i + 9 + size] == b"\n", "binary field not followed by newline"
            i += 9 + size
        entry.append((name, value))
    if entry:
        yield entry


def cmd_export(path):
    for e in export_entries(open(path, "rb").read()):
        ev = [v.decode() for n, v in e if n == b"TRACE_EVENT"]
        s = [v.hex() for n, v in e if n == b"TRACE_ARG_S"]
        print("%d TRACE_EVENT fields: %s S=%s" % (len(ev), ",".join(ev), ",".join(s)))


def cmd_recv(path, n):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(path)
    s.settimeout(30)
    print("ready", flush=True)
    for _ in range(n):
        print(s.recv(65536).hex(), flush=True)


def sd_parse(msg):
    """Parse HEADER SP STRUCTURED-DATA of RFC 5424; return (sd elements, rest)."""
    fields = msg.split(b" ", 6)   # PRI+VERSION TIMESTAMP HOST APP PROCID MSGID SD...
    assert fields[0].startswith(b"<") and fields[0].endswith(b">1"), fields[0]
    sd, i, elems = fields[6], 0, []
    if sd.startswith(b"-"):
        return elems, sd[1:]
    while i < len(sd) and sd[i:i + 1] == b"[":
        j = i + 1
        while sd[j:j + 1] not in (b" ", b"]"):
            j += 1
        sdid, params, i = sd[i + 1:j].decode(), [], j
        while sd[i:i + 1] == b" ":
            eq = sd.index(b"=", i)
            name = sd[i + 1:eq].decode()
            assert sd[eq + 1:eq + 2] == b'"', "PARAM-VALUE must be quoted"
            k, val = eq + 2, bytearray()
            while sd[k:k + 1] != b'"':
                if sd[k:k + 1] == b"\\" and sd[k + 1:k + 2] in (b'"', b"\\", b"]"):
                    val += sd[k + 1:k + 2]
                    k += 2
                else:
                    assert sd[k:k + 1] != b"]", "unescaped ] in PARAM-VALUE"
                    val += sd[k:k + 1]
                    k += 1
            params.append((name, bytes(val)))
            i = k + 1
        assert sd[i:i + 1] == b"]", "SD-ELEMENT not closed"
        i += 1
        elems.append((sdid, params))
    return elems, sd[i:]


def cmd_rfc5424(path):
    for line in open(path):
        d = bytes.fromhex(line.strip())
        ctl = sum(1 for c in d if c < 0x20 or c == 0x7f)
        elems, _ = sd_parse(d)
        for sdid, params in elems:
            s = [v.hex() for n, v in params if n == "arg_s"]
            print("%s %s arg_s=%s ctl=%d" % (sdid, ",".join(n for n, _ in params),
                                             ",".join(s), ctl))


def cmd_rfc3164(path):
    for line in open(path):
        d = bytes.fromhex(line.strip())
        ctl = sum(1 for c in d if c < 0x20 or c == 0x7f)
        print("ctl=%d tail=%s" % (ctl, d.split(b": tga_all ", 1)[1].hex()))


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "export":
        cmd_export(sys.argv[2])
    elif cmd == "recv":
        cmd_recv(sys.argv[2], int(sys.argv[3]))
    elif cmd == "rfc5424":
        cmd_rfc5424(sys.argv[2])
    elif cmd == "rfc3164":
        cmd_rfc3164(sys.argv[2])
