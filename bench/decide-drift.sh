#!/usr/bin/env bash
# kbench decide against ends stored in another batch, by simulation
# (seeded): how often a call exits wrongly (0 for a bad candidate, 1 for a
# good one) when the machine drifted by 10 % since the ends were stored,
# under the rule of testing against the ends as they were and under the
# midpoint rule decide uses.  Each cell's worse kind of candidate.
#
# Usage: bench/decide-drift.sh [CALLS]   (default 2000 a kind and cell)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
KBENCH_SIM_CALLS=${1:-2000} cargo test --release --quiet --bin kbench -- --ignored --nocapture decide_drift_figures 2>/dev/null \
    | grep -vE "^(running|test |$)"
