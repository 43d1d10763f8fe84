// UD multicast: a datagram sent to a multicast group reaches every UD QP attached to the
// group, each exactly once, behind a GRH that names the group; a QP detached from the group
// (or an rdma_cm id that left it) receives nothing more. Through the verbs
// (ibv_attach_mcast / ibv_detach_mcast, with the RoCE fabric join made by the test:
// ip_membership.h) and through rdma_cm (rdma_join_multicast / rdma_leave_multicast).
//
// Every test has one sender (a UD QP that is not a member) and two member QPs on the same
// device; the group's datagrams reach the members through the host's multicast loopback.
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "harness/connection/cm_events.h"
#include "harness/completion.h"
#include "harness/patterns.h"
#include "harness/status.h"
#include "harness/multicast_group.h"
#include "harness/verbs/factories.h"
#include "suites/multicast/ip_membership.h"
#include "testing/completion_matchers.h"
#include "testing/device_test.h"
#include "testing/quiet_window.h"

namespace rdmacheck {
namespace {

constexpr uint32_t kGrh = 40;    // IBTA Vol 1 11.4.1.2: a UD receive starts with 40 bytes for the GRH
constexpr uint32_t kBytes = 256;
constexpr uint32_t kSlot = kGrh + kBytes;  // one receive's place in a member's buffer

std::string GidText(const uint8_t* raw) {
  return absl::StrFormat("%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x", raw[0], raw[1],
                         raw[2], raw[3], raw[4], raw[5], raw[6], raw[7], raw[8], raw[9], raw[10], raw[11], raw[12],
                         raw[13], raw[14], raw[15]);
}

// The destination of a received datagram, from its GRH area: an IPv6-format GRH's DGID
// (bytes 24-39, IBTA Vol 1 8.3), or for RoCEv2 over IPv4 (Annex A17) the IPv4 header in the
// last 20 bytes, whose destination address (bytes 36-39) is the group's.
absl::Status CheckGrhNamesGroup(absl::Span<const uint8_t> grh, const MulticastGroup& group) {
  if (group.ipv4) {
    if (grh[20] != 0x45) {
      return absl::DataLossError(absl::StrFormat("GRH byte 20 is 0x%02x, expected 0x45 (an IPv4 header)", grh[20]));
    }
    if (std::memcmp(grh.data() + 36, group.gid.raw + 12, 4) != 0) {
      return absl::DataLossError(absl::StrFormat("the IPv4 destination in the GRH area is %d.%d.%d.%d, not the group %s",
                                                 grh[36], grh[37], grh[38], grh[39], group.text));
    }
    return absl::OkStatus();
  }
  if ((grh[0] >> 4) != 6) return absl::DataLossError(absl::StrFormat("GRH IP version is %d, expected 6", grh[0] >> 4));
  if (std::memcmp(grh.data() + 24, group.gid.raw, 16) != 0) {
    return absl::DataLossError(absl::StrCat("the GRH DGID is ", GidText(grh.data() + 24), ", not the group ",
                                            GidText(group.gid.raw)));
  }
  return absl::OkStatus();
}

// Why the verbs tests skip in two-host mode: both members are the passive endpoints of pairs.
constexpr char kMembersHere[] = "the group's members are the pairs' passive QPs, attached with ibv_attach_mcast in this process";

// Which GID the sender sends from, and so the group's family.
enum class Family { kSelectedGid, kIpv6Gid };

std::string FamilyName(Family f) { return f == Family::kSelectedGid ? "SelectedGid" : "Ipv6Gid"; }

// A member: a QP, its CQ and a buffer of `slots` receives (received message i lands in slot i).
struct Member {
  const char* name;
  ibv_qp* qp;
  ibv_cq* cq;
  ibv_mr* mr;
};

absl::Status PostReceives(const Member& m, int first, int count) {
  for (int i = first; i < first + count; ++i) {
    ibv_sge sge{reinterpret_cast<uint64_t>(m.mr->addr) + i * kSlot, kSlot, m.mr->lkey};
    ibv_recv_wr wr = RecvWr(100 + i, &sge, 1);
    RDMACHECK_RETURN_IF_ERROR(PostRecv(m.qp, wr));
  }
  return absl::OkStatus();
}

// Message `i` (0-based) arrived at `m` exactly as sent: its completion, its bytes, its GRH.
void ExpectDelivered(const Member& m, int i, const ibv_wc& wc, uint32_t sender_qpn, const MulticastGroup& group) {
  SCOPED_TRACE(absl::StrCat(m.name, ", message ", i));
  EXPECT_THAT(wc, CompletionIs(RecvCompletion(100 + i, m.qp->qp_num, kSlot).FromUd(sender_qpn)));
  const uint8_t* slot = static_cast<const uint8_t*>(m.mr->addr) + i * kSlot;
  EXPECT_OK(CheckPattern({slot + kGrh, kBytes}, Pattern::Seeded(i + 1)));
  EXPECT_OK(CheckGrhNamesGroup({slot, kGrh}, group));
}

// Nothing reaches `m` within the quiet window: `why` says what it must not have received.
void ExpectNothing(const Member& m, const QuietWindow& quiet, absl::string_view why) {
  std::vector<ibv_wc> got = DrainCompletions(m.cq, quiet.duration);
  EXPECT_TRUE(got.empty()) << m.name << " received " << got.size() << " datagram(s) " << why << " (watched " << quiet
                           << "): " << DescribeWc(got.front());
}

// What every multicast test uses: UD pairs (the sender is a pair's local endpoint), the
// fabric's join, a SEND to the group.
class MulticastBase : public DeviceTest {
 protected:
  static PairOptions Options() {
    PairOptions o;
    o.qp_type = IBV_QPT_UD;
    o.method = ConnectMethod::kManual;  // UD needs no connection
    return o;
  }

