// The fleet report (fleet/fleet_model.h, fleet_output.h): over 500 synthetic nodes it names
// exactly the planted troubles — the failing node with its test, the broken capability,
// the node on another kernel as an outlier, the node that never reported, the slow pair —
// sorts them first and folds the healthy ones; in a fleet of two, ties go to the healthy
// node; a run that did not finish and a capability missing where most of its kind have it
// are trouble, named first; run directories on disk load into the same model.
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "reports/fleet/fleet_model.h"
#include "reports/fleet/fleet_output.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "unit/fleet_fixtures.h"

namespace rdmacheck {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::StartsWith;
using namespace fixtures;  // NOLINT: the fixtures are this file's vocabulary




class FleetOf500Test : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    SyntheticFleet synthetic = MakeSyntheticFleet(500, 100);
    slow_pair_ = synthetic.slow_pair;
    FleetOptions options;
    options.expected_nodes = synthetic.nodes;
    fleet_ = new FleetReport(BuildFleet(std::move(synthetic.runs), synthetic.bench, options));
  }
  static void TearDownTestSuite() { delete fleet_; }
  static FleetReport* fleet_;
  static std::pair<int, int> slow_pair_;
};
FleetReport* FleetOf500Test::fleet_ = nullptr;
std::pair<int, int> FleetOf500Test::slow_pair_;

TEST_F(FleetOf500Test, CountsEveryNodeByVerdict) {
  const FleetReport& fleet = *fleet_;
  EXPECT_EQ(fleet.nodes.size(), 500u);
  EXPECT_EQ(fleet.CountNodes(NodeVerdict::kFail), 2);     // the failing test, the broken odp
  EXPECT_EQ(fleet.CountNodes(NodeVerdict::kMissing), 1);  // never reported
  EXPECT_EQ(fleet.CountNodes(NodeVerdict::kOutlier), 1);  // the old kernel
  EXPECT_EQ(fleet.CountNodes(NodeVerdict::kHealthy), 496);
  EXPECT_TRUE(fleet.Troubled());
}

TEST_F(FleetOf500Test, TheFailingNodeIsNamedWithItsTest) {
  const FleetNode& node = Node(*fleet_, NodeName(kFailingNode));
  EXPECT_EQ(node.verdict, NodeVerdict::kFail);
  EXPECT_THAT(DifferencesOf(node), ElementsAre(Diff("test", "Suite03Test.Behaviour0003", "fail", "pass")));
  EXPECT_THAT(NodeFindings(*fleet_, node),
              Contains("mlx5_0: fail Suite03Test.Behaviour0003: completion status IBV_WC_RETRY_EXC_ERR (12), expected "
                       "IBV_WC_SUCCESS"));
}

TEST_F(FleetOf500Test, ABrokenCapabilityIsADifferenceWithItsTests) {
  const FleetNode& node = Node(*fleet_, NodeName(kNoOdpNode));
  EXPECT_EQ(node.verdict, NodeVerdict::kFail);
  EXPECT_EQ(node.failures.size(), 10u);  // the tests the fleet skips for odp
  EXPECT_THAT(DifferencesOf(node), Contains(Diff("capability", "odp", "broken", "unsupported")));
  EXPECT_THAT(DifferencesOf(node), Contains(Diff("test", "Suite09Test.Behaviour0009", "fail", "skip")));
}

TEST_F(FleetOf500Test, AnotherKernelMakesAnOutlierNotAFailure) {
  const FleetNode& node = Node(*fleet_, NodeName(kOldKernelNode));
  EXPECT_EQ(node.verdict, NodeVerdict::kOutlier);
  EXPECT_THAT(node.failures, IsEmpty());
  EXPECT_THAT(DifferencesOf(node), ElementsAre(Diff("version", "kernel", "5.10.0-30-amd64", "6.1.0-56-amd64")));
}

TEST_F(FleetOf500Test, ANodeThatNeverReportedIsMissing) {
  const FleetNode& node = Node(*fleet_, NodeName(kSilentNode));
  EXPECT_EQ(node.verdict, NodeVerdict::kMissing);
  EXPECT_THAT(node.missing_devices, ElementsAre("mlx5_0"));
}

TEST_F(FleetOf500Test, TroubleComesFirst) {
  std::vector<std::string> first;
  for (size_t i = 0; i < 4; ++i) first.push_back(fleet_->nodes[i].name);
  EXPECT_THAT(first, ElementsAre(NodeName(kNoOdpNode), NodeName(kFailingNode), NodeName(kSilentNode),
                                 NodeName(kOldKernelNode)));
}

