#!/usr/bin/env bash
# The driver module of a soft RDMA device (rdma_rxe for rxe0, siw for siw0) unloaded, in
# the lab, as root:
#  1. With a context open (`rdmacheck serve` holds DEVICE): `rmmod` is refused at once and
#     cleanly: ib_uverbs_open() takes a reference on the driver's module when the driver has
#     no ops.disassociate_ucontext (rxe and siw have none; drivers/infiniband/core/
#     uverbs_main.c, "module_dependent"), so delete_module(2) fails EWOULDBLOCK ("in use")
#     and does not wait. The module, the device and the holder stay, and a short run on the
#     device still passes.
#  2. Idle (the holder killed and reaped, its reference dropped by ib_uverbs_release_file()):
#     `rmmod` succeeds within a bound, and the device is gone with its module (the module's
#     exit unregisters every device of its driver).
#  3. The kernel log since the start holds no WARNING / BUG / Oops / hung task line (the
#     hung-task detector armed, so an unload stuck in the kernel is reported by it too).
#  4. The module is loaded and the device added again (scripts/setup-softrdma.sh), and a
#     short run on it passes.
# It removes DEVICE's driver, so it runs only in the lab (RDMACHECK_LAB=1; elsewhere it
# exits 77 = skipped), for rxe0 / siw0, in the `teardown` label's lab session; a driver
# built into the kernel cannot be unloaded (skipped, said why). The device is re-added on
# any exit where the module is gone. No timing is judged: the waits only bound.
#   selftest/check_module_unload.sh RDMACHECK_BINARY DEVICE OUT_DIR
# Env: TIMEOUT_MULTIPLIER (default 1) scales the waits and is passed to rdmacheck.
set -uo pipefail
# shellcheck source=selftest/teardown_common.sh
. "$(dirname "$0")/teardown_common.sh"
teardown_args "unloads the driver of" "$@"
[ -e "/sys/module/$module/refcnt" ] || { echo "SKIP: $module is built into this kernel (no /sys/module/$module/refcnt)"; exit 77; }
UNLOAD_BOUND=$(scaled 60) # rmmod of an idle module returned
log() { echo "module-unload: $*"; }

log "$dev ($kind, module $module, refcnt $(cat "/sys/module/$module/refcnt")) on netdev $netdev"

log "$(arm_hung_task "$((UNLOAD_BOUND / 2))")"
mark_kernel_log module-unload

# 1. A context open: refused, at once, and nothing else changes.
start_serve || exit 1
refs=$(cat "/sys/module/$module/refcnt")
[ "$refs" -ge 1 ] && pass "serve's open context holds $module (refcnt $refs)" ||
  fail "serve holds $dev but $module's refcnt is $refs: the uverbs file took no module reference"
timeout "$(scaled 30)" rmmod "$module" >"$out/rmmod-held.log" 2>&1
rc=$?
case $rc in
  124) fail "rmmod $module with a context open did not return in $(scaled 30)s: it must be refused, not wait" ;;
  0) fail "rmmod $module succeeded while serve held $dev open" ;;
  *) if grep -qi "in use" "$out/rmmod-held.log"; then pass "rmmod $module with a context open is refused: $(head -1 "$out/rmmod-held.log")"
     else fail "rmmod $module with a context open exited $rc, not for 'in use': $(cat "$out/rmmod-held.log")"
     fi ;;
esac
[ -e "/sys/class/infiniband/$dev" ] && [ -e "/sys/module/$module" ] && pass "$module and $dev still there" ||
  fail "after the refused rmmod: /sys/module/$module $([ -e "/sys/module/$module" ] && echo there || echo gone), $dev $([ -e "/sys/class/infiniband/$dev" ] && echo there || echo gone)"
kill -0 "$serve_pid" 2>/dev/null || fail "serve died at the refused rmmod: $(tail -5 "$out/serve.log")"
short_run_passes "the still-held"

# 2. Idle: the unload goes through, and takes the device with it.
kill_started
refs=$(cat "/sys/module/$module/refcnt")
[ "$refs" -eq 0 ] || fail "$module's refcnt is $refs with no process holding $dev"
rmmod "$module" >"$out/rmmod-idle.log" 2>&1 &
removal_pid=$!
end=$((SECONDS + UNLOAD_BOUND))
while [ $SECONDS -lt $end ] && kill -0 "$removal_pid" 2>/dev/null; do sleep 0.2; done
if kill -0 "$removal_pid" 2>/dev/null; then
  fail "rmmod $module (idle) still blocked after ${UNLOAD_BOUND}s; its kernel stack:"
  sed 's/^/  /' "/proc/$removal_pid/stack" 2>/dev/null
else
  wait "$removal_pid"; rc=$?; removal_done=1
  if [ "$rc" -eq 0 ] && [ ! -e "/sys/module/$module" ] && [ ! -e "/sys/class/infiniband/$dev" ]; then
    pass "rmmod $module (idle) unloaded it, and $dev went with it"
  else
    fail "rmmod $module (idle) exited $rc ($(cat "$out/rmmod-idle.log")); module $([ -e "/sys/module/$module" ] && echo still loaded || echo gone), $dev $([ -e "/sys/class/infiniband/$dev" ] && echo still there || echo gone)"
  fi
fi

# 3. The kernel log since the mark.
judge_kernel_log

# 4. The module and the device again, and traffic on it.
if [ -n "$removal_done" ] && [ ! -e "/sys/class/infiniband/$dev" ]; then
  readd_and_run
fi
verdict "$dev's module $module unloaded held and idle"
