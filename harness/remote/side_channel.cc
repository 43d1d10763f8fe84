#include "harness/remote/side_channel.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "harness/status.h"

namespace rdmacheck {
namespace {

// poll(2) for `events` on `fd` until `deadline`; OK when ready.
absl::Status WaitFor(int fd, short events, absl::Time deadline, absl::string_view what) {
  for (;;) {
    const int64_t ms = std::max<int64_t>(0, absl::ToInt64Milliseconds(deadline - absl::Now()));
    pollfd p{fd, events, 0};
    int rc = poll(&p, 1, static_cast<int>(std::min<int64_t>(ms, 1 << 30)));
    if (rc < 0 && errno == EINTR) continue;
    if (rc < 0) return ErrnoStatus(errno, "poll(side channel)");
    if (rc == 0) return absl::DeadlineExceededError(absl::StrCat("the peer did not answer in time (", what, ")"));
    return absl::OkStatus();
  }
}

}  // namespace

absl::StatusOr<std::pair<std::string, uint16_t>> SplitHostPort(const std::string& host_port) {
  std::string host;
  std::string port;
  if (!host_port.empty() && host_port[0] == '[') {
    size_t close = host_port.find(']');
    if (close == std::string::npos || close + 1 >= host_port.size() || host_port[close + 1] != ':') {
      return absl::InvalidArgumentError(absl::StrCat("bad peer address '", host_port, "' (expected [IPv6]:PORT)"));
    }
    host = host_port.substr(1, close - 1);
    port = host_port.substr(close + 2);
  } else {
    size_t colon = host_port.rfind(':');
    if (colon == std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat("bad peer address '", host_port, "' (expected HOST:PORT)"));
    }
    host = host_port.substr(0, colon);
    port = host_port.substr(colon + 1);
  }
  uint32_t number = 0;
  if (host.empty() || !absl::SimpleAtoi(port, &number) || number == 0 || number > 65535) {
    return absl::InvalidArgumentError(absl::StrCat("bad peer address '", host_port, "' (expected HOST:PORT)"));
  }
  return std::make_pair(host, static_cast<uint16_t>(number));
}

SideChannel& SideChannel::operator=(SideChannel&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = other.fd_;
    pending_ = std::move(other.pending_);
    other.fd_ = -1;
  }
  return *this;
}

SideChannel::~SideChannel() {
  if (fd_ >= 0) close(fd_);
}

absl::StatusOr<SideChannel> SideChannel::Connect(const std::string& host_port, absl::Duration timeout) {
  RDMACHECK_ASSIGN_OR_RETURN(auto target, SplitHostPort(host_port));
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(target.second);
  if (int rc = getaddrinfo(target.first.c_str(), port.c_str(), &hints, &found); rc != 0) {
    return absl::NotFoundError(absl::StrCat("cannot resolve peer ", target.first, ": ", gai_strerror(rc)));
  }
  absl::Status last = absl::UnavailableError(absl::StrCat("no address for ", host_port));
  const absl::Time deadline = absl::Now() + timeout;
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (fd < 0) {
      last = ErrnoStatus(errno, "socket");
      continue;
    }
    int rc = connect(fd, a->ai_addr, a->ai_addrlen);
    if (rc != 0 && errno == EINPROGRESS) {
      absl::Status ready = WaitFor(fd, POLLOUT, deadline, "connect");
      int err = 0;
      socklen_t len = sizeof(err);
      if (ready.ok()) getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
      rc = ready.ok() && err == 0 ? 0 : -1;
      if (!ready.ok()) last = ready;
      if (err != 0) last = ErrnoStatus(err, absl::StrCat("connect to peer ", host_port));
    } else if (rc != 0) {
      last = ErrnoStatus(errno, absl::StrCat("connect to peer ", host_port));
    }
    if (rc == 0) {
      int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
      freeaddrinfo(found);
      return SideChannel(fd);
    }
    close(fd);
  }
  freeaddrinfo(found);
  return last;
}

absl::Status SideChannel::Send(const nlohmann::json& message) {
  if (fd_ < 0) return absl::FailedPreconditionError("the side channel is closed");
  const std::string line = message.dump() + "\n";
  size_t sent = 0;
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  while (sent < line.size()) {
    ssize_t n = send(fd_, line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<size_t>(n);
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      RDMACHECK_RETURN_IF_ERROR(WaitFor(fd_, POLLOUT, deadline, "send"));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      return absl::UnavailableError(absl::StrCat("the peer closed the side channel (send: ", strerror(errno), ")"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<nlohmann::json> SideChannel::Receive(absl::Duration timeout) {
  if (fd_ < 0) return absl::FailedPreconditionError("the side channel is closed");
  const absl::Time deadline = absl::Now() + timeout;
  for (;;) {
    size_t newline = pending_.find('\n');
    if (newline != std::string::npos) {
      std::string line = pending_.substr(0, newline);
      pending_.erase(0, newline + 1);
      nlohmann::json message = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
      if (message.is_discarded()) return absl::DataLossError("the peer sent a line that is not JSON");
      return message;
    }
    RDMACHECK_RETURN_IF_ERROR(WaitFor(fd_, POLLIN, deadline, "receive"));
    char chunk[65536];
    ssize_t n = recv(fd_, chunk, sizeof(chunk), 0);
    if (n > 0) {
      pending_.append(chunk, static_cast<size_t>(n));
    } else if (n == 0) {
      return absl::UnavailableError("the peer closed the side channel");
    } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      return absl::UnavailableError(absl::StrCat("side channel: ", strerror(errno)));
    }
  }
}

absl::StatusOr<SideChannelListener> SideChannelListener::Listen(uint16_t port) {
  int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  bool v6 = fd >= 0;
  if (!v6) fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return ErrnoStatus(errno, "socket");
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_storage address{};
  socklen_t length;
  if (v6) {
    int zero = 0;
    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));  // IPv4 peers too
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&address);
    in6->sin6_family = AF_INET6;
    in6->sin6_addr = in6addr_any;
    in6->sin6_port = htons(port);
    length = sizeof(sockaddr_in6);
  } else {
    auto* in = reinterpret_cast<sockaddr_in*>(&address);
    in->sin_family = AF_INET;
    in->sin_addr.s_addr = htonl(INADDR_ANY);
    in->sin_port = htons(port);
    length = sizeof(sockaddr_in);
  }
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), length) != 0 || listen(fd, 16) != 0) {
    absl::Status s = ErrnoStatus(errno, absl::StrCat("listen on TCP port ", port));
    close(fd);
    return s;
  }
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  const uint16_t bound = ntohs(v6 ? reinterpret_cast<sockaddr_in6*>(&address)->sin6_port
                                  : reinterpret_cast<sockaddr_in*>(&address)->sin_port);
  return SideChannelListener(fd, bound);
}

SideChannelListener::~SideChannelListener() {
  if (fd_ >= 0) close(fd_);
}

absl::StatusOr<SideChannel> SideChannelListener::Accept(absl::Duration timeout) {
  RDMACHECK_RETURN_IF_ERROR(WaitFor(fd_, POLLIN, absl::Now() + timeout, "accept"));
  int fd = accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
  if (fd < 0) return ErrnoStatus(errno, "accept");
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  return SideChannel(fd);
}

}  // namespace rdmacheck
