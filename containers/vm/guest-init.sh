#!/bin/bash
# Stage 2 of the lab VM, PID 1 inside the overlay over the host's root (started by
# initramfs-init): finishes the mounts, brings up rxe0 and siw0 through
# scripts/setup-softrdma.sh (unless SETUP=none), runs the command with stdout on ttyS1 and stderr on ttyS2,
# leaves its exit status in /run/lab/status for scripts/lab.sh and powers off.
# Few processes on purpose: under TCG each exec costs ~0.1 s.
# /run/lab/env (written by lab-lib.sh) sets REPO OUT CWD MODDIR SETUP (REPO_SHARE) and the arrays JOBENV ARGV.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
set -uo pipefail
log() { echo "lab: $*"; }
# An image may have no busybox: the kernel's own power-off (sysrq o) is the fallback.
poweroff() { sync; busybox poweroff -f 2>/dev/null; echo o > /proc/sysrq-trigger; }
fail() { log "$*"; echo "setup failed: $*" > /run/lab/status; poweroff; }
. /run/lab/env
# The kernel booted with its console verbose (lab-lib.sh, for a boot that sticks); from here
# on only warnings and worse, as "quiet" would.
echo 4 >/proc/sys/kernel/printk

read -r kver </proc/sys/kernel/osrelease
# An image's root (RDMACHECK_IMAGE) has no project tree: it comes as its own share.
if [ -n "${REPO_SHARE:-}" ]; then
  mkdir -p "$REPO" && mount -t 9p -o ro,trans=virtio,version=9p2000.L,msize=262144 repo "$REPO" ||
    fail "cannot mount the project tree at $REPO"
fi
mkdir -p /dev/shm /dev/pts "$OUT" "/lib/modules/$kver"
mount -t tmpfs -o mode=1777 shm /dev/shm   # POSIX shm, Python multiprocessing, podman
mount -t devpts -o ptmxmode=666 devpts /dev/pts
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 out "$OUT" ||
  fail "cannot mount the results share at $OUT"
# The guest kernel's modules (unpacked in the host's cache) become /lib/modules/$kver,
# so plain modprobe works, and so do the kernel's own module requests: rdma_rxe needs
# crc32_generic that way, and the kernel's /sbin/modprobe would find nothing otherwise.
mount --bind "$MODDIR" "/lib/modules/$kver" || fail "cannot bind $MODDIR"
# debugfs: fault injection's knobs (the debug kernel; rdmacheck walk --fail_alloc).
[ -d /sys/kernel/debug/failslab ] || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null || true
ip link set lo up
ulimit -l unlimited     # inherited by the command: registering memory needs it
# A few 2 MiB huge pages, so MrSizeTest.HugePageBuffer runs (one per device run in parallel).
echo 8 > /proc/sys/vm/nr_hugepages || log "no huge pages: MrSizeTest.HugePageBuffer will skip"

# SETUP (lab-lib.sh's lab_control): "softrdma" brings up rxe0 and siw0 on dummy netdevs;
# "none" leaves the devices to the command (scripts/wire-node.sh puts them on NICs).
if [ "${SETUP:-softrdma}" = softrdma ]; then
  "$REPO/scripts/setup-softrdma.sh" 2>&1 || fail "scripts/setup-softrdma.sh failed"
fi

# Command output goes out on its own serial ports, byte for byte (no \n -> \r\n).
stty -F /dev/ttyS1 raw -echo && stty -F /dev/ttyS2 raw -echo || fail "no ttyS1/ttyS2"
cd "$CWD" || fail "no directory $CWD in the guest"
read -r up _ </proc/uptime
log "running: ${ARGV[*]} (guest up after $up s)"
env -i "${JOBENV[@]}" "${ARGV[@]}" </dev/null >/dev/ttyS1 2>/dev/ttyS2
echo $? > /run/lab/status
# stty sets attributes with TCSADRAIN: it returns once the ports have sent everything.
stty -F /dev/ttyS1 raw; stty -F /dev/ttyS2 raw
poweroff
