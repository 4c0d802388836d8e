#!/usr/bin/env bash
# What a comparison claims about its own error, by simulation (seeded):
# the share of null reports (40 metrics and 30 sched.* counters, 5 runs a
# side) with a false verdict anywhere; of null comparisons with the boot
# as the unit (3 boots x 5 runs, a boot-to-boot SD of 3 %); and of null
# comparisons of one boot a label at that SD, how many give a verdict and
# how many of those are not marked as resting on one boot each; and of
# null reports of log-normal runs (sigma 1: heavy tails).  The
# README's figures are read from this output.
#
# Usage: bench/report-error.sh [TRIALS]   (default 2000)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
KBENCH_SIM_REPORTS=${1:-2000} cargo test --release --quiet --bin kbench -- --ignored --nocapture report_error_figures 2>/dev/null \
    | grep -E "^[0-9]+ null"
