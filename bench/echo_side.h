// The answering side of a bench point: what the pair's remote endpoint does while the
// local one measures.
//
//   send   answer each SEND with a SEND (the latency ping-pong)
//   write  answer each RDMA WRITE with one (the write ping-pong)
//   sink   receive SENDs, keeping `depth` receives posted (send bandwidth)
//
// For a loopback pair it runs in a thread of this process. With `bench --peer` the
// remote endpoint lives in `rdmacheck serve` on the peer host, and the job runs there
// (two requests over the side channel: arm, then run), so the two sides are separate
// processes as with perftest, and no work request crosses the side channel.
#ifndef RDMACHECK_BENCH_ECHO_SIDE_H_
#define RDMACHECK_BENCH_ECHO_SIDE_H_

#include <cstdint>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "harness/connection/endpoint.h"
#include "harness/remote/peer_server.h"
#include "nlohmann/json.hpp"

namespace rdmacheck {

struct EchoJob {
  std::string kind;  // "send", "write", "sink"
  uint32_t size = 0;
  int iterations = 0;
  int depth = 0;  // receives posted before the measuring side starts
};

nlohmann::json ToJson(const EchoJob& job);
absl::StatusOr<EchoJob> EchoJobFromJson(const nlohmann::json& json);

// On an endpoint in this process: posts the receives the job starts with (the measuring
// side may send once this returned), then answers until the job is done or `budget` ends.
absl::Status ArmEcho(Endpoint& e, const EchoJob& job);
absl::Status RunEcho(Endpoint& e, const EchoJob& job, absl::Duration budget);

// The requests "bench_arm" and "bench_echo" for `rdmacheck serve`.
void AddEchoHandlers(PeerServer& server);

// A job running on `e`, wherever it lives: armed when Start() returns, running until
// Finish() collects its status.
class EchoSide {
 public:
  static absl::StatusOr<std::unique_ptr<EchoSide>> Start(Endpoint& e, const EchoJob& job, absl::Duration budget);
  ~EchoSide();  // joins the job if Finish() was not called
  absl::Status Finish();

 private:
  EchoSide() = default;
  std::thread thread_;
  absl::Status status_;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_BENCH_ECHO_SIDE_H_
