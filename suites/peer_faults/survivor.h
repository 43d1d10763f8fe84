// What the survivor of a connection whose other end went away (its process killed, its QP
// destroyed, its memory deregistered) must see of the work it had outstanding.
//
//   const RetryBound retry = RetryBoundOf(survivor, IsIwarp());
//   absl::StatusOr<std::vector<ibv_wc>> wcs = survivor.PollSends(n, DefaultWait() + Scaled(retry.bound));
//   OrderedFailure expected;
//   expected.may_succeed = 8;  // posted before the fault
//   expected.first_error = {IBV_WC_RETRY_EXC_ERR, IBV_WC_WR_FLUSH_ERR};
//   const size_t first_error = ExpectOrderedFailure(*wcs, expected);
//
// Every work request completes exactly once and in posting order (IBTA Vol 1 10.8.3): a
// run of successes, then one error that names the fault, then flushes, since that error
// moved the QP to the Error state (IBTA 10.3.1, 11.6.2).
#ifndef RDMACHECK_SUITES_PEER_FAULTS_SURVIVOR_H_
#define RDMACHECK_SUITES_PEER_FAULTS_SURVIVOR_H_

#include <infiniband/verbs.h>

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "harness/connection/local_endpoint.h"

namespace rdmacheck {

// How long the survivor's retries may take to run out: (retry_cnt + 1) tries of the local
// ACK timeout, 4.096 us x 2^timeout (IBTA Vol 1 9.7.6.1.1), as the QP reports them. iWARP
// has no such attributes: TCP tells the survivor at once that the connection is gone.
struct RetryBound {
  absl::Duration bound = absl::ZeroDuration();
  std::string text = "the connection's close (iWARP: no ACK timeout of its own)";
};
RetryBound RetryBoundOf(const LocalEndpoint& survivor, bool iwarp);

// A wait for `side`'s completions that ran out: its message and the state the endpoint's QP
// reads ("waiting for completions: 3 of 16 arrived; the survivor's QP reads ERR").
std::string NotAllCompleted(const absl::Status& polled, const Endpoint& endpoint, absl::string_view side);

struct OrderedFailure {
  uint64_t first_wr_id = 0;  // the WRs carry first_wr_id, first_wr_id + 1, ... in posting order
  size_t may_succeed = 0;    // only the first `may_succeed` WRs may complete successfully
  std::set<ibv_wc_status> first_error;  // the statuses the first error may have
  std::string late_success;  // the failure message for a success past `may_succeed`
};
// Over iWARP the WR a requester is transmitting when its stream closes under it (the peer's
// QP destroyed, a TERMINATE) may be aborted rather than flushed: siw completes it with
// IBV_WC_LOC_QP_OP_ERR (siw_qp_sq_process() in 6.1, after its reading of the RDMAC verbs
// 8.3.2: a local catastrophic error is surfaced). Adds that status to `first_error` there.
void AllowAbortInTransmission(OrderedFailure& expected, bool iwarp);

// Checks `wcs` (EXPECT_*: each WR named with its completion) and returns the index of the
// first error, or wcs.size() when every WR succeeded.
size_t ExpectOrderedFailure(absl::Span<const ibv_wc> wcs, const OrderedFailure& expected);

}  // namespace rdmacheck

#endif  // RDMACHECK_SUITES_PEER_FAULTS_SURVIVOR_H_
