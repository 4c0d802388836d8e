#!/usr/bin/env bash
# What `--trace` costs what it measures, against `perf sched record`.
#
# In alternating pairs (bench/lib/pairs.py), three ratios per shape:
# traced/untraced (kbench --trace against the same run without), and
# perf/untraced (the same untraced run under `perf sched record`, the
# usual way to record the scheduler's events: the anchor), on hackbench
# -P -g 4 -f 4 (its Time, lower is better) and schbench -m 1 -t 2
# (average RPS, higher is better).  Goal: kbench's traced/untraced no
# worse than perf's on both.  Then the CPU kbench's trace reader spent,
# as its runs report it (reader_cpu_percent, % of one CPU while tracing)
# at hackbench's event rate: goal at most 5 %.
#
# Needs root and perf (apt-get install linux-perf).
# Usage: bench/trace-overhead.sh [PAIRS] [SCHBENCH_SECONDS]   (default 7, 10)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
pairs_py=$here/bench/lib/pairs.py
pairs=${1:-7}
secs=${2:-10}
[ "$(id -u)" = 0 ] || { echo "tracing needs root: run as root (sudo)" >&2; exit 1; }
command -v perf >/dev/null || { echo "perf not found: apt-get install linux-perf" >&2; exit 1; }
. "$here/bench/lib/kbench.sh"
kb=$(kbench_release "$here")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

hb="hackbench --no-store -P -g 4 -f 4 -l 20000"
sb="schbench --no-store -m 1 -t 2 -r $secs -w 0"
perf_rec="perf sched record -q -o $tmp/perf.data --"

pair() {
    local name=$1 figure=$2 a=$3 b=$4
    local r
    r=$(python3 "$pairs_py" --pairs "$pairs" --figure "$figure" --a "$a" --b "$b" 2>/dev/null | tail -1)
    printf '%-34s %s\n' "$name" "$r"
}

echo "median paired ratios ($pairs pairs each); hackbench Time: lower is better, schbench RPS: higher is better"
pair "hackbench Time, traced/untraced" 'Time=Time: ([0-9.]+)' "$kb $hb --trace" "$kb $hb"
pair "hackbench Time, perf/untraced" 'Time=Time: ([0-9.]+)' "$perf_rec $kb $hb" "$kb $hb"
pair "schbench RPS, traced/untraced" 'rps=average rps: ([0-9.]+)' "$kb $sb --trace" "$kb $sb"
pair "schbench RPS, perf/untraced" 'rps=average rps: ([0-9.]+)' "$perf_rec $kb $sb" "$kb $sb"

# The reader's own CPU, as each traced run reports it.
for _ in 1 2 3 4 5; do
    "$kb" $hb --trace --json | python3 -c 'import json,sys; d=json.load(sys.stdin); t=d["runs"][0]["trace"]; print(t["reader_cpu_percent"], t["events_read"], t["lost_events"])'
done >"$tmp/reader"
python3 - "$tmp/reader" <<'PY'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
pct = statistics.median(r[0] for r in rows)
ev = statistics.median(r[1] for r in rows)
lost = sum(r[2] for r in rows)
print(f"trace reader at hackbench -P -g 4 -f 4: median {pct:.2f} % of one CPU ({ev:.0f} events a run, {lost:.0f} lost in all; goal <= 5 %)")
PY
