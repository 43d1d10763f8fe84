// rdmacheck fleet: many nodes.
//
//   rdmacheck fleet rounds --nodes=a,b,c [--max_rounds=K --seed=S] [--format=text|json]
//       the pairwise schedule (fleet/rounds.h): "ROUND SERVER CLIENT" per pair, "ROUND - NODE"
//       for a node sitting the round out; a batch script reads it line by line
//   rdmacheck fleet report [--out=DIR] [--nodes=a,b,c] [--slow_fraction=F] DIR...
//       fleet.{json,md,html} over every run directory under DIR... (fleet/fleet_model.h);
//       --nodes names the nodes that should have reported (the others are "missing")
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
#include "reports/fleet/fleet_output.h"
#include "reports/fleet/rounds.h"

ABSL_FLAG(std::string, nodes, "", "fleet: the nodes, comma-separated (e.g. from `scontrol show hostnames | paste -sd,`)");
ABSL_FLAG(int, max_rounds, 0, "fleet rounds: keep this many rounds of the full schedule (0: all n-1)");
ABSL_FLAG(uint64_t, seed, 1, "fleet rounds: the shuffle of the nodes behind --max_rounds; walk: the walk's random choices");
ABSL_FLAG(double, slow_fraction, 0.8, "fleet report: a pair below this fraction of the fleet's median speed is slow");

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
  absl::StatusOr<FleetReport> fleet = LoadFleet(dirs, options);
  if (!fleet.ok()) return UsageError(fleet.status());
  fleet->generated = absl::FormatTime(absl::RFC3339_sec, absl::Now(), absl::UTCTimeZone());
  const std::string out = absl::GetFlag(FLAGS_out).empty() ? "out" : absl::GetFlag(FLAGS_out);
  absl::StatusOr<std::vector<std::string>> written = WriteFleetFiles(*fleet, out);
  if (!written.ok()) return UsageError(written.status());
  std::cout << FleetSummaryText(*fleet, *written) << std::flush;
  return fleet->Troubled() ? kExitFailures : kExitOk;
}

}  // namespace

int FleetCommand(const std::vector<std::string>& positional) {
  const std::vector<std::string> rest =
      positional.empty() ? std::vector<std::string>() : std::vector<std::string>(positional.begin() + 1, positional.end());
  if (!positional.empty() && positional[0] == "rounds") return RoundsCommand(rest);
  if (!positional.empty() && positional[0] == "report") return FleetReportCommand(rest);
  return UsageError("usage: rdmacheck fleet rounds --nodes=a,b,... | rdmacheck fleet report [--out=DIR] DIR...");
}

}  // namespace rdmacheck
