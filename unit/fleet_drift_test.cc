// Drift in the fleet report (reports/fleet/fleet_tally.cc): the port's link as each run
// recorded it (port_rate, netdev_mtu, pcie_link, runner/conformance_run.h) unlike the
// majority of the devices of the same name and kind is named with the node, the device,
// its value and the majority's; a key no run recorded (rxe has no PCIe link) and another
// NIC model are no drift. Per pair: a path MTU below both ports' active MTUs is named in
// the headline, the summary, fleet.json and the pairs tables; one at the smaller is not.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
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
using namespace fixtures;  // NOLINT: the fixtures are this file's vocabulary

// Nodes a..e of one NIC model, each run with `key` = `fleet_value`, but node b's `b_value`.
std::vector<DeviceRun> FleetWith(const std::string& key, const nlohmann::json& fleet_value,
                                 const nlohmann::json& b_value) {
  std::vector<DeviceRun> runs;
  for (const char* host : {"a", "b", "c", "d", "e"}) {
    runs.push_back(NodeRun(host, 5));
    runs.back().identity.update({{"vendor_id", 0x15b3}, {"vendor_part_id", 0x101d}});
    runs.back().results.environment[key] = std::string(host) == "b" ? b_value : fleet_value;
  }
  return runs;
}

struct LinkDrift {
  std::string key;
  nlohmann::json fleet_value, b_value;
  std::string fleet_text, b_text;  // as the report shows them
};

class LinkDriftTest : public ::testing::TestWithParam<LinkDrift> {};

// A port trained slower, a netdev with a smaller MTU, a NIC in a narrower slot: node b,
// mlx5_0, its value and the fleet's, in the model and in the report's line.
TEST_P(LinkDriftTest, ANodeUnlikeItsKindIsNamedWithBothValues) {
  const LinkDrift& d = GetParam();
  FleetReport fleet = BuildFleet(FleetWith(d.key, d.fleet_value, d.b_value), {}, {});
  const FleetNode& b = Node(fleet, "b");
  EXPECT_EQ(b.verdict, NodeVerdict::kOutlier);
  ASSERT_EQ(b.devices.size(), 1u);
  EXPECT_EQ(b.devices[0].device, "mlx5_0");
  EXPECT_THAT(DifferencesOf(b), ElementsAre(Diff("setting", d.key, d.b_text, d.fleet_text)));
  EXPECT_THAT(NodeFindings(fleet, b),
              Contains(absl::StrCat("mlx5_0: setting ", d.key, ": ", d.b_text, " (fleet: ", d.fleet_text, ")")));
  EXPECT_THAT(fleet.Outliers(), ElementsAre("b"));
  EXPECT_THAT(FleetHeadline(fleet), HasSubstr("outliers: b"));
  EXPECT_FALSE(fleet.Troubled()) << "drift is a finding, not trouble";
}

INSTANTIATE_TEST_SUITE_P(
    Keys, LinkDriftTest,
    ::testing::Values(LinkDrift{"port_rate", "100 Gb/sec (4X EDR)", "50 Gb/sec (2X EDR)", "100 Gb/sec (4X EDR)",
                                "50 Gb/sec (2X EDR)"},
                      LinkDrift{"netdev_mtu", 9000, 1500, "9000", "1500"},
                      LinkDrift{"pcie_link", "16.0 GT/s PCIe x16", "16.0 GT/s PCIe x8", "16.0 GT/s PCIe x16",
                                "16.0 GT/s PCIe x8"}),
    [](const ::testing::TestParamInfo<LinkDrift>& info) { return info.param.key; });

// A failing node that also drifts: the drift is named before its failures, the first of
// what a reader sees (often why the tests fail).
TEST(FleetDriftTest, DriftIsNamedBeforeTheFailures) {
  std::vector<DeviceRun> runs = FleetWith("netdev_mtu", 9000, 1500);
  runs[1].results.tests[0].status = TestStatus::kFail;
  runs[1].results.tests[0].message = "Value of: wc.status\nExpected: IBV_WC_SUCCESS";
  FleetReport fleet = BuildFleet(runs, {}, {});
  const FleetNode& b = Node(fleet, "b");
  ASSERT_EQ(b.verdict, NodeVerdict::kFail);
  const std::vector<std::string> findings = NodeFindings(fleet, b);
  ASSERT_GE(findings.size(), 2u);
  EXPECT_EQ(findings[0], "mlx5_0: setting netdev_mtu: 1500 (fleet: 9000)");
  EXPECT_THAT(findings[1], HasSubstr("fail "));
}

// rxe and siw have no PCI parent: no run records pcie_link, and that is no difference.
TEST(FleetDriftTest, AKeyNoRunRecordedMakesNoDifference) {
  std::vector<DeviceRun> runs;
  for (const char* host : {"a", "b", "c"}) {
    runs.push_back(NodeRun(host, 5));
    runs.back().results.environment.update({{"port_rate", "2.5 Gb/sec (1X SDR)"}, {"netdev_mtu", 1500}});
  }
  FleetReport fleet = BuildFleet(runs, {}, {});
  EXPECT_EQ(fleet.CountNodes(NodeVerdict::kHealthy), 3);
  for (const FleetNode& node : fleet.nodes) EXPECT_THAT(DifferencesOf(node), IsEmpty()) << node.name;
  EXPECT_THAT(fleet.Outliers(), IsEmpty());
}

