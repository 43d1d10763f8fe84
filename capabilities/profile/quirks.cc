#include "capabilities/profile/quirks.h"

#include "absl/strings/str_cat.h"
#include "capabilities/declared/declared_support.h"

namespace rdmacheck {

std::vector<Quirk> FindQuirks(const Profile& profile) {
  std::vector<Quirk> quirks;
  for (const auto& [cap, o] : profile.observed) {
    std::optional<DeclaredHint> hint = DeclaredSupport(profile.declared, profile.identity.port, cap);
    if (o.outcome == Outcome::kBroken) {
      quirks.push_back({CapName(cap), absl::StrCat("broken: ", o.detail)});
    } else if (hint && hint->declared && o.outcome == Outcome::kUnsupported) {
      quirks.push_back({CapName(cap), absl::StrCat("declared (", hint->evidence, "), but unsupported: ", o.detail)});
    } else if (hint && !hint->declared && o.outcome == Outcome::kSupported) {
      quirks.push_back({CapName(cap), absl::StrCat("not declared (", hint->evidence, "), but works: ", o.detail)});
    }
  }
  auto sge = profile.measured.find("max_send_sge");
  const nlohmann::json& limits = profile.declared.value("limits", nlohmann::json::object());
  if (sge != profile.measured.end() && limits.contains("max_sge") &&
      sge->second.value != limits["max_sge"].get<int64_t>()) {
    quirks.push_back({"max_send_sge", absl::StrCat("declared max_sge=", limits["max_sge"].get<int64_t>(),
                                                   ", but ", sge->second.detail)});
  }
  return quirks;
}

}  // namespace rdmacheck
