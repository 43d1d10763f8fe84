#!/usr/bin/env bash
# Sharding changes no verdict: runs every suite on DEVICE once with `run --jobs=JOBS` and
# compares each test's status with the serial runs the device CTests made before it
# (OUT/<suite>/results.json, `--jobs=1`, one suite at a time). Exit 0 when every test has
# the same status in both, 1 with the differences listed, 2 when a run is missing.
#
#   selftest/check_sharded_verdicts.sh DEVICE OUT [JOBS]
#
# Env: RDMACHECK_BIN (default build/rdmacheck), TIMEOUT_MULTIPLIER (default 4, as the
# serial CTests).
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: $0 DEVICE OUT [JOBS]" >&2; exit 2; }
device=$1 out=$2 jobs=${3:-4}
bin=${RDMACHECK_BIN:-build/rdmacheck}
[ -f "$out/capabilities.json" ] || { echo "check_sharded_verdicts: no $out/capabilities.json (run the device probe first)" >&2; exit 2; }

start=$SECONDS
"$bin" run --device="$device" --capabilities="$out/capabilities.json" --out="$out/sharded" --jobs="$jobs" \
  --timeout_multiplier="${TIMEOUT_MULTIPLIER:-4}" >"$out/sharded.log" 2>&1
rc=$?
echo "check_sharded_verdicts: $device --jobs=$jobs: exit $rc in $((SECONDS - start)) s ($out/sharded.log)"
[ -f "$out/sharded/results.json" ] || { echo "check_sharded_verdicts: the sharded run wrote no results" >&2; exit 2; }

python3 - "$out" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
def statuses(path):
    with open(path) as f:
        return {t["name"]: t["status"] for t in json.load(f)["tests"]}
serial = {}
for path in sorted(glob.glob(os.path.join(out, "*", "results.json"))):
    if os.path.basename(os.path.dirname(path)) in ("sharded", "two-host", "bench-peer"):
        continue
    for name, status in statuses(path).items():
        if name.startswith("LeakCheck.") or name.startswith("KernelLog."):
            continue  # per suite (serial) vs per run: compared by their failures below
        serial[name] = status
sharded = statuses(os.path.join(out, "sharded", "results.json"))
if not serial:
    print("check_sharded_verdicts: no serial results under " + out, file=sys.stderr)
    sys.exit(2)
diff = [f"  {n}: serial {serial.get(n, 'absent')}, sharded {sharded.get(n, 'absent')}"
        for n in sorted(set(serial) | {n for n in sharded if not n.startswith(("LeakCheck.", "KernelLog."))})
        if serial.get(n) != sharded.get(n)]
diff += [f"  {n}: failed in the sharded run" for n, s in sharded.items()
         if n.startswith(("LeakCheck.", "KernelLog.")) and s == "fail"]
print(f"check_sharded_verdicts: {len(serial)} tests compared, {len(diff)} differences")
if diff:
    print("\n".join(diff))
    sys.exit(1)
PY
