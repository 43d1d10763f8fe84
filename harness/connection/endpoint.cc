#include "harness/connection/endpoint.h"

#include <cstring>

#include "absl/status/status.h"
#include "absl/time/clock.h"
#include "harness/status.h"

namespace rdmacheck {

absl::Status Endpoint::AwaitPattern(Slice where, Pattern pattern, absl::Duration timeout) const {
  const absl::Time deadline = absl::Now() + timeout;
  for (;;) {
    absl::Status s = Check(where, pattern);
    if (s.ok() || !absl::IsDataLoss(s) || absl::Now() > deadline) return s;
    absl::SleepFor(absl::Milliseconds(1));
  }
}

absl::StatusOr<uint64_t> Endpoint::ReadU64(size_t offset) const {
  RDMACHECK_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, Read({offset, 8}));
  uint64_t value = 0;
  std::memcpy(&value, bytes.data(), sizeof(value));
  return value;
}

absl::Status Endpoint::WriteU64(size_t offset, uint64_t value) {
  uint8_t bytes[8];
  std::memcpy(bytes, &value, sizeof(value));
  return Write(offset, bytes);
}

absl::StatusOr<ibv_wc> Endpoint::PollSend(absl::Duration timeout) {
  RDMACHECK_ASSIGN_OR_RETURN(std::vector<ibv_wc> wcs, PollSends(1, timeout));
  return wcs.front();
}

absl::StatusOr<ibv_wc> Endpoint::PollRecv(absl::Duration timeout) {
  RDMACHECK_ASSIGN_OR_RETURN(std::vector<ibv_wc> wcs, PollRecvs(1, timeout));
  return wcs.front();
}

ibv_sge Endpoint::Sge(size_t offset, uint32_t length) const {
  const ibv_mr* m = mr();
  return m != nullptr ? MakeSge(m, offset, length) : ibv_sge{0, length, 0};
}

absl::Status Endpoint::PostSend(ibv_send_wr&, ibv_send_wr**) {
  return absl::UnimplementedError("raw ibv_post_send needs the endpoint in this process (not in two-host mode)");
}

}  // namespace rdmacheck
