#!/usr/bin/env bash
# The walk's invariants must be able to fail: `rdmacheck walk` under mutants of the
# mutation suite (libmutants.so, each a real device deviating in one way), each of which
# one invariant must catch. Per mutant: the step of the first finding and its signature
# (the invariant that caught it), and the length of the shrunk reproducer.
#   walk_mutants.sh RDMACHECK LIBMUTANTS DEVICE OUT_DIR SEED STEPS SHRINK_RUNS MUTANT...
# Exit 1 when a mutant survives (the walk ends with no finding) or the control (no change)
# gets a finding. Writes OUT_DIR/walk-mutants.md.
set -uo pipefail
bin=$1 lib=$2 dev=$3 out=$4 seed=$5 steps=$6 shrink=$7
shift 7
[ -d "/sys/class/infiniband/$dev" ] || { echo "walk_mutants: no $dev here"; exit 77; }
rm -rf "$out" && mkdir -p "$out"
table="$out/walk-mutants.md"
{
  echo "| mutant | caught at step | by | shrunk to |"
  echo "|---|---|---|---|"
} >"$table"
survived=0
for m in "$@"; do
  # A mutant is judged without the driver's expectations (none may excuse what it does); the
  # control with them: it runs on the real device, whose known deviations (rxe's receive
  # posted after a fault, flaky) are not the library's doing.
  excuse=--no_expectations
  [ "$m" = control ] && excuse=
  # RDMACHECK_FORKED_CHILD: the library acts in this process, as in a suite child (active.cc).
  RDMACHECK_FORKED_CHILD=1 RDMACHECK_MUTANT=$m LD_PRELOAD=$lib \
    "$bin" walk --device="$dev" --seed="$seed" --steps="$steps" --shrink_runs="$shrink" $excuse \
    --out="$out/$m" >"$out/$m.txt" 2>&1
  rc=$?
  first=$(grep -m1 -E '^walk: (step [0-9]+|teardown|exit)' "$out/$m.txt")
  step=$(sed -nE 's/^walk: step ([0-9]+) .*/\1/p' <<<"$first")
  [ -n "$first" ] && [ -z "$step" ] && step="teardown"
  signature=$(python3 -c "import json,sys; f=json.load(open(sys.argv[1]))['findings']; print(f[0]['signature'] if f else '')" \
              "$out/$m/walk.json" 2>/dev/null)
  shrunk=$(sed -nE 's/^walk: ".*" shrunk to ([0-9]+ of [0-9]+ actions).*/\1/p' "$out/$m.txt")
  if [ "$m" = control ]; then
    # The control changes nothing: the walk must stay clean under the library.
    [ "$rc" -eq 0 ] || { survived=$((survived + 1)); echo "| control | FAILED: exit $rc | ${signature} | |" >>"$table"; continue; }
    echo "| control | (clean, as it must be) | | |" >>"$table"
  elif [ "$rc" -ne 1 ] || [ -z "$signature" ]; then
    survived=$((survived + 1))
    echo "| $m | survived (exit $rc) | | |" >>"$table"
  else
    echo "| $m | $step | $signature | ${shrunk:-not shrunk} |" >>"$table"
  fi
done
cat "$table"
echo "walk_mutants: $dev seed $seed: $(( $# - survived )) of $# as they must be (mutants caught, the control clean)"
[ "$survived" -eq 0 ]
