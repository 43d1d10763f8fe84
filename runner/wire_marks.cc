#include "runner/wire_marks.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace rdmacheck {

std::string WireMarkPayload(bool start, const std::string& test_name) {
  return absl::StrCat(kWireMarkPrefix, start ? "start " : "end ", test_name);
}

namespace {

class WireMarker : public ::testing::EmptyTestEventListener {
 public:
  WireMarker(int fd, sockaddr_in to) : fd_(fd), to_(to) {}
  ~WireMarker() override { close(fd_); }

  void OnTestStart(const ::testing::TestInfo& info) override { Send(true, info); }
  void OnTestEnd(const ::testing::TestInfo& info) override { Send(false, info); }

 private:
  void Send(bool start, const ::testing::TestInfo& info) {
    const std::string payload = WireMarkPayload(start, absl::StrCat(info.test_suite_name(), ".", info.name()));
    // MSG_DONTWAIT: a full socket buffer drops the mark instead of delaying the test.
    (void)sendto(fd_, payload.data(), payload.size(), MSG_DONTWAIT, reinterpret_cast<const sockaddr*>(&to_),
                 sizeof(to_));
  }

  int fd_;
  sockaddr_in to_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<::testing::TestEventListener>> MakeWireMarker(const std::string& destination) {
  const size_t colon = destination.rfind(':');
  sockaddr_in to{};
  to.sin_family = AF_INET;
  int port = 0;
  if (colon == std::string::npos || inet_pton(AF_INET, destination.substr(0, colon).c_str(), &to.sin_addr) != 1 ||
      !absl::SimpleAtoi(destination.substr(colon + 1), &port) || port <= 0 || port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat(kWireMarksEnv, " must be IPv4:PORT (e.g. 10.88.1.1:9), not '", destination, "'"));
  }
  to.sin_port = htons(static_cast<uint16_t>(port));
  const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::InternalError(absl::StrCat("wire marks: socket: ", strerror(errno)));
  return std::make_unique<WireMarker>(fd, to);
}

}  // namespace rdmacheck
