// Two-host mode pieces that need no RDMA device: the JSON forms and the TCP side channel.
#include <arpa/inet.h>

#include <cstring>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/remote/side_channel.h"
#include "harness/remote/wire.h"
#include "harness/status.h"

namespace rdmacheck {
namespace {

TEST(RemoteWireTest, OptionsRoundTrip) {
  PairOptions o;
  o.qp_type = IBV_QPT_UD;
  o.max_send_wr = 33;
  o.max_inline_data = 80;
  o.use_srq = true;
  o.buffer_size = 1 << 20;
  o.send_ops_flags = IBV_QP_EX_WITH_SEND;
  o.path_mtu = IBV_MTU_2048;
  o.path.rnr_retry = 0;
  o.EnableAtomics();
  absl::StatusOr<PairOptions> back = OptionsFromJson(ToJson(o));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->qp_type, IBV_QPT_UD);
  EXPECT_EQ(back->max_send_wr, 33u);
  EXPECT_EQ(back->max_inline_data, 80u);
  EXPECT_TRUE(back->use_srq);
  EXPECT_EQ(back->buffer_size, size_t{1} << 20);
  EXPECT_EQ(back->send_ops_flags, uint64_t{IBV_QP_EX_WITH_SEND});
  EXPECT_EQ(back->path_mtu, IBV_MTU_2048);
  EXPECT_EQ(back->path.rnr_retry, 0);
  EXPECT_EQ(back->mr_access, o.mr_access);
  EXPECT_EQ(back->path.access, o.path.access);
}

TEST(RemoteWireTest, RequestAndCompletionRoundTrip) {
  SendRequest r = SendRequest::Write(7, {{1, 2}, {3, 4}}, {0x1234567890ull, 0xabc, 99}).WithImm(0x8badf00d);
  absl::StatusOr<SendRequest> back = RequestFromJson(ToJson(r));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->opcode, IBV_WR_RDMA_WRITE_WITH_IMM);
  EXPECT_EQ(back->imm, 0x8badf00du);
  ASSERT_EQ(back->sges.size(), 2u);
  EXPECT_EQ(back->sges[1].offset, 3u);
  EXPECT_EQ(back->remote.addr, 0x1234567890ull);

  ibv_wc wc{};
  wc.wr_id = ~uint64_t{0};
  wc.status = IBV_WC_REM_ACCESS_ERR;
  wc.imm_data = htonl(5);
  wc.src_qp = 17;
  absl::StatusOr<ibv_wc> wc_back = WcFromJson(ToJson(wc));
  ASSERT_TRUE(wc_back.ok());
  EXPECT_EQ(wc_back->wr_id, ~uint64_t{0});
  EXPECT_EQ(wc_back->status, IBV_WC_REM_ACCESS_ERR);
  EXPECT_EQ(ntohl(wc_back->imm_data), 5u);
  EXPECT_EQ(wc_back->src_qp, 17u);
}

TEST(RemoteWireTest, MalformedInputIsDataLoss) {
  EXPECT_TRUE(absl::IsDataLoss(OptionsFromJson(nlohmann::json{{"qp_type", 2}}).status()));
  EXPECT_TRUE(absl::IsDataLoss(WcFromJson(nlohmann::json::array()).status()));
  EXPECT_TRUE(absl::IsDataLoss(FromHex("abc").status()));
  EXPECT_TRUE(absl::IsDataLoss(FromHex("zz").status()));
}

TEST(RemoteWireTest, ErrnoSurvivesTheTrip) {
  absl::Status back = ErrorFromJson(ErrorToJson(ErrnoStatus(EINVAL, "ibv_post_send")));
  EXPECT_EQ(ErrnoOf(back), EINVAL);
  EXPECT_THAT(std::string(back.message()), ::testing::HasSubstr("peer: ibv_post_send"));
  EXPECT_TRUE(absl::IsDeadlineExceeded(ErrorFromJson(ErrorToJson(absl::DeadlineExceededError("x")))));
}

TEST(RemoteWireTest, SockaddrRoundTrip) {
  sockaddr_storage a{};
  auto* in = reinterpret_cast<sockaddr_in*>(&a);
  in->sin_family = AF_INET;
  in->sin_port = htons(4791);
  inet_pton(AF_INET, "10.77.1.1", &in->sin_addr);
  absl::StatusOr<sockaddr_storage> back = SockaddrFromHex(SockaddrToHex(a));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(std::memcmp(&a, &*back, sizeof(sockaddr_in)), 0);
}

TEST(SideChannelTest, SplitHostPort) {
  ASSERT_TRUE(SplitHostPort("host:18515").ok());
  EXPECT_EQ(*SplitHostPort("host:18515"), std::make_pair(std::string("host"), uint16_t{18515}));
  EXPECT_EQ(SplitHostPort("[::1]:7")->first, "::1");
  EXPECT_FALSE(SplitHostPort("host").ok());
  EXPECT_FALSE(SplitHostPort("host:0").ok());
  EXPECT_FALSE(SplitHostPort("host:70000").ok());
}

TEST(SideChannelTest, MessagesCrossAndSilenceTimesOut) {
  absl::StatusOr<SideChannelListener> listener = SideChannelListener::Listen(0);
  ASSERT_TRUE(listener.ok()) << listener.status();
  absl::StatusOr<SideChannel> client = SideChannel::Connect(absl::StrCat("127.0.0.1:", listener->port()), absl::Seconds(5));
  ASSERT_TRUE(client.ok()) << client.status();
  absl::StatusOr<SideChannel> server = listener->Accept(absl::Seconds(5));
  ASSERT_TRUE(server.ok()) << server.status();

  ASSERT_TRUE(client->Send({{"op", "hello"}, {"big", std::string(200000, 'x')}}).ok());
  absl::StatusOr<nlohmann::json> got = server->Receive(absl::Seconds(5));
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ((*got)["op"], "hello");
  EXPECT_EQ((*got)["big"].get<std::string>().size(), 200000u);

  EXPECT_TRUE(absl::IsDeadlineExceeded(client->Receive(absl::Milliseconds(50)).status()));
  *server = SideChannel(-1);  // the peer goes away
  EXPECT_TRUE(absl::IsUnavailable(client->Receive(absl::Seconds(5)).status()));
}

TEST(SideChannelTest, NobodyListening) {
  absl::StatusOr<SideChannelListener> listener = SideChannelListener::Listen(0);
  ASSERT_TRUE(listener.ok());
  const uint16_t port = listener->port();
  { SideChannelListener gone = std::move(*listener); }
  EXPECT_FALSE(SideChannel::Connect(absl::StrCat("127.0.0.1:", port), absl::Seconds(2)).ok());
}

}  // namespace
}  // namespace rdmacheck