  // The sender's GID for `family`.
  static absl::StatusOr<GidEntry> SenderGid(Family family) {
    if (family == Family::kSelectedGid) return selection().gid;
    RDMACHECK_ASSIGN_OR_RETURN(std::vector<GidEntry> gids, ReadGidTable(context(), selection().port_attr, port()));
    const GidEntry* v6 = nullptr;
    for (const GidEntry& g : gids) {
      if (g.IsZero() || g.IsIpv4Mapped()) continue;
      if (v6 == nullptr || (v6->type != IBV_GID_TYPE_ROCE_V2 && g.type == IBV_GID_TYPE_ROCE_V2)) v6 = &g;
    }
    if (v6 == nullptr) return absl::NotFoundError("no IPv6 GID in the table");
    return *v6;
  }

  // The fabric's join on RoCE (ip_membership.h); InfiniBand would need the SA's.
  static absl::StatusOr<std::unique_ptr<IpMembership>> FabricJoin(const MulticastGroup& group) {
    if (selection().port_attr.link_layer != IBV_LINK_LAYER_ETHERNET) return std::unique_ptr<IpMembership>();
    const std::string netdev = profile().identity.netdev;
    return IpMembership::Join(group, netdev.empty() ? selection().gid.netdev : netdev);
  }

  // Sends message `i` (kBytes of Pattern::Seeded(i + 1)) from `sender` to the group.
  static absl::Status SendToGroup(LocalEndpoint& sender, ibv_ah* ah, uint32_t qkey, int i) {
    RDMACHECK_RETURN_IF_ERROR(sender.Fill({0, kBytes}, Pattern::Seeded(i + 1)));
    ibv_sge sge = sender.Sge(0, kBytes);
    ibv_send_wr wr = SendWr(i, &sge, 1);
    wr.wr.ud = {ah, kMulticastQpn, qkey};
    RDMACHECK_RETURN_IF_ERROR(PostSend(sender.qp(), wr));
    RDMACHECK_ASSIGN_OR_RETURN(ibv_wc sent, sender.PollSend());
    if (sent.status != IBV_WC_SUCCESS || sent.wr_id != static_cast<uint64_t>(i)) {
      return absl::InternalError(absl::StrCat("the SEND to the group completed as ", DescribeWc(sent)));
    }
    return absl::OkStatus();
  }

