// A synthetic fleet for the fleet report's test (unit/fleet_report_test.cc) and benchmark
// (unit/fleet_report_bench.cc): healthy nodes that all look alike, with the troubles a
// real fleet has planted on a few, so a test can say which nodes the report must name.
#ifndef RDMACHECK_UNIT_FLEET_FIXTURES_H_
#define RDMACHECK_UNIT_FLEET_FIXTURES_H_

#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "results/bench_result.h"
#include "reports/fleet/fleet_model.h"
#include "reports/fleet/rounds.h"
#include "unit/report_fixtures.h"

namespace rdmacheck::fixtures {

inline std::string NodeName(int i) { return absl::StrFormat("node%04d", i); }

// One node's run of "mlx5_0": `tests` tests over 16 suites, every 10th skipped for a
// capability, the rest passing; 40 capabilities, the one the skips need unsupported.
inline DeviceRun NodeRun(const std::string& host, int tests) {
  std::vector<TestResult> results;
  results.reserve(tests);
  for (int i = 0; i < tests; ++i) {
    const std::string suite = absl::StrFormat("suite%02d", i % 16);
    TestResult t = Result(suite, absl::StrFormat("Suite%02dTest.Behaviour%04d", i % 16, i), TestStatus::kPass);
    if (i % 10 == 9) t = SkippedFor(Result(suite, t.name, TestStatus::kSkip, "requires odp"), "odp");
    results.push_back(std::move(t));
  }
  std::map<std::string, std::string> observed;
  for (int c = 0; c < 40; ++c) observed[absl::StrFormat("cap%02d", c)] = "supported";
  observed["odp"] = "unsupported";
  DeviceRun run = RunOf("mlx5_0", std::move(results), observed);
  run.source = "fleet/nodes/" + host + "/mlx5_0";
  run.results.environment.update({{"hostname", host},
                                  {"driver", "mlx5"},
                                  {"fw_ver", "28.39.1002"},
                                  {"kernel", "6.1.0-56-amd64"},
                                  {"rdma_core", "44.0-2"}});
  return run;
}

// The cross-node run of a pair: `client` ran `run --peer=SERVER:18515`, and `bench --peer`.
inline DeviceRun PairRun(const std::string& server, const std::string& client, int tests) {
  DeviceRun run = NodeRun(client, tests);
  run.source = "fleet/pairs/" + server + "--" + client + "/mlx5_0";
  run.results.environment["peer"] = server + ":18515";
  return run;
}

inline BenchRun PairBench(double send_latency_us, double write_mib_per_s) {
  BenchRun b;
  b.device = "mlx5_0";
  b.points.push_back({"rdmacheck", "send", "latency", 64, 1000, send_latency_us, send_latency_us, send_latency_us, 0, ""});
  b.points.push_back({"rdmacheck", "write", "bandwidth", 65536, 100, 0, 0, 0, write_mib_per_s, ""});
  return b;
}

// The planted troubles, by node index.
inline constexpr int kFailingNode = 7;     // one test fails
inline constexpr int kOldKernelNode = 13;  // an older kernel, everything passes
inline constexpr int kNoOdpNode = 21;      // odp broken where the fleet says unsupported... and its tests fail
inline constexpr int kSilentNode = 42;     // listed, but never reported

struct SyntheticFleet {
  std::vector<std::string> nodes;
  std::vector<DeviceRun> runs;
  std::vector<std::vector<BenchRun>> bench;
  std::pair<int, int> slow_pair{-1, -1};  // (server, client) of the pair made slow
};

// `n` nodes with `tests` tests each, and the first round of the pairwise schedule
// (n/2 pairs), each pair with a benchmark; one pair at 40% of the others' speed.
inline SyntheticFleet MakeSyntheticFleet(int n, int tests) {
  SyntheticFleet fleet;
  for (int i = 0; i < n; ++i) fleet.nodes.push_back(NodeName(i));
  for (int i = 0; i < n; ++i) {
    if (i == kSilentNode) continue;
    DeviceRun run = NodeRun(fleet.nodes[i], tests);
    if (i == kFailingNode) {
      run.results.tests[3].status = TestStatus::kFail;
      run.results.tests[3].message = "completion status IBV_WC_RETRY_EXC_ERR (12), expected IBV_WC_SUCCESS\nmore";
    }
    if (i == kOldKernelNode) run.results.environment["kernel"] = "5.10.0-30-amd64";
    if (i == kNoOdpNode) {
      run.observed["odp"] = {"broken", 95, "declared, but ibv_reg_mr(IBV_ACCESS_ON_DEMAND) failed"};
      for (TestResult& t : run.results.tests) {
        if (t.status == TestStatus::kSkip) t = Result(t.suite, t.name, TestStatus::kFail, "ODP page fault never resolved");
      }
    }
    fleet.runs.push_back(std::move(run));
    fleet.bench.emplace_back();
  }
  const Round first = PairRounds(n).front();
  for (size_t p = 0; p < first.pairs.size(); ++p) {
    const NodePair& pair = first.pairs[p];
    fleet.runs.push_back(PairRun(fleet.nodes[pair.first], fleet.nodes[pair.second], tests / 10));
    const bool slow = p == 3;
    if (slow) fleet.slow_pair = {pair.first, pair.second};
    fleet.bench.push_back({PairBench(slow ? 5.0 : 2.0 + 0.001 * p, slow ? 4000 : 10000 - p)});
  }
  return fleet;
}

// The node called `name` of a built fleet (a test failure, and an empty node, when there is none).
inline const FleetNode& Node(const FleetReport& fleet, const std::string& name) {
  for (const FleetNode& n : fleet.nodes) {
    if (n.name == name) return n;
  }
  ADD_FAILURE() << "no node " << name;
  static const FleetNode none;
  return none;
}

// Every difference of every device of `node`.
inline std::vector<Difference> DifferencesOf(const FleetNode& node) {
  std::vector<Difference> all;
  for (const NodeDevice& d : node.devices) all.insert(all.end(), d.differences.begin(), d.differences.end());
  return all;
}

// Matches a Difference field by field.
inline auto Diff(const std::string& kind, const std::string& subject, const std::string& value,
                 const std::string& majority) {
  using ::testing::Field;
  return ::testing::AllOf(Field(&Difference::kind, kind), Field(&Difference::subject, subject),
                          Field(&Difference::value, value), Field(&Difference::majority, majority));
}

}  // namespace rdmacheck::fixtures

#endif  // RDMACHECK_UNIT_FLEET_FIXTURES_H_
