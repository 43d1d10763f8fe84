// rdmacheck probe: the device's capability profile, declared and observed.
#include <fstream>
#include <iostream>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "capabilities/probes/probe.h"
#include "capabilities/profile/profile_check.h"
#include "capabilities/profile/profile_text.h"
#include "cli/commands.h"
#include "results/results.h"
#include "harness/selection_flags.h"

ABSL_FLAG(std::string, expect, "",
          "Check the profile against known facts (JSON pointer -> value, see capabilities/profile/profile_check.h); "
          "exit 1 on a mismatch");

namespace rdmacheck {
namespace {

// Exit status of --expect: 0 when every fact holds, 1 when one does not, 2 when the file is bad.
int CheckExpected(const Profile& profile, const std::string& path) {
  std::ifstream in(path);
  if (!in) return UsageError(absl::StrCat("cannot read ", path));
  nlohmann::json expected = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (expected.is_discarded()) return UsageError(absl::StrCat(path, ": not valid JSON"));
  absl::StatusOr<std::vector<std::string>> mismatches = CheckProfile(ProfileToJson(profile), expected);
  if (!mismatches.ok()) return UsageError(absl::StrCat(path, ": ", mismatches.status().message()));
  for (const std::string& m : *mismatches) std::cerr << "rdmacheck probe: " << m << "\n";
  std::cerr << "rdmacheck probe: " << expected["checks"].size() << " facts from " << path << ", "
            << mismatches->size() << " wrong" << std::endl;
  return mismatches->empty() ? kExitOk : kExitFailures;
}

}  // namespace

int ProbeCommand(const std::vector<std::string>& positional) {
  if (!positional.empty()) return UsageError("probe takes no arguments");
  const std::string format = absl::GetFlag(FLAGS_format);
  if (format != "text" && format != "json") return UsageError("--format must be text or json");
  absl::StatusOr<SelectedDevice> device = OpenSelectedDevice();
  if (!device.ok()) return UsageError(device.status());
  absl::StatusOr<Profile> profile = ProbeDevice(device->context.get(), device->selection);
  if (!profile.ok()) return UsageError(profile.status());

  std::string text = format == "json" ? ProfileToJson(*profile).dump(2) + "\n" : ProfileToText(*profile);
  const std::string out = absl::GetFlag(FLAGS_out);
  if (out.empty()) {
    std::cout << text << std::flush;
  } else if (absl::Status s = WriteFile(out, text); !s.ok()) {
    return UsageError(s);
  }
  if (!absl::GetFlag(FLAGS_expect).empty()) return CheckExpected(*profile, absl::GetFlag(FLAGS_expect));
  return kExitOk;
}

}  // namespace rdmacheck
