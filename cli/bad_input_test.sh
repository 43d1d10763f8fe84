#!/usr/bin/env bash
# Bad input to every command gets one line on stderr, "rdmacheck: <what is wrong>", nothing
# on stdout and exit 2 (DEVELOPERS.md: unknown device, no device, bad flags, unreadable
# files, a capture with nothing to check). CTest cli.bad_input (label unit) on the host; in
# the lab (device.cli.bad_input) the device cases meet real devices: an unknown device
# must be named as unknown, not run against another.
#   bad_input_test.sh RDMACHECK SOURCE_DIR SCRATCH_DIR
set -uo pipefail
bin=$1 src=$2 scratch=$3
failures=0
rm -rf "$scratch" && mkdir -p "$scratch/run" && cd "$scratch" || exit 1
: >empty.pcap
echo '{not json' >run/results.json
echo '{"nic": {"count": 8}}' >typo-profile.json
echo '{"active_mtu": "4096"}' >mtu-profile.json

# expect_usage_error PATTERN ARGS...: exit 2, no stdout, one stderr line matching PATTERN.
expect_usage_error() {
  local pattern=$1
  shift
  "$bin" "$@" >out.txt 2>err.txt
  local rc=$?
  local why=""
  [ "$rc" -eq 2 ] || why="exit $rc"
  [ -s out.txt ] && why="$why; wrote to stdout"
  [ "$(wc -l <err.txt)" -eq 1 ] || why="$why; $(wc -l <err.txt) stderr lines"
  grep -Eq "^rdmacheck: ($pattern)" err.txt || why="$why; message: $(head -n 1 err.txt)"
  if [ -n "$why" ]; then
    echo "FAIL rdmacheck $*: ${why#; }"
    failures=$((failures + 1))
  else
    echo "ok   rdmacheck $*: $(cat err.txt)"
  fi
}

expect_usage_error "unknown command 'frobnicate'" frobnicate
expect_usage_error "unknown flag --bogus" run --bogus
expect_usage_error "flag --out needs a value" report --out
expect_usage_error "--timeout_multiplier must be > 0" run --timeout_multiplier=-1
expect_usage_error "--jobs=abc" run --jobs=abc
expect_usage_error "--floor must be on or off, got 'maybe'" run --floor=maybe
expect_usage_error "--format must be" probe --format=xml
expect_usage_error "--format must be" list --format=xml
expect_usage_error "--iters must be at least 1" bench --iters=-3
expect_usage_error "report needs one or more run directories" report
expect_usage_error "cannot read .*/nonexistent/results.json" report "$scratch/nonexistent"
expect_usage_error "run/results.json: not valid JSON" report run
expect_usage_error "run/results.json: not valid JSON" fleet report run
expect_usage_error "cannot read /nonexistent/gpu-a.json" health --profile=/nonexistent/gpu-a.json
expect_usage_error "typo-profile.json: unknown field 'nic'" fleet report --profile=typo-profile.json run
expect_usage_error "mtu-profile.json: active_mtu must be 256, 512, 1024, 2048 or 4096" fleet report --profile=mtu-profile.json run
expect_usage_error ".*README.md: not valid JSON" fleet report --profile="$src/README.md" run
expect_usage_error "fleet profile needs --learn" fleet profile run
expect_usage_error "fleet profile --learn needs one or more directories" fleet profile --learn
expect_usage_error "run/results.json: not valid JSON" fleet profile --learn run
expect_usage_error "cannot read /nonexistent.pcap" wire check /nonexistent.pcap
expect_usage_error "tshark could not read" wire check "$src/README.md"
expect_usage_error "no RDMA packets in empty.pcap" wire check empty.pcap
expect_usage_error "no RDMA packets in .*tcp_ssh_no_rdma.pcap" wire check "$src/unit/testdata/wire/real/tcp_ssh_no_rdma.pcap"
expect_usage_error "--path_mtu=12" wire check --path_mtu=12 empty.pcap
expect_usage_error "wire watch: 'rxe,52:54' is not NAME,MAC_A" wire watch rxe,52:54
expect_usage_error "not a MAC address: '52:54:00:88:01'" wire watch rxe,52:54:00:88:01,a.pcap,52:54:00:88:01:02,b.pcap
expect_usage_error "--stall_after must be a positive" wire watch --stall_after=0 rxe,52:54:00:88:01:01,a.pcap,52:54:00:88:01:02,b.pcap
expect_usage_error ".*README.md: not a pcap file" wire watch "rxe,52:54:00:88:01:01,$src/README.md,52:54:00:88:01:02,b.pcap"
expect_usage_error "--steps=0: must be 1..1000000" walk --steps=0
expect_usage_error "--weights: unknown category 'frob'" walk --weights=frob=1
expect_usage_error "cannot read /nonexistent/walk.json" walk --replay=/nonexistent/walk.json
expect_usage_error ".*README.md: not a walk.json" walk --replay="$src/README.md"

if ls /sys/class/infiniband/* >/dev/null 2>&1; then
  dev=$(ls /sys/class/infiniband | head -n 1)
  expect_usage_error "unknown device 'nosuch0'" run --device=nosuch0
  expect_usage_error "unknown device 'nosuch0'" probe --device=nosuch0
  expect_usage_error "--suites: unknown suite 'nosuch'" run --device="$dev" --suites=nosuch
  expect_usage_error "--jobs must be >= 0" run --device="$dev" --jobs=-1
  expect_usage_error ".*/nonexistent.json" run --device="$dev" --expectations=/nonexistent.json
  expect_usage_error ".*/nonexistent.json" run --device="$dev" --capabilities=/nonexistent.json
else
  expect_usage_error "no RDMA device found" run
  expect_usage_error "no RDMA device found" run --device=nosuch0
fi

"$bin" --version >out.txt 2>&1 && grep -Eq '^rdmacheck [0-9]+\.[0-9]+\.[0-9]+$' out.txt ||
  { echo "FAIL rdmacheck --version: $(head -c 200 out.txt)"; failures=$((failures + 1)); }

echo "bad_input_test: $failures failure(s)"
[ "$failures" -eq 0 ]
