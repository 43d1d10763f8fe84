// What a requester is told of a responder's refusal. The responder NAKs the request (Remote
// Access, Invalid Request, Remote Operational Error) and enters Error; on an impaired wire
// that NAK may be lost, the requester then retries against a responder that drops every
// retry, and the WR ends in IBV_WC_RETRY_EXC_ERR when the count runs out (IBTA Vol 1
// 9.7.6.1; harness/wire_impairment.h DefaultRetryCnt keeps the count finite). That outcome
// is legal only where the wire loses packets:
//
//   EXPECT_THAT(wc, CompletionIs(ErrorCompletion(4, qpn, RefusalAsTold(wc, IBV_WC_REM_ACCESS_ERR))));
//   EXPECT_TRUE(RefusalsAsTold({IBV_WC_REM_OP_ERR}).count(wc.status));
#ifndef RDMACHECK_TESTING_REFUSAL_STATUS_H_
#define RDMACHECK_TESTING_REFUSAL_STATUS_H_

#include <infiniband/verbs.h>

#include <set>

namespace rdmacheck {

// `nak`, or IBV_WC_RETRY_EXC_ERR where `told` says so and the wire is impaired.
ibv_wc_status RefusalAsTold(const ibv_wc& told, ibv_wc_status nak);

// `naks`, with IBV_WC_RETRY_EXC_ERR added where the wire is impaired.
std::set<ibv_wc_status> RefusalsAsTold(std::set<ibv_wc_status> naks);

}  // namespace rdmacheck

#endif  // RDMACHECK_TESTING_REFUSAL_STATUS_H_