  // A bounded wait for `count` datagrams at `m`, failing with what did not come.
  static absl::StatusOr<std::vector<ibv_wc>> Receive(const Member& m, int count, const MulticastGroup& group) {
    absl::StatusOr<std::vector<ibv_wc>> got = PollCompletions(m.cq, count);
    if (!got.ok()) {
      return absl::DeadlineExceededError(absl::StrCat(m.name, " did not receive ", count == 1 ? "the datagram" : "all datagrams",
                                                      " sent to ", group.text, ": ", got.status().message()));
    }
    return got;
  }
};

class MulticastTest : public MulticastBase, public ::testing::WithParamInterface<Family> {};

RDMACHECK_ABOUT(MulticastTest, EveryAttachedQpReceivesEachMessage,
                "three UD SENDs to a multicast group reach each of two QPs attached to it exactly once, in order: "
                "byte_len = 40 + size, IBV_WC_GRH, src_qp = the sender's QPN, the bytes intact, and the GRH area's "
                "destination is the group (the DGID, or for RoCEv2 over IPv4 the IPv4 destination); nothing more "
                "arrives within the quiet window. Fails when a member misses a message or gets one twice, when "
                "IBV_WC_GRH is clear or the GRH names another destination",
                "IBTA Vol 1 10.5 (multicast: every QP attached to the group receives a copy), 11.3.1 (attach QP "
                "to multicast group), 11.4.1.2 (UD receive: 40 bytes for the GRH), 8.3 (GRH DGID); Annex A17 "
                "(RoCEv2); ibv_attach_mcast(3); ibv_poll_cq(3) IBV_WC_GRH",
                Cap::kMulticast, Cap::kUdQp, Cap::kAddressHandle);
TEST_P(MulticastTest, EveryAttachedQpReceivesEachMessage) {
  RDMACHECK_REQUIRE_LOOPBACK(kMembersHere);
  if (GetParam() == Family::kIpv6Gid) RDMACHECK_REQUIRE(Cap::kIpv6Gid);
  ASSERT_OK_AND_ASSIGN(GidEntry sgid, SenderGid(GetParam()));
  const MulticastGroup group = MulticastGroupFor(sgid, GetParam() == Family::kSelectedGid ? 1 : 2);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<IpMembership> fabric, FabricJoin(group));
  ASSERT_OK_AND_ASSIGN(ConnectedPair first, CreatePair(Options()));
  ASSERT_OK_AND_ASSIGN(ConnectedPair second, CreatePair(Options()));
  LocalEndpoint& sender = first.local();
  const Member members[] = {{"member 1", first.remote().qp(), first.remote().recv_cq(), first.remote().mr()},
                            {"member 2", second.remote().qp(), second.remote().recv_cq(), second.remote().mr()}};
  constexpr int kMessages = 3;
  for (const Member& m : members) {
    ASSERT_EQ(ibv_attach_mcast(m.qp, &group.gid, 0), 0) << m.name << ": ibv_attach_mcast(" << group.text << ")";
    ASSERT_OK(PostReceives(m, 0, kMessages));
  }
  ASSERT_OK_AND_ASSIGN(AhPtr ah, CreateAh(sender.pd(), AhAttrToGroup(selection(), sgid, group)));
  for (int i = 0; i < kMessages; ++i) ASSERT_OK(SendToGroup(sender, ah.get(), first.remote().qkey(), i));

