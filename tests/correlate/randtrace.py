#!/usr/bin/env python3
"""randtrace.py SEED - a random crafted trace (mkexport.py's format) for
traceql leaks and pairs: a few processes (pids on two boots, a pid reused,
traces begun mid-run), allocations, frees and reallocs of a small pool of
addresses, begins and ends of requests; events without TRACE_SEQ, without a
monotonic time; the lines in event order, or some or all of them moved.
tests/t-correlate.sh checks that the scan in row order finds what the sort
does, whatever the order the rows were stored in."""
import random
import sys

rnd = random.Random(int(sys.argv[1]))
lines = []
t = 0
for proc in range(rnd.randint(1, 4)):
    pid = str(rnd.choice([100, 101, 102]))
    if rnd.random() < 0.3:
        pid += "@" + rnd.choice("ab")
    runs = 2 if rnd.random() < 0.2 else 1
    noseq = rnd.random() < 0.25    # a process without TRACE_SEQ (some events of it)
    for run in range(runs):
        seq = 1 if rnd.random() < 0.7 else rnd.randint(2, 50)
        for _ in range(rnd.randint(1, 40)):
            t += rnd.randint(1, 3000)
            ev = rnd.choice("mmffrbbe")
            addr = "0x%x" % (16 * rnd.randint(0, 6))
            args = {"m": "size:u=%d p:p=%s" % (rnd.randint(1, 99), addr),
                    "f": "p:p=" + addr,
                    "r": "old:p=%s new:p=0x%x size:u=5" % (addr, 16 * rnd.randint(0, 6)),
                    "b": "req:p=%s w:i=%d" % (addr, rnd.randint(0, 1)),
                    "e": "req:p=" + addr}[ev]
            if noseq and rnd.random() < 0.5:
                when = rnd.choice(["-/%d" % t, "-/-/%d" % t])
            else:
                when = "%d/%d" % (seq, t)
            lines.append("%s 7 %s %s c.c:%d %s" % (pid, when, ev, rnd.randint(1, 3), args))
            seq += 1
how = rnd.random()
if how < 0.3:
    rnd.shuffle(lines)
elif how < 0.6 and len(lines) > 2:
    i, j = sorted(rnd.sample(range(len(lines)), 2))
    lines.insert(i, lines.pop(j))
print("\n".join(lines))
