#!/usr/bin/env bash
# Runs "rdmacheck run" on every RDMA device (or on those in RDMACHECK_DEVICES, space
# separated), results in ${OUT:-out}/<device>/, then "rdmacheck report" over them when the
# binary has that command. Exit 1 if any run (or the report) failed, 2 if there is no
# device or no binary. RDMACHECK_BIN: default build/rdmacheck, else rdmacheck on PATH.
# Arguments are passed to every `rdmacheck run` (e.g. --suites=device,pd).
# The devices run in parallel, each in its own processes, its output lines prefixed with
# "[device]"; RDMACHECK_PARALLEL=0 runs them one after the other.
set -uo pipefail
# Bash reads a script while running it; the braces make it read all of it first, so
# editing this file cannot break a run in progress.
{
out=${OUT:-out}
bin=${RDMACHECK_BIN:-build/rdmacheck}
[ -n "${RDMACHECK_BIN:-}" ] || [ -x "$bin" ] || bin=rdmacheck
command -v "$bin" >/dev/null ||
  { echo "run-devices: no rdmacheck binary ($bin): build it, or set RDMACHECK_BIN" >&2; exit 2; }
devices=${RDMACHECK_DEVICES:-$(ls /sys/class/infiniband 2>/dev/null)}
[ -n "${devices// /}" ] ||
  { echo "run-devices: no RDMA device here; run it in the software-RDMA VM: scripts/lab.sh" >&2; exit 2; }

# run_one DEV: one device's run; its exit status says whether it passed.
run_one() {
  local dev=$1
  shift
  rm -f "$out/$dev/results.json" # a run that cannot start must not leave an old result in the report
  "$bin" run --device="$dev" --out="$out/$dev" "$@"
}

rc=0 dirs=() pids=() names=()
for dev in $devices; do
  echo "run-devices: $dev -> $out/$dev" >&2
  if [ "${RDMACHECK_PARALLEL:-1}" = 0 ]; then
    run_one "$dev" "$@" || { echo "run-devices: $dev failed (exit $?)" >&2; rc=1; }
  else
    (run_one "$dev" "$@" 2>&1 | sed -u "s/^/[$dev] /"; exit "${PIPESTATUS[0]}") &
    pids+=($!) names+=("$dev")
  fi
done
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || { echo "run-devices: ${names[$i]} failed (exit $?)" >&2; rc=1; }
done
for dev in $devices; do
  [ -f "$out/$dev/results.json" ] && dirs+=("$out/$dev")
done
# The report over every device that produced results: out/report.{html,md,json} and a
# one-screen summary on stdout.
if [ "${#dirs[@]}" -gt 0 ] && "$bin" report --help >/dev/null 2>&1; then
  "$bin" report --out="$out" "${dirs[@]}" || { echo "run-devices: report failed" >&2; rc=1; }
fi
exit $rc
}
