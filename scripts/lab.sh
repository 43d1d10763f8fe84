#!/usr/bin/env bash
# The rdmacheck VM lab: boots a Debian kernel under QEMU with real Soft-RoCE (rxe0) and
# Soft-iWARP (siw0) devices and runs a command in it, on the host's own files.
#
#   scripts/lab.sh [-- COMMAND [ARG...]]
#
# Without COMMAND: installs the deps, builds the project and runs scripts/run-devices.sh
# on every RDMA device of the VM (results in <out>/<device>/).
#
# In the guest the host's root is seen at the same paths, writable through an overlay
# whose writes are discarded; the results dir <out> is shared writable at its host path.
# COMMAND runs as root in the current directory (the repo root for the main job) with
# RDMACHECK_LAB=1, RDMACHECK_OUT=<out> and OUT=<out>, HOME=/root, memlock unlimited,
# /dev/shm, stdin /dev/null and its stdout/stderr passed through. lab.sh exits with
# COMMAND's status, or 123 when the guest kernel panicked (<out>/lab-panic.txt names the
# test that was running and shows the console's last lines), 124 when the VM timed out,
# 125 when the lab itself failed.
# The guest console log ends up in <out>/lab-console.log (the last run's).
#
# Env: RDMACHECK_CACHE        cache dir (default /var/cache/rdmacheck)
#      RDMACHECK_KERNEL       the Debian kernel to boot: an ABI (6.1.0-56-amd64,
#                             6.12.95+deb12-amd64) or package name (linux-image-...),
#                             from the machine's apt sources or else from the backports
#                             suite derived from them (containers/vm/backports-apt.sh);
#                             "backports": the newest kernel of <codename>-backports;
#                             "default" or unset: the one linux-image-amd64 depends on
#      RDMACHECK_KERNEL_IMAGE, RDMACHECK_KERNEL_MODULES
#                             instead: a vmlinuz and its modules directory (named for
#                             its KVER; its `build` link is used to build siw if needed)
#                             The lab builds siw.ko when the kernel lacks CONFIG_RDMA_SIW.
#      RDMACHECK_OUT          results dir <out> (default <repo>/out)
#      RDMACHECK_LAB_MEM      guest memory in MB (default 4096)
#      RDMACHECK_LAB_TIMEOUT  seconds before the VM is killed (default 3000)
#      RDMACHECK_LAB_ACCEL    kvm or tcg (default: kvm if a cached boot probe passed)
#      Other RDMACHECK_* variables are passed on to COMMAND.
set -euo pipefail
# Bash reads a script while running it; the braces make it read all of it first, so
# editing this file cannot break a run in progress.
{

start=$SECONDS
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
vm=$repo/containers/vm
cache=${RDMACHECK_CACHE:-/var/cache/rdmacheck}
out=${RDMACHECK_OUT:-$repo/out}
mem=${RDMACHECK_LAB_MEM:-4096}
limit=${RDMACHECK_LAB_TIMEOUT:-3000}
accel=${RDMACHECK_LAB_ACCEL:-}

log() { echo "lab: $*" >&2; }
die() { log "error: $*"; exit 125; }
need() { command -v "$1" >/dev/null || die "$1 not found (package $2): run scripts/install-deps.sh"; }

case ${1:-} in
  --) shift ;;
  -h | --help) sed -n '2,/^set /{/^set /d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
  -*) die "unknown option '$1' (usage: scripts/lab.sh [-- COMMAND [ARG...]])" ;;
esac
cwd=$PWD
if [ $# -eq 0 ]; then # the main job
  "$repo/scripts/install-deps.sh" || die "scripts/install-deps.sh failed"
  log "building the project"
  { cmake -S "$repo" -B "$repo/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo &&
    cmake --build "$repo/build" -j2; } >&2 || die "the build failed"
  set -- scripts/run-devices.sh
  cwd=$repo
fi

for t in qemu-system-x86_64:qemu-system-x86 cpio:cpio depmod:kmod modprobe:kmod \
  flock:util-linux timeout:coreutils apt-get:apt dpkg-deb:dpkg; do
  need "${t%%:*}" "${t#*:}"
done
[ -x /bin/busybox ] || die "/bin/busybox not found (package busybox-static): run scripts/install-deps.sh"
[[ $mem =~ ^[0-9]+$ && $limit =~ ^[0-9]+$ ]] || die "RDMACHECK_LAB_MEM and RDMACHECK_LAB_TIMEOUT must be numbers"
case $accel in '' | kvm | tcg) ;; *) die "RDMACHECK_LAB_ACCEL must be kvm or tcg" ;; esac

