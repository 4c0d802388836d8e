#!/usr/bin/env bash
# A full contest suite on the generated project (small, ~10 s per build
# here), 2 rounds, small load sizes, so it finishes in minutes.  Prints
# contest's table; the known shape: cacherun <= 1.05 x noload, and the
# process, io and mem loads slow the build (Ratio > 1).
#
# dbench runs with 8 clients (not 16 per CPU), or its load alone takes
# minutes per build on a small machine.
# Needs root for dropping caches before noload; dbench for its load
# (apt-get install dbench; skipped otherwise).
# Usage: bench/contest-smoke.sh [RUNS]   (default 2)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-2}
. "$here/bench/lib/kbench.sh"
kb=$(kbench_release "$here")
db=$(mktemp -d)/smoke.db
trap 'rm -rf "$(dirname "$db")"' EXIT
start=$(date +%s)
"$kb" --db "$db" contest --job-size small --runs "$runs" --size 512M --procs 8 --label smoke
echo "suite took $(( $(date +%s) - start )) s"
"$kb" --db "$db" contest --show --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
rows = next(iter(d["jobs"].values()))
def mean(load):
    v = [r["time_s"] for r in rows if r["load"] == load]
    return sum(v) / len(v) if v else None
base = mean("noload")
checks = [("cacherun <= 1.05 x noload", mean("cacherun") <= 1.05 * base)]
for l in ("process", "io", "mem"):
    m = mean(l)
    if m is not None:
        checks.append((f"{l} ratio {m / base:.2f} > 1", m > base))
for what, ok in checks:
    print(("ok   " if ok else "FAIL ") + what)
'
