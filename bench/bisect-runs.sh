#!/usr/bin/env bash
# How many runs a bisection spends, and how often it names the right
# culprit: seeded simulated bisections over 64 candidates (a culprit
# drawn among them, never an end), shifts of 5, 10 and 30 % at a CV of 5
# and 20 %, for kbench's own search (its real decision code, with drawn
# values in place of runs) beside a model of Chromium's Pinpoint (10, 20,
# 40, 80, 160 runs a commit, the smaller of the Mann-Whitney and
# Kolmogorov-Smirnov p-values below 0.01, uncorrected).
#
# Goal: kbench's culprit right at least 1 - alpha of the time, with fewer
# runs than Pinpoint's schedule.
#
# Usage: bench/bisect-runs.sh [TRIALS] [MAX_RUNS]   (defaults 200 and 80, bisect's own)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
trials=${1:-200}
cap=${2:-80}
cd "$here"
# The simulator is a test of the crate (it is not in the kbench binary).
KBENCH_SIM_TRIALS=$trials KBENCH_SIM_MAX_RUNS=$cap cargo test --release --quiet --bin kbench -- --ignored --nocapture bisect_runs_figures 2>/dev/null \
    | grep -vE "^(running|test |$)"
