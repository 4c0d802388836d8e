#!/usr/bin/env python3
"""Wake-up latencies of two schbench-like tools in RPS mode, pooled over runs.

In RPS mode a worker sleeps between its second's requests, so each run
records about one wake-up per worker per second: 20 samples in 10 s with
two workers.  Half of them are the worker woken onto the request
thread's own CPU, which runs as soon as the thread ends its burst and
sleeps (about 10 us after the last request posted to it: the wake-up
counts from that post), and half the worker woken onto the other CPU,
idle, which waits for an interrupt to reach it (tens to hundreds of us
on a VM whose idle CPU has halted).  A run's median sits between the
two clusters and swings between them from run to run.  A paired ratio of such medians
says little; the samples themselves, pooled over many runs, can be
compared.

Each command runs with -i 1 -z 1: every second prints its own block
(statistics zeroed after each), and a block of one, two or three samples
gives them exactly (p50 and max; min too from three on); a block of four
or more (two bursts in one second) gives those three and is counted as
such.  The
summary block at the end is left out.  A and B
run alternately, RUNS times each; the pooled samples are compared by
their quantiles (with a bootstrap 95 % interval of the ratio A/B, 2,000
resamples of runs, so runs stay whole) and by the share of samples over
300 us (the slow cluster).

  pooled-wakeups.py RUNS 'kbench --no-store schbench ARGS' 'schbench ARGS'
"""
import random
import re
import shlex
import subprocess
import sys

BLOCK = re.compile(
    r"Wakeup Latencies percentiles \(usec\) runtime \d+ \(s\) \((\d+) total samples\)\n"
    r"\s*\*? ?50\.0th: (\d+).*\n(?:.*\n)*?\s*min=(\d+), max=(\d+)")
SLOW_US = 300


def samples(text):
    """The wake-ups of each one-second block, as far as the block gives
    them.  `text` is stderr then stdout; its last block is the summary at
    the end (schbench's holds the wake-up that ends each worker at
    shutdown, which is not a measurement), so it is left out."""
    out = []
    for m in list(BLOCK.finditer(text))[:-1]:
        n, p50, lo, hi = map(int, m.groups())
        if n == 0:
            continue
        # The 50th percentile is the lowest sample of a block of one or
        # two; schbench's min reads 0 in a block after a zero (its zeroed
        # minimum is never raised), so min counts only from three on.
        if n == 1:
            out.append(p50)
        elif n == 2:
            out += [p50, hi]
        else:
            out += ([lo] if lo > 0 else []) + [p50, hi]
    return out


def quantile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    runs = int(sys.argv[1])
    cmds = {"A": sys.argv[2] + " -i 1 -z 1", "B": sys.argv[3] + " -i 1 -z 1"}
    per_run = {"A": [], "B": []}
    for i in range(runs):
        for side in ("A", "B") if i % 2 == 0 else ("B", "A"):
            p = subprocess.run(shlex.split(cmds[side]), capture_output=True, text=True)
            if p.returncode != 0:
                # Once in a while (one run in dozens here) schbench dies
                # without a word; say so and run it again, once.
                print(f"run {i + 1} {side} failed (exit {p.returncode}), running it again",
                      file=sys.stderr)
                p = subprocess.run(shlex.split(cmds[side]), capture_output=True, text=True)
            if p.returncode != 0:
                sys.exit(f"{side} failed (exit {p.returncode}): {(p.stderr or p.stdout).strip()[-200:]}")
            s = samples(p.stderr + p.stdout)
            per_run[side].append(s)
            print(f"run {i + 1} {side}: {s}", file=sys.stderr)
    pooled = {k: [x for r in v for x in r] for k, v in per_run.items()}
    if not pooled["A"] or not pooled["B"]:
        sys.exit("no wake-up samples")
    rng = random.Random(1)
    for name, q in (("p20", 0.2), ("p50", 0.5), ("p80", 0.8), ("p90", 0.9)):
        a, b = quantile(pooled["A"], q), quantile(pooled["B"], q)
        boots = []
        for _ in range(2000):
            ra = [x for r in rng.choices(per_run["A"], k=runs) for x in r]
            rb = [x for r in rng.choices(per_run["B"], k=runs) for x in r]
            if ra and rb:
                boots.append(quantile(ra, q) / max(quantile(rb, q), 1))
        boots.sort()
        lo, hi = boots[int(0.025 * len(boots))], boots[int(0.975 * len(boots)) - 1]
        print(f"pooled wake-up {name:4} A/B {a / max(b, 1):.3f} (95 % CI {lo:.3f}-{hi:.3f}; "
              f"A {a} us, B {b} us; {len(pooled['A'])} and {len(pooled['B'])} samples)")
    for k in ("A", "B"):
        slow = sum(1 for x in pooled[k] if x > SLOW_US)
        print(f"share over {SLOW_US} us, {k}: {slow / len(pooled[k]):.3f} ({slow} of {len(pooled[k])})")


if __name__ == "__main__":
    main()
