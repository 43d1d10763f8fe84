#include "suites/peer_faults/dying_peer.h"

#include <poll.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "harness/reap.h"
#include "harness/status.h"
#include "harness/timeouts.h"

namespace rdmacheck {
namespace {

constexpr char kPortLine[] = "side channel on TCP port ";

// Reads the peer's output until it names its side channel's port, within `limit`.
absl::StatusOr<int> ReadPort(int fd, absl::Duration limit) {
  const absl::Time deadline = absl::Now() + limit;
  std::string text;
  char buffer[1024];
  while (true) {
    if (size_t at = text.find(kPortLine); at != std::string::npos) {
      size_t end = text.find('\n', at);
      int port = 0;
      if (end != std::string::npos &&
          absl::SimpleAtoi(text.substr(at + sizeof(kPortLine) - 1, end - at - sizeof(kPortLine) + 1), &port)) {
        return port;
      }
    }
    const int64_t left = absl::ToInt64Milliseconds(deadline - absl::Now());
    if (left <= 0) {
      return absl::DeadlineExceededError(absl::StrCat("timed out after ", absl::FormatDuration(limit),
                                                      " waiting for the peer's side channel port; it said: ", text));
    }
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left)) <= 0) continue;
    ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n <= 0) return absl::UnavailableError(absl::StrCat("the peer exited before it listened; it said: ", text));
    text.append(buffer, n);
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<DyingPeer>> DyingPeer::Start(const Selection& selection) {
  std::unique_ptr<DyingPeer> peer(new DyingPeer);
  const std::vector<std::string> args = {
      "/proc/self/exe", "serve", absl::StrCat("--device=", selection.device), absl::StrCat("--port=", selection.port),
      absl::StrCat("--gid_index=", selection.gid.index), "--listen=0",
      absl::StrCat("--timeout_multiplier=", absl::GetFlag(FLAGS_timeout_multiplier))};
  RDMACHECK_ASSIGN_OR_RETURN(peer->process_, SpawnChild(args, Stderr::kWithStdout));
  // Opening the device and choosing its GID: a second or two under an emulated CPU.
  absl::StatusOr<int> port = ReadPort(peer->process_.out, Scaled(absl::Seconds(20)));
  if (!port.ok()) {
    // Say how it ended: 127 is an exec that failed (the binary replaced under the run).
    peer->killed_ = true;
    absl::StatusOr<int> status = ReapWithin(peer->process_.pid, KillReapBound());
    if (!status.ok()) (void)KillAndReap(peer->process_.pid);
    return absl::Status(port.status().code(),
                        absl::StrCat(port.status().message(), status.ok() ? absl::StrCat(" (wait status ", *status, ")") : ""));
  }
  RDMACHECK_ASSIGN_OR_RETURN(peer->link_, PeerLink::Connect(absl::StrCat("127.0.0.1:", *port), selection.transport));
  return peer;
}

absl::Status DyingPeer::Ping() { return link_->Call({{"op", "ping"}}).status(); }

absl::Status DyingPeer::Kill() {
  if (killed_) return absl::OkStatus();
  killed_ = true;
  return KillAndReap(process_.pid);
}

DyingPeer::~DyingPeer() {
  if (!killed_) (void)Kill();
  if (process_.out >= 0) close(process_.out);
}

}  // namespace rdmacheck
