#!/usr/bin/env bash
# Fidelity of `kbench hackbench` against rt-tests' hackbench.
#
# Runs both alternately with bench/lib/pairs.py (paired, so the
# machine's drift between batches cancels) on the four variants
# (process/thread x socket/pipe) at -g 4 -f 4, and on rt-tests' default
# shape -g 10 -f 20, and prints the median paired ratio kbench/rt-tests of
# the `Time:` figure.  Goal: every ratio within 0.95-1.05.  Then compares
# the peak RSS in process mode (/usr/bin/time -v), for information only:
# rt-tests starts its clock after every task is ready, so the parent's size never enters Time:.
#
# Needs: rt-tests (apt-get install rt-tests), GNU time (apt-get install time).
# Usage: bench/hackbench-vs-rt-tests.sh [PAIRS]   (default 7)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
pairs_py=$here/bench/lib/pairs.py
pairs=${1:-7}
command -v hackbench >/dev/null || { echo "rt-tests hackbench not found: apt-get install rt-tests" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "GNU time not found: apt-get install time" >&2; exit 1; }
. "$here/bench/lib/kbench.sh"
kb=$(kbench_release "$here")


run() {
    local name=$1; shift
    local args="$*"
    local r
    r=$(python3 "$pairs_py" --pairs "$pairs" --figure 'Time=Time: ([0-9.]+)' \
        --a "$kb hackbench --no-store $args" --b "hackbench $args" 2>/dev/null | tail -1)
    printf '%-28s %s\n' "$name" "$r"
}

echo "median paired ratio kbench/rt-tests of Time: ($pairs pairs each)"
run "process socket -g4 -f4" -P -g 4 -f 4 -l 20000
run "process pipe   -g4 -f4" -P -p -g 4 -f 4 -l 60000
run "thread  socket -g4 -f4" -T -g 4 -f 4 -l 20000
run "thread  pipe   -g4 -f4" -T -p -g 4 -f 4 -l 60000
run "process socket -g10 -f20" -P -g 10 -f 20 -l 1500

rss() { /usr/bin/time -v "$@" 2>&1 >/dev/null | awk -F': ' '/Maximum resident/ {print $2}'; }
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
# Peak RSS (the parent and every task it reaped), median of 5 alternating
# runs each (information: fidelity is the Time: ratio above).
# Storing the run also reads the system's fingerprint and writes SQLite;
# that figure is printed for information.
store=$(mktemp -d)
trap 'rm -rf "$store"' EXIT
for _ in 1 2 3 4 5; do
    echo "a $(rss "$kb" hackbench --no-store -P -g 10 -f 20 -l 200)"
    echo "s $(KBENCH_DB="$store/r.db" rss "$kb" hackbench -q -P -g 10 -f 20 -l 200)"
    echo "b $(rss hackbench -P -g 10 -f 20 -l 200)"
done >"$store/rss"
a=$(awk '$1 == "a" {print $2}' "$store/rss" | median)
s_=$(awk '$1 == "s" {print $2}' "$store/rss" | median)
b=$(awk '$1 == "b" {print $2}' "$store/rss" | median)
ratio() { python3 -c "print(f'{$1/$2:.2f}')"; }
echo "peak RSS, process mode -g10 -f20 (median of 5): rt-tests ${b} KiB;" \
    "kbench --no-store ${a} KiB (ratio $(ratio "$a" "$b")), storing the run ${s_} KiB (ratio $(ratio "$s_" "$b"))"
