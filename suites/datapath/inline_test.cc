// Inline data: bytes copied into the work request at post time, up to the QP's real
// max_inline_data (measured by the capability probe).
#include <infiniband/verbs.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "testing/completion_matchers.h"
#include "testing/pair_test.h"

namespace rdmacheck {
namespace {

enum class InlineSize { kOne, kHalf, kMax };
std::string ParamName(InlineSize s) { return s == InlineSize::kOne ? "OneByte" : s == InlineSize::kHalf ? "Half" : "Max"; }

// The largest inline size a QP of this device accepts: the probe's measurement, else what
// the device grants a QP that asks for 64 bytes.
uint32_t MaxInline(const Profile& profile, uint32_t granted) {
  auto it = profile.measured.find("max_inline_data");
  return it != profile.measured.end() ? static_cast<uint32_t>(it->second.value) : granted;
}

// ibv_create_qp(3): "the actual values of the QP capabilities ... may be greater than or
// equal to the values requested": a QP that asked for `asked` inline bytes must be granted at
// least that many, on both sides (the remote side's grant is read from its endpoint, also
// on a peer host).
void ExpectGrantedInline(ConnectedPair& pair, uint32_t asked) {
  EXPECT_GE(pair.local().granted_cap().max_inline_data, asked)
      << "ibv_create_qp granted max_inline_data " << pair.local().granted_cap().max_inline_data << ", less than the "
      << asked << " bytes asked (the requester's QP)";
  EXPECT_GE(pair.remote().granted_cap().max_inline_data, asked)
      << "ibv_create_qp granted max_inline_data " << pair.remote().granted_cap().max_inline_data << ", less than the "
      << asked << " bytes asked (the responder's QP)";
}

class InlineTest : public PairTestWith<InlineSize> {
 protected:
  // A pair whose QPs take the real maximum inline size; `bytes` set to this instance's size.
  absl::StatusOr<ConnectedPair> InlinePair(uint32_t& bytes) {
    PairOptions options = Options();
    options.max_inline_data = MaxInline(profile(), 64);
    absl::StatusOr<ConnectedPair> pair = CreatePair(options);
    if (!pair.ok()) return pair;
    ExpectGrantedInline(*pair, options.max_inline_data);
    // The sizes come from what was asked, never from what was granted: a device that grants
    // less fails above, and its largest message still goes out at the asked size.
    const uint32_t max = options.max_inline_data;
    bytes = param() == InlineSize::kOne ? 1 : param() == InlineSize::kHalf ? std::max(1u, max / 2) : max;
    RecordProperty("bytes", static_cast<int>(bytes));
    return pair;
  }
};

RDMACHECK_ABOUT(InlineTest, InlineSendArrives,
                "a SEND with IBV_SEND_INLINE of 1 byte, half and all of the max_inline_data asked for arrives intact "
                "with the usual completions; both QPs were granted at least the inline size asked",
                "ibv_post_send(3) IBV_SEND_INLINE; ibv_create_qp(3) max_inline_data (\"may be greater than or equal "
                "to the values requested\")", Cap::kRcQp, Cap::kInlineData);
TEST_P(InlineTest, InlineSendArrives) {
  uint32_t bytes = 0;
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, InlinePair(bytes));
  ASSERT_OK(pair.local().Fill({0, bytes}, Pattern::Seeded(bytes)));
  ASSERT_OK(pair.remote().PostRecv(1, 0, bytes));
  ASSERT_OK(pair.local().Post(SendRequest::Send(2, {{0, bytes}}).WithFlags(IBV_SEND_SIGNALED | IBV_SEND_INLINE)));
  ASSERT_OK_AND_ASSIGN(ibv_wc recv, pair.remote().PollRecv());
  EXPECT_THAT(recv, CompletionIs(RecvCompletion(1, pair.remote().qp_num(), bytes)));
  EXPECT_OK(pair.remote().Check({0, bytes}, Pattern::Seeded(bytes)));
  ASSERT_OK_AND_ASSIGN(ibv_wc send, pair.local().PollSend());
  EXPECT_THAT(send, CompletionIs(SendCompletion(2, pair.local().qp_num())));
}

RDMACHECK_ABOUT(InlineTest, InlineWriteLands,
                "an RDMA WRITE with IBV_SEND_INLINE of 1 byte, half and all of the max_inline_data asked for lands "
                "intact; both QPs were granted at least the inline size asked",
                "ibv_post_send(3) IBV_SEND_INLINE (SEND and RDMA WRITE); ibv_create_qp(3) max_inline_data", Cap::kRcQp, Cap::kInlineData,
                Cap::kRdmaWrite);
TEST_P(InlineTest, InlineWriteLands) {
  uint32_t bytes = 0;
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, InlinePair(bytes));
  ASSERT_OK(pair.local().Fill({0, bytes}, Pattern::Seeded(bytes + 9)));
  ASSERT_OK(pair.local().Post(SendRequest::Write(2, {{0, bytes}}, pair.local().peer_buffer().At(100, bytes))
                                  .WithFlags(IBV_SEND_SIGNALED | IBV_SEND_INLINE)));
  ASSERT_OK_AND_ASSIGN(ibv_wc wc, pair.local().PollSend());
  EXPECT_THAT(wc, CompletionIs(SendCompletion(2, pair.local().qp_num(), IBV_WC_RDMA_WRITE)));
  EXPECT_OK(pair.remote().AwaitPattern({100, bytes}, Pattern::Seeded(bytes + 9)));
}

