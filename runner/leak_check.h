// The leak check run after every suite: the verbs objects the suite's process holds, per
// type, as the kernel's resource tracking counts them (RDMA netlink, what `rdma resource
// show` reads; capabilities/system/rdma_netlink.h), must be back to what they were before its tests ran. A test that leaks a
// QP or an MR shows up here even when its own checks passed. Device contexts are not
// counted: librdmacm keeps the ones it opens for the life of the process.
//
// The child process of a suite takes the baseline after opening the device and compares
// after its last test; the result is one more test result of the suite,
// LeakCheck.VerbsObjectsReleased (kLeakCheckTest), failed with the types and counts that
// leaked. Where `rdma` is missing or cannot read the counts, no result is recorded.
#ifndef RDMACHECK_RUNNER_LEAK_CHECK_H_
#define RDMACHECK_RUNNER_LEAK_CHECK_H_

#include <sys/types.h>

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace rdmacheck {

inline constexpr char kLeakCheckTest[] = "LeakCheck.VerbsObjectsReleased";

// Object type ("pd", "cq", "qp", "mr", "srq", "cm_id") -> how many `pid` holds.
using ObjectCounts = std::map<std::string, int>;

// How many entries of `rdma -j resource show TYPE` output belong to `pid`.
absl::StatusOr<int> CountOwnedBy(absl::string_view rdma_json, pid_t pid);

// Every type the kernel tracks on this system (netlink, else `rdma resource show`);
// types it refuses are left out.
absl::StatusOr<ObjectCounts> CountProcessObjects(pid_t pid);

// "" when `after` holds no more of any type than `before`; else what leaked:
// "2 qp, 1 mr still held after the suite's tests (before: qp 0, mr 0)".
std::string DescribeLeak(const ObjectCounts& before, const ObjectCounts& after);

// Counts again until nothing leaked or `settle` passed (releases such as rdma_cm's can
// finish after the destroy call returns); the leak description, "" for none.
std::string CheckForLeaks(pid_t pid, const ObjectCounts& baseline, absl::Duration settle);

}  // namespace rdmacheck

#endif  // RDMACHECK_RUNNER_LEAK_CHECK_H_
