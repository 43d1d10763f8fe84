#!/usr/bin/env bash
# The generic CI entry point: any CI system (GitLab, Jenkins, Buildkite, a cron job) calls
# this script; the GitHub Actions templates in ci/github-actions/ call it too, so every CI
# runs the same steps.
#
#   ci/rdmacheck-ci.sh STEP...      steps run in the order given
#
#   deps      install the Debian packages (scripts/install-deps.sh; root, Debian)
#   build     configure and build into $RDMACHECK_BUILD
#   unit      the host unit tests (CTest label `unit`); JUnit in $RDMACHECK_OUT/unit-junit.xml
#   devices   `rdmacheck run` on RDMA devices, results in $RDMACHECK_OUT/<device>/ and the
#             report in $RDMACHECK_OUT/report.{html,md,json}; where, by RDMACHECK_WHERE:
#               host       devices of this machine (RDMACHECK_SOFTRDMA="rxe siw" makes
#                          rxe0/siw0 first with scripts/setup-softrdma.sh; root)
#               container  the same, but rdmacheck runs in the image of containers/Dockerfile
#                          (docker or podman) with least privilege
#               lab        the VM lab (scripts/lab.sh): rxe0/siw0 under RDMACHECK_KERNEL
#               auto       (default) host when it has or can make the devices, else lab
#   compare   `rdmacheck report diff $RDMACHECK_BASELINE $RDMACHECK_OUT`, the diff in
#             $RDMACHECK_OUT/diff.md. No baseline file yet: a warning, and every failed
#             test fails (commit a good run's report.json as the baseline)
#
# Env: RDMACHECK_OUT        results dir (default out/ci); upload it as the CI artifact
#      RDMACHECK_BUILD      build dir (default build)
#      RDMACHECK_DEVICES    devices for `devices` (default: all; with RDMACHECK_SOFTRDMA
#                           the ones made)
#      RDMACHECK_RUN_FLAGS  flags for every `rdmacheck run` (e.g. "--suites=device,pd")
#      RDMACHECK_BASELINE   a report.json (or run dir) of a known-good run for `compare`
#      RDMACHECK_IMAGE      image for WHERE=container (default: built as rdmacheck:ci);
#                           it also runs `report diff` when there is no host build
#      RDMACHECK_KERNEL ... passed to the lab (see scripts/lab.sh)
#
# Exit status: 2 when a step could not run at all. Otherwise, when `compare` is among the
# steps, only a regression against the baseline fails (1): failures the baseline already
# had are known. Without `compare`, any failed test fails (1).
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo" || exit 2
export RDMACHECK_OUT=${RDMACHECK_OUT:-out/ci}
build=${RDMACHECK_BUILD:-build}
where=${RDMACHECK_WHERE:-auto}
read -r -a run_flags <<<"${RDMACHECK_RUN_FLAGS:-}"
start=$SECONDS
log() { echo "rdmacheck-ci: $* ($((SECONDS - start)) s)" >&2; }
die() { echo "rdmacheck-ci: error: $*" >&2; exit 2; }
# Root for the setup script, the lab and the container engine; the environment goes along.
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo --preserve-env "$@"; fi; }
mkdir -p "$RDMACHECK_OUT" || die "cannot create $RDMACHECK_OUT"
out=$(cd "$RDMACHECK_OUT" && pwd)

# The devices the setup script makes, as RDMACHECK_DEVICES.
softrdma() {
  local k args=() names=()
  for k in $RDMACHECK_SOFTRDMA; do args+=("--$k"); names+=("${k}0"); done
  as_root scripts/setup-softrdma.sh "${args[@]}" || return 1
  export RDMACHECK_DEVICES=${RDMACHECK_DEVICES:-${names[*]}}
}

step_deps() { as_root scripts/install-deps.sh || die "installing dependencies failed"; }

step_build() {
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null && cmake --build "$build" -j"$(nproc)" ||
    die "the build failed"
}

step_unit() {
  ctest --test-dir "$build" -L unit --output-on-failure --timeout 600 --output-junit "$out/unit-junit.xml"
}

