// Link and address events: the port's netdev taken down and up (IBV_EVENT_PORT_ERR, then
// IBV_EVENT_PORT_ACTIVE; ibv_query_port DOWN, then ACTIVE), what a live RC connection does
// across that, and an IP address added to and removed from the netdev (IBV_EVENT_GID_CHANGE;
// the GID appears in the table, then disappears).
//
// These tests change the lab's network. Each restores it on every path (netdev_control.h:
// the link up, the port ACTIVE, the GID table as it was; the address removed) and runs
// alone (RDMACHECK_RUNS_ALONE): `run --jobs=N` runs them after every other test of the
// device, with nothing beside them. Only the device's own netdev is touched, so the other
// device's run (the lab runs rxe0 and siw0 side by side, each on its own dummy netdev) is
// not disturbed; the addresses added are from the documentation ranges (RFC 5737, RFC 3849).
#include <infiniband/verbs.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "harness/completion.h"
#include "suites/link_events/netdev_control.h"
#include "testing/async_events.h"
#include "testing/completion_matchers.h"
#include "testing/device_test.h"

namespace rdmacheck {
namespace {

class LinkEventsTest : public DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped()) return;
    DropStaleAsyncEvents(context());
  }

  static std::string Netdev() {
    return profile().identity.netdev.empty() ? selection().gid.netdev : profile().identity.netdev;
  }
  static bool DeclaresPortActiveEvent() {
    return (device_attr().orig_attr.device_cap_flags & IBV_DEVICE_PORT_ACTIVE_EVENT) != 0;
  }
  static AsyncEventFilter OnOurPort() {
    return [](const ibv_async_event& e) { return e.element.port_num == port(); };
  }

  // The link taken down: IBV_EVENT_PORT_ERR for the port, and the port DOWN.
  static void ExpectPortErr() {
    absl::StatusOr<ibv_async_event> err = WaitForAsyncEvent(context(), IBV_EVENT_PORT_ERR, OnOurPort());
    EXPECT_TRUE(err.ok()) << "no IBV_EVENT_PORT_ERR for port " << int{port()} << " after `ip link set dev "
                          << Netdev() << " down`: " << err.status().message();
    ASSERT_OK_AND_ASSIGN(ibv_port_attr down, QueryPort(context(), port()));
    EXPECT_EQ(down.state, IBV_PORT_DOWN) << "ibv_query_port reads " << PortStateName(down.state)
                                         << " with the link down";
    EXPECT_NE(down.phys_state, 5) << "ibv_query_port reads phys_state LinkUp with the link down";
    ::testing::Test::RecordProperty("phys_state_down", down.phys_state);
  }

  // The link back up: IBV_EVENT_PORT_ACTIVE where the device declares it
  // (IBV_DEVICE_PORT_ACTIVE_EVENT), and the port ACTIVE.
  static void ExpectPortActive() {
    if (DeclaresPortActiveEvent()) {
      absl::StatusOr<ibv_async_event> active = WaitForAsyncEvent(context(), IBV_EVENT_PORT_ACTIVE, OnOurPort());
      EXPECT_TRUE(active.ok()) << "no IBV_EVENT_PORT_ACTIVE for port " << int{port()}
                               << " after the link came up, though the device declares PORT_ACTIVE_EVENT: "
                               << active.status().message();
    } else {
      absl::StatusOr<std::vector<ibv_async_event>> seen = DrainAsyncEvents(context());
      bool active = false;
      for (const ibv_async_event& e : seen.ok() ? *seen : std::vector<ibv_async_event>{}) {
        active = active || e.event_type == IBV_EVENT_PORT_ACTIVE;
      }
      ::testing::Test::RecordProperty("port_active_event_undeclared_but_seen", active ? "yes" : "no");
    }
    ASSERT_OK_AND_ASSIGN(ibv_port_attr up, QueryPort(context(), port()));
    EXPECT_EQ(up.state, IBV_PORT_ACTIVE) << "ibv_query_port reads " << PortStateName(up.state)
                                         << " after the link came up";
  }
};

