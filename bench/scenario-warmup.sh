#!/usr/bin/env bash
# Does the first repetition of a scenario phase differ from the rest here?
# (cyclictest's first repetition inside one `--runs N` command does: p99
# 2.5-8x, so it is stored marked warm-up.)  Runs a scenario of three
# phases (cyclictest 2 s idle, hackbench, a tiny generated build) with 8
# repetitions, TRIALS times, and prints each phase's headline by
# repetition and the rank of repetition 1 among the 8 (1 = lowest).  A
# warm-up would put repetition 1 at the same end in every trial.
#
# Usage: bench/scenario-warmup.sh [TRIALS]   (default 4)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
trials=${1:-4}
. "$here/bench/lib/kbench.sh"
kb=$(kbench_release "$here")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/warm.toml" <<'TOML'
name = "warm"
runs = 8
[[phase]]
name = "cyclictest"
[[phase.task]]
kind = "cyclictest"
args = { duration = "2s", threads = 1, priority = 98, mlockall = true }
[[phase]]
name = "hackbench"
[[phase.task]]
kind = "hackbench"
args = { groups = 4, fds = 4, loops = 2000 }
[[phase]]
name = "job"
[[phase.task]]
kind = "job"
args = { job-size = "tiny" }
TOML
for t in $(seq 1 "$trials"); do
    rm -f "$tmp/w.db"
    "$kb" run "$tmp/warm.toml" --db "$tmp/w.db" --label w -q >/dev/null 2>&1
    for pair in cyclictest:p99_us hackbench:time job:time; do
        b=${pair%%:*}; m=${pair#*:}
        "$kb" runs list --db "$tmp/w.db" --json | python3 -c '
import json, subprocess, sys
kb, db, bench, metric, trial = sys.argv[1:]
runs = [r for r in json.load(sys.stdin)["runs"] if r["benchmark"] == bench]
vals = []
for r in runs:
    d = json.loads(subprocess.run([kb, "runs", "show", str(r["id"]), "--db", db, "--json"],
                                  capture_output=True, text=True).stdout)
    rec = d["runs"][0] if "runs" in d else d
    vals.append(next(m["value"] for m in rec["metrics"] if m["name"] == metric))
rank = sorted(vals).index(vals[0]) + 1
print(f"trial {trial} {bench:10} {metric:6} rank of repetition 1: {rank}/{len(vals)}   " + " ".join(f"{v:.4g}" for v in vals))
' "$kb" "$tmp/w.db" "$b" "$m" "$t"
    done
done
