#!/usr/bin/env bash
# Unit test of the debug kernel's recipe (the build itself takes half an hour and stays out
# of CI; docs/walk.md "The debug kernel" has its measured cost):
#   1. every line of lab.config and debug.config is a comment or CONFIG_NAME=value, and no
#      option is set twice (a second value would silently win);
#   2. debug.config asks for what issue 36 names: KASAN, UBSAN, lockdep, kmemleak, debug
#      objects, the hung-task detector, failslab and fail_page_alloc;
#   3. build.sh refuses a missing cache argument and a missing linux-source package with
#      one line and a non-zero exit.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "debug-kernel test: $*" >&2; exit 1; }
bad=$(grep -hvE '^(#.*|CONFIG_[A-Z0-9_]+=(y|m|n|[0-9]+|"[^"]*"))?$' "$here/lab.config" "$here/debug.config")
[ -z "$bad" ] || fail "malformed lines: $bad"
twice=$(grep -hoE '^CONFIG_[A-Z0-9_]+' "$here/lab.config" "$here/debug.config" | sort | uniq -d)
[ -z "$twice" ] || fail "set twice: $twice"
for o in KASAN UBSAN PROVE_LOCKING DEBUG_KMEMLEAK DEBUG_OBJECTS DETECT_HUNG_TASK FAILSLAB FAIL_PAGE_ALLOC \
  FAULT_INJECTION_DEBUG_FS; do
  grep -qx "CONFIG_$o=y" "$here/debug.config" || fail "debug.config lacks CONFIG_$o=y"
done
for o in RDMA_RXE RDMA_SIW NET_SCH_NETEM 9P_FS OVERLAY_FS; do
  grep -qE "^CONFIG_$o=(y|m)$" "$here/lab.config" || fail "lab.config lacks CONFIG_$o"
done
out=$("$here/build.sh" 2>&1); rc=$?
[ "$rc" -ne 0 ] && [ "$(wc -l <<<"$out")" -eq 1 ] || fail "no cache argument: exit $rc, '$out'"
if [ ! -f /usr/src/linux-source-6.1.tar.xz ]; then
  out=$("$here/build.sh" "$(mktemp -d)" 2>&1); rc=$?
  [ "$rc" -ne 0 ] && [ "$(wc -l <<<"$out")" -eq 1 ] || fail "no source package: exit $rc, '$out'"
fi
echo "debug-kernel test: fragments well formed, the debug options asked for, bad input refused"
