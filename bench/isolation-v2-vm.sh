#!/usr/bin/env bash
# `--isolate` on a cgroup v2 machine, end to end, in a throwaway virtual
# machine: for hosts whose cpuset controller is held by a cgroup v1
# hierarchy (the isolation test then exercises v1 only).
#
# Boots this machine's Debian kernel (or KERNEL=path) under QEMU with two
# CPUs and an initramfs of busybox and the static kbench binary; the guest
# mounts only cgroup v2 (so the cpuset controller is v2's), starts three
# foreign processes (one with every CPU, one narrowed to CPU 1 by taskset,
# one in a top-level cgroup as systemd's slices are), starts kbench
# `cyclictest -a 1 --isolate` inside a top-level cgroup of its own (as a login
# session's scope), and prints each one's cgroup and allowed CPUs before,
# during and after; then again with kbench killed by SIGKILL (the janitor
# undoes it); then `kbench restore` on a record a crash would leave.  The
# guest checks every expectation itself and prints PASS or FAIL lines; the
# script exits non-zero on any FAIL.
#
# Needs: apt-get install qemu-system-x86 busybox-static linux-image-amd64
# (the kernel package only puts an image in /boot for QEMU to boot).
# Usage: [KERNEL=/boot/vmlinuz-…] [ACCEL=kvm] bench/isolation-v2-vm.sh
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
kernel=${KERNEL:-$(ls -1 /boot/vmlinuz-* 2>/dev/null | sort -V | tail -1)}
[ -n "$kernel" ] && [ -r "$kernel" ] || { echo "no kernel image: apt-get install linux-image-amd64, or give KERNEL=" >&2; exit 1; }
command -v qemu-system-x86_64 >/dev/null || { echo "qemu-system-x86_64 not found: apt-get install qemu-system-x86" >&2; exit 1; }
bb=$(command -v busybox || true)
[ -n "$bb" ] && file -L "$bb" | grep -q "statically linked" || { echo "a static busybox is needed: apt-get install busybox-static" >&2; exit 1; }
. "$here/bench/lib/kbench.sh"
kb=$(kbench_release "$here")
file -L "$kb" | grep -q "static" || { echo "$kb is not statically linked" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root
mkdir -p "$root"/{bin,sbin,proc,sys,dev,tmp,root,etc}
cp "$bb" "$root/bin/busybox"
for a in sh mount umount mkdir cat sleep echo grep sed taskset kill poweroff ls rm rmdir tr head wc; do
    ln -s busybox "$root/bin/$a"
done
cp "$kb" "$root/bin/kbench"
cat > "$root/init" <<'EOF'
#!/bin/sh
export PATH=/bin HOME=/root
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
mount -t cgroup2 cgroup2 /sys/fs/cgroup
CG=/sys/fs/cgroup
fails=0
check() { # WHAT GOT WANT
    if [ "$2" = "$3" ]; then echo "PASS $1: $2"; else echo "FAIL $1: got '$2', want '$3'"; fails=$((fails + 1)); fi
}
cg() { sed -n 's/^0:://p' /proc/$1/cgroup; }
cpus() { sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/$1/status; }
echo "guest: $(cat /proc/cpuinfo | grep -c ^processor) CPUs, v2 controllers: $(cat $CG/cgroup.controllers)"
echo "guest: root subtree_control before: '$(cat $CG/cgroup.subtree_control)'"
sleep 600 & W=$!
taskset -c 1 sleep 600 & N=$!
mkdir $CG/test.slice
sleep 600 & S=$!
echo $S > $CG/test.slice/cgroup.procs
mkdir $CG/kb.slice
ALL=$(cpus $W)
state() { echo "$(cg $W) $(cpus $W) $(cg $N) $(cpus $N) $(cg $S) $(cpus $S)"; }
BEFORE=$(state)
SUBTREE=$(cat $CG/cgroup.subtree_control)
echo "guest: before: $BEFORE"
for kill in no yes; do
    sh -c "echo \$\$ > $CG/kb.slice/cgroup.procs; exec kbench cyclictest -t 1 -a 1 -D 6s --isolate --no-store" > /tmp/kb.out 2>&1 &
    K=$!
    sleep 3
    echo "guest: during (kill -9: $kill): $(state); kbench in $(cg $K) on $(cpus $K)"
    case "$(cg $W)" in /kbench-house-*) check "wide process in the house" yes yes;; *) check "wide process in the house" "$(cg $W)" /kbench-house-PID;; esac
    check "wide process on the house CPU" "$(cpus $W)" 0
    check "narrow process on the house CPU" "$(cpus $N)" 0
    check "slice narrowed" "$(cat $CG/test.slice/cpuset.cpus)" 0
    check "process in the slice on the house CPU" "$(cpus $S)" 0
    case "$(cg $K)" in /kbench-probe-*) check "kbench moved out of its cgroup" yes yes;; *) check "kbench moved out of its cgroup" "$(cg $K)" /kbench-probe-PID;; esac
    check "kbench keeps every CPU" "$(cpus $K)" "$ALL"
    check "kbench's own cgroup narrowed" "$(cat $CG/kb.slice/cpuset.cpus)" 0
    if [ $kill = yes ]; then kill -9 $K; fi
    wait $K
    [ $kill = no ] && grep -i isolat /tmp/kb.out | sed 's/^/guest: kbench said: /'
    # The janitor (after kill -9) needs a moment; it then ends too.
    for i in 1 2 3 4 5 6 7 8 9 10; do
        [ "$(state)" = "$BEFORE" ] && [ "$(cat $CG/kb.slice/cgroup.procs | wc -l)" = 0 ] && break
        sleep 0.5
    done
    check "after (kill -9: $kill): everything as before" "$(state)" "$BEFORE"
    check "after: the slice inherits again" "$(cat $CG/test.slice/cpuset.cpus 2>/dev/null)" ""
    check "after: no house or probe cgroup" "$(ls $CG | grep -c '^kbench-')" 0
    check "after: root subtree_control as before" "$(cat $CG/cgroup.subtree_control)" "$SUBTREE"
    check "after: no kbench process left" "$(cat $CG/kb.slice/cgroup.procs | wc -l)" 0
