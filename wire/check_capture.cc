#include "wire/check_capture.h"

#include <algorithm>

#include "wire/iwarp_check.h"
#include "wire/packets.h"
#include "wire/roce_check.h"

namespace rdmacheck {

absl::StatusOr<WireReport> CheckCapture(const std::string& path, const WireCheckOptions& options) {
  CapturePackets packets;
  absl::StatusOr<TsharkRun> read =
      ForEachTsharkPacket(path, options.tshark, [&](const nlohmann::json& layers) { DecodePacket(layers, packets); });
  if (!read.ok()) return read.status();
  WireReport report;
  report.capture = path;
  report.cut_short = read->cut_short;
  report.frames = packets.frames;
  report.truncated = packets.truncated;
  report.roce_undecoded = packets.roce_undecoded;
  CheckRoce(packets.roce, options.path_mtu, report);
  CheckIwarp(packets.iwarp, report);
  for (const WireFlow& flow : report.flows) {
    for (const auto& [opcode, count] : flow.opcodes) report.opcodes[opcode] += count;
  }
  std::stable_sort(report.violations.begin(), report.violations.end(),
                   [](const WireViolation& a, const WireViolation& b) { return a.frame < b.frame; });
  return report;
}

}  // namespace rdmacheck