RDMACHECK_ABOUT(LinkEventsTest, LinkDownAndUpAreReported,
                "`ip link set dev NETDEV down` is reported as IBV_EVENT_PORT_ERR for the port, and ibv_query_port "
                "then reads state DOWN (phys_state not LinkUp); `up` is reported as IBV_EVENT_PORT_ACTIVE (where "
                "the device declares IBV_DEVICE_PORT_ACTIVE_EVENT) and the port reads ACTIVE again. Fails when an "
                "event does not come within the wait or the port state does not follow the link",
                "ibv_get_async_event(3) (IBV_EVENT_PORT_ERR, IBV_EVENT_PORT_ACTIVE), ibv_query_port(3), "
                "ibv_query_device(3) IBV_DEVICE_PORT_ACTIVE_EVENT; IBTA Vol 1 11.6.3 (unaffiliated asynchronous "
                "events: Port Error; Port Active when the CA supports it)",
                Cap::kLinkEvents);
RDMACHECK_RUNS_ALONE(LinkEventsTest, LinkDownAndUpAreReported,
                     "it takes the device's netdev down: no other test on the device can pass meanwhile");
TEST_F(LinkEventsTest, LinkDownAndUpAreReported) {
  ASSERT_OK_AND_ASSIGN(ibv_port_attr before, QueryPort(context(), port()));
  ASSERT_EQ(before.state, IBV_PORT_ACTIVE) << "the port must be ACTIVE before the test";
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<LinkDown> down, LinkDown::Take(Netdev(), context(), port()));
  ExpectPortErr();
  ASSERT_OK(down->Restore());
  ExpectPortActive();
}

RDMACHECK_ABOUT(LinkEventsTest, RcConnectionAcrossLinkFlap,
                "an idle connected RC QP across a link down/up: the spec lets a link loss reach a QP only as an "
                "error (IBTA: the QP goes to Error when its transport fails; iWARP: when the LLP connection is "
                "lost), so afterwards the connection is either kept or lost, nothing in between: a SEND must "
                "complete successfully and arrive intact (kept), or complete with IBV_WC_WR_FLUSH_ERR (lost, QP "
                "in ERR); where ibv_query_qp tells the truth it must read RTS or ERR accordingly. Fails on any "
                "other completion, a SEND completed but not received, or a read-back that disagrees",
                "IBTA Vol 1 10.3.1 (QP states; Error entered on a transport error), 11.6.3 (Port Error); RFC 5040 "
                "/ RDMAC verbs (LLP loss: QP to Error); ibv_post_send(3), ibv_query_qp(3)",
                Cap::kLinkEvents, Cap::kRcQp);
RDMACHECK_RUNS_ALONE(LinkEventsTest, RcConnectionAcrossLinkFlap,
                     "it takes the device's netdev down: no other test on the device can pass meanwhile");
