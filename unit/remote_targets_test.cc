// Side-channel requests of protocol version 3 (two-host mode), without an RDMA device: a
// ProxyGuardedTarget talks through a real PeerLink and TCP side channel to ServedTargets,
// which serves a fake target in memory. The canary the access suites check on the peer
// comes back byte for byte, and a changed byte anywhere (guard pages included) is caught.
// The QP requests (move_qp_to, qp_state, rewire) carry what the peer needs.
#include <atomic>
#include <memory>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/device.h"
#include "harness/remote/peer_link.h"
#include "harness/remote/proxy_guarded_target.h"
#include "harness/remote/served_targets.h"
#include "harness/remote/side_channel.h"
#include "harness/remote/wire.h"
#include "testing/status_matchers.h"

namespace rdmacheck {
namespace {

using ::testing::HasSubstr;

// A target in memory: canary everywhere, keys that change on re-registration.
class FakeTarget : public GuardedTarget {
 public:
  explicit FakeTarget(GuardSpec spec) : spec(spec), bytes(GuardedRegion::kTotalBytes, GuardedRegion::kCanary) {}
  RemoteBuffer remote() const override { return {spec.iova.value_or(0x10000), rkey, GuardedRegion::kMrBytes}; }
  uint64_t virtual_address() const override { return 0x10000; }
  uint32_t lkey() const override { return rkey + 1; }
  absl::Status Deregister() override {
    deregistered = true;
    return absl::OkStatus();
  }
  absl::Status Reregister(int access) override {
    spec.access = access;
    rkey += 0x100;
    return absl::OkStatus();
  }
  absl::Status PostRecv(uint64_t wr_id, uint32_t length, uint32_t lkey_xor) override {
    recv = {wr_id, length, lkey_xor};
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<uint8_t>> ReadAll() const override { return bytes; }

  GuardSpec spec;
  std::vector<uint8_t> bytes;
  uint32_t rkey = 0x1200;
  bool deregistered = false;
  std::tuple<uint64_t, uint32_t, uint32_t> recv{};
};

// An endpoint that only makes fake targets (the rest is not asked for here).
class FakeEndpoint : public Endpoint {
 public:
  bool in_this_process() const override { return true; }
  absl::Status Fill(Slice, Pattern) override { return Unasked(); }
  absl::Status Check(Slice, Pattern) const override { return Unasked(); }
  absl::StatusOr<std::vector<uint8_t>> Read(Slice) const override { return Unasked(); }
  absl::Status Write(size_t, absl::Span<const uint8_t>) override { return Unasked(); }
  absl::StatusOr<std::vector<ibv_wc>> PollSends(int, absl::Duration) override { return Unasked(); }
  absl::StatusOr<std::vector<ibv_wc>> PollRecvs(int, absl::Duration) override { return Unasked(); }
  absl::StatusOr<std::vector<ibv_wc>> DrainSends(absl::Duration) override { return Unasked(); }
  absl::StatusOr<std::vector<ibv_wc>> DrainRecvs(absl::Duration) override { return Unasked(); }
  absl::StatusOr<std::unique_ptr<GuardedTarget>> Guard(const GuardSpec& spec) override {
    auto target = std::make_unique<FakeTarget>(spec);
    made = target.get();
    return std::unique_ptr<GuardedTarget>(std::move(target));
  }
  absl::Status MoveQpTo(ibv_qp_state) override { return Unasked(); }
  absl::StatusOr<ibv_qp_state> QpState() const override { return Unasked(); }
  absl::Status Rewire(const QpAddress&, uint32_t, const PairOptions&) override { return Unasked(); }
  absl::StatusOr<EndpointInfo> Prepare(const PairOptions&) override { return Unasked(); }
  absl::Status Wire(const EndpointInfo&, const PairOptions&) override { return Unasked(); }
  absl::StatusOr<sockaddr_storage> Listen(const PairOptions&) override { return Unasked(); }
  absl::Status Accept(const PairOptions&) override { return Unasked(); }
  absl::Status AwaitEstablished() override { return Unasked(); }

