// Unreliable Datagram: SEND/RECV through address handles, with the 40-byte GRH area in
// front of every received message, QKey checking, the MTU limit, and sending to oneself.
#include <infiniband/verbs.h>

#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "testing/completion_matchers.h"
#include "testing/message_sizes.h"
#include "testing/pair_test.h"
#include "testing/quiet_window.h"
#include "harness/device.h"
#include "harness/verbs/factories.h"

namespace rdmacheck {
namespace {

constexpr uint32_t kGrh = 40;  // IBTA Vol 1 11.4.1.2: a UD receive buffer starts with 40 bytes for the GRH

// The GRH area of a received UD message: an IPv6-format GRH (IBTA Vol 1 8.3) with the
// sender's GID as SGID and the receiver's as DGID; for RoCEv2 over IPv4 (IBTA Annex A17)
// the IPv4 header in its last 20 bytes instead (the first 20 undefined).
absl::Status CheckGrh(absl::Span<const uint8_t> grh, const ibv_gid& from, const ibv_gid& to, bool ipv4) {
  auto differs = [](const char* what, absl::Span<const uint8_t> got, const uint8_t* want) {
    return std::memcmp(got.data(), want, got.size()) == 0
               ? absl::OkStatus()
               : absl::DataLossError(absl::StrFormat("GRH %s differs from the expected address", what));
  };
  if (ipv4) {
    if (grh[20] != 0x45) return absl::DataLossError(absl::StrFormat("GRH byte 20 is 0x%02x, expected 0x45 (IPv4, IHL 5)", grh[20]));
    if (grh[29] != 17) return absl::DataLossError(absl::StrFormat("IPv4 protocol is %d, expected 17 (UDP)", grh[29]));
    RDMACHECK_RETURN_IF_ERROR(differs("IPv4 source", grh.subspan(32, 4), from.raw + 12));
    return differs("IPv4 destination", grh.subspan(36, 4), to.raw + 12);
  }
  if ((grh[0] >> 4) != 6) return absl::DataLossError(absl::StrFormat("GRH IP version is %d, expected 6", grh[0] >> 4));
  RDMACHECK_RETURN_IF_ERROR(differs("SGID", grh.subspan(8, 16), from.raw));
  return differs("DGID", grh.subspan(24, 16), to.raw);
}

// The source LID a UD receive completion must report (ibv_poll_cq(3) slid, "Source LID"; IBTA
// Vol 1 11.4.2.1, returned for UD): on InfiniBand the packet's LRH SLID, the sending port's LID.
// RoCE packets carry no LRH, only Ethernet and IP headers (IBTA Annex A16 / A17), so there is no
// LID to report: 0. A nonzero slid there is a made-up address, and ibv_init_ah_from_wc(3) would
// copy it into an address handle's dlid.
void ExpectSourceLid(const ibv_wc& recv, const Endpoint& sender) {
  const uint8_t link_layer = TestDevice::Get().selection().port_attr.link_layer;
  const uint16_t expected = link_layer == IBV_LINK_LAYER_ETHERNET ? 0 : sender.address().lid;
  EXPECT_EQ(recv.slid, expected) << "slid of a UD receive on a " << LinkLayerName(link_layer)
                                 << " port: " << DescribeWc(recv);
}

class UdTest : public DeviceTest, public ::testing::WithParamInterface<MessageSize> {
 protected:
  static PairOptions Options() {
    PairOptions o;
    o.qp_type = IBV_QPT_UD;
    o.method = ConnectMethod::kManual;  // UD needs no connection; rdma_cm UD is in suites/rdma_cm
    return o;
  }
  static uint32_t Mtu() { return static_cast<uint32_t>(MtuBytes(selection().port_attr.active_mtu)); }
};

RDMACHECK_ABOUT(UdTest, SendArrivesBehindItsGrh,
                "a UD SEND of 1 byte and of a full MTU arrives 40 bytes into the receive buffer; the completion "
                "reports byte_len = size + 40, IBV_WC_GRH, src_qp = the sender's QP, slid = 0 on RoCE (no LIDs) "
                "or the sending port's LID on InfiniBand; the GRH area names the sender and receiver (IPv6 GRH, "
                "or the IPv4 header for RoCEv2 over IPv4)",
                "IBTA Vol 1 8.3 (GRH), 11.4.1.2 (UD receive: 40 bytes for the GRH), 11.4.2.1 (Source LID, for UD); "
                "Annex A16 / A17 (RoCE, RoCEv2: no LRH); ibv_poll_cq(3) src_qp, slid, IBV_WC_GRH",
                Cap::kUdQp, Cap::kAddressHandle);
TEST_P(UdTest, SendArrivesBehindItsGrh) {
  const uint32_t bytes = GetParam() == MessageSize::kOne ? 1 : Mtu();
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(Options()));
  ASSERT_OK(pair.local().Fill({0, bytes}, Pattern::Seeded(bytes)));
  ASSERT_OK(pair.remote().Fill({0, kGrh + bytes}, Pattern::Constant(0)));
  ASSERT_OK(pair.remote().PostRecv(1, 0, kGrh + bytes));
  ASSERT_OK(pair.local().Post(SendRequest::Send(2, {{0, bytes}})));
  ASSERT_OK_AND_ASSIGN(ibv_wc send, pair.local().PollSend());
  EXPECT_THAT(send, CompletionIs(SendCompletion(2, pair.local().qp_num())));
  ASSERT_OK_AND_ASSIGN(ibv_wc recv, pair.remote().PollRecv());
  EXPECT_THAT(recv, CompletionIs(RecvCompletion(1, pair.remote().qp_num(), kGrh + bytes).FromUd(pair.local().qp_num())));
  ExpectSourceLid(recv, pair.local());
  EXPECT_OK(pair.remote().Check({kGrh, bytes}, Pattern::Seeded(bytes)));
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> grh, pair.remote().Read({0, kGrh}));
  EXPECT_OK(CheckGrh(grh, pair.local().address().gid, pair.local().peer_address().gid,
                     selection().gid.type == IBV_GID_TYPE_ROCE_V2 && selection().gid.IsIpv4Mapped()));
}

