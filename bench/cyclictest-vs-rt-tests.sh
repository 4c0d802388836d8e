#!/usr/bin/env bash
# Fidelity of `kbench cyclictest` against rt-tests' cyclictest.
#
# For each condition (idle; under `stress-ng --cpu 2`; under a hackbench
# loop) runs both alternately with bench/lib/pairs.py, SECONDS each,
# `--smp -p98 -m -i 1000 -d 0` (rt-tests also `-q -h 2000`), and prints the
# median paired ratio kbench/rt-tests of the all-thread average and p99
# (both from whole-microsecond samples, as rt-tests records them; see
# lib/ct-figures.py).  Goal: within
# 0.8-1.25.  Then compares the CPU time used by each measuring process
# (/usr/bin/time), idle: kbench should use no more than rt-tests.
#
# Needs root, rt-tests, stress-ng and GNU time:
#   apt-get install rt-tests stress-ng time
# Usage: bench/cyclictest-vs-rt-tests.sh [PAIRS] [SECONDS]   (default 5, 10)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
pairs_py=$here/bench/lib/pairs.py
pairs=${1:-5}
secs=${2:-10}
for t in cyclictest hackbench stress-ng; do
    command -v $t >/dev/null || { echo "$t not found: apt-get install rt-tests stress-ng" >&2; exit 1; }
done
[ -x /usr/bin/time ] || { echo "GNU time not found: apt-get install time" >&2; exit 1; }
. "$here/bench/lib/kbench.sh"
kb=$(kbench_release "$here")
figs="$here/bench/lib/ct-figures.py"
tmp=$(mktemp -d)
bg=""
cleanup() { [ -n "$bg" ] && kill -- -"$bg" 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT INT TERM

cat > "$tmp/a" <<A
#!/bin/sh
"$kb" cyclictest --smp -p98 -m -i 1000 -D $secs --no-store --json | python3 "$figs"
A
cat > "$tmp/b" <<B
#!/bin/sh
cyclictest --smp -p98 -m -i 1000 -d 0 -D $secs -q -h 2000 | python3 "$figs"
B
chmod +x "$tmp/a" "$tmp/b"

pair() {
    python3 "$pairs_py" --pairs "$pairs" --timeout $((secs * 3 + 30)) \
        --figure "$1=$1=([0-9.]+)" --a "$tmp/a" --b "$tmp/b" 2>/dev/null | tail -1
}
condition() {
    local name=$1; shift
    if [ $# -gt 0 ]; then
        setsid bash -c "$*" >/dev/null 2>&1 &
        bg=$!
        sleep 1
    fi
    printf '%-10s avg: %s\n' "$name" "$(pair avg_us)"
    printf '%-10s p99: %s\n' "$name" "$(pair p99_us)"
    if [ -n "$bg" ]; then kill -- -"$bg" 2>/dev/null || true; wait "$bg" 2>/dev/null || true; bg=""; fi
}

echo "median paired ratio kbench/rt-tests, $pairs pairs of ${secs}s each"
condition idle
condition stress-ng "exec stress-ng --cpu 2 --quiet"
condition hackbench "while true; do hackbench -g 2 -f 10 -l 2000 >/dev/null; done"

cpu() { /usr/bin/time -f '%U %S' "$@" 2>&1 >/dev/null | tail -1 | awk '{print $1 + $2}'; }
# Alternate pairs: a single sample is at the mercy of 10 ms tick accounting.
a=0; b=0
for i in 1 2 3 4; do
    a=$(python3 -c "print($a + $(cpu "$kb" cyclictest --smp -p98 -m -i 1000 -D "$secs" --no-store -q))")
    b=$(python3 -c "print($b + $(cpu cyclictest --smp -p98 -m -i 1000 -d 0 -D "$secs" -q))")
done
echo "CPU time of the measuring process, idle, 4 x ${secs}s: $(python3 -c "print(f'kbench {$a:.2f}s, rt-tests {$b:.2f}s, ratio {$a / $b:.2f}')")"
