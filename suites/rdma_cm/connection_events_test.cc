// The rdma_cm event sequence of one connection's life: address and route resolution,
// connect request, established on both sides, and disconnected on both sides, whichever
// side hangs up.
#include <rdma/rdma_cma.h>

#include "testing/device_test.h"
#include "suites/rdma_cm/cm_side.h"

namespace rdmacheck {
namespace {

enum class Closer { kActive, kPassive };

class CmEventsTest : public DeviceTest, public ::testing::WithParamInterface<Closer> {};

RDMACHECK_ABOUT(CmEventsTest, ConnectAndDisconnectInOrder,
                "the active side sees ADDR_RESOLVED, ROUTE_RESOLVED, ESTABLISHED; the passive side CONNECT_REQUEST, "
                "ESTABLISHED; after one side's rdma_disconnect the other sees DISCONNECTED, answers with its own "
                "rdma_disconnect, and the first then sees DISCONNECTED; nothing else comes but, at most once per "
                "side, TIMEWAIT_EXIT",
                "rdma_cm(7), rdma_connect(3), rdma_accept(3), rdma_disconnect(3), rdma_get_cm_event(3)",
                Cap::kRdmaCm);
TEST_P(CmEventsTest, ConnectAndDisconnectInOrder) {
  RDMACHECK_REQUIRE_LOOPBACK(kBothCmSidesHere);
  ASSERT_OK_AND_ASSIGN(sockaddr_storage address, SelectionAddress(selection()));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<CmSide> server, CmSide::Create());
  server->listener = std::move(server->id);
  ASSERT_OK_AND_ASSIGN(sockaddr_storage listening, Listen(server->listener.get(), address));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<CmSide> client, CmSide::Create());

  ASSERT_OK(ResolveRoute(client->id.get(), address, listening));  // ADDR_RESOLVED, ROUTE_RESOLVED
  ASSERT_OK(client->AddQp());
  rdma_conn_param param{};
  param.responder_resources = param.initiator_depth = 1;
  param.retry_count = param.rnr_retry_count = 7;
  ASSERT_EQ(rdma_connect(client->id.get(), &param), 0) << "rdma_connect: errno " << errno;
  {
    ASSERT_OK_AND_ASSIGN(CmEventPtr request, ExpectCmEvent(server->events(), RDMA_CM_EVENT_CONNECT_REQUEST));
    EXPECT_EQ(request->listen_id, server->listener.get());
    server->id.reset(request->id);
  }
  ASSERT_OK(server->AddQp());
  ASSERT_EQ(rdma_accept(server->id.get(), &param), 0) << "rdma_accept: errno " << errno;
  ASSERT_OK(ExpectCmEvent(client->events(), RDMA_CM_EVENT_ESTABLISHED).status());
  ASSERT_OK(ExpectCmEvent(server->events(), RDMA_CM_EVENT_ESTABLISHED).status());

  // rdma_disconnect(3): the side that gets DISCONNECTED answers with rdma_disconnect of its
  // own (over IB CM that sends the DREP the closer's DISCONNECTED waits for; over iWARP
  // the connection is already down and the call may fail, which is fine).
  CmSide& closer = GetParam() == Closer::kActive ? *client : *server;
  CmSide& other = GetParam() == Closer::kActive ? *server : *client;
  ASSERT_EQ(rdma_disconnect(closer.id.get()), 0) << "rdma_disconnect: errno " << errno;
  EXPECT_OK(ExpectCmEvent(other.events(), RDMA_CM_EVENT_DISCONNECTED).status()) << "the side hung up on";
  rdma_disconnect(other.id.get());
  EXPECT_OK(ExpectCmEvent(closer.events(), RDMA_CM_EVENT_DISCONNECTED).status()) << "the side that hung up";
  // rdma_get_cm_event(3): an id with a QP may still get TIMEWAIT_EXIT, when the QP leaves
  // timewait; when is the CM's business (on rxe and 6.12 within a few hundred ms).
  for (CmSide* side : {client.get(), server.get()}) {
    absl::StatusOr<CmEventPtr> extra = WaitCmEvent(side->events(), Scaled(absl::Milliseconds(200)));
    if (extra.ok() && (*extra)->event == RDMA_CM_EVENT_TIMEWAIT_EXIT) {
      extra = WaitCmEvent(side->events(), Scaled(absl::Milliseconds(200)));
    }
    EXPECT_FALSE(extra.ok()) << "unexpected rdma_cm event " << rdma_event_str((*extra)->event);
  }
}

INSTANTIATE_TEST_SUITE_P(Closer, CmEventsTest, ::testing::Values(Closer::kActive, Closer::kPassive),
                         [](const ::testing::TestParamInfo<Closer>& info) {
                           return std::string(info.param == Closer::kActive ? "ActiveDisconnects"
                                                                            : "PassiveDisconnects");
                         });

}  // namespace
}  // namespace rdmacheck
