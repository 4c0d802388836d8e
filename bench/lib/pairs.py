#!/usr/bin/env python3
"""Paired A/B runs of two commands, several figures each.

Runs A and B alternately (the first of each pair swaps every pair, so
neither always runs on a fresher machine), takes each named figure from the
last match of its regex in a run's stdout+stderr, and prints for each
figure the median of the per-pair ratios A/B with their range.  Pairing
cancels the drift a shared machine shows between batches: quote ratios,
never absolute figures.

While a run goes, its threads' CPU time is sampled from
/proc/PID/task/*/schedstat (nanoseconds) every 0.2 s, its child
processes' too; --outside NAME adds two figures: "cpu outside NAME" is
the CPU seconds every thread whose name is not NAME used while threads
named NAME were running (from the first sample that saw one to the last:
the time a tool's own work can disturb what they measure), and "cpu
outside NAME, whole run" the same from start to exit (start-up and
reporting included).

  pairs.py --pairs 7 --a 'kbench schbench -r 10' --b 'schbench -r 10' \
      --figure 'rps=average rps: ([0-9.]+)' --outside schbench-worker

Without --figure, the figure is each command's wall time ("wall", s).
--warmup N runs each command N times first, unmeasured.  The last line
printed is the first figure's, so `| tail -1` gives one line.
"""
import argparse
import math
import os
import re
import shlex
import statistics
import subprocess
import sys
import threading
import time

def thread_cpu(pid, depth=0):
    """{(pid, tid): (name, cpu seconds)} of a live process's threads and of
    its descendants' (a helper process a tool starts, such as kbench's
    run-health monitor, is the tool's CPU too).  CPU time is the first
    field of schedstat, the scheduler's own count in nanoseconds (stat's
    utime and stime are in 10 ms ticks, too coarse for a main thread that
    wakes once a second)."""
    out = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                name = f.read().rstrip("\n")
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                ns = int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            continue
        out[(pid, tid)] = (name, ns / 1e9)
        if depth < 8:
            try:
                with open(f"/proc/{pid}/task/{tid}/children") as f:
                    kids = f.read().split()
            except OSError:
                kids = []
            for kid in kids:
                out.update(thread_cpu(int(kid), depth + 1))
    return out


def median_ci(xs):
    """Distribution-free 95 % confidence interval of the median: the
    order statistics x_(k) and x_(n-k+1), with k the largest rank for
    which P(Binomial(n, 1/2) < k) <= 0.025 (Conover, Practical
    Nonparametric Statistics, 3rd ed., sec. 3.2).  None below 6 values,
    where no such k exists."""
    n = len(xs)
    xs = sorted(xs)
    cdf, k = 0.0, 0
    for j in range(n + 1):
        # P(B <= j - 1) is the probability that fewer than j values lie
        # below the median.
        if cdf > 0.025:
            break
        k = j
        cdf += math.comb(n, j) / 2 ** n
    if k < 1:
        return None
    return xs[k - 1], xs[n - k]


def run_once(cmd, patterns, outside, timeout):
    start = time.monotonic()
    proc = subprocess.Popen(shlex.split(cmd), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    samples = []
    done = threading.Event()

    def sample():
        while not done.is_set():
            samples.append(thread_cpu(proc.pid))
            time.sleep(0.2)

    t = threading.Thread(target=sample, daemon=True)
    t.start()
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        done.set()
        return None, f"timed out after {timeout}s"
    wall = time.monotonic() - start
    done.set()
    t.join()
    if proc.returncode != 0:
        tail = (err or out).strip().splitlines()[-1:] or [""]
        return None, f"exit {proc.returncode}: {tail[0][:200]}"
    text = out + err
    figs = {} if patterns else {"wall": wall}
    for name, pat in patterns:
        found = re.findall(pat, text, re.MULTILINE)
        if not found:
            return None, f"no match for {name}"
        figs[name] = float(found[-1])
    if outside:
        figs[f"cpu outside {outside}"] = outside_cpu(samples, outside, window=True)
        figs[f"cpu outside {outside}, whole run"] = outside_cpu(samples, outside, window=False)
    return figs, None


def outside_cpu(samples, name, window):
    """CPU seconds of threads not named `name`: over the samples from the
    first to the last that saw a thread named `name` (window), or over
    all of them.  A thread counts from its value in the first sample of
    the span (0 if born later) to its last value within the span."""
    span = samples
    if window:
        has = [i for i, s in enumerate(samples) if any(n == name for n, _ in s.values())]
        if not has:
            return 0.0
        span = samples[has[0]:has[-1] + 1]
    if not span:
        return 0.0
    first = {k: c for k, (n, c) in span[0].items()} if window else {}
    last = {}
    for s in span:
        for k, (n, c) in s.items():
            if n != name:
                last[k] = c
    return sum(c - first.get(k, 0.0) for k, c in last.items())


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--a", required=True)
    ap.add_argument("--b", required=True)
    ap.add_argument("--figure", action="append", default=[],
                    help="NAME=REGEX with one group; the last match counts")
    ap.add_argument("--outside", help="thread name whose CPU is not counted")
    ap.add_argument("--pairs", type=int, default=7)
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--warmup", type=int, default=0)
    a = ap.parse_args()
    patterns = []
    for f in a.figure:
        name, _, pat = f.partition("=")
        if not pat:
            ap.error(f"--figure {f!r}: expected NAME=REGEX")
        patterns.append((name, pat))
    for _ in range(a.warmup):
        for side, cmd in (("a", a.a), ("b", a.b)):
            _, err = run_once(cmd, patterns, None, a.timeout)
            if err:
                print(f"warm-up {side}: {err}", file=sys.stderr)
                sys.exit(1)
    ratios = {}
    values = {}
    for i in range(a.pairs):
        order = [("a", a.a), ("b", a.b)] if i % 2 == 0 else [("b", a.b), ("a", a.a)]
        got = {}
        for side, cmd in order:
            figs, err = run_once(cmd, patterns, a.outside, a.timeout)
            if err:
                print(f"pair {i + 1} {side}: {err}", file=sys.stderr)
                sys.exit(1)
            got[side] = figs
        line = []
        for name in got["a"]:
            va, vb = got["a"][name], got["b"][name]
            r = va / vb if vb else float("nan")
            ratios.setdefault(name, []).append(r)
            values.setdefault(name, ([], []))
            values[name][0].append(va)
            values[name][1].append(vb)
            line.append(f"{name} {va:g}/{vb:g}")
        print(f"pair {i + 1}: " + ", ".join(line), file=sys.stderr)
    for name, rs in reversed(list(ratios.items())):
        ok = [r for r in rs if r == r]
        if not ok:
            print(f"{name:28} no ratio (B was 0)")
            continue
        va, vb = values[name]
        diffs = [x - y for x, y in zip(va, vb)]
        ci = median_ci(ok)
        ci = f"95 % CI {ci[0]:.3f}-{ci[1]:.3f}, " if ci else ""
        print(f"{name:28} median A/B {statistics.median(ok):.3f} "
              f"({ci}min {min(ok):.3f}, max {max(ok):.3f}, {len(ok)} pairs; "
              f"A {statistics.median(va):.4g}, B {statistics.median(vb):.4g}; "
              f"median A-B {statistics.median(diffs):+.3g})")


if __name__ == "__main__":
    main()
