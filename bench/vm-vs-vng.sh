#!/usr/bin/env bash
# `kbench vm` against virtme-ng (`vng`, from PyPI), boot to result, under
# the same QEMU, in paired alternating runs (bench/lib/pairs.py): A is
# `kbench vm` booting one kernel twice (the kernel and its A/A twin, one
# vCPU, TCG) with a tiny measuring command (`hackbench -l 10 -g 1`, one
# run a boot, stored); B is `vng -r` of the same kernel twice, each
# running `true`.  Both are whole processes from start to exit, two boots
# each: the ratio is kbench's boot, build of its initramfs, measurement
# and storing against vng's boot alone.  Under TCG the figures are the
# emulator's, not the kernel's: quote the ratio.
#
# virtme-ng (which runs its own tools from PATH) is installed into a virtual environment of its own under
# /var/cache/kbench-bench-vng (VNG_VENV to move it) the first time.
# Needs: apt-get install qemu-system-x86 python3-venv, network to PyPI.
# Usage: [KERNEL=/boot/vmlinuz-…] [PAIRS=5] bench/vm-vs-vng.sh
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
kernel=${KERNEL:-$(ls -1 /boot/vmlinuz-* 2>/dev/null | sort -V | tail -1)}
[ -n "$kernel" ] && [ -r "$kernel" ] || { echo "no kernel image: apt-get install linux-image-amd64, or give KERNEL=" >&2; exit 1; }
command -v qemu-system-x86_64 >/dev/null || { echo "qemu-system-x86_64 not found: apt-get install qemu-system-x86" >&2; exit 1; }
venv=${VNG_VENV:-/var/cache/kbench-bench-vng}
if [ ! -x "$venv/bin/vng" ]; then
    python3 -m venv "$venv" && "$venv/bin/pip" install -q virtme-ng || { echo "could not install virtme-ng into $venv" >&2; exit 1; }
fi
. "$here/bench/lib/kbench.sh"
kb=$(kbench_release "$here")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
vng="$venv/bin/vng -r $kernel --disable-kvm --cpus 1 --memory 1G -- true"
python3 "$here/bench/lib/pairs.py" --pairs "${PAIRS:-5}" \
    --a "env KBENCH_DB=$work/vm.db $kb vm --kernel $kernel=k --aa --boots 1 --cpus 1 -q -- hackbench -l 10 -g 1 --runs 1" \
    --b "env PATH=$venv/bin:$PATH sh -c '$vng >/dev/null 2>&1 && $vng >/dev/null 2>&1'"
