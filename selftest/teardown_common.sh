# shellcheck shell=bash
# What the teardown checks (selftest/check_link_delete.sh, check_module_unload.sh) share.
# Each check sources it, then calls teardown_args, which sets bin dev out tm kind (rxe|siw)
# module (its driver's) netdev, and ends the script where the check cannot run. Each check
# counts its failures in `failures`; processes it starts go into `started` and are killed,
# with every descendant, by kill_started.
#   teardown_args WHAT "$@"    BINARY DEVICE OUT_DIR; exit 77 outside the lab or for another
#                              device (WHAT: what the check does to it), 1 without root
#   fail/pass MESSAGE          one result line
#   scaled SECONDS             SECONDS times the timeout multiplier (TIMEOUT_MULTIPLIER)
#   kill_started               SIGKILL to started and descendants, reaped within REAP s
#   arm_hung_task SECONDS      the kernel's hung-task detector armed; restored by restore_sysctls
#   mark_kernel_log NAME       a line in the kernel log that judge_kernel_log reads from
#   judge_kernel_log           no WARNING / BUG / Oops / hung task line since the mark
#   readd                      DEVICE added again on its netdev (scripts/setup-softrdma.sh)
#   short_run_passes WHAT      a datapath run of the One-sized tests on DEVICE passes
#   readd_and_run              readd (its driver loaded where it was not), then short_run_passes
#   verdict WHAT               the last line (PASS: WHAT, or the failures' count) and the exit status
#   start_serve                `rdmacheck serve` on DEVICE (a context held for its life): serve_pid, port
# teardown_args also sets the exit trap (teardown_cleanup, below).
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

teardown_args() {
  local what=$1
  [ $# -eq 4 ] || { echo "usage: $(basename "$0") RDMACHECK_BINARY DEVICE OUT_DIR" >&2; exit 2; }
  bin=$2 dev=$3 out=$4
  tm=${TIMEOUT_MULTIPLIER:-1}
  REAP=$(scaled 30) # the killed processes gone
  if [ "${RDMACHECK_LAB:-}" != 1 ]; then
    echo "SKIP: $what $dev; runs only in the VM lab (scripts/lab.sh)"
    exit 77
  fi
  case $dev in
    rxe0) kind=rxe module=rdma_rxe ;;
    siw0) kind=siw module=siw ;;
    *) echo "SKIP: $dev is not rxe0 or siw0, which scripts/setup-softrdma.sh re-creates"; exit 77 ;;
  esac
  [ "$EUID" -eq 0 ] || { echo "FAIL: must run as root"; exit 1; }
  rm -rf "$out" && mkdir -p "$out"
  netdev=$(netdev_of "$dev")
  [ -n "$netdev" ] || { echo "FAIL: $dev has no netdev in 'rdma link show' (is it there?)"; exit 1; }
  trap teardown_cleanup EXIT
}

# The removal under test (rdma link delete, rmmod) runs as removal_pid; removal_done once it
# returned. At any exit: the started processes killed, the sysctls restored, and the device
# added again, unless its removal is still stuck in the kernel.
removal_pid='' removal_done=''
teardown_cleanup() {
  kill_started
  restore_sysctls
  if [ ! -e "/sys/class/infiniband/$dev" ] && { [ -z "$removal_pid" ] || [ -n "$removal_done" ]; }; then readd; fi
}

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }
scaled() { awk -v s="$1" -v m="${tm:-1}" 'BEGIN { printf "%d", s * m + 0.5 }'; }

started=() sysctl_old=() marker=''
# The processes started and all their descendants (run reparents its suite children to
# itself; a killed parent's children would live on, holding the device).
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

