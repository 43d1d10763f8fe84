// Two-host mode, the serving side (`rdmacheck serve`): answers the side-channel requests
// of `rdmacheck run --peer` processes with LocalEndpoints on this host's device.
//
// Each connection is a session in its own thread with its own endpoints; when the
// connection closes (the test process finished, crashed or was killed), the session's
// endpoints are destroyed, so nothing a test leaves behind outlives it. Every wait of a
// request is bounded like in a test (DefaultWait()).
#ifndef RDMACHECK_HARNESS_REMOTE_PEER_SERVER_H_
#define RDMACHECK_HARNESS_REMOTE_PEER_SERVER_H_

#include <infiniband/verbs.h>

#include <atomic>
#include <functional>
#include <map>
#include <string>

#include "absl/status/status.h"
#include "harness/connection/local_endpoint.h"
#include "harness/device.h"
#include "harness/remote/side_channel.h"
#include "nlohmann/json.hpp"

namespace rdmacheck {

class PeerServer {
 public:
  PeerServer(ibv_context* context, const Selection& selection) : context_(context), selection_(selection) {}

  // A request about one of a session's endpoints that the server does not know itself:
  // `rdmacheck serve` adds the answering side of `bench --peer` this way
  // (bench/echo_side.h), so the remote side of a benchmark runs in this process at full
  // speed instead of one side-channel round trip per work request. The answer is the
  // handler's JSON object, or its error. Add handlers before Serve().
  using Handler = std::function<absl::StatusOr<nlohmann::json>(LocalEndpoint& endpoint, const nlohmann::json& request)>;
  void AddHandler(const std::string& op, Handler handler) { handlers_[op] = std::move(handler); }

  // Serves connections from `listener` until `stop` is set (looked at about once a
  // second), then waits for the open sessions to end. `log` gets one line per session
  // start and end.
  absl::Status Serve(SideChannelListener& listener, const std::atomic<bool>& stop,
                     const std::function<void(const std::string&)>& log);

 private:
  void RunSession(SideChannel channel, const std::atomic<bool>& stop);

  ibv_context* context_;
  Selection selection_;
  std::map<std::string, Handler> handlers_;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_HARNESS_REMOTE_PEER_SERVER_H_
