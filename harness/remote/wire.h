// JSON forms of what crosses the side channel in two-host mode: pair options, endpoint
// addresses, remote buffers, guarded targets' specs, work requests, completions, patterns
// and errors.
#ifndef RDMACHECK_HARNESS_REMOTE_WIRE_H_
#define RDMACHECK_HARNESS_REMOTE_WIRE_H_

#include <infiniband/verbs.h>
#include <sys/socket.h>

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/connection/endpoint.h"
#include "nlohmann/json.hpp"

namespace rdmacheck {

// Protocol version; `hello` refuses a peer with another one.
// 2: guarded targets ("guard", "target_*"), "move_qp_to", "qp_state" and "rewire".
// 3: a guarded target at an iova (GuardSpec "iova"; its state carries "va").
// "ping" (answered with "pong") needs no new version: any answer proves the peer alive,
// an older server's "unknown request" too (PingPeer, peer_link.h).
inline constexpr int kSideChannelVersion = 3;

nlohmann::json ToJson(const PairOptions& options);  // fails on SharedObjects: see OptionsFromJson
absl::StatusOr<PairOptions> OptionsFromJson(const nlohmann::json& json);

nlohmann::json ToJson(const EndpointInfo& info);
absl::StatusOr<EndpointInfo> InfoFromJson(const nlohmann::json& json);

nlohmann::json ToJson(const RemoteBuffer& buffer);
absl::StatusOr<RemoteBuffer> RemoteBufferFromJson(const nlohmann::json& json);

nlohmann::json ToJson(const GuardSpec& spec);
absl::StatusOr<GuardSpec> GuardSpecFromJson(const nlohmann::json& json);

nlohmann::json ToJson(const SendRequest& request);
absl::StatusOr<SendRequest> RequestFromJson(const nlohmann::json& json);

nlohmann::json ToJson(const ibv_wc& wc);
absl::StatusOr<ibv_wc> WcFromJson(const nlohmann::json& json);

nlohmann::json ToJson(Pattern pattern);
absl::StatusOr<Pattern> PatternFromJson(const nlohmann::json& json);

nlohmann::json SlicesToJson(absl::Span<const Slice> slices);
absl::StatusOr<std::vector<Slice>> SlicesFromJson(const nlohmann::json& json);

// sockaddr_storage <-> hex of its bytes (keeps family, port and IPv6 scope).
std::string SockaddrToHex(const sockaddr_storage& address);
absl::StatusOr<sockaddr_storage> SockaddrFromHex(const std::string& hex);

std::string ToHex(absl::Span<const uint8_t> bytes);
absl::StatusOr<std::vector<uint8_t>> FromHex(const std::string& hex);

// A failed request's answer, and back: code, message and errno survive the trip.
nlohmann::json ErrorToJson(const absl::Status& status);
absl::Status ErrorFromJson(const nlohmann::json& json);

}  // namespace rdmacheck

#endif  // RDMACHECK_HARNESS_REMOTE_WIRE_H_
