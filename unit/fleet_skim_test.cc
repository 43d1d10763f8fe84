// What the fleet reads of a run (fleet/results_skim.h): the skimmed results.json keeps
// every field the fleet reads, exactly, and drops the catalogue text, timings and counters
// (all but their flag), however those are written (quotes, brackets and escapes inside
// strings); a broken document is refused, naming the file; and a fleet read from disk
// this way is judged as the same runs held in memory are.
#include <filesystem>

#include "reports/fleet/fleet_model.h"
#include "reports/fleet/fleet_output.h"
#include "reports/fleet/results_skim.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "unit/fleet_fixtures.h"

namespace rdmacheck {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using namespace fixtures;  // NOLINT: the fixtures are this file's vocabulary

// A run whose dropped members hold everything that could trip a scanner.
RunResults TrickyRun() {
  RunResults r = NodeRun("a", 4).results;
  r.tests[0].purpose = R"(a "quoted" {brace} [bracket] \ backslash, and "key": "value")";
  r.tests[0].reference = "IBTA \u00a7 9.8 \xe2\x9c\x93";  // UTF-8 (a section sign, a check mark)
  r.tests[0].needs = {"rdma_write", "]}"};
  r.tests[1].status = TestStatus::kXfail;
  r.tests[1].expectation_reason = "rxe: \"known\" {issue}";
  r.tests[1].kernel_log = {"WARNING: at } ]"};
  r.tests[1].message = "x.cc:1: Value of: \"a\\b\"\n  Actual: {}";
  r.tests[2].traffic = {{"completions", 1}, {"counters", {{"sent_pkts", 3}}}, {"flag", "no counter moved"}};
  r.tests[3].traffic = {{"completions", 2}, {"counters", {{"sent_pkts", 4}}}};
  r.environment["doctor"] = {{"findings", {{{"what", "\"quoted\" ]"}}}}};
  return r;
}

TEST(FleetSkimTest, KeepsWhatTheFleetReadsAndDropsTheRest) {
  const RunResults full = TrickyRun();
  const std::string text = ResultsToJson(full).dump(2);
  absl::StatusOr<std::string> skimmed = SkimResults(text);
  ASSERT_TRUE(skimmed.ok()) << skimmed.status();
  EXPECT_THAT(*skimmed, Not(HasSubstr("\"purpose\"")));
  EXPECT_THAT(*skimmed, Not(HasSubstr("sent_pkts")));
  const nlohmann::json json = nlohmann::json::parse(*skimmed);
  absl::StatusOr<RunResults> read = ResultsFromJson(json);
  ASSERT_TRUE(read.ok()) << read.status();

  EXPECT_EQ(read->device, full.device);
  EXPECT_EQ(read->environment, full.environment);
  EXPECT_EQ(read->complete, full.complete);
  ASSERT_EQ(read->tests.size(), full.tests.size());
  for (size_t i = 0; i < full.tests.size(); ++i) {
    const TestResult &got = read->tests[i], &want = full.tests[i];
    EXPECT_EQ(got.suite, want.suite);
    EXPECT_EQ(got.name, want.name);
    EXPECT_EQ(got.status, want.status);
    EXPECT_EQ(got.message, want.message);
    EXPECT_EQ(got.capability, want.capability);
    EXPECT_EQ(got.abnormal, want.abnormal);
    EXPECT_EQ(got.peer_pairs, want.peer_pairs);
    EXPECT_EQ(got.purpose, "") << "catalogue text dropped";
    EXPECT_TRUE(got.needs.empty());
    EXPECT_TRUE(got.kernel_log.empty());
    EXPECT_EQ(got.expectation_reason, "");
  }
  EXPECT_EQ(read->tests[2].traffic, nlohmann::json({{"flag", "no counter moved"}})) << "the flag, nothing else";
  EXPECT_EQ(read->tests[3].traffic, nlohmann::json::object());
  EXPECT_EQ(Summarize(read->tests).skipped_by_capability, Summarize(full.tests).skipped_by_capability);
}

TEST(FleetSkimTest, CompactAndIndentedTextSkimAlike) {
  const nlohmann::json json = ResultsToJson(TrickyRun());
  absl::StatusOr<std::string> compact = SkimResults(json.dump()), indented = SkimResults(json.dump(4));
  ASSERT_TRUE(compact.ok() && indented.ok());
  EXPECT_EQ(nlohmann::json::parse(*compact), nlohmann::json::parse(*indented));
}

TEST(FleetSkimTest, ABrokenStructureIsRefused) {
  const std::string text = ResultsToJson(TrickyRun()).dump(2);
  EXPECT_FALSE(SkimResults(text.substr(0, text.size() / 2)).ok()) << "cut short";
  EXPECT_FALSE(SkimResults(text + "}").ok()) << "trailing text";
  EXPECT_FALSE(SkimResults(R"({"device": "rxe0", "tests": [{"name" "x"}]})").ok()) << "no colon";
  EXPECT_FALSE(SkimResults(R"({"tests": [{"purpose": "unterminated}]})").ok());
  EXPECT_FALSE(SkimResults("").ok());
}

