#include "capabilities/verdict/decide.h"

#include "absl/strings/str_cat.h"
#include "capabilities/declared/declared_support.h"
#include "harness/status.h"

namespace rdmacheck {

Decision Decide(const Profile& profile, Cap cap) {
  auto it = profile.observed.find(cap);
  // Broken is not absent: the tests run and show how it misbehaves (and fail, unless an
  // expectation names that failure). Only a refused or undeclared capability skips.
  if (it == profile.observed.end() || it->second.outcome != Outcome::kUnsupported) return {true, ""};
  const Observation& o = it->second;
  std::string reason = absl::StrCat("requires ", CapName(cap), ": ", OutcomeName(o.outcome));
  if (!o.detail.empty()) absl::StrAppend(&reason, ": ", o.detail);
  if (o.err != 0 && o.detail.find(std::string(ErrnoName(o.err))) == std::string::npos) {
    absl::StrAppend(&reason, " (", ErrnoName(o.err), ")");
  }
  // The declared side of the evidence, unless the detail already quotes it.
  std::optional<DeclaredHint> hint = DeclaredSupport(profile.declared, profile.identity.port, cap);
  if (hint && o.detail.find(hint->evidence) == std::string::npos) {
    absl::StrAppend(&reason, "; declared ", hint->evidence);
  }
  return {false, reason};
}

ConnectMethod PreferredConnectMethod(const Profile& profile) {
  auto it = profile.observed.find(Cap::kManualConnect);
  if (it != profile.observed.end()) {
    return it->second.outcome == Outcome::kSupported ? ConnectMethod::kManual : ConnectMethod::kRdmaCm;
  }
  // Not probed: iWARP connections are set up by the MPA exchange, which only rdma_cm does.
  return profile.identity.transport == "iWARP" ? ConnectMethod::kRdmaCm : ConnectMethod::kManual;
}

}  // namespace rdmacheck