TEST_F(FleetOf500Test, TheSlowPairIsFlaggedAgainstTheFleetMedian) {
  ASSERT_EQ(fleet_->pairs.size(), 250u);
  EXPECT_EQ(fleet_->SlowPairs(), 1);
  EXPECT_EQ(fleet_->FailedPairs(), 0);
  const FleetPair& slow = fleet_->pairs.front();  // trouble first
  EXPECT_EQ(slow.server, NodeName(slow_pair_.first));
  EXPECT_EQ(slow.client, NodeName(slow_pair_.second));
  ASSERT_EQ(slow.bench.size(), 2u);
  for (const PairPoint& p : slow.bench) {
    EXPECT_TRUE(p.slow) << p.point.op;
    EXPECT_NEAR(p.speed, 0.4, 0.03) << p.point.op;
  }
  EXPECT_THAT(PairFindings(slow).front(), HasSubstr("of the fleet median"));
}

TEST_F(FleetOf500Test, ThePageFoldsTheHealthyAndListsTheTroubleOpen) {
  const std::string html = FleetToHtml(*fleet_);
  EXPECT_THAT(html, HasSubstr("<details class=\"node\" open id=\"node-" + NodeName(kFailingNode)));
  EXPECT_THAT(html, HasSubstr("496 nodes (identical to the fleet's majority"));
  EXPECT_EQ(html.find("id=\"node-" + NodeName(100)), std::string::npos) << "a healthy node has no section of its own";
  EXPECT_LT(html.find(NodeName(kFailingNode)), html.find(NodeName(100)));
  const std::string md = FleetToMarkdown(*fleet_);
  EXPECT_THAT(md, HasSubstr("| " + NodeName(kOldKernelNode) + " | outlier | mlx5_0: version kernel: 5.10.0-30-amd64 "
                            "(fleet: 6.1.0-56-amd64) |"));
}

TEST_F(FleetOf500Test, JsonKeepsEveryNodeAndTheCounts) {
  const nlohmann::json json = FleetToJson(*fleet_);
  EXPECT_EQ(json["schema"], kFleetSchema);
  EXPECT_EQ(json["nodes"].size(), 500u);
  EXPECT_EQ(json["summary"]["healthy"], 496);
  EXPECT_EQ(json["summary"]["slow_pairs"], 1);
  EXPECT_EQ(json["nodes"][1]["failures"][0]["test"], "Suite03Test.Behaviour0003");
}

// Two nodes, one differing: a tie, which goes to the healthier outcome, so the node that
// lacks a capability the other has is the outlier (not both, not neither).
TEST(FleetOfTwoTest, ATieNamesTheLessHealthyNode) {
  DeviceRun a = NodeRun("a", 20), b = NodeRun("b", 20);
  b.observed["cap05"].outcome = "unsupported";
  FleetReport fleet = BuildFleet({a, b}, {{}, {}}, {});
  EXPECT_EQ(Node(fleet, "a").verdict, NodeVerdict::kHealthy);
  EXPECT_EQ(Node(fleet, "b").verdict, NodeVerdict::kOutlier);
  EXPECT_THAT(DifferencesOf(Node(fleet, "b")), ElementsAre(Diff("capability", "cap05", "unsupported", "supported")));
  EXPECT_FALSE(fleet.Troubled());
}

// The Slurm lab's broken node: its own tests fail where the other's pass. It is the node's
// failure and it stands out from the fleet: "fail, outlier", named in the headline, with
// its failing tests; the healthy node is neither.
TEST(FleetOfTwoTest, TheNodeWithFailingTestsIsTheOutlier) {
  DeviceRun a = NodeRun("a", 5), b = NodeRun("b", 5);
  b.results.tests[1].status = TestStatus::kFail;
  b.results.tests[1].message = "byte_len 4097, expected 4096\nat rc_send_test.cc:80";
  FleetReport fleet = BuildFleet({a, b}, {{}, {}}, {});
  const FleetNode& broken = Node(fleet, "b");
  EXPECT_EQ(broken.verdict, NodeVerdict::kFail);
  EXPECT_TRUE(broken.outlier);
  EXPECT_FALSE(Node(fleet, "a").outlier);
  EXPECT_THAT(fleet.Outliers(), ElementsAre("b"));
  EXPECT_EQ(NodeVerdictText(broken), "fail, outlier");
  const std::string failing = absl::StrCat("mlx5_0: fail ", b.results.tests[1].name, ": byte_len 4097, expected 4096");
  EXPECT_THAT(NodeFindings(fleet, broken), ElementsAre(failing)) << "each failing test once, with its message";
  EXPECT_THAT(FleetHeadline(fleet), HasSubstr("; outliers: b"));
  EXPECT_THAT(FleetToMarkdown(fleet), HasSubstr(absl::StrCat("| b | fail, outlier | ", failing)));
  const nlohmann::json json = FleetToJson(fleet);
  EXPECT_EQ(json["summary"]["outliers"], nlohmann::json::array({"b"}));
  EXPECT_EQ(json["nodes"][0]["name"], "b");
  EXPECT_EQ(json["nodes"][0]["outlier"], true);
  EXPECT_EQ(json["nodes"][1]["outlier"], false);
}

