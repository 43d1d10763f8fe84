// The peer's liveness check (issue 39.3): `run --peer` pings `rdmacheck serve` after a
// failure, over a real side channel on loopback. A peer that answers is alive (the real
// server's dispatch, and an older server that does not know `ping`); a silent one, one that
// closes the connection, and an address nobody listens on are dead within the window.
#include <unistd.h>

#include <atomic>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/remote/peer_link.h"
#include "harness/remote/peer_server.h"
#include "harness/remote/side_channel.h"
#include "harness/remote/wire.h"

namespace rdmacheck {
namespace {

constexpr absl::Duration kWindow = absl::Milliseconds(400);

// A stand-in for the peer, on a thread: `session` gets each connection accepted until the
// test ends (looking up every 50 ms).
class FakePeer {
 public:
  explicit FakePeer(std::function<void(SideChannel&)> session) {
    absl::StatusOr<SideChannelListener> listener = SideChannelListener::Listen(0);
    EXPECT_TRUE(listener.ok()) << listener.status();
    port_ = listener->port();
    thread_ = std::thread([this, session, l = *std::move(listener)]() mutable {
      std::vector<SideChannel> held;  // a silent peer keeps its connections open
      while (!stop_.load()) {
        absl::StatusOr<SideChannel> channel = l.Accept(absl::Milliseconds(50));
        if (!channel.ok()) continue;
        session(*channel);
        held.push_back(*std::move(channel));
      }
    });
  }
  ~FakePeer() {
    stop_.store(true);
    thread_.join();
  }
  std::string address() const { return absl::StrCat("127.0.0.1:", port_); }

 private:
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

TEST(PeerPingTest, TheServeDispatchAnswers) {
  absl::StatusOr<SideChannelListener> listener = SideChannelListener::Listen(0);
  ASSERT_TRUE(listener.ok()) << listener.status();
  const std::string address = absl::StrCat("127.0.0.1:", listener->port());
  PeerServer server(/*context=*/nullptr, Selection{});  // a ping touches no device
  std::atomic<bool> stop{false};
  std::thread serving([&] { EXPECT_TRUE(server.Serve(*listener, stop, [](const std::string&) {}).ok()); });

  const absl::Time start = absl::Now();
  EXPECT_TRUE(PingPeer(address, absl::Seconds(5)).ok());
  EXPECT_LT(absl::Now() - start, absl::Seconds(2));

  absl::StatusOr<SideChannel> channel = SideChannel::Connect(address, absl::Seconds(5));
  ASSERT_TRUE(channel.ok()) << channel.status();
  ASSERT_TRUE(channel->Send({{"op", "ping"}, {"seq", 7}}).ok());
  absl::StatusOr<nlohmann::json> pong = channel->Receive(absl::Seconds(5));
  ASSERT_TRUE(pong.ok()) << pong.status();
  EXPECT_EQ(*pong, nlohmann::json({{"ok", true}, {"pong", true}, {"seq", 7}}));

  stop.store(true);
  serving.join();
}

TEST(PeerPingTest, AnOlderServeThatDoesNotKnowPingIsAlive) {
  FakePeer peer([](SideChannel& channel) {
    if (!channel.Receive(absl::Seconds(5)).ok()) return;
    nlohmann::json refusal = ErrorToJson(absl::InvalidArgumentError("unknown request 'ping'"));
    refusal["seq"] = 1;
    EXPECT_TRUE(channel.Send(refusal).ok());
  });
  EXPECT_TRUE(PingPeer(peer.address(), absl::Seconds(5)).ok());
}

TEST(PeerPingTest, ASilentPeerIsDeadAfterTheWindow) {
  FakePeer peer([](SideChannel&) {});  // accepts, reads nothing, answers nothing
  const absl::Time start = absl::Now();
  absl::Status status = PingPeer(peer.address(), kWindow);
  const absl::Duration took = absl::Now() - start;
  EXPECT_TRUE(absl::IsDeadlineExceeded(status)) << status;
  EXPECT_GE(took, kWindow - absl::Milliseconds(10));  // poll(2) counts in whole milliseconds
  EXPECT_LT(took, kWindow + absl::Seconds(1));
}

TEST(PeerPingTest, APeerThatClosesTheConnectionIsDead) {
  FakePeer peer([](SideChannel& channel) { channel = SideChannel(-1); });  // hangs up at once
  const absl::Time start = absl::Now();
  absl::Status status = PingPeer(peer.address(), kWindow);
  // "closed the side channel", or "Connection reset" when the close beat the ping's bytes
  EXPECT_TRUE(absl::IsUnavailable(status)) << status;
  EXPECT_THAT(std::string(status.message()), ::testing::HasSubstr("side channel"));
  EXPECT_LT(absl::Now() - start, kWindow + absl::Seconds(1));
}

TEST(PeerPingTest, NobodyListeningIsDeadWithinTheWindow) {
  absl::StatusOr<SideChannelListener> listener = SideChannelListener::Listen(0);
  ASSERT_TRUE(listener.ok());
  const std::string address = absl::StrCat("127.0.0.1:", listener->port());
  { SideChannelListener gone = std::move(*listener); }
  const absl::Time start = absl::Now();
  EXPECT_FALSE(PingPeer(address, kWindow).ok());
  EXPECT_LT(absl::Now() - start, kWindow + absl::Seconds(1));
}

TEST(PeerPingTest, ABadAddressFailsAtOnce) {
  const absl::Time start = absl::Now();
  EXPECT_TRUE(absl::IsInvalidArgument(PingPeer("no-port-here", absl::Seconds(5))));
  EXPECT_LT(absl::Now() - start, absl::Seconds(1));
}

}  // namespace
}  // namespace rdmacheck