# The kernel: KVER (its modules dir name) and kdir, its cache dir.
# meta_abi [APT...]: the ABI the linux-image-amd64 metapackage depends on.
meta_abi() {
  # The whole output into sed (no early exit that would break the pipe).
  "$@" apt-cache depends linux-image-amd64 2>/dev/null |
    sed -n 's/.*Depends: linux-image-\(.*\)$/\1/p' | sed -n 1p
}
custom=''
if [ -n "${RDMACHECK_KERNEL_IMAGE:-}${RDMACHECK_KERNEL_MODULES:-}" ]; then
  [ -f "${RDMACHECK_KERNEL_IMAGE:-}" ] && [ -d "${RDMACHECK_KERNEL_MODULES:-}" ] ||
    die "RDMACHECK_KERNEL_IMAGE must be a vmlinuz and RDMACHECK_KERNEL_MODULES its modules directory"
  custom=1
  kver=$(basename "$RDMACHECK_KERNEL_MODULES")
  # Keyed by what the kernel is: another build at the same paths gets its own entry.
  key=$({ stat -L -c '%n %s %Y' "$RDMACHECK_KERNEL_IMAGE" "$RDMACHECK_KERNEL_MODULES"/modules.* || true; } 2>/dev/null |
    sha256sum | cut -c1-12)
  kdir=$cache/custom-$kver-$key
else
  case ${RDMACHECK_KERNEL:-} in
    '' | default) kver=$(meta_abi) ;;
    backports | *-backports) kver=$(meta_abi "$vm/backports-apt.sh") ;;
    linux-image-*) kver=${RDMACHECK_KERNEL#linux-image-} ;;
    *) kver=$RDMACHECK_KERNEL ;;
  esac
  [ -n "$kver" ] || die "cannot tell which kernel '${RDMACHECK_KERNEL:-default}' is from apt's linux-image-amd64 (apt-get update?); set RDMACHECK_KERNEL to an ABI"
  kdir=$cache/$kver
fi
root=$kdir/root                 # the unpacked kernel package (+ siw.ko, depmod)
moddir=$root/lib/modules/$kver
# The initramfs is keyed by what it is built from, so editing those rebuilds it.
initrd=$kdir/initrd-$(cat "$vm/initramfs-init" "$vm/build-initramfs.sh" | sha256sum | cut -c1-12).img

