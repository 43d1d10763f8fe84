#!/usr/bin/env bash
# Runs the deliberately broken tests of rdmacheck_selftest on DEVICE and checks that the
# run survived and reported each: the crash and the hang failed by name with what
# happened, the passes before and after are there, and the leak check names the PD. Then
# again with an expectation file that lists the crash and the hang with signatures that
# match their very messages: they must still fail (an expectation never covers a crash or
# a hang; a signature that matches anything is refused when the file loads).
#   selftest/check_watchdog_demo.sh SELFTEST_BINARY DEVICE OUT_DIR
set -uo pipefail
bin=${1:?usage: check_watchdog_demo.sh SELFTEST_BINARY DEVICE OUT_DIR} dev=${2:?} out=${3:?}
rm -rf "$out"
# --floor=off: rdmacheck_selftest has the demo suites only, no floor to run (runner/run_floor.h);
# RunFloor.Selection fails, as the demo's own failures do: the run exits 1 either way.
"$bin" run --device="$dev" --suites=watchdog_demo --out="$out" --no_expectations --test_timeout=10 --floor=off
rc=$?
[ "$rc" -eq 1 ] || { echo "FAIL: the run exited $rc, expected 1 (failures found)" >&2; exit 1; }
python3 - "$out/results.json" <<'PY'
import json, sys
tests = {t["name"]: t for t in json.load(open(sys.argv[1]))["tests"]}
expect = {
    "WatchdogDemoTest.APassBeforeTheCrash": ("pass", ""),
    "WatchdogDemoTest.BCrashes": ("fail", "signal 11 (SEGV)"),
    "WatchdogDemoTest.CHangs": ("fail", "timed out"),
    "WatchdogDemoTest.DLeaksAPd": ("pass", ""),
    "WatchdogDemoTest.EAPassAfterTheHang": ("pass", ""),
    "LeakCheck.VerbsObjectsReleased": ("fail", "1 pd"),
}
bad = []
for name, (status, words) in expect.items():
    t = tests.get(name)
    if t is None:
        bad.append(f"{name}: no result")
    elif t["status"] != status or words not in t.get("message", ""):
        bad.append(f"{name}: {t['status']} '{t.get('message', '')[:120]}', expected {status} with '{words}'")
for b in bad:
    print("FAIL:", b, file=sys.stderr)
print(f"watchdog demo: {len(expect) - len(bad)} of {len(expect)} results as expected")
sys.exit(1 if bad else 0)
PY
[ $? -eq 0 ] || exit 1

cat >"$out.expectations.json" <<'JSON'
{"driver": "demo", "expectations": [
  {"test": "WatchdogDemoTest.BCrashes", "kind": "fails", "reason": "any", "reference": "none",
   "signature": "crashed: signal 11 \\(SEGV\\) while running this test"},
  {"test": "WatchdogDemoTest.CHangs", "kind": "fails", "reason": "any", "reference": "none",
   "signature": "timed out: no result after 10s \\(watchdog"}]}
JSON
"$bin" run --device="$dev" --out="$out/covered" --expectations="$out.expectations.json" --test_timeout=10 --floor=off \
  --gtest_filter='WatchdogDemoTest.BCrashes:WatchdogDemoTest.CHangs'
rc=$?
rm -f "$out.expectations.json"
[ "$rc" -eq 1 ] || { echo "FAIL: with expectations for the crash and the hang the run exited $rc, expected 1" >&2; exit 1; }
python3 - "$out/covered/results.json" <<'PY'
import json, sys
tests = {t["name"]: t for t in json.load(open(sys.argv[1]))["tests"]}
bad = [n for n in ("WatchdogDemoTest.BCrashes", "WatchdogDemoTest.CHangs")
       if tests.get(n, {}).get("status") != "fail" or "not the known deviation" not in tests[n].get("message", "")]
for n in bad:
    print("FAIL:", n, "was absorbed by its expectation:", tests.get(n), file=sys.stderr)
print(f"watchdog demo: {2 - len(bad)} of 2 crashes/hangs stay failures under an expectation")
sys.exit(1 if bad else 0)
PY
