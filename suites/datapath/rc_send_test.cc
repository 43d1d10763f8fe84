// RC SEND/RECV over both ways of connecting: the bytes arrive, and every completion field
// says what happened.
#include <infiniband/verbs.h>

#include <numeric>

#include "harness/completion.h"
#include "harness/connection/connected_pair.h"
#include "harness/testing/device_test.h"

namespace rdmacheck {
namespace {

// Fills `bytes` with a pattern that differs per byte and per seed (never all zeros).
void FillPattern(absl::Span<uint8_t> bytes, uint8_t seed) {
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(seed + i * 7 + (i >> 8));
}

class RcSendTest : public DeviceTest, public ::testing::WithParamInterface<ConnectMethod> {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped()) return;
    RDMACHECK_REQUIRE(GetParam() == ConnectMethod::kManual ? Cap::kManualConnect : Cap::kRdmaCm);
  }
};

RDMACHECK_ABOUT(RcSendTest, SendArrivesWithItsCompletionFields,
                "a 1000-byte SEND lands in the posted receive byte for byte; the receive completion reports "
                "IBV_WC_RECV, byte_len 1000, the receive's wr_id and the receiving QP; the send completion "
                "IBV_WC_SEND with the send's wr_id",
                "IBTA Vol 1 10.7.3 (SEND), 11.4.2.1 (Poll CQ); ibv_poll_cq(3)", Cap::kRcQp);
TEST_P(RcSendTest, SendArrivesWithItsCompletionFields) {
  PairOptions options;
  options.method = GetParam();
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  constexpr uint32_t kLength = 1000;
  FillPattern(pair.local().buffer().subspan(0, kLength), 0x5a);
  std::fill_n(pair.remote().buffer().data(), kLength, 0);

  ASSERT_OK(pair.remote().PostRecv(/*wr_id=*/21, 0, kLength));
  ibv_sge sge = pair.local().Sge(0, kLength);
  ibv_send_wr wr = SendWr(/*wr_id=*/11, &sge, 1);
  ASSERT_OK(pair.local().PostSend(wr));

  ASSERT_OK_AND_ASSIGN(ibv_wc send, pair.local().PollSend());
  EXPECT_EQ(send.status, IBV_WC_SUCCESS) << DescribeWc(send);
  EXPECT_EQ(send.opcode, IBV_WC_SEND);
  EXPECT_EQ(send.wr_id, 11u);
  ASSERT_OK_AND_ASSIGN(ibv_wc recv, pair.remote().PollRecv());
  EXPECT_EQ(recv.status, IBV_WC_SUCCESS) << DescribeWc(recv);
  EXPECT_EQ(recv.opcode, IBV_WC_RECV);
  EXPECT_EQ(recv.wr_id, 21u);
  EXPECT_EQ(recv.byte_len, kLength);
  EXPECT_EQ(recv.qp_num, pair.remote().qp()->qp_num);
  EXPECT_EQ(recv.wc_flags & IBV_WC_WITH_IMM, 0u);
  EXPECT_TRUE(std::equal(pair.local().buffer().begin(), pair.local().buffer().begin() + kLength,
                         pair.remote().buffer().begin()));
}

INSTANTIATE_TEST_SUITE_P(Connect, RcSendTest, ::testing::Values(ConnectMethod::kManual, ConnectMethod::kRdmaCm),
                         [](const ::testing::TestParamInfo<ConnectMethod>& info) {
                           return std::string(info.param == ConnectMethod::kManual ? "Manual" : "RdmaCm");
                         });

}  // namespace
}  // namespace rdmacheck
