#!/usr/bin/env bash
# The run-health monitor's own cost: it runs beside every run, so it must
# stay under 1 % of one CPU.  Runs `kbench health-monitor` (what the run
# lifecycle starts) for SECONDS at its default 1 s interval, three times,
# and prints the CPU it used as GNU time measures it, beside the figure it
# reports itself.
#
# Needs: GNU time (apt-get install time).
# Usage: bench/health-monitor-cost.sh [SECONDS]   (default 20)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-20}
[ -x /usr/bin/time ] || { echo "GNU time not found: apt-get install time" >&2; exit 1; }
. "$here/bench/lib/kbench.sh"
kb=$(kbench_release "$here")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "health monitor over ${secs}s, 1 s interval ($(ls /proc | grep -c '^[0-9]') processes on this machine)"
for i in 1 2 3; do
    sleep "$secs" | /usr/bin/time -f '%U %S' -o "$tmp/t" "$kb" health-monitor --root $$ > "$tmp/h"
    read -r u s < "$tmp/t"
    own=$(python3 -c "import json; print(round(json.loads(open('$tmp/h').read().splitlines()[-1])['monitor_cpu_pct'], 3))")
    python3 -c "print(f'run $i: {($u + $s) / $secs * 100:.3f} % of one CPU (GNU time), {$own} % (its own report); goal <= 1 %')"
done
