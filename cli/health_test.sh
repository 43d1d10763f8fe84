#!/usr/bin/env bash
# Device test of `rdmacheck health` (ctest device.<dev>.health, in the lab):
#   1. a working device: exit 0 and one line "rdmacheck health: OK <host>: <dev> N passed";
#   2. a device the node must have but lacks: exit 1, the line names it as gone;
#   3. memlock lowered to 64 KiB without CAP_IPC_LOCK (the doctor's problem): exit 1,
#      "FAIL ... doctor: NOT READY" — the traffic tests are not even tried;
#   4. a bad flag value: exit 2;
#   5. --profile: one learned from the first run (`fleet profile --learn`) is met ("meets
#      the profile of lab"); one asking for 9 NICs fails with that line, exit 1.
#   health_test.sh RDMACHECK DEVICE OUT_DIR
set -uo pipefail
bin=$1 dev=$2 out=$3
fail() { echo "health_test: $*" >&2; exit 1; }
[ -d "/sys/class/infiniband/$dev" ] || { echo "health_test: no $dev here"; exit 77; }

line=$("$bin" health --devices="$dev" --out="$out" --timeout_multiplier=2); rc=$?
echo "$line"
[ "$rc" -eq 0 ] || fail "exit $rc on a working $dev"
[ "$(wc -l <<<"$line")" -eq 1 ] || fail "more than one line"
grep -Eq "^rdmacheck health: OK .*: $dev [0-9]+ passed; doctor READY" <<<"$line" || fail "not the OK line"
[ -s "$out/$dev/results.json" ] || fail "no results.json kept in $out/$dev"

line=$("$bin" health --devices="$dev,nosuch0" --out="$out"); rc=$?
echo "$line"
[ "$rc" -eq 1 ] || fail "exit $rc with a device gone"
grep -q "FAIL .*: nosuch0 is gone (devices here: .*$dev" <<<"$line" || fail "the gone device is not named"

line=$(ulimit -l 64 && setpriv --inh-caps=-ipc_lock --bounding-set=-ipc_lock "$bin" health --devices="$dev" --out="$out"); rc=$?
echo "$line"
[ "$rc" -eq 1 ] || fail "exit $rc with memlock at 64 KiB"
grep -q "FAIL .*: doctor: NOT READY" <<<"$line" || fail "the doctor's verdict is not the reason"

"$bin" health --timeout_multiplier=0 >/dev/null 2>&1; rc=$?
[ "$rc" -eq 2 ] || fail "exit $rc on a bad flag value"

# The machine profile: learned from the run of case 1 (still in $out/$dev), then a copy
# asking for more NICs than a lab node has.
"$bin" fleet profile --learn --machine_type=lab --out="$out/lab-profile.json" "$out/$dev" ||
  fail "could not learn a profile from $out/$dev (exit $?)"
line=$("$bin" health --devices="$dev" --out="$out" --timeout_multiplier=2 --profile="$out/lab-profile.json"); rc=$?
echo "$line"
[ "$rc" -eq 0 ] || fail "exit $rc against the profile learned from this node"
grep -q "^rdmacheck health: OK .*; meets the profile of lab$" <<<"$line" || fail "the profile met is not said"
sed 's/"count": 1,/"count": 9,/' "$out/lab-profile.json" >"$out/nine-nics.json"
line=$("$bin" health --devices="$dev" --out="$out" --timeout_multiplier=2 --profile="$out/nine-nics.json"); rc=$?
echo "$line"
[ "$rc" -eq 1 ] || fail "exit $rc below the profile"
grep -q "^rdmacheck health: FAIL .*: 1 NIC, the profile's machine type lab needs 9$" <<<"$line" ||
  fail "the violation is not the reason"
echo "health_test: $dev ok"
