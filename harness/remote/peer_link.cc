#include "harness/remote/peer_link.h"

#include <algorithm>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "harness/device.h"
#include "harness/remote/proxy_endpoint.h"
#include "harness/remote/wire.h"
#include "harness/status.h"

ABSL_FLAG(std::string, peer, "",
          "Two-host mode: HOST:PORT of an `rdmacheck serve` on the peer host; the passive endpoint of every pair "
          "lives there. `run` pings it after each failure: one that stops answering stops the run (exit 3)");

namespace rdmacheck {

absl::StatusOr<std::unique_ptr<PeerLink>> PeerLink::Connect(const std::string& host_port,
                                                            ibv_transport_type transport) {
  RDMACHECK_ASSIGN_OR_RETURN(SideChannel channel, SideChannel::Connect(host_port, DefaultWait()));
  std::unique_ptr<PeerLink> link(new PeerLink(std::move(channel), host_port));
  absl::StatusOr<nlohmann::json> hello = link->Call({{"op", "hello"}, {"version", kSideChannelVersion}});
  if (!hello.ok()) {
    return absl::Status(hello.status().code(),
                        absl::StrCat("peer ", host_port, " does not answer as `rdmacheck serve`: ", hello.status().message()));
  }
  link->hello_ = *hello;
  const std::string theirs = hello->value("transport", std::string());
  if (theirs != TransportName(transport)) {
    return absl::FailedPreconditionError(absl::StrCat("peer ", host_port, " serves a ", theirs, " device (",
                                                      hello->value("device", std::string()), "), this one is ",
                                                      TransportName(transport), ": they cannot talk"));
  }
  link->active_mtu_ = static_cast<ibv_mtu>(hello->value("active_mtu", static_cast<int>(IBV_MTU_1024)));
  return link;
}

std::string PeerLink::Describe() const {
  return absl::StrCat(hello_.value("device", std::string("?")), " on ", where_, " (", hello_.value("gid_type", std::string()),
                      " ", hello_.value("gid", std::string()), ")");
}

absl::StatusOr<nlohmann::json> PeerLink::Call(nlohmann::json request, absl::Duration work) {
  std::lock_guard<std::mutex> lock(mutex_);
  const uint64_t seq = next_seq_++;
  request["seq"] = seq;
  RDMACHECK_RETURN_IF_ERROR(channel_.Send(request));
  const absl::Time deadline = absl::Now() + work + DefaultWait();
  for (;;) {
    RDMACHECK_ASSIGN_OR_RETURN(nlohmann::json answer, channel_.Receive(deadline - absl::Now()));
    if (answer.value("seq", uint64_t{0}) < seq) continue;  // the late answer of a request that timed out
    if (!answer.value("ok", false)) return ErrorFromJson(answer);
    return answer;
  }
}

namespace {

// One ping on an open channel, one answer (any) within `within`.
absl::Status Ping(SideChannel& channel, absl::Duration within) {
  const absl::Time deadline = absl::Now() + within;
  RDMACHECK_RETURN_IF_ERROR(channel.Send({{"op", "ping"}, {"seq", 1}}));
  return channel.Receive(deadline - absl::Now()).status();
}

}  // namespace

absl::Status PingPeer(const std::string& host_port, absl::Duration within) {
  const absl::Time deadline = absl::Now() + within;
  absl::Status first;  // the telling one: a retry cut short by the deadline only times out
  for (;;) {
    absl::StatusOr<SideChannel> channel = SideChannel::Connect(host_port, deadline - absl::Now());
    absl::Status status = channel.ok() ? Ping(*channel, deadline - absl::Now()) : channel.status();
    if (status.ok() || absl::IsInvalidArgument(status)) return status;  // alive, or an address that stays bad
    if (first.ok()) first = status;
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) return first;
    absl::SleepFor(std::min(absl::Milliseconds(100), left));  // refused at once: no spinning
  }
}

absl::StatusOr<std::unique_ptr<Endpoint>> PeerLink::NewEndpoint() {
  RDMACHECK_ASSIGN_OR_RETURN(nlohmann::json answer, Call({{"op", "new"}}));
  return std::unique_ptr<Endpoint>(new ProxyEndpoint(this, answer.value("ep", int64_t{-1})));
}

}  // namespace rdmacheck
