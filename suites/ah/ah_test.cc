// Address handles: made from the selected GID, refused for a port or GID index that does
// not exist, and rebuilt from a received UD completion (ibv_init_ah_from_wc). iWARP has no
// address handles: those devices skip with capability address_handle.
#include <infiniband/verbs.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "absl/types/optional.h"

#include "harness/completion.h"
#include "harness/connection/work_requests.h"
#include "testing/device_test.h"
#include "harness/verbs/factories.h"

namespace rdmacheck {
namespace {

constexpr uint32_t kGrhBytes = 40;  // a UD receive buffer starts with room for the GRH
constexpr uint32_t kPayload = 64;

class AhTest : public DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped()) return;
    ASSERT_OK_AND_ASSIGN(pd_, AllocPd(context()));
  }

  // An address vector to the selected GID itself, from the selected port and GID index.
  static ibv_ah_attr ToSelectedGid() { return AhAttrToOwnGid(selection()); }

  // ibv_create_ah(attr), expected to fail with errno set (ibv_create_ah(3): "returns NULL
  // if the request fails", errno says why); records the errno.
  void ExpectCreateFails(ibv_ah_attr attr, const char* what) {
    errno = 0;
    AhPtr ah(ibv_create_ah(pd_.get(), &attr));
    ASSERT_EQ(ah, nullptr) << "an address handle with " << what << " was created";
    EXPECT_NE(errno, 0) << "ibv_create_ah refused " << what << " but left errno 0";
    if (errno != 0) RecordProperty("errno", ErrnoName(errno));
  }

  PdPtr pd_;
};

RDMACHECK_ABOUT(AhTest, CreateFromSelectedGidAndDestroy,
                "ibv_create_ah with a global route to the selected GID succeeds on the PD; ibv_destroy_ah returns 0",
                "ibv_create_ah(3); IBTA Vol 1 ch. 11 (Create Address Handle)", Cap::kAddressHandle);
TEST_F(AhTest, CreateFromSelectedGidAndDestroy) {
  ibv_ah_attr attr = ToSelectedGid();
  ibv_ah* ah = ibv_create_ah(pd_.get(), &attr);
  ASSERT_NE(ah, nullptr) << ErrnoName(errno);
  EXPECT_EQ(ah->pd, pd_.get());
  EXPECT_EQ(ah->context, context());
  EXPECT_THAT(ibv_destroy_ah(ah), ErrnoIs(0));
}

RDMACHECK_ABOUT(AhTest, InvalidPortFails, "ibv_create_ah on port phys_port_cnt + 1 fails (errno recorded)",
                "ibv_create_ah(3); IBTA Vol 1 ch. 11 (invalid port)", Cap::kAddressHandle);
TEST_F(AhTest, InvalidPortFails) {
  ibv_ah_attr attr = ToSelectedGid();
  attr.port_num = static_cast<uint8_t>(device_attr().orig_attr.phys_port_cnt + 1);
  ExpectCreateFails(attr, "a port that does not exist");
}

// An sgid_index that names no GID: past the table when the 8-bit field can say so, else
// the first empty entry of the table.
absl::optional<uint8_t> SgidIndexWithoutGid(ibv_context* context, uint8_t port, int table_length) {
  if (table_length <= 255) return static_cast<uint8_t>(table_length);
  for (int i = 0; i <= 255; ++i) {
    ibv_gid gid{};
    if (ibv_query_gid(context, port, i, &gid) != 0) return static_cast<uint8_t>(i);
    static const ibv_gid kZero{};
    if (memcmp(&gid, &kZero, sizeof(gid)) == 0) return static_cast<uint8_t>(i);
  }
  return absl::nullopt;
}

RDMACHECK_ABOUT(AhTest, InvalidSgidIndexFails,
                "ibv_create_ah with an sgid_index that names no GID (past gid_tbl_len, or an empty entry of a table "
                "longer than 256) fails (errno recorded)",
                "ibv_create_ah(3); ibv_query_port(3) gid_tbl_len", Cap::kAddressHandle);
TEST_F(AhTest, InvalidSgidIndexFails) {
  const int table = selection().port_attr.gid_tbl_len;
  absl::optional<uint8_t> index = SgidIndexWithoutGid(context(), port(), table);
  if (!index) GTEST_SKIP() << "all of the first 256 of " << table << " GID entries are populated";
  RecordProperty("sgid_index", *index);
  ibv_ah_attr attr = ToSelectedGid();
  attr.grh.sgid_index = *index;
  ExpectCreateFails(attr, "an sgid_index that names no GID");
}

