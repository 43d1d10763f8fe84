#!/bin/bash
# Slurm's HealthCheckProgram for RDMA nodes (slurm.conf, see ci/slurm/README.md). slurmd
# runs it as root every HealthCheckInterval seconds; Slurm itself ignores its exit status,
# so, like LBNL NHC, it drains the node itself: `rdmacheck health` prints one line and
# exits non-zero on a broken NIC, and that line becomes the drain reason. A node this
# script drained is resumed once the check passes again (a reason set by anyone else is
# left alone).
#
# Settings, in /etc/default/rdmacheck (sourced when it exists: slurmd hands the program a
# minimal environment, so slurmd's own may not reach it), else the environment:
#   RDMACHECK          the binary (default: rdmacheck in PATH, else this checkout's build/)
#   RDMACHECK_HEALTH   flags for `rdmacheck health`, e.g. "--devices=mlx5_0,mlx5_1
#                      --profile=/etc/rdmacheck/gpu-a.json" (docs/machine-profile.md)
set -uo pipefail
# shellcheck source=/dev/null
[ -r /etc/default/rdmacheck ] && . /etc/default/rdmacheck
# slurmd gives the program a minimal environment: where packages and admins put binaries.
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin${PATH:+:$PATH}
node=${SLURMD_NODENAME:-$(hostname -s)}
# The binary: RDMACHECK, else rdmacheck in PATH, else this checkout's build.
bin=${RDMACHECK:-$(command -v rdmacheck || echo "$(dirname "$0")/../../build/rdmacheck")}
line=$(timeout 300 "$bin" health ${RDMACHECK_HEALTH:-} 2>&1 | tail -n 1)
status=${PIPESTATUS[0]}
[ -n "$line" ] || line="rdmacheck health: FAIL $node: no output (exit $status)"
reason=$(scontrol show node "$node" 2>/dev/null | sed -n 's/^ *Reason=\(.*\) \[.*$/\1/p')
if [ "$status" -ne 0 ]; then
  # "rdmacheck health: FAIL node: why" -> "rdmacheck: why" (a reason is one short line).
  why="rdmacheck: ${line#*: FAIL $node: }"
  scontrol update NodeName="$node" State=DRAIN Reason="${why:0:200}"
  echo "$line"
  exit 1
fi
case "$reason" in rdmacheck:*) scontrol update NodeName="$node" State=RESUME ;; esac
exit 0
