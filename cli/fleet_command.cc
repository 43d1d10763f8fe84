// rdmacheck fleet: many nodes.
//
//   rdmacheck fleet rounds --nodes=a,b,c [--max_rounds=K --seed=S] [--format=text|json]
//       the pairwise schedule (fleet/rounds.h): "ROUND SERVER CLIENT" per pair, "ROUND - NODE"
//       for a node sitting the round out; a batch script reads it line by line
//   rdmacheck fleet report [--out=DIR] [--nodes=a,b,c] [--slow_fraction=F] [--profile=FILE] DIR...
//       fleet.{json,md,html} over every run directory under DIR... (fleet/fleet_model.h);
//       --nodes names the nodes that should have reported (the others are "missing");
//       --profile checks every node against a machine profile (fleet/fleet_profile.h)
//   rdmacheck fleet profile --learn [--machine_type=T] [--out=FILE] DIR...
//       a machine profile learned from a healthy fleet's runs (machine/profile_learn.h),
//       printed or written to FILE; exit 1 when a node of that fleet is below it (the
//       fleet was not as alike as a profile needs: the lines on stderr say where)
//
// `fleet report` exits 1 when a node failed, is missing (no results, or a device or a
// capability most of the fleet has) or did not finish, or a pair failed or is slow, 0
// otherwise (outliers are findings, not failures); both exit 2 on unusable input.
#include <iostream>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "cli/commands.h"
#include "harness/files.h"
#include "machine/profile_check.h"
#include "machine/profile_learn.h"
#include "reports/fleet/fleet_output.h"
#include "reports/fleet/rounds.h"

ABSL_FLAG(std::string, nodes, "", "fleet: the nodes, comma-separated (e.g. from `scontrol show hostnames | paste -sd,`)");
ABSL_FLAG(int, max_rounds, 0, "fleet rounds: keep this many rounds of the full schedule (0: all n-1)");
ABSL_FLAG(uint64_t, seed, 1, "fleet rounds: the shuffle of the nodes behind --max_rounds; walk: the walk's random choices");
ABSL_FLAG(double, slow_fraction, 0.8, "fleet report: a pair below this fraction of the fleet's median speed is slow");
ABSL_FLAG(bool, learn, false, "fleet profile: learn a machine profile from the runs under DIR... (a healthy fleet's)");
ABSL_FLAG(std::string, machine_type, "", "fleet profile: the machine type the learned profile is for (its machine_type)");

