#!/usr/bin/env bash
# Scale of `kbench compare`: one group of 1,000, 10,000 and 50,000 runs a
# side (the Hodges-Lehmann shift, its exact-rank interval and its
# equivalence test over all m*n pairwise differences, selected rather
# than sorted), then 100,000 runs in 50 groups of 1,000 a side; each
# compare timed and measured with GNU time.  Goals: 50,000 a side under
# 2 s and 200 MB; 100,000 runs in many groups under 1 s.
#
# Needs GNU time (apt-get install time).  Usage: bench/compare-scale.sh
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/bench/lib/kbench.sh"
kb=$(kbench_release "$here")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gen() { # gen RUNS_A_SIDE GROUPS > csv
python3 - "$1" "$2" <<'PY'
import random, sys
n, groups = int(sys.argv[1]), int(sys.argv[2]); random.seed(1)
print("label,benchmark,metric,unit,value,run")
run = 0
for g in range(groups):
    for label, base in (("a", 10.0), ("b", 10.2)):
        for i in range(n):
            run += 1
            print(f"{label},bench{g},time,s,{random.gauss(base, 0.3):.4f},{run}")
PY
}
timed() {
    /usr/bin/time -f '%e %M' -o "$tmp/t" "$@" > "$tmp/out" 2> "$tmp/err" || { cat "$tmp/err"; return 1; }
    read -r wall rss < "$tmp/t"
    echo "${wall} s, peak RSS $((rss / 1024)) MB"
}
for n in 1000 10000 50000; do
    gen "$n" 1 > "$tmp/runs.csv"
    rm -f "$tmp/s.db"*
    "$kb" --db "$tmp/s.db" import "$tmp/runs.csv" --format csv -q
    for t in welch mann-whitney; do
        echo "compare of $n runs a side, --test $t: $(timed "$kb" --db "$tmp/s.db" compare --test "$t")"
    done
done
gen 1000 50 > "$tmp/runs.csv"
rm -f "$tmp/s.db"*
"$kb" --db "$tmp/s.db" import "$tmp/runs.csv" --format csv -q
echo "compare of 100,000 runs in 50 groups of 1,000 a side: $(timed "$kb" --db "$tmp/s.db" compare)"
grep -m1 "better\|worse\|equivalent" "$tmp/out" || true
