#!/usr/bin/env bash
# The kernel log and the device's counters in a real run on DEVICE (in the lab, as root):
#  1. rdmacheck_selftest's KernelLogDemoTest.AWarnsInTheKernelLog writes a WARNING-shaped
#     line into /dev/kmsg and passes by its verbs: the run must fail it with the line in
#     results.json "kernel_log" and junit.xml, even with an expectation file that lists it
#     as failing with a signature its message matches (a kernel problem is never xfail),
#     and keep BStaysClean a clean pass;
#  2. rdmacheck's RcSendTest on DEVICE: where the device keeps counters, every test whose
#     work completed on the wire shows counter deltas and none is flagged; where it keeps
#     none (siw), the run says "unsupported" and records no traffic. The run's totals
#     (environment.traffic_run_totals) hold at least what the tests' deltas add up to.
#   selftest/check_kernel_log.sh SELFTEST_BINARY RDMACHECK_BINARY DEVICE OUT_DIR
set -uo pipefail
selftest=${1:?usage: check_kernel_log.sh SELFTEST_BINARY RDMACHECK_BINARY DEVICE OUT_DIR}
bin=${2:?} dev=${3:?} out=${4:?}
rm -rf "$out" && mkdir -p "$out"
cat >"$out/expect-warning.json" <<'JSON'
{"driver": "any", "expectations": [{"test": "KernelLogDemoTest.AWarnsInTheKernelLog", "kind": "fails",
  "reason": "listed on purpose: a kernel-log failure must stay a failure", "reference": "selftest",
  "signature": "not a kernel bug"}]}
JSON
# --floor=off: rdmacheck_selftest has no floor to run (RunFloor.Selection fails; the run exits 1 anyway).
"$selftest" run --device="$dev" --suites=kernel_log_demo --out="$out/warn" --expectations="$out/expect-warning.json" \
  --floor=off
rc=$?
[ "$rc" -eq 1 ] || { echo "FAIL: the kernel-log run exited $rc, expected 1 (a test failed)" >&2; exit 1; }
# --jobs=1: tests running side by side would add to each other's counter deltas, and their
# sum is held against the run's totals below.
"$bin" run --device="$dev" --suites=datapath --gtest_filter='*RcSendTest.*' --out="$out/traffic" --jobs=1
rc=$?
[ "$rc" -eq 0 ] || { echo "FAIL: the RcSendTest run exited $rc, expected 0" >&2; exit 1; }
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
bad = []
warn = json.load(open(f"{out}/warn/results.json"))
tests = {t["name"]: t for t in warn["tests"]}
a, b = tests.get("KernelLogDemoTest.AWarnsInTheKernelLog"), tests.get("KernelLogDemoTest.BStaysClean")
env = warn["environment"].get("kernel_log", "")
if not env.startswith("read from /dev/kmsg"):
    bad.append(f"environment.kernel_log is '{env}', expected 'read from /dev/kmsg ...'")
if a is None or a["status"] != "fail" or not any("rdmacheck selftest: not a kernel bug" in l for l in a.get("kernel_log", [])):
    bad.append(f"AWarnsInTheKernelLog: {a and a['status']} with kernel_log {a and a.get('kernel_log')}, expected fail with the line")
elif not a["message"].startswith("kernel log:") or "expectation" in a:
    bad.append(f"AWarnsInTheKernelLog: message '{a['message'][:100]}' / expectation {a.get('expectation')}")
if b is None or b["status"] != "pass" or b.get("kernel_log") != []:
    bad.append(f"BStaysClean: {b and b['status']} with kernel_log {b and b.get('kernel_log')}, expected a clean pass")
if "KernelLog.OutsideTests" in tests:
    bad.append("KernelLog.OutsideTests: " + tests["KernelLog.OutsideTests"]["message"][:200])
if "rdmacheck selftest: not a kernel bug" not in open(f"{out}/warn/junit.xml").read():
    bad.append("junit.xml does not carry the kernel-log line")
if warn.get("complete") is not True:
    bad.append("results.json is not marked complete")

traffic = json.load(open(f"{out}/traffic/results.json"))
counters = traffic["environment"].get("traffic_counters", "")
ran = [t for t in traffic["tests"] if t["name"].startswith("Connect/RcSendTest.") and t["status"] == "pass"]
moved = [t for t in ran if t.get("traffic", {}).get("completions", 0) > 0]
if counters.startswith("read"):
    if not moved:
        bad.append("no RcSendTest recorded work completed on the wire")
    for t in moved:
        if not t["traffic"].get("counters") or "flag" in t["traffic"]:
            bad.append(f"{t['name']}: traffic {t['traffic']}: the counters show no trace")
    totals = traffic["environment"].get("traffic_run_totals", {})
    per_test = sum(t["traffic"].get("counters", {}).get("sent_pkts", 0) for t in traffic["tests"] if "traffic" in t)
    if totals.get("sent_pkts", 0) < per_test or per_test == 0:
        bad.append(f"traffic_run_totals sent_pkts {totals.get('sent_pkts')} < the tests' sum {per_test}")
    reads = sorted(t["traffic"]["read_ms"] for t in traffic["tests"] if "traffic" in t)
    print(f"traffic: {len(moved)} of {len(ran)} passing RcSendTests moved data, all seen in the counters; "
          f"counter reads per test: median {reads[len(reads) // 2]:.2f} ms, max {reads[-1]:.2f} ms; "
          f"sent_pkts: {per_test} in the tests, {totals.get('sent_pkts')} in the whole run")
elif counters.startswith("unsupported"):
    if any("traffic" in t for t in traffic["tests"]):
        bad.append("traffic recorded although the counters are unsupported")
    print(f"traffic: counters unsupported on this device: {counters}")
else:
    bad.append(f"environment.traffic_counters is '{counters}'")
for x in bad:
    print("FAIL:", x, file=sys.stderr)
print(f"kernel log: {'ok' if not bad else 'FAILED'}")
sys.exit(1 if bad else 0)
PY