// The link facts are held against the devices of the same kind: a 200 Gb/s model among
// 100 Gb/s ones is not drift for its rate; a slow port of the common model still is.
TEST(FleetDriftTest, AnotherNicModelIsNotDrift) {
  std::vector<DeviceRun> runs = FleetWith("port_rate", "100 Gb/sec (4X EDR)", "50 Gb/sec (2X EDR)");
  runs.push_back(NodeRun("f", 5));
  runs.back().identity.update({{"vendor_id", 0x15b3}, {"vendor_part_id", 0x101b}});
  runs.back().results.environment["port_rate"] = "200 Gb/sec (4X HDR)";
  FleetReport fleet = BuildFleet(runs, {}, {});
  EXPECT_THAT(DifferencesOf(Node(fleet, "f")), IsEmpty());
  EXPECT_THAT(DifferencesOf(Node(fleet, "b")),
              ElementsAre(Diff("setting", "port_rate", "50 Gb/sec (2X EDR)", "100 Gb/sec (4X EDR)")));
  EXPECT_THAT(fleet.Outliers(), ElementsAre("b"));
}

// Nodes a and b and their pair's run (b ran `run --peer=a:18515`), with the MTUs it recorded.
FleetReport PairFleet(int active_mtu, int peer_active_mtu, int path_mtu) {
  DeviceRun pair = PairRun("a", "b", 5);
  pair.results.environment.update(
      {{"active_mtu", active_mtu}, {"peer_active_mtu", peer_active_mtu}, {"path_mtu", path_mtu}});
  return BuildFleet({NodeRun("a", 5), NodeRun("b", 5), pair}, {}, {});
}

TEST(PathMtuTest, APairBelowBothPortsIsNamedOnTheFirstLines) {
  FleetReport fleet = PairFleet(4096, 4096, 1024);
  ASSERT_EQ(fleet.pairs.size(), 1u);
  EXPECT_TRUE(fleet.pairs[0].LowPathMtu());
  EXPECT_FALSE(fleet.Troubled()) << "a finding, not trouble";
  EXPECT_THAT(FleetHeadline(fleet), HasSubstr("; low path MTU: a <- b"));
  const std::string said = "path MTU 1024, below both ports' active MTU (b 4096, a 4096)";
  EXPECT_THAT(FleetSummaryText(fleet, {}), HasSubstr("  pair a <- b mlx5_0: " + said + "\n"));
  const nlohmann::json json = FleetToJson(fleet);
  EXPECT_EQ(json["pairs"][0]["path_mtu"], 1024);
  EXPECT_EQ(json["pairs"][0]["active_mtu"], 4096);
  EXPECT_EQ(json["pairs"][0]["peer_active_mtu"], 4096);
  EXPECT_EQ(json["pairs"][0]["low_path_mtu"], true);
  EXPECT_EQ(json["summary"]["low_path_mtu_pairs"], 1);
  EXPECT_THAT(FleetToMarkdown(fleet),
              HasSubstr("| a <- b | mlx5_0 | low path MTU | 5 passed |  | 1024, below both ports' active MTU (b 4096, "
                        "a 4096) |"));
  EXPECT_THAT(FleetToHtml(fleet), HasSubstr("<td>1024, below both ports&#39; active MTU (b 4096, a 4096)</td>"));
}

// At the smaller of the two ports' MTUs the pair is as it should be: named nowhere.
TEST(PathMtuTest, APairAtTheSmallerPortIsNotNamed) {
  for (const auto& [active, peer] : std::vector<std::pair<int, int>>{{4096, 1024}, {1024, 4096}, {2048, 2048}}) {
    FleetReport fleet = PairFleet(active, peer, std::min(active, peer));
    ASSERT_EQ(fleet.pairs.size(), 1u);
    EXPECT_FALSE(fleet.pairs[0].LowPathMtu()) << active << " " << peer;
    EXPECT_THAT(FleetHeadline(fleet), Not(HasSubstr("path MTU")));
    EXPECT_THAT(FleetSummaryText(fleet, {}), Not(HasSubstr("pair a <- b")));
    EXPECT_EQ(FleetToJson(fleet)["pairs"][0]["low_path_mtu"], false);
    EXPECT_THAT(FleetToMarkdown(fleet), HasSubstr("1 pairs ok"));
  }
}

// A pair's run that recorded no MTUs (an older rdmacheck) is not named either.
TEST(PathMtuTest, APairWithoutRecordedMtusIsNotNamed) {
  FleetReport fleet = BuildFleet({NodeRun("a", 5), NodeRun("b", 5), PairRun("a", "b", 5)}, {}, {});
  ASSERT_EQ(fleet.pairs.size(), 1u);
  EXPECT_FALSE(fleet.pairs[0].LowPathMtu());
  EXPECT_TRUE(FleetToJson(fleet)["pairs"][0]["path_mtu"].is_null());
}

}  // namespace
}  // namespace rdmacheck
