#!/usr/bin/env python3
"""Read cyclictest output (rt-tests `-q -h N`, or kbench's lines) on stdin
and print `avg_us=X p99_us=Y` over all threads.

rt-tests: avg is the sample-weighted mean of the per-thread `# Avg
Latencies`; p99 is the nearest-rank 99th percentile of the summed 1 us
histogram buckets (overflows count as beyond the last bucket).
kbench: the `all:` (or single thread's) summary line.
"""
import re
import sys

text = sys.stdin.read()
if "# Histogram" in text:
    buckets = {}
    for line in text.splitlines():
        if re.match(r"^\d{6} ", line):
            cols = [int(c) for c in line.split()]
            buckets[cols[0]] = sum(cols[1:])
    def row(name):
        m = re.search(r"^# %s: (.*)$" % name, text, re.M)
        return [int(v) for v in m.group(1).split()]
    totals, avgs, over = row("Total"), row("Avg Latencies"), row("Histogram Overflows")
    n = sum(totals) + sum(over)
    avg = sum(a * (t + o) for a, t, o in zip(avgs, totals, over)) / n
    rank, seen, p99 = 0.99 * n, 0, None
    for b in sorted(buckets):
        seen += buckets[b]
        if seen >= rank:
            p99 = b
            break
    if p99 is None:
        p99 = max(buckets) + 1
    print(f"avg_us={avg:.3f} p99_us={p99}")
else:
    lines = [l for l in text.splitlines() if re.match(r"^\s*(all|cpu\d+|t\d+): avg ", l)]
    line = next((l for l in lines if l.strip().startswith("all:")), lines[0])
    avg = float(re.search(r"avg ([0-9.]+)", line).group(1))
    p99 = float(re.search(r" p99 ([0-9.]+)", line).group(1))
    print(f"avg_us={avg:.3f} p99_us={p99}")
