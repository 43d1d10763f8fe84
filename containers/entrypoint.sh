#!/bin/bash
# Entrypoint of the rdmacheck image (containers/Dockerfile): runs `rdmacheck run` on every
# RDMA device the container sees, or on those named in RDMACHECK_DEVICES, and writes
# /results/<device>/{results.json,junit.xml,capabilities.json} and
# /results/report.{html,md,json} (scripts/run-devices.sh does the work; mount a volume
# on /results to keep them).
#
#   docker run ... IMAGE [RUN_FLAGS...]     RUN_FLAGS go to every `rdmacheck run`,
#                                           e.g. --suites=device,pd --timeout_multiplier=4
#   docker run ... IMAGE rdmacheck ARGS...  any other command runs as given (also: bash)
#
# Env: RDMACHECK_DEVICES    devices to run on, space separated (default: every device
#                           whose /dev/infiniband/uverbs* node was passed in; sysfs
#                           lists the host's devices whether passed or not)
#      RDMACHECK_SOFTRDMA   "rxe", "siw" or "rxe siw": create rxe0/siw0 first with
#                           setup-softrdma.sh (needs --privileged --network host and the
#                           host's /lib/modules mounted read-only)
#      RDMACHECK_BASELINE   a report.json or run directory to compare with
#                           (`rdmacheck report diff`, written to /results/diff.md);
#                           then only a regression fails, known failures do not
#      RDMACHECK_OUT        where to write (default /results)
# Exit: 0 all ran and passed (with a baseline: no regression), 1 test failures (with a
#       baseline: a regression), 2 no device / no usable setup.
set -uo pipefail
out=${RDMACHECK_OUT:-/results}
scripts=/usr/local/share/rdmacheck/scripts
log() { echo "rdmacheck-entrypoint: $*" >&2; }

if [ $# -gt 0 ] && [[ $1 != -* ]]; then exec "$@"; fi

if [ -n "${RDMACHECK_SOFTRDMA:-}" ]; then
  kinds=()
  for k in $RDMACHECK_SOFTRDMA; do kinds+=("--$k"); done
  "$scripts/setup-softrdma.sh" "${kinds[@]}" >&2 || {
    log "setup-softrdma.sh failed: creating devices needs --privileged --network host -v /lib/modules:/lib/modules:ro"
    exit 2
  }
fi
# Where the security boundary is: this process can use exactly the devices whose
# /dev/infiniband/uverbs* nodes the runtime passed in (--device), nothing else.
if [ -z "${RDMACHECK_DEVICES:-}" ]; then
  for node in /dev/infiniband/uverbs*; do
    [ -e "$node" ] || continue
    read -r dev 2>/dev/null <"/sys/class/infiniband_verbs/${node##*/}/ibdev" &&
      RDMACHECK_DEVICES="${RDMACHECK_DEVICES:-}${RDMACHECK_DEVICES:+ }$dev"
  done
  [ -n "${RDMACHECK_DEVICES:-}" ] || {
    log "no /dev/infiniband/uverbs* in the container: pass the devices (--device /dev/infiniband)"
    exit 2
  }
  export RDMACHECK_DEVICES
fi
# What stops RDMA from working in this container, first: the verdict line and each finding.
rdmacheck doctor >&2
log "memlock limit: $(ulimit -l)$([ "$(ulimit -l)" = unlimited ] || echo " KiB (want unlimited: --ulimit memlock=-1)")"
[ -w "$out" ] || mkdir -p "$out" 2>/dev/null || { log "cannot write $out (mount a volume: -v DIR:$out)"; exit 2; }

OUT=$out RDMACHECK_BIN=rdmacheck "$scripts/run-devices.sh" "$@"
rc=$?
[ "$rc" -le 1 ] || exit "$rc"
if [ -n "${RDMACHECK_BASELINE:-}" ]; then
  rdmacheck report diff --format=md "$RDMACHECK_BASELINE" "$out" >"$out/diff.md"
  d=$?
  cat "$out/diff.md"
  case $d in
    0) rc=0 ;;
    1) log "regression against $RDMACHECK_BASELINE (see $out/diff.md)"; rc=1 ;;
    *) log "cannot compare with $RDMACHECK_BASELINE"; exit 2 ;;
  esac
fi
exit "$rc"
