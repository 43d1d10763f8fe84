#!/usr/bin/env bash
# One node of the two-node wire lab, run inside its guest by scripts/wire-lab.sh:
#
#   wire-node.sh serve   node A: rdmacheck serve on rxe0 and siw0, until node B is done
#   wire-node.sh run     node B: rdmacheck run --peer (and bench --peer) against node A
#
# Each guest has four virtio NICs on four QEMU socket links, found by MAC
# 52:54:00:88:0L:0N (L the link, N the node: A 1, B 2), addressed 10.88.L.N/24:
#   L=0 control: the side channels (not captured), L=1 rxe0's wire, L=2 siw0's wire,
#   L=3 the bench's wire (rxe1, only with RDMACHECK_WIRE_BENCH=1; captured headers only).
# One RDMA device per NIC and subnet: rdma_cm resolves an IP to a device by its netdev.
# Env (from wire-lab.sh): RDMACHECK_WIRE_DIR (results), RDMACHECK_WIRE_SESSION (names the
# done file), RDMACHECK_WIRE_SUITES, RDMACHECK_WIRE_WAIT (s node A waits for B),
# RDMACHECK_WIRE_BENCH (1: bench after the suites), RDMACHECK_WIRE_DEVICES (default rxe0 siw0),
# RDMACHECK_BIN.
set -uo pipefail
{ # read whole before it runs: editing the file during a run must not change the run
role=${1:?usage: wire-node.sh serve|run}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${RDMACHECK_WIRE_DIR:?}
bin=${RDMACHECK_BIN:-build/rdmacheck}
done_file=$dir/.done.${RDMACHECK_WIRE_SESSION:?}
# Under impairment recovery takes time a lossless wire never needs (a 16 MiB RC transfer at
# 1 % loss: well past 20 s under emulation), so waits scale further.
scale=--timeout_multiplier=$([ -n "${RDMACHECK_WIRE_IMPAIR:-}" ] && echo 12 || echo 4)
log() { echo "wire-node $role: $*" >&2; }
case $role in serve) n=1 ;; run) n=2 ;; *) log "unknown role"; exit 2 ;; esac

modprobe virtio_net || { log "no virtio_net module"; exit 2; }
# shellcheck source=scripts/node-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/node-lib.sh"
declare -A ifs
for l in 0 1 2 3; do
  ifs[$l]=$(node_nic "52:54:00:88:0$l:0$n") || { log "no NIC with MAC 52:54:00:88:0$l:0$n"; exit 2; }
  ip link set "${ifs[$l]}" up && ip addr add "10.88.$l.$n/24" dev "${ifs[$l]}" || exit 2
done
"$repo/scripts/setup-softrdma.sh" --rxe --netdev "${ifs[1]}" && "$repo/scripts/setup-softrdma.sh" --siw --netdev "${ifs[2]}" ||
  { log "soft RDMA devices did not come up"; exit 2; }
