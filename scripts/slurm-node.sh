#!/usr/bin/env bash
# One node of the Slurm lab, run inside its guest by scripts/slurm-lab.sh:
#
#   slurm-node.sh A   node-a: munged, slurmctld, slurmd; submits the fleet job (sbatch),
#                     learns the machine profile from it (`fleet profile --learn`), flaps
#                     its own rxe0 link three times, then, with node-b's rxe0 broken, runs
#                     the job again against the profile, restarts its slurmd and waits
#                     until Slurm has drained both nodes with rdmacheck's reasons
#   slurm-node.sh B   node-b: munged, slurmd; breaks its rxe0 when node-a says so, then
#                     restarts slurmd, which runs the HealthCheckProgram at start-up
#
# The break: a NIC that still runs but misbehaves, so the node still produces results and
# some tests fail. rxe cannot be made to lie from outside, so from then on every rdmacheck
# on node-b (the jobs' tasks and the health check find it in PATH) sees rxe0 through the
# mutation suite's wc_wr_id mutant (libmutants.so preloaded: a send completion carries the
# next WR's wr_id; selftest/mutants/): its own runs fail, and so does its pair, where it is
# the client. node-b's rxe netdev also gets a larger MTU (4200: rxe's active MTU 4096 where
# the fleet has 1024), a setting that drifts from the fleet and is not the profile's (a
# smaller one would do too, but below 1280 the netdev loses IPv6 and with it a GID).
# node-a's flaps: `ip link set down/up` of its rxe netdev, which rxe counts in link_downed;
# the health check at slurmd's first start took the baseline sample (doctor/link_flaps.h).
#
# Each guest: NIC 52:54:00:89:0L:0N (L the link, N the node) at 10.89.L.N/24: L=0 the
# control network (Slurm, munge, side channels), L=1 rxe0's wire. The hostname and
# /etc/hosts, munge's key and slurm.conf come from the lab's shared dir (the guest's root
# is the host's, read-only under a throw-away overlay). Env: RDMACHECK_SLURM_DIR (shared),
# RDMACHECK_BIN, RDMACHECK_MUTANTS (libmutants.so), RDMACHECK_SLURM_WAIT (seconds for each wait).
set -uo pipefail
role=${1:?usage: slurm-node.sh A|B}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${RDMACHECK_SLURM_DIR:?}
bin=${RDMACHECK_BIN:-$repo/build/rdmacheck}
mutants=${RDMACHECK_MUTANTS:-$(dirname "$bin")/selftest/mutants/libmutants.so}
wait_s=${RDMACHECK_SLURM_WAIT:-900}
log() { echo "slurm-node $role: $*" >&2; }
case $role in A) n=1 me=node-a ;; B) n=2 me=node-b ;; *) log "unknown role"; exit 2 ;; esac
# until_true SECONDS COMMAND...: a bounded wait.
until_true() {
  local t=$1; shift
  for ((i = 0; i < t; i++)); do "$@" && return 0; sleep 1; done
  return 1
}

modprobe virtio_net || { log "no virtio_net module"; exit 2; }
# shellcheck source=scripts/node-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/node-lib.sh"
for l in 0 1; do
  i=$(node_nic "52:54:00:89:0$l:0$n") || { log "no NIC for link $l"; exit 2; }
  ip link set "$i" up && ip addr add "10.89.$l.$n/24" dev "$i" || exit 2
  [ $l = 1 ] && rxe_netdev=$i
done
"$repo/scripts/setup-softrdma.sh" --rxe --netdev "$rxe_netdev" || { log "rxe0 did not come up"; exit 2; }
hostname "$me"
# Under emulation the guests' clocks drift apart by minutes, and munge refuses a credential
# from the future ("Rewound credential"): every 5 s, the host's time, read as the mtime of
# a file touched in the shared dir.
(while :; do touch "$dir/.clock-$me" && date -s "@$(stat -c %Y "$dir/.clock-$me")" >/dev/null; sleep 5; done) &
printf '10.89.0.1 node-a\n10.89.0.2 node-b\n' >>/etc/hosts

# slurmd (22.05) initialises its cgroup plugin even with proctrack/linuxproc.
mountpoint -q /sys/fs/cgroup || mount -t cgroup2 none /sys/fs/cgroup || { log "cannot mount cgroup2"; exit 2; }
mkdir -p /sys/fs/cgroup/system.slice  # where slurmd puts its scope (no systemd made it)
# munge: one key for both nodes; slurm: the lab's slurm.conf.
install -o munge -g munge -m 0400 "$dir/munge.key" /etc/munge/munge.key
mkdir -p /run/munge /var/lib/munge /var/log/munge /var/spool/slurmd /var/spool/slurmctld
chown munge:munge /run/munge /var/lib/munge /var/log/munge
runuser -u munge -- /usr/sbin/munged || { log "munged did not start"; exit 2; }
cp "$dir/slurm.conf" "$dir/cgroup.conf" /etc/slurm/
# slurmd runs the HealthCheckProgram with an environment of its own: rdmacheck in PATH;
# the jobs' tasks use it from PATH too (so that node-b's break reaches them).
ln -sf "$bin" /usr/local/bin/rdmacheck
export PATH=/usr/local/bin:$PATH RDMACHECK=rdmacheck
# restart_slurmd: slurmd runs the HealthCheckProgram at start, now against the profile.
restart_slurmd() {
  local pid
  pid=$(cat /run/slurmd.pid)
  kill "$pid"
  until_true 30 sh -c "! kill -0 $pid 2>/dev/null"
  echo "RDMACHECK_HEALTH='--profile=$dir/profile.json'" >/etc/default/rdmacheck  # ci/slurm/healthcheck.sh reads it
  slurmd
}
# rxe0_active: its port is ACTIVE again (after a flap or an MTU change).
rxe0_active() { grep -q ACTIVE /sys/class/infiniband/rxe0/ports/1/state; }
# wait_file NAME: until the other node (or the host, when a node ended) writes $dir/NAME.
wait_file() { until_true "$wait_s" sh -c "[ -e '$dir/$1' ] || [ -e '$dir/done' ]" && [ -e "$dir/$1" ]; }

