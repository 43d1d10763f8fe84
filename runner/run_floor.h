// The floor of a run: what a device of its transport must be able to run at all. Without
// it, a device whose every traffic test skipped (a probe that called everything absent, a
// pair that never connected) would end green with nothing tested.
//
// Every transport rdmacheck runs on (InfiniBand, RoCE, iWARP) carries RC SEND, RDMA WRITE
// and RDMA READ (IBTA Vol 1 9.4 and Table 38 for RC; RFC 5040 and RFC 5041 for iWARP).
// Where the run selected the basic test of such an operation, at least one instance of it
// must reach a verdict (pass, fail, xfail, xpass); a skip or blocked of every instance
// fails the floor. And every suite the run selected must come back with results. A device
// of any other transport fails RunFloor.Transport: there is no floor to hold it to.
#ifndef RDMACHECK_RUNNER_RUN_FLOOR_H_
#define RDMACHECK_RUNNER_RUN_FLOOR_H_

#include <infiniband/verbs.h>

#include <vector>

#include "results/results.h"
#include "runner/test_selection.h"

namespace rdmacheck {

inline constexpr char kRunFloorSuite[] = "run";

// One result per floor item the selection concerns, "RunFloor.<item>" in suite "run":
// pass when it ran, fail with one line saying why when it did not.
std::vector<TestResult> RunFloorResults(const std::vector<RegisteredTest>& selected,
                                        const std::vector<TestResult>& results, ibv_transport_type transport);

}  // namespace rdmacheck

#endif  // RDMACHECK_RUNNER_RUN_FLOOR_H_
