#!/usr/bin/env bash
# Proves the container image for real, inside the VM lab (which has rxe0 and siw0 but
# no network): builds containers/Dockerfile with podman from the offline base made by
# containers/make-base-rootfs.sh and the binary of BUILD_DIR, runs it with the least
# privilege the README documents, and checks that the results and the report land in
# the mounted volume and that the container lost nothing against the same suites run
# outside it (`rdmacheck report diff`). Two runs:
#   host-network/  --network host --device /dev/infiniband --cap-add IPC_LOCK
#                  --ulimit memlock=-1: must match the run outside (the gate; the
#                  entrypoint also compares, given the outside run as RDMACHECK_BASELINE)
#   no-network/    the same with --network none: shown, not gated. rdma_cm resolves
#                  addresses in the caller's network namespace, where the devices'
#                  netdevs are not, so rdma_cm and what needs it (siw traffic) are lost.
#   privileged/    --privileged --network host -v /lib/modules:/lib/modules:ro
#                  RDMACHECK_SOFTRDMA="rxe siw": rxe0/siw0 are torn down first and the
#                  container makes them itself with setup-softrdma.sh; must match too.
#
#   scripts/lab.sh -- containers/prove-in-lab.sh [BUILD_DIR] [RUN_FLAGS...]
#
# BUILD_DIR: default build. RUN_FLAGS: for every `rdmacheck run` (default
# --suites=device,pd --timeout_multiplier=4). Results under $OUT/container/ (OUT: the
# lab's results dir): outside/, host-network/, no-network/, privileged/ (the volumes), with
# <run>.log and <run>.diff.md for each container run.
# Exit 0 proven, 1 not, 77 skipped (not in the lab, or the base tarball is missing: run
# containers/make-base-rootfs.sh on the host first; scripts/test.sh does).
# CTest: device.container. Needs ~4 GiB guest memory (the lab's default).
set -uo pipefail
start=$SECONDS
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
step() { echo "prove-in-lab: $* ($((SECONDS - start)) s)" >&2; }
fail() { echo "prove-in-lab: FAIL: $*" >&2; exit 1; }
skip() { echo "prove-in-lab: SKIP: $*"; exit 77; }

