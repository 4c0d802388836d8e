#!/usr/bin/env bash
# track's power on short series beside Otava's (Apache Otava, PyPI
# apache-otava, the change-point detector of Hunter): 200 reports of 40
# series x 30 one-boot labels, one series with +5 % at a label drawn from
# 5..25, label SD 0, 1 and 3 %.  kbench holds its false discovery rate over
# the report; Otava, which has none, is given max_pvalue 0.05/40 on the
# changed series' label means (found: within a label of the change).
# Usage: bench/track-power.sh   (needs python3 with apache-otava)
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp)
trap 'rm -f "$out"' EXIT
cargo test --release --bin kbench track_power_beside_otava -- --ignored --nocapture 2>"$out" >/dev/null
grep '^kbench:' "$out"
python3 - "$out" <<'PY'
import sys, ast, collections
from otava.analysis import compute_change_points
found = collections.Counter(); total = collections.Counter()
for line in open(sys.argv[1]):
    if not line.startswith("series: "):
        continue
    sd, at, rest = line[8:].split(" ", 2)
    means = ast.literal_eval(rest)
    cps, _ = compute_change_points(means, window_len=30, max_pvalue=0.05 / 40)
    total[sd] += 1
    if any(abs(c.index - int(at)) <= 1 for c in cps):
        found[sd] += 1
for sd in sorted(total):
    print(f"otava: label SD {sd}: +5 % found in {found[sd]} of {total[sd]} reports")
PY
