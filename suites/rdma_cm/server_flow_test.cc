// The passive side's order of steps: on CONNECT_REQUEST, create the QP on the new id,
// then rdma_accept (which moves that QP to RTR/RTS and announces its number). A server
// that accepts without a QP must get a clear failure somewhere (a refused accept, an
// error event, or a SEND that cannot complete), never a working-looking connection that
// silently loses data, and never a hang.
#include <rdma/rdma_cma.h>

#include <string>

#include "harness/completion.h"
#include "harness/connection/work_requests.h"
#include "testing/device_test.h"
#include "suites/rdma_cm/cm_side.h"

namespace rdmacheck {
namespace {

class CmServerFlowTest : public DeviceTest {
 protected:
  // A listening server, and a client with its route resolved, its QP created and its
  // CONNECT sent; the server holds the request's id.
  void Connect() {
    ASSERT_OK_AND_ASSIGN(sockaddr_storage address, SelectionAddress(selection()));
    ASSERT_OK_AND_ASSIGN(ResolvedCm cm, ListenAndResolve(address));
    server_ = std::move(cm.server);
    client_ = std::move(cm.client);
    rdma_conn_param param = Param();
    ASSERT_EQ(rdma_connect(client_->id.get(), &param), 0) << "rdma_connect: errno " << errno;
    ASSERT_OK_AND_ASSIGN(CmEventPtr request, ExpectCmEvent(server_->events(), RDMA_CM_EVENT_CONNECT_REQUEST));
    server_->id.reset(request->id);
  }
  static rdma_conn_param Param() {
    rdma_conn_param p{};
    p.responder_resources = p.initiator_depth = 1;
    p.retry_count = 1;  // a SEND into the void fails soon
    p.rnr_retry_count = 1;
    return p;
  }
  std::unique_ptr<CmSide> server_;
  std::unique_ptr<CmSide> client_;
};

RDMACHECK_ABOUT(CmServerFlowTest, QpBeforeAcceptCarriesData,
                "a server that creates the QP on the request's id before rdma_accept gets ESTABLISHED on both sides "
                "and the client's first SEND arrives",
                "rdma_accept(3) (the QP associated with the id is transitioned to RTR/RTS), rdma_create_qp(3)",
                Cap::kRcQp, Cap::kRdmaCm);
TEST_F(CmServerFlowTest, QpBeforeAcceptCarriesData) {
  RDMACHECK_REQUIRE_LOOPBACK(kBothCmSidesHere);
  ASSERT_NO_FATAL_FAILURE(Connect());
  ASSERT_OK(server_->AddQp());
  ibv_sge sge = MakeSge(server_->mr.get(), 0, 64);
  ibv_recv_wr recv = RecvWr(9, &sge, 1);
  ASSERT_OK(PostRecv(server_->id->qp, recv));
  rdma_conn_param param = Param();
  ASSERT_EQ(rdma_accept(server_->id.get(), &param), 0) << "rdma_accept: errno " << errno;
  ASSERT_OK(ExpectCmEvent(client_->events(), RDMA_CM_EVENT_ESTABLISHED).status());
  ASSERT_OK_AND_ASSIGN(ibv_wc sent, client_->Send(64));
  EXPECT_EQ(sent.status, IBV_WC_SUCCESS) << DescribeWc(sent);
  ASSERT_OK_AND_ASSIGN(ibv_wc received, PollCompletion(server_->cq.get()));
  EXPECT_EQ(received.status, IBV_WC_SUCCESS) << DescribeWc(received);
  EXPECT_EQ(received.wr_id, 9u);
  ASSERT_OK(ExpectCmEvent(server_->events(), RDMA_CM_EVENT_ESTABLISHED).status());
}

RDMACHECK_ABOUT(CmServerFlowTest, AcceptWithoutQpFailsClearly,
                "a server that calls rdma_accept on a request's id with no QP (qp_num 0) does not end up with a "
                "working connection, and says so: rdma_accept fails with errno set, or the client gets a "
                "connection error event (REJECTED, UNREACHABLE, CONNECT_ERROR), or the client's signaled SEND "
                "completes with an error status (the outcome is recorded)",
                "rdma_accept(3) (a QP must be associated with the id, or qp_num supplied; -1 and errno on error), "
                "rdma_get_cm_event(3) (connection error events), ibv_post_send(3) (a signaled WR completes); IBTA "
                "Vol 1 9.7.5.1 (transport retries exhausted)",
                Cap::kRcQp, Cap::kRdmaCm);
TEST_F(CmServerFlowTest, AcceptWithoutQpFailsClearly) {
  RDMACHECK_REQUIRE_LOOPBACK(kBothCmSidesHere);
  ASSERT_NO_FATAL_FAILURE(Connect());
  rdma_conn_param param = Param();
  param.qp_num = 0;  // the forgotten QP
  errno = 0;
  if (rdma_accept(server_->id.get(), &param) != 0) {
    EXPECT_NE(errno, 0) << "rdma_accept failed without setting errno";
    RecordProperty("outcome", std::string("rdma_accept refused: ") + ErrnoName(errno));
    return;
  }
  ASSERT_OK_AND_ASSIGN(CmEventPtr event, WaitCmEvent(client_->events()));
  if (event->event != RDMA_CM_EVENT_ESTABLISHED) {
    RecordProperty("outcome", std::string("client event ") + rdma_event_str(event->event));
    EXPECT_THAT(event->event, ::testing::AnyOf(RDMA_CM_EVENT_REJECTED, RDMA_CM_EVENT_UNREACHABLE,
                                               RDMA_CM_EVENT_CONNECT_ERROR))
        << "the client's answer to a connect is neither ESTABLISHED nor a connection error: "
        << rdma_event_str(event->event);
    return;
  }
  // The client thinks it is connected: its SEND reaches no QP, so it must complete in error
  // once the transport's retries are spent.
  ASSERT_OK_AND_ASSIGN(ibv_wc sent, client_->Send(64));
  RecordProperty("outcome", "client SEND completed with " + WcStatusName(sent.status));
  EXPECT_NE(sent.status, IBV_WC_SUCCESS) << "a connection accepted without a QP carried a SEND successfully";
}

}  // namespace
}  // namespace rdmacheck
