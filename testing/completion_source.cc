#include "testing/completion_source.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "harness/completion.h"
#include "harness/status.h"

namespace rdmacheck {

PairOptions CompletionSourceOptions(uint32_t depth) {
  PairOptions options;
  options.max_send_wr = depth;
  options.max_recv_wr = depth;
  options.use_comp_channel = true;
  return options;
}

absl::Status SendMessages(Endpoint& sender, Endpoint& receiver, int count, unsigned send_flags, unsigned last_flags,
                          uint64_t first_wr_id) {
  const size_t slots = std::min(sender.buffer_size(), receiver.buffer_size()) / kMessageBytes;
  for (int i = 0; i < count; ++i) {
    RDMACHECK_RETURN_IF_ERROR(receiver.PostRecv(first_wr_id + i, (i % slots) * kMessageBytes, kMessageBytes));
  }
  for (int i = 0; i < count; ++i) {
    const unsigned flags = send_flags | (i + 1 == count ? last_flags : 0);
    Slice slice{(i % slots) * kMessageBytes, kMessageBytes};
    RDMACHECK_RETURN_IF_ERROR(sender.Post(SendRequest::Send(first_wr_id + i, {slice}).WithFlags(flags)));
  }
  return absl::OkStatus();
}

absl::Status FillRecvCq(Endpoint& sender, Endpoint& receiver, int count, uint64_t first_wr_id) {
  ibv_cq* cq = receiver.recv_cq();
  if (cq == nullptr) return absl::FailedPreconditionError("FillRecvCq: the receiver is not in this process");
  ibv_comp_channel* channel = cq->channel;
  if (channel == nullptr) {
    return absl::FailedPreconditionError("FillRecvCq needs a receive CQ on a completion channel (use_comp_channel)");
  }
  const size_t slots = std::min(sender.buffer_size(), receiver.buffer_size()) / kMessageBytes;
  for (int i = 0; i < count; ++i) {
    RDMACHECK_RETURN_IF_ERROR(receiver.PostRecv(first_wr_id + i, (i % slots) * kMessageBytes, kMessageBytes));
  }
  for (int i = 0; i < count; ++i) {
    if (int rc = ibv_req_notify_cq(cq, /*solicited_only=*/0); rc != 0) return ErrnoStatus(rc, "ibv_req_notify_cq");
    Slice slice{(i % slots) * kMessageBytes, kMessageBytes};
    RDMACHECK_RETURN_IF_ERROR(sender.Post(SendRequest::Send(first_wr_id + i, {slice})));
    absl::StatusOr<ibv_cq*> event = WaitCqEvent(channel);
    if (!event.ok()) {
      return absl::Status(event.status().code(), absl::StrCat("no completion event for receive ", i + 1, " of ",
                                                              count, ": ", event.status().message()));
    }
    if (*event != cq) return absl::InternalError("the completion event named another CQ than the armed receive CQ");
  }
  RDMACHECK_ASSIGN_OR_RETURN(std::vector<ibv_wc> sends, sender.PollSends(count));
  for (const ibv_wc& wc : sends) {
    if (wc.status != IBV_WC_SUCCESS) return absl::InternalError(absl::StrCat("a send failed: ", DescribeWc(wc)));
  }
  return absl::OkStatus();
}

}  // namespace rdmacheck
