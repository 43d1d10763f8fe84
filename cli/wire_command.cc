// rdmacheck wire: the wire checks over a packet capture.
//
//   rdmacheck wire check [--format=text|json] [--path_mtu=BYTES] CAPTURE.pcap
//   rdmacheck wire rules [--format=text|json]
//   rdmacheck wire watch [--stall_after=S] [--lab_failure=FILE] LINK...   (cli/wire_watch_command.cc)
//
// `check` exits 0 when every rule holds, 1 on a violation (each printed with its frame
// number, rule id, message and spec reference), 2 when the capture cannot be read or holds
// no RDMA packet ("no RDMA packets in FILE": nothing checked is not a clean wire).
#include <iostream>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "cli/commands.h"
#include "wire/check_capture.h"
#include "wire/rules.h"

ABSL_FLAG(int32_t, path_mtu, 0,
          "wire check: the RoCEv2 path MTU in bytes (256..4096); 0 infers it per connection from its packets");

namespace rdmacheck {
namespace {

int RulesCommand(const std::string& format) {
  if (format == "json") {
    std::cout << WireRulesJson().dump(2) << std::endl;
    return kExitOk;
  }
  for (const WireRule& r : WireRules()) {
    std::cout << r.id << (r.severity == WireRule::kAdvisory ? " (advisory)" : "") << "\n    " << r.title << "\n    "
              << r.reference << "\n";
  }
  return kExitOk;
}

}  // namespace

int WireCommand(const std::vector<std::string>& positional) {
  const std::string format = absl::GetFlag(FLAGS_format);
  if (format != "text" && format != "json") return UsageError("--format must be text or json");
  if (positional.size() == 1 && positional[0] == "rules") return RulesCommand(format);
  if (!positional.empty() && positional[0] == "watch") return WireWatchCommand({positional.begin() + 1, positional.end()});
  if (positional.size() != 2 || positional[0] != "check") {
    return UsageError("usage: rdmacheck wire check [--format=text|json] CAPTURE.pcap | rdmacheck wire rules | rdmacheck wire watch LINK...");
  }
  WireCheckOptions options;
  const int32_t mtu = absl::GetFlag(FLAGS_path_mtu);
  if (mtu != 0 && mtu != 256 && mtu != 512 && mtu != 1024 && mtu != 2048 && mtu != 4096) {
    return UsageError(absl::StrCat("--path_mtu=", mtu, ": an InfiniBand MTU is 256, 512, 1024, 2048 or 4096"));
  }
  options.path_mtu = mtu;
  absl::StatusOr<WireReport> report = CheckCapture(positional[1], options);
  if (!report.ok()) return UsageError(report.status());
  if (report->rdma_packets() == 0) {
    // Nothing read is not a clean wire: the capture holds no RDMA (or not in a form read here).
    return UsageError(absl::StrCat("no RDMA packets in ", positional[1], " (", report->frames,
                                   " frames, none RoCEv2, RoCEv1, InfiniBand or iWARP)"));
  }
  if (format == "json") {
    std::cout << WireReportJson(*report).dump(2) << std::endl;
  } else {
    std::cout << WireReportText(*report) << std::flush;
  }
  return report->ok() ? kExitOk : kExitFailures;
}

}  // namespace rdmacheck
