#!/usr/bin/env python3
# gen.py - write the xentrace test inputs of this folder from the record
# layout of xen/include/public/trace.h and tools/xentrace/xentrace.c: each
# record a u32 header (event id bits 0-27, data word count bits 28-30, bit 31
# when a u64 TSC follows as lo, hi), then the data words; each per-CPU window
# preceded by TRC_TRACE_CPU_CHANGE (0x0001f003) with the CPU and the window's
# byte count.  Little-endian.  Run from this folder: python3 gen.py
import struct

CPU_CHANGE = 0x0001f003
LOST = 0x0001f001


def rec(event, data=(), tsc=None):
    h = event | (len(data) << 28) | ((1 << 31) if tsc is not None else 0)
    b = struct.pack('<I', h)
    if tsc is not None:
        b += struct.pack('<II', tsc & 0xffffffff, tsc >> 32)
    return b + b''.join(struct.pack('<I', d) for d in data)


def window(cpu, records):
    body = b''.join(records)
    return rec(CPU_CHANGE, (cpu, len(body))) + body


def write(name, data):
    with open(name, 'wb') as f:
        f.write(data)


basic = (window(0, [rec(0x00081002, (0x7b, 0xffffffff), 1000),
                    rec(0x00081001, (), 1250),
                    rec(0x00021011, (0x00010002,), 5000)]) +
         window(1, [rec(0x00028004, (1, 0), 1100),
                    rec(0x00082001, (0xdeadb000, 0x14), 1300),
                    rec(LOST, (17, 0, 0, 0), 1400),
                    rec(0x00012345, (1, 2, 3, 4, 5, 6, 7)),
                    rec(0x00081002, (0x1e, 0xc0de), 2**40 + 5)]) +
         window(0, [rec(0x00081001, (), 6000)]))
write('basic.xt', basic)

# One record of each event of formats-xen.
xen = window(2, [rec(0x00022001, (), 10),
                 rec(0x00022006, (3,), 20),
                 rec(0x00022203, (0x00010002, 500, 1000, 7), 30),
                 rec(0x00022206, (4,), 40),
                 rec(0x0008200E, (0xd, 1, 2, 3, 4), 50),
                 rec(0x00082012, (0xd,), 60),
                 rec(0x0002800a, (1, 2, 0, 0x7fff), 70),
                 rec(0x00084006, (), 80),
                 rec(0x00000000, (9,), 90),
                 rec(0x00099999, (0xabc,), 100)])
write('xen.xt', xen)

# A TSC from 2^63 up, rendered unsigned as Python does.
write('tsc-high.xt', window(3, [rec(0x00081001, (), 2**63 + 5), rec(0x00081001, (), 2**64 - 1)]))

# A TSC that steps back on its CPU: reltsc is negative, as Python renders it
# (formats-back); and the flags of integer conversions on 0 and 12345.
write('tsc-back.xt', window(0, [rec(0x00081001, (), 1000), rec(0x00099998, (), 995),
                                rec(0x00099998, (), 2000), rec(0x00099997, (0, 12345))]))

# %c of a formats file (formats-back), Python 3's: UTF-8, U+FFFD where
# Python cannot render one (0, a surrogate, past U+10FFFF); and length
# modifiers, which Python accepts and ignores.
write('chars.xt', window(0, [rec(0x00099996, (65, 300, 0x1F600, 0xe9, 12345), 7),
                             rec(0x00099995, (0, 0xD800, 0x110000, 0xffffffff), 9)]))

# Buffer wrap records (TRC_TRACE_WRAP_BUFFER), which Xen writes to pad the
# end of a CPU's buffer without writing their data words: one with a TSC and
# 7 words of what the buffer held (40 bytes of padding), one without (16).
# They are no rows; the first one's TSC counts for the next reltsc.
WRAP = 0x0001f002
write('wrap.xt', window(0, [rec(0x00081001, (), 1000), rec(WRAP, (0xdeadbeef,) * 7, 1100),
                            rec(0x00081001, (), 1300)]) +
      window(1, [rec(WRAP, (0x5a5a5a5a, 0, 0x12345678)), rec(0x00021011, (0x00010002,), 5000)]))

# Malformed files; the expected messages are in bad.err.  A file that ends
# inside a window or a record whose start is valid is not one (xentrace may be
# in the middle of it: t-traceql-xentrace.sh cuts basic.xt); cut-* ones end
# inside a record that is wrong as far as it goes.
bad = {
    'nocpu': rec(0x00081001, (), 1),
    'cross': rec(CPU_CHANGE, (0, 8)) + rec(0x00081002, (1, 2), 5),
    'cpuwords': rec(CPU_CHANGE, (0,)),
    'bigcpu': rec(CPU_CHANGE, (1 << 20, 0)),
    'cut-nocpu': rec(0x00081001, (), 1)[:6],
    'cut-cross': window(0, [rec(0x00081001, (), 1)]) + rec(0x00081002, (1, 2), 5)[:9],
    'cut-cpuwords': rec(CPU_CHANGE, (0,))[:6],
    'cut-bigcpu': rec(CPU_CHANGE, (1 << 20, 0))[:9],
    # under a header word that no CPU change record starts with, where only
    # one may come: before the first, after a window
    'cut-head': b'\1\2',
    'cut-after': window(0, [rec(0x00081001, (), 1)]) + b'\1\2\3',
    # a CPU change record before its window's byte count is used up (the
    # count too large, or not a multiple of 4): xentrace writes a window's
    # bytes whole, after its CPU change record, and no other in it
    'inside': window(0, [rec(0x00081001, (), 1)])[:8] + struct.pack('<I', 16) +
              rec(0x00081001, (), 1) + window(1, [rec(0x00081001, (), 2)]),
    'inside-odd': window(0, [rec(0x00081001, (), 1)])[:8] + struct.pack('<I', 13) +
                  rec(0x00081001, (), 1) + window(1, [rec(0x00081001, (), 2)]),
    # a lost records record without the count of records lost (Xen's
    # have 1 data word, or 4)
    'lostcount': window(0, [rec(LOST, (), 5)]),
    'cut-lostcount': window(0, [rec(LOST, (), 5)])[:16],
    # the words of a big-endian host (Xen on PowerPC), byte-swapped here
    'bigendian': struct.pack('>IIIIII', CPU_CHANGE | 2 << 28, 0, 12, 0x00081001 | 1 << 31, 1, 0),
    'cut-inside': window(0, [rec(0x00081001, (), 1)])[:8] + struct.pack('<I', 40) +
                  rec(0x00081001, (), 1) + rec(CPU_CHANGE, (1, 12))[:6],
    # a CPU change record with a TSC: xentrace writes none (its header is
    # the id and 2 words), xenalyze fails on one
    'cputsc': window(0, [rec(0x00081001, (), 1)]) + rec(CPU_CHANGE, (1, 12), 7) +
              rec(0x00081001, (), 2),
    'cut-cputsc': window(0, [rec(0x00081001, (), 1)]) + rec(CPU_CHANGE, (1, 12), 7)[:6],
}
for name, data in bad.items():
    write('bad-%s.xt' % name, data)