  FakeTarget* made = nullptr;  // the last target made (owned by ServedTargets)

 protected:
  absl::Status DoPostRecv(uint64_t, absl::Span<const Slice>) override { return Unasked(); }
  absl::Status DoPost(absl::Span<const SendRequest>) override { return Unasked(); }

 private:
  static absl::Status Unasked() { return absl::UnimplementedError("not part of this test"); }
};

// A peer that answers hello, new and destroy itself and the target requests through
// ServedTargets, in a thread, until the link closes.
class FakePeer {
 public:
  FakePeer() {
    absl::StatusOr<SideChannelListener> listener = SideChannelListener::Listen(0);
    if (!listener.ok()) return;
    port_ = listener->port();
    thread_ = std::thread([this, l = std::move(*listener)]() mutable {
      absl::StatusOr<SideChannel> channel = l.Accept(absl::Seconds(10));
      if (!channel.ok()) return;
      for (;;) {
        absl::StatusOr<nlohmann::json> request = channel->Receive(absl::Seconds(10));
        if (!request.ok()) return;
        nlohmann::json answer = Answer(*request);
        answer["seq"] = request->value("seq", uint64_t{0});
        if (!channel->Send(answer).ok()) return;
      }
    });
  }
  ~FakePeer() { thread_.join(); }

  std::string address() const { return absl::StrCat("127.0.0.1:", port_); }
  FakeEndpoint endpoint;
  ServedTargets targets;
  std::vector<nlohmann::json> qp_requests;  // move_qp_to, qp_state, rewire, as received

 private:
  nlohmann::json Answer(const nlohmann::json& request) {
    const std::string op = request.value("op", "");
    absl::StatusOr<nlohmann::json> answer = nlohmann::json::object();
    if (op == "hello") {
      answer = nlohmann::json{{"transport", TransportName(IBV_TRANSPORT_IB)}, {"device", "fake0"}};
    } else if (op == "new") {
      answer = nlohmann::json{{"ep", 1}};
    } else if (op == "destroy") {
      targets.DropEndpoint(1);
    } else if (ServedTargets::Handles(op)) {
      answer = targets.Handle(op, request.at("ep").get<int64_t>(), endpoint, request);
    } else if (op == "move_qp_to" || op == "qp_state" || op == "rewire") {
      qp_requests.push_back(request);
      if (op == "qp_state") answer = nlohmann::json{{"state", static_cast<int>(IBV_QPS_RESET)}};
      if (op == "rewire") answer = nlohmann::json{{"state", RewiredState(request)}};
    }
    if (!answer.ok()) return ErrorToJson(answer.status());
    (*answer)["ok"] = true;
    return *answer;
  }

  // An endpoint state (peer_server.cc's answer to a pair-building step) after a rewire.
  static nlohmann::json RewiredState(const nlohmann::json& request) {
    QpAddress own;
    own.qp_num = 17;
    own.psn = request.at("psn").get<uint32_t>();
    absl::StatusOr<EndpointInfo> peer = InfoFromJson(request.at("peer"));
    return {{"own", ToJson(EndpointInfo{own, {}})},
            {"peer", ToJson(peer.ok() ? *peer : EndpointInfo{})},
            {"qkey", 0},
            {"cap",
             {{"max_send_wr", 16}, {"max_recv_wr", 16}, {"max_send_sge", 1}, {"max_recv_sge", 1}, {"max_inline_data", 0}}}};
  }

