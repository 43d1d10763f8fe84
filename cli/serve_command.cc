// rdmacheck serve: the peer-host side of two-host mode. Opens the device and answers
// `rdmacheck run --peer=HOST:PORT` processes over a TCP side channel, making the passive
// endpoint of each of their pairs here (harness/remote/peer_server.h), and the remote side
// of `rdmacheck bench --peer` (bench/echo_side.h). Runs until SIGINT or SIGTERM.
#include <signal.h>

#include <atomic>
#include <iostream>
#include <mutex>

#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "bench/echo_side.h"
#include "cli/commands.h"
#include "harness/remote/peer_server.h"
#include "harness/selection_flags.h"
#include "harness/timeouts.h"

ABSL_FLAG(int, listen, 18515, "serve: TCP port of the side channel (0: any free port; the port is printed)");

namespace rdmacheck {
namespace {

std::atomic<bool> stop_requested{false};

void OnSignal(int) { stop_requested.store(true); }

}  // namespace

int ServeCommand(const std::vector<std::string>& positional) {
  if (!positional.empty()) return UsageError("serve takes no positional arguments: " + positional[0]);
  const int port = absl::GetFlag(FLAGS_listen);
  if (port < 0 || port > 65535) return UsageError("--listen must be a TCP port (0-65535)");
  if (absl::GetFlag(FLAGS_timeout_multiplier) <= 0) return UsageError("--timeout_multiplier must be > 0");
  absl::StatusOr<SelectedDevice> device = OpenSelectedDevice();
  if (!device.ok()) return UsageError(device.status());
  absl::StatusOr<SideChannelListener> listener = SideChannelListener::Listen(static_cast<uint16_t>(port));
  if (!listener.ok()) return UsageError(listener.status());

  struct sigaction action {};
  action.sa_handler = OnSignal;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);

  const Selection& s = device->selection;
  std::cout << absl::StrFormat("rdmacheck serve: %s port %d GID %d (%s %s), transport %s; side channel on TCP port %d\n",
                               s.device, s.port, s.gid.index, s.gid.TypeName(), s.gid.Address(),
                               TransportName(s.transport), listener->port())
            << std::flush;
  std::mutex log_mutex;
  auto log = [&log_mutex](const std::string& line) {
    std::lock_guard<std::mutex> lock(log_mutex);
    std::cout << "rdmacheck serve: " << absl::FormatTime("%H:%M:%S ", absl::Now(), absl::LocalTimeZone()) << line
              << std::endl;
  };
  PeerServer server(device->context.get(), s);
  AddEchoHandlers(server);  // the remote side of `bench --peer`
  absl::Status served = server.Serve(*listener, stop_requested, log);
  if (!served.ok()) return UsageError(served);
  log("stopped");
  return kExitOk;
}

}  // namespace rdmacheck
