// Running observation probes so that no probe can take the probe run down.
//
// Each probe runs in a child process of its own, on a device context the child opens
// itself, under a time limit. The child sends its observations back through a pipe. When
// the child crashes (a provider bug), hangs, or exits without a report, every capability
// the probe was to decide becomes `broken` with what happened ("probe crashed: SIGSEGV",
// "probe timed out after 20 s"), and the run goes on with the next probe. The kernel
// releases whatever the child had created when it exits, so a dead probe leaks nothing.
#ifndef RDMACHECK_CAPABILITIES_PROBES_PROBE_RUNNER_H_
#define RDMACHECK_CAPABILITIES_PROBES_PROBE_RUNNER_H_

#include <infiniband/verbs.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "capabilities/profile/cap.h"
#include "capabilities/profile/profile.h"
#include "harness/device.h"
#include "nlohmann/json.hpp"

namespace rdmacheck {

// What one probe found.
struct ProbeReport {
  std::map<Cap, Observation> observed;
  std::map<std::string, Measurement> measured;
  std::vector<Quirk> quirks;  // what the probe noticed on the way (quirks.h adds the rest)
};

// What every probe starts from (the parent's view; the child gets a copy by fork).
struct ProbeInput {
  Selection selection;
  nlohmann::json declared;  // the profile's "declared" object
};

// A probe's view of the device, and where it writes what it found.
class ProbeScope {
 public:
  ProbeScope(ibv_context* context, const ProbeInput& input);  // `input` must outlive the scope

  ibv_context* context() const { return context_; }
  const Selection& selection() const { return input_.selection; }
  uint8_t port() const { return input_.selection.port; }
  bool IsIwarp() const { return input_.selection.transport == IBV_TRANSPORT_IWARP; }
  const nlohmann::json& declared() const { return input_.declared; }
  const ibv_device_attr_ex& attr() const { return attr_; }

  // Records the result of trying `cap` (capabilities/README.md, rule 1): `supported` (with
  // `supported_detail`) when `result` is OK. A failure is `unsupported` only when the
  // device said so up front: an attribute declares it absent (declared_support.h), or the
  // verb that names the capability refused it (refusal.h; a refusal from any other step of
  // the attempt is that step failing). Anything else is `broken`: declared and failing, or
  // accepted and then failing (an error completion, a timeout, wrong data).
  // A negative errno (a provider returning -EINVAL where verbs return EINVAL) is recorded
  // as the errno and noted as a quirk.
  void Tried(Cap cap, const absl::Status& result, absl::string_view supported_detail);
  void Record(Cap cap, Outcome outcome, int err, std::string detail);
  void Measure(const std::string& name, int64_t value, std::string detail);
  void NoteQuirk(std::string topic, std::string text);

  bool Has(Cap cap) const { return report_.observed.count(cap) > 0; }
  ProbeReport& report() { return report_; }

 private:
  ibv_context* context_;
  const ProbeInput& input_;
  ibv_device_attr_ex attr_{};
  ProbeReport report_;
};

struct ProbeSpec {
  const char* name;       // "srq", shown when the probe dies
  std::vector<Cap> caps;  // what it decides: each becomes `broken` if the probe dies
  // Tries things and records them. A non-OK return (an unexpected failure, e.g. of a
  // setup step) marks every cap the probe did not record as `broken` with that status.
  absl::Status (*run)(ProbeScope& scope);
  absl::Duration budget = absl::Seconds(20);  // scaled by --timeout_multiplier
};

// Runs `spec` in a child process on a freshly opened device (input.selection.device).
ProbeReport RunIsolated(const ProbeSpec& spec, const ProbeInput& input);

// The isolation on its own: runs `body` in a child process, bounded by `limit`, and
// returns its report; when the child dies or overruns, a report with every cap in
// `caps` broken. (Unit tested without a device.)
ProbeReport RunInChild(const std::vector<Cap>& caps, absl::Duration limit, const std::function<ProbeReport()>& body);

}  // namespace rdmacheck

#endif  // RDMACHECK_CAPABILITIES_PROBES_PROBE_RUNNER_H_
