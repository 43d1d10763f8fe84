// Waiting for work completions without ever hanging.
//
// PollCompletions() polls until `count` completions arrived or the deadline passed; a
// timeout is an error that says how many of how many arrived, so a test fails with a
// clear message instead of blocking CI.
#ifndef RDMACHECK_HARNESS_COMPLETION_H_
#define RDMACHECK_HARNESS_COMPLETION_H_

#include <infiniband/verbs.h>

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "harness/timeouts.h"

namespace rdmacheck {

absl::StatusOr<std::vector<ibv_wc>> PollCompletions(ibv_cq* cq, int count,
                                                    absl::Duration timeout = DefaultWait());
absl::StatusOr<ibv_wc> PollCompletion(ibv_cq* cq, absl::Duration timeout = DefaultWait());

// Waits `quiet` and returns what arrived meanwhile (to show that nothing did).
std::vector<ibv_wc> DrainCompletions(ibv_cq* cq, absl::Duration quiet);

// Waits for one event on `channel` (after ibv_req_notify_cq), bounded; the event is
// acknowledged before returning, and its CQ is returned.
absl::StatusOr<ibv_cq*> WaitCqEvent(ibv_comp_channel* channel, absl::Duration timeout = DefaultWait());

// Waits for one async event of the context, bounded; acknowledged before returning.
absl::StatusOr<ibv_async_event> WaitAsyncEvent(ibv_context* context,
                                               absl::Duration timeout = DefaultWait());

// Successful completions of work that crossed the wire (send, receive, RDMA, atomics; not
// MW binds or local invalidates) that the functions above returned in this process. The
// runner takes it before and after each test: a test that moved data must have left a
// trace in the device's counters (runner/counters.h).
uint64_t WireCompletions();

// "IBV_WC_SUCCESS", "IBV_WC_REM_ACCESS_ERR", ... and "IBV_WC_SEND", ...
std::string WcStatusName(ibv_wc_status status);
std::string WcOpcodeName(ibv_wc_opcode opcode);
std::string DescribeWc(const ibv_wc& wc);  // one line with every field a test checks

}  // namespace rdmacheck

#endif  // RDMACHECK_HARNESS_COMPLETION_H_