if [ "$role" = B ]; then
  wait_file slurmctld.up || { log "node-a's slurmctld never came up"; exit 1; }
  slurmd || { log "slurmd did not start"; exit 1; }
  wait_file break || { log "node-a never said to break"; exit 1; }
  log "breaking rxe0: every rdmacheck here now sees it through the wc_wr_id mutant; its netdev's MTU 4200"
  rm -f /usr/local/bin/rdmacheck
  printf '#!/bin/sh\n# node-b broken on purpose (scripts/slurm-node.sh)\nLD_PRELOAD=%s RDMACHECK_MUTANT=wc_wr_id exec %s "$@"\n' \
    "$mutants" "$bin" >/usr/local/bin/rdmacheck && chmod 755 /usr/local/bin/rdmacheck || exit 1
  ip link set "$rxe_netdev" mtu 4200 && until_true 30 rxe0_active || { log "rxe0 not active at MTU 4200"; exit 1; }
  touch "$dir/rxe0-broken"
  wait_file restart || exit 1
  log "restarting slurmd: it runs the HealthCheckProgram (with the profile) before it registers"
  restart_slurmd
  wait_file done
  exit 0
fi

slurmctld || { log "slurmctld did not start"; exit 1; }
slurmd || { log "slurmd did not start"; exit 1; }
touch "$dir/slurmctld.up"
until_true "$wait_s" sh -c '[ "$(sinfo -h -o %T | sort -u)" = idle ]' || { log "nodes never idle: $(sinfo)"; exit 1; }
log "nodes up: $(sinfo -h -N -o '%N %T' | paste -sd' ')"
traffic='*RcSendTest.MessagesArriveInPostingOrder*:*RdmaWriteTest.WriteIsVisibleWhenLaterSendArrives*:*RdmaReadTest.ReadAfterWriteSeesTheWrite*'
run_job() {  # run_job NAME: the fleet job through sbatch, waited for (bounded)
  local rc=0
  # Every node: the device and pd suites and the three RC traffic tests of the health check.
  RDMACHECK_DEVICES=rxe0 RDMACHECK_RUN_FLAGS="--suites=device,pd,datapath --gtest_filter=Device*:Port*:Gid*:Pd*:$traffic --timeout_multiplier=4" \
    RDMACHECK_PAIR_FLAGS="--suites=datapath --gtest_filter=$traffic --timeout_multiplier=4" \
    RDMACHECK_BENCH_FLAGS="--sizes=64,4096 --iters=50 --poll=event --timeout_multiplier=4" \
    sbatch -N2 --wait -o "$dir/$1.out" "$repo/ci/slurm/rdmacheck-fleet.sbatch" "$dir/$1" &
  # Bounded by counting seconds, not by timeout(1): its timer follows the wall clock, which
  # the clock loop above steps by minutes.
  local pid=$!
  until_true "$wait_s" sh -c "! kill -0 $pid 2>/dev/null" || { log "job $1 still running after $wait_s s"; kill "$pid"; }
  wait "$pid" || rc=$?
  log "job $1: exit $rc; $(head -1 "$dir/$1/report/fleet.md" 2>/dev/null) $(sed -n 3p "$dir/$1/report/fleet.md" 2>/dev/null)"
  echo "$rc" >"$dir/$1.rc"
}
run_job healthy
# The machine type, learned from the healthy fleet; a link may go down once an hour.
rdmacheck fleet profile --learn --out="$dir/profile.json" "$dir/healthy/nodes" "$dir/healthy/pairs" &&
  python3 - "$dir/profile.json" <<'PY' || { log "no profile learned"; exit 1; }
import json, sys
profile = json.load(open(sys.argv[1]))
profile["link_flaps"] = {"max": 1, "window_s": 3600}
json.dump(profile, open(sys.argv[1], "w"), indent=2)
PY
touch "$dir/break"
log "flapping rxe0's link three times"
for _ in 1 2 3; do
  ip link set "$rxe_netdev" down && sleep 2 && ip link set "$rxe_netdev" up && until_true 30 rxe0_active || { log "rxe0 did not come back"; exit 1; }
done
wait_file rxe0-broken || exit 1
RDMACHECK_REPORT_FLAGS="--profile=$dir/profile.json" run_job broken
touch "$dir/restart"
restart_slurmd
drained() { case "$(sinfo -h -N -n "$1" -o %T)" in drained | draining) return 0 ;; esac; return 1; }
until_true "$wait_s" sh -c "$(declare -f drained); drained node-a && drained node-b"
sinfo -R -o "%60E %N" >"$dir/sinfo-R.txt"; sinfo -N -o '%N %T %E' >"$dir/sinfo-N.txt"
scontrol show node node-a >"$dir/scontrol-node-a.txt"; scontrol show node node-b >"$dir/scontrol-node-b.txt"
log "sinfo -R: $(tail -n +2 "$dir/sinfo-R.txt")"
log "nodes: $(tail -n +2 "$dir/sinfo-N.txt" | paste -sd';')"
touch "$dir/done"
exit 0