build=${1:-build}
[ $# -eq 0 ] || shift
flags=("$@")
# shellcheck disable=SC2054  # flag values, not separators
[ ${#flags[@]} -gt 0 ] || flags=(--suites=device,pd --timeout_multiplier=4)
[[ $build == /* ]] || build=$repo/$build
[ "${RDMACHECK_LAB:-}" = 1 ] || skip "runs in the VM lab: scripts/lab.sh -- containers/prove-in-lab.sh"
[ -x "$build/rdmacheck" ] || fail "no $build/rdmacheck: build first"
base=$("$repo/containers/make-base-rootfs.sh" --print-path)
[ -f "$base" ] || skip "no base tarball $base: run containers/make-base-rootfs.sh on the host"
command -v podman >/dev/null || fail "podman not installed (scripts/install-deps.sh)"
out=${OUT:-$repo/out}/container
rm -rf "$out" && mkdir -p "$out" || fail "cannot create $out"

# Podman in the lab guest: its own storage on a dedicated tmpfs (overlay driver; the
# host's /var/lib/containers is visible read-only through the guest's root and must not
# be used), cgroup v2 without systemd, events to a file.
store=/run/rdmacheck-podman
mkdir -p "$store" && mount -t tmpfs -o mode=700,size=3g podman "$store" || fail "cannot mount a tmpfs on $store"
mkdir -p "$store/tmp"
export TMPDIR=$store/tmp
grep -qs ' /sys/fs/cgroup cgroup2 ' /proc/mounts || mount -t cgroup2 none /sys/fs/cgroup || fail "cannot mount cgroup2"
podman=(podman --root "$store/root" --runroot "$store/runroot" --storage-driver overlay
  --cgroup-manager cgroupfs --events-backend file)

step "importing the base $base"
"${podman[@]}" import -q "$base" localhost/rdmacheck-base:lab >/dev/null || fail "podman import"

step "staging $build (cmake --install) into the build context"
# The build context is the repository (.dockerignore keeps it small); the guest's writes
# to it are discarded at poweroff.
rm -rf "$repo/containers/stage"
DESTDIR=$repo/containers/stage cmake --install "$build" --prefix /usr/local --strip >/dev/null || fail "cmake --install"

step "podman build -f containers/Dockerfile (offline: BASE=the base, RDMACHECK_FROM=prebuilt)"
"${podman[@]}" build --network none --pull=never -f "$repo/containers/Dockerfile" \
  --build-arg BASE=localhost/rdmacheck-base:lab --build-arg RDMACHECK_FROM=prebuilt \
  -t localhost/rdmacheck:lab "$repo" >"$out/build.log" 2>&1 || { tail -n 30 "$out/build.log" >&2; fail "podman build (log: $out/build.log)"; }
step "built: $("${podman[@]}" images --format '{{.Repository}}:{{.Tag}} {{.Size}}' localhost/rdmacheck:lab)"

step "the suites outside the container (the reference), with the container's privileges"
# Without CAP_NET_ADMIN, as the least-privilege container runs: the capability link_events
# (a test takes the port's netdev down and up) needs it, and is absent there by design.
OUT=$out/outside RDMACHECK_BIN=$build/rdmacheck setpriv --bounding-set=-net_admin --inh-caps=-net_admin \
  "$repo/scripts/run-devices.sh" "${flags[@]}" >"$out/outside.log" 2>&1
step "outside exited $?"
[ -s "$out/outside/report.json" ] || fail "the run outside the container left no report (log: $out/outside.log)"

# container_run NAME PODMAN_RUN_FLAGS...: the image with those flags; results in
# $out/NAME; the diff against the run outside in $out/NAME.diff.{txt,md}; sets $regressed.
container_run() {
  local name=$1 rc d
  shift
  mkdir -p "$out/$name"
  local run=("${podman[@]}" run --rm "$@" -v "$out/$name:/results" localhost/rdmacheck:lab)
  step "running: podman ${run[*]:${#podman[@]}} ${flags[*]}"
  "${run[@]}" "${flags[@]}" >"$out/$name.log" 2>&1
  rc=$?
  step "the container exited $rc (log: $out/$name.log)"
  [ "$rc" -le 1 ] || { tail -n 20 "$out/$name.log" >&2; fail "the entrypoint exited $rc"; }
  for dev in /sys/class/infiniband/*; do
    [ -s "$out/$name/${dev##*/}/results.json" ] || fail "no ${dev##*/}/results.json in the volume"
  done
  for f in report.json report.md report.html; do
    [ -s "$out/$name/$f" ] || fail "no $f in the volume"
  done
  "$build/rdmacheck" report diff "$out/outside" "$out/$name" >"$out/$name.diff.txt"
  d=$?
  "$build/rdmacheck" report diff --format=md "$out/outside" "$out/$name" >"$out/$name.diff.md"
  [ "$d" -le 1 ] || fail "report diff could not compare"
  regressed=$d
}

# The least privilege the README documents: the RDMA device nodes and locked memory, no
# other capability.
least=(--device /dev/infiniband --cap-add IPC_LOCK --ulimit memlock=-1)
container_run host-network --network host "${least[@]}" \
  -v "$out/outside:/baseline:ro" -e RDMACHECK_BASELINE=/baseline/report.json
[ -s "$out/host-network/diff.md" ] || fail "the entrypoint wrote no diff.md against RDMACHECK_BASELINE"
cat "$out/host-network.diff.txt"
[ "$regressed" = 0 ] || fail "the container lost results against the same run outside it (see $out/host-network.diff.md)"
container_run no-network --network none "${least[@]}"
echo "With --network none (not gated):"
cat "$out/no-network.diff.txt"

step "privileged: the container makes rxe0/siw0 itself (torn down here first)"
# On exit the devices are made again by this guest's setup-softrdma.sh, as the lab made
# them, so its state file knows them (the container's state file went with it).
restore() {
  local d
  for d in rxe0 siw0; do rdma link delete "$d" 2>/dev/null; done
  for d in rdmacheck-rxe rdmacheck-siw; do ip link delete "$d" 2>/dev/null; done
  "$repo/scripts/setup-softrdma.sh" >/dev/null || echo "prove-in-lab: WARNING: cannot restore rxe0/siw0" >&2
}
trap restore EXIT
"$repo/scripts/setup-softrdma.sh" --teardown >&2 || fail "teardown"
container_run privileged --privileged --network host -v /lib/modules:/lib/modules:ro -e "RDMACHECK_SOFTRDMA=rxe siw"
grep -E '^setup-softrdma: ' "$out/privileged.log"
grep -q 'rxe0 ACTIVE .*(created)' "$out/privileged.log" || fail "the privileged container did not create rxe0"
cat "$out/privileged.diff.txt"
[ "$regressed" = 0 ] || fail "the privileged container lost results against the run outside it (see $out/privileged.diff.md)"
step "proven: image built and run with least privilege and privileged; results and report in the volume, as outside"
