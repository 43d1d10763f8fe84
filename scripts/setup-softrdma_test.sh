#!/usr/bin/env bash
# Test of scripts/setup-softrdma.sh on a kernel with rdma_rxe and siw: the lab VM, where
# the guest already ran it once (rxe0 and siw0 exist, recorded in its state file).
# Checks: a second run reuses the devices; --teardown removes exactly what the script
# made (devices, dummy netdevs, modules) and is idempotent; --netdev puts a device on a
# given netdev and teardown leaves that netdev alone; a missing module and an iproute2
# without `rdma link add` give their errors; setup after teardown brings back the same
# devices (same node GUIDs, so results stay comparable).
# It deletes and re-creates rxe0/siw0, so it runs only in the lab (RDMACHECK_LAB=1;
# elsewhere it exits 77 = skipped) and serially (CTest RUN_SERIAL); the devices are
# restored on any exit. CTest: device.setup-softrdma.
set -uo pipefail
script=$(cd "$(dirname "$0")" && pwd)/setup-softrdma.sh
state=/run/rdmacheck-softrdma.state
if [ "${RDMACHECK_LAB:-}" != 1 ]; then
  echo "SKIP: deletes and re-creates rxe0/siw0; runs only in the VM lab (scripts/lab.sh)"
  exit 77
fi

failures=0
pass() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# check NAME COMMAND...: COMMAND must succeed.
check() { local n=$1; shift; if "$@"; then pass "$n"; else fail "$n"; fi; }
# run ARGS...: runs the script, output in $out, status in $rc.
run() { out=$("$script" "$@" 2>&1); rc=$?; printf '  | %s\n' "${out//$'\n'/$'\n'  | }"; }
has() { [[ $out == *"$1"* ]]; }
exists() { [ -e "/sys/class/infiniband/$1" ]; }
netdev() { ip link show "$1" >/dev/null 2>&1; }
guid() { cat "/sys/class/infiniband/$1/node_guid" 2>/dev/null; }
active() { [[ $(cat "/sys/class/infiniband/$1/ports/1/state" 2>/dev/null) == *ACTIVE* ]]; }

tmp=$(mktemp -d)
restore() {
  ip link delete rdmatest0 2>/dev/null
  "$script" >/dev/null 2>&1 || echo "WARNING: could not restore rxe0/siw0: later tests will fail"
  rm -rf "$tmp"
}
trap restore EXIT

check "precondition: rxe0 and siw0 exist" exists rxe0
check "precondition: siw0 exists" exists siw0
rxe_guid=$(guid rxe0) siw_guid=$(guid siw0)

echo "# a second run reuses the devices"
before=$(cat "$state" 2>/dev/null)
run
check "exit 0" test "$rc" = 0
check "rxe0 reused" has "rxe0 ACTIVE on rdmacheck-rxe 10.77.1.1/24"
check "says reused" has "(reused)"
check "siw0 reused" has "siw0 ACTIVE on rdmacheck-siw 10.77.2.1/24"
check "memlock reported" has "memlock:"
check "state file unchanged" test "$(cat "$state" 2>/dev/null)" = "$before"

echo "# --teardown --rxe removes rxe0, its dummy netdev and rdma_rxe; siw0 stays"
run --teardown --rxe
check "exit 0" test "$rc" = 0
check "rxe0 gone" eval '! exists rxe0'
check "netdev rdmacheck-rxe gone" eval '! netdev rdmacheck-rxe'
if grep -q '^rxe module rdma_rxe$' <<<"$before"; then
  check "module rdma_rxe unloaded" test ! -d /sys/module/rdma_rxe
fi
check "siw0 untouched and ACTIVE" active siw0
run --teardown --rxe
check "a second teardown: exit 0" test "$rc" = 0
check "a second teardown: nothing to do" has "nothing to tear down"

echo "# a missing module: a clear error naming the module and where it comes from"
# (teardown unloaded it when the script had loaded it; otherwise unload it here)
[ ! -d /sys/module/rdma_rxe ] || modprobe -r rdma_rxe 2>/dev/null
out=$(MODPROBE=false "$script" --rxe 2>&1); rc=$?
printf '  | %s\n' "$out"
if [ -d /sys/module/rdma_rxe ]; then
  fail "rdma_rxe could not be unloaded, so the missing-module error cannot be tested"
else
  check "exit 1" test "$rc" = 1
  check "names the module" has "kernel module rdma_rxe not available for kernel $(uname -r)"
  check "names the feature and a package" has "Soft-RoCE (CONFIG_RDMA_RXE); Debian's linux-image"
  check "created nothing" eval '! exists rxe0 && ! netdev rdmacheck-rxe'
fi

echo "# an iproute2 without 'rdma link add'"
mkdir "$tmp/bin"
cat >"$tmp/bin/rdma" <<'EOF'
#!/bin/sh
# iproute2 4.19's rdma: no `link add`.
case "$*" in
  "link help") echo "Usage: rdma link show [DEV/PORT_INDEX]"; exit 0 ;;
  -V) echo "rdma utility, iproute2-ss181023"; exit 0 ;;
  *) echo "Unknown parameter 'add'." >&2; exit 1 ;;
esac
EOF
chmod +x "$tmp/bin/rdma"
out=$(PATH=$tmp/bin:$PATH "$script" --rxe 2>&1); rc=$?
printf '  | %s\n' "$out"
check "exit 1" test "$rc" = 1
check "says rdma link add is unsupported" has "'rdma link add' is not supported by this iproute2 (rdma utility, iproute2-ss181023)"
check "created nothing" eval '! exists rxe0'

echo "# --netdev: rxe0 on a given netdev; teardown leaves that netdev alone"
ip link add rdmatest0 type dummy && ip addr add 10.77.9.1/24 dev rdmatest0 && ip link set rdmatest0 up
run --rxe --netdev rdmatest0
check "exit 0" test "$rc" = 0
check "rxe0 on rdmatest0" has "rxe0 ACTIVE on rdmatest0 10.77.9.1/24"
check "created" has "(created)"
run --rxe
check "rxe0 on another netdev: exit 1" test "$rc" = 1
check "rxe0 on another netdev: says so" has "rxe0 already exists on netdev rdmatest0, not rdmacheck-rxe"
check "rxe0 on another netdev: no dummy made" eval '! netdev rdmacheck-rxe'
run --teardown --rxe
check "exit 0" test "$rc" = 0
check "rxe0 gone" eval '! exists rxe0'
check "rdmatest0 kept (not the script's)" netdev rdmatest0
ip link delete rdmatest0

echo "# full teardown, then setup brings back the same devices"
run --teardown
check "exit 0" test "$rc" = 0
check "siw0 gone" eval '! exists siw0 && ! netdev rdmacheck-siw'
check "state file removed" test ! -e "$state"
run
check "exit 0" test "$rc" = 0
check "rxe0 created" has "rxe0 ACTIVE on rdmacheck-rxe 10.77.1.1/24"
check "siw0 created" has "siw0 ACTIVE on rdmacheck-siw 10.77.2.1/24"
check "rxe0 node GUID as before ($rxe_guid)" test "$(guid rxe0)" = "$rxe_guid"
check "siw0 node GUID as before ($siw_guid)" test "$(guid siw0)" = "$siw_guid"
check "rdma_cm node" test -c /dev/infiniband/rdma_cm

echo "# usage errors"
run --bogus
check "unknown option: exit 1" test "$rc" = 1
check "unknown option: named" has "unknown option '--bogus'"

echo "$failures failure(s)"
[ "$failures" = 0 ]
