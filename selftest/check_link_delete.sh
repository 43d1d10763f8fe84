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
bin=${1:?usage: check_link_delete.sh RDMACHECK_BINARY DEVICE OUT_DIR}
dev=${2:?} out=${3:?}
tm=${TIMEOUT_MULTIPLIER:-1}
here=$(cd "$(dirname "$0")/.." && pwd)
if [ "${RDMACHECK_LAB:-}" != 1 ]; then
  echo "SKIP: deletes and re-creates $dev; runs only in the VM lab (scripts/lab.sh)"
  exit 77
fi
case $dev in
  rxe0) kind=rxe ;;
  siw0) kind=siw ;;
  *) echo "SKIP: $dev is not rxe0 or siw0, which scripts/setup-softrdma.sh re-creates"; exit 77 ;;
esac
[ "$EUID" -eq 0 ] || { echo "FAIL: must run as root"; exit 1; }
rm -rf "$out" && mkdir -p "$out"
scaled() { awk -v s="$1" -v m="$tm" 'BEGIN { printf "%d", s * m + 0.5 }'; }
HOLD=$(scaled 5)             # the delete watched while the holders live
REAP=$(scaled 30)            # the holders gone after SIGKILL
DELETE_BOUND=$(scaled 60)    # the delete returned once they are gone
HUNG_TASK=$((HOLD + 30))    # longer than the delete's wait for its holders; a fraction of DELETE_BOUND

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }
log() { echo "link-delete: $*"; }

# The device's netdev, from netlink, before it goes.
netdev=''
links=$(rdma link show "$dev/1" 2>/dev/null) && [[ $links =~ netdev\ ([^ ]+) ]] && netdev=${BASH_REMATCH[1]}
[ -n "$netdev" ] || { echo "FAIL: $dev has no netdev in 'rdma link show' (is it there?): $links"; exit 1; }
log "$dev ($kind) on netdev $netdev"

