#!/usr/bin/env bash
# Device test of `rdmacheck doctor` (ctest device.<dev>.doctor, in the lab):
#   1. as things are: exit 0, a READY verdict line, and the uverbs node's permission finding
#      says "warning" exactly when the node is world-writable (the lab's nodes are 0666);
#   2. memlock lowered to 64 KiB without CAP_IPC_LOCK (root keeps that capability, which
#      lifts the limit, so setpriv drops it): exit 1, the memlock problem with its fix;
#   3. a bad flag value: exit 2 with one line on stderr.
#   doctor_test.sh RDMACHECK DEVICE
set -uo pipefail
bin=$1 dev=$2
fail() { echo "doctor_test: $*" >&2; exit 1; }
[ -d "/sys/class/infiniband/$dev" ] || { echo "doctor_test: no $dev here"; exit 77; }

out=$("$bin" doctor --device="$dev" --format=json); rc=$?
[ "$rc" -eq 0 ] || fail "doctor exit $rc on a working $dev: $out"
node=$(basename "$(grep -l "^$dev\$" /sys/class/infiniband_verbs/uverbs*/ibdev | head -1 | xargs dirname)")
mode=$(stat -c %a "/dev/infiniband/$node")
want=ok; [ $((8#$mode & 2)) -ne 0 ] && want=warning
python3 - "$out" "$dev" "$want" <<'PY' || fail "unexpected findings"
import json, sys
d, dev, want = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
assert d["verdict"] == "ready" and d["headline"].startswith("READY: " + dev), d["headline"]
perm = [f for f in d["findings"] if f["check"] == "uverbs_permissions" and f.get("device") == dev]
assert len(perm) == 1 and perm[0]["severity"] == want, perm
assert want == "ok" or "chmod 0660" in perm[0]["fix"], perm
assert any(f["check"] == "rdma_cm" and f["severity"] == "ok" for f in d["findings"]), "rdma_cm not ok"
PY
"$bin" doctor --device="$dev" | head -1 | grep -q '^READY: ' || fail "text output does not start with the verdict line"

low=$(ulimit -l 64 && setpriv --inh-caps=-ipc_lock --bounding-set=-ipc_lock "$bin" doctor --device="$dev"); rc=$?
[ "$rc" -eq 1 ] || fail "doctor exit $rc with memlock 64 KiB and no CAP_IPC_LOCK (want 1): $low"
head -1 <<<"$low" | grep -q '^NOT READY: 1 problem.*RLIMIT_MEMLOCK 64 KiB' || fail "verdict line: $(head -1 <<<"$low")"
grep -q 'fix: ulimit -l unlimited' <<<"$low" || fail "no fix for memlock: $low"

err=$("$bin" doctor --format=xml 2>&1 >/dev/null); rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <<<"$err")" -eq 1 ] || fail "bad flag: exit $rc, stderr '$err'"
err=$("$bin" doctor --device=nosuch0 2>&1 >/dev/null); rc=$?
[ "$rc" -eq 2 ] || fail "unknown device: exit $rc, stderr '$err'"
echo "doctor_test: $dev ok (permissions $want; lowered memlock flagged)"
