#!/usr/bin/env bash
# The run-health monitor's own cost: it runs beside every run, so it must
# stay under 1 % of one CPU, and during a run it should cost no more than
# a benchmark's main thread waking once a second.  Runs `kbench
# health-monitor` (what the run lifecycle starts) for SECONDS at its
# default 1 s interval, three times, and prints its CPU time by the
# scheduler's nanosecond count (/proc/PID/schedstat): at start-up (before
# it says "ready", when the run has not started) and per second after,
# beside the figure it reports itself (in clock ticks, so often 0).
# Each run twice: following kbench's processes (as beside most
# benchmarks) and with --threads-only (beside schbench and cyclictest,
# which start no process: it then sleeps through the run on a machine
# without CPU frequency files).
#
# Usage: bench/health-monitor-cost.sh [SECONDS]   (default 20)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-20}
. "$here/bench/lib/kbench.sh"
kb=$(kbench_release "$here")
echo "health monitor over ${secs}s, 1 s interval ($(ls /proc | grep -c '^[0-9]') processes on this machine)"
for i in 1 2 3; do
  for mode in following --threads-only; do
    python3 - "$kb" "$secs" "$i" "$mode" <<'EOF'
import json, os, subprocess, sys, time
kb, secs, i, mode = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4]
extra = [mode] if mode.startswith("--") else []
p = subprocess.Popen([kb, "health-monitor", "--root", str(os.getpid())] + extra,
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
if p.stdout.readline().strip() != "ready":
    sys.exit("the monitor did not start")
ns = lambda: int(open(f"/proc/{p.pid}/schedstat").read().split()[0])
start = ns()
time.sleep(secs)
run = ns() - start
p.stdin.close()
own = json.loads(p.stdout.read().splitlines()[-1])["monitor_cpu_pct"]
p.wait()
per_s = run / secs / 1e6
print(f"run {i} {mode:14}: start-up {start / 1e6:.2f} ms, then {per_s:.3f} ms a second "
      f"= {per_s / 10:.4f} % of one CPU ({own:.3f} % by its own report); goal <= 1 %")
EOF
  done
done
