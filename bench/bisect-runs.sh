#!/usr/bin/env bash
# How many runs a bisection spends, and how often it names the right
# culprit: seeded simulated bisections over 64 candidates (a culprit
# drawn among them, never an end), shifts of 5, 10 and 30 % at a CV of 5
# and 20 %, for kbench's own search (its real decision code, with drawn
# values in place of runs) beside Chromium Pinpoint's published rule, as
# catapult's pinpoint/models has it: 10 attempts a change, 10 more to the
# side with fewer while a comparison is unknown, min(Mann-Whitney, KS)
# p <= 0.01 "different", above a high threshold "same", the high
# thresholds made here by the method catapult publishes for its table
# (src/bisect/sim_pinpoint.rs says what is left out, all in Pinpoint's
# favour).  KBENCH_SIM_PINPOINT_LOW=0.05 runs Pinpoint with a low
# threshold of 0.05.
#
# Goal: no more runs than Pinpoint's rule at CV 5 % with at most 1 %
# wrong culprits.  Met: at 200 trials kbench spent 248/90/55 runs against
# Pinpoint's 275/102/80 (0.90, 0.88 and 0.69 of them) and named no wrong
# culprit where Pinpoint named 1-2 %.  Its steps test a candidate against
# every unit of the candidates already decided, and a culprit is named
# only when confirmed afresh against its parent at alpha.  The
# --fresh-ends column measures both ends beside every candidate (a
# machine that drifts between steps cannot mislead it): about 2.5 times
# the runs.  KBENCH_SIM_SHIFTS and KBENCH_SIM_CVS (comma-separated, %)
# choose the rows.
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