step_devices() {
  local w=$where
  if [ "$w" = auto ]; then
    w=lab
    if [ -n "${RDMACHECK_SOFTRDMA:-}" ]; then softrdma && w=host
    elif ls /sys/class/infiniband/* >/dev/null 2>&1; then w=host
    fi
    log "devices: running on the $w"
  elif [ "$w" != lab ] && [ -n "${RDMACHECK_SOFTRDMA:-}" ]; then
    softrdma || die "scripts/setup-softrdma.sh failed"
  fi
  case $w in
    host)
      OUT=$out RDMACHECK_BIN=$build/rdmacheck as_root scripts/run-devices.sh "${run_flags[@]}" ;;
    container) container_run ;;
    lab)
      # The lab boots its own kernel, whose devices are rxe0 and siw0.
      local devs=${RDMACHECK_DEVICES:-}
      [ -n "$devs" ] || for k in ${RDMACHECK_SOFTRDMA:-rxe siw}; do devs+="${devs:+ }${k}0"; done
      RDMACHECK_OUT=$out RDMACHECK_DEVICES=$devs RDMACHECK_BIN=$build/rdmacheck \
        as_root scripts/lab.sh -- scripts/run-devices.sh "${run_flags[@]}" ;;
    *) die "RDMACHECK_WHERE must be host, container, lab or auto" ;;
  esac
}

# WHERE=container: the image (built here unless RDMACHECK_IMAGE names one), run with the
# least privilege the README documents, on the devices of this machine.
container_run() {
  local engine image=${RDMACHECK_IMAGE:-} env=()
  engine=$(command -v docker || command -v podman) || die "no docker or podman"
  if [ -z "$image" ]; then
    image=rdmacheck:ci
    as_root "$engine" build -f containers/Dockerfile -t "$image" . || die "building the image failed"
  fi
  [ -z "${RDMACHECK_DEVICES:-}" ] || env=(-e "RDMACHECK_DEVICES=$RDMACHECK_DEVICES")
  # --network host: rdma_cm (iWARP always, RoCE with rdma_cm) resolves addresses in the
  # netdev's network namespace; it grants no privilege.
  as_root "$engine" run --rm --network host --device /dev/infiniband --cap-add IPC_LOCK \
    --ulimit memlock=-1 "${env[@]}" -v "$out:/results" "$image" "${run_flags[@]}"
}

# rdmacheck ARGS...: the host build, else the one on PATH, else the one in the image.
rdmacheck() {
  if [ -x "$build/rdmacheck" ]; then "$build/rdmacheck" "$@"
  elif command -v rdmacheck >/dev/null; then command rdmacheck "$@"
  else
    local engine
    engine=$(command -v docker || command -v podman) || die "no rdmacheck binary (build step) and no container engine"
    as_root "$engine" run --rm --network none -v "$PWD:$PWD" -w "$PWD" --entrypoint rdmacheck \
      "${RDMACHECK_IMAGE:-rdmacheck:ci}" "$@"
  fi
}

step_compare() {
  rdmacheck report diff --format=md "$baseline" "$out" >"$out/diff.md"
  local rc=$?
  cat "$out/diff.md"
  [ "$rc" -le 1 ] || die "report diff could not compare (exit $rc)"
  return "$rc"
}

[ $# -gt 0 ] || die "usage: ci/rdmacheck-ci.sh STEP... (deps build unit devices compare; see the header)"
rc=0 compare=''
for s in "$@"; do
  declare -F "step_$s" >/dev/null || die "unknown step '$s'"
  [ "$s" != compare ] || compare=1
done
if [ -n "$compare" ]; then
  baseline=${RDMACHECK_BASELINE:-}
  [ -n "$baseline" ] || die "compare needs RDMACHECK_BASELINE (a report.json of a known-good run)"
  [[ $baseline == /* ]] || baseline=$repo/$baseline
  if [ ! -e "$baseline" ]; then
    msg="no baseline $RDMACHECK_BASELINE yet: every failed test fails this run; keep a good run's report.json there"
    log "warning: $msg"
    [ -z "${GITHUB_ACTIONS:-}" ] || echo "::warning::$msg"
    compare=''
  fi
fi
for s in "$@"; do
  [ "$s" != compare ] || [ -n "$compare" ] || continue
  log "step $s"
  "step_$s"
  r=$?
  log "step $s: exit $r"
  [ "$r" -lt 2 ] || exit "$r"
  # With a baseline, test failures count only through compare (known ones are fine).
  if [ "$r" -ne 0 ] && { [ -z "$compare" ] || [ "$s" = compare ] || [ "$s" = unit ]; }; then rc=1; fi
done
exit "$rc"
