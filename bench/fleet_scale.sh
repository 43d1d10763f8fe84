#!/bin/bash
# How `rdmacheck fleet report` scales: time and peak memory over a synthetic fleet made from
# one real run directory. A benchmark, not a test: it prints numbers and fails only when the
# report cannot be made.
#
#   bench/fleet_scale.sh RDMACHECK RUN_DIR WORK_DIR NODES NICS [NODES NICS ...]
#   nice bench/fleet_scale.sh build/rdmacheck out/ctest/rxe0/jobs1 /tmp/fleet-scale 250 8 2000 8
#
# Needs python3 and GNU time (/usr/bin/time). Per size, WORK_DIR/<NODES>x<NICS>/nodes/
# node<i>/rxe<k> holds the run NODES x NICS times: eight variants of RUN_DIR's results.json
# (the device renamed rxe<k>, the hostname dropped so the report takes the node from the
# directory, fleet_model.h) hard-linked into every node, so 16,000 runs cost eight files
# on disk and every read comes from the page cache: the numbers are the report's own
# (parsing and judging), not the disk's. Every node looks alike: all healthy.
# Prints per size: runs, wall seconds, user+system seconds, peak resident MiB, exit status.
set -euo pipefail

if [ $# -lt 5 ] || [ $(( ($# - 3) % 2 )) -ne 0 ]; then
  sed -n '2,8p' "$0" >&2
  exit 2
fi
rdmacheck=$(realpath "$1") run_dir=$2 work=$3
shift 3
[ -f "$run_dir/results.json" ] && [ -f "$run_dir/capabilities.json" ] || {
  echo "fleet_scale: $run_dir holds no results.json and capabilities.json" >&2
  exit 2
}
mkdir -p "$work"

# The eight variants, once per WORK_DIR (all sizes link to them).
variants=$work/variants
if [ ! -f "$variants/.done" ]; then
  rm -rf "$variants.tmp"
  mkdir -p "$variants.tmp"
  python3 - "$run_dir/results.json" "$variants.tmp" <<'PY'
import json, sys
src, out = sys.argv[1], sys.argv[2]
with open(src) as f:
    results = json.load(f)
results["environment"].pop("hostname", None)
for k in range(8):
    results["device"] = results["environment"]["device"] = f"rxe{k}"
    with open(f"{out}/results-rxe{k}.json", "w") as f:
        json.dump(results, f, indent=2, ensure_ascii=False)  # as `rdmacheck run` writes it
PY
  cp "$run_dir/capabilities.json" "$variants.tmp/capabilities.json"
  touch "$variants.tmp/.done"
  rm -rf "$variants"
  mv "$variants.tmp" "$variants"
fi

printf '%-8s %-8s %-8s %-10s %-10s %s\n' nodes nics runs wall_s cpu_s peak_MiB
while [ $# -ge 2 ]; do
  nodes=$1 nics=$2
  shift 2
  fleet=$work/${nodes}x${nics}
  if [ ! -f "$fleet/.done" ]; then
    rm -rf "$fleet"
    for ((i = 0; i < nodes; i++)); do
      for ((k = 0; k < nics; k++)); do
        dir=$(printf '%s/nodes/node%05d/rxe%d' "$fleet" "$i" "$k")
        mkdir -p "$dir"
        ln "$variants/results-rxe$((k % 8)).json" "$dir/results.json"
        ln "$variants/capabilities.json" "$dir/capabilities.json"
      done
    done
    touch "$fleet/.done"
  fi
  cat "$variants"/* >/dev/null  # into the page cache
  status=0
  /usr/bin/time -v -o "$fleet/time.txt" "$rdmacheck" fleet report --out="$fleet/report" "$fleet/nodes" \
    >"$fleet/stdout.txt" 2>&1 || status=$?
  if [ "$status" -ge 2 ]; then
    cat "$fleet/stdout.txt" >&2
    exit 1
  fi
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s }' "$fleet/time.txt")
  cpu=$(awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { printf "%.1f", u + s }' "$fleet/time.txt")
  rss=$(awk -F': ' '/Maximum resident/ { printf "%.0f", $2 / 1024 }' "$fleet/time.txt")
  printf '%-8s %-8s %-8s %-10s %-10s %s   (exit %d; %s)\n' "$nodes" "$nics" $((nodes * nics)) "$wall" "$cpu" "$rss" \
    "$status" "$(head -1 "$fleet/stdout.txt")"
done
