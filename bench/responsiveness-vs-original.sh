#!/usr/bin/env bash
# Fidelity of `kbench responsiveness` against the original
# os-scheduler-responsiveness-test script (responsiveness.py, public; pass
# its path).  Both run `-i1 -p2 --np 2` with the tasks' printing going to
# a file (kbench with -t as long as the original takes), paired with
# bench/lib/pairs.py; prints the median paired ratio kbench/original
# of the interactive worker's average response, and of the mean prime-worker
# time (the same trial-division work: an interpreted Python loop is far
# slower, so expect a ratio well below 1 there).
#
# The original runs in its own folder (it reads and writes `almarri` and
# `almarri2` there; kbench generates its own ~80 KB text file).  Note the
# published script picks each sleep at random from 1-3 s and has no -t;
# kbench cycles 1, 2, 3.
#
# Usage: bench/responsiveness-vs-original.sh PATH/TO/responsiveness.py [PAIRS]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
pairs_py=$here/bench/lib/pairs.py
orig=${1:?usage: $0 PATH/TO/responsiveness.py [PAIRS]}
pairs=${2:-3}
[ -f "$orig" ] || { echo "$orig not found" >&2; exit 1; }
command -v python3 >/dev/null || { echo "python3 not found" >&2; exit 1; }
. "$here/bench/lib/kbench.sh"
kb=$(kbench_release "$here")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$orig" "$tmp/responsiveness.py"
[ -f "$(dirname "$orig")/almarri" ] && cp "$(dirname "$orig")/almarri" "$tmp/almarri" \
    || python3 -c "
import sys
words = ['scheduler','latency','wakeup','preempt','runqueue','timer','kernel','task']
out, n = [], 0
while sum(map(len, out)) < 80 * 1024:
    out.append(' '.join(words[(n * 7 + k * 3) % 8] for k in range(10)) + ' line %d\n' % n); n += 1
open('$tmp/almarri', 'w').write(''.join(out))"
cat > "$tmp/b" <<B
#!/bin/sh
cd "$tmp" && python3 responsiveness.py -i1 -p2 --np 2 > "$tmp/out.txt" && grep -E "average|prime time" "$tmp/out.txt"
B
chmod +x "$tmp/b"
# kbench's prime work is much faster, so it runs its hogs for as long as
# the original takes (-t), measured once here.
start=$(date +%s.%N); "$tmp/b" > /dev/null; end=$(date +%s.%N)
secs=$(python3 -c "print(max(3, round($end - $start)))")
echo "the original took ${secs}s; kbench runs its prime workers as long (-t ${secs})"
cat > "$tmp/a" <<A
#!/bin/sh
"$kb" responsiveness -i1 -p2 --np 2 -t "$secs" --no-store --print-to "$tmp/kb-print.txt"
A
chmod +x "$tmp/a"
echo "median paired ratio kbench/original, $pairs pairs"
printf 'average response: '
python3 "$pairs_py" --pairs "$pairs" --timeout 600 --figure 'average=average:\s+([0-9.e-]+)' --a "$tmp/a" --b "$tmp/b" | tail -1
printf 'prime time (first worker): '
python3 "$pairs_py" --pairs "$pairs" --timeout 600 --figure 'prime=^0 prime time:\s+([0-9.e-]+)' --a "$tmp/a" --b "$tmp/b" | tail -1
