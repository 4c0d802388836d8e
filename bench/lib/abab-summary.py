#!/usr/bin/env python3
"""Read `abab.py --json` (kbench as A, rt-tests as B) on stdin and print one
line: the median paired ratio, its range, and each side's median figure.

Usage: abab-summary.py UNIT DIGITS   e.g. `abab-summary.py s 3`
"""
import json
import sys

unit, digits = sys.argv[1], int(sys.argv[2])
d = json.load(sys.stdin)
if d["median_ratio"] is None:
    print("no complete pair:", "; ".join(d["errors"]))
else:
    print("%.3f (min %.3f, max %.3f; kbench %.*f %s, rt-tests %.*f %s)" % (
        d["median_ratio"], d["min_ratio"], d["max_ratio"],
        digits, d["median_a"], unit, digits, d["median_b"], unit))
