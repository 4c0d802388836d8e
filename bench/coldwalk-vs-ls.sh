#!/usr/bin/env bash
# Fidelity of `kbench coldwalk` against `ls -R`, both after
# `sync; echo 3 > /proc/sys/vm/drop_caches`, paired with bench/lib/pairs.py.  Prints
# the median ratio kbench/ls of the wall time.  Goal: 0.8-1.1 (kbench must
# not be slower than ls at the same walk).  Also shows `--stat` (every
# entry lstat'ed, like `ls -lR`) against `ls -lR`.
#
# Needs root (to drop caches).  Usage: bench/coldwalk-vs-ls.sh [PATH] [PAIRS]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
pairs_py=$here/bench/lib/pairs.py
path=${1:-/usr}
pairs=${2:-7}
[ "$(id -u)" = 0 ] || { echo "dropping caches needs root" >&2; exit 1; }
. "$here/bench/lib/kbench.sh"
kb=$(kbench_release "$here")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '#!/bin/sh\nsync; echo 3 > /proc/sys/vm/drop_caches; exec ls %s "%s" > /dev/null\n' -R "$path" > "$tmp/ls"
printf '#!/bin/sh\nsync; echo 3 > /proc/sys/vm/drop_caches; exec ls %s "%s" > /dev/null\n' -lR "$path" > "$tmp/lsl"
chmod +x "$tmp/ls" "$tmp/lsl"
echo "median paired ratio kbench/ls of wall time, cold, $path, $pairs pairs"
printf 'coldwalk   vs ls -R : '
python3 "$pairs_py" --pairs "$pairs" --a "$kb coldwalk $path --no-store -q" --b "$tmp/ls" | tail -1
printf 'coldwalk --stat vs ls -lR: '
python3 "$pairs_py" --pairs "$pairs" --a "$kb coldwalk $path --stat --no-store -q" --b "$tmp/lsl" | tail -1
