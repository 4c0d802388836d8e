#!/usr/bin/env bash
# The Debian guest the reboot tests boot, built once and cached: bookworm
# (debootstrap, minbase) with systemd, kexec-tools and Debian's standard
# and PREEMPT_RT kernels, its journal forwarded to the serial console,
# and a oneshot unit that runs /root/kbench-test.sh once when a test has
# put one there.  GRUB's tools (grub-reboot, grub-editenv) and a menu of
# the two kernels (entries `std` and `rt`, Debian's one-shot
# `next_entry` stanza) are in it, for a GRUB the test boots from the
# host (the disk has no boot sector: it is a bare ext4 filesystem).  The folder is the cache; each test makes a disk image
# of it with `mkfs.ext4 -d` (no loop device, no mount).
# Usage: tests/reboot/image.sh [CACHE_DIR]; prints the root folder.
set -euo pipefail
cache="${1:-/var/cache/kbench-test-guest}"
root="$cache/root"
# What this script builds; a cache of another version is built again.
version=4
if [ "$(cat "$cache/ready" 2>/dev/null)" = "$version" ] && [ -d "$root" ]; then
    echo "$root"
    exit 0
fi
mkdir -p "$cache"
building="$cache/building"
rm -rf "$building"
mirror="${KBENCH_TEST_MIRROR:-http://deb.debian.org/debian}"
debootstrap --variant=minbase \
    --include=systemd-sysv,dbus,udev,kmod,kexec-tools,procps,grub2-common,linux-image-amd64,linux-image-rt-amd64 \
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
# GRUB's menu, as update-grub would write it for these two kernels (it
# cannot run in a chroot with no boot disk): the one-shot entry that
# grub-reboot sets is taken once and cleared, the default is std.
std=$(cd "$building/boot" && ls vmlinuz-*-amd64 | grep -v -- -rt- | head -1 | sed 's/^vmlinuz-//')
rt=$(cd "$building/boot" && ls vmlinuz-*-rt-amd64 | head -1 | sed 's/^vmlinuz-//')
mkdir -p "$building/boot/grub"
{
    echo 'serial --unit=0 --speed=115200'
    echo 'terminal_input serial'
    echo 'terminal_output serial'
    echo 'load_env'
    echo 'if [ "${next_entry}" ] ; then set default="${next_entry}" ; set next_entry= ; save_env next_entry ; else set default=std ; fi'
    echo 'set timeout=0'
    for e in "std $std" "rt $rt"; do
        set -- $e
        echo "menuentry 'Debian $2' --id $1 {"
        echo "    echo 'grub: booting $1'"
        echo "    linux /boot/vmlinuz-$2 root=/dev/vda rw console=ttyS0 panic=10 no_timer_check"
        echo "    initrd /boot/initrd.img-$2"
        echo "}"
    done
} >"$building/boot/grub/grub.cfg"
rm -f "$building/boot/grub/grubenv"
chroot "$building" grub-editenv /boot/grub/grubenv create
rm -rf "$building"/var/cache/apt/archives/*.deb "$building"/var/lib/apt/lists/*
mkdir -p "$building/var/lib/kbench"
rm -rf "$root"
mv "$building" "$root"
echo "$version" >"$cache/ready"
echo "$root"