  for (const Member& m : members) {
    ASSERT_OK_AND_ASSIGN(std::vector<ibv_wc> got, Receive(m, kMessages, group));
    for (int i = 0; i < kMessages; ++i) ExpectDelivered(m, i, got[i], sender.qp_num(), group);
  }
  const QuietWindow quiet = QuietWindowForCompletions();
  for (const Member& m : members) ExpectNothing(m, quiet, "more than once");
  for (const Member& m : members) EXPECT_EQ(ibv_detach_mcast(m.qp, &group.gid, 0), 0) << m.name;
}

RDMACHECK_ABOUT(MulticastTest, DetachedQpReceivesNothing,
                "with two QPs attached, a SEND to the group reaches both; after ibv_detach_mcast of one, the next "
                "reaches only the other; after detaching both, the next SEND still completes successfully at the "
                "sender and reaches neither. Fails when a detached QP still receives within the quiet window, or "
                "a QP still attached stops receiving",
                "IBTA Vol 1 11.3.2 (detach QP from multicast group), 10.5; ibv_detach_mcast(3); ibv_post_send(3) "
                "(UD: a datagram no one receives still completes)",
                Cap::kMulticast, Cap::kUdQp, Cap::kAddressHandle);
TEST_P(MulticastTest, DetachedQpReceivesNothing) {
  RDMACHECK_REQUIRE_LOOPBACK(kMembersHere);
  if (GetParam() == Family::kIpv6Gid) RDMACHECK_REQUIRE(Cap::kIpv6Gid);
  ASSERT_OK_AND_ASSIGN(GidEntry sgid, SenderGid(GetParam()));
  const MulticastGroup group = MulticastGroupFor(sgid, GetParam() == Family::kSelectedGid ? 3 : 4);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<IpMembership> fabric, FabricJoin(group));
  ASSERT_OK_AND_ASSIGN(ConnectedPair first, CreatePair(Options()));
  ASSERT_OK_AND_ASSIGN(ConnectedPair second, CreatePair(Options()));
  LocalEndpoint& sender = first.local();
  const Member one{"member 1", first.remote().qp(), first.remote().recv_cq(), first.remote().mr()};
  const Member two{"member 2", second.remote().qp(), second.remote().recv_cq(), second.remote().mr()};
  for (const Member* m : {&one, &two}) {
    ASSERT_EQ(ibv_attach_mcast(m->qp, &group.gid, 0), 0) << m->name << ": ibv_attach_mcast(" << group.text << ")";
    ASSERT_OK(PostReceives(*m, 0, 3));
  }
  ASSERT_OK_AND_ASSIGN(AhPtr ah, CreateAh(sender.pd(), AhAttrToGroup(selection(), sgid, group)));
  const uint32_t qkey = first.remote().qkey();
  const QuietWindow quiet = QuietWindowForCompletions();

  // Both attached: both receive (what the rest of the test stands on).
  ASSERT_OK(SendToGroup(sender, ah.get(), qkey, 0));
  for (const Member* m : {&one, &two}) {
    ASSERT_OK_AND_ASSIGN(std::vector<ibv_wc> wc, Receive(*m, 1, group));
    ExpectDelivered(*m, 0, wc[0], sender.qp_num(), group);
  }

  // Member 2 detached: only member 1 receives.
  ASSERT_EQ(ibv_detach_mcast(two.qp, &group.gid, 0), 0) << "ibv_detach_mcast(member 2)";
  ASSERT_OK(SendToGroup(sender, ah.get(), qkey, 1));
  ASSERT_OK_AND_ASSIGN(std::vector<ibv_wc> wc, Receive(one, 1, group));  // still attached
  ExpectDelivered(one, 1, wc[0], sender.qp_num(), group);
  ExpectNothing(two, quiet, "after ibv_detach_mcast");

  // Both detached: the SEND completes, no one receives.
  ASSERT_EQ(ibv_detach_mcast(one.qp, &group.gid, 0), 0) << "ibv_detach_mcast(member 1)";
  ASSERT_OK(SendToGroup(sender, ah.get(), qkey, 2));
  ExpectNothing(one, quiet, "after ibv_detach_mcast");
  ExpectNothing(two, quiet, "after ibv_detach_mcast");
}

INSTANTIATE_TEST_SUITE_P(Groups, MulticastTest, ::testing::Values(Family::kSelectedGid, Family::kIpv6Gid),
                         [](const ::testing::TestParamInfo<Family>& info) { return FamilyName(info.param); });

// ---- rdma_cm

