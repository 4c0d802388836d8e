#!/usr/bin/env bash
# Fidelity of `kbench interbench` against Con Kolivas' interbench.
#
# Builds interbench from its source (default ../shared/peers/interbench
# beside the clone, or the folder given) in a temporary copy, lets each tool
# calibrate its own loop (interbench into its file in the copy, kbench into
# a temporary store), then runs both alternately in pairs
# (bench/lib/pairs.py): Audio and Video under None and Burn, -t 10.
# Prints median paired ratios kbench/interbench and differences in points.
# Goals: % desired CPU within +-2 points and % deadlines met within +-3
# points of interbench; mean latency ratio 0.8-1.25 (with its spread).
# Then kbench alone: the task's CPU share unloaded within +-1 point of its
# target (Audio 5 %, Video 40 %), which checks the calibration.
#
# Usage: bench/interbench-vs-interbench.sh [PAIRS] [INTERBENCH_SOURCE_DIR]   (default 5)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
pairs=${1:-5}
src=${2:-$here/../shared/peers/interbench}
[ -f "$src/interbench.c" ] || { echo "interbench source not found in $src (give its folder)" >&2; exit 1; }
command -v gcc >/dev/null || { echo "gcc not found: apt-get install gcc" >&2; exit 1; }
. "$here/bench/lib/kbench.sh"
kb=$(kbench_release "$here")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$src" "$tmp/ib"
make -s -C "$tmp/ib" >/dev/null 2>&1 || { echo "building interbench failed" >&2; exit 1; }
db=$tmp/kb.db
args="-t 10 -W audio -W video -w none -w burn"
echo "calibrating both loops (untimed) ..."
(cd "$tmp/ib" && ./interbench -c -b -t 1 -W audio -w none >/dev/null 2>&1)
"$kb" --db "$db" interbench -b -t 1 --exact-duration -W audio -w none >/dev/null

# FIGURE-NAME TASK LOAD COLUMN (1 latency, 3 max, 4 desired CPU, 5 deadlines)
fig() {
    local cols='\s*([0-9.e+]+) \+/- ([0-9.e+]+)\s+([0-9.e+]+)\t\t\s*([0-9.e+]+)\t\s*([0-9.e+]+)'
    local pick
    case $4 in
        1) pick='\s*([0-9.e+]+) \+/- [0-9.e+]+\s+[0-9.e+]+\t\t\s*[0-9.e+]+\t\s*[0-9.e+]+' ;;
        4) pick='\s*[0-9.e+]+ \+/- [0-9.e+]+\s+[0-9.e+]+\t\t\s*([0-9.e+]+)\t\s*[0-9.e+]+' ;;
        5) pick='\s*[0-9.e+]+ \+/- [0-9.e+]+\s+[0-9.e+]+\t\t\s*[0-9.e+]+\t\s*([0-9.e+]+)' ;;
    esac
    : "$cols"
    echo "$1=cpu of $2 in the presence[^\n]*\n[^\n]*\n(?:[^\n]*\n)*?$3\t$pick"
}
figs=()
for task in Audio Video; do
    for load in None Burn; do
        figs+=(--figure "$(fig "$task/$load latency" $task $load 1)")
        figs+=(--figure "$(fig "$task/$load desired CPU" $task $load 4)")
        figs+=(--figure "$(fig "$task/$load deadlines met" $task $load 5)")
    done
done
echo "== $args ($pairs pairs; A = kbench, B = interbench)"
python3 "$here/bench/lib/pairs.py" --pairs "$pairs" --timeout 600 \
    --a "$kb --db $db --no-store interbench $args" \
    --b "sh -c 'cd $tmp/ib && exec ./interbench -c $args'" \
    "${figs[@]}" 2> >(grep '^pair' >&2)

echo "== kbench alone: the task's CPU share unloaded (target Audio 5 %, Video 40 %)"
"$kb" --db "$db" --no-store --json interbench -t 10 -W audio -W video -w none | python3 -c '
import json, sys
d = json.load(sys.stdin)
for p in d["runs"][0]["pairs"]:
    task = p["task"]
    target = {"Audio": 5.0, "Video": 40.0}[task]
    share = p["cpu_share_pct"]
    print(f"{task:6} unloaded: {share:.2f} % of a CPU (target {target:.0f} %, {share - target:+.2f} points)")
'
