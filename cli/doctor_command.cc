// rdmacheck doctor: what stops RDMA from working here, in one verdict line, then each check
// with its fix. Exit 0 ready, 1 problems found, 2 cannot tell. See doctor/checks.h.
#include <iostream>

#include "absl/flags/flag.h"
#include "cli/commands.h"
#include "doctor/checks.h"
#include "doctor/facts.h"
#include "harness/device.h"
#include "harness/selection_flags.h"

namespace rdmacheck {

int DoctorCommand(const std::vector<std::string>& positional) {
  if (!positional.empty()) return UsageError("doctor takes no arguments, got '" + positional[0] + "'");
  const std::string format = absl::GetFlag(FLAGS_format);
  if (format != "text" && format != "json") return UsageError("--format must be text or json, got '" + format + "'");
  const std::string device = absl::GetFlag(FLAGS_device);
  HostFacts facts = GatherFacts(device);
  if (!device.empty() && facts.sysfs_error.empty() && facts.devices.empty()) {
    return UsageError(absl::StatusOr<ContextPtr>(OpenDevice(device)).status());
  }
  Diagnosis diagnosis = Diagnose(facts);
  if (format == "json") {
    std::cout << DiagnosisJson(diagnosis).dump(2) << "\n";
  } else {
    std::cout << DiagnosisText(diagnosis);
  }
  return ExitCode(diagnosis.verdict);
}

}  // namespace rdmacheck
