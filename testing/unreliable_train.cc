#include "testing/unreliable_train.h"

#include <infiniband/verbs.h>

#include <arpa/inet.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "harness/completion.h"
#include "harness/patterns.h"
#include "harness/status.h"
#include "harness/timeouts.h"
#include "harness/wire_impairment.h"

namespace rdmacheck {
namespace {

Slice SlotOf(const UcTrain& train, int i) { return {static_cast<size_t>(i) * train.bytes, train.bytes}; }

// Which message of the train `bytes` hold whole, or -1.
int MessageIn(const std::vector<uint8_t>& bytes, const UcTrain& train) {
  for (int m = 0; m < train.count; ++m) {
    if (CheckPattern(bytes, Pattern::Seeded(train.seed + m)).ok()) return m;
  }
  return -1;
}

absl::Status PostTrain(ConnectedPair& pair, const UcTrain& train) {
  for (int i = 0; i < train.count; ++i) {
    RDMACHECK_RETURN_IF_ERROR(pair.local().Fill(SlotOf(train, i), Pattern::Seeded(train.seed + i)));
    // A WRITE with immediate leaves the receive buffer alone: its receives take 64 bytes each.
    RDMACHECK_RETURN_IF_ERROR(train.op == TrainOp::kSend
                                  ? pair.remote().PostRecv(i, SlotOf(train, i).offset, train.bytes)
                                  : pair.remote().PostRecv(i, 0, 64));
  }
  for (int i = 0; i < train.count; ++i) {
    SendRequest request =
        train.op == TrainOp::kSend
            ? SendRequest::Send(1000 + i, {SlotOf(train, i)})
            : SendRequest::Write(1000 + i, {SlotOf(train, i)},
                                 pair.local().peer_buffer().At(SlotOf(train, i).offset, train.bytes))
                  .WithImm(static_cast<uint32_t>(i));
    RDMACHECK_RETURN_IF_ERROR(pair.local().Post(request));
  }
  RDMACHECK_ASSIGN_OR_RETURN(std::vector<ibv_wc> sends, pair.local().PollSends(train.count));
  for (const ibv_wc& wc : sends) {
    if (wc.status != IBV_WC_SUCCESS) return absl::InternalError(absl::StrCat("send completion: ", DescribeWc(wc)));
  }
  return absl::OkStatus();
}

// The message a receive completion delivered, or a violation.
absl::StatusOr<int> Delivered(ConnectedPair& pair, const UcTrain& train, const ibv_wc& wc) {
  const std::string what = DescribeWc(wc);
  const ibv_wc_opcode opcode = train.op == TrainOp::kSend ? IBV_WC_RECV : IBV_WC_RECV_RDMA_WITH_IMM;
  if (wc.status != IBV_WC_SUCCESS || wc.opcode != opcode || wc.byte_len != train.bytes) {
    return absl::DataLossError(absl::StrCat("a receive completed other than whole (", train.bytes, " bytes, ",
                                            WcOpcodeName(opcode), "): ", what));
  }
  int message = -1;
  if (train.op == TrainOp::kWriteWithImm) {
    if ((wc.wc_flags & IBV_WC_WITH_IMM) == 0 || ntohl(wc.imm_data) >= static_cast<uint32_t>(train.count)) {
      return absl::DataLossError(absl::StrCat("a WRITE with immediate completed without one of the train's immediates: ", what));
    }
    message = static_cast<int>(ntohl(wc.imm_data));
    RDMACHECK_ASSIGN_OR_RETURN(std::vector<uint8_t> landed, pair.remote().Read(SlotOf(train, message)));
    if (MessageIn(landed, train) != message) {
      return absl::DataLossError(absl::StrCat("WRITE ", message, " completed but its region does not hold its bytes"));
    }
  } else {
    RDMACHECK_ASSIGN_OR_RETURN(std::vector<uint8_t> landed, pair.remote().Read(SlotOf(train, static_cast<int>(wc.wr_id))));
    message = MessageIn(landed, train);
    if (message < 0) {
      return absl::DataLossError(absl::StrCat("receive ", wc.wr_id, " completed holding no message of the train whole"));
    }
  }
  return message;
}

}  // namespace

size_t TrainBufferFor(const UcTrain& train) { return static_cast<size_t>(train.count) * train.bytes + 64; }

bool TrainOutcome::AllArrivedUnlessImpaired() const {
  return WireImpaired() || static_cast<int>(delivered.size()) == sent;
}

std::ostream& operator<<(std::ostream& out, const TrainOutcome& outcome) {
  out << outcome.delivered.size() << " of " << outcome.sent << " delivered (messages "
      << absl::StrJoin(outcome.delivered, " ");
  if (WireImpaired()) out << "; wire impaired: " << WireImpairment();
  return out << ")";
}

absl::StatusOr<TrainOutcome> RunUcTrain(ConnectedPair& pair, const UcTrain& train) {
  RDMACHECK_RETURN_IF_ERROR(PostTrain(pair, train));
  TrainOutcome outcome;
  outcome.sent = train.count;
  std::vector<ibv_wc> receives;
  if (WireImpaired()) {
    RDMACHECK_ASSIGN_OR_RETURN(receives, pair.remote().DrainRecvs(LocalEventWait()));
  } else {
    RDMACHECK_ASSIGN_OR_RETURN(receives, pair.remote().PollRecvs(train.count));
  }
  int expected_wr = 0;
  for (const ibv_wc& wc : receives) {
    // Receives are consumed in the order posted; a lost message consumes none.
    if (wc.wr_id != static_cast<uint64_t>(expected_wr)) {
      outcome.violations.push_back(absl::StrCat("receive ", wc.wr_id, " completed where receive ", expected_wr,
                                                " was next: receives are consumed in the order posted"));
    }
    ++expected_wr;
    absl::StatusOr<int> message = Delivered(pair, train, wc);
    if (!message.ok()) {
      outcome.violations.push_back(std::string(message.status().message()));
      continue;
    }
    // Where the wire reorders or duplicates, UC takes a late or repeated First as a new
    // message (harness/wire_impairment.h WireMayReorder): order and once are not promised.
    if (!WireMayReorder() && !outcome.delivered.empty() && *message <= outcome.delivered.back()) {
      outcome.violations.push_back(absl::StrCat("message ", *message, " delivered after message ",
                                                outcome.delivered.back(), ": UC delivers once and in order"));
    }
    outcome.delivered.push_back(*message);
  }
  return outcome;
}

}  // namespace rdmacheck
