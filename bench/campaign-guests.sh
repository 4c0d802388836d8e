#!/usr/bin/env bash
# The whole set of campaign guest runs across real reboots, larger than CI
# runs it: a Debian bookworm guest (systemd, kexec-tools, Debian's standard
# and PREEMPT_RT 6.1 kernels) under QEMU (TCG, one vCPU), in which kbench
# plans a campaign, installs its unit and then runs unattended:
#   - the kexec path over ROUNDS rounds (2 in CI; 3 here: six blocks,
#     A B B A A B), with a second `campaign step` typed beside the first;
#   - a kernel that never comes up, counted lost until the bound stops it;
#   - a power cut in the middle of a block, which runs again without its
#     partial runs.
# Each run prints what it took (a campaign's time a block, each block's
# settle); this script gathers those lines and the tests' own times.
# The guest image is built once (about 7 minutes) and cached under
# /var/cache/kbench-test-guest (KBENCH_TEST_GUEST to move it).
#
# Needs: root, apt-get install qemu-system-x86 debootstrap e2fsprogs.
# Usage: [ROUNDS=3] bench/campaign-guests.sh
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
rounds=${ROUNDS:-3}
case "$rounds" in [1-5]) ;; *) echo "ROUNDS must be 1 to 5" >&2; exit 2 ;; esac
[ "$(id -u)" = 0 ] || { echo "run as root: the guest image is built with debootstrap" >&2; exit 1; }
command -v qemu-system-x86_64 >/dev/null || { echo "qemu-system-x86_64 not found: apt-get install qemu-system-x86" >&2; exit 1; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
cd "$here"
start=$(date +%s)
KBENCH_TEST_ROUNDS=$rounds cargo test --quiet --test reboot -- --nocapture --test-threads 1 2>&1 | tee "$log" >/dev/null || {
    tail -40 "$log" >&2
    echo "the guest runs failed (above)" >&2
    exit 1
}
end=$(date +%s)
echo "campaign guests, $rounds round(s) of the kexec campaign, under TCG (figures are the emulator's):"
# With --nocapture the tests' own lines may share a line with libtest's.
grep -oE "(campaign of [0-9]+ blocks.*|block [0-9]+ settled.*|after the power cut.*)" "$log" | sed 's/^/  /'
grep -oE "test result.*" "$log" | sed 's/^/  /'
echo "  the whole set: $((end - start)) s"
