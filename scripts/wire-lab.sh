#!/usr/bin/env bash
# The two-node wire lab: boots node A and node B (scripts/lab.sh's VM, its code shared
# through scripts/lab-lib.sh) joined by one captured virtual wire per transport, runs
# `rdmacheck serve` on A and `rdmacheck run --peer` on B over rxe0 and over siw0, checks
# the captured packets and writes one report.
#
#   scripts/wire-lab.sh
#
# Links: QEMU stream netdevs over Unix sockets between the two QEMUs (node A listens); the
# guests have no other network. A stream is lossless: QEMU stops reading it while the
# guest's receive ring is full. Not TCP sockets (socket,listen=/connect=): QEMU leaves Nagle
# on, and a guest sending two small frames in a row waits for the host's delayed ACK (RDMA
# round trips of ~22 ms where one frame each way took 0.5 ms). Not UDP (socket,udp=): it
# drops frames when the receiving guest is behind, and the captures then show the loss
# (PSN gaps, NAKs, READ responses replayed): measured, 1443 flagged packets on rxe.
#   control 10.88.0.0/24 (side channels, not captured), rxe 10.88.1.0/24, siw 10.88.2.0/24,
#   bench 10.88.3.0/24 (rxe1, with RDMACHECK_WIRE_BENCH=1).
# Results in <out>/wire/ (<out>: RDMACHECK_OUT, default <repo>/out):
#   rxe.pcap, siw.pcap          each wire as node A's NIC saw it (full frames: the MTU is
#                               1500, the snap length 1600 bounds anything larger)
#   bench.pcap                  the bench's wire, headers only (snap length 128: its
#                               megabytes of payload would make a capture of 250 MB)
#   rxe0/, siw0/                node B's run dirs (results.json: each test's packets on its
#                               wire under "wire", both kernels under environment "wire")
#   wire-check-<link>.json      `rdmacheck wire check` of each capture (if it exists)
#   report.{html,md,json}       `rdmacheck report` over both run dirs
#   node-A-console.log, node-B-console.log, serve-<device>.log, bench-*.json
#
# Env: RDMACHECK_KERNEL_A, RDMACHECK_KERNEL_B  the kernels of node A and node B (forms
#        of RDMACHECK_KERNEL, which is the default of both): different ones make the run
#        an interop result between two versions of the drivers
#      RDMACHECK_WIRE_SUITES   default: the suites whose tests mostly cross the wire (below)
#      RDMACHECK_WIRE_BENCH    1: also `bench --peer` over rxe1, --poll=event and busy
#                              (bench-rxe1-{event,busy}.json)
#      RDMACHECK_WIRE_SMP      vCPUs per guest (default 1: two guests on a 2-core host)
#      RDMACHECK_LAB_TIMEOUT, RDMACHECK_LAB_MEM (default 2048 here), RDMACHECK_CACHE,
#      RDMACHECK_BIN           as for scripts/lab.sh
# Exit: 0 when both runs passed, judged with the wire too (a rule a test's packets break
# fails that test unless the driver's expectation names it: reports/wire_verdict.h);
# 1 otherwise; 124 when a
# node timed out, 123 when one panicked, 125 when the lab failed. A node that dies is
# reported (its console log kept), never waited for past the lab's timeout.
set -euo pipefail
{
start=$SECONDS
LAB_TAG=wire-lab
RDMACHECK_LAB_MEM=${RDMACHECK_LAB_MEM:-2048}
# shellcheck source=scripts/lab-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lab-lib.sh"
repo=$lab_repo
case ${1:-} in
  '') ;;
  -h | --help) sed -n '2,/^set /{/^set /d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
  *) die "unknown argument '$1' (usage: scripts/wire-lab.sh)" ;;
esac
out=${RDMACHECK_OUT:-$repo/out}
bin=${RDMACHECK_BIN:-$repo/build/rdmacheck}
[ -x "$bin" ] || die "no rdmacheck binary at $bin: build first (or set RDMACHECK_BIN)"
smp=${RDMACHECK_WIRE_SMP:-1}
# The suites whose tests mostly cross the wire (measured: the tests with RDMA packets in
# their slice, per suite, on rxe / siw of 6.1: datapath 159/164 / 57/164, atomics 13/16 /
# 0 (siw has none), comp_channel 9/12 / 9/12, errors 9/23 / 8/23, mw 5/15 / 8/15, srq 3/19 /
# 7/19). Other suites with pairs have few tests on the wire and many local ones (qp_state
# 22/476, access 0/108, rdma_cm 1/17, ah 1/5, cq_ex 0/18): RDMACHECK_WIRE_SUITES adds them.
suites=${RDMACHECK_WIRE_SUITES:-datapath,atomics,comp_channel,errors,mw,srq}
lab_check_tools
need tshark tshark

