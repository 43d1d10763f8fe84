#include "runner/shard_pool.h"

#include <algorithm>
#include <mutex>
#include <thread>

#include "absl/strings/str_cat.h"

namespace rdmacheck {
namespace {

// Runs shards[first, last) on `jobs` threads, each taking the next shard when its child ends.
void RunQueue(const std::vector<Shard>& shards, size_t first, size_t last, int jobs, const ChildOptions& options,
              const ShardCallbacks& callbacks, std::mutex& lock) {
  size_t next = first;
  auto worker = [&] {
    while (true) {
      const Shard* shard = nullptr;
      {
        std::lock_guard<std::mutex> hold(lock);
        if (next == last || RunStopping(options)) return;  // all taken, or the peer is gone
        shard = &shards[next++];
        if (callbacks.on_start) callbacks.on_start(*shard);
      }
      SuitePlan plan{shard->suite, shard->tests,
                     shard->index == 0 && !shard->alone ? "" : absl::StrCat(shard->suite, ".", shard->index)};
      SuiteOutcome outcome = RunSuite(plan, options);
      std::lock_guard<std::mutex> hold(lock);
      if (callbacks.on_done) callbacks.on_done(*shard, std::move(outcome));
    }
  };
  const int threads = std::max(1, std::min<int>(jobs, static_cast<int>(last - first)));
  std::vector<std::thread> pool;
  for (int i = 1; i < threads; ++i) pool.emplace_back(worker);
  worker();  // this thread is one of them
  for (std::thread& t : pool) t.join();
}

}  // namespace

void RunShards(const std::vector<Shard>& shards, int jobs, const ChildOptions& options,
               const ShardCallbacks& callbacks) {
  const size_t shared = std::find_if(shards.begin(), shards.end(), [](const Shard& s) { return s.alone; }) - shards.begin();
  std::mutex lock;
  RunQueue(shards, 0, shared, jobs, options, callbacks, lock);
  RunQueue(shards, shared, shards.size(), 1, options, callbacks, lock);
}

}  // namespace rdmacheck
