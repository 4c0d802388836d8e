#!/usr/bin/env bash
# Does --isolate make hackbench steadier?  The coefficient of variation of
# hackbench's Time over RUNS runs each of kbench hackbench with --isolate,
# without, and rt-tests hackbench, interleaved in one batch (round-robin,
# so the machine's drift falls on all three alike).  Goal: kbench with
# --isolate no more variable than rt-tests.
#
# Needs root (cpusets) and rt-tests (apt-get install rt-tests).
# Usage: bench/isolation-cv.sh [RUNS]   (default 20)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-20}
command -v hackbench >/dev/null || { echo "rt-tests hackbench not found: apt-get install rt-tests" >&2; exit 1; }
. "$here/bench/lib/kbench.sh"
kb=$(kbench_release "$here")
args=(-P -g 4 -f 4 -l 5000)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for i in $(seq "$runs"); do
    "$kb" hackbench --no-store --isolate "${args[@]}" 2>/dev/null | sed -n 's/^Time: //p' >> "$tmp/iso"
    "$kb" hackbench --no-store "${args[@]}" 2>/dev/null | sed -n 's/^Time: //p' >> "$tmp/plain"
    hackbench "${args[@]}" | sed -n 's/^Time: //p' >> "$tmp/rt"
done
python3 - "$tmp" <<'PY'
import statistics, sys
d = sys.argv[1]
for name, label in (("iso", "kbench --isolate"), ("plain", "kbench"), ("rt", "rt-tests")):
    v = [float(x) for x in open(f"{d}/{name}")]
    cv = statistics.stdev(v) / statistics.mean(v) * 100
    print(f"{label:18} n={len(v)} mean {statistics.mean(v):.3f} s  CV {cv:.1f} %")
PY