mkdir -p "$out/wire" || die "cannot create $out/wire"
out=$(cd "$out" && pwd)
dir=$out/wire
rm -rf "$dir"/rxe0 "$dir"/siw0 "$dir"/*.pcap "$dir"/wire-check-*.json "$dir"/.done.* "$dir"/bench-* "$dir"/opcodes.json
session=$$.$RANDOM
export RDMACHECK_WIRE_DIR=$dir RDMACHECK_WIRE_SESSION=$session RDMACHECK_WIRE_SUITES=$suites RDMACHECK_BIN=$bin
export RDMACHECK_WIRE_WAIT=$limit

# The links' Unix sockets (removed at exit with the control dirs).
links=$(mktemp -d "${TMPDIR:-/tmp}/rdmacheck-wire.XXXXXX")
lab_runs+=("$links")

# Node N's boot: kernel, control dir, QEMU line with its NIC on each link.
declare -A kvers qpid runs boots
boot_node() {
  local node=$1 spec=$2 n a l server
  lab_kernel "$spec"
  lab_prepare
  kvers[$node]=$kver
  lab_control "$out" "$repo" "$dir/node-$node-console.log" "[$node] " none -- \
    "$repo/scripts/wire-node.sh" "$([ "$node" = A ] && echo serve || echo run)"
  runs[$node]=$run
  n=$([ "$node" = A ] && echo 1 || echo 2)
  server=$([ "$node" = A ] && echo on || echo off)
  mapfile -t a < <(lab_qemu "$run" "$out" "$smp")
  for l in 0 1 2 3; do
    a+=(-netdev "stream,id=n$l,server=$server,addr.type=unix,addr.path=$links/link$l"
      -device "virtio-net-pci,netdev=n$l,mac=52:54:00:88:0$l:0$n")
  done
  if [ "$node" = A ]; then # the captures: what node A's NIC sends and receives on each wire
    a+=(-object "filter-dump,id=f1,netdev=n1,file=$dir/rxe.pcap,maxlen=1600"
      -object "filter-dump,id=f2,netdev=n2,file=$dir/siw.pcap,maxlen=1600"
      -object "filter-dump,id=f3,netdev=n3,file=$dir/bench.pcap,maxlen=128")
  fi
  log "booting node $node ($accel, kernel $kver, $smp vCPU)"
  boots[$node]=$SECONDS
  timeout -k 10 "$limit" "${a[@]}" </dev/null &
  qpid[$node]=$!
  lab_pids+=($!)
}
boot_node A "${RDMACHECK_KERNEL_A:-${RDMACHECK_KERNEL:-}}"
for _ in $(seq 100); do # node B connects to node A's sockets: they must exist (bounded, 10 s)
  [ -S "$links/link3" ] && break
  kill -0 "${qpid[A]}" 2>/dev/null || break
  sleep 0.1
done
[ -S "$links/link3" ] || log "node A did not open its links (its console: $dir/node-A-console.log)"
boot_node B "${RDMACHECK_KERNEL_B:-${RDMACHECK_KERNEL:-}}"

# B drives; A ends when B says it is done (or dies). A node that died is reported.
declare -A status
rc=0
wait "${qpid[B]}" || rc=$?
lab_wait_readers "${runs[B]}"
status[B]=0
lab_outcome "${runs[B]}" "$out" "$dir/node-B-console.log" $((SECONDS - boots[B])) "$rc" || status[B]=$?
[ -e "$dir/.done.$session" ] || touch "$dir/.done.$session" # B died: A stops waiting
rc=0
for _ in $(seq 120); do kill -0 "${qpid[A]}" 2>/dev/null || break; sleep 0.5; done
kill "${qpid[A]}" 2>/dev/null || true
wait "${qpid[A]}" || rc=$?
lab_pids=()
lab_wait_readers "${runs[A]}"
status[A]=0
lab_outcome "${runs[A]}" "$out" "$dir/node-A-console.log" $((SECONDS - boots[A])) "$rc" || status[A]=$?
log "node A (kernel ${kvers[A]}) exit ${status[A]}, node B (kernel ${kvers[B]}) exit ${status[B]}; $((SECONDS - start)) s"
rm -f "$dir/.done.$session"

# The captures: each test's packets (slices) into its results.json, the wire checks.
final=${status[B]}
[ "${status[A]}" = 0 ] || [ "$final" -ge 123 ] || final=${status[A]}
interop=false
[ "${kvers[A]}" = "${kvers[B]}" ] || interop=true
declare -A linkof=([rxe0]=rxe [siw0]=siw)
dirs=()
for dev in rxe0 siw0; do
  l=${linkof[$dev]}
  cap=$dir/$l.pcap
  log "$l.pcap: $(stat -c %s "$cap" 2>/dev/null || echo 0) bytes"
  check=''
  if "$bin" wire check --help >/dev/null 2>&1; then
    check=$dir/wire-check-$l.json
    c=0
    "$bin" wire check --format=json "$cap" >"$check" || c=$?
    case $c in
      0) log "$l.pcap: wire check: no violation" ;;
      1) log "$l.pcap: wire check: violations (see $check); each fails the test it falls in, unless the driver's expectation names it" ;;
      *) log "$l.pcap: wire check could not read the capture (exit $c)"; [ "$final" != 0 ] || final=1 ;;
    esac
  else
    log "$l.pcap: not checked (this rdmacheck has no 'wire check')"
  fi
  [ -f "$dir/$dev/results.json" ] || { log "$dev: no results.json (node B's run did not finish)"; continue; }
  # Slices each test's packets into its results.json and judges it by its violations
  # (reports/wire_verdict.h): exit 1 when the run then has a failure, 2 when it could not.
  c=0
  "$bin" wire-slices --capture="$cap" --link="$l" --kernel_a="${kvers[A]}" --kernel_b="${kvers[B]}" \
    --wire_check="$check" "$dir/$dev/results.json" || c=$?
  case $c in
    0) ;;
    1) log "$dev: failures after the wire's verdict (see $dir/$dev/results.json)"; [ "$final" != 0 ] || final=1 ;;
    *) log "$dev: slicing the capture failed (exit $c)"; [ "$final" != 0 ] || final=1 ;;
  esac
  dirs+=("$dir/$dev")
done
if [ ${#dirs[@]} -gt 0 ]; then
  "$bin" report --out="$dir" "${dirs[@]}" || { log "report failed"; [ "$final" != 0 ] || final=1; }
fi
log "done in $((SECONDS - start)) s: node A ${kvers[A]}, node B ${kvers[B]}$([ $interop = true ] && echo ' (interop)'); exit $final"
exit "$final"
}