  uint16_t port_ = 0;
  std::thread thread_;
};

TEST(RemoteTargetsTest, GuardSpecAndRemoteBufferRoundTrip) {
  ASSERT_OK_AND_ASSIGN(GuardSpec spec, GuardSpecFromJson(ToJson(GuardSpec{IBV_ACCESS_REMOTE_READ, true})));
  EXPECT_EQ(spec.access, IBV_ACCESS_REMOTE_READ);
  EXPECT_TRUE(spec.other_pd);
  EXPECT_FALSE(spec.iova.has_value());
  GuardSpec zero_based;
  zero_based.iova = 0;
  ASSERT_OK_AND_ASSIGN(GuardSpec at_iova, GuardSpecFromJson(ToJson(zero_based)));
  EXPECT_EQ(at_iova.iova, absl::optional<uint64_t>(0)) << "an iova of 0 (zero-based) is not \"no iova\"";
  ASSERT_OK_AND_ASSIGN(RemoteBuffer b, RemoteBufferFromJson(ToJson(RemoteBuffer{0xffff00001000ull, 0xabcdef, 4096})));
  EXPECT_EQ(b.addr, 0xffff00001000ull);
  EXPECT_EQ(b.rkey, 0xabcdefu);
  EXPECT_EQ(b.length, 4096u);
  EXPECT_TRUE(absl::IsDataLoss(GuardSpecFromJson(nlohmann::json{{"access", 1}}).status()));
  EXPECT_TRUE(absl::IsDataLoss(RemoteBufferFromJson(nlohmann::json::array()).status()));
}

TEST(RemoteTargetsTest, CanaryComesBackByteForByte) {
  FakePeer peer;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<PeerLink> link, PeerLink::Connect(peer.address(), IBV_TRANSPORT_IB));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Endpoint> endpoint, link->NewEndpoint());
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GuardedTarget> target, endpoint->Guard({IBV_ACCESS_REMOTE_WRITE, true}));
  ASSERT_NE(peer.endpoint.made, nullptr);
  EXPECT_EQ(peer.endpoint.made->spec.access, IBV_ACCESS_REMOTE_WRITE);
  EXPECT_TRUE(peer.endpoint.made->spec.other_pd);
  EXPECT_EQ(target->remote().rkey, 0x1200u);
  EXPECT_EQ(target->lkey(), 0x1201u);
  EXPECT_OK(target->CheckCanary());

  // One byte past the MR, in the upper guard page: the check names it as the loopback one would.
  peer.endpoint.made->bytes[GuardedRegion::kGuardBytes + GuardedRegion::kMrBytes] = 0;
  absl::Status changed = target->CheckCanary();
  EXPECT_TRUE(absl::IsDataLoss(changed)) << changed;
  EXPECT_THAT(std::string(changed.message()), HasSubstr("canary around a refused access changed"));
  EXPECT_EQ(changed, GuardedRegion::CheckGuardedBytes(peer.endpoint.made->bytes));
}

// A target at an iova: the peer registers it there, and the proxy learns both addresses
// (the iova tests aim one request at each).
TEST(RemoteTargetsTest, TargetAtAnIovaKeepsBothAddresses) {
  FakePeer peer;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<PeerLink> link, PeerLink::Connect(peer.address(), IBV_TRANSPORT_IB));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Endpoint> endpoint, link->NewEndpoint());
  GuardSpec spec{IBV_ACCESS_REMOTE_WRITE};
  spec.iova = 0x5000000000ull;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GuardedTarget> target, endpoint->Guard(spec));
  ASSERT_NE(peer.endpoint.made, nullptr);
  EXPECT_EQ(peer.endpoint.made->spec.iova, absl::optional<uint64_t>(0x5000000000ull));
  EXPECT_EQ(target->remote().addr, 0x5000000000ull);
  EXPECT_EQ(target->virtual_address(), 0x10000u);
}

