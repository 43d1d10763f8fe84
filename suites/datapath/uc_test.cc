// Unreliable Connected: SEND and RDMA WRITE (UC has no READ or atomics), wired by hand.
// Without loss in loopback, UC delivers like RC; what differs (no ACKs, no retries) is
// not visible here.
#include <infiniband/verbs.h>

#include <string>
#include <vector>

#include "testing/completion_matchers.h"
#include "testing/message_sizes.h"
#include "testing/pair_test.h"

namespace rdmacheck {
namespace {

class UcTest : public DeviceTest, public ::testing::WithParamInterface<MessageSize> {
 protected:
  // UC pairs are wired by hand: rdma_cm's RDMA_PS_TCP/UDP have no UC.
  PairOptions Options() const {
    PairOptions o;
    o.qp_type = IBV_QPT_UC;
    o.method = ConnectMethod::kManual;
    o.buffer_size = BufferFor(Bytes() + 64);
    return o;
  }
  uint32_t Bytes() const { return MessageBytes(GetParam(), selection()); }
};

RDMACHECK_ABOUT(UcTest, SendArrivesIntact,
                "a UC SEND of 1 byte, MTU+1 and 64 KiB lands in the posted receive byte for byte with IBV_WC_RECV "
                "and the size",
                "IBTA Vol 1 9.8 (UC service), 9.4.1; ibv_create_qp(3) IBV_QPT_UC", Cap::kUcQp, Cap::kManualConnect);
TEST_P(UcTest, SendArrivesIntact) {
  const uint32_t bytes = Bytes();
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(Options()));
  ASSERT_OK(pair.local().Fill({0, bytes}, Pattern::Seeded(bytes)));
  ASSERT_OK(pair.remote().PostRecv(1, 0, bytes));
  ASSERT_OK(pair.local().Post(SendRequest::Send(2, {{0, bytes}})));
  ASSERT_OK_AND_ASSIGN(ibv_wc recv, pair.remote().PollRecv());
  EXPECT_THAT(recv, CompletionIs(RecvCompletion(1, pair.remote().qp_num(), bytes)));
  EXPECT_OK(pair.remote().Check({0, bytes}, Pattern::Seeded(bytes)));
  ASSERT_OK_AND_ASSIGN(ibv_wc send, pair.local().PollSend());
  EXPECT_THAT(send, CompletionIs(SendCompletion(2, pair.local().qp_num())));
}

RDMACHECK_ABOUT(UcTest, WriteLandsIntact,
                "a UC RDMA WRITE of 1 byte, MTU+1 and 64 KiB puts exactly those bytes at the remote address",
                "IBTA Vol 1 9.8, 9.4.3", Cap::kUcQp, Cap::kManualConnect, Cap::kRdmaWrite);
TEST_P(UcTest, WriteLandsIntact) {
  const uint32_t bytes = Bytes();
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(Options()));
  ASSERT_OK(pair.local().Fill({0, bytes}, Pattern::Seeded(bytes + 3)));
  ASSERT_OK(pair.remote().Fill({0, bytes + 64}, Pattern::Constant(0)));
  ASSERT_OK(pair.local().Post(SendRequest::Write(2, {{0, bytes}}, pair.local().peer_buffer().At(0, bytes))));
  ASSERT_OK_AND_ASSIGN(ibv_wc wc, pair.local().PollSend());
  EXPECT_THAT(wc, CompletionIs(SendCompletion(2, pair.local().qp_num(), IBV_WC_RDMA_WRITE)));
  // UC completes a WRITE when it is sent, not when it lands: wait for the bytes (bounded).
  EXPECT_OK(pair.remote().AwaitPattern({0, bytes}, Pattern::Seeded(bytes + 3)));
  EXPECT_OK(pair.remote().Check({bytes, 64}, Pattern::Constant(0)));
}

RDMACHECK_ABOUT(UcTest, WriteWithImmConsumesAReceive,
                "a UC RDMA WRITE with immediate lands and completes one receive with IBV_WC_RECV_RDMA_WITH_IMM, "
                "the size and the immediate",
                "IBTA Vol 1 9.8, 9.4.3", Cap::kUcQp, Cap::kManualConnect, Cap::kRdmaWrite, Cap::kWriteWithImm);
TEST_P(UcTest, WriteWithImmConsumesAReceive) {
  const uint32_t bytes = Bytes();
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(Options()));
  ASSERT_OK(pair.local().Fill({0, bytes}, Pattern::Seeded(bytes + 4)));
  ASSERT_OK(pair.remote().PostRecv(1, bytes, 64));  // a WRITE with immediate leaves the receive buffer alone
  ASSERT_OK(pair.local().Post(
      SendRequest::Write(2, {{0, bytes}}, pair.local().peer_buffer().At(0, bytes)).WithImm(0xc0ffee)));
  ASSERT_OK_AND_ASSIGN(ibv_wc recv, pair.remote().PollRecv());
  EXPECT_THAT(recv,
              CompletionIs(RecvCompletion(1, pair.remote().qp_num(), bytes, IBV_WC_RECV_RDMA_WITH_IMM).WithImm(0xc0ffee)));
  EXPECT_OK(pair.remote().Check({0, bytes}, Pattern::Seeded(bytes + 4)));
  ASSERT_OK(pair.local().PollSend().status());
}

INSTANTIATE_TEST_SUITE_P(Sizes, UcTest,
                         ::testing::Values(MessageSize::kOne, MessageSize::kMtuPlusOne, MessageSize::k64KiB),
                         [](const ::testing::TestParamInfo<MessageSize>& info) { return ParamName(info.param); });

}  // namespace
}  // namespace rdmacheck
