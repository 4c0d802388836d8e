#!/usr/bin/env python3
"""Read cyclictest output on stdin and print `avg_us=X p99_us=Y` over all
threads, computed the same way for both tools so the ratio compares the
kernel's behaviour, not the tools' arithmetic.

rt-tests truncates every sample to whole microseconds (and truncates its
printed average once more), so both figures come from whole-microsecond
samples: rt-tests' `-h` buckets, and kbench's `--json` histogram with each
value floored to a microsecond.  avg is the mean of those samples; p99 the
nearest-rank 99th percentile.  rt-tests overflows (beyond the last bucket)
count as the last bucket + 1.
"""
import json
import re
import sys

def figures(samples):
    """samples: list of (whole_us, count)."""
    n = sum(c for _, c in samples)
    avg = sum(v * c for v, c in samples) / n
    rank, seen = 0.99 * n, 0
    for v, c in sorted(samples):
        seen += c
        if seen >= rank:
            return avg, v
    return avg, max(v for v, _ in samples)

text = sys.stdin.read()
if "# Histogram" in text:
    buckets = {}
    last = 0
    for line in text.splitlines():
        if re.match(r"^\d{6}[ \t]", line):
            cols = [int(c) for c in line.split()]
            buckets[cols[0]] = buckets.get(cols[0], 0) + sum(cols[1:])
            last = max(last, cols[0])
    over = sum(int(v) for v in re.search(r"^# Histogram Overflows: (.*)$", text, re.M).group(1).split())
    samples = list(buckets.items()) + ([(last + 1, over)] if over else [])
else:
    doc = json.loads(text)
    merged = {}
    for value_ns, count in doc["runs"][0]["histogram_ns"]:
        merged[value_ns // 1000] = merged.get(value_ns // 1000, 0) + count
    samples = list(merged.items())
avg, p99 = figures(samples)
print(f"avg_us={avg:.3f} p99_us={p99}")