started=() delete_pid='' delete_done='' sysctl_old=()
# The processes this script started and all their descendants (run reparents its suite
# children to itself; a killed parent's children would live on, holding the device).
descendants() {
  local todo=("$@") all=() p pid ppid rest
  declare -A kids=()
  for p in /proc/[0-9]*/stat; do # "pid (comm) state ppid ...": the fields after the last ')'
    read -r rest 2>/dev/null <"$p" || continue
    pid=${rest%% *} rest=${rest##*) } ppid=${rest#* } ppid=${ppid%% *}
    kids[$ppid]+=" $pid"
  done
  while [ ${#todo[@]} -gt 0 ]; do
    p=${todo[0]} todo=("${todo[@]:1}")
    [ -d "/proc/$p" ] || continue
    all+=("$p")
    for pid in ${kids[$p]:-}; do todo+=("$pid"); done
  done
  echo "${all[@]}"
}
state_of() { local st; read -r st 2>/dev/null <"/proc/$1/stat" && st=${st##*) } && echo "${st%% *}"; }
kill_started() {
  [ ${#started[@]} -gt 0 ] || return 0
  kill -STOP "${started[@]}" 2>/dev/null # no new children while the tree is read
  local tree
  tree=$(descendants "${started[@]}")
  # shellcheck disable=SC2086 # a list of pids
  [ -z "$tree" ] || kill -KILL $tree 2>/dev/null
  local end=$((SECONDS + REAP)) p alive
  while :; do # a zombie is gone (its files are closed); one stuck in the kernel is not
    alive=''
    for p in $tree; do [ -d "/proc/$p" ] && [ "$(state_of "$p")" != Z ] && alive+=" $p"; done
    if [ -z "$alive" ] || [ $SECONDS -ge $end ]; then break; fi
    sleep 0.2
  done
  for p in "${started[@]}"; do [ "$(state_of "$p")" != Z ] || wait "$p" 2>/dev/null; done
  started=()
  [ -z "$alive" ] || { fail "processes still there ${REAP}s after SIGKILL:$alive"; for p in $alive; do echo "  $p: $(cat /proc/"$p"/wchan 2>/dev/null) $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)"; done; }
}
readd() {
  log "adding $dev again on $netdev"
  "$here/scripts/setup-softrdma.sh" "--$kind" --netdev "$netdev"
}
cleanup() {
  kill_started
  local kv
  for kv in "${sysctl_old[@]}"; do echo "${kv#*=}" >"${kv%%=*}"; done
  # Leave the lab with its device: re-add it unless the delete is still stuck in the kernel.
  if [ ! -e "/sys/class/infiniband/$dev" ] && { [ -z "$delete_pid" ] || [ -n "$delete_done" ]; }; then readd; fi
}
trap cleanup EXIT

# The hung-task detector, armed where the kernel has it and lets us: blocked tasks
# checked every 5 s, reported after HUNG_TASK s, every time.
set_sysctl() { # FILE VALUE: the old value kept for the exit
  [ -w "$1" ] || return 1
  sysctl_old+=("$1=$(cat "$1")")
  echo "$2" >"$1"
}
if set_sysctl /proc/sys/kernel/hung_task_timeout_secs "$HUNG_TASK"; then
  set_sysctl /proc/sys/kernel/hung_task_check_interval_secs 5
  set_sysctl /proc/sys/kernel/hung_task_warnings -1
  log "hung-task detector: tasks blocked for ${HUNG_TASK}s are reported"
else
  log "no writable kernel.hung_task_timeout_secs: the kernel's own hung-task report is not armed"
fi
marker="rdmacheck link-delete test $$ $dev: start"
echo "$marker" >/dev/kmsg 2>/dev/null || log "cannot write /dev/kmsg: the kernel log is judged from the whole ring"

# 1. The holders: serve (one context for its life) and traffic against it.
"$bin" serve --device="$dev" --listen=0 --timeout_multiplier="$tm" >"$out/serve.log" 2>&1 &
started+=($!)
serve_pid=$!
port='' end=$((SECONDS + $(scaled 30)))
while [ -z "$port" ] && [ $SECONDS -lt $end ]; do
  [[ $(cat "$out/serve.log") =~ side\ channel\ on\ TCP\ port\ ([0-9]+) ]] && port=${BASH_REMATCH[1]}
  sleep 0.2
done
[ -n "$port" ] || { fail "serve did not listen within $(scaled 30)s:"; cat "$out/serve.log"; exit 1; }
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
delete_pid=$!
log "rdma link delete $dev issued (pid $delete_pid); watching it for ${HOLD}s"
end=$((SECONDS + HOLD))
while [ $SECONDS -lt $end ] && kill -0 "$delete_pid" 2>/dev/null; do sleep 0.2; done
if kill -0 "$delete_pid" 2>/dev/null; then
  pass "rdma link delete waits while other processes hold $dev ($(cat /proc/"$delete_pid"/wchan 2>/dev/null))"
else
  wait "$delete_pid"; rc=$?; delete_done=1
  fail "rdma link delete returned ($rc: $(cat "$out/delete.log")) while processes held $dev: rxe and siw have no disassociate, the delete must wait for them"
fi
kill -0 "$serve_pid" 2>/dev/null || fail "serve died while it held $dev: $(tail -5 "$out/serve.log")"

# 3. The holders killed; the delete must return.
kill_started
if [ -z "$delete_done" ]; then
  end=$((SECONDS + DELETE_BOUND))
  while [ $SECONDS -lt $end ] && kill -0 "$delete_pid" 2>/dev/null; do sleep 0.2; done
  if kill -0 "$delete_pid" 2>/dev/null; then
    fail "rdma link delete $dev still blocked ${DELETE_BOUND}s after its holders were gone; its kernel stack:"
    sed 's/^/  /' "/proc/$delete_pid/stack" 2>/dev/null
    for f in /proc/[0-9]*/fd/*; do
      [[ $(readlink "$f" 2>/dev/null) == /dev/infiniband/uverbs* ]] && echo "  still open: $f"
    done
  else
    wait "$delete_pid"; rc=$?; delete_done=1
    if [ "$rc" -eq 0 ] && [ ! -e "/sys/class/infiniband/$dev" ]; then pass "rdma link delete returned once the holders were gone"
    else fail "rdma link delete exited $rc ($(cat "$out/delete.log")); /sys/class/infiniband/$dev $([ -e "/sys/class/infiniband/$dev" ] && echo still there || echo gone)"
    fi
  fi
fi

# 4. The kernel log since the marker.
dmesg >"$out/dmesg.log" 2>&1
awk -v m="$marker" 'found { print } index($0, m) { found = 1 }' "$out/dmesg.log" >"$out/dmesg-since.log"
[ -s "$out/dmesg-since.log" ] || grep -q "$marker" "$out/dmesg.log" || cp "$out/dmesg.log" "$out/dmesg-since.log"
bad=$(grep -E 'WARNING:|BUG:|Oops|general protection|blocked for more than|hung_task|Call Trace|UBSAN|KASAN|refcount_t' "$out/dmesg-since.log")
if [ -n "$bad" ]; then fail "the kernel log since the start:"; echo "$bad" | sed 's/^/  /' | head -40
else pass "no WARNING/BUG/Oops/hung task line in the kernel log"
fi

# 5. The device again, and traffic on it.
if [ -n "$delete_done" ]; then
  if readd >"$out/readd.log" 2>&1; then
    pass "$dev added again on $netdev"
    if "$bin" run --device="$dev" --suites=datapath --gtest_filter='*_One' --out="$out/after" \
      --timeout_multiplier="$tm" >"$out/after.log" 2>&1; then
      pass "a datapath run on the re-added $dev passes"
    else
      fail "the datapath run on the re-added $dev failed:"; tail -20 "$out/after.log"
    fi
  else
    fail "adding $dev again failed:"; cat "$out/readd.log"
  fi
fi

[ "$failures" -eq 0 ] && echo "PASS: $dev link delete under traffic" || echo "FAILED: $failures check(s) on $dev"
[ "$failures" -eq 0 ]