TEST_F(LinkEventsTest, RcConnectionAcrossLinkFlap) {
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair());
  // The connection carries a SEND before the flap (what the rest stands on).
  ASSERT_OK(pair.local().Fill({0, 64}, Pattern::Seeded(1)));
  ASSERT_OK(pair.remote().PostRecv(1, 0, 64));
  ASSERT_OK(pair.local().Post(SendRequest::Send(2, {{0, 64}})));
  ASSERT_OK(pair.local().PollSend().status());
  ASSERT_OK(pair.remote().PollRecv().status());

  ASSERT_OK_AND_ASSIGN(std::unique_ptr<LinkDown> down, LinkDown::Take(Netdev(), context(), port()));
  ExpectPortErr();
  ASSERT_OK(down->Restore());
  ExpectPortActive();

  // What the connection does now is told by a SEND, not by ibv_query_qp (which not every
  // device answers truly: qp_state_query): it completes successfully and arrives (kept), or
  // it is flushed (lost: the QP is in ERR). Anything else is neither.
  const absl::Status posted_recv = pair.remote().PostRecv(3, 0, 64);
  ASSERT_OK(pair.local().Fill({0, 64}, Pattern::Seeded(3)));
  ASSERT_OK(pair.local().Post(SendRequest::Send(4, {{0, 64}})));
  absl::StatusOr<ibv_wc> polled = pair.local().PollSend();
  if (!polled.ok()) pair.remote().AllowLeftoverCompletions("the SEND after the flap is lost; the peer's receive may flush");
  ASSERT_TRUE(polled.ok()) << "the SEND posted after the link flap never completed (neither kept nor flushed): "
                           << polled.status();
  const ibv_wc sent = *polled;
  const bool kept = sent.status == IBV_WC_SUCCESS;
  RecordProperty("connection_after_flap", kept ? "kept" : WcStatusName(sent.status));
  if (kept) {
    EXPECT_THAT(sent, CompletionIs(SendCompletion(4, pair.local().qp_num())));
    ASSERT_OK(posted_recv);
    ASSERT_OK_AND_ASSIGN(ibv_wc received, pair.remote().PollRecv());
    EXPECT_THAT(received, CompletionIs(RecvCompletion(3, pair.remote().qp_num(), 64)))
        << "the SEND completed at the sender after the flap; its receive";
    EXPECT_OK(pair.remote().Check({0, 64}, Pattern::Seeded(3)));
  } else {
    EXPECT_THAT(sent, CompletionIs(ErrorCompletion(4, pair.local().qp_num(), IBV_WC_WR_FLUSH_ERR)))
        << "a SEND after the link flap neither completed successfully (connection kept) nor was flushed "
           "(connection lost, QP in ERR)";
    // The peer's side of a lost connection flushes what it holds; not this test's to grade.
    pair.remote().AllowLeftoverCompletions("the connection was lost across the link flap: the peer's receive flushes");
  }
  // Where ibv_query_qp tells the truth (qp_state_query), it must agree: RTS if kept, ERR if lost.
  const auto query = profile().observed.find(Cap::kQpStateQuery);
  if (query != profile().observed.end() && query->second.outcome == Outcome::kSupported) {
    ASSERT_OK_AND_ASSIGN(ibv_qp_state state, pair.local().QpState());
    EXPECT_EQ(state, kept ? IBV_QPS_RTS : IBV_QPS_ERR)
        << "ibv_query_qp after the flap disagrees with what the SEND showed (" << (kept ? "kept" : "flushed") << ")";
  }
}

// Which kind of address: the GID it makes is IPv4-mapped, or the IPv6 address itself.
enum class AddressFamily { kIpv4, kIpv6 };

class AddressEventsTest : public LinkEventsTest, public ::testing::WithParamInterface<AddressFamily> {
 protected:
  // Documentation ranges (RFC 5737, RFC 3849): never anyone's real address.
  static std::string Cidr() { return GetParam() == AddressFamily::kIpv4 ? "198.51.100.77/32" : "2001:db8::4d:77/128"; }
  static ibv_gid Gid() {
    ibv_gid gid{};
    if (GetParam() == AddressFamily::kIpv4) {
      gid.raw[10] = gid.raw[11] = 0xff;
      const uint8_t ip[4] = {198, 51, 100, 77};
      std::memcpy(gid.raw + 12, ip, 4);
    } else {
      const uint8_t ip[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x4d, 0, 0x77};
      std::memcpy(gid.raw, ip, 16);
    }
    return gid;
  }
  static std::vector<GidEntry> EntriesOf(const std::vector<GidEntry>& table, const ibv_gid& gid) {
    std::vector<GidEntry> found;
    for (const GidEntry& g : table) {
      if (std::memcmp(g.gid.raw, gid.raw, 16) == 0) found.push_back(g);
    }
    return found;
  }
  static absl::StatusOr<std::vector<GidEntry>> GidTable() {
    RDMACHECK_ASSIGN_OR_RETURN(ibv_port_attr attr, QueryPort(context(), port()));
    return ReadGidTable(context(), attr, port());
  }
};