TEST(FleetSkimTest, LoadFleetRunNamesTheFileItCannotRead) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(::testing::TempDir()) / "fleet_skim_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  ASSERT_TRUE(WriteFile((dir / "results.json").string(), R"({"device": "rxe0", "tests": [)").ok());
  EXPECT_THAT(LoadFleetRun(dir.string()).status().message(), HasSubstr("results.json: not valid JSON"));
  ASSERT_TRUE(WriteFile((dir / "results.json").string(), R"({"device": "rxe0", "tests": [{"name": "x"}]})").ok());
  EXPECT_THAT(LoadFleetRun(dir.string()).status().message(), HasSubstr("results.json: "));
  ASSERT_TRUE(WriteFile((dir / "results.json").string(), ResultsToJson(TrickyRun()).dump()).ok());
  EXPECT_THAT(LoadFleetRun(dir.string()).status().message(), HasSubstr("capabilities.json"));
}

// The planted troubles of the synthetic fleet (fleet_fixtures.h), once from memory and once
// written out and read back one run at a time: the same report.
TEST(FleetFromDiskTest, ReadsAsTheSameRunsInMemoryAreJudged) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(::testing::TempDir()) / "fleet_from_disk_test";
  fs::remove_all(root);
  SyntheticFleet synthetic = MakeSyntheticFleet(50, 40);
  std::vector<DeviceRun> runs;
  for (DeviceRun& run : synthetic.runs) {
    if (run.results.environment.contains("peer")) continue;  // nodes' own runs: no bench.json to write
    const fs::path dir = root / "nodes" / run.results.environment["hostname"].get<std::string>() / "mlx5_0";
    fs::create_directories(dir);
    ASSERT_TRUE(WriteFile((dir / "results.json").string(), ResultsToJson(run.results).dump(2)).ok());
    nlohmann::json caps = run.capabilities;  // with what a fixture planted in `observed`
    for (const auto& [name, o] : run.observed) {
      caps["observed"][name] = {{"outcome", o.outcome}, {"errno", o.err}, {"detail", o.detail}};
    }
    ASSERT_TRUE(WriteFile((dir / "capabilities.json").string(), caps.dump(2)).ok());
    run.source = dir.string();
    runs.push_back(std::move(run));
  }
  FleetOptions options;
  options.expected_nodes = synthetic.nodes;
  absl::StatusOr<FleetReport> from_disk = LoadFleet({(root / "nodes").string()}, options);
  ASSERT_TRUE(from_disk.ok()) << from_disk.status();
  const FleetReport in_memory = BuildFleet(std::move(runs), {}, options);

  nlohmann::json disk = FleetToJson(*from_disk), memory = FleetToJson(in_memory);
  for (nlohmann::json& node : disk["nodes"]) node["notes"] = nlohmann::json::array();  // trouble.txt: disk only
  for (nlohmann::json& node : memory["nodes"]) node["notes"] = nlohmann::json::array();
  EXPECT_EQ(disk, memory);
  EXPECT_EQ(from_disk->CountNodes(NodeVerdict::kFail), 2);
  EXPECT_EQ(from_disk->CountNodes(NodeVerdict::kOutlier), 1);
}

}  // namespace
}  // namespace rdmacheck
