// rdmacheck probe: the device's capability profile, declared and observed.
#include <iostream>

#include "absl/flags/flag.h"
#include "capabilities/probe.h"
#include "harness/cli/commands.h"
#include "harness/run/results.h"
#include "harness/selection_flags.h"

namespace rdmacheck {

int ProbeCommand(const std::vector<std::string>& positional) {
  if (!positional.empty()) return UsageError("probe takes no arguments");
  const std::string format = absl::GetFlag(FLAGS_format);
  if (format != "text" && format != "json") return UsageError("--format must be text or json");
  absl::StatusOr<SelectionRequest> request = SelectionRequestFromFlags();
  if (!request.ok()) return UsageError(request.status());
  absl::StatusOr<ContextPtr> context = OpenDevice(request->device);
  if (!context.ok()) return UsageError(context.status());
  absl::StatusOr<Selection> selection = Select(context->get(), *request);
  if (!selection.ok()) return UsageError(selection.status());
  absl::StatusOr<Profile> profile = ProbeDevice(context->get(), *selection);
  if (!profile.ok()) return UsageError(profile.status());

  std::string text = ProfileToJson(*profile).dump(2) + "\n";
  const std::string out = absl::GetFlag(FLAGS_out);
  if (out.empty()) {
    std::cout << text;
  } else if (absl::Status s = WriteFile(out, text); !s.ok()) {
    return UsageError(s);
  }
  return kExitOk;
}

}  // namespace rdmacheck