RDMACHECK_ABOUT(AddressEventsTest, AddressAddedAndRemoved,
                "an IP address added to the port's netdev is reported as IBV_EVENT_GID_CHANGE and appears in the "
                "GID table (a RoCE GID of that address on that netdev) without moving any other entry; removed "
                "again, another IBV_EVENT_GID_CHANGE, the GID is gone and the table is as before. Fails when an "
                "event does not come, the GID does not appear or does not go, or other entries change",
                "ibv_get_async_event(3) IBV_EVENT_GID_CHANGE, ibv_query_gid(3), ibv_query_gid_ex(3); IBTA Vol 1 "
                "Annex A17.4 (RoCEv2 GIDs are the port's IP addresses)",
                Cap::kLinkEvents, Cap::kIpGids);
RDMACHECK_RUNS_ALONE(AddressEventsTest, AddressAddedAndRemoved,
                     "it changes the device's GID table, which other tests read to choose and check addresses");
TEST_P(AddressEventsTest, AddressAddedAndRemoved) {
  if (GetParam() == AddressFamily::kIpv6) RDMACHECK_REQUIRE(Cap::kIpv6Gid);
  const ibv_gid gid = Gid();
  ASSERT_OK_AND_ASSIGN(std::vector<GidEntry> before, GidTable());
  ASSERT_TRUE(EntriesOf(before, gid).empty()) << Cidr() << " is already in the GID table";

  ASSERT_OK_AND_ASSIGN(std::unique_ptr<AddedAddress> address, AddedAddress::Add(Netdev(), Cidr()));
  absl::StatusOr<ibv_async_event> added = WaitForAsyncEvent(context(), IBV_EVENT_GID_CHANGE, OnOurPort());
  EXPECT_TRUE(added.ok()) << "no IBV_EVENT_GID_CHANGE after `ip addr add " << Cidr() << " dev " << Netdev()
                          << "`: " << added.status().message();
  ASSERT_OK_AND_ASSIGN(std::vector<GidEntry> with, GidTable());
  const std::vector<GidEntry> entries = EntriesOf(with, gid);
  EXPECT_FALSE(entries.empty()) << "no GID for " << Cidr() << " in the table after it was added";
  for (const GidEntry& e : entries) {
    EXPECT_NE(e.type, IBV_GID_TYPE_IB) << "GID " << e.index << " of " << Cidr() << " is not a RoCE GID";
    EXPECT_EQ(e.netdev, Netdev()) << "GID " << e.index << " of " << Cidr() << " names another netdev";
  }
  std::vector<GidEntry> others;
  for (const GidEntry& g : with) {
    if (std::memcmp(g.gid.raw, gid.raw, 16) != 0) others.push_back(g);
  }
  EXPECT_EQ(GidTableDifference(before, others), "") << "adding " << Cidr() << " changed other GID entries";

  ASSERT_OK(address->Remove());
  absl::StatusOr<ibv_async_event> removed = WaitForAsyncEvent(context(), IBV_EVENT_GID_CHANGE, OnOurPort());
  EXPECT_TRUE(removed.ok()) << "no IBV_EVENT_GID_CHANGE after `ip addr del " << Cidr() << " dev " << Netdev()
                            << "`: " << removed.status().message();
  ASSERT_OK_AND_ASSIGN(std::vector<GidEntry> after, GidTable());
  EXPECT_TRUE(EntriesOf(after, gid).empty()) << "the GID of " << Cidr() << " is still in the table after it was removed";
  EXPECT_EQ(GidTableDifference(before, after), "") << "the GID table differs from before the address was added";
}

INSTANTIATE_TEST_SUITE_P(Families, AddressEventsTest, ::testing::Values(AddressFamily::kIpv4, AddressFamily::kIpv6),
                         [](const ::testing::TestParamInfo<AddressFamily>& info) {
                           return info.param == AddressFamily::kIpv4 ? "Ipv4" : "Ipv6";
                         });

}  // namespace
}  // namespace rdmacheck
