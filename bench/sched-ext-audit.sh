#!/usr/bin/env bash
# What the sched_ext audit costs a run, where it runs: a guest booted by
# `kbench vm` from Debian's trixie-backports 7.x kernel (sched_ext built
# in), under QEMU (TCG, one vCPU), running
#   matrix --sched eevdf --sched bpfland=scx_bpfland --rounds ROUNDS -- schbench …
# (with --aa, so the kernel boots twice: `kbench vm` compares kernels).
# Every run on such a kernel is audited: sched_ext's state and enable_seq
# read before and after it, /dev/kmsg opened at its end before and read
# after.  Nothing of it runs while the benchmark measures, so its cost is
# the time around each run; each run stores that time (settings
# sched_ext.audit_us), and this script prints it per variant against the
# run's measured length, with the scheduler's attach and detach times.
# There is no switch that turns the audit off (a run whose scheduler
# changed must not pass unseen), so the figure is the audit's own time,
# not an A/B of two builds.  Under TCG every time is the emulator's: on
# real hardware both the audit and the run are faster.
#
# Needs: root, qemu-system-x86, the kernel (KERNEL=…/vmlinuz of an unpacked
# linux-binary-7.x package with linux-base and linux-modules beside it, or
# `cargo test --test sched_ext` once, which fetches it into
# /var/cache/kbench-test-kernels) and scx_bpfland (built by .ci/scx.sh,
# about 10 minutes the first time; its packages: clang-19 libclang-19-dev
# llvm-19 libelf-dev zlib1g-dev pkg-config).
# Usage: [KERNEL=…] [ROUNDS=4] [SECONDS_A_RUN=3] bench/sched-ext-audit.sh
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
rounds=${ROUNDS:-4}
secs=${SECONDS_A_RUN:-3}
case "$rounds" in [1-9]|1[0-9]) ;; *) echo "ROUNDS must be 1 to 19" >&2; exit 2 ;; esac
case "$secs" in [1-9]|[1-5][0-9]) ;; *) echo "SECONDS_A_RUN must be 1 to 59" >&2; exit 2 ;; esac
[ "$(id -u)" = 0 ] || { echo "run as root: sched_ext schedulers attach as root" >&2; exit 1; }
command -v qemu-system-x86_64 >/dev/null || { echo "qemu-system-x86_64 not found: apt-get install qemu-system-x86" >&2; exit 1; }
kernel=${KERNEL:-$(ls -1 /var/cache/kbench-test-kernels/trixie-backports/split-*/usr/lib/modules/*/vmlinuz 2>/dev/null | sort -V | tail -1)}
[ -n "$kernel" ] && [ -r "$kernel" ] || {
    echo "no 7.x kernel: run 'cargo test --test sched_ext' once (it fetches Debian's trixie-backports kernel), or give KERNEL=" >&2
    exit 1
}
scheduler=$(bash "$here/.ci/scx.sh")
. "$here/bench/lib/kbench.sh"
kb=$(kbench_release "$here")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "kernel $kernel, $rounds round(s) of schbench -r $secs under eevdf and bpfland, one guest (TCG)" >&2
KBENCH_DB="$work/audit.db" TMPDIR="$work" "$kb" vm --kernel "$kernel=k" --aa --boots 1 --cpus 1 --accel tcg --console -- \
    matrix --sched eevdf --sched "bpfland=$scheduler" --rounds "$rounds" --seed 2026 -- \
    schbench -m 1 -t 2 -r "$secs" >"$work/out" 2>"$work/err" || {
    tail -30 "$work/err" >&2
    echo "kbench vm failed (above)" >&2
    exit 1
}
for id in $("$kb" --db "$work/audit.db" runs list --json | python3 -c 'import json,sys; print(" ".join(str(r["id"]) for r in json.load(sys.stdin)["runs"]))'); do
    "$kb" --db "$work/audit.db" runs show "$id" --json
    echo
done >"$work/runs.jsonl"
python3 - "$work/runs.jsonl" "$secs" <<'EOF'
import json, statistics, sys
secs = float(sys.argv[2])
by = {}
text = open(sys.argv[1]).read()
dec = json.JSONDecoder()
i = 0
while i < len(text):
    while i < len(text) and text[i].isspace():
        i += 1
    if i >= len(text):
        break
    run, i = dec.raw_decode(text, i)
    scx = run.get("settings", {}).get("sched_ext") or {}
    if "audit_us" not in scx:
        continue
    variant = run["label"].rsplit("sched=", 1)[-1]
    by.setdefault(variant, []).append((scx["audit_us"], scx.get("scheduler") or {}))
if not by:
    sys.exit("no audited run was stored: is sched_ext in this kernel?")
print(f"the sched_ext audit, per run, under TCG (figures are the emulator's), against a {secs:g} s run:")
for variant, rows in sorted(by.items()):
    us = sorted(r[0] for r in rows)
    med = statistics.median(us)
    print(f"  {variant:8} {len(us)} runs: audit {med:.0f} us median (range {us[0]}-{us[-1]}), "
          f"{100 * med / (secs * 1e6):.3f} % of the run")
    attach = [r[1]["attach_s"] for r in rows if isinstance(r[1], dict) and r[1].get("attach_s") is not None]
    if attach:
        print(f"  {variant:8} attach {statistics.median(attach):.2f} s median (range {min(attach):.2f}-{max(attach):.2f})")
EOF
python3 - "$work/err" <<'EOF'
import re, statistics, sys
found = re.findall(r"sched \S+: attached in ([0-9.]+) s, detached in ([0-9.]+) s", open(sys.argv[1]).read())
det = sorted(float(d) for _, d in found)
if det:
    print(f"  bpfland  detach {statistics.median(det):.2f} s median (range {det[0]:.2f}-{det[-1]:.2f}), {len(det)} detaches")
EOF
