// The side channel of two-host mode: one TCP connection carrying JSON messages, one per
// line. Every read is bounded; a peer that closes the connection or goes silent is an
// error (Unavailable / DeadlineExceeded), never a hang.
#ifndef RDMACHECK_HARNESS_REMOTE_SIDE_CHANNEL_H_
#define RDMACHECK_HARNESS_REMOTE_SIDE_CHANNEL_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"

namespace rdmacheck {

class SideChannel {
 public:
  explicit SideChannel(int fd) : fd_(fd) {}
  SideChannel(SideChannel&& other) noexcept : fd_(other.fd_), pending_(std::move(other.pending_)) { other.fd_ = -1; }
  SideChannel& operator=(SideChannel&& other) noexcept;
  SideChannel(const SideChannel&) = delete;
  SideChannel& operator=(const SideChannel&) = delete;
  ~SideChannel();

  // Connects to "HOST:PORT" (a name or an IPv4/IPv6 address; "[v6]:PORT" too).
  static absl::StatusOr<SideChannel> Connect(const std::string& host_port, absl::Duration timeout);

  absl::Status Send(const nlohmann::json& message);
  absl::StatusOr<nlohmann::json> Receive(absl::Duration timeout);

 private:
  int fd_ = -1;
  std::string pending_;  // bytes read past the last complete line
};

// A listening TCP socket on `port` (0: any free port) of every local address.
class SideChannelListener {
 public:
  static absl::StatusOr<SideChannelListener> Listen(uint16_t port);
  SideChannelListener(SideChannelListener&& other) noexcept : fd_(other.fd_), port_(other.port_) { other.fd_ = -1; }
  SideChannelListener(const SideChannelListener&) = delete;
  ~SideChannelListener();

  uint16_t port() const { return port_; }
  // The next connection, or DeadlineExceeded after `timeout` (so a server loop can look up).
  absl::StatusOr<SideChannel> Accept(absl::Duration timeout);

 private:
  SideChannelListener(int fd, uint16_t port) : fd_(fd), port_(port) {}
  int fd_ = -1;
  uint16_t port_ = 0;
};

// "host:port" -> (host, port); "[::1]:18515" -> ("::1", 18515).
absl::StatusOr<std::pair<std::string, uint16_t>> SplitHostPort(const std::string& host_port);

}  // namespace rdmacheck

#endif  // RDMACHECK_HARNESS_REMOTE_SIDE_CHANNEL_H_