INSTANTIATE_TEST_SUITE_P(Sizes, UdTest, ::testing::Values(MessageSize::kOne, MessageSize::kMtu),
                         [](const ::testing::TestParamInfo<MessageSize>& info) { return ParamName(info.param); });

class UdRulesTest : public UdTest {};

RDMACHECK_ABOUT(UdRulesTest, WrongQKeyIsDropped,
                "a UD SEND whose QKey differs from the receiving QP's completes at the sender but is silently "
                "dropped: no receive completes; a SEND with the right QKey then takes the same receive",
                "IBTA Vol 1 10.2.4 (Q_Keys: a datagram with a Q_Key that does not match is dropped); "
                "ibv_post_send(3) remote_qkey",
                Cap::kUdQp, Cap::kAddressHandle);
TEST_F(UdRulesTest, WrongQKeyIsDropped) {
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(Options()));
  LocalEndpoint& sender = pair.local();
  ASSERT_OK(sender.Fill({0, 64}, Pattern::Seeded(1)));
  ASSERT_OK(pair.remote().PostRecv(1, 0, kGrh + 64));
  ibv_sge sge = sender.Sge(0, 64);
  ibv_send_wr wrong = SendWr(2, &sge, 1);
  wrong.wr.ud = {sender.peer_ah(), sender.peer_address().qp_num, sender.qkey() ^ 0x1};
  ASSERT_OK(PostSend(sender.qp(), wrong));
  ASSERT_OK_AND_ASSIGN(ibv_wc sent, sender.PollSend());
  EXPECT_THAT(sent, CompletionIs(SendCompletion(2, sender.qp_num())));
  const QuietWindow quiet = QuietWindowForCompletions();
  ASSERT_OK_AND_ASSIGN(std::vector<ibv_wc> delivered, pair.remote().DrainRecvs(quiet.duration));
  EXPECT_TRUE(delivered.empty()) << "a SEND with the wrong QKey was delivered (watched " << quiet
                                 << "): " << DescribeWc(delivered.front());

  ASSERT_OK(sender.Post(SendRequest::Send(3, {{0, 64}})));
  ASSERT_OK_AND_ASSIGN(ibv_wc recv, pair.remote().PollRecv());
  EXPECT_THAT(recv, CompletionIs(RecvCompletion(1, pair.remote().qp_num(), kGrh + 64).FromUd(sender.qp_num())));
  ExpectSourceLid(recv, sender);
  EXPECT_OK(pair.remote().Check({kGrh, 64}, Pattern::Seeded(1)));
  ASSERT_OK(sender.PollSend().status());
}

