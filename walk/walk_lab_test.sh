#!/usr/bin/env bash
# Device test of `rdmacheck walk` (ctest device.<dev>.walk, in the lab):
#   1. fixed-seed walks (the seeds and steps below) end with no finding the driver's
#      expectation file does not name: exit 0; walk.json written;
#   2. the kernel log is watched: a WARNING line written to /dev/kmsg during a walk is a
#      finding ("the kernel logged: WARNING: ..."), exit 1,
#      and the report's lines land in kernel-log.txt (skipped where /dev/kmsg is not
#      writable);
#   3. bad input: --steps=0 and an unreadable --replay file are one line and exit 2.
#   walk_lab_test.sh RDMACHECK DEVICE OUT_DIR SEED:STEPS...
set -uo pipefail
bin=$1 dev=$2 out=$3
shift 3
fail() { echo "walk_lab_test: $*" >&2; exit 1; }
[ -d "/sys/class/infiniband/$dev" ] || { echo "walk_lab_test: no $dev here"; exit 77; }
rm -rf "$out" && mkdir -p "$out"

for walk in "$@"; do
  seed=${walk%%:*} steps=${walk##*:}
  dir="$out/seed-$seed"
  "$bin" walk --device="$dev" --seed="$seed" --steps="$steps" --out="$dir" --timeout_multiplier=2 >"$dir.txt" 2>&1
  rc=$?
  cat "$dir.txt"
  [ "$rc" -eq 0 ] || fail "seed $seed: exit $rc (a finding no expectation names: $dir/walk.json, $dir/walk-min.json)"
  [ -s "$dir/walk.json" ] || fail "seed $seed: no walk.json"
done

if [ -w /dev/kmsg ]; then
  dir="$out/kmsg"
  # The line is written every 0.05 s while a walk runs: it is read after some step or at exit.
  # The walk creates and never destroys (a walk on siw0 otherwise ends soon at libsiw's
  # known crash), so it lasts long enough to see the line.
  "$bin" walk --device="$dev" --seed=1 --steps=2000 --weights=destroy=0 --shrink_runs=0 --out="$dir" >"$dir.txt" 2>&1 &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    echo "WARNING: CPU: 0 PID: 1 at drivers/infiniband/rdmacheck_walk_test.c:1 injected+0x0/0x1" >/dev/kmsg
    sleep 0.05
  done
  wait "$pid"
  rc=$?
  cat "$dir.txt"
  grep -q "the kernel logged: .*WARNING: CPU: 0 PID: 1 at drivers/infiniband/rdmacheck_walk_test.c:1" "$dir.txt" ||
    fail "the injected WARNING line is not a finding"
  [ "$rc" -eq 1 ] || fail "exit $rc with a kernel WARNING during the walk"
  grep -q "rdmacheck_walk_test.c:1" "$dir/kernel-log.txt" || fail "kernel-log.txt lacks the report"
else
  echo "walk_lab_test: /dev/kmsg is not writable: the kernel-log watch is not tried"
fi

line=$("$bin" walk --device="$dev" --steps=0 2>&1); rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <<<"$line")" -eq 1 ] || fail "--steps=0: exit $rc, '$line'"
line=$("$bin" walk --device="$dev" --replay="$out/nonexistent.json" 2>&1); rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <<<"$line")" -eq 1 ] || fail "unreadable --replay: exit $rc, '$line'"
echo "walk_lab_test: $dev: $# walks clean, the kernel log watched, bad input refused"
