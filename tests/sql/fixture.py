#!/usr/bin/env python3
# fixture.py - writes fixture.export, the journal export stream the golden
# queries (tests/sql/*.sql) run against: trace entries of two processes with
# every argument kind, 64-bit extremes, strings needing escapes (binary
# fields), a TRACE_SEQ gap, a tj_dropped report, journald's "Suppressed"
# note, an event colliding with a built-in table, and a non-trace entry.
# Run it only to change the fixture; the output is committed.
import struct
BOOT = "0123456789abcdef0123456789abcdef"
SID = "fedcba9876543210fedcba9876543210"
out = bytearray()
n = [0]


def entry(fields, binary=()):
    n[0] += 1
    i = n[0]
    rt = 1700000000000000 + i * 1000
    f = [("__CURSOR", "s=%s;i=%x;b=%s;m=%x;t=%x;x=%016x" % (SID, i, BOOT, i * 10, rt, i)),
         ("__REALTIME_TIMESTAMP", str(rt)), ("__MONOTONIC_TIMESTAMP", str(i * 10)),
         ("_BOOT_ID", BOOT), ("_HOSTNAME", "fixture"), ("PRIORITY", "6")]
    f += fields
    for k, v in f:
        vb = v.encode() if isinstance(v, str) else v
        if k in binary:
            out.extend(k.encode() + b"\n" + struct.pack("<Q", len(vb)) + vb + b"\n")
        else:
            out.extend(k.encode() + b"=" + vb + b"\n")
    out.extend(b"\n")


def trace(pid, seq, ev, sig, args, msg, binary=()):
    f = [("_PID", str(pid)), ("TID", str(pid + 1)), ("SYSLOG_IDENTIFIER", "qemu-trace"),
         ("TRACE_GROUP", "hw_block"), ("TRACE_EVENT", ev), ("TRACE_SEQ", str(seq)),
         ("TRACE_TIME_NS", str(1700000000000000000 + seq * 1000 + pid)),
         ("TRACE_MONO_NS", str(5000 + seq)), ("CODE_FILE", "hw/block/virtio-blk.c"),
         ("CODE_LINE", "100"), ("CODE_FUNC", "virtio_blk_handle_request")]
    if sig is not None:
        f.append(("TRACE_ARGS", sig))
    for k, v in args:
        f.append(("TRACE_ARG_" + k.upper(), v))
    f.append(("MESSAGE", msg))
    entry(f, binary)


W = "req:p sector:u nb_sectors:u"
trace(100, 1, "virtio_blk_handle_write", W, [("req", "0x55d0c0a01000"), ("sector", "2048"), ("nb_sectors", "8")], "virtio_blk_handle_write req 0x55d0c0a01000 sector 2048 nb_sectors 8")
trace(100, 2, "qemu_vmalloc", "size:u ptr:p", [("size", "4096"), ("ptr", "0x7f0000001000")], "qemu_vmalloc size 4096 ptr 0x7f0000001000")
trace(100, 3, "virtio_blk_rw_complete", "req:p ret:i", [("req", "0x55d0c0a01000"), ("ret", "0")], "virtio_blk_rw_complete req 0x55d0c0a01000 ret 0")
trace(100, 4, "qemu_vfree", "ptr:p", [("ptr", "0x7f0000001000")], "qemu_vfree ptr 0x7f0000001000")
trace(100, 5, "virtio_blk_handle_write", W, [("req", "0xffffffffffffffff"), ("sector", "18446744073709551615"), ("nb_sectors", "1")], "virtio_blk_handle_write req 0xffffffffffffffff sector 18446744073709551615 nb_sectors 1")
trace(100, 8, "virtio_blk_rw_complete", "req:p ret:i", [("req", "0xffffffffffffffff"), ("ret", "-5")], "virtio_blk_rw_complete req 0xffffffffffffffff ret -5")
trace(100, 9, "qemu_vmalloc", "size:u ptr:p", [("size", "65536"), ("ptr", "0x7f0000020000")], "qemu_vmalloc size 65536 ptr 0x7f0000020000")
trace(100, 10, "blk_name", "name:s id:i", [("name", b'say "hi", then\nbye'), ("id", "1")], 'blk_name name say "hi", then\nbye id 1', binary=("TRACE_ARG_NAME", "MESSAGE"))
trace(100, 11, "blk_name", "name:s id:i", [("name", "caf\u00e9 \u2603"), ("id", "2")], "blk_name name caf\u00e9 \u2603 id 2")
trace(100, 12, "blk_name", "name:s id:i", [("name", b"bad\xffutf8\ttab"), ("id", "3")], "blk_name name bad utf8 id 3", binary=("TRACE_ARG_NAME",))
trace(100, 13, "blk_name", "name:s id:i", [("id", "4")], "blk_name name (null) id 4")
trace(100, 14, "sources", "order:i", [("order", "7")], "sources order 7")
entry([("_PID", "100"), ("SYSLOG_IDENTIFIER", "qemu-trace"), ("TRACE_EVENT", "tj_dropped"), ("TRACE_SEQ", "16"), ("TRACE_DROPPED", "3"), ("TRACE_TIME_NS", "1700000000000016100"), ("MESSAGE", "tj_dropped 3")])
trace(200, 1, "virtio_blk_handle_write", W, [("req", "0x55d0c0a02000"), ("sector", "0"), ("nb_sectors", "16")], "virtio_blk_handle_write req 0x55d0c0a02000 sector 0 nb_sectors 16")
trace(200, 2, "qemu_vmalloc", "size:u ptr:p", [("size", "512"), ("ptr", "0x7f0000001000")], "qemu_vmalloc size 512 ptr 0x7f0000001000")
entry([("_PID", "1"), ("_TRANSPORT", "driver"), ("SYSLOG_IDENTIFIER", "systemd-journald"), ("MESSAGE_ID", "fe6faa94e7774663a0da52717891d8ef"), ("MESSAGE", "Suppressed 12 messages from /system.slice/qemu.service")])
entry([("_PID", "1"), ("SYSLOG_IDENTIFIER", "systemd"), ("MESSAGE", "Started something.")])
open("fixture.export", "wb").write(out)
