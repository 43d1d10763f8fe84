// Gather and scatter: a message assembled from several SGEs arrives as one stream, and
// one that is received into several SGEs is cut at their boundaries, for 1, 2 and the
// device's maximum number of SGEs.
#include <infiniband/verbs.h>

#include <algorithm>
#include <string>
#include <vector>

#include "testing/completion_matchers.h"
#include "testing/pair_test.h"

namespace rdmacheck {
namespace {

enum class SgeCount { kOne, kTwo, kMax };
std::string ParamName(SgeCount c) { return c == SgeCount::kOne ? "OneSge" : c == SgeCount::kTwo ? "TwoSges" : "MaxSges"; }

// `count` SGEs of different lengths laid out out of order with gaps in a buffer, so that
// a device that ignored the list order or an SGE boundary would misplace bytes.
std::vector<Slice> Layout(int count, bool reversed_lengths) {
  std::vector<uint32_t> lengths;
  for (int i = 0; i < count; ++i) lengths.push_back(37 + 13 * i);
  if (reversed_lengths) std::reverse(lengths.begin(), lengths.end());
  std::vector<Slice> slices(count);
  size_t offset = 16;
  for (int i = count - 1; i >= 0; --i) {  // the last SGE lowest in memory
    slices[i] = {offset, lengths[i]};
    offset += lengths[i] + 16;
  }
  return slices;
}

uint32_t Total(const std::vector<Slice>& slices) {
  uint32_t total = 0;
  for (const Slice& s : slices) total += s.length;
  return total;
}

// Writes `message` into `slices` of `e`, in list order.
absl::Status Scatter(Endpoint& e, const std::vector<Slice>& slices, absl::Span<const uint8_t> message) {
  size_t at = 0;
  for (const Slice& s : slices) {
    RDMACHECK_RETURN_IF_ERROR(e.Write(s.offset, message.subspan(at, s.length)));
    at += s.length;
  }
  return absl::OkStatus();
}

// The bytes of `slices` of `e`, concatenated in list order.
absl::StatusOr<std::vector<uint8_t>> Gather(Endpoint& e, const std::vector<Slice>& slices) {
  std::vector<uint8_t> out;
  for (const Slice& s : slices) {
    RDMACHECK_ASSIGN_OR_RETURN(std::vector<uint8_t> part, e.Read(s));
    out.insert(out.end(), part.begin(), part.end());
  }
  return out;
}

class SgeTest : public PairTestWith<SgeCount> {
 protected:
  // The number of SGEs of this instance, for a limit of `max` (0: the device's max_sge).
  int Count(int max = 0) const {
    if (max == 0) max = device_attr().orig_attr.max_sge;
    switch (param()) {
      case SgeCount::kOne: return 1;
      case SgeCount::kTwo: return 2;
      case SgeCount::kMax: return max;
    }
    return 1;
  }
};

RDMACHECK_ABOUT(SgeTest, SendGathersAndReceiveScatters,
                "a SEND gathered from N SGEs (1, 2, the device's max_sge) of different lengths, out of address "
                "order, lands in a receive of N SGEs cut at other boundaries: the byte stream is the concatenation "
                "in list order, and byte_len its total",
                "IBTA Vol 1 9.8.3 (gather/scatter lists), 11.4.1 (Post Send / Post Receive); ibv_query_device(3) "
                "max_sge",
                Cap::kRcQp);
TEST_P(SgeTest, SendGathersAndReceiveScatters) {
  const int n = Count();
  PairOptions options = Options();
  options.max_send_sge = options.max_recv_sge = n;
  options.buffer_size = 16384;
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  const std::vector<Slice> from = Layout(n, false);
  const std::vector<Slice> to = Layout(n, true);
  std::vector<uint8_t> message(Total(from));
  FillPattern(absl::MakeSpan(message), Pattern::Seeded(n));
  ASSERT_OK(Scatter(pair.local(), from, message));
  ASSERT_OK(pair.remote().PostRecv(1, to));
  ASSERT_OK(pair.local().Post(SendRequest::Send(2, from)));
  ASSERT_OK_AND_ASSIGN(ibv_wc recv, pair.remote().PollRecv());
  EXPECT_THAT(recv, CompletionIs(RecvCompletion(1, pair.remote().qp_num(), message.size())));
  ASSERT_OK_AND_ASSIGN(ibv_wc send, pair.local().PollSend());
  EXPECT_THAT(send, CompletionIs(SendCompletion(2, pair.local().qp_num())));
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> got, Gather(pair.remote(), to));
  EXPECT_OK(CheckPattern(got, Pattern::Seeded(n)));
}

RDMACHECK_ABOUT(SgeTest, WriteGathers,
                "an RDMA WRITE gathered from N SGEs (1, 2, max_sge) writes their concatenation, in list order, to "
                "one contiguous remote range",
                "IBTA Vol 1 9.4.3, 9.8.3", Cap::kRcQp, Cap::kRdmaWrite);
TEST_P(SgeTest, WriteGathers) {
  const int n = Count();
  PairOptions options = Options();
  options.max_send_sge = n;
  options.buffer_size = 16384;
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  const std::vector<Slice> from = Layout(n, false);
  std::vector<uint8_t> message(Total(from));
  FillPattern(absl::MakeSpan(message), Pattern::Seeded(n + 50));
  ASSERT_OK(Scatter(pair.local(), from, message));
  ASSERT_OK(pair.local().Post(SendRequest::Write(3, from, pair.local().peer_buffer().At(8, message.size()))));
  ASSERT_OK_AND_ASSIGN(ibv_wc wc, pair.local().PollSend());
  EXPECT_THAT(wc, CompletionIs(SendCompletion(3, pair.local().qp_num(), IBV_WC_RDMA_WRITE)));
  EXPECT_OK(pair.remote().AwaitPattern({8, static_cast<uint32_t>(message.size())}, Pattern::Seeded(n + 50)));
}

RDMACHECK_ABOUT(SgeTest, ReadScatters,
                "an RDMA READ into N local SGEs (1, 2, the device's max_sge_rd) cuts one contiguous remote range at "
                "the SGE boundaries, in list order; more than one SGE needs multi_sge_read",
                "IBTA Vol 1 9.4.4, 9.8.3; ibv_query_device(3) max_sge_rd", Cap::kRcQp, Cap::kRdmaRead);
TEST_P(SgeTest, ReadScatters) {
  const int n = Count(device_attr().orig_attr.max_sge_rd);
  if (n > 1) RDMACHECK_REQUIRE(Cap::kMultiSgeRead);
  PairOptions options = Options();
  options.max_send_sge = n;
  options.buffer_size = 16384;
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  const std::vector<Slice> to = Layout(n, true);
  const uint32_t total = Total(to);
  ASSERT_OK(pair.remote().Fill({8, total}, Pattern::Seeded(n + 70)));
  ASSERT_OK(pair.local().Post(SendRequest::Read(4, to, pair.local().peer_buffer().At(8, total))));
  ASSERT_OK_AND_ASSIGN(ibv_wc wc, pair.local().PollSend());
  EXPECT_THAT(wc, CompletionIs(SendCompletion(4, pair.local().qp_num(), IBV_WC_RDMA_READ).WithLength(total)));
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> got, Gather(pair.local(), to));
  EXPECT_OK(CheckPattern(got, Pattern::Seeded(n + 70)));
}

INSTANTIATE_TEST_SUITE_P(Connect, SgeTest,
                         ::testing::Combine(AllConnectMethods(),
                                            ::testing::Values(SgeCount::kOne, SgeCount::kTwo, SgeCount::kMax)),
                         PairParamName<SgeCount>);

}  // namespace
}  // namespace rdmacheck
