// Runs the shards of a run (runner/shards.h): `jobs` threads, each supervising one child at
// a time (runner/supervisor.h), take the shared shards from one queue; then the alone
// shards run one by one, with nothing beside them. Once options.peer_watch found the peer
// gone, no shard starts any more (runner/peer_watch.h).
#ifndef RDMACHECK_RUNNER_SHARD_POOL_H_
#define RDMACHECK_RUNNER_SHARD_POOL_H_

#include <functional>
#include <vector>

#include "runner/shards.h"
#include "runner/supervisor.h"

namespace rdmacheck {

struct ShardCallbacks {
  std::function<void(const Shard&)> on_start;             // before its child starts
  std::function<void(const Shard&, SuiteOutcome)> on_done;  // after its last test
};

// The callbacks are called one at a time (under a lock), from the pool's threads;
// options.on_result is called from them too, as the supervisor calls it, and must be
// safe to call from several threads.
void RunShards(const std::vector<Shard>& shards, int jobs, const ChildOptions& options,
               const ShardCallbacks& callbacks);

}  // namespace rdmacheck

#endif  // RDMACHECK_RUNNER_SHARD_POOL_H_
