// The fleet report's model built one run at a time (fleet_model.h says what it judges).
//
// Add() folds a run into the tally and the caller drops it: what stays is the run's digest
// (FleetRun: names, summary, why it did not finish), its failed tests (one line each), its
// benchmark points if it is a pair's, and its outcomes — each test's status and traffic
// flag, each capability's outcome, its versions and its kind — as a pattern shared by every
// run that looks the same (most of a healthy fleet: one pattern per device model). Judging
// needs every run's outcomes after the majority is known; the patterns keep that at a few
// bytes per run, plus about one byte per test of the catalogue per distinct pattern.
// Finish() then judges exactly as a fleet held whole would be: the same differences in the
// same order (tests in the report matrix's order, report_model.h, then capabilities by
// name, then versions), the same verdicts and sort.
//
//   FleetTally tally(options);
//   for (const std::string& dir : dirs) tally.Add(*LoadFleetRun(dir), *LoadBenchRuns(dir));
//   FleetReport fleet = std::move(tally).Finish();
#ifndef RDMACHECK_REPORTS_FLEET_FLEET_TALLY_H_
#define RDMACHECK_REPORTS_FLEET_FLEET_TALLY_H_

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "reports/fleet/fleet_model.h"

namespace rdmacheck {

class FleetTally {
 public:
  explicit FleetTally(FleetOptions options) : options_(std::move(options)) {}

  // Folds one run in; `bench` is its benchmark runs (kept only for a pair's run).
  void Add(const DeviceRun& run, std::vector<BenchRun> bench);

  // The judged fleet; the tally is spent.
  FleetReport Finish() &&;

 private:
  static constexpr uint8_t kNotRun = 0x7f;  // a test status code for "not run"
  static constexpr uint8_t kFlagged = 0x80;  // or'ed into a status code: the counters were flagged

  // How one run came out, item by item; interned, so runs that look alike share one.
  struct Pattern {
    std::vector<std::pair<uint32_t, uint8_t>> tests;  // (test id, status code | kFlagged), by id
    std::vector<std::pair<uint32_t, uint32_t>> capabilities;  // (capability id, outcome string id), by id
    std::array<uint32_t, 11> versions{};  // string ids of the versions, settings, link facts (kVersionKeys)
    uint32_t kind = 0;                   // string id of "mlx5 15b3:101d" (fleet_model.h)
    // Filled by Finish: by test id (kNotRun where absent), by capability id (the id of "").
    std::vector<uint8_t> dense_tests;
    std::vector<uint32_t> dense_capabilities;
  };

  uint32_t Intern(const std::string& s);
  uint32_t InternPattern(Pattern pattern);

  // Finish's steps.
  std::vector<uint32_t> MatrixOrder() const;        // test ids in the report matrix's row order
  std::vector<uint32_t> CapabilityOrder() const;    // capability ids by name
  void JudgeGroup(const std::vector<size_t>& group, const std::vector<uint32_t>& tests,
                  const std::vector<uint32_t>& capabilities, std::vector<std::vector<Difference>>& differences) const;
  std::vector<std::vector<MissingCapability>> MissingCapabilities(const std::vector<uint32_t>& capabilities) const;
  void JudgeNodes(FleetReport& fleet);
  void JudgePairs(FleetReport& fleet);

  FleetOptions options_;
  std::vector<FleetRun> runs_;
  // Node runs: index into runs_, and its pattern; their failures by run.
  std::vector<std::pair<size_t, uint32_t>> node_runs_;
  std::map<size_t, std::vector<NodeFailure>> failures_;
  std::map<size_t, std::string> flapping_;  // run index -> its flapping link (FleetNode::flapping_links)
  // Pair runs: index into runs_, its benchmark runs, and its MTUs (FleetPair's).
  struct PairRun {
    size_t run = 0;
    std::vector<BenchRun> bench;
    int path_mtu = 0, active_mtu = 0, peer_active_mtu = 0;
    std::string first_failure;                     // FleetPair::first_failure
    std::map<std::string, int64_t> error_counters;  // FleetPair::error_counters
  };
  std::vector<PairRun> pair_runs_;

  // The catalogue as the runs show it: tests (suite, name) and suites in first-seen order,
  // capabilities, and every outcome and version string.
  std::unordered_map<std::string, uint32_t> test_ids_;  // by "suite\0name"
  std::vector<uint32_t> test_suite_;  // test id -> index of its suite in first-seen order
  std::map<std::string, uint32_t> suite_ids_;
  std::map<std::string, uint32_t> capability_ids_;
  std::unordered_map<std::string, uint32_t> string_ids_;
  std::vector<std::string> strings_;
  std::unordered_map<std::string, uint32_t> pattern_ids_;  // by the pattern's bytes
  std::vector<Pattern> patterns_;
  std::vector<std::string> test_names_;        // by test id
  std::vector<std::string> capability_names_;  // by capability id, filled by Finish
};

}  // namespace rdmacheck

#endif  // RDMACHECK_REPORTS_FLEET_FLEET_TALLY_H_