# An impaired wire (RDMACHECK_WIRE_IMPAIR=PROFILE[@a|@b], impair/profiles): netem on this
# node's egress of the rxe and siw wires when the direction includes it (@a: node A's only,
# @b: node B's only, default both); what netem did is written at the end to impair-<role>.json.
impair=${RDMACHECK_WIRE_IMPAIR:-}
impaired=()
if [ -n "$impair" ]; then
  side=both
  [[ $impair != *@* ]] || side=${impair#*@}
  if [ "$side" = both ] || { [ "$side" = a ] && [ $n = 1 ]; } || { [ "$side" = b ] && [ $n = 2 ]; }; then
    impaired=("${ifs[1]}" "${ifs[2]}")
    "$repo/impair/impair.sh" apply "${impair%@*}" "${impaired[@]}" || { log "cannot impair the wires"; exit 2; }
    log "impaired: ${impair%@*} ($("$repo/impair/impair.sh" netem "${impair%@*}")) on ${impaired[*]}"
  fi
fi
# impair_stats: what netem did on this node, and the TCP stack's own count of recovery.
impair_stats() {
  [ -n "$impair" ] || return 0
  {
    printf '{"node": "%s", "netem": ' "$([ $n = 1 ] && echo A || echo B)"
    if [ ${#impaired[@]} -gt 0 ]; then "$repo/impair/impair.sh" stats "${impaired[@]}"; else printf '{}'; fi
    printf ', "tcp": {'
    nstat -asz TcpRetransSegs TcpExtTCPDSACKRecv TcpExtTCPDSACKOldSent TcpExtTCPOFOQueue TcpInCsumErrors 2>/dev/null |
      awk 'NR > 1 && $1 !~ /^#/ { printf "%s\"%s\": %s", sep, $1, $2; sep = ", " }'
    printf '}}\n'
  } >"$dir/impair-$role.json"
}
declare -A port=([rxe0]=18515 [siw0]=18516 [rxe1]=18517)
devices=(rxe0 siw0)
if [ "${RDMACHECK_WIRE_BENCH:-0}" = 1 ]; then
  rdma link add rxe1 type rxe netdev "${ifs[3]}" || { log "cannot add rxe1 on ${ifs[3]}"; exit 2; }
  for ((i = 0; i < 50; i++)); do
    read -r state </sys/class/infiniband/rxe1/ports/1/state && [[ $state == *ACTIVE* ]] && break
    sleep 0.2
  done
  devices+=(rxe1)
fi

if [ "$role" = serve ]; then
  pids=()
  for dev in "${devices[@]}"; do
    "$bin" serve --device="$dev" --listen="${port[$dev]}" "$scale" >"$dir/serve-$dev.log" 2>&1 &
    pids+=($!)
  done
  # Node B says it is done through the shared results dir; bounded by the wait.
  rc=0
  for ((i = 0; i < ${RDMACHECK_WIRE_WAIT:-1500} * 2; i++)); do
    [ -e "$done_file" ] && break
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null || { log "a serve process ended early (see $dir/serve-*.log)"; rc=1; }; done
    [ $rc = 0 ] || break
    sleep 0.5
  done
  [ -e "$done_file" ] || { log "node B never said it was done"; rc=1; }
  kill "${pids[@]}" 2>/dev/null
  wait "${pids[@]}" 2>/dev/null
  impair_stats
  exit $rc
fi

# Node B. Wait (bounded) until node A's serve processes take connections.
for dev in "${devices[@]}"; do
  for ((i = 0; i < 300; i++)); do
    (exec 3<>"/dev/tcp/10.88.0.1/${port[$dev]}") 2>/dev/null && break
    sleep 0.2
  done
done
rc=0
declare -A link=([rxe0]=1 [siw0]=2)
for dev in ${RDMACHECK_WIRE_DEVICES:-rxe0 siw0}; do
  [ -n "${link[$dev]:-}" ] || { log "$dev: not a device of the wire lab (rxe0, siw0)"; rc=1; continue; }
  rm -f "$dir/$dev/results.json"
  log "$dev: suites ${RDMACHECK_WIRE_SUITES} against node A"
  # Each test's start and end as a UDP datagram on its wire (runner/wire_marks.h): the
  # slices of the capture per test.
  RDMACHECK_WIRE_MARKS=10.88.${link[$dev]}.1:9 "$bin" run --device="$dev" --peer="10.88.0.1:${port[$dev]}" \
    --suites="$RDMACHECK_WIRE_SUITES" --out="$dir/$dev" --strict "$scale" ${impair:+--impaired_wire="${impair%@*}: $("$repo/impair/impair.sh" netem "${impair%@*}")"} || rc=1
done
if [ "${RDMACHECK_WIRE_BENCH:-0}" = 1 ]; then
  for poll in event busy; do
    log "rxe1: bench --poll=$poll against node A"
    "$bin" bench --device=rxe1 --peer="10.88.0.1:${port[rxe1]}" --poll=$poll --sizes=64,4096,65536 \
      --iters=200 --bw_bytes=4194304 --out="$dir/bench-rxe1-$poll.json" "$scale" || log "bench --poll=$poll failed"
  done
fi
impair_stats
touch "$done_file"
exit $rc
}
