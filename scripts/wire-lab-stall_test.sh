#!/usr/bin/env bash
# The wire lab's own failure is not the device's (issue 39): a doctored stall of one link's
# direction mid-transfer (scripts/wire-lab.sh RDMACHECK_WIRE_STALL: node A's QEMU holds what
# node B sends on the rxe wire) must stop the run within the watch's bound, exit 125 (the
# lab failed) with one line naming the link, the direction and the time, and leave no failed
# test on the device.
#
#   scripts/wire-lab-stall_test.sh OUT_DIR      (ctest lab.wire-stall, label wire)
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:?usage: wire-lab-stall_test.sh OUT_DIR}
fail() { echo "wire-lab-stall_test: FAIL: $*" >&2; exit 1; }
rm -rf "$out" && mkdir -p "$out" || exit 2
bound=15
# comp_channel runs (and is written) before datapath, whose transfers the stall cuts.
RDMACHECK_OUT=$out RDMACHECK_WIRE_DEVICES=rxe0 RDMACHECK_WIRE_SUITES=comp_channel,datapath RDMACHECK_WIRE_STALL=rxe \
  RDMACHECK_WIRE_STALL_AFTER=$bound RDMACHECK_LAB_TIMEOUT=${RDMACHECK_LAB_TIMEOUT:-600} \
  "$repo/scripts/wire-lab.sh" 2> >(tee "$out/stderr.log" >&2)
rc=$?
wait
[ "$rc" = 125 ] || fail "exit $rc, not 125 (the lab failed)"
line=$(grep -m1 'rdmacheck wire watch: link rxe: node B -> node A stopped carrying frames at' "$out/stderr.log") ||
  fail "no line naming the link, the direction and the time"
echo "wire-lab-stall_test: $line" >&2
# Bounded: the stall was found within the bound (plus the watch's polling), not minutes later.
injected=$(sed -n 's/.*doctored stall: .*(\([0-9:]*\) UTC).*/\1/p' "$out/stderr.log" | head -n1)
[ -n "$injected" ] || fail "the doctored stall was never applied"
found=$(stat -c %Y "$out/wire/lab-failure.json") || fail "no lab-failure.json"
took=$((found - $(date -u -d "$(date -u +%F) $injected" +%s)))
[ "$took" -le $((bound + 10)) ] || fail "the stall was reported $took s after it began (bound $bound s)"
results=$out/wire/rxe0/results.json
if [ -f "$results" ]; then
  python3 - "$results" <<'PY' || fail "results.json attributes failures to the device, or lacks the lab failure"
import json, sys
r = json.load(open(sys.argv[1]))
s = r["summary"]
assert s["fail"] == 0 and s["xpass"] == 0, s
assert r["complete"] is False
assert "stalled" in r["environment"]["lab_failure"]["reason"], r["environment"].get("lab_failure")
# What the device did on the stalled wire (retries without end) is counted, not judged.
assert "violations_set_aside" in r["environment"]["lab_failure"], r["environment"]["lab_failure"]
PY
fi
grep -q 'the lab failed, not the device' "$out/wire/report.md" 2>/dev/null || [ ! -f "$results" ] ||
  fail "report.md does not say the lab failed"
echo "wire-lab-stall_test: ok: exit 125 $took s after the stall began; no failure on rxe0" >&2
