// Traffic whose only purpose is to put completions on a CQ, for the tests of CQs,
// completion channels, extended CQs and SRQs (one place, so those suites do not each grow
// their own copy).
//
//   ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(CompletionSourceOptions(/*depth=*/8)));
//   ASSERT_OK(FillRecvCq(pair.remote(), pair.local(), 8));  // 8 receives wait on local().recv_cq()
//
// Message i (0-based) is a 64-byte SEND from `sender` into `receiver`'s buffer; its receive
// and its send both carry wr_id = first_wr_id + i. The sender may be the endpoint on the
// peer host in two-host mode; the receiver of FillRecvCq must be in this process (its CQ
// and completion channel are used directly).
#ifndef RDMACHECK_TESTING_COMPLETION_SOURCE_H_
#define RDMACHECK_TESTING_COMPLETION_SOURCE_H_

#include <infiniband/verbs.h>

#include <cstdint>

#include "absl/status/status.h"
#include "harness/connection/connected_pair.h"

namespace rdmacheck {

inline constexpr uint64_t kFirstWrId = 1;
inline constexpr uint32_t kMessageBytes = 64;

// RC pair options with queues for `depth` messages in flight and a completion channel on
// each endpoint (FillRecvCq needs one on the receiver).
PairOptions CompletionSourceOptions(uint32_t depth);

// Posts `count` receives at `receiver`, then `count` SENDs from `sender` with `send_flags`
// (the last one also with `last_flags`). Polls nothing. The queues must hold `count` WRs.
absl::Status SendMessages(Endpoint& sender, Endpoint& receiver, int count, unsigned send_flags = IBV_SEND_SIGNALED,
                          unsigned last_flags = 0, uint64_t first_wr_id = kFirstWrId);

// Sends `count` messages one at a time and returns once all `count` receive completions
// are on receiver.recv_cq(), not yet polled; the sender's send completions are polled away.
// How it knows without polling: before each message it arms receiver.recv_cq() for the
// next completion and waits for that event (IBTA Vol 1 ch. 11: the event follows the
// next completion added to an armed CQ), so message i's completion is there before
// message i+1 is sent. Needs receiver.recv_cq() on a completion channel (use_comp_channel,
// or a shared CQ made with one).
absl::Status FillRecvCq(Endpoint& sender, Endpoint& receiver, int count, uint64_t first_wr_id = kFirstWrId);

}  // namespace rdmacheck

#endif  // RDMACHECK_TESTING_COMPLETION_SOURCE_H_