done
# A crash: the record a dead kbench left, applied by `kbench restore`.
echo +cpuset > $CG/cgroup.subtree_control
mkdir $CG/kbench-house-1
echo 0 > $CG/kbench-house-1/cpuset.cpus
echo $W > $CG/kbench-house-1/cgroup.procs
echo 0 > $CG/test.slice/cpuset.cpus
mkdir -p /root/.local/share/kbench/restore
echo "{\"mount\": \"$CG\", \"house\": \"$CG/kbench-house-1\", \"v2\": {\"enable_cpuset\": true, \"probe\": \"$CG/kbench-probe-1\", \"own_moved\": [], \"narrowed\": [[\"$CG/test.slice\", \"\"]]}}" > /root/.local/share/kbench/restore/1.json
echo "guest: kbench restore says: $(kbench restore)"
check "after restore: everything as before" "$(state)" "$BEFORE"
check "after restore: no record left" "$(ls /root/.local/share/kbench/restore | wc -l)" 0
check "after restore: root subtree_control as before" "$(cat $CG/cgroup.subtree_control)" "$SUBTREE"
echo "guest: $fails failed"
echo "RESULT fails=$fails"
poweroff -f
EOF
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$tmp/initrd.gz"
# Emulated by default: it needs no KVM, and a nested KVM guest can hang at
# boot (it does on this project's VM); ACCEL=kvm to try it.
accel=(-accel "${ACCEL:-tcg}" -cpu max)
echo "booting $kernel (2 CPUs) with kbench $(basename "$kb") in an initramfs" >&2
timeout 600 qemu-system-x86_64 "${accel[@]}" -smp 2 -m 1024 -nographic -no-reboot \
    -kernel "$kernel" -initrd "$tmp/initrd.gz" \
    -append "console=ttyS0 quiet panic=-1 rdinit=/init" > "$tmp/console" 2>&1 || true
grep -E "^(guest|PASS|FAIL|RESULT)" "$tmp/console" | tr -d '\r'
grep -q "^RESULT fails=0" "$tmp/console" || { echo "the guest did not pass (console: ${KEEP_CONSOLE:+$tmp/console})" >&2; exit 1; }
