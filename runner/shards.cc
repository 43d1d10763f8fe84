#include "runner/shards.h"

#include <sched.h>

#include <algorithm>

namespace rdmacheck {

std::vector<Shard> PlanShards(const std::vector<RegisteredTest>& tests, int jobs,
                              const std::function<bool(const RegisteredTest&)>& runs_alone) {
  std::vector<Shard> shared, alone;
  const std::vector<std::string> suites = SuitesOf(tests);
  if (jobs <= 1) {  // one child per suite, in order: nothing runs beside anything
    for (const std::string& suite : suites) {
      Shard& shard = shared.emplace_back();
      shard.suite = suite;
      for (const RegisteredTest& t : tests) {
        if (t.suite == suite) shard.tests.push_back(t.name);
      }
    }
    return shared;
  }

  size_t shared_total = 0;
  for (const RegisteredTest& t : tests) shared_total += runs_alone(t) ? 0 : 1;
  // About three shards per child: the queue evens out suites whose tests take longer.
  const size_t target = static_cast<size_t>(jobs) * 3;
  const size_t per_shard = std::max(kMinShardTests, (shared_total + target - 1) / target);

  for (const std::string& suite : suites) {
    std::vector<std::string> mine, solo;
    for (const RegisteredTest& t : tests) {
      if (t.suite == suite) (runs_alone(t) ? solo : mine).push_back(t.name);
    }
    const size_t count = (mine.size() + per_shard - 1) / per_shard;
    for (size_t i = 0; i < count; ++i) {  // near-equal cuts of consecutive tests
      Shard& shard = shared.emplace_back();
      shard.suite = suite;
      shard.index = static_cast<int>(i);
      shard.tests.assign(mine.begin() + i * mine.size() / count, mine.begin() + (i + 1) * mine.size() / count);
    }
    if (!solo.empty()) alone.push_back({suite, static_cast<int>(count), std::move(solo), true});
  }
  std::stable_sort(shared.begin(), shared.end(),
                   [](const Shard& a, const Shard& b) { return a.tests.size() > b.tests.size(); });
  shared.insert(shared.end(), alone.begin(), alone.end());
  return shared;
}

int DefaultJobs() {
  cpu_set_t set;
  CPU_ZERO(&set);
  const int cpus = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 1;
  return std::clamp(cpus, 1, 8);
}

}  // namespace rdmacheck