// A failure every node shares points at the test or the software, not at a node: every
// node fails, none stands out.
TEST(FleetOfThreeTest, AFailureEveryNodeSharesMakesNoOutlier) {
  std::vector<DeviceRun> runs;
  for (const char* host : {"a", "b", "c"}) {
    runs.push_back(NodeRun(host, 5));
    runs.back().results.tests[2].status = TestStatus::kFail;
  }
  FleetReport fleet = BuildFleet(runs, {{}, {}, {}}, {});
  EXPECT_EQ(fleet.CountNodes(NodeVerdict::kFail), 3);
  EXPECT_THAT(fleet.Outliers(), IsEmpty());
  EXPECT_EQ(NodeVerdictText(fleet.nodes[0]), "fail");
  EXPECT_THAT(FleetHeadline(fleet), Not(HasSubstr("outliers")));
}

// Drift: a setting the run recorded as it chose it (the port's active MTU, the GID index
// and type) unlike the majority's makes the node an outlier, named with both values.
TEST(FleetOfThreeTest, ASettingUnlikeTheMajorityIsDrift) {
  std::vector<DeviceRun> runs;
  for (const char* host : {"a", "b", "c"}) {
    runs.push_back(NodeRun(host, 5));
    runs.back().results.environment.update({{"active_mtu", 4096}, {"gid_index", 3}, {"gid_type", "RoCEv2"}});
  }
  runs[1].results.environment["active_mtu"] = 1024;
  runs[1].results.environment["gid_type"] = "RoCEv1";
  FleetReport fleet = BuildFleet(runs, {{}, {}, {}}, {});
  const FleetNode& b = Node(fleet, "b");
  EXPECT_EQ(b.verdict, NodeVerdict::kOutlier);
  EXPECT_THAT(DifferencesOf(b), ElementsAre(Diff("setting", "active_mtu", "1024", "4096"),
                                            Diff("setting", "gid_type", "RoCEv1", "RoCEv2")));
  EXPECT_THAT(NodeFindings(fleet, b), Contains("mlx5_0: setting active_mtu: 1024 (fleet: 4096)"));
  EXPECT_THAT(fleet.Outliers(), ElementsAre("b"));
}

TEST(FleetOfTwoTest, AFailedPairIsTrouble) {
  DeviceRun pair = PairRun("a", "b", 5);
  pair.results.tests[0].status = TestStatus::kFail;
  FleetReport fleet = BuildFleet({NodeRun("a", 5), NodeRun("b", 5), pair}, {{}, {}, {}}, {});
  ASSERT_EQ(fleet.pairs.size(), 1u);
  EXPECT_TRUE(fleet.pairs[0].Failed());
  EXPECT_EQ(fleet.CountNodes(NodeVerdict::kHealthy), 2) << "a pair's failure is not a node's own";
  EXPECT_TRUE(fleet.Troubled());
}

std::vector<std::string> SummaryLines(const FleetReport& fleet) { return absl::StrSplit(FleetSummaryText(fleet, {}), '\n'); }

// A node whose run did not finish is trouble, named first with the reason its results give:
// the lab's failure (environment.lab_failure), else that they give none (a node that died
// in a kernel panic leaves results.json as it was after its last suite).
TEST(FleetTroubleTest, ARunThatDidNotFinishIsTroubleWithItsReason) {
  DeviceRun died = NodeRun("c", 5), stopped = NodeRun("d", 5);
  died.results.complete = false;
  died.results.tests.resize(2);
  stopped.results.complete = false;
  stopped.results.environment["lab_failure"] = {{"reason", "the peer a:18515 stopped answering its side channel"},
                                                {"not_run", {"Suite04Test.Behaviour0004"}}};
  FleetReport fleet = BuildFleet({NodeRun("a", 5), NodeRun("b", 5), died, stopped}, {{}, {}, {}, {}}, {});
  EXPECT_EQ(Node(fleet, "c").verdict, NodeVerdict::kIncomplete);
  EXPECT_EQ(Node(fleet, "d").verdict, NodeVerdict::kIncomplete);
  EXPECT_TRUE(fleet.Troubled());
  const std::vector<std::string> lines = SummaryLines(fleet);
  ASSERT_GE(lines.size(), 3u);
  EXPECT_THAT(lines[0], HasSubstr("4 nodes: 2 healthy, 2 incomplete"));
  EXPECT_THAT(lines[1], StartsWith("  incomplete, outlier c: mlx5_0: the run did not finish (complete: false); its "
                                   "results stop where it did, after 2 results, and do not say why"));
  EXPECT_EQ(lines[2], "  incomplete d: mlx5_0: the lab failed, not the device; 1 tests not run, and none after the "
                      "failure is the device's: the peer a:18515 stopped answering its side channel");
  EXPECT_EQ(FleetToJson(fleet)["summary"]["incomplete"], 2);
}

