#!/usr/bin/env bash
# rdmacheck's test command (the README's, and CI's through .ci/run):
#   1. installs what is missing (scripts/install-deps.sh),
#   2. builds (build/),
#   3. runs the host unit tests (CTest label `unit`: harness logic, reports, browser test),
#      and the lab boot tests (label `lab-boot`: a guest kernel panic, on purpose),
#   4. boots the VM lab and runs the device tests on rxe0 and siw0 there (CTest label `device`;
#      also setup-softrdma.sh's test and the container image, built from an offline base),
#   5. runs the mutation suite in the lab (CTest label `mutation`: every mutant of
#      selftest/mutants/ against the tests that concern it, on rxe0 and siw0), then, in a
#      lab of its own, `rdma link delete` of rxe0 and siw0 under traffic (label `teardown`),
#   6. runs the main job again on Debian's backports kernel (CTest label `backports`),
#   7. runs the two-node wire lab: rxe and siw across captured virtual wires (label `wire`),
#   8. runs the Slurm lab: the fleet job through sbatch on two lab nodes, healthy and with
#      one node broken (label `slurm`: the report's outlier, Slurm's drain reason),
#   9. runs the main job in Debian sid's image (label `image`, test `lab.image-sid`): sid's own
#      kernel and rdma-core, rdmacheck built there into the project's .deb (docs/images.md;
#      the image is cached under RDMACHECK_CACHE by content, a cold one is made here).
# Both CTest summaries are printed; the exit status is non-zero if either had a failure.
set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
start=$SECONDS
step() { echo "test.sh: $* ($((SECONDS - start)) s)" >&2; }

step "installing dependencies"
scripts/install-deps.sh || exit 2
step "building"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null || exit 2
cmake --build build -j2 || exit 2

step "unit tests (host)"
ctest --test-dir build -L unit --output-on-failure --timeout 600
unit=$?

step "lab boot tests (host: a guest kernel panic loses no result)"
ctest --test-dir build -L lab-boot --output-on-failure
labboot=$?

step "offline base of the container image (for device.container; cached)"
containers/make-base-rootfs.sh >/dev/null || echo "test.sh: no container base: device.container will be skipped" >&2

step "device tests (VM lab: rxe0, siw0)"
rm -rf out/ctest
scripts/lab.sh -- ctest --test-dir build -L device -j2 --output-on-failure
device=$?

step "mutation suite (VM lab: each mutant must make its tests fail; -V shows killed / acted / total per device)"
scripts/lab.sh -- ctest --test-dir build -L mutation -V
mutation=$?

step "teardown (VM lab: rdma link delete of rxe0 and siw0 under traffic, their modules unloaded held and idle, then added again)"
scripts/lab.sh -- ctest --test-dir build -L teardown --output-on-failure
teardown=$?

step "backports kernel (VM lab: the main job on Debian's newest backports kernel)"
ctest --test-dir build -L backports --output-on-failure
backports=$?

step "wire lab (two VMs: rdmacheck serve on node A, run --peer on node B, the wires captured)"
ctest --test-dir build -L wire --output-on-failure
wire=$?

step "Slurm lab (two VMs: the fleet job through sbatch; node-b broken, reported and drained)"
ctest --test-dir build -L slurm --output-on-failure
slurm=$?

step "Debian sid image (VM lab: the main job on sid's kernel and rdma-core, rdmacheck from its .deb)"
ctest --test-dir build -L image --output-on-failure
image=$?

step "done: unit tests exit $unit, lab boot tests exit $labboot, device tests exit $device, mutation suite exit $mutation, teardown exit $teardown, backports kernel exit $backports, wire lab exit $wire, Slurm lab exit $slurm, sid image exit $image"
[ "$unit" -eq 0 ] && [ "$labboot" -eq 0 ] && [ "$device" -eq 0 ] && [ "$mutation" -eq 0 ] && [ "$teardown" -eq 0 ] && [ "$backports" -eq 0 ] && [ "$wire" -eq 0 ] &&
  [ "$slurm" -eq 0 ] && [ "$image" -eq 0 ]
