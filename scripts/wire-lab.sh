#!/usr/bin/env bash
# The two-node wire lab: boots node A and node B (scripts/lab.sh's VM, its code shared
# through scripts/lab-lib.sh) joined by one captured virtual wire per transport, runs
# `rdmacheck serve` on A and `rdmacheck run --peer` on B over rxe0 and over siw0, checks
# the captured packets and writes one report.
#
#   scripts/wire-lab.sh
#   scripts/wire-lab.sh --impair=PROFILE[@a|@b][,PROFILE...]   (or --impair=all)
#
# --impair runs the lab once per profile of impair/profiles (impair/README.md: netem on the
# rxe and siw wires, on both nodes' egress or, with @a / @b, on one), each into
# <out>/impair/<profile>/wire/. The profile and what netem did on each node (sent, dropped,
# and the TCP stack's retransmissions) are in each run's environment "impairment"; a loss
# profile under which netem dropped nothing did not act, and fails the run.
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
# A stream can still stop carrying frames one way (issue 39: node B's frames stopped reaching
# node A mid-transfer, and 43 tests were blamed on siw0). So every link is captured at both
# ends and `rdmacheck wire watch` compares them while the nodes run: frames one node sent
# that the other has not got after RDMACHECK_WIRE_STALL_AFTER seconds, with none arriving
# meanwhile, stop the run at once. Exit 125 with one line naming the link, the direction and
# the time; on that link no test whose slice ended past the stall is the device's (results.json
# environment "lab_failure" lists them as not run).
# Results in <out>/wire/ (<out>: RDMACHECK_OUT, default <repo>/out):
#   rxe.pcap, siw.pcap          each wire as node A's NIC saw it (full frames: the MTU is
#                               1500, the snap length 1600 bounds anything larger)
#   rxe-B.pcap, siw-B.pcap      the same wires at node B's NIC (headers only, snap length
#                               128: they serve the watch, which counts frames)
#   lab-failure.json            a stalled link, as `rdmacheck wire watch` found it
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
#      RDMACHECK_WIRE_DEVICES  the devices node B runs, in order (default: rxe0 siw0)
#      RDMACHECK_WIRE_STALL_AFTER  seconds a direction may hold frames with none arriving
#                              before the watch calls it stalled (default 15)
#      RDMACHECK_WIRE_IMPAIR   PROFILE[@a|@b]: this run's impairment (what --impair sets)
#      RDMACHECK_WIRE_STALL    LINK (rxe or siw): a doctored stall, for the lab's own test:
#                              once LINK carries traffic, node A's QEMU holds every frame
#                              node B sends on it (a filter-buffer at the head of the
#                              netdev's filters, added through node A's monitor)
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
  --impair=*)
    [ $# = 1 ] || die "--impair takes no other argument"
    list=${1#--impair=}
    [ "$list" != all ] || list=$("$repo/impair/impair.sh" list | awk -F'|' '{ gsub(/ /, "", $1); printf "%s%s", s, $1; s = "," }')
    IFS=, read -r -a profiles <<<"$list"
    [ ${#profiles[@]} -gt 0 ] || die "--impair needs a profile (impair/impair.sh list)"
    for p in "${profiles[@]}"; do
      [[ $p =~ ^[a-z0-9.-]+(@[ab])?$ ]] || die "--impair: '$p' is not PROFILE[@a|@b]"
      "$repo/impair/impair.sh" netem "${p%@*}" >/dev/null 2>&1 || die "--impair: unknown profile '${p%@*}' (impair/impair.sh list)"
    done
    worst=0
    for p in "${profiles[@]}"; do
      log "impaired run: $p"
      c=0
      RDMACHECK_OUT=${RDMACHECK_OUT:-$repo/out}/impair/$p RDMACHECK_WIRE_IMPAIR=$p "$0" || c=$?
      log "impaired run $p: exit $c"
      [ "$c" -le "$worst" ] || worst=$c
    done
    exit "$worst"
    ;;
  *) die "unknown argument '$1' (usage: scripts/wire-lab.sh [--impair=PROFILE,...])" ;;
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
rm -rf "$dir"/rxe0 "$dir"/siw0 "$dir"/*.pcap "$dir"/wire-check-*.json "$dir"/.done.* "$dir"/bench-* "$dir"/opcodes.json \
  "$dir"/lab-failure.json "$dir"/impair-*.json "$dir"/impairment.json "$dir"/stall-network-*.txt
stall_after=${RDMACHECK_WIRE_STALL_AFTER:-15}
[[ $stall_after =~ ^[0-9]+$ ]] && [ "$stall_after" -gt 0 ] || die "RDMACHECK_WIRE_STALL_AFTER must be a positive number of seconds"
case ${RDMACHECK_WIRE_STALL:-} in '' | rxe | siw) ;; *) die "RDMACHECK_WIRE_STALL must be rxe or siw" ;; esac
export RDMACHECK_WIRE_DEVICES=${RDMACHECK_WIRE_DEVICES:-rxe0 siw0}
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
  else # node B's end of the same wires, for the watch
    a+=(-object "filter-dump,id=f1,netdev=n1,file=$dir/rxe-B.pcap,maxlen=128"
      -object "filter-dump,id=f2,netdev=n2,file=$dir/siw-B.pcap,maxlen=128")
  fi
  a+=(-monitor "unix:$links/monitor-$node,server=on,wait=off")
  log "booting node $node ($accel, kernel $kver, $smp vCPU)"
  boots[$node]=$SECONDS
  timeout -k 10 "$limit" "${a[@]}" </dev/null &
  qpid[$node]=$!
  lab_pids+=($!)
  lab_boot_watch "$run" "${qpid[$node]}"
}
boot_node A "${RDMACHECK_KERNEL_A:-${RDMACHECK_KERNEL:-}}"
for _ in $(seq 100); do # node B connects to node A's sockets: they must exist (bounded, 10 s)
  [ -S "$links/link3" ] && break
  kill -0 "${qpid[A]}" 2>/dev/null || break
  sleep 0.1
done
[ -S "$links/link3" ] || log "node A did not open its links (its console: $dir/node-A-console.log)"
boot_node B "${RDMACHECK_KERNEL_B:-${RDMACHECK_KERNEL:-}}"

# The watch over both ends of the rxe and siw wires (MACs as wire-node.sh gives them).
watch_pid=''
if "$bin" wire watch --help >/dev/null 2>&1; then
  links_watched=()
  for l in 1:rxe 2:siw; do
    links_watched+=("${l#*:},52:54:00:88:0${l%%:*}:01,$dir/${l#*:}.pcap,52:54:00:88:0${l%%:*}:02,$dir/${l#*:}-B.pcap")
  done
  "$bin" wire watch --stall_after="$stall_after" --lab_failure="$dir/lab-failure.json" "${links_watched[@]}" &
  watch_pid=$!
  lab_pids+=("$watch_pid")
fi

# hmp NODE COMMAND [print]: one command on a node's monitor (QEMU's human monitor over its
# socket); a reply is an error, unless asked to print it.
hmp() {
  python3 - "$links/monitor-$1" "$2" "${3:-}" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.settimeout(10)
s.connect(sys.argv[1])
time.sleep(0.3)
s.recv(65536)  # the banner and prompt
s.sendall(sys.argv[2].encode() + b"\n")
time.sleep(0.5)
reply = s.recv(65536).decode(errors="replace")
lines = [x for x in reply.replace("\r", "").split("\n")
         if x.strip() and not x.startswith("(qemu)") and sys.argv[2] not in x and not x.startswith("\x1b")]
if sys.argv[3]:
    print("\n".join(lines))
elif lines:
    sys.exit("monitor: " + lines[0])
PY
}

# The doctored stall: once LINK carried 1 MB at node A, node A's QEMU holds node B's frames.
if [ -n "${RDMACHECK_WIRE_STALL:-}" ]; then
  (
    l=$RDMACHECK_WIRE_STALL n=$([ "$RDMACHECK_WIRE_STALL" = rxe ] && echo 1 || echo 2)
    while [ "$(stat -c %s "$dir/$l.pcap" 2>/dev/null || echo 0)" -lt 1000000 ]; do
      kill -0 "${qpid[B]}" 2>/dev/null || exit 0
      sleep 0.5
    done
    hmp A "object_add filter-buffer,id=stall,netdev=n$n,queue=tx,interval=4000000000,position=head" &&
      log "doctored stall: node A's QEMU now holds every frame node B sends on the $l link ($(date -u +%T) UTC)"
  ) &
  lab_pids+=($!)
fi

# B drives; A ends when B says it is done (or dies). A node that died is reported; a link
# that stalled stops both at once.
declare -A status
stalled=''
while kill -0 "${qpid[B]}" 2>/dev/null; do
  # Node A stuck in its boot (lab_boot_watch stopped it): B has no peer to wait for.
  if lab_boot_stuck "${runs[A]}"; then kill "${qpid[B]}" 2>/dev/null || true; break; fi
  if [ -n "$watch_pid" ] && ! kill -0 "$watch_pid" 2>/dev/null; then
    wait "$watch_pid" || true
    if [ -s "$dir/lab-failure.json" ]; then
      stalled=1
      log "error: a link of the lab stalled; stopping both nodes (the lab failed, not the device)"
      # What each QEMU says of its links (a stream it dropped shows no peer address).
      for node in A B; do hmp "$node" "info network" print >"$dir/stall-network-$node.txt" 2>&1 || true; done
      kill "${qpid[B]}" "${qpid[A]}" 2>/dev/null || true
      break
    fi
    watch_pid='' # it ended otherwise (its error is above): the run goes on unwatched
  fi
  sleep 1
done
[ -z "$watch_pid" ] || kill "$watch_pid" 2>/dev/null || true
rc=0
wait "${qpid[B]}" || rc=$?
lab_wait_readers "${runs[B]}"
status[B]=0
if [ -n "$stalled" ]; then
  status[B]=125
else
  lab_outcome "${runs[B]}" "$out" "$dir/node-B-console.log" $((SECONDS - boots[B])) "$rc" || status[B]=$?
fi
[ -e "$dir/.done.$session" ] || touch "$dir/.done.$session" # B died: A stops waiting
rc=0
for _ in $(seq 120); do kill -0 "${qpid[A]}" 2>/dev/null || break; sleep 0.5; done
kill "${qpid[A]}" 2>/dev/null || true
wait "${qpid[A]}" || rc=$?
lab_pids=()
lab_wait_readers "${runs[A]}"
status[A]=0
[ -n "$stalled" ] || lab_outcome "${runs[A]}" "$out" "$dir/node-A-console.log" $((SECONDS - boots[A])) "$rc" || status[A]=$?
log "node A (kernel ${kvers[A]}) exit ${status[A]}, node B (kernel ${kvers[B]}) exit ${status[B]}; $((SECONDS - start)) s"
rm -f "$dir/.done.$session"

# The captures: each test's packets (slices) into its results.json, the wire checks.
final=${status[B]}
[ "${status[A]}" = 0 ] || [ "$final" -ge 123 ] || final=${status[A]}

# An impaired run: the profile and what it did, for each run's environment; a loss profile
# under which netem dropped nothing did not act, and proves nothing.
impairment=()
receivers_saw() { # PROFILE RXE_COUNTER TCP_COUNTER WHAT: fails the run when neither moved
  local tcp rxe
  tcp=$({ grep -o "\"$3\": [0-9]*" "$dir/impairment.json" || true; } | awk '{ s += $2 } END { print s + 0 }')
  rxe=$(python3 "$repo/impair/counter_total.py" "$2" "$dir/rxe0/results.json" 2>/dev/null || echo 0)
  log "impairment $1: rxe counted $rxe ($2), TCP $tcp ($3)"
  if [ "$tcp" = 0 ] && [ "$rxe" = 0 ]; then
    log "error: the impairment did not act: no receiver saw $4 under $1"
    [ "$final" != 0 ] || final=1
  fi
}
if [ -n "${RDMACHECK_WIRE_IMPAIR:-}" ]; then
  p=${RDMACHECK_WIRE_IMPAIR%@*}
  side=both
  [[ $RDMACHECK_WIRE_IMPAIR != *@* ]] || side=${RDMACHECK_WIRE_IMPAIR#*@}
  {
    printf '{"profile": "%s", "netem": "%s", "egress_of": "%s", "nodes": [' "$p" "$("$repo/impair/impair.sh" netem "$p")" "$side"
    sep=''
    for f in "$dir"/impair-serve.json "$dir"/impair-run.json; do
      [ -s "$f" ] || continue
      printf '%s' "$sep"; tr -d '\n' <"$f"; sep=', '
    done
    printf ']}\n'
  } >"$dir/impairment.json"
  impairment=(--impairment="$dir/impairment.json")
  dropped=$({ grep -o '"dropped": [0-9]*' "$dir/impairment.json" || true; } | awk '{ s += $2 } END { print s + 0 }')
  log "impairment $RDMACHECK_WIRE_IMPAIR: netem dropped $dropped packets ($dir/impairment.json)"
  case $p in
    loss-* | burst | ack-loss | nak-loss)
      if [ "$dropped" = 0 ]; then
        log "error: the impairment did not act: netem dropped nothing under $p"
        [ "$final" != 0 ] || final=1
      fi
      ;;
    # netem counts no duplicates and no reordering: the receivers do. rxe counts a request
    # it has seen before (duplicate_request) or out of sequence (rcvd_seq_err), read around
    # each test; TCP a duplicate segment it reports back (DSACK: TcpExtTCPDSACKRecv at the
    # sender) or a segment it queued out of order (TcpExtTCPOFOQueue).
    duplicate) receivers_saw "$p" duplicate_request TcpExtTCPDSACKRecv "a duplicate" ;;
    reorder) receivers_saw "$p" rcvd_seq_err TcpExtTCPOFOQueue "a packet out of order" ;;
  esac
fi
# A profile that may reorder or duplicate (netem reorder, duplicate, a jittered delay) acts
# before the capture point: the wire check is told (a UC packet overtaken there is a note).
reorders=()
if [ -n "${RDMACHECK_WIRE_IMPAIR:-}" ] &&
  [[ $("$repo/impair/impair.sh" netem "${RDMACHECK_WIRE_IMPAIR%@*}") =~ reorder|duplicate|delay\ [^\ ]+\ [0-9] ]]; then
  reorders=(--wire_reorders)
fi
interop=false
[ "${kvers[A]}" = "${kvers[B]}" ] || interop=true
declare -A linkof=([rxe0]=rxe [siw0]=siw)
dirs=()
for dev in $RDMACHECK_WIRE_DEVICES; do
  l=${linkof[$dev]}
  cap=$dir/$l.pcap
  log "$l.pcap: $(stat -c %s "$cap" 2>/dev/null || echo 0) bytes"
  check=''
  if "$bin" wire check --help >/dev/null 2>&1; then
    check=$dir/wire-check-$l.json
    c=0
    "$bin" wire check --format=json "${reorders[@]}" "$cap" >"$check" || c=$?
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
  extra=("${impairment[@]}")
  [ -z "$stalled" ] || extra+=(--lab_failure="$dir/lab-failure.json")
  # Legal recovery breaks no rule (wire/roce_recovery.h), so an impaired wire is judged too.
  [ -z "$check" ] || extra+=(--wire_check="$check")
  "$bin" wire-slices --capture="$cap" --link="$l" --kernel_a="${kvers[A]}" --kernel_b="${kvers[B]}" \
    "${extra[@]}" "$dir/$dev/results.json" || c=$?
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
if [ -n "$stalled" ]; then
  final=125
  log "error: the lab failed: $(sed -n 's/.*"reason": "\(.*\)",*$/\1/p' "$dir/lab-failure.json")"
fi
log "done in $((SECONDS - start)) s: node A ${kvers[A]}, node B ${kvers[B]}$([ $interop = true ] && echo ' (interop)'); exit $final"
exit "$final"
}