INSTANTIATE_TEST_SUITE_P(Connect, InlineTest,
                         ::testing::Combine(AllConnectMethods(),
                                            ::testing::Values(InlineSize::kOne, InlineSize::kHalf, InlineSize::kMax)),
                         PairParamName<InlineSize>);

class InlineSourceTest : public PairTest {};

RDMACHECK_ABOUT(InlineSourceTest, SourceIsReusableWhenPostReturns,
                "inline data is taken when ibv_post_send returns: overwriting the source right after the post does "
                "not change what arrives",
                "ibv_post_send(3) IBV_SEND_INLINE (\"the buffers can be reused immediately after the call returns\")",
                Cap::kRcQp, Cap::kInlineData);
TEST_P(InlineSourceTest, SourceIsReusableWhenPostReturns) {
  PairOptions options = Options();
  options.max_inline_data = MaxInline(profile(), 64);
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  ExpectGrantedInline(pair, options.max_inline_data);
  const uint32_t bytes = options.max_inline_data;
  ASSERT_OK(pair.local().Fill({0, bytes}, Pattern::Seeded(1)));
  ASSERT_OK(pair.remote().PostRecv(1, 0, bytes));
  ASSERT_OK(pair.local().Post(SendRequest::Send(2, {{0, bytes}}).WithFlags(IBV_SEND_SIGNALED | IBV_SEND_INLINE)));
  ASSERT_OK(pair.local().Fill({0, bytes}, Pattern::Seeded(2)));  // too late to matter
  ASSERT_OK_AND_ASSIGN(ibv_wc recv, pair.remote().PollRecv());
  EXPECT_THAT(recv, CompletionIs(RecvCompletion(1, pair.remote().qp_num(), bytes)));
  EXPECT_OK(pair.remote().Check({0, bytes}, Pattern::Seeded(1)));
  ASSERT_OK(pair.local().PollSend().status());
}

RDMACHECK_ABOUT(InlineSourceTest, SourceNeedsNoRegistration,
                "inline data may come from memory in no MR, with an lkey of 0: the lkey of an inline SGE is not "
                "checked",
                "ibv_post_send(3) IBV_SEND_INLINE (\"The L_Key will not be checked\")", Cap::kRcQp, Cap::kInlineData);
TEST_P(InlineSourceTest, SourceNeedsNoRegistration) {
  PairOptions options = Options();
  options.max_inline_data = 32;
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  ExpectGrantedInline(pair, options.max_inline_data);
  std::array<uint8_t, 32> unregistered;
  FillPattern(absl::MakeSpan(unregistered), Pattern::Seeded(44));
  ASSERT_OK(pair.remote().PostRecv(1, 0, unregistered.size()));
  ibv_sge sge{reinterpret_cast<uint64_t>(unregistered.data()), static_cast<uint32_t>(unregistered.size()), 0};
  ibv_send_wr wr = SendWr(2, &sge, 1, IBV_WR_SEND, IBV_SEND_SIGNALED | IBV_SEND_INLINE);
  ASSERT_OK(pair.local().PostSend(wr));
  ASSERT_OK_AND_ASSIGN(ibv_wc send, pair.local().PollSend());
  EXPECT_THAT(send, CompletionIs(SendCompletion(2, pair.local().qp_num())));
  ASSERT_OK_AND_ASSIGN(ibv_wc recv, pair.remote().PollRecv());
  EXPECT_THAT(recv, CompletionIs(RecvCompletion(1, pair.remote().qp_num(), unregistered.size())));
  EXPECT_OK(pair.remote().Check({0, static_cast<uint32_t>(unregistered.size())}, Pattern::Seeded(44)));
}

INSTANTIATE_TEST_SUITE_P(Connect, InlineSourceTest, AllConnectMethods(), ConnectMethodParamName);

}  // namespace
}  // namespace rdmacheck
