// How `run --jobs=N` divides a device's tests among supervised children that run at once.
//
// Each suite's tests are cut into shards of consecutive tests; N children take shards from
// one queue, the largest first, so the long suites start early. A test marked
// RDMACHECK_RUNS_ALONE (testing/catalogue.h) goes into an "alone" shard of its suite, and
// the alone shards run after the others, one at a time: nothing else is on the device then.
// With N = 1 there is one shard per suite, in the order of the run, as before sharding.
//
// Every shard is a child of its own (runner/supervisor.h): its own device context and
// verbs objects, its own watchdog, its own leak check (the kernel counts objects per pid).
#ifndef RDMACHECK_RUNNER_SHARDS_H_
#define RDMACHECK_RUNNER_SHARDS_H_

#include <functional>
#include <string>
#include <vector>

#include "runner/test_selection.h"

namespace rdmacheck {

struct Shard {
  std::string suite;
  int index = 0;                   // within the suite: 0, 1, ... (names its logs)
  std::vector<std::string> tests;  // GoogleTest full names, in the run's order
  bool alone = false;              // runs after the shared shards, with no other shard
};

// At least this many tests per shard: a child's start (device open, profile) is not free.
inline constexpr size_t kMinShardTests = 12;

// The shards for `jobs` children: the shared ones (largest first), then the alone ones.
// `runs_alone` says which tests need the device to themselves.
std::vector<Shard> PlanShards(const std::vector<RegisteredTest>& tests, int jobs,
                              const std::function<bool(const RegisteredTest&)>& runs_alone);

// --jobs=0: one child per CPU this process may run on, at most 8.
int DefaultJobs();

}  // namespace rdmacheck

#endif  // RDMACHECK_RUNNER_SHARDS_H_