// A member through rdma_cm: a UD id (RDMA_PS_UDP) bound to the device's address, with a QP
// made by rdma_create_qp and a buffer of three receives.
class CmMember {
 public:
  static absl::StatusOr<std::unique_ptr<CmMember>> Create(const char* name, const sockaddr_storage& local) {
    std::unique_ptr<CmMember> m(new CmMember(name));
    m->channel_.reset(rdma_create_event_channel());
    if (!m->channel_) return ErrnoStatus(errno, "rdma_create_event_channel");
    rdma_cm_id* raw = nullptr;
    if (rdma_create_id(m->channel_.get(), &raw, nullptr, RDMA_PS_UDP) != 0) return ErrnoStatus(errno, "rdma_create_id");
    m->id_.reset(raw);
    sockaddr_storage address = local;
    if (rdma_bind_addr(raw, reinterpret_cast<sockaddr*>(&address)) != 0) {
      return ErrnoStatus(errno, absl::StrCat("rdma_bind_addr(", SockaddrToString(local), ")"));
    }
    if (raw->verbs == nullptr) return absl::FailedPreconditionError("rdma_bind_addr left the id without a device");
    RDMACHECK_ASSIGN_OR_RETURN(m->pd_, AllocPd(raw->verbs));
    RDMACHECK_ASSIGN_OR_RETURN(m->cq_, CreateCq(raw->verbs, 16));
    RDMACHECK_ASSIGN_OR_RETURN(m->mr_, RegMr(m->pd_.get(), absl::MakeSpan(m->buffer_), IBV_ACCESS_LOCAL_WRITE));
    ibv_qp_init_attr init = QpInitAttr(IBV_QPT_UD, m->cq_.get());
    if (rdma_create_qp(raw, m->pd_.get(), &init) != 0) return ErrnoStatus(errno, "rdma_create_qp(UD)");
    return m;
  }
  ~CmMember() {
    if (id_ && id_->qp) rdma_destroy_qp(id_.get());
    mr_.reset();
    cq_.reset();
    pd_.reset();
    id_.reset();
  }

  // rdma_join_multicast and its RDMA_CM_EVENT_MULTICAST_JOIN: the group's UD parameters.
  absl::StatusOr<rdma_ud_param> Join(const MulticastGroup& group) {
    sockaddr_storage address = group.address;
    if (rdma_join_multicast(id_.get(), reinterpret_cast<sockaddr*>(&address), nullptr) != 0) {
      return ErrnoStatus(errno, absl::StrCat("rdma_join_multicast(", group.text, ")"));
    }
    RDMACHECK_ASSIGN_OR_RETURN(CmEventPtr event, ExpectCmEvent(channel_.get(), RDMA_CM_EVENT_MULTICAST_JOIN));
    return event->param.ud;
  }
  absl::Status Leave(const MulticastGroup& group) {
    sockaddr_storage address = group.address;
    if (rdma_leave_multicast(id_.get(), reinterpret_cast<sockaddr*>(&address)) != 0) {
      return ErrnoStatus(errno, absl::StrCat("rdma_leave_multicast(", group.text, ")"));
    }
    return absl::OkStatus();
  }
  Member member() const { return {name_, id_->qp, cq_.get(), mr_.get()}; }
  uint32_t qkey() const {
    ibv_qp_attr attr{};
    ibv_qp_init_attr init{};
    return ibv_query_qp(id_->qp, &attr, IBV_QP_QKEY, &init) == 0 ? attr.qkey : 0;
  }

 private:
  explicit CmMember(const char* name) : name_(name) {}
  const char* name_;
  CmChannelPtr channel_;
  CmIdPtr id_;
  std::vector<uint8_t> buffer_ = std::vector<uint8_t>(4096);
  PdPtr pd_;
  CqPtr cq_;
  MrPtr mr_;
};

class CmMulticastTest : public MulticastBase {};

RDMACHECK_ABOUT(CmMulticastTest, JoinedIdsReceiveUntilTheyLeave,
                "two UD rdma_cm ids join one group (RDMA_CM_EVENT_MULTICAST_JOIN: ud.qp_num 0xFFFFFF, the QKey "
                "of the ids' QPs, an AH whose DGID is the group); a SEND through that AH reaches both with "
                "IBV_WC_GRH and the group as destination; after rdma_leave_multicast of one only the other "
                "receives, after both left no one does. Fails on a wrong join event, a member that misses a "
                "datagram, or one that still receives after leaving",
                "rdma_join_multicast(3), rdma_leave_multicast(3), rdma_get_cm_event(3) (MULTICAST_JOIN: "
                "param.ud); rdma_cma.h RDMA_UDP_QKEY; IBTA Vol 1 10.5, 11.3; Annex A17",
                Cap::kCmMulticast, Cap::kUdQp, Cap::kAddressHandle);
