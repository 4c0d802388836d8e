#!/usr/bin/env bash
# Fidelity of `kbench schbench` against schbench itself.
#
# Builds schbench from its source (default ../shared/peers/schbench beside
# the clone, or the folder given) in a temporary copy, then runs both
# alternately in pairs (bench/lib/pairs.py) on three shapes: -m 1 -t 2,
# -m 2 -t 4, and RPS mode at about half of what -m 1 -t 2 sustains here.
# Prints median paired ratios kbench/schbench with a distribution-free
# 95 % interval (from 6 pairs on).
#
# Runs are RUNTIME s (default 10) with a WARMUP s warm-up (default 0).
# schbench drops -w below -r 30 while kbench keeps it, so a warm-up
# under 30 s would make the two measure different seconds; for a real
# warm-up on both, RUNTIME=30 WARMUP=2.  CPU outside the workers counts
# every other thread of the tool and of the processes it starts (kbench's
# run-health monitor included), by the scheduler's nanosecond count: over
# the time the workers run ("cpu outside schbench-worker") and from start
# to exit ("..., whole run": start-up and report included).
#
# In RPS mode a run has about one wake-up per worker per second, half of
# them fast (the worker on the request thread's CPU, which runs when the
# thread ends its burst) and half slow (the worker on the other, idle,
# CPU), so a run's wake-up median jumps between the two from run to run.
# schbench's run summary also holds each worker's last wake-up, at
# shutdown, counted from when it went to sleep (about 0.5 s: its p99);
# kbench leaves that out, so schbench's median has one sample a worker
# more on the slow side.  After the RPS pairs a control runs schbench
# against itself on that shape, the same figures: how far apart two runs
# of one tool come here (a ratio of kbench's inside that spread says
# nothing against kbench); then the RPS shape runs again PAIRS times each
# with -i 1 -z 1 and its wake-ups are compared pooled over runs, summary
# blocks left out (bench/lib/pooled-wakeups.py).
# Goals: average RPS 0.95-1.05; request latency p50 and p99 0.9-1.1;
# wake-up latency p50 and p99 0.8-1.25; kbench's CPU time outside its
# workers no more than schbench's.
#
# Usage: [RUNTIME=S WARMUP=S] bench/schbench-vs-schbench.sh [PAIRS] [SCHBENCH_SOURCE_DIR]   (default 7 pairs)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
pairs=${1:-7}
src=${2:-$here/../shared/peers/schbench}
[ -f "$src/schbench.c" ] || { echo "schbench source not found in $src (give its folder)" >&2; exit 1; }
command -v gcc >/dev/null || { echo "gcc not found: apt-get install gcc" >&2; exit 1; }
. "$here/bench/lib/kbench.sh"
kb=$(kbench_release "$here")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$src" "$tmp/schbench"
# Its Makefile's flags plus 64-byte loop alignment: as built by the
# Makefile alone, gcc put do_some_math's inner loop across a 64-byte
# boundary, which on this project's AMD EPYC VM made every request 1.2x
# (-F 256) to 1.8x (-F 16) dearer than the very same loop aligned (a
# one-line change elsewhere in schbench.c moved the function by 16 bytes
# and the cost went with it).  Compared against that, the ratios would
# measure where a compiler put a loop, not the kernel; kbench aligns its
# loop the same way.  SCHBENCH_CFLAGS overrides.
cflags=${SCHBENCH_CFLAGS:--Wall -O2 -g -W -falign-loops=64}
make -s -C "$tmp/schbench" CFLAGS="$cflags" >/dev/null 2>&1 || { echo "building schbench failed" >&2; exit 1; }
sb=$tmp/schbench/schbench

lat() { # NAME BLOCK PERCENTILE-REGEX
    echo "$1=$2 Latencies percentiles[^\n]*\n(?:[^\n]*\n)*?\s*\*? ?$3th: (\d+)"
}
run() { # NAME ARGS... (A=kbench, or A=schbench for the control)
    local name=$1; shift
    local args="$*"
    local a="$kb --no-store schbench $args"
    [ "${A:-kbench}" = schbench ] && a="$sb $args"
    echo "== $name ($pairs pairs)"
    python3 "$here/bench/lib/pairs.py" --pairs "$pairs" --outside schbench-worker \
        --a "$a" --b "$sb $args" \
        --figure 'average rps=average rps: ([0-9.]+)' \
        --figure "$(lat 'request p50' Request '50\.0')" \
        --figure "$(lat 'request p99' Request '99\.0')" \
        --figure "$(lat 'wakeup p50' Wakeup '50\.0')" \
        --figure "$(lat 'wakeup p99' Wakeup '99\.0')" 2>/dev/null
}

runtime=${RUNTIME:-10}
warmup=${WARMUP:-0}
if [ "$warmup" -gt 0 ] && [ "$runtime" -lt 30 ]; then
    echo "schbench ignores -w below -r 30: give RUNTIME=30 or more with WARMUP" >&2
    exit 1
fi
common="-r $runtime -w $warmup -i 100"
run "-m 1 -t 2" -m 1 -t 2 $common
run "-m 2 -t 4" -m 2 -t 4 $common
cap=$("$sb" -m 1 -t 2 -r 5 -i 100 2>&1 | sed -n 's/^average rps: \([0-9]*\).*/\1/p')
half=$(( cap / 2 ))
run "-m 1 -t 2 -R $half (half of $cap)" -m 1 -t 2 -R "$half" $common
A=schbench run "control: schbench against itself, -m 1 -t 2 -R $half" -m 1 -t 2 -R "$half" $common
rps="-m 1 -t 2 -R $half -r $runtime -w $warmup"
echo "== -m 1 -t 2 -R $half: wake-ups pooled over $pairs runs each"
python3 "$here/bench/lib/pooled-wakeups.py" "$pairs" "$kb --no-store schbench $rps" "$sb $rps" 2>/dev/null