namespace rdmacheck {
namespace {

int RoundsCommand(const std::vector<std::string>& args) {
  if (!args.empty()) return UsageError("fleet rounds takes no arguments: " + args[0]);
  absl::StatusOr<std::vector<std::string>> nodes = ParseNodeList(absl::GetFlag(FLAGS_nodes));
  if (!nodes.ok()) return UsageError(absl::StrCat("--nodes: ", nodes.status().message()));
  if (absl::GetFlag(FLAGS_max_rounds) < 0) return UsageError("--max_rounds must be >= 0");
  const std::string format = absl::GetFlag(FLAGS_format);
  if (format != "text" && format != "json") return UsageError("--format must be text or json");
  const std::vector<Round> rounds =
      SampledRounds(static_cast<int>(nodes->size()), absl::GetFlag(FLAGS_max_rounds), absl::GetFlag(FLAGS_seed));
  if (format == "text") {
    std::cout << RoundsText(rounds, *nodes) << std::flush;
    return kExitOk;
  }
  nlohmann::json json = {{"nodes", *nodes}, {"rounds", nlohmann::json::array()}};
  for (const Round& round : rounds) {
    nlohmann::json pairs = nlohmann::json::array();
    for (const NodePair& p : round.pairs) pairs.push_back({{"server", (*nodes)[p.first]}, {"client", (*nodes)[p.second]}});
    json["rounds"].push_back({{"pairs", std::move(pairs)}, {"bye", round.bye < 0 ? "" : (*nodes)[round.bye]}});
  }
  std::cout << json.dump(2) << std::endl;
  return kExitOk;
}

int FleetReportCommand(const std::vector<std::string>& dirs) {
  if (dirs.empty()) return UsageError("fleet report needs one or more directories holding the nodes' run directories");
  FleetOptions options;
  options.slow_fraction = absl::GetFlag(FLAGS_slow_fraction);
  if (options.slow_fraction <= 0 || options.slow_fraction > 1) return UsageError("--slow_fraction must be in (0, 1]");
  if (!absl::GetFlag(FLAGS_nodes).empty()) {
    absl::StatusOr<std::vector<std::string>> nodes = ParseNodeList(absl::GetFlag(FLAGS_nodes));
    if (!nodes.ok()) return UsageError(absl::StrCat("--nodes: ", nodes.status().message()));
    options.expected_nodes = *std::move(nodes);
  }
  if (!absl::GetFlag(FLAGS_profile).empty()) {
    absl::StatusOr<MachineProfile> profile = LoadMachineProfile(absl::GetFlag(FLAGS_profile));
    if (!profile.ok()) return UsageError(profile.status());
    options.profile = *std::move(profile);
  }
  absl::StatusOr<FleetReport> fleet = LoadFleet(dirs, options);
  if (!fleet.ok()) return UsageError(fleet.status());
  fleet->generated = absl::FormatTime(absl::RFC3339_sec, absl::Now(), absl::UTCTimeZone());
  const std::string out = absl::GetFlag(FLAGS_out).empty() ? "out" : absl::GetFlag(FLAGS_out);
  absl::StatusOr<std::vector<std::string>> written = WriteFleetFiles(*fleet, out);
  if (!written.ok()) return UsageError(written.status());
  std::cout << FleetSummaryText(*fleet, *written) << std::flush;
  return fleet->Troubled() ? kExitFailures : kExitOk;
}

int ProfileCommand(const std::vector<std::string>& dirs) {
  if (!absl::GetFlag(FLAGS_learn)) return UsageError("fleet profile needs --learn: fleet profile --learn [--out=FILE] DIR...");
  if (dirs.empty()) return UsageError("fleet profile --learn needs one or more directories holding a healthy fleet's runs");
  std::vector<NodeFacts> machines;
  absl::StatusOr<FleetReport> fleet = LoadFleet(dirs, FleetOptions(), &machines);
  if (!fleet.ok()) return UsageError(fleet.status());
  std::vector<std::string> notes;
  const MachineProfile profile = LearnProfile(machines, absl::GetFlag(FLAGS_machine_type), &notes);
  for (const std::string& note : notes) std::cerr << "rdmacheck fleet profile: " << note << "\n";
  const std::string text = MachineProfileText(profile);
  const std::string out = absl::GetFlag(FLAGS_out);
  if (out.empty()) {
    std::cout << text << std::flush;
  } else if (absl::Status written = WriteFile(out, text); !written.ok()) {
    return UsageError(written);
  }
  // The fleet it came from must meet it; a node that does not is unlike the rest.
  int below = 0;
  for (const NodeFacts& node : machines) {
    const std::vector<std::string> violations = CheckNode(profile, node);
    if (violations.empty()) continue;
    if (++below <= 10) std::cerr << "rdmacheck fleet profile: " << node.host << " is below it: " << violations.front() << "\n";
  }
  if (!out.empty()) {
    std::cout << "rdmacheck fleet profile: learned from " << machines.size() << " nodes, wrote " << out << std::endl;
  }
  if (below > 0) {
    std::cerr << "rdmacheck fleet profile: " << below << " of " << machines.size()
              << " nodes are below the profile learned from them" << std::endl;
  }
  return below > 0 ? kExitFailures : kExitOk;
}

}  // namespace

int FleetCommand(const std::vector<std::string>& positional) {
  const std::vector<std::string> rest =
      positional.empty() ? std::vector<std::string>() : std::vector<std::string>(positional.begin() + 1, positional.end());
  if (!positional.empty() && positional[0] == "rounds") return RoundsCommand(rest);
  if (!positional.empty() && positional[0] == "report") return FleetReportCommand(rest);
  if (!positional.empty() && positional[0] == "profile") return ProfileCommand(rest);
  return UsageError(
      "usage: rdmacheck fleet rounds --nodes=a,b,... | rdmacheck fleet report [--out=DIR] DIR... | "
      "rdmacheck fleet profile --learn DIR...");
}

}  // namespace rdmacheck