// A capability most devices of its kind (driver and model) have, absent on one of them, is
// trouble: the node is missing it, named with the device, the capability and how many of
// its kind have it; the difference is not listed twice.
TEST(FleetTroubleTest, ACapabilityMostOfItsKindHaveIsMissingWhereAbsent) {
  DeviceRun lacking = NodeRun("c", 5);
  lacking.observed["cap05"].outcome = "unsupported";
  FleetReport fleet = BuildFleet({NodeRun("a", 5), NodeRun("b", 5), lacking}, {{}, {}, {}}, {});
  const FleetNode& c = Node(fleet, "c");
  EXPECT_EQ(c.verdict, NodeVerdict::kMissing);
  EXPECT_TRUE(c.outlier);
  EXPECT_TRUE(fleet.Troubled());
  const std::string finding = "mlx5_0: lacks cap05: unsupported here, supported on 2 of the fleet's 3 mlx5 devices";
  EXPECT_THAT(NodeFindings(fleet, c), ElementsAre(finding));
  const std::vector<std::string> lines = SummaryLines(fleet);
  ASSERT_GE(lines.size(), 2u);
  EXPECT_THAT(lines[0], HasSubstr("3 nodes: 2 healthy, 1 missing"));
  EXPECT_EQ(lines[1], "  missing, outlier c: " + finding);
  const nlohmann::json json = FleetToJson(fleet)["nodes"][0];
  EXPECT_EQ(json["name"], "c");
  EXPECT_EQ(json["missing_capabilities"], nlohmann::json::parse(R"([{"device": "mlx5_0", "capability": "cap05",
      "kind": "mlx5", "present": 2, "of_kind": 3}])"));
}

// Only devices of the same driver and model count: a device of another part that lacks what
// the others have stands out (a finding), but nothing says it should have it.
// A pair that failed and was slow too is one failed pair: the counts add up to the pairs.
TEST(FleetTroubleTest, AFailedSlowPairIsCountedOnceAsFailed) {
  FleetReport fleet;
  FleetPair failed_and_slow, slow, ok;
  failed_and_slow.summary.fail = 2;
  failed_and_slow.slow = slow.slow = true;
  fleet.pairs = {failed_and_slow, slow, ok};
  EXPECT_THAT(FleetHeadline(fleet), HasSubstr("; 3 pairs: 1 ok, 1 failed, 1 slow"));
}

TEST(FleetTroubleTest, ADeviceOfAnotherModelLackingACapabilityIsAnOutlierOnly) {
  std::vector<DeviceRun> runs = {NodeRun("a", 5), NodeRun("b", 5), NodeRun("c", 5)};
  for (DeviceRun& r : runs) r.identity.update({{"vendor_id", 0x15b3}, {"vendor_part_id", 0x101d}});
  runs[2].observed["cap05"].outcome = "unsupported";
  EXPECT_THAT(Node(BuildFleet(runs, {{}, {}, {}}, {}), "c").missing_capabilities,
              ElementsAre(Field(&MissingCapability::kind, "mlx5 15b3:101d")));

  runs[2].identity["vendor_part_id"] = 0x1017;
  FleetReport fleet = BuildFleet(runs, {{}, {}, {}}, {});
  const FleetNode& c = Node(fleet, "c");
  EXPECT_EQ(c.verdict, NodeVerdict::kOutlier);
  EXPECT_THAT(c.missing_capabilities, IsEmpty());
  EXPECT_THAT(DifferencesOf(c), ElementsAre(Diff("capability", "cap05", "unsupported", "supported")));
  EXPECT_FALSE(fleet.Troubled());
}

