#!/usr/bin/env python3
# gen.py - write the simpletrace test inputs of this folder from the v4 layout
# (QEMU trace/simple.c, scripts/simpletrace.py): a header of three u64 (~0,
# magic, version), then records, each a u64 type: 0 = mapping (u64 id, u32
# length, name), 1 = event (u64 id, u64 ns, u32 length from the id on, u32
# pid, per argument a u64 or u32 length + bytes).  Little-endian, as the
# x86-64 and arm64 hosts write it.  Run from this folder: python3 gen.py
import struct

MAGIC = 0xf2b177cb0aa429b4
DROPPED = 0xfffffffffffffffe


def header(version=4):
    return struct.pack('<QQQ', 0xffffffffffffffff, MAGIC, version)


def mapping(eid, name):
    b = name.encode()
    return struct.pack('<QQI', 0, eid, len(b)) + b


def event(eid, ns, pid, *args, length=None):
    body = b''
    for a in args:
        if isinstance(a, bytes):
            body += struct.pack('<I', len(a)) + a
        else:
            body += struct.pack('<Q', a & 0xffffffffffffffff)
    n = 24 + len(body) if length is None else length
    return struct.pack('<QQQII', 1, eid, ns, n, pid) + body


def dropped(ns, pid, n):
    return event(DROPPED, ns, pid, n)


def write(name, data):
    with open(name, 'wb') as f:
        f.write(data)


# basic.st: strings, every kind, a dropped record, an id mapped late.
basic = (header() + mapping(0, 'tgb_req') +
         event(0, 1000, 42, 0x1000, 0, b'r0') +
         event(0, 2000, 42, 0x1001, 1, b'with space') +
         mapping(7, 'tga_all') +
         event(7, 2500, 42, -5, 2**64 - 1, 0, b'', -1, 255) +
         dropped(3000, 42, 3) +
         mapping(1, 'tgb_done') +
         event(1, 4000, 42, 0x1000) +
         mapping(2, 'tga_void') +
         event(2, 5000, 42) +
         event(1, 6000, 42, 0x1001))
write('basic.st', basic)

# Malformed files: name -> bytes; the expected messages are in bad.err.  A
# file that ends inside a record whose start is valid is not one (a writer may
# be in the middle of it: t-traceql-simpletrace.sh cuts basic.st); cut-* ones
# end inside a record that is wrong as far as it goes.
bad = {
    'short': struct.pack('<QQ', 0xffffffffffffffff, 0x1234)[:12],
    'magic': struct.pack('<QQQ', 0xffffffffffffffff, 0x1234, 4),
    'version': header(3),
    'reclen': header() + mapping(0, 'tgb_done') + event(0, 1, 1, 0x10, length=16),
    'nomapping': header() + event(5, 1, 1, 0x10),
    'undeclared': header() + mapping(0, 'other_event') + event(0, 1, 1),
    'length': header() + mapping(0, 'tgb_done') + event(0, 1, 1, 0x10, 0x20),
    'strlen': header() + mapping(0, 'tgb_req') + struct.pack('<QQQII', 1, 0, 1, 43, 1) +
              struct.pack('<QQI', 0x10, 0, 99) + b'abc',
    'type': header() + struct.pack('<Q', 9),
    'mapname': header() + mapping(0, 'bad name'),
    'dropped': header() + event(DROPPED, 1, 1, 2, 3),
    'namelen': header() + struct.pack('<QQI', 0, 0, 5000) + b'tgb_done',
    'reserved': header() + mapping(DROPPED, 'tgb_done'),
    # QEMU's and our clock give an int64_t: past it, mono would read negative
    'timestamp': header() + mapping(0, 'tga_void') + event(0, 2**63, 1),
    # a count that wraps the events' 64-bit count: it would give the event
    # after it the number of the one before (2^64-1 takes it back by one)
    'seqwrap': header() + mapping(0, 'tga_void') + event(0, 1, 1) +
               dropped(2, 1, 2**64 - 1) + event(0, 3, 1),
    # a count up to 2^64-1 is no error, an event after it is
    'seqpast': header() + mapping(0, 'tga_void') + event(0, 1, 1) +
               dropped(2, 1, 2**64 - 2) + event(0, 3, 1),
    # a good event first: a failure imports nothing
    'late': header() + mapping(0, 'tgb_done') + event(0, 1, 1, 0x10) + struct.pack('<Q', 9),
    'cut-type': header() + mapping(0, 'tgb_done') + b'\1\0\1',
    'cut-mapname': header() + mapping(0, 'bad name')[:24],
    'cut-nomapping': header() + event(5, 1, 1, 0x10)[:16],
    'cut-length': header() + mapping(0, 'tgb_done') + event(0, 1, 1, 0x10, length=40)[:36],
    'cut-strlen': header() + mapping(0, 'tgb_req') + event(0, 1, 1, 0x10, 0, b'x' * 99,
                                                          length=60)[:62],
}
for name, data in bad.items():
    write('bad-%s.st' % name, data)
