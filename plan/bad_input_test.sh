#!/usr/bin/env bash
# Bad input to `rdmacheck plan`: one line on stderr, nothing on stdout, exit 2.
#   bad_input_test.sh RDMACHECK
set -uo pipefail
bin=$1
failures=0
scratch=$(mktemp -d) && trap 'rm -rf "$scratch"' EXIT
echo '{not json' >"$scratch/results.json"
expect_usage_error() {
  local pattern=$1
  shift
  "$bin" "$@" >"$scratch/out" 2>"$scratch/err"
  local rc=$? why=""
  [ "$rc" -eq 2 ] || why="exit $rc"
  [ -s "$scratch/out" ] && why="$why; wrote to stdout"
  [ "$(wc -l <"$scratch/err")" -eq 1 ] || why="$why; $(wc -l <"$scratch/err") stderr lines"
  grep -Eq "^rdmacheck: ($pattern)" "$scratch/err" || why="$why; message: $(head -n 1 "$scratch/err")"
  if [ -n "$why" ]; then echo "FAIL rdmacheck $*: ${why#; }"; failures=$((failures + 1)); else echo "ok   rdmacheck $*: $(cat "$scratch/err")"; fi
}
expect_usage_error "unknown flag --bogus" plan --bogus
expect_usage_error "--format must be" plan --format=xml
expect_usage_error "plan takes no arguments" plan extra
expect_usage_error "cannot read man page directory /nonexistent" plan --manpages=/nonexistent
expect_usage_error "no ibv_\*.3 or rdma_\*.3 man pages in /" plan --manpages=/
expect_usage_error "cannot read /nonexistent: no results.json" plan --run=/nonexistent
expect_usage_error ".*/results.json: not valid JSON" plan --run="$scratch"
exit $((failures > 0))
