#!/usr/bin/env bash
# Sharding changes no verdict: runs every suite on DEVICE once more with `run --jobs=JOBS`
# (default 1: one suite at a time, nothing beside anything) and compares each test's
# status with the runs the device CTests made before it (OUT/<suite>/results.json, one
# `run --suites=<suite>` each, sharded over the CPUs by default). Exit 0 when every test has
# the same status in both (a test under a flaky expectation may pass in one and xfail in the
# other), 1 with the differences listed, 2 when a run is missing.
#
#   selftest/check_sharded_verdicts.sh DEVICE OUT [JOBS]
#
# Env: RDMACHECK_BIN (default build/rdmacheck), TIMEOUT_MULTIPLIER (default 2, as the
# suite CTests).
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: $0 DEVICE OUT [JOBS]" >&2; exit 2; }
device=$1 out=$2 jobs=${3:-1}
bin=${RDMACHECK_BIN:-build/rdmacheck}
[ -f "$out/capabilities.json" ] || { echo "check_sharded_verdicts: no $out/capabilities.json (run the device probe first)" >&2; exit 2; }

start=$SECONDS
"$bin" run --device="$device" --capabilities="$out/capabilities.json" --out="$out/jobs$jobs" --jobs="$jobs" \
  --timeout_multiplier="${TIMEOUT_MULTIPLIER:-2}" >"$out/jobs$jobs.log" 2>&1
rc=$?
echo "check_sharded_verdicts: $device --jobs=$jobs: exit $rc in $((SECONDS - start)) s ($out/jobs$jobs.log)"
[ -f "$out/jobs$jobs/results.json" ] || { echo "check_sharded_verdicts: the --jobs=$jobs run wrote no results" >&2; exit 2; }

python3 - "$out" "jobs$jobs" <<'PY'
import glob, json, os, sys
out, whole = sys.argv[1], sys.argv[2]
def tests(path):
    with open(path) as f:
        return json.load(f)["tests"]
# A test under a "flaky" expectation (its xfail's reason starts "flaky: ") may pass in one
# run and xfail in the other: the expectation says the device does either.
flaky = {t["name"] for path in glob.glob(os.path.join(out, "*", "results.json")) for t in tests(path)
         if t["status"] == "xfail" and t.get("expectation", {}).get("reason", "").startswith("flaky: ")}
def statuses(path):
    return {t["name"]: "pass or flaky xfail" if t["name"] in flaky and t["status"] in ("pass", "xfail") else t["status"]
            for t in tests(path)}
# The suite runs: OUT/<suite>/ for each suite of the whole run (not OUT/two-host/, nor the
# watchdog demo's run, which may have ended before this test started).
suites = {t["suite"] for t in tests(os.path.join(out, whole, "results.json")) if t.get("suite")}
per_suite = {}
for path in sorted(glob.glob(os.path.join(out, "*", "results.json"))):
    if os.path.basename(os.path.dirname(path)) not in suites:
        continue
    for name, status in statuses(path).items():
        if name.startswith("LeakCheck.") or name.startswith("KernelLog."):
            continue  # one per suite run vs one per whole run: their failures are listed below
        per_suite[name] = status
whole_run = statuses(os.path.join(out, whole, "results.json"))
if not per_suite:
    print("check_sharded_verdicts: no suite results under " + out, file=sys.stderr)
    sys.exit(2)
diff = [f"  {n}: suite runs {per_suite.get(n, 'absent')}, {whole} {whole_run.get(n, 'absent')}"
        for n in sorted(set(per_suite) | {n for n in whole_run if not n.startswith(("LeakCheck.", "KernelLog."))})
        if per_suite.get(n) != whole_run.get(n)]
diff += [f"  {n}: failed in the {whole} run" for n, s in whole_run.items()
         if n.startswith(("LeakCheck.", "KernelLog.")) and s == "fail"]
print(f"check_sharded_verdicts: {len(per_suite)} tests compared, {len(diff)} differences")
if diff:
    print("\n".join(diff))
    sys.exit(1)
PY
