// A capability that is declared (or accepted) but misbehaves when the probe tries it is a
// finding of its own, beside the failures of the tests that need it (they run: decide.h).
// Each broken capability becomes one result, "BrokenCapability.<name>" in suite
// "capabilities", that fails with the probe's evidence, so `run` exits 1, unless the
// driver's expectation file has a "capability" entry for it whose signature matches that
// evidence (then it is xfail, with the entry's reason).
#ifndef RDMACHECK_CAPABILITIES_VERDICT_BROKEN_H_
#define RDMACHECK_CAPABILITIES_VERDICT_BROKEN_H_

#include <vector>

#include "capabilities/expectations/expectations.h"
#include "capabilities/profile/profile.h"
#include "results/results.h"

namespace rdmacheck {

inline constexpr char kBrokenCapabilitySuite[] = "capabilities";

// In capability order; `expectations` may be null (none apply).
std::vector<TestResult> BrokenCapabilityResults(const Profile& profile, const ExpectationFile* expectations);

}  // namespace rdmacheck

#endif  // RDMACHECK_CAPABILITIES_VERDICT_BROKEN_H_