// From disk: nodes/<node>/<device> and pairs/<a>--<b>/<device>, as ci/slurm/ writes them.
TEST(FleetLoadTest, ReadsRunDirectoriesUnderTheRoots) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(::testing::TempDir()) / "fleet_load_test";
  fs::remove_all(root);
  auto write = [&](const fs::path& dir, const DeviceRun& run) {
    fs::create_directories(dir / "logs");
    ASSERT_TRUE(WriteFile((dir / "results.json").string(), ResultsToJson(run.results).dump()).ok());
    ASSERT_TRUE(WriteFile((dir / "capabilities.json").string(), run.capabilities.dump()).ok());
  };
  write(root / "nodes/a/mlx5_0", NodeRun("a", 5));
  write(root / "nodes/b/mlx5_0", NodeRun("b", 5));
  write(root / "pairs/a--b/mlx5_0", PairRun("a", "b", 5));
  absl::StatusOr<FleetReport> fleet = LoadFleet({root.string()}, {});
  ASSERT_TRUE(fleet.ok()) << fleet.status();
  EXPECT_EQ(fleet->nodes.size(), 2u);
  ASSERT_EQ(fleet->pairs.size(), 1u);
  EXPECT_EQ(fleet->pairs[0].server, "a");
  EXPECT_EQ(fleet->pairs[0].client, "b");

  fs::create_directories(root / "empty");
  EXPECT_THAT(LoadFleet({(root / "empty").string()}, {}).status().message(), HasSubstr("no run directory"));
  absl::StatusOr<FleetReport> no_pairs = LoadFleet({(root / "nodes").string(), (root / "empty").string()}, {});
  ASSERT_TRUE(no_pairs.ok()) << "a root without runs beside one with runs: " << no_pairs.status();
  EXPECT_EQ(no_pairs->nodes.size(), 2u);
  EXPECT_THAT(LoadFleet({(root / "nope").string()}, {}).status().message(), HasSubstr("not a directory"));
}

// A node without results is trouble with its reason, never silent: the job's trouble.txt
// (a device whose run left no results.json), else that its step never ran at all.
TEST(FleetLoadTest, ANodeWithoutResultsSaysWhy) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(::testing::TempDir()) / "fleet_notes_test";
  fs::remove_all(root);
  const DeviceRun a = NodeRun("a", 5);
  fs::create_directories(root / "a/mlx5_0");
  ASSERT_TRUE(WriteFile((root / "a/mlx5_0/results.json").string(), ResultsToJson(a.results).dump()).ok());
  ASSERT_TRUE(WriteFile((root / "a/mlx5_0/capabilities.json").string(), a.capabilities.dump()).ok());
  fs::create_directories(root / "b");
  ASSERT_TRUE(WriteFile((root / "b/trouble.txt").string(), "mlx5_0: no results (run exit 2): no RDMA device\n").ok());
  FleetOptions options;
  options.expected_nodes = {"a", "b", "c"};
  absl::StatusOr<FleetReport> fleet = LoadFleet({root.string()}, options);
  ASSERT_TRUE(fleet.ok()) << fleet.status();

  const FleetNode& b = Node(*fleet, "b");
  EXPECT_EQ(b.verdict, NodeVerdict::kMissing);
  EXPECT_TRUE(b.outlier);
  EXPECT_THAT(b.notes, ElementsAre("mlx5_0: no results (run exit 2): no RDMA device"));
  EXPECT_EQ(NodeFindings(*fleet, b).front(), "mlx5_0: no results (run exit 2): no RDMA device");
  const FleetNode& c = Node(*fleet, "c");
  EXPECT_TRUE(c.outlier);
  EXPECT_THAT(c.notes, ElementsAre(HasSubstr("no results: no directory c under ")));
  EXPECT_THAT(Node(*fleet, "a").notes, IsEmpty());
  EXPECT_FALSE(Node(*fleet, "a").outlier);
  EXPECT_THAT(FleetToMarkdown(*fleet), HasSubstr("| b | missing, outlier | mlx5_0: no results (run exit 2)"));

  // No node has results: still a report, every node missing with its reason.
  fs::create_directories(root / "only-b/b");
  fs::copy_file(root / "b/trouble.txt", root / "only-b/b/trouble.txt");
  options.expected_nodes = {"b"};
  absl::StatusOr<FleetReport> none = LoadFleet({(root / "only-b").string()}, options);
  ASSERT_TRUE(none.ok()) << none.status();
  ASSERT_EQ(none->nodes.size(), 1u);
  EXPECT_EQ(none->nodes[0].verdict, NodeVerdict::kMissing);
  EXPECT_THAT(none->nodes[0].notes, ElementsAre("mlx5_0: no results (run exit 2): no RDMA device"));
  EXPECT_TRUE(none->Troubled());
}

}  // namespace
}  // namespace rdmacheck
