#!/usr/bin/env bash
# A guest whose boot sticks is the lab's failure, found in bounded time (CI once lost 900 s
# to a boot that never reached its command, with nothing said). With a boot bound too short
# for any boot (RDMACHECK_LAB_BOOT_TIMEOUT=2), scripts/lab.sh must stop the guest, boot it
# once more, stop that one too, and exit 125 (the lab failed) with one line saying so;
# the command never runs and the first boot's console is kept.
#
#   scripts/lab-boot-stuck_test.sh OUT_DIR      (ctest lab.boot-stuck, label lab-boot)
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:?usage: lab-boot-stuck_test.sh OUT_DIR}
fail() { echo "lab-boot-stuck_test: FAIL: $*" >&2; exit 1; }
rm -rf "$out" && mkdir -p "$out" || exit 2
start=$SECONDS
RDMACHECK_OUT=$out RDMACHECK_LAB_BOOT_TIMEOUT=2 "$repo/scripts/lab.sh" -- touch "$out/ran" 2>"$out/stderr.log"
rc=$?
took=$((SECONDS - start))
cat "$out/stderr.log" >&2
[ "$rc" = 125 ] || fail "exit $rc, not 125 (the lab failed)"
[ ! -e "$out/ran" ] || fail "the command ran"
[ "$(grep -c 'did not start its command within 2 s' "$out/stderr.log")" = 2 ] ||
  fail "not two boots each stopped with a line saying so"
grep -q 'booting again (attempt 2 of 2)' "$out/stderr.log" || fail "the stuck boot was not booted again"
[ -e "$out/lab-console.stuck-boot.log" ] || fail "the first boot's console was not kept"
[ "$took" -le 120 ] || fail "took $took s for two boots bounded at 2 s"
echo "lab-boot-stuck_test: two stuck boots stopped, exit 125, $took s" >&2