TEST_F(CmMulticastTest, JoinedIdsReceiveUntilTheyLeave) {
  ASSERT_OK_AND_ASSIGN(sockaddr_storage local, SelectionAddress(selection()));
  const MulticastGroup group = local.ss_family == AF_INET ? Ipv4MulticastGroup(5) : Ipv6MulticastGroup(5);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<CmMember> one, CmMember::Create("member 1", local));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<CmMember> two, CmMember::Create("member 2", local));
  rdma_ud_param ud{};
  for (CmMember* m : {one.get(), two.get()}) {
    SCOPED_TRACE(m->member().name);
    ASSERT_OK_AND_ASSIGN(ud, m->Join(group));
    EXPECT_EQ(ud.qp_num, kMulticastQpn);
    EXPECT_EQ(ud.qkey, m->qkey()) << "the join's QKey is not the one of the id's QP";
    EXPECT_EQ(ud.ah_attr.is_global, 1);
    EXPECT_EQ(std::memcmp(ud.ah_attr.grh.dgid.raw, group.gid.raw, 16), 0)
        << "the join's AH goes to " << GidText(ud.ah_attr.grh.dgid.raw) << ", not the group " << GidText(group.gid.raw);
    ASSERT_OK(PostReceives(m->member(), 0, 3));
  }
  PairOptions options = Options();
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  LocalEndpoint& sender = pair.local();
  ASSERT_OK_AND_ASSIGN(AhPtr ah, CreateAh(sender.pd(), ud.ah_attr));
  const QuietWindow quiet = QuietWindowForCompletions();

  ASSERT_OK(SendToGroup(sender, ah.get(), ud.qkey, 0));
  for (CmMember* m : {one.get(), two.get()}) {
    ASSERT_OK_AND_ASSIGN(std::vector<ibv_wc> wc, Receive(m->member(), 1, group));
    ExpectDelivered(m->member(), 0, wc[0], sender.qp_num(), group);
  }
  ExpectNothing(one->member(), quiet, "more than once");
  ExpectNothing(two->member(), quiet, "more than once");

  ASSERT_OK(two->Leave(group));
  ASSERT_OK(SendToGroup(sender, ah.get(), ud.qkey, 1));
  ASSERT_OK_AND_ASSIGN(std::vector<ibv_wc> wc, Receive(one->member(), 1, group));  // still joined
  ExpectDelivered(one->member(), 1, wc[0], sender.qp_num(), group);
  ExpectNothing(two->member(), quiet, "after rdma_leave_multicast");

  ASSERT_OK(one->Leave(group));
  ASSERT_OK(SendToGroup(sender, ah.get(), ud.qkey, 2));
  ExpectNothing(one->member(), quiet, "after rdma_leave_multicast");
  ExpectNothing(two->member(), quiet, "after rdma_leave_multicast");
}

// What ibv_attach_mcast, ibv_detach_mcast and ibv_destroy_qp refuse: a QP that is not UD,
// a GID that is not a multicast one, a group the QP never joined, and destroying a QP
// still attached. Each returns the value of errno (the kernel's ib_attach_mcast,
// ib_uverbs_detach_mcast and uverbs_free_qp, drivers/infiniband/core). No datagram is sent.
class MulticastRefusalTest : public DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped()) return;
    ASSERT_OK_AND_ASSIGN(pd_, AllocPd(context()));
    ASSERT_OK_AND_ASSIGN(cq_, CreateCq(context(), 16));
    group_ = MulticastGroupFor(selection().gid, 5);
  }
  absl::StatusOr<QpPtr> Qp(ibv_qp_type type) { return CreateQp(pd_.get(), QpInitAttr(type, cq_.get())); }

  PdPtr pd_;
  CqPtr cq_;
  MulticastGroup group_;
};

RDMACHECK_ABOUT(MulticastRefusalTest, AttachingAnRcQpFailsEinval,
                "ibv_attach_mcast of an RC QP to a multicast group returns EINVAL: only UD QPs join groups. Fails "
                "when the attach succeeds or returns another value",
                "IBTA Vol 1 10.5 (multicast is for unreliable datagram QPs), 11.3.1; ibv_attach_mcast(3) (\"returns "
                "0 on success, or the value of errno on failure\"); drivers/infiniband/core/verbs.c ib_attach_mcast",
                Cap::kMulticast, Cap::kRcQp);
TEST_F(MulticastRefusalTest, AttachingAnRcQpFailsEinval) {
  ASSERT_OK_AND_ASSIGN(QpPtr rc, Qp(IBV_QPT_RC));
  const int rc_attach = ibv_attach_mcast(rc.get(), &group_.gid, 0);
  EXPECT_THAT(rc_attach, ErrnoIs(EINVAL)) << "ibv_attach_mcast(RC QP, " << group_.text << ")";
  if (rc_attach == 0) EXPECT_EQ(ibv_detach_mcast(rc.get(), &group_.gid, 0), 0);
}

