#!/usr/bin/env bash
# Time of a `kbench compare` of 70 metrics, 5 runs a side, on normal
# runs (CV 5 %) and on log-normal runs (sigma 1: heavy tails, CV about
# 130 %), in alternating pairs; prints each pair and the median ratio
# log-normal / normal.  Goal: the log-normal report under 0.5 s (it took
# 9 CPU-seconds when "runs needed" scanned n one by one up to 100,000).
#
# Usage: bench/compare-heavy-tails.sh [PAIRS]   (default 5)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/bench/lib/kbench.sh"
kb=$(kbench_release "$here")
pairs=${1:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for kind in normal lognormal; do
python3 - "$kind" > "$tmp/$kind.csv" <<'PY'
import math, random, sys
random.seed(5)
print("label,benchmark,metric,unit,value,run,better")
for label in ("a", "b"):
    for r in range(5):
        for m in range(70):
            if sys.argv[1] == "lognormal":
                v = 100 * math.exp(random.gauss(0, 1))
            else:
                v = 100 * (1 + 0.05 * random.gauss(0, 1))
            print(f"{label},b,m{m},us,{v:.4f},{r},lower")
PY
"$kb" --db "$tmp/$kind.db" import "$tmp/$kind.csv" --format csv -q
done
secs() { # wall seconds of one compare
    local s e
    s=$(date +%s.%N); "$kb" --db "$1" compare > /dev/null; e=$(date +%s.%N)
    echo "$e - $s" | bc -l
}
ratios=()
for i in $(seq "$pairs"); do
    n=$(secs "$tmp/normal.db"); l=$(secs "$tmp/lognormal.db")
    r=$(echo "$l / $n" | bc -l)
    ratios+=("$r")
    printf 'pair %d: normal %.3f s, log-normal %.3f s, ratio %.2f\n' "$i" "$n" "$l" "$r"
done
printf '%s\n' "${ratios[@]}" | sort -g | awk '{a[NR]=$1} END {printf "median ratio log-normal / normal: %.2f\n", a[int((NR+1)/2)]}'
