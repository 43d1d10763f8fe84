// What a requester is told of a responder's refusal. The responder NAKs the request (Remote
// Access, Invalid Request, Remote Operational Error) and enters Error; on an impaired wire
// that NAK may be lost, the requester then retries against a responder that drops every
// retry, and the WR ends in IBV_WC_RETRY_EXC_ERR when the count runs out (IBTA Vol 1
// 9.7.6.1). That outcome is legal only where the wire loses packets. A test that provokes
// a refusal connects with kRefusedRetryCnt, a count that runs out on every device:
//
//   options.path.retry_cnt = kRefusedRetryCnt;
//   EXPECT_THAT(wc, CompletionIs(ErrorCompletion(4, qpn, RefusalAsTold(wc, IBV_WC_REM_ACCESS_ERR))));
//   EXPECT_TRUE(RefusalsAsTold({IBV_WC_REM_OP_ERR}).count(wc.status));
#ifndef RDMACHECK_TESTING_REFUSAL_STATUS_H_
#define RDMACHECK_TESTING_REFUSAL_STATUS_H_

#include <infiniband/verbs.h>

#include <cstdint>
#include <set>

namespace rdmacheck {

// 6: rxe takes a retry_cnt of 7 for "retry forever" (rxe.json), which turns a lost NAK into
// a hung test. Not every connection's count: rxe also counts each sequence-error NAK against
// it, progress or not (impair/README.md), so long transfers keep the harness's 7.
inline constexpr uint8_t kRefusedRetryCnt = 6;

// `nak`, or IBV_WC_RETRY_EXC_ERR where `told` says so and the wire is impaired.
ibv_wc_status RefusalAsTold(const ibv_wc& told, ibv_wc_status nak);

// `naks`, with IBV_WC_RETRY_EXC_ERR added where the wire is impaired.
std::set<ibv_wc_status> RefusalsAsTold(std::set<ibv_wc_status> naks);

}  // namespace rdmacheck

#endif  // RDMACHECK_TESTING_REFUSAL_STATUS_H_
