#!/usr/bin/env bash
# `rdma link delete` of a soft RDMA device (rxe, siw) while other processes hold it and
# carry traffic on it (in the lab, as root):
#  1. `rdmacheck serve` holds a context of DEVICE for its whole life, and traffic runs
#     against it: on rxe `rdmacheck bench --peer` (64 KiB messages over one RC pair, QPs in
#     RTS whose PSNs move when the delete comes), on siw (iWARP pairs need rdma_cm, which the
#     bench does not use) `rdmacheck run --peer --suites=datapath`, once 3 tests passed.
#  2. Once traffic goes, `rdma link delete DEVICE` is issued from this script, a process
#     that holds nothing. rxe and siw have no disassociate support (ib_uverbs_remove_one()
#     in 6.1 waits for every open uverbs file of a device without
#     ops.disassociate_ucontext; docs: shared notes "Teardown"), so the delete must not
#     return while the holders live; it is watched for HOLD seconds.
#  3. The holders are killed (SIGKILL; this script's processes and their descendants only)
#     and reaped; the delete must then return 0 within a bound (a hung delete is named
#     with its kernel stack).
#  4. The kernel log since the start holds no WARNING / BUG / Oops / hung task line. The
#     hung-task detector is armed first (kernel.hung_task_timeout_secs, restored at exit)
#     with a timeout longer than the hold, so a delete that stays blocked after its
#     holders are gone is reported by the kernel as well.
#  5. The device is added again on its netdev (scripts/setup-softrdma.sh, which waits for
#     an ACTIVE port and the uverbs node), and a short run on it passes:
#     `rdmacheck run --suites=datapath --gtest_filter=*_One`.
# It deletes DEVICE, so it runs only in the lab (RDMACHECK_LAB=1; elsewhere it exits 77 =
# skipped), for rxe0 / siw0 (what setup-softrdma.sh re-creates), after every other device
# test (CTest device.DEVICE.link-delete; selftest/CMakeLists.txt). The device is re-added on
# any exit where the delete has returned. No timing is judged: the waits only bound.
#   selftest/check_link_delete.sh RDMACHECK_BINARY DEVICE OUT_DIR
# Env: TIMEOUT_MULTIPLIER (default 1) scales the waits and is passed to rdmacheck.
set -uo pipefail
# shellcheck source=selftest/teardown_common.sh
. "$(dirname "$0")/teardown_common.sh"
teardown_args "deletes and re-creates" "$@"
HOLD=$(scaled 5)             # the delete watched while the holders live
DELETE_BOUND=$(scaled 60)    # the delete returned once they are gone
HUNG_TASK=$((HOLD + 30))    # longer than the delete's wait for its holders; a fraction of DELETE_BOUND
log() { echo "link-delete: $*"; }

log "$dev ($kind) on netdev $netdev"

log "$(arm_hung_task "$HUNG_TASK")"
mark_kernel_log link-delete

# 1. The holders: serve (one context for its life) and traffic against it.
start_serve || exit 1
# The pid rdma shows is the creating thread's (serve creates each pair in a session thread).
qp_of() { # PID: its RC QPs in RTS; false when it has none
  local line tid found=1
  while read -r line; do # (no process substitution: the lab's guests have no /dev/fd)
    [[ $line =~ \ state\ RTS\ .*\ pid\ ([0-9]+)\  ]] || continue
    tid=${BASH_REMATCH[1]}
    [ -d "/proc/$1/task/$tid" ] && echo "$line" && found=0
  done <<<"$(rdma resource show qp link "$dev/1" 2>/dev/null)"
  return $found
}
end=$((SECONDS + $(scaled 120)))
if [ "$kind" = rxe ]; then
  # RoCE: a bench whose one RC pair (a QP in each process) carries 64 KiB messages for as
  # long as it lives, so the delete meets QPs in flight. Traffic goes once both hold a QP in
  # RTS whose PSNs move (rdma resource show).
  "$bin" bench --device="$dev" --peer="127.0.0.1:$port" --sizes=65536 --iters=100000000 \
    --out="$out/bench.json" --timeout_multiplier="$tm" >"$out/bench.log" 2>&1 &
  started+=($!)
  bench_pid=$!
  until { qp_of "$serve_pid" && qp_of "$bench_pid"; } >/dev/null || [ $SECONDS -ge $end ]; do sleep 0.2; done
  before=$(qp_of "$bench_pid")
  [ -n "$before" ] && qp_of "$serve_pid" >/dev/null ||
    { fail "no traffic: serve ($serve_pid) and bench ($bench_pid) held no RC QP in RTS within $(scaled 120)s";
      rdma resource show qp link "$dev/1"; tail -5 "$out/bench.log"; exit 1; }
  sleep 1
  after=$(qp_of "$bench_pid")
  [ "$before" != "$after" ] || { fail "no traffic: the bench's QP did not move in 1 s: $after"; exit 1; }
  log "traffic: $after"
