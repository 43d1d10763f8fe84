// Runs one call in a forked child process, for calls that may kill their caller: a
// provider that divides by zero (libsiw's ibv_post_recv on a QP attached to an SRQ) must
// show up as that test's failure ("killed by signal 8 (FPE)"), not as a crashed suite.
//
//   absl::StatusOr<int64_t> rc = CallInChild([&] { return ibv_post_recv(qp, &wr, &bad); });
//   ASSERT_OK(rc) << "ibv_post_recv must return, not kill the caller";
//
// The child shares the parent's verbs objects (their memory is mapped shared, their file
// descriptors inherited); what the call changes in ordinary memory stays in the child, so
// return what the test needs to know as the value.
#ifndef RDMACHECK_TESTING_IN_CHILD_H_
#define RDMACHECK_TESTING_IN_CHILD_H_

#include <cstdint>
#include <functional>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace rdmacheck {

// `fn`'s value, or ABORTED "killed by signal N (NAME)" / DEADLINE_EXCEEDED when the child
// did not return within `timeout` (it is then killed; one that outlives SIGKILL, stuck in
// the driver, is named as such: harness/reap.h).
absl::StatusOr<int64_t> CallInChild(const std::function<int64_t()>& fn, absl::Duration timeout);

}  // namespace rdmacheck

#endif  // RDMACHECK_TESTING_IN_CHILD_H_