RDMACHECK_ABOUT(AhTest, RoceWithoutGrhFails,
                "on an Ethernet (RoCE) port, ibv_create_ah without a global route (is_global 0) fails: RoCE "
                "addresses by GID only",
                "IBTA Vol 1 Annex A16/A17 (RoCE: the GRH is mandatory); ibv_create_ah(3)", Cap::kAddressHandle);
TEST_F(AhTest, RoceWithoutGrhFails) {
  if (selection().port_attr.link_layer != IBV_LINK_LAYER_ETHERNET) {
    GTEST_SKIP() << "link layer " << LinkLayerName(selection().port_attr.link_layer)
                 << ": a GRH is optional there, the rule is RoCE's";
  }
  ibv_ah_attr attr = ToSelectedGid();
  attr.is_global = 0;
  ExpectCreateFails(attr, "no GRH on RoCE");
}

RDMACHECK_ABOUT(AhTest, InitAhFromWcRoundTrip,
                "from a received UD completion and its GRH, ibv_init_ah_from_wc builds an address that reaches the "
                "sender: a reply sent with it arrives at the sender from the replying QP; each completion's slid "
                "(which becomes the address's dlid) is 0 on RoCE (no LIDs) or the sending port's LID on InfiniBand",
                "ibv_init_ah_from_wc(3); IBTA Vol 1 ch. 11 (Create Address Handle from a work completion), "
                "11.4.2.1 (Source LID), Annex A16 / A17 (RoCE: no LRH); ibv_poll_cq(3) slid",
                Cap::kAddressHandle, Cap::kUdQp);
TEST_F(AhTest, InitAhFromWcRoundTrip) {
  PairOptions options;
  options.qp_type = IBV_QPT_UD;
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  LocalEndpoint& local = pair.local();
  Endpoint& peer = pair.remote();
  // A UD receive's source LID (IBTA Vol 1 11.4.2.1): RoCE has no LRH, so no LID (Annex A16 / A17).
  const bool roce = selection().port_attr.link_layer == IBV_LINK_LAYER_ETHERNET;

  // peer -> local: a UD send whose receive completion carries the sender's address.
  ASSERT_OK(local.PostRecv(/*wr_id=*/1, 0, kGrhBytes + kPayload));
  ASSERT_OK(peer.Post(SendRequest::Send(/*wr_id=*/2, {{0, kPayload}})));
  ASSERT_OK(peer.PollSend().status());
  ASSERT_OK_AND_ASSIGN(ibv_wc received, local.PollRecv());
  ASSERT_EQ(received.status, IBV_WC_SUCCESS) << DescribeWc(received);
  EXPECT_EQ(received.src_qp, peer.qp_num());
  EXPECT_EQ(received.slid, roce ? 0 : peer.address().lid) << "slid: " << DescribeWc(received);

  ibv_ah_attr attr{};
  auto* grh = reinterpret_cast<ibv_grh*>(local.buffer().data());
  ASSERT_THAT(ibv_init_ah_from_wc(local.context(), port(), &received, grh, &attr), ErrnoIs(0));
  EXPECT_EQ(attr.port_num, port());
  if (roce) {
    EXPECT_EQ(attr.is_global, 1) << "RoCE addresses need a GRH";
    // Loopback: the sender's GID is the selected one.
    EXPECT_EQ(0, memcmp(attr.grh.dgid.raw, selection().gid.gid.raw, sizeof(attr.grh.dgid.raw)))
        << "the derived destination GID is not the sender's";
  }
  ASSERT_OK_AND_ASSIGN(AhPtr ah, CreateAh(local.pd(), attr));

  // local -> peer with the derived address: the reply arrives, from local's QP.
  ASSERT_OK(peer.PostRecv(/*wr_id=*/3, 0, kGrhBytes + kPayload));
  ibv_sge sge = local.Sge(kGrhBytes + kPayload, kPayload);
  ibv_send_wr reply = SendWr(/*wr_id=*/4, &sge, 1);
  reply.wr.ud.ah = ah.get();
  reply.wr.ud.remote_qpn = received.src_qp;
  reply.wr.ud.remote_qkey = local.qkey();
  ASSERT_OK(PostSend(local.qp(), reply));  // the raw verb: Endpoint::PostSend would put the pair's AH in
  ASSERT_OK_AND_ASSIGN(ibv_wc sent, local.PollSend());
  EXPECT_EQ(sent.status, IBV_WC_SUCCESS) << DescribeWc(sent);
  ASSERT_OK_AND_ASSIGN(ibv_wc answer, peer.PollRecv());
  EXPECT_EQ(answer.status, IBV_WC_SUCCESS) << DescribeWc(answer);
  EXPECT_EQ(answer.src_qp, local.qp_num());
  EXPECT_EQ(answer.slid, roce ? 0 : local.address().lid) << "slid: " << DescribeWc(answer);
}

}  // namespace
}  // namespace rdmacheck
