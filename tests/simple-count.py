#!/usr/bin/env python3
"""simple-count.py FILE - count a simpletrace v4 file's records (t-load.sh,
bench/load.sh): prints "events=N dropped=D" where N counts event records and
D sums the counts of the dropped-event records (id 0xfffffffffffffffe)."""
import struct
import sys

DROPPED = 0xfffffffffffffffe
d = open(sys.argv[1], "rb").read()
o, events, dropped = 24, 0, 0
unpack = struct.unpack_from
while o < len(d):
    (t,) = unpack("=Q", d, o)
    o += 8
    if t == 0:
        eid, n = unpack("=QI", d, o)
        o += 12 + n
        continue
    eid, _, ln, _ = unpack("=QQII", d, o)
    if eid == DROPPED:
        dropped += unpack("=Q", d, o + 24)[0]
    else:
        events += 1
    o += ln
print("events=%d dropped=%d" % (events, dropped))
