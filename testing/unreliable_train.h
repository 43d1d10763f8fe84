// A train of UC messages, judged by what the unreliable connected service promises (IBTA
// Vol 1 9.8.3, 9.8.4: the responder drops a message with a missing packet and goes on with
// the next First or Only): a message may be lost, but one that completes at the receiver
// arrived whole, with its own bytes, once, and in the order sent. On a lossless wire UC
// delivers like RC, so there every message must arrive too; on a wire impaired on purpose
// (harness/wire_impairment.h) losses are legal and only counted, and on one that reorders or
// duplicates packets (WireMayReorder) a message may arrive after a later one, or twice: the
// responder takes any First or Only packet as a new message. Whole and its own still hold.
//
//   ASSERT_OK_AND_ASSIGN(TrainOutcome got, RunUcTrain(pair, UcTrain{TrainOp::kSend, bytes}));
//   EXPECT_THAT(got.violations, IsEmpty());
//   EXPECT_TRUE(got.AllArrivedUnlessImpaired()) << got;
//
// Message i is `bytes` of Pattern::Seeded(seed + i) from offset i * bytes of the sender's
// buffer; receives and WRITE targets use the same layout at the receiver, so the pair's
// buffers need count * bytes (TrainBufferFor).
#ifndef RDMACHECK_TESTING_UNRELIABLE_TRAIN_H_
#define RDMACHECK_TESTING_UNRELIABLE_TRAIN_H_

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/connection/connected_pair.h"

namespace rdmacheck {

enum class TrainOp {
  kSend,          // each message consumes the next posted receive (a lost one consumes none)
  kWriteWithImm,  // each WRITE lands in its own region and completes a receive with imm = i
};

struct UcTrain {
  TrainOp op = TrainOp::kSend;
  uint32_t bytes = 0;
  int count = 8;
  uint32_t seed = 1;
};

size_t TrainBufferFor(const UcTrain& train);

struct TrainOutcome {
  int sent = 0;
  std::vector<int> delivered;           // the messages that completed at the receiver, in order
  std::vector<std::string> violations;  // what UC never allows: partial, foreign, repeated, reordered
  bool AllArrivedUnlessImpaired() const;
};
// "5 of 8 delivered (messages 0 1 2 4 7; wire impaired: loss-1)".
std::ostream& operator<<(std::ostream& out, const TrainOutcome& outcome);

// Posts the train (and its receives), waits for every send completion (UC completes a
// message when it is sent), then for the receiver: every message on a lossless wire
// (bounded, DefaultWait), or what arrives within LocalEventWait() on an impaired one.
// An error is a set-up or posting failure, or a send completion that did not succeed.
absl::StatusOr<TrainOutcome> RunUcTrain(ConnectedPair& pair, const UcTrain& train);

}  // namespace rdmacheck

#endif  // RDMACHECK_TESTING_UNRELIABLE_TRAIN_H_