# Cleanup on any exit: QEMU (through its timeout wrapper), readers, temp files.
qpid='' run='' locked='' console=''
# shellcheck disable=SC2317  # called by the trap
cleanup() {
  set +e # a failing kill here must not replace the exit status
  [ -z "$qpid" ] || { kill "$qpid" 2>/dev/null; wait "$qpid" 2>/dev/null; }
  # shellcheck disable=SC2046
  kill $(jobs -p) 2>/dev/null
  if [ -n "$run" ]; then
    # The console log is written in the run dir and moved at the end (same-fs rename),
    # so concurrent runs sharing <out> do not write into one file.
    [ ! -f "$run/console.log" ] || { cp "$run/console.log" "$console.$$" && mv -f "$console.$$" "$console"; }
    rm -rf "$run"
  fi
  # Half-made cache entries, only while we hold the lock: they may be another run's.
  [ -z "$locked" ] || rm -rf "$kdir"/*.tmp "$kdir"/*.tmp.*
  return 0
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

siw_present() {
  find "$moddir" -name 'siw.ko*' 2>/dev/null | grep -q . ||
    grep -qs '/siw\.ko' "$moddir/modules.builtin"
}

# qemu_args ACCEL: what every boot shares.
qemu_args() {
  local a=(qemu-system-x86_64 -nodefaults -no-user-config -display none -no-reboot -nic none
    -kernel "$root/boot/vmlinuz-$kver" -initrd "$initrd")
  # shellcheck disable=SC2054  # the comma belongs to the -accel value
  if [ "$1" = kvm ]; then a+=(-accel kvm -cpu host); else a+=(-accel tcg,thread=multi -cpu max); fi
  printf '%s\n' "${a[@]}"
}

# Prepare the cache under a lock: a concurrent lab.sh waits instead of racing.
mkdir -p "$kdir" || die "cannot create $kdir (set RDMACHECK_CACHE)"
exec 9>"$cache/.lock"
flock -n 9 || { log "waiting for the cache lock $cache/.lock"; flock 9; }
locked=1
if [ ! -d "$root" ] && [ -n "$custom" ]; then
  log "taking kernel $kver from $RDMACHECK_KERNEL_IMAGE and $RDMACHECK_KERNEL_MODULES"
  "$vm/custom-kernel.sh" "$RDMACHECK_KERNEL_IMAGE" "$RDMACHECK_KERNEL_MODULES" "$root" ||
    die "cannot use that kernel"
elif [ ! -d "$root" ]; then
  log "fetching kernel $kver"
  "$vm/fetch-kernel.sh" "$kver" "$root" || die "fetching kernel $kver failed"
fi
if ! siw_present; then
  need make make
  need gcc gcc
  log "building siw.ko (kernel $kver has no CONFIG_RDMA_SIW)"
  "$vm/build-siw.sh" "$root" "$kver" "$kdir/siw.ko.tmp" || die "building siw.ko failed"
  mkdir -p "$moddir/updates"
  mv "$kdir/siw.ko.tmp" "$moddir/updates/siw.ko"
  rm -f "$root/.depmod-done"
fi
if [ ! -f "$root/.depmod-done" ]; then
  depmod -b "$root" "$kver" || die "depmod failed"
  touch "$root/.depmod-done"
fi
if [ ! -f "$initrd" ]; then
  log "building initramfs"
  rm -f "$kdir"/initrd-*.img
  "$vm/build-initramfs.sh" "$root" "$kver" "$initrd" || die "building the initramfs failed"
fi
# KVM: /dev/kvm may exist and still fail to run a guest (emulation failure, QEMU hangs).
# Use it only when a short boot probe reaches the initramfs; cached per host kernel.
probe=$kdir/accel-$(uname -r)
if [ -z "$accel" ] && [ ! -f "$probe" ]; then
  res=tcg
  if [ -w /dev/kvm ]; then
    log "probing KVM (once; result in $probe)"
    mapfile -t a < <(qemu_args kvm)
    # The whole output, not a pipe into grep -q: an early grep exit would fail the pipe.
    said=$(timeout -k 2 10 "${a[@]}" -m 256 -serial stdio \
      -append "console=ttyS0 rdmacheck_probe=1" </dev/null 2>/dev/null || true)
    [[ $said != *rdmacheck-probe-ok* ]] || res=kvm
  fi
  echo "$res" >"$probe"
fi
[ -n "$accel" ] || accel=$(cat "$probe")
exec 9>&-
locked=''

# Per-run control share: the guest's stage 2, its settings, and the status it leaves.
mkdir -p "$out" || die "cannot create the results dir $out"
out=$(cd "$out" && pwd)
console=$out/lab-console.log
rm -f "$out/lab-panic.txt"
run=$(mktemp -d "${TMPDIR:-/tmp}/rdmacheck-lab.XXXXXX")
mkdir "$run/ctl"
cp "$vm/guest-init.sh" "$run/ctl/"
jobenv=()
for v in ${!RDMACHECK_@}; do jobenv+=("$v=${!v}"); done
jobenv+=(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
  USER=root LOGNAME=root LANG=C.UTF-8 RDMACHECK_LAB=1 "RDMACHECK_OUT=$out" "OUT=$out")
{
  printf 'REPO=%q\nOUT=%q\nCWD=%q\nMODDIR=%q\n' "$repo" "$out" "$cwd" "$moddir"
  printf 'JOBENV=('; printf '%q ' "${jobenv[@]}"; echo ')'
  printf 'ARGV=('; printf '%q ' "$@"; echo ')'
} >"$run/ctl/env"

# Serial ports: ttyS0 the console (to the log; its non-kernel lines to stderr),
# ttyS1/ttyS2 the command's stdout/stderr.
mkfifo "$run/con" "$run/out" "$run/err"
(sed -u "s/\r$//" <"$run/con" | tee "$run/console.log" | grep --line-buffered -v -E '^\[ *[0-9]+\.[0-9]+\]|^$' >&2) &
cat "$run/out" &
cat "$run/err" >&2 &
share() { echo "local,path=${1//,/,,},mount_tag=$2,security_model=none${3:-}"; }
mapfile -t a < <(qemu_args "$accel")
# no_timer_check: under emulation the kernel's IO-APIC timer check can fail by timing
# alone (6.12 panics with "IO-APIC + timer doesn't work"); the timer itself works.
# tsc=reliable: under load the clocksource watchdog can declare the emulated TSC unstable;
# switching sched_clock then patches kernel text while the other vCPU runs it, which TCG
# does not survive (6.12: "Oops: int3" in sched_clock_cpu from __sched_clock_work, a panic).
a+=(-smp 2 -m "$mem" -append "console=ttyS0 quiet panic=-1 no_timer_check tsc=reliable"
  -virtfs "$(share / hostroot ,readonly=on,multidevs=remap)"
  -virtfs "$(share "$out" out)" -virtfs "$(share "$run/ctl" ctl)")
for p in con out err; do a+=(-chardev "file,id=$p,path=$run/$p" -serial "chardev:$p"); done

log "booting VM ($accel, kernel $kver)"
boot=$SECONDS
timeout -k 10 "$limit" "${a[@]}" </dev/null &
qpid=$!
rc=0
wait "$qpid" || rc=$?
qpid=''
# The readers end when QEMU closes the FIFOs; bounded, in case it never opened them.
for _ in $(seq 50); do [ -z "$(jobs -pr)" ] && break; sleep 0.1; done

# panic_report: <out>/lab-panic.txt. A test was running when its start is the last line
# of the newest events file of its shard (<logs>/<suite>[.<shard>].<child>.events;
# runner/events.h; the share is written through, so the file is there after the crash).
# Runs in parallel (run-devices.sh: one per device; run --jobs: shards) each name theirs.
panic_report() {
  local f last shard running=() seen=' '
  while read -r _ f; do
    shard=${f%.*.events}
    [[ $seen == *" $shard "* ]] && continue  # only the newest child of each shard
    seen+="$shard "
    last=$(tail -n 1 "$f")
    case $last in
      *'"event":"start"'*)
        running+=("$(sed -n 's/.*"name":"\([^"]*\)".*/\1/p' <<<"$last") (suite $(basename "$f" | cut -d. -f1); events file $f)") ;;
    esac
  done < <(find "$out" -name '*.events' -newer "$run/ctl/env" -printf '%T@ %p\n' 2>/dev/null | sort -rn)
  {
    echo "lab: the guest kernel panicked (kernel $kver); results written before it are kept"
    if [ ${#running[@]} -eq 0 ]; then
      echo "running test: none known (no rdmacheck events file under $out ends in a started test)"
    fi
    for f in "${running[@]}"; do echo "running test: $f"; done
    echo "console ($console), last 40 lines:"
    tail -n 40 "$run/console.log"
  } >"$out/lab-panic.txt"
}

status=$(cat "$run/ctl/status" 2>/dev/null || true)
if [ -z "$status" ] && grep -qs 'Kernel panic - not syncing' "$run/console.log"; then
  panic_report
  sed -n 's/^/lab: /;2p' "$out/lab-panic.txt" >&2
  tail -n 15 "$run/console.log" | sed 's/^/lab: console: /' >&2
  log "error: the guest kernel panicked; details in $out/lab-panic.txt"
  exit 123
fi
if [ -z "$status" ] && [ $((SECONDS - boot)) -ge "$limit" ]; then
  log "error: VM timed out after $limit s (RDMACHECK_LAB_TIMEOUT) and was killed; console: $console"
  exit 124
fi
case $status in
  [0-9]*) log "done in $((SECONDS - start)) s (exit status $status)"; exit "$status" ;;
  '') status="the VM stopped (QEMU exit status $rc) without running the command" ;;
esac
tail -n 15 "$run/console.log" | sed 's/^/lab: console: /' >&2
die "$status; console: $console"
}
