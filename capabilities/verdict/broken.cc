#include "capabilities/verdict/broken.h"

#include "absl/strings/str_cat.h"
#include "harness/status.h"

namespace rdmacheck {

std::vector<TestResult> BrokenCapabilityResults(const Profile& profile, const ExpectationFile* expectations) {
  std::vector<TestResult> results;
  for (const auto& [cap, observation] : profile.observed) {
    if (observation.outcome != Outcome::kBroken) continue;
    TestResult r;
    r.suite = kBrokenCapabilitySuite;
    r.name = absl::StrCat("BrokenCapability.", CapName(cap));
    r.status = TestStatus::kFail;
    r.message = absl::StrCat(CapName(cap), " is declared or accepted, but misbehaves when tried: ", observation.detail);
    if (observation.err != 0) absl::StrAppend(&r.message, " (", ErrnoName(observation.err), ")");
    r.purpose = absl::StrCat("the device's ", CapName(cap), " works when the probe tries it");
    r.reference = "capabilities/README.md (supported / unsupported / broken); the probe's evidence";
    r.needs = {CapName(cap)};
    if (expectations != nullptr) {
      ApplyExpectation(FindCapabilityExpectation(*expectations, CapName(cap), profile.identity.kernel,
                                                 profile.identity.rdma_core),
                       r);
    }
    results.push_back(std::move(r));
  }
  return results;
}

}  // namespace rdmacheck
