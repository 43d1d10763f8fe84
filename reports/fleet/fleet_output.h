// The fleet report as files: fleet.json (schema "rdmacheck.fleet/1"), fleet.md and
// fleet.html, and the few lines `rdmacheck fleet report` prints.
//
// Both documents lead with the trouble: nodes worst first (fail, missing, incomplete,
// outlier), each with its failing tests and how it differs from the fleet's majority;
// healthy nodes only by name, folded (<details>) in the page; pairs failed, slow or below
// their path MTU first (FleetPair::Noted), the rest folded. Lists inside one node are cut
// at kFleetListLimit lines ("... N more"), so a page over hundreds of nodes stays
// readable; fleet.json keeps everything.
#ifndef RDMACHECK_REPORTS_FLEET_FLEET_OUTPUT_H_
#define RDMACHECK_REPORTS_FLEET_FLEET_OUTPUT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "reports/fleet/fleet_model.h"
#include "nlohmann/json.hpp"

namespace rdmacheck {

inline constexpr char kFleetSchema[] = "rdmacheck.fleet/1";
inline constexpr size_t kFleetListLimit = 20;

nlohmann::json FleetToJson(const FleetReport& fleet);
std::string FleetToMarkdown(const FleetReport& fleet);
std::string FleetToHtml(const FleetReport& fleet);

// Creates `dir` if needed and writes the three files; returns their paths.
absl::StatusOr<std::vector<std::string>> WriteFleetFiles(const FleetReport& fleet, const std::string& dir);

// "12 nodes: 10 healthy, 1 outlier, 1 fail; 66 pairs: 65 ok, 0 failed, 1 slow; outliers:
// node07, node11" (at most kFleetListLimit names); "; low path MTU: node03 <- node04" before
// the outliers when a pair's path MTU is below both its ports'.
std::string FleetHeadline(const FleetReport& fleet);

// A node's verdict as the documents show it: "fail, outlier" for a failing node that stands
// out from the fleet, "fail" for one whose failures the whole fleet shares.
std::string NodeVerdictText(const FleetNode& node);

// The headline, then the worst nodes and pairs, then the files written.
std::string FleetSummaryText(const FleetReport& fleet, const std::vector<std::string>& written);

// Shared by the renderers: what went wrong in a failed test, one line of at most 160
// chars (results/failure_line.h).
std::string FailureLine(const NodeFailure& failure);
// "version kernel: 6.1.0-56-amd64 (fleet: 6.12.95+deb12-amd64)" and the like.
std::string DifferenceText(const Difference& d);
// "mlx5_0: lacks odp: unsupported here, supported on 498 of the fleet's 499 mlx5 devices".
std::string MissingCapabilityText(const MissingCapability& m);
// What is wrong with a node, one line each, device first: where it is below the machine
// profile (--profile: fleet_profile.h), why it has no results (notes),
// its runs that did not finish and why (presentation.h IncompleteRunLine), its failed
// tests, the devices and capabilities it lacks, then how else it differs from the majority.
std::vector<std::string> NodeFindings(const FleetReport& fleet, const FleetNode& node);
// A pair's benchmark points, slowest first: "send latency 64 B: 31.0 us, 0.52 of the median".
std::vector<std::string> PairFindings(const FleetPair& pair);
// A pair's path MTU: "1024, below both ports' active MTU (node-b 4096, node-a 4096)" when
// LowPathMtu(), else "4096"; "" when the run did not record it.
std::string PathMtuText(const FleetPair& pair);

}  // namespace rdmacheck

#endif  // RDMACHECK_REPORTS_FLEET_FLEET_OUTPUT_H_
