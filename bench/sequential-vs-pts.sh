#!/usr/bin/env bash
# --runs auto against the Phoronix Test Suite's repetition rule, replayed on
# samples recorded on this machine: hackbench Time, cyclictest p99 and a
# tiny job's time.  For each, resampling them, a baseline of 5 runs (then
# of 20) against a candidate 5 % faster (and one with no difference): the
# runs each rule needs and how often its verdict is right or wrong.  Goal: --runs auto no
# more runs than PTS's rule, wrong verdicts at no difference <= 5 % (which
# PTS's rule does not control).
#
# Usage: bench/sequential-vs-pts.sh [RUNS]   (default 30 recorded per benchmark)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-30}
. "$here/bench/lib/kbench.sh"
kb=$(kbench_release "$here")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "recording $n runs each (hackbench, cyclictest 1 s p99, tiny job)" >&2
"$kb" hackbench --no-store -q -P -g 4 -f 4 -l 3000 --runs "$n" | sed -n 's/^Time: //p' > "$tmp/hackbench"
"$kb" cyclictest --no-store --json -t 1 -D 1s --runs $((n + 1)) \
    | python3 -c "import json,sys; [print(r['overall']['p99_us']) for r in json.load(sys.stdin)['runs'][1:]]" > "$tmp/cyclictest-p99"
"$kb" job --no-store --job-size tiny --runs "$n" | sed -n 's/^real \([0-9.]*\)s.*/\1/p' > "$tmp/job"
for f in hackbench cyclictest-p99 job; do
    (cd "$here" && KBENCH_REPLAY="$tmp/$f" cargo test --release --quiet --bin kbench replay_recorded_samples -- --ignored --nocapture 2>/dev/null) \
        | grep "true change"
done