RDMACHECK_ABOUT(MulticastRefusalTest, AttachingToAUnicastGidFailsEinval,
                "ibv_attach_mcast of a UD QP to the port's own (unicast) GID returns EINVAL: a group's GID is a "
                "multicast address (first byte 0xff). Fails when the attach succeeds or returns another value",
                "IBTA Vol 1 4.1.1 (multicast GIDs: 0xFF prefix), 11.3.1; ibv_attach_mcast(3); "
                "drivers/infiniband/core/verbs.c ib_attach_mcast (rdma_is_multicast_addr)",
                Cap::kMulticast, Cap::kUdQp);
TEST_F(MulticastRefusalTest, AttachingToAUnicastGidFailsEinval) {
  ASSERT_OK_AND_ASSIGN(QpPtr ud, Qp(IBV_QPT_UD));
  const ibv_gid unicast = selection().gid.gid;
  const int attach = ibv_attach_mcast(ud.get(), &unicast, 0);
  EXPECT_THAT(attach, ErrnoIs(EINVAL)) << "ibv_attach_mcast(UD QP, " << selection().gid.Address() << ")";
  if (attach == 0) EXPECT_EQ(ibv_detach_mcast(ud.get(), &unicast, 0), 0);
}

RDMACHECK_ABOUT(MulticastRefusalTest, DetachingAGroupNeverJoinedFailsEinval,
                "ibv_detach_mcast of a UD QP from a group it was never attached to returns EINVAL. Fails when the "
                "detach returns 0 or another value",
                "IBTA Vol 1 11.3.1 (detach QP from multicast group); ibv_attach_mcast(3) (ibv_detach_mcast: \"returns "
                "0 on success, or the value of errno on failure\"); drivers/infiniband/core/uverbs_cmd.c "
                "ib_uverbs_detach_mcast",
                Cap::kMulticast, Cap::kUdQp);
TEST_F(MulticastRefusalTest, DetachingAGroupNeverJoinedFailsEinval) {
  ASSERT_OK_AND_ASSIGN(QpPtr ud, Qp(IBV_QPT_UD));
  EXPECT_THAT(ibv_detach_mcast(ud.get(), &group_.gid, 0), ErrnoIs(EINVAL)) << "ibv_detach_mcast(" << group_.text << ")";
}

RDMACHECK_ABOUT(MulticastRefusalTest, DestroyingAnAttachedQpFailsBusy,
                "ibv_destroy_qp of a UD QP still attached to a group returns EBUSY and the QP is still there (it "
                "detaches with 0 and is then destroyed with 0). Fails when the QP is destroyed while attached, or "
                "the refusal is another value",
                "ibv_create_qp(3) (\"ibv_destroy_qp() fails if the QP is attached to a multicast group\"); "
                "ibv_destroy_qp returns the value of errno on failure; drivers/infiniband/core/"
                "uverbs_std_types_qp.c uverbs_free_qp (-EBUSY while the mcast list is not empty)",
                Cap::kMulticast, Cap::kUdQp);
TEST_F(MulticastRefusalTest, DestroyingAnAttachedQpFailsBusy) {
  ASSERT_OK_AND_ASSIGN(QpPtr ud, Qp(IBV_QPT_UD));
  ASSERT_EQ(ibv_attach_mcast(ud.get(), &group_.gid, 0), 0) << "ibv_attach_mcast(" << group_.text << ")";
  const int destroyed = ibv_destroy_qp(ud.get());
  if (destroyed == 0) {
    ud.release();  // gone: the deleter must not destroy it again
    FAIL() << "ibv_destroy_qp destroyed a QP attached to " << group_.text;
  }
  EXPECT_THAT(destroyed, ErrnoIs(EBUSY)) << "ibv_destroy_qp of an attached QP";
  EXPECT_EQ(ibv_detach_mcast(ud.get(), &group_.gid, 0), 0) << "the refused QP no longer detaches";
  EXPECT_EQ(ibv_destroy_qp(ud.release()), 0) << "the detached QP is not destroyed";
}

}  // namespace
}  // namespace rdmacheck
