#include "capabilities/probes/probes.h"

#include "harness/status.h"
#include "harness/verbs/factories.h"

namespace rdmacheck {

const std::vector<ProbeSpec>& AllProbes() {
  static const std::vector<ProbeSpec> all = [] {
    std::vector<ProbeSpec> probes;
    for (auto group : {QpProbes, ObjectProbes, EnvironmentProbes, ConnectionProbes, OperationProbes, NetworkProbes,
                       MemoryOpProbes}) {
      for (ProbeSpec& spec : group()) probes.push_back(std::move(spec));
    }
    return probes;
  }();
  return all;
}

absl::StatusOr<PdAndCq> MakePdAndCq(ibv_context* context) {
  PdAndCq made;
  RDMACHECK_ASSIGN_OR_RETURN(made.pd, AllocPd(context));
  RDMACHECK_ASSIGN_OR_RETURN(made.cq, CreateCq(context, 64));
  return made;
}

}  // namespace rdmacheck
