// rdma_migrate_id: an accepted connection moved to an event channel of its own outlives
// its listener. Servers do this to give each connection its own event loop, then close
// the listener; the connection must not notice.
#include <rdma/rdma_cma.h>

#include "harness/connection/cm_events.h"
#include "testing/completion_matchers.h"
#include "testing/pair_test.h"

namespace rdmacheck {
namespace {

class CmMigrateTest : public DeviceTest {};

RDMACHECK_ABOUT(CmMigrateTest, MigratedIdOutlivesItsListener,
                "after rdma_migrate_id of the accepted id to its own channel and destroying the listener (and its "
                "channel), SENDs still flow both ways, and the active side's rdma_disconnect arrives as "
                "DISCONNECTED on the new channel",
                "rdma_migrate_id(3), rdma_destroy_id(3)", Cap::kRcQp, Cap::kRdmaCm);
TEST_F(CmMigrateTest, MigratedIdOutlivesItsListener) {
  RDMACHECK_REQUIRE_LOOPBACK(
      "it migrates the passive side's rdma_cm id and reads that id's events on its new channel with rdma_cm "
      "calls, so the passive side must be an rdma_cm id of this process");
  PairOptions options;
  options.method = ConnectMethod::kRdmaCm;
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  auto& server = static_cast<LocalEndpoint&>(pair.remote());
  ASSERT_OK(server.MoveOffListener());
  ASSERT_NE(server.cm_id()->channel, nullptr);

  ASSERT_OK(pair.local().Fill({0, 100}, Pattern::Seeded(1)));
  ASSERT_OK(server.Fill({0, 100}, Pattern::Seeded(2)));
  ASSERT_OK(server.PostRecv(1, 1024, 100));
  ASSERT_OK(pair.local().PostRecv(2, 1024, 100));
  ASSERT_OK(pair.local().Post(SendRequest::Send(3, {{0, 100}})));
  ASSERT_OK_AND_ASSIGN(ibv_wc at_server, server.PollRecv());
  EXPECT_THAT(at_server, CompletionIs(RecvCompletion(1, server.qp_num(), 100)));
  EXPECT_OK(server.Check({1024, 100}, Pattern::Seeded(1)));
  ASSERT_OK(server.Post(SendRequest::Send(4, {{0, 100}})));
  ASSERT_OK_AND_ASSIGN(ibv_wc at_client, pair.local().PollRecv());
  EXPECT_THAT(at_client, CompletionIs(RecvCompletion(2, pair.local().qp_num(), 100)));
  EXPECT_OK(pair.local().Check({1024, 100}, Pattern::Seeded(2)));
  ASSERT_OK(pair.local().PollSend().status());
  ASSERT_OK(server.PollSend().status());

  // The usual close: the side hung up on answers with rdma_disconnect (rdma_disconnect(3)).
  ASSERT_EQ(rdma_disconnect(pair.local().cm_id()), 0) << "rdma_disconnect: errno " << errno;
  EXPECT_OK(ExpectCmEvent(server.cm_id()->channel, RDMA_CM_EVENT_DISCONNECTED).status());
  rdma_disconnect(server.cm_id());
  EXPECT_OK(ExpectCmEvent(pair.local().cm_id()->channel, RDMA_CM_EVENT_DISCONNECTED).status());
}

}  // namespace
}  // namespace rdmacheck
