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
#                             "default" or unset: the one linux-image-amd64 depends on;
#                             "debug": the debug kernel (KASAN, UBSAN, lockdep, kmemleak,
#                             fault injection), built from Debian's linux-source-6.1 on
#                             first use and cached (containers/debug-kernel/build.sh)
#      RDMACHECK_LAB_CMDLINE  more kernel command line for the guest (init_on_alloc=0 shows
#                             what Debian's zeroing of every allocation hides)
#      RDMACHECK_KERNEL_IMAGE, RDMACHECK_KERNEL_MODULES
#                             instead: a vmlinuz and its modules directory (named for
#                             its KVER; its `build` link is used to build siw if needed)
#                             The lab builds siw.ko when the kernel lacks CONFIG_RDMA_SIW.
#      RDMACHECK_IMAGE        what the guest boots: "host" (default) the host's root with
#                             the kernel above; a Debian release (bookworm, trixie, sid)
#                             with its own kernel, rdma-core and the project's .deb built
#                             and installed there (containers/vm/image.sh, cached); or a
#                             directory holding a root file system with its kernel and
#                             rdmacheck installed. The project tree is shared at its path.
#      RDMACHECK_OUT          results dir <out> (default <repo>/out)
#      RDMACHECK_LAB_MEM      guest memory in MB (default 4096)
#      RDMACHECK_LAB_TIMEOUT  seconds before the VM is killed (default 3000)
#      RDMACHECK_LAB_BOOT_TIMEOUT
#                             seconds the guest has to start the command (default 240);
#                             a boot stuck longer is stopped and booted once more
#      RDMACHECK_LAB_ACCEL    kvm or tcg (default: kvm if a cached boot probe passed)
#      Other RDMACHECK_* variables are passed on to COMMAND.
set -euo pipefail
# Bash reads a script while running it; the braces make it read all of it first, so
# editing this file cannot break a run in progress.
{

start=$SECONDS
LAB_TAG=lab
# shellcheck source=scripts/lab-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lab-lib.sh"
repo=$lab_repo
out=${RDMACHECK_OUT:-$repo/out}

case ${1:-} in
  --) shift ;;
  -h | --help) sed -n '2,/^set /{/^set /d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
  -*) die "unknown option '$1' (usage: scripts/lab.sh [-- COMMAND [ARG...]])" ;;
esac
cwd=$PWD
image=${RDMACHECK_IMAGE:-host}
if [ $# -eq 0 ]; then # the main job
  "$repo/scripts/install-deps.sh" || die "scripts/install-deps.sh failed"
  if [ "$image" = host ]; then
    log "building the project"
    { cmake -S "$repo" -B "$repo/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo &&
      cmake --build "$repo/build" -j2; } >&2 || die "the build failed"
  fi
  set -- scripts/run-devices.sh --strict  # missing evidence (kernel log, counters) fails the run
  cwd=$repo
fi

lab_check_tools
if [ "$image" = host ]; then
  lab_kernel "${RDMACHECK_KERNEL:-}"
else
  # The image's own kernel, in place; the guest runs the rdmacheck installed in the image.
  [ -z "${RDMACHECK_KERNEL:-}${RDMACHECK_KERNEL_IMAGE:-}" ] || die "RDMACHECK_IMAGE brings its own kernel: unset RDMACHECK_KERNEL*"
  rc=0
  img=$("$repo/containers/vm/image.sh" "$image") || rc=$?
  [ "$rc" -ne 2 ] || exit 2
  [ "$rc" -eq 0 ] || die "cannot prepare image $image"
  read -r lab_hostroot ikver <<<"$img"
  lab_image_kernel "$lab_hostroot" "$ikver"
  export RDMACHECK_BIN=${RDMACHECK_BIN:-rdmacheck}
  log "image $image: $lab_hostroot (kernel $ikver)"
fi
lab_prepare

# Per-run control share: the guest's stage 2, its settings, and the status it leaves.
mkdir -p "$out" || die "cannot create the results dir $out"
out=$(cd "$out" && pwd)
console=$out/lab-console.log
rm -f "$out/lab-panic.txt"
# A boot that stuck before the command started (lab_boot_watch) is the lab's failure and
# has produced nothing yet: it is booted once more, its console kept beside the results.
for attempt in 1 2; do
  lab_control "$out" "$cwd" "$console" '' softrdma -- "$@"
  mapfile -t a < <(lab_qemu "$run" "$out" 2)
  log "booting VM ($accel, kernel $kver)"
  boot=$SECONDS
  timeout -k 10 "$limit" "${a[@]}" </dev/null &
  lab_pids=($!)
  lab_boot_watch "$run" "${lab_pids[0]}"
  rc=0
  wait "${lab_pids[0]}" || rc=$?
  lab_pids=()
  lab_wait_readers "$run"
  status=0
  lab_outcome "$run" "$out" "$console" $((SECONDS - boot)) "$rc" || status=$?
  lab_boot_stuck "$run" && [ "$attempt" -eq 1 ] || break
  cp "$run/console.log" "$out/lab-console.stuck-boot.log"
  log "booting again (attempt 2 of 2); the stuck boot's console is in $out/lab-console.stuck-boot.log"
done
[ "$status" -ge 123 ] || log "done in $((SECONDS - start)) s (exit status $status)"
exit "$status"
}
