#!/usr/bin/env bash
# The Slurm lab: two lab nodes (scripts/lab.sh's VM, through scripts/lab-lib.sh) with
# Debian's slurm-wlm and munge (installed on the host by scripts/install-deps.sh; the
# guests run the host's root): slurmctld on node-a, slurmd on both, one munge key. Node-a
# submits ci/slurm/rdmacheck-fleet.sbatch unchanged through sbatch (every node's run, the
# cross-node pair, one fleet report) and learns the machine profile from it; then node-b's
# rxe0 is broken (it runs, but every send completion carries the wrong wr_id: the mutation
# suite's wc_wr_id mutant) and its netdev's MTU lowered, node-a's link flaps three times
# (scripts/slurm-node.sh), and the job runs again against the profile: its report must name
# node-b (failing tests, below the profile) and node-a's flapping link. A grown fleet of
# four (scripts/fleet-grow.py) must call node-b the side at fault and its MTU drift. Both
# slurmds restart and run the HealthCheckProgram (ci/slurm/healthcheck.sh) with the
# profile: Slurm must drain node-b (its NIC) and node-a (its flaps) with rdmacheck's reasons.
#
#   scripts/slurm-lab.sh
#
# Results in <out>/slurm/ (<out>: RDMACHECK_OUT, default <repo>/out): healthy/ and broken/
# (each the job's shared dir: nodes/, pairs/, report/fleet.{html,md,json}), *.out (the
# jobs' output), sinfo-R.txt, sinfo-N.txt, scontrol-node-{a,b}.txt, slurm*.log,
# node-{A,B}-console.log, profile.json (learned), grown/ (the fleet of four). CTest: lab.slurm (label `slurm`).
# Exit: 0 when every check below holds; 1 otherwise; 124/123/125 as scripts/lab.sh.
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

# The verdicts. The healthy job passed and meets the profile learned from it. The broken job
# (against that profile) names node-b, the outlier with failing tests and below the profile
# (its MTU), and node-a's flapping link. The grown fleet (node-c and node-d: node-a's healthy
# runs under new names, scripts/fleet-grow.py; a third VM is more than this machine runs in
# CI's time) calls node-b the side at fault and names its MTU as drift. Slurm drained node-b
# (its broken NIC) and node-a (its flapping link), each with rdmacheck's reason.
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
check "a profile was learned from the healthy fleet" [ -s "$dir/profile.json" ]
check "the healthy fleet meets the profile learned from it" \
  "$bin" fleet report --profile="$dir/profile.json" --out="$dir/healthy/report-profiled" "$dir/healthy/nodes" "$dir/healthy/pairs"
check "the broken fleet job exited 1" [ "$(cat "$dir/broken.rc" 2>/dev/null)" = 1 ]
check "the broken job's report: node-b fails, below the profile; node-a's link flaps" python3 - "$dir/broken/report/fleet.json" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))
node = {n["name"]: n for n in f["nodes"]}
b, a = node["node-b"], node["node-a"]
assert b["verdict"] == "fail" and b["outlier"] and b["failures"], b
assert any("active_mtu 4096" in v for v in b["profile_violations"]), b["profile_violations"]
assert a["flapping_links"] and "went down 3 times" in a["flapping_links"][0], a
assert any("went down 3 times" in v for v in a["profile_violations"]), a["profile_violations"]
assert f["summary"]["flapping_links"] == ["node-a"], f["summary"]
assert sorted(f["summary"]["below_profile"]) == ["node-a", "node-b"], f["summary"]
print("node-b fails:", ", ".join(x["test"] for x in b["failures"]), "| node-a:", a["flapping_links"][0])
PY
check "fleet.md's first lines name node-a's flapping link and both nodes below the profile" \
  sh -c "sed -n 3p '$dir/broken/report/fleet.md' | grep -q 'flapping links: node-a' && sed -n 3p '$dir/broken/report/fleet.md' | grep -q 'below the profile'"
grown=$dir/grown
rm -rf "$grown" && mkdir -p "$grown/nodes" "$grown/pairs" &&
  cp -r "$dir/broken/nodes/node-a" "$dir/broken/nodes/node-b" "$grown/nodes/" &&
  cp -r "$dir/broken/pairs/node-a--node-b" "$grown/pairs/" &&
  "$repo/scripts/fleet-grow.py" "$grown" --node node-c="$dir/healthy/nodes/node-a" --node node-d="$dir/healthy/nodes/node-a" \
    --pair node-c--node-b="$dir/broken/pairs/node-a--node-b" --pair node-d--node-b="$dir/broken/pairs/node-a--node-b" \
    --pair node-a--node-c="$dir/healthy/pairs/node-a--node-b" --pair node-a--node-d="$dir/healthy/pairs/node-a--node-b" \
    --pair node-c--node-d="$dir/healthy/pairs/node-a--node-b" || final=1
"$bin" fleet report --out="$grown/report" --nodes=node-a,node-b,node-c,node-d \
  "$grown/nodes" "$grown/pairs" >"$grown/report.txt" 2>&1 || true  # exit 1: node-b fails; judged below
check "the grown fleet: node-b at fault with 3 of 3 partners, its MTU drifts from the fleet's" python3 - "$grown/report/fleet.json" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))
call = f["at_fault"][0]
assert call["side"] == "node" and call["nodes"] == ["node-b"] and call["failed_partners"] == 3 == call["partners"], call
b = {n["name"]: n for n in f["nodes"]}["node-b"]
drift = [d for dev in b["devices"] for d in dev["differences"] if d["subject"] == "active_mtu"]
assert drift and drift[0]["value"] == "4096" and drift[0]["majority"] == "1024", b["devices"]
healthy = [n["name"] for n in f["nodes"] if n["verdict"] == "healthy"]
assert sorted(healthy) == ["node-c", "node-d"], f["summary"]
print("at fault:", call["line"])
PY
check "the grown fleet's headline names node-b at fault" sh -c "sed -n 3p '$grown/report/fleet.md' | grep -q 'at fault: node-b'"
check "scontrol: node-b drained with rdmacheck's reason (its broken NIC)" \
  grep -Eq "State=[A-Z+]*DRAIN" "$dir/scontrol-node-b.txt"
check "scontrol: node-b's Reason is rdmacheck's line" grep -Eq "^ *Reason=rdmacheck: rxe0: " "$dir/scontrol-node-b.txt"
check "scontrol: node-a drained for its flapping link" grep -Eq "State=[A-Z+]*DRAIN" "$dir/scontrol-node-a.txt"
check "scontrol: node-a's Reason is the flaps" grep -Eq "^ *Reason=rdmacheck: rxe0 port 1 went down 3 times" "$dir/scontrol-node-a.txt"
log "done in $((SECONDS - start)) s: exit $final"
exit $final
}
