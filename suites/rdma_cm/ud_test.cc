// UD over rdma_cm (RDMA_PS_UDP): the SIDR exchange gives the active side the passive QP's
// number, QKey and an address handle; datagrams then flow both ways.
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "harness/completion.h"
#include "testing/completion_matchers.h"
#include "testing/device_test.h"

namespace rdmacheck {
namespace {

constexpr uint32_t kGrh = 40;

class CmUdTest : public DeviceTest {};

RDMACHECK_ABOUT(CmUdTest, DatagramsFlowBothWays,
                "a UD pair set up through rdma_cm uses QKey RDMA_UDP_QKEY; a SEND each way arrives 40 bytes into "
                "the receive with IBV_WC_GRH, the sender's QPN as src_qp, and as slid 0 on RoCE (no LIDs) or the "
                "sending port's LID on InfiniBand",
                "rdma_cm(7) (RDMA_PS_UDP), rdma_accept(3), rdma_cma.h RDMA_UDP_QKEY; IBTA Vol 1 11.4.1.2, 11.4.2.1 "
                "(Source LID), Annex A16 / A17 (RoCE: no LRH); ibv_poll_cq(3) slid",
                Cap::kUdQp, Cap::kAddressHandle, Cap::kRdmaCm);
TEST_F(CmUdTest, DatagramsFlowBothWays) {
  PairOptions options;
  options.qp_type = IBV_QPT_UD;
  options.method = ConnectMethod::kRdmaCm;
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  EXPECT_EQ(pair.local().qkey(), static_cast<uint32_t>(RDMA_UDP_QKEY));
  EXPECT_EQ(pair.local().peer_address().qp_num, pair.remote().qp_num());
  // A UD receive's source LID (IBTA Vol 1 11.4.2.1): RoCE has no LRH, so no LID (Annex A16 / A17).
  const bool roce = selection().port_attr.link_layer == IBV_LINK_LAYER_ETHERNET;
  for (Endpoint* from : {static_cast<Endpoint*>(&pair.local()), &pair.remote()}) {
    Endpoint& to = from == &pair.remote() ? static_cast<Endpoint&>(pair.local()) : pair.remote();
    SCOPED_TRACE(from == &pair.remote() ? "passive to active" : "active to passive");
    ASSERT_OK(from->Fill({0, 200}, Pattern::Seeded(from == &pair.remote())));
    ASSERT_OK(to.PostRecv(7, 1024, kGrh + 200));
    ASSERT_OK(from->Post(SendRequest::Send(8, {{0, 200}})));
    ASSERT_OK_AND_ASSIGN(ibv_wc recv, to.PollRecv());
    EXPECT_THAT(recv, CompletionIs(RecvCompletion(7, to.qp_num(), kGrh + 200).FromUd(from->qp_num())));
    EXPECT_EQ(recv.slid, roce ? 0 : from->address().lid) << "slid: " << DescribeWc(recv);
    EXPECT_OK(to.Check({1024 + kGrh, 200}, Pattern::Seeded(from == &pair.remote())));
    ASSERT_OK_AND_ASSIGN(ibv_wc send, from->PollSend());
    EXPECT_THAT(send, CompletionIs(SendCompletion(8, from->qp_num())));
  }
}

}  // namespace
}  // namespace rdmacheck
