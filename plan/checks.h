// Which promises each test checks: plan/checks.json, a reviewed file keyed by the test's
// catalogue name (RDMACHECK_ABOUT's Fixture.Name), next to its purpose and reference.
//
//   "PdTest.DeallocWithLiveMrFailsBusy": ["ibv_dealloc_pd/returns/errno",
//                                         "ibv_dealloc_pd/behaviour/fails-while-resources-use-it"]
//
// An empty list says the test checks no promise of the man pages (an IBTA rule, a wire
// behaviour): it is a declaration too. `rdmacheck plan --check` fails on a test without
// an entry and an entry without a test; the unit tests fail on a promise id that names no
// promise of the pages (plan/promise.h).
#ifndef RDMACHECK_PLAN_CHECKS_H_
#define RDMACHECK_PLAN_CHECKS_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "plan/promise.h"
#include "testing/catalogue.h"

namespace rdmacheck {

using Checks = std::map<std::string, std::vector<std::string>>;  // "Fixture.Name" -> promise ids

absl::StatusOr<Checks> LoadChecks(const std::string& path);

// "Fixture.Name: ibv_foo/errno/EBAR names no promise of the man pages", one per id.
std::vector<std::string> UnknownPromises(const Checks& checks, const PromiseSet& promises);

// Catalogue entries with no declaration, declarations naming no catalogue entry.
std::vector<std::string> UndeclaredOrStale(const Checks& checks, const std::vector<TestAbout>& catalogue);

// Where rdmacheck finds plan/: share/rdmacheck/plan beside an installed binary, else the
// source tree's plan/.
std::string PlanDataDir();

}  // namespace rdmacheck

#endif  // RDMACHECK_PLAN_CHECKS_H_
