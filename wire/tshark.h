// Runs Wireshark's dissectors over a capture file: tshark as a child process, bounded in
// time, its EK output (`-T ek`, one JSON line per packet) handed packet by packet to the
// caller as it arrives (the JSON of a large capture is never held whole).
#ifndef RDMACHECK_WIRE_TSHARK_H_
#define RDMACHECK_WIRE_TSHARK_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"

namespace rdmacheck {

struct TsharkOptions {
  std::string program = "tshark";
  // A lab capture of ~40,000 frames takes tshark about a minute on this project's 2-core
  // machines; far more than that is a hung tshark.
  absl::Duration budget = absl::Minutes(10);
};

// The command line: the capture, no name resolution, EK output of the layers the checks read.
std::vector<std::string> TsharkArgs(const std::string& capture);

struct TsharkRun {
  int64_t packets = 0;
  // The file ends inside a packet (a capture still being written, or its writer killed):
  // the packets before that were read. tshark exits 2 then; that is not an error here.
  bool cut_short = false;
};

// Calls `on_packet` with each packet's "layers" object, in frame order.
// NOT_FOUND: the capture cannot be opened; UNAVAILABLE: tshark is missing, failed (its
// first error line), or ran past the budget (DEADLINE_EXCEEDED).
absl::StatusOr<TsharkRun> ForEachTsharkPacket(const std::string& capture, const TsharkOptions& options,
                                              const std::function<void(const nlohmann::json& layers)>& on_packet);

}  // namespace rdmacheck

#endif  // RDMACHECK_WIRE_TSHARK_H_
