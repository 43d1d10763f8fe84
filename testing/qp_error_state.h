// After an error completion, the QP that reported it is in the Error state.
//
//   ASSERT_OK_AND_ASSIGN(ibv_wc wc, pair.local().PollSend());
//   EXPECT_THAT(wc, CompletionIs(ErrorCompletion(...)));
//   ExpectErrorStateAfter(pair.local(), wc, "requester");
//
// IBTA Vol 1 10.3.1 (a completion error moves the QP to the Error state; a QP in Error
// flushes what is outstanding) and 11.6.2; ibv_query_qp(3) reads the state back. A device
// whose completion says "error" while its QP still reads RTS lets a consumer post on into a
// queue that only flushes.
#ifndef RDMACHECK_TESTING_QP_ERROR_STATE_H_
#define RDMACHECK_TESTING_QP_ERROR_STATE_H_

#include <infiniband/verbs.h>

#include "absl/strings/string_view.h"
#include "harness/connection/endpoint.h"

namespace rdmacheck {

// Nothing to check when `wc` succeeded (it says nothing about the state). Otherwise the
// endpoint's QP (here or on the peer host) must read back IBV_QPS_ERR, polled for up to
// LocalEventWait() (a driver may post the completion a moment before it moves the QP);
// a failure names `side`, the state read and the completion.
//
// Where the probe found that ibv_query_qp does not report states (qp_state_query broken:
// siw before 6.12 reads every QP back as RESET), a RESET read back is no evidence either
// way. That failure is reported once, by BrokenCapability.qp_state_query; here the test
// notes that the state could not be read (Observe) and goes on, so that what the test
// itself names (the refusal, the status, the memory) is still graded on such a device
// instead of drowning in the same query failure. Any other state but ERR still fails.
void ExpectErrorStateAfter(const Endpoint& endpoint, const ibv_wc& wc, absl::string_view side);

}  // namespace rdmacheck

#endif  // RDMACHECK_TESTING_QP_ERROR_STATE_H_
