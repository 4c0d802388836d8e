#!/usr/bin/env bash
# Push 50,000 runs to a PostgreSQL store and report runs/s, then time
# `compare` of two labels on the server against the same on SQLite.
#
# Usage: bench/pg-push.sh postgres://user:pw@127.0.0.1:PORT/db [RUNS]
# (an empty database; .ci/run shows how to start a throwaway server).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
url=${1:?usage: $0 postgres://… [RUNS]}
runs=${2:-50000}
. "$here/bench/lib/kbench.sh"
kb=$(kbench_release "$here")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$runs" > "$tmp/runs.csv" <<'PY'
import random, sys
n = int(sys.argv[1]); random.seed(2)
print("label,benchmark,metric,unit,value,run")
for i in range(n):
    print(f"kernel-{i % 20:02d},hackbench,time,s,{random.gauss(10 + (i % 20) * 0.1, 0.3):.4f},{i}")
PY
"$kb" --db "$tmp/s.db" import "$tmp/runs.csv" --format csv -q
start=$(date +%s.%N)
"$kb" --db "$tmp/s.db" push --to "$url" -q
end=$(date +%s.%N)
python3 -c "d = $end - $start; print(f'push of $runs runs: {d:.1f} s, {$runs / d:.0f} runs/s')"
t() { /usr/bin/time -f '%e' "$@" 2>&1 >/dev/null | tail -1; }
echo "compare of 2 labels: SQLite $(t "$kb" --db "$tmp/s.db" compare --label kernel-00 --label kernel-07) s," \
     "PostgreSQL $(t "$kb" --db "$url" compare --label kernel-00 --label kernel-07) s"
