#!/usr/bin/env bash
# Two-host mode on one host: starts `rdmacheck serve` in the background and runs every
# suite against it with `rdmacheck run --peer`, so every pair's remote endpoint lives in
# the other process (the side channel, the proxy endpoints and the serving side all run
# for real); `run` prints per suite how many tests ran with the peer and how many are
# loopback only. With --bench it runs `rdmacheck bench --peer` instead (the echo side
# of each point in the serve process). On two hosts, run the two commands below on each
# host instead.
#
#   scripts/two-host.sh [--bench] DEVICE [OUT_DIR]
#
# Env: RDMACHECK_BIN (default build/rdmacheck), SUITES (default: all),
#      TIMEOUT_MULTIPLIER (default 1, both processes), RUN_FLAGS (extra flags for `run`,
#      e.g. --gtest_filter=...), BENCH_FLAGS (extra flags for `bench`, e.g. --sizes=64).
# Exits with run's (bench's) status (2 if the server did not come up).
set -uo pipefail
{
bench=0
if [ "${1:-}" = --bench ]; then bench=1; shift; fi
dev=${1:?usage: scripts/two-host.sh [--bench] DEVICE [OUT_DIR]}
out=${2:-out/two-host/$dev}
bin=${RDMACHECK_BIN:-build/rdmacheck}
suites=${SUITES:-}
mkdir -p "$out"
log=$out/serve.log

scale=--timeout_multiplier=${TIMEOUT_MULTIPLIER:-1}
"$bin" serve --device="$dev" --listen=0 "$scale" >"$log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null' EXIT
port=''
for _ in $(seq 1 100); do # the first line names the port; wait up to 10 s for it
  port=$(sed -n 's/.*side channel on TCP port \([0-9]*\).*/\1/p' "$log")
  [ -n "$port" ] && break
  kill -0 "$server" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$port" ]; then
  echo "two-host: rdmacheck serve did not start:" >&2
  cat "$log" >&2
  exit 2
fi
echo "two-host: serve on port $port (pid $server), log $log" >&2
if [ $bench = 1 ]; then
  # shellcheck disable=SC2086  # BENCH_FLAGS is a list of flags
  "$bin" bench --device="$dev" --peer="127.0.0.1:$port" --out="$out/bench.json" "$scale" ${BENCH_FLAGS:-}
  exit $?
fi
# shellcheck disable=SC2086  # RUN_FLAGS is a list of flags
"$bin" run --device="$dev" --peer="127.0.0.1:$port" ${suites:+--suites="$suites"} --out="$out" --strict "$scale" ${RUN_FLAGS:-}
exit $?
}
