#!/usr/bin/env bash
# The Debian guest the reboot tests boot, built once and cached: bookworm
# (debootstrap, minbase) with systemd, kexec-tools and Debian's standard
# and PREEMPT_RT kernels, its journal forwarded to the serial console,
# and a oneshot unit that runs /root/kbench-test.sh once when a test has
# put one there.  The folder is the cache; each test makes a disk image
# of it with `mkfs.ext4 -d` (no loop device, no mount).
# Usage: tests/reboot/image.sh [CACHE_DIR]; prints the root folder.
set -euo pipefail
cache="${1:-/var/cache/kbench-test-guest}"
root="$cache/root"
# What this script builds; a cache of another version is built again.
version=3
if [ "$(cat "$cache/ready" 2>/dev/null)" = "$version" ] && [ -d "$root" ]; then
    echo "$root"
    exit 0
fi
mkdir -p "$cache"
building="$cache/building"
rm -rf "$building"
mirror="${KBENCH_TEST_MIRROR:-http://deb.debian.org/debian}"
debootstrap --variant=minbase \
    --include=systemd-sysv,dbus,udev,kmod,kexec-tools,procps,linux-image-amd64,linux-image-rt-amd64 \
    bookworm "$building" "$mirror" >"$cache/debootstrap.log" 2>&1 || {
    tail -20 "$cache/debootstrap.log" >&2
    exit 1
}
cat >"$building/etc/fstab" <<'FSTAB'
/dev/vda / ext4 rw,errors=remount-ro 0 1
FSTAB
echo kbench-guest >"$building/etc/hostname"
# kexec-tools must not load the default kernel at shutdown over the
# campaign's own (kexec -l).
echo 'LOAD_KEXEC=false' >"$building/etc/default/kexec"
mkdir -p "$building/etc/systemd/journald.conf.d"
cat >"$building/etc/systemd/journald.conf.d/console.conf" <<'JOURNAL'
[Journal]
ForwardToConsole=yes
TTYPath=/dev/ttyS0
MaxLevelConsole=info
JOURNAL
cat >"$building/etc/systemd/system/kbench-test.service" <<'UNIT'
[Unit]
Description=kbench reboot test: the test's own script, once
ConditionPathExists=/root/kbench-test.sh
After=multi-user.target

[Service]
Type=oneshot
ExecStart=/bin/sh -c 'mv /root/kbench-test.sh /root/kbench-test.ran && exec /bin/sh -x /root/kbench-test.ran'
StandardOutput=journal+console
StandardError=journal+console

[Install]
WantedBy=multi-user.target
UNIT
ln -sf /etc/systemd/system/kbench-test.service \
    "$building/etc/systemd/system/multi-user.target.wants/kbench-test.service"
# Nothing to wait for on the network; root logs in on the serial console
# without a password (a lab's dispatcher logs in there to run its tests).
chroot "$building" systemctl mask systemd-networkd-wait-online.service getty@tty1.service \
    >/dev/null 2>&1 || true
chroot "$building" passwd -d root >/dev/null
rm -rf "$building"/var/cache/apt/archives/*.deb "$building"/var/lib/apt/lists/*
mkdir -p "$building/var/lib/kbench"
rm -rf "$root"
mv "$building" "$root"
echo "$version" >"$cache/ready"
echo "$root"