set_sysctl() { # FILE VALUE: the old value kept for restore_sysctls
  [ -w "$1" ] || return 1
  sysctl_old+=("$1=$(cat "$1")")
  echo "$2" >"$1"
}
restore_sysctls() { local kv; for kv in "${sysctl_old[@]}"; do echo "${kv#*=}" >"${kv%%=*}"; done; sysctl_old=(); }
# Blocked tasks checked every 5 s and reported after $1 s, every time, where the kernel
# has the detector and lets us set it.
arm_hung_task() {
  if set_sysctl /proc/sys/kernel/hung_task_timeout_secs "$1"; then
    set_sysctl /proc/sys/kernel/hung_task_check_interval_secs 5
    set_sysctl /proc/sys/kernel/hung_task_warnings -1
    echo "hung-task detector: tasks blocked for ${1}s are reported"
  else
    echo "no writable kernel.hung_task_timeout_secs: the kernel's own hung-task report is not armed"
  fi
}

mark_kernel_log() {
  marker="rdmacheck $1 test $$ $dev: start"
  echo "$marker" >/dev/kmsg 2>/dev/null || echo "cannot write /dev/kmsg: the kernel log is judged from the whole ring"
}
judge_kernel_log() {
  dmesg >"$out/dmesg.log" 2>&1
  awk -v m="$marker" 'found { print } index($0, m) { found = 1 }' "$out/dmesg.log" >"$out/dmesg-since.log"
  [ -s "$out/dmesg-since.log" ] || grep -q "$marker" "$out/dmesg.log" || cp "$out/dmesg.log" "$out/dmesg-since.log"
  local bad
  bad=$(grep -E 'WARNING:|BUG:|Oops|general protection|blocked for more than|hung_task|Call Trace|UBSAN|KASAN|refcount_t' "$out/dmesg-since.log")
  if [ -n "$bad" ]; then fail "the kernel log since the start:"; echo "$bad" | sed 's/^/  /' | head -40
  else pass "no WARNING/BUG/Oops/hung task line in the kernel log"
  fi
}

readd() {
  echo "adding $dev again on $netdev"
  "$here/scripts/setup-softrdma.sh" "--$kind" --netdev "$netdev"
}
short_run_passes() { # WHAT: where the device is ("the re-added", ...)
  local log="$out/run-${1// /-}.log"
  if "$bin" run --device="$dev" --suites=datapath --gtest_filter='*_One' --out="$out/run-${1// /-}" \
    --timeout_multiplier="$tm" >"$log" 2>&1; then
    pass "a datapath run on $1 $dev passes"
  else
    fail "the datapath run on $1 $dev failed:"; tail -20 "$log"
  fi
}

# DEVICE's netdev, from netlink (empty when the device is not there).
netdev_of() {
  local links
  links=$(rdma link show "$1/1" 2>/dev/null) && [[ $links =~ netdev\ ([^ ]+) ]] && echo "${BASH_REMATCH[1]}"
}

start_serve() {
  "$bin" serve --device="$dev" --listen=0 --timeout_multiplier="$tm" >"$out/serve.log" 2>&1 &
  started+=($!)
  # shellcheck disable=SC2034 # serve_pid is the caller's
  serve_pid=$! port=''
  local end=$((SECONDS + $(scaled 30)))
  while [ -z "$port" ] && [ $SECONDS -lt $end ]; do
    [[ $(cat "$out/serve.log") =~ side\ channel\ on\ TCP\ port\ ([0-9]+) ]] && port=${BASH_REMATCH[1]}
    sleep 0.2
  done
  [ -n "$port" ] || { fail "serve did not listen within $(scaled 30)s:"; cat "$out/serve.log"; return 1; }
}

readd_and_run() {
  if readd >"$out/readd.log" 2>&1; then
    pass "$dev added again on $netdev ($module loaded)"
    short_run_passes "the re-added"
  else
    fail "adding $dev again failed:"; cat "$out/readd.log"
  fi
}
verdict() {
  if [ "$failures" -eq 0 ]; then echo "PASS: $1"; else echo "FAILED: $failures check(s) on $dev"; fi
  [ "$failures" -eq 0 ]
}
