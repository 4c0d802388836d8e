#!/usr/bin/env bash
# Do kbench's loads press the kernel as hard as the classic tools they
# replace?  A fixed CPU+I/O job (gzip of a 64 MiB file, three times) is
# timed under each kbench load and under the classic equivalent, paired
# with bench/lib/pairs.py; the median ratio of the job's time (kbench load / classic
# load) is the ratio of the slowdowns.  Goal: each within 0.8-1.25.
#
#   io    vs  dd if=/dev/zero of=F bs=1M count=SIZE, in a loop
#   read  vs  cat F > /dev/null, in a loop (kbench also drops F's pages
#             between passes, so its reads reach the disk)
#   list  vs  ls -lRa / > /dev/null, in a loop
#   mem   vs  stress-ng --vm 1 --vm-bytes SIZE
#   ctar  vs  tar cf, in a loop;  xtar vs tar xf, in a loop
#   dbench vs dbench itself (same clients)
#
# Needs root, stress-ng and dbench: apt-get install stress-ng dbench.
# Usage: bench/loads-vs-classic.sh [PAIRS] [SIZE_MB]   (default 5, 512)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
pairs_py=$here/bench/lib/pairs.py
pairs=${1:-5}
mb=${2:-512}
for t in stress-ng dbench tar gzip; do
    command -v $t >/dev/null || { echo "$t not found: apt-get install stress-ng dbench" >&2; exit 1; }
done
. "$here/bench/lib/kbench.sh"
kb=$(kbench_release "$here")
tmp=$(mktemp -d)
trap 'pkill -P $$ 2>/dev/null || true; rm -rf "$tmp"' EXIT
head -c 64M /dev/urandom > "$tmp/job.dat"
dd if=/dev/zero of="$tmp/read.dat" bs=1M count="$mb" status=none
tar cf "$tmp/tree.tar" -C /usr include 2>/dev/null || true
clients=$((2 * $(nproc)))

# run-under NAME CMD...: start CMD as the load, let it settle, time the job, stop the load.
cat > "$tmp/under" <<'U'
#!/usr/bin/env bash
dir=$1; shift
setsid "$@" >/dev/null 2>&1 &
load=$!
sleep 2
start=$(date +%s.%N)
for i in 1 2 3; do gzip -1 -c "$dir/job.dat" > /dev/null; done
end=$(date +%s.%N)
kill -INT -- -"$load" 2>/dev/null; sleep 0.5; kill -KILL -- -"$load" 2>/dev/null
wait "$load" 2>/dev/null
python3 -c "print(f'job: {$end - $start:.4f}')"
U
chmod +x "$tmp/under"
loopsh() { echo "bash -c 'while true; do $1; done'"; }

pair() {
    local name=$1 a=$2 b=$3
    printf '%-7s ' "$name"
    python3 "$pairs_py" --pairs "$pairs" --timeout 300 --figure 'job=job: ([0-9.]+)' \
        --a "$tmp/under $tmp $a" --b "$tmp/under $tmp $b" | tail -1
}
echo "median paired ratio of the job's time, kbench load / classic load ($pairs pairs)"
pair io     "$kb load io --duration 1h --size ${mb}M --dir $tmp --no-store -q" \
            "$(loopsh "dd if=/dev/zero of=$tmp/dd.dat bs=1M count=$mb status=none")"
pair read   "$kb load read --duration 1h --size ${mb}M --dir $tmp --no-store -q" \
            "$(loopsh "cat $tmp/read.dat > /dev/null")"
pair list   "$kb load list --duration 1h --no-store -q" \
            "$(loopsh "ls -lRa / > /dev/null 2>&1")"
pair mem    "$kb load mem --duration 1h --size ${mb}M --no-store -q" \
            "stress-ng --vm 1 --vm-bytes ${mb}M --quiet"
pair ctar   "$kb load ctar --duration 1h --dir $tmp --no-store -q" \
            "$(loopsh "tar cf $tmp/c.tar -C /usr include 2>/dev/null")"
pair xtar   "$kb load xtar --duration 1h --dir $tmp --no-store -q" \
            "$(loopsh "rm -rf $tmp/x; mkdir $tmp/x; tar xf $tmp/tree.tar -C $tmp/x")"
pair dbench "$kb load dbench --procs $clients --duration 1h --dir $tmp --no-store -q" \
            "dbench -D $tmp -t 1000 $clients"