else
  # iWARP: the bench wires its pair by hand, which iWARP cannot; a datapath run against serve
  # carries the traffic instead (its pairs, made through rdma_cm, come and go with its tests;
  # siw reports every QP's state as RESET to rdma resource show: docs/findings).
  "$bin" run --device="$dev" --peer="127.0.0.1:$port" --suites=datapath --jobs=1 --no_expectations \
    --out="$out/traffic" --timeout_multiplier="$tm" >"$out/traffic.log" 2>&1 &
  started+=($!)
  until [ "$(grep -c ' PASS ' "$out/traffic.log" 2>/dev/null)" -ge 3 ] || [ $SECONDS -ge $end ]; do sleep 0.2; done
  [ "$(grep -c ' PASS ' "$out/traffic.log" 2>/dev/null)" -ge 3 ] ||
    { fail "no traffic: the run against serve passed no 3 tests within $(scaled 120)s"; tail -5 "$out/traffic.log"; exit 1; }
  log "traffic: $(grep -c ' PASS ' "$out/traffic.log") datapath tests passed against serve, the run goes on"
fi
holders=$(for f in /proc/[0-9]*/fd/*; do
  [[ $(readlink "$f" 2>/dev/null) == /dev/infiniband/uverbs* ]] && { f=${f#/proc/}; echo "${f%%/*}"; }
done | sort -un | tr '\n' ' ')
log "processes with a uverbs file open: $holders"

# 2. The delete, from here, while they hold the device.
rdma link delete "$dev" >"$out/delete.log" 2>&1 &
removal_pid=$!
log "rdma link delete $dev issued (pid $removal_pid); watching it for ${HOLD}s"
end=$((SECONDS + HOLD))
while [ $SECONDS -lt $end ] && kill -0 "$removal_pid" 2>/dev/null; do sleep 0.2; done
if kill -0 "$removal_pid" 2>/dev/null; then
  pass "rdma link delete waits while other processes hold $dev ($(cat /proc/"$removal_pid"/wchan 2>/dev/null))"
else
  wait "$removal_pid"; rc=$?; removal_done=1
  fail "rdma link delete returned ($rc: $(cat "$out/delete.log")) while processes held $dev: rxe and siw have no disassociate, the delete must wait for them"
fi
kill -0 "$serve_pid" 2>/dev/null || fail "serve died while it held $dev: $(tail -5 "$out/serve.log")"

# 3. The holders killed; the delete must return.
kill_started
if [ -z "$removal_done" ]; then
  end=$((SECONDS + DELETE_BOUND))
  while [ $SECONDS -lt $end ] && kill -0 "$removal_pid" 2>/dev/null; do sleep 0.2; done
  if kill -0 "$removal_pid" 2>/dev/null; then
    fail "rdma link delete $dev still blocked ${DELETE_BOUND}s after its holders were gone; its kernel stack:"
    sed 's/^/  /' "/proc/$removal_pid/stack" 2>/dev/null
    for f in /proc/[0-9]*/fd/*; do
      [[ $(readlink "$f" 2>/dev/null) == /dev/infiniband/uverbs* ]] && echo "  still open: $f"
    done
  else
    wait "$removal_pid"; rc=$?; removal_done=1
    if [ "$rc" -eq 0 ] && [ ! -e "/sys/class/infiniband/$dev" ]; then pass "rdma link delete returned once the holders were gone"
    else fail "rdma link delete exited $rc ($(cat "$out/delete.log")); /sys/class/infiniband/$dev $([ -e "/sys/class/infiniband/$dev" ] && echo still there || echo gone)"
    fi
  fi
fi

# 4. The kernel log since the mark.
judge_kernel_log

# 5. The device again, and traffic on it.
if [ -n "$removal_done" ]; then
  readd_and_run
fi
verdict "$dev link delete under traffic"
