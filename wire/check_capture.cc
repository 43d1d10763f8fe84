#include "wire/check_capture.h"

#include <algorithm>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "wire/iwarp_check.h"
#include "wire/packets.h"
#include "wire/roce_check.h"

ABSL_FLAG(int32_t, retry_cnt, rdmacheck::kHarnessRetryCnt,
          "wire check: the RC QPs' retry count (0..7): no PSN may be sent more than retry_cnt + 1 times in a row "
          "without progress (roce.retry_count); default 7, as rdmacheck's harness sets it");

ABSL_FLAG(bool, wire_reorders, false,
          "wire check: the capture was taken where the network may reorder or duplicate packets (the wire lab's "
          "netem reorder, duplicate or jitter): a UC packet behind the PSNs already carried is then the note "
          "roce.unplaced_reorder, not the violation roce.psn");

namespace rdmacheck {

absl::StatusOr<WireReport> CheckCapture(const std::string& path, const WireCheckOptions& options) {
  const int retry_cnt = options.retry_cnt >= 0 ? options.retry_cnt : absl::GetFlag(FLAGS_retry_cnt);
  if (retry_cnt < 0 || retry_cnt > 7) {
    return absl::InvalidArgumentError(absl::StrCat("--retry_cnt=", retry_cnt, ": a QP's retry count is 0..7"));
  }
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
  CheckRoce(packets.roce, options.path_mtu, report, retry_cnt,
            options.wire_may_reorder || absl::GetFlag(FLAGS_wire_reorders));
  CheckIwarp(packets.iwarp, report);
  for (const WireFlow& flow : report.flows) {
    for (const auto& [opcode, count] : flow.opcodes) report.opcodes[opcode] += count;
  }
  for (auto* list : {&report.violations, &report.notes}) {
    std::stable_sort(list->begin(), list->end(),
                     [](const WireViolation& a, const WireViolation& b) { return a.frame < b.frame; });
  }
  return report;
}

}  // namespace rdmacheck
