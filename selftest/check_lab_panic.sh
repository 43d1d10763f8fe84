#!/usr/bin/env bash
# A guest kernel panic loses no result (run on the host; CTest label lab-boot): boots the
# lab, runs rdmacheck_selftest on rxe0 with the kernel_log_demo suite and then
# PanicDemoTest, which crashes the guest kernel (SysRq c), and checks that
#   - scripts/lab.sh exits 123 and writes <out>/lab-panic.txt naming the running test
#     and the console's last lines (with the panic);
#   - the earlier suite's results survived: results.json, marked "complete": false
#     (--jobs=1: the suites one after the other, so one has ended before the panic).
#   selftest/check_lab_panic.sh SELFTEST_BINARY OUT_DIR
set -uo pipefail
bin=${1:?usage: check_lab_panic.sh SELFTEST_BINARY OUT_DIR} out=${2:?}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
rm -rf "$out" && mkdir -p "$out"
# Bounded below ctest's 900 s, so a hang is reported by the lab with its console.
RDMACHECK_OUT=$out RDMACHECK_SELFTEST_PANIC=1 RDMACHECK_LAB_TIMEOUT=600 "$repo/scripts/lab.sh" -- \
  "$bin" run --device=rxe0 --suites=kernel_log_demo,panic_demo --out="$out/run" --no_expectations --jobs=1 --floor=off
rc=$?
[ "$rc" -eq 123 ] || { echo "FAIL: lab.sh exited $rc, expected 123 (guest kernel panic)" >&2; exit 1; }
bad=0
grep -q 'PanicDemoTest.PanicsTheKernel' "$out/lab-panic.txt" ||
  { echo "FAIL: lab-panic.txt does not name PanicDemoTest.PanicsTheKernel" >&2; bad=1; }
grep -q 'Kernel panic - not syncing' "$out/lab-panic.txt" ||
  { echo "FAIL: lab-panic.txt does not show the console's panic line" >&2; bad=1; }
python3 - "$out/run/results.json" <<'PY' || bad=1
import json, sys
r = json.load(open(sys.argv[1]))
names = {t["name"]: t["status"] for t in r["tests"]}
ok = r.get("complete") is False and names.get("KernelLogDemoTest.BStaysClean") == "pass"
print(f"lab panic: results.json kept {len(names)} results of the suites before the panic, complete={r.get('complete')}")
sys.exit(0 if ok else 1)
PY
[ "$bad" -eq 0 ] && sed -n '1,3p' "$out/lab-panic.txt"
exit "$bad"
