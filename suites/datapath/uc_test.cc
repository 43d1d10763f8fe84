// Unreliable Connected: SEND and RDMA WRITE (UC has no READ or atomics), wired by hand.
// On a lossless wire UC delivers like RC; on an impaired one (scripts/wire-lab.sh --impair)
// it may lose a message, never deliver one partly, twice or out of order
// (testing/unreliable_train.h).
#include <infiniband/verbs.h>

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "harness/wire_impairment.h"
#include "testing/completion_matchers.h"
#include "testing/message_sizes.h"
#include "testing/pair_test.h"
#include "testing/unreliable_train.h"

namespace rdmacheck {
namespace {

using ::testing::IsEmpty;

class UcTest : public DeviceTest, public ::testing::WithParamInterface<MessageSize> {
 protected:
  // UC pairs are wired by hand: rdma_cm's RDMA_PS_TCP/UDP have no UC.
  static PairOptions Options(const UcTrain& train) {
    PairOptions o;
    o.qp_type = IBV_QPT_UC;
    o.method = ConnectMethod::kManual;
    o.buffer_size = BufferFor(static_cast<uint32_t>(TrainBufferFor(train)));
    return o;
  }
  uint32_t Bytes() const { return MessageBytes(GetParam(), selection()); }
};

RDMACHECK_ABOUT(UcTest, SendArrivesIntact,
                "a train of 8 UC SENDs of 1 byte, MTU+1 and 64 KiB: each completes at the sender with IBV_WC_SEND; "
                "each that arrives completes the next posted receive with IBV_WC_RECV and the size, holding its "
                "own bytes whole, once and in order; on a lossless wire all 8 arrive (an impaired one may lose some)",
                "IBTA Vol 1 9.8 (UC service), 9.8.3 (a message with a missing packet is dropped whole), 9.4.1; "
                "ibv_create_qp(3) IBV_QPT_UC",
                Cap::kUcQp, Cap::kManualConnect);
TEST_P(UcTest, SendArrivesIntact) {
  const UcTrain train{TrainOp::kSend, Bytes()};
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(Options(train)));
  ASSERT_OK_AND_ASSIGN(TrainOutcome got, RunUcTrain(pair, train));
  EXPECT_THAT(got.violations, IsEmpty()) << got;
  EXPECT_TRUE(got.AllArrivedUnlessImpaired()) << got;
}

RDMACHECK_ABOUT(UcTest, WriteLandsIntact,
                "a UC RDMA WRITE of 1 byte, MTU+1 and 64 KiB puts exactly those bytes at the remote address",
                "IBTA Vol 1 9.8, 9.4.3", Cap::kUcQp, Cap::kManualConnect, Cap::kRdmaWrite);
TEST_P(UcTest, WriteLandsIntact) {
  // A WRITE without immediate leaves no trace at the receiver but its bytes: on an impaired
  // wire a lost one is indistinguishable from a slow one, so this asks a lossless wire.
  if (WireImpaired()) GTEST_SKIP() << "the wire is impaired (" << WireImpairment() << "): WriteWithImmConsumesAReceive judges UC WRITEs there";
  const uint32_t bytes = Bytes();
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(Options(UcTrain{TrainOp::kSend, bytes, 1})));
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
                "a train of 8 UC RDMA WRITEs with immediate: each that arrives lands whole in its own region and "
                "completes one receive with IBV_WC_RECV_RDMA_WITH_IMM, the size and its immediate, once and in "
                "order; on a lossless wire all 8 arrive (an impaired one may lose some)",
                "IBTA Vol 1 9.8, 9.8.3, 9.4.3", Cap::kUcQp, Cap::kManualConnect, Cap::kRdmaWrite, Cap::kWriteWithImm);
TEST_P(UcTest, WriteWithImmConsumesAReceive) {
  const UcTrain train{TrainOp::kWriteWithImm, Bytes()};
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(Options(train)));
  ASSERT_OK_AND_ASSIGN(TrainOutcome got, RunUcTrain(pair, train));
  EXPECT_THAT(got.violations, IsEmpty()) << got;
  EXPECT_TRUE(got.AllArrivedUnlessImpaired()) << got;
}

INSTANTIATE_TEST_SUITE_P(Sizes, UcTest,
                         ::testing::Values(MessageSize::kOne, MessageSize::kMtuPlusOne, MessageSize::k64KiB),
                         [](const ::testing::TestParamInfo<MessageSize>& info) { return ParamName(info.param); });

}  // namespace
}  // namespace rdmacheck