TEST(RemoteTargetsTest, StateChangesTravelBothWays) {
  FakePeer peer;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<PeerLink> link, PeerLink::Connect(peer.address(), IBV_TRANSPORT_IB));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Endpoint> endpoint, link->NewEndpoint());
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GuardedTarget> target, endpoint->Guard({IBV_ACCESS_LOCAL_WRITE}));
  FakeTarget& served = *peer.endpoint.made;

  ASSERT_OK(target->Reregister(IBV_ACCESS_REMOTE_READ));
  EXPECT_EQ(served.spec.access, IBV_ACCESS_REMOTE_READ);
  EXPECT_EQ(target->remote().rkey, 0x1300u) << "the new keys come back with the answer";
  ASSERT_OK(target->PostRecv(7, 64, 0x5a));
  EXPECT_EQ(served.recv, std::make_tuple(uint64_t{7}, uint32_t{64}, uint32_t{0x5a}));
  ASSERT_OK(target->Deregister());
  EXPECT_TRUE(served.deregistered);
  EXPECT_EQ(target->remote().rkey, 0x1300u) << "a deregistered target keeps its (now stale) rkey";
}

TEST(RemoteQpRequestsTest, StateMovesQueriesAndRewiresReachThePeer) {
  FakePeer peer;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<PeerLink> link, PeerLink::Connect(peer.address(), IBV_TRANSPORT_IB));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Endpoint> endpoint, link->NewEndpoint());
  ASSERT_OK(endpoint->MoveQpTo(IBV_QPS_ERR));
  EXPECT_THAT(endpoint->QpState(), IsOkAndHolds(IBV_QPS_RESET));
  QpAddress to;
  to.qp_num = 99;
  to.psn = 0x3000;
  PairOptions options;
  options.path_mtu = IBV_MTU_1024;
  ASSERT_OK(endpoint->Rewire(to, 0x4000, options));
  EXPECT_EQ(endpoint->address().psn, 0x4000u) << "the endpoint's state is taken over from the answer";
  EXPECT_EQ(endpoint->peer_address().qp_num, 99u);

  ASSERT_EQ(peer.qp_requests.size(), 3u);
  EXPECT_EQ(peer.qp_requests[0]["op"], "move_qp_to");
  EXPECT_EQ(peer.qp_requests[0]["state"], static_cast<int>(IBV_QPS_ERR));
  EXPECT_EQ(peer.qp_requests[1]["op"], "qp_state");
  EXPECT_EQ(peer.qp_requests[2]["psn"], 0x4000);
  ASSERT_OK_AND_ASSIGN(PairOptions sent, OptionsFromJson(peer.qp_requests[2]["options"]));
  EXPECT_EQ(sent.path_mtu, IBV_MTU_1024);
  ASSERT_OK_AND_ASSIGN(EndpointInfo sent_peer, InfoFromJson(peer.qp_requests[2]["peer"]));
  EXPECT_EQ(sent_peer.address.qp_num, 99u);
  EXPECT_EQ(sent_peer.address.psn, 0x3000u);
}

TEST(RemoteTargetsTest, UnknownOrForeignTargetIsNotFound) {
  ServedTargets targets;
  FakeEndpoint endpoint;
  ASSERT_OK_AND_ASSIGN(nlohmann::json made, targets.Handle("guard", 1, endpoint, {{"spec", ToJson(GuardSpec{})}}));
  const int64_t id = made.at("target").get<int64_t>();
  EXPECT_OK(targets.Handle("target_read", 1, endpoint, {{"target", id}}).status());
  EXPECT_TRUE(absl::IsNotFound(targets.Handle("target_read", 2, endpoint, {{"target", id}}).status()))
      << "endpoint 2 must not reach endpoint 1's target";
  EXPECT_TRUE(absl::IsNotFound(targets.Handle("target_read", 1, endpoint, {{"target", id + 1}}).status()));
  targets.DropEndpoint(1);
  EXPECT_TRUE(absl::IsNotFound(targets.Handle("target_read", 1, endpoint, {{"target", id}}).status()));
  EXPECT_TRUE(ServedTargets::Handles("guard"));
  EXPECT_TRUE(ServedTargets::Handles("target_rereg"));
  EXPECT_FALSE(ServedTargets::Handles("post"));
}

}  // namespace
}  // namespace rdmacheck
