#!/usr/bin/env bash
# Scale of `kbench compare`: a store of 100,000 runs across 20 labels
# (imported from a generated CSV), then `compare` of two labels, timed and
# measured with GNU time.  Goals: under 1 s and under 100 MB.
#
# Needs GNU time (apt-get install time).  Usage: bench/compare-scale.sh [RUNS]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-100000}
. "$here/bench/lib/kbench.sh"
kb=$(kbench_release "$here")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$runs" > "$tmp/runs.csv" <<'PY'
import random, sys
n = int(sys.argv[1]); random.seed(1)
print("label,benchmark,metric,unit,value,run")
for i in range(n):
    label = f"kernel-{i % 20:02d}"
    bench = ("hackbench", "cyclictest", "coldwalk", "job")[(i // 20) % 4]
    base = 10 + (i % 20) * 0.1
    print(f"{label},{bench},time,s,{random.gauss(base, 0.3):.4f},{i}")
    print(f"{label},{bench},rate,msg/s,{random.gauss(1000 * base, 30):.1f},{i}")
PY
start=$(date +%s.%N)
"$kb" --db "$tmp/s.db" import "$tmp/runs.csv" --format csv -q
end=$(date +%s.%N)
echo "import of $runs runs: $(python3 -c "print(f'{$end - $start:.1f}')") s"
/usr/bin/time -f '%e %M' -o "$tmp/t" "$kb" --db "$tmp/s.db" compare --label kernel-00 --label kernel-07 > "$tmp/out.txt"
read -r wall rss < "$tmp/t"
echo "compare of 2 labels ($((runs / 10)) runs) out of $runs: ${wall} s, peak RSS $((rss / 1024)) MB"
head -12 "$tmp/out.txt" | tail -5
