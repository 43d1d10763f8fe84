#!/usr/bin/env bash
# Device test of `rdmacheck walk` (ctest device.<dev>.walk, in the lab):
#   1. fixed-seed walks (the seeds and steps below) end with no finding the driver's
#      expectation file does not name: exit 0; walk.json written;
#   2. the kernel log is watched: a WARNING line written to /dev/kmsg during a walk is a
#      finding ("the kernel logged: WARNING: ..."), exit 1,
#      and the report's lines land in kernel-log.txt, even with an expectation file whose
#      Walk.* entry matches the report's message (a kernel report is never a known deviation);
#      skipped where /dev/kmsg is not writable;
#   3. bad input: --steps=0 and an unreadable --replay file are one line and exit 2, and so
#      is --fail_alloc on a kernel without fault injection (on one with it, the debug
#      kernel, a walk with every 37th allocation failing ends with no unknown finding).
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
  all="$out/matches-the-warning.json"
  cat >"$all" <<'JSON'
{"driver": "any", "comment": "walk_lab_test.sh: an entry whose signature matches the kernel's report",
 "expectations": [{"test": "Walk.*", "kind": "fails", "reason": "covers the injected WARNING",
                   "reference": "walk/walk_lab_test.sh", "signature": "WARNING: CPU: 0 PID: 1 at drivers/infiniband/rdmacheck_walk_test"}]}
JSON
  "$bin" walk --device="$dev" --seed=1 --steps=2000 --weights=destroy=0 --shrink_runs=0 --expectations="$all" \
    --out="$dir" >"$dir.txt" 2>&1 &
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
if [ -e /sys/kernel/debug/failslab/task-filter ]; then
  dir="$out/fail-alloc"
  "$bin" walk --device="$dev" --seed=1 --steps=1000 --fail_alloc=37 --out="$dir" >"$dir.txt" 2>&1
  rc=$?
  cat "$dir.txt"
  [ "$rc" -eq 0 ] || fail "--fail_alloc=37: exit $rc ($dir/walk.json)"
  grep -q '"outcome": "ENOMEM"' "$dir/walk.json" || fail "--fail_alloc=37: no call answered ENOMEM (the injection did not act)"
else
  line=$("$bin" walk --device="$dev" --steps=10 --fail_alloc=5 --out="$out/no-faults" 2>&1); rc=$?
  [ "$rc" -eq 2 ] && [ "$(wc -l <<<"$line")" -eq 1 ] && [[ $line == *"no fault injection"* ]] ||
    fail "--fail_alloc without fault injection: exit $rc, '$line'"
fi
echo "walk_lab_test: $dev: $# walks clean, the kernel log watched, bad input refused"
