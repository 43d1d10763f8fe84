#!/usr/bin/env bash
# The Slurm lab: two lab nodes (scripts/lab.sh's VM, through scripts/lab-lib.sh) with
# Debian's slurm-wlm and munge (installed on the host by scripts/install-deps.sh; the
# guests run the host's root): slurmctld on node-a, slurmd on both, one munge key. Node-a
# submits ci/slurm/rdmacheck-fleet.sbatch unchanged through sbatch (every node's run, the
# cross-node pair, one fleet report); then node-b's rxe0 is broken (it runs, but every
# receive completion reports one byte too many: the mutation suite's wc_byte_len mutant,
# see scripts/slurm-node.sh), the job runs again (its fleet report must name node-b as the
# outlier with its failing tests), and node-b's slurmd restarts, runs the
# HealthCheckProgram (ci/slurm/healthcheck.sh) and must be drained with rdmacheck's reason
# while node-a stays idle (scripts/slurm-node.sh does the work in each guest).
#
#   scripts/slurm-lab.sh
#
# Results in <out>/slurm/ (<out>: RDMACHECK_OUT, default <repo>/out): healthy/ and broken/
# (each the job's shared dir: nodes/, pairs/, report/fleet.{html,md,json}), *.out (the
# jobs' output), sinfo-R.txt, sinfo-N.txt, scontrol-node-{a,b}.txt, slurm*.log,
# node-{A,B}-console.log. CTest: lab.slurm (label `slurm`).
# Exit: 0 when the healthy job passed, the broken job's report names node-b (only) as the
# outlier with its failing tests, and Slurm drained node-b with rdmacheck's reason while
# node-a stayed idle; 1 otherwise; 124/123/125 as scripts/lab.sh.
set -euo pipefail
{
start=$SECONDS
LAB_TAG=slurm-lab
RDMACHECK_LAB_MEM=${RDMACHECK_LAB_MEM:-2048}
# shellcheck source=scripts/lab-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lab-lib.sh"
repo=$lab_repo
out=${RDMACHECK_OUT:-$repo/out}
bin=${RDMACHECK_BIN:-$repo/build/rdmacheck}
[ -x "$bin" ] || die "no rdmacheck binary at $bin: build first (or set RDMACHECK_BIN)"
mutants=${RDMACHECK_MUTANTS:-$(dirname "$bin")/selftest/mutants/libmutants.so}
[ -f "$mutants" ] || die "no $mutants (node-b's broken NIC): build first (or set RDMACHECK_MUTANTS)"
lab_check_tools
need slurmctld slurmctld
need munged munge
mkdir -p "$out/slurm" || die "cannot create $out/slurm"
out=$(cd "$out" && pwd)
dir=$out/slurm
rm -rf "${dir:?}"/* "$dir"/.[!.]* 2>/dev/null || true
export RDMACHECK_SLURM_DIR=$dir RDMACHECK_BIN=$bin RDMACHECK_MUTANTS=$mutants RDMACHECK_SLURM_WAIT=$((limit / 3))

head -c 1024 /dev/urandom >"$dir/munge.key"
cat >"$dir/slurm.conf" <<CONF
# The Slurm lab's cluster (scripts/slurm-lab.sh): two nodes, root everywhere, no cgroups.
ClusterName=rdmacheck-lab
SlurmctldHost=node-a(10.89.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/linear
MpiDefault=none
ReturnToService=2
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd-%n.log
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
# rdmacheck's health check: at slurmd's start (before it registers) and hourly.
HealthCheckProgram=$repo/ci/slurm/healthcheck.sh
HealthCheckInterval=3600
HealthCheckNodeState=ANY
NodeName=node-a NodeAddr=10.89.0.1 CPUs=1 State=UNKNOWN
NodeName=node-b NodeAddr=10.89.0.2 CPUs=1 State=UNKNOWN
PartitionName=lab Nodes=node-a,node-b Default=YES MaxTime=INFINITE State=UP
CONF

# No systemd in the guests: slurmd makes its cgroup v2 hierarchy itself.
printf 'CgroupPlugin=cgroup/v2\nIgnoreSystemd=yes\n' >"$dir/cgroup.conf"

links=$(mktemp -d "${TMPDIR:-/tmp}/rdmacheck-slurm.XXXXXX")
lab_runs+=("$links")
declare -A qpid runs boots
boot_node() {
  local node=$1 n a l server
  lab_kernel "${RDMACHECK_KERNEL:-}"
  lab_prepare
  lab_control "$out" "$repo" "$dir/node-$node-console.log" "[$node] " none -- "$repo/scripts/slurm-node.sh" "$node"
  runs[$node]=$run
  n=$([ "$node" = A ] && echo 1 || echo 2)
  server=$([ "$node" = A ] && echo on || echo off)
  mapfile -t a < <(lab_qemu "$run" "$out" 1)
  for l in 0 1; do
    a+=(-netdev "stream,id=n$l,server=$server,addr.type=unix,addr.path=$links/link$l"
      -device "virtio-net-pci,netdev=n$l,mac=52:54:00:89:0$l:0$n")
  done
  log "booting node $node ($accel, kernel $kver)"
  boots[$node]=$SECONDS
  timeout -k 10 "$limit" "${a[@]}" </dev/null &
  qpid[$node]=$!
  lab_pids+=($!)
  lab_boot_watch "$run" "${qpid[$node]}"
}
boot_node A
for _ in $(seq 100); do # node B connects to node A's sockets (bounded, 10 s)
  [ -S "$links/link1" ] && break
  sleep 0.1
done
boot_node B

declare -A status
for node in A B; do
  rc=0
  wait "${qpid[$node]}" || rc=$?
  lab_wait_readers "${runs[$node]}"
  status[$node]=0
  lab_outcome "${runs[$node]}" "$out" "$dir/node-$node-console.log" $((SECONDS - boots[$node])) "$rc" || status[$node]=$?
  [ "$node" != A ] || touch "$dir/done"  # node A ended: B stops waiting
done
lab_pids=()
log "node A exit ${status[A]}, node B exit ${status[B]}; $((SECONDS - start)) s"
[ "${status[A]}" -lt 123 ] || exit "${status[A]}"

# The verdicts: the healthy job passed; the broken job's report names node-b, and only
# node-b, as the outlier with its failing tests; Slurm drained node-b with rdmacheck's
# reason and node-a stayed idle.
final=0
check() {  # check WHAT COMMAND...
  local what=$1; shift
  if "$@"; then log "ok: $what"; else log "FAILED: $what"; final=1; fi
}
check "the healthy fleet job exited 0" [ "$(cat "$dir/healthy.rc" 2>/dev/null)" = 0 ]
check "every node healthy, no outlier, the pair ok in the healthy job" python3 - "$dir/healthy/report/fleet.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
assert s["healthy"] == 2 and s["outliers"] == [] and s["pairs"] == 1 and s["failed_pairs"] == 0, s
PY
check "the broken fleet job exited 1" [ "$(cat "$dir/broken.rc" 2>/dev/null)" = 1 ]
check "the broken job's report: node-b the outlier with failing tests, node-a healthy" python3 - "$dir/broken/report/fleet.json" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))
assert f["summary"]["outliers"] == ["node-b"], f["summary"]
node = {n["name"]: n for n in f["nodes"]}
b, a = node["node-b"], node["node-a"]
assert b["verdict"] == "fail" and b["outlier"] and b["failures"], b
assert a["verdict"] == "healthy" and not a["outlier"], a
print("node-b fails:", ", ".join(x["test"] for x in b["failures"]))
PY
check "fleet.md names node-b as outlier" grep -q "^| node-b | fail, outlier | " "$dir/broken/report/fleet.md"
check "scontrol: node-b drained with rdmacheck's reason" \
  grep -Eq "State=[A-Z+]*DRAIN" "$dir/scontrol-node-b.txt"
check "scontrol: node-b's Reason is rdmacheck's line" grep -Eq "^ *Reason=rdmacheck: rxe0: " "$dir/scontrol-node-b.txt"
check "scontrol: node-a idle" grep -Eq "State=IDLE " "$dir/scontrol-node-a.txt"
log "done in $((SECONDS - start)) s: exit $final"
exit $final
}