RDMACHECK_ABOUT(UdRulesTest, MessageLargerThanMtuIsNotSent,
                "a signaled UD SEND of MTU+1 bytes emits nothing: no receive completes, yet the send completes "
                "successfully (no error for it); a full-MTU SEND afterwards takes the receive",
                "IBTA Vol 1 C10-93.1.1 (UD message longer than the port MTU: no packets, no error); ibv_post_send(3) "
                "IBV_SEND_SIGNALED (a signaled WR completes)",
                Cap::kUdQp, Cap::kAddressHandle);
TEST_F(UdRulesTest, MessageLargerThanMtuIsNotSent) {
  const uint32_t mtu = Mtu();
  PairOptions options = Options();
  options.buffer_size = 2 * (mtu + kGrh + 64);
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  ASSERT_OK(pair.local().Fill({0, mtu + 1}, Pattern::Seeded(2)));
  ASSERT_OK(pair.remote().PostRecv(1, 0, kGrh + mtu + 1));
  ASSERT_OK(pair.local().Post(SendRequest::Send(2, {{0, mtu + 1}})));
  ASSERT_OK_AND_ASSIGN(ibv_wc sent, pair.local().PollSend());
  EXPECT_THAT(sent, CompletionIs(SendCompletion(2, pair.local().qp_num())));
  const QuietWindow quiet = QuietWindowForCompletions();
  ASSERT_OK_AND_ASSIGN(std::vector<ibv_wc> delivered, pair.remote().DrainRecvs(quiet.duration));
  EXPECT_TRUE(delivered.empty()) << "a UD SEND larger than the MTU was delivered (watched " << quiet
                                 << "): " << DescribeWc(delivered.front());

  ASSERT_OK(pair.local().Post(SendRequest::Send(3, {{0, mtu}})));
  ASSERT_OK_AND_ASSIGN(ibv_wc recv, pair.remote().PollRecv());
  EXPECT_THAT(recv, CompletionIs(RecvCompletion(1, pair.remote().qp_num(), kGrh + mtu).FromUd(pair.local().qp_num())));
  ExpectSourceLid(recv, pair.local());
  ASSERT_OK_AND_ASSIGN(ibv_wc sent_mtu, pair.local().PollSend());
  EXPECT_THAT(sent_mtu, CompletionIs(SendCompletion(3, pair.local().qp_num())));
}

RDMACHECK_ABOUT(UdRulesTest, AddressHandleToSelf,
                "a UD QP sends to its own QPN through an address handle to its own GID and receives the message: "
                "src_qp is its own QPN",
                "ibv_create_ah(3); ibv_post_send(3) (UD: ah, remote_qpn, remote_qkey)", Cap::kUdQp,
                Cap::kAddressHandle);
TEST_F(UdRulesTest, AddressHandleToSelf) {
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(Options()));
  LocalEndpoint& self = pair.local();
  ASSERT_OK_AND_ASSIGN(AhPtr ah, CreateAh(self.pd(), AddressTo(self.address(), self.Path(Options()))));
  ASSERT_OK(self.Fill({0, 100}, Pattern::Seeded(9)));
  ASSERT_OK(self.PostRecv(1, 1024, kGrh + 100));
  ibv_sge sge = self.Sge(0, 100);
  ibv_send_wr wr = SendWr(2, &sge, 1);
  wr.wr.ud = {ah.get(), self.qp_num(), self.qkey()};
  ASSERT_OK(PostSend(self.qp(), wr));
  ASSERT_OK_AND_ASSIGN(ibv_wc recv, self.PollRecv());
  EXPECT_THAT(recv, CompletionIs(RecvCompletion(1, self.qp_num(), kGrh + 100).FromUd(self.qp_num())));
  ExpectSourceLid(recv, self);
  EXPECT_OK(self.Check({1024 + kGrh, 100}, Pattern::Seeded(9)));
  ASSERT_OK(self.PollSend().status());
}

}  // namespace
}  // namespace rdmacheck
