#include "capabilities/profile/profile_check.h"

#include "absl/strings/str_cat.h"

namespace rdmacheck {

absl::StatusOr<std::vector<std::string>> CheckProfile(const nlohmann::json& profile, const nlohmann::json& expected) {
  if (!expected.is_object() || !expected.contains("checks") || !expected["checks"].is_object()) {
    return absl::InvalidArgumentError("expected facts must be {\"checks\": {\"/json/pointer\": value, ...}}");
  }
  std::vector<std::string> mismatches;
  for (const auto& [pointer_text, want] : expected["checks"].items()) {
    nlohmann::json::json_pointer pointer;
    try {
      pointer = nlohmann::json::json_pointer(pointer_text);
    } catch (const nlohmann::json::exception& e) {
      return absl::InvalidArgumentError(absl::StrCat("'", pointer_text, "' is not a JSON pointer: ", e.what()));
    }
    if (!profile.contains(pointer)) {
      mismatches.push_back(absl::StrCat(pointer_text, ": expected ", want.dump(), ", but the profile has no such field"));
      continue;
    }
    const nlohmann::json& got = profile.at(pointer);
    if (got == want) continue;
    std::string line = absl::StrCat(pointer_text, ": expected ", want.dump(), ", got ", got.dump());
    // For an observation, say what the probe saw.
    if (pointer.back() == "outcome" && profile.contains(pointer.parent_pointer() / "detail")) {
      absl::StrAppend(&line, " (", profile.at(pointer.parent_pointer() / "detail").get<std::string>(), ")");
    }
    mismatches.push_back(line);
  }
  return mismatches;
}

}  // namespace rdmacheck
