// The floor of a run: what a device of its transport must be able to run at all. Without
// it, a device whose every traffic test skipped (a probe that called everything absent, a
// pair that never connected) would end green with nothing tested.
//
// Every transport rdmacheck runs on (InfiniBand, RoCE, iWARP) carries RC SEND, RDMA WRITE
// and RDMA READ (IBTA Vol 1 9.4 and Table 38 for RC; RFC 5040 and RFC 5041 for iWARP).
// Every run holds the basic test of each: where the selection (--suites, --gtest_filter)
// has no instance of one, SelectFloor adds its minimal instances (the 1-byte message, every
// way of connecting; `health` runs the same, FloorInstancesFilter). At least one instance
// of each must reach a verdict (pass, fail, xfail, xpass); a skip or blocked of every
// instance fails the floor. And every suite the run selected must come back with results.
// A device of any other transport fails RunFloor.Transport: there is no floor to hold it to.
//
// A caller that knowingly runs a slice (the mutation driver: one test per mutant) passes
// `run --floor=off`: nothing is added, and the run records RunFloor.Selection failing
// ("the floor was not run"), so it never exits 0.
#ifndef RDMACHECK_RUNNER_RUN_FLOOR_H_
#define RDMACHECK_RUNNER_RUN_FLOOR_H_

#include <infiniband/verbs.h>

#include <optional>
#include <string>
#include <vector>

#include "results/results.h"
#include "runner/test_selection.h"

namespace rdmacheck {

inline constexpr char kRunFloorSuite[] = "run";

// The floor's minimal instances as a --gtest_filter: what SelectFloor adds, and what
// `health` runs.
std::string FloorInstancesFilter();

enum class FloorMode { kOn, kOff };  // run --floor=on (default) | off

struct FloorSelection {
  std::vector<RegisteredTest> tests;  // the selection, then what was added (registration order)
  // One line for stderr and results.json's environment.floor: what was added and why,
  // "off (--floor=off): ...", or "in the selection".
  std::string note;
  bool added = false;                 // floor instances were added to the selection
  std::optional<TestResult> failure;  // RunFloor.Selection: the floor cannot be (or is not) run
};

// `selected` with the floor made sure of: for each floor item of which it holds no instance,
// that item's minimal instances from `all` (kOn). With kOff, or where `all` has no instance
// of an item (a binary without the suites: rdmacheck_selftest), nothing is added and
// `failure` says why. A transport without a floor adds nothing (RunFloorResults fails it).
FloorSelection SelectFloor(const std::vector<RegisteredTest>& all, std::vector<RegisteredTest> selected,
                           ibv_transport_type transport, FloorMode mode);

// One result per floor item the selection concerns, "RunFloor.<item>" in suite "run":
// pass when it ran, fail with one line saying why when it did not. `selected`: the tests
// that ran (a test a dead peer kept from running fails no floor item).
std::vector<TestResult> RunFloorResults(const std::vector<RegisteredTest>& selected,
                                        const std::vector<TestResult>& results, ibv_transport_type transport);

}  // namespace rdmacheck

#endif  // RDMACHECK_RUNNER_RUN_FLOOR_H_
