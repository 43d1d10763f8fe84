// The documented errors of a provider: the verbs a provider's ops table implements
// (plan/providers.json, read from rdma-core's sources), and for each of those verbs the
// error returns and errnos its man page documents, with their coverage in a run.
//
//   absl::StatusOr<Providers> p = LoadProviders(PlanDataDir() + "/providers.json");
//   ProviderErrors e = MeasureProviderErrors(coverage, p->at("rxe"));
//   // e.untested == 0: every documented error of every verb rxe implements is tested,
//   // untestable on this device, or one rxe has no way to return (the source says why).
#ifndef RDMACHECK_PLAN_PROVIDERS_H_
#define RDMACHECK_PLAN_PROVIDERS_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "plan/coverage.h"
#include "plan/promise.h"

namespace rdmacheck {

struct Provider {
  std::string name;       // "rxe": the driver name a run's environment records
  std::string ops_table;  // where its verbs_context_ops is: "rdma-core v44.0 providers/rxe/rxe.c:1803-1837"
  std::vector<std::string> verbs;                       // the public verbs its ops serve, sorted
  std::map<std::string, std::string> no_failing_path;  // promise id -> why the provider cannot return it
};

using Providers = std::map<std::string, Provider>;

absl::StatusOr<Providers> LoadProviders(const std::string& path);

// A failure a verb's page documents: an errno, or a failure return (NULL, errno, -1, ...).
bool IsErrorPromise(const Promise& p);

struct ProviderErrors {
  std::string provider, ops_table;
  struct Error {
    const PromiseCoverage* coverage;
    std::string no_failing_path;  // why the provider cannot return it ("" when it can)
  };
  std::map<std::string, std::vector<Error>> by_verb;  // the implemented verbs' documented errors
  std::vector<std::string> undocumented;              // implemented verbs these man pages do not document
  int verbs = 0, verbs_complete = 0;                  // verbs with no untested error
  int errors = 0, tested = 0, untestable = 0, no_failing_path = 0, untested = 0;
};

ProviderErrors MeasureProviderErrors(const Coverage& coverage, const Provider& provider);

}  // namespace rdmacheck

#endif  // RDMACHECK_PLAN_PROVIDERS_H_
