// One node against its machine profile (machine/profile_check.h): each rule passes a node
// that shows exactly what the profile asks and fails one just below it, with one line
// naming the device (or pair) and the value; an absent field checks nothing; a value the
// run did not record fails. In the fleet report (reports/fleet/fleet_profile.h) a node
// below its profile is `fail`, named in the headline and first in every document.
#include <functional>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "machine/profile_check.h"
#include "reports/fleet/fleet_model.h"
#include "reports/fleet/fleet_output.h"
#include "unit/fleet_fixtures.h"
#include "unit/machine_fixtures.h"

namespace rdmacheck {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using namespace fixtures;  // NOLINT: the fixtures are this file's vocabulary

struct Rule {
  const char* name;
  std::function<void(NodeFacts&)> at;     // the node exactly at the rule's bound (default: GpuANode)
  std::function<void(NodeFacts&)> below;  // the same node just below it
  const char* violation;                  // the one line it must give
};

class MachineRuleTest : public ::testing::TestWithParam<Rule> {};

TEST_P(MachineRuleTest, PassesANodeAtItAndFailsOneBelowIt) {
  NodeFacts node = GpuANode();
  if (GetParam().at) GetParam().at(node);
  EXPECT_THAT(CheckNode(GpuA(), node), IsEmpty());
  GetParam().below(node);
  EXPECT_THAT(CheckNode(GpuA(), node), ElementsAre(GetParam().violation));
}

// The pair's points: WRITE bandwidth, SEND latency.
BenchPoint& Write(NodeFacts& n) { return n.pairs[0].points[1]; }
BenchPoint& Send(NodeFacts& n) { return n.pairs[0].points[0]; }

INSTANTIATE_TEST_SUITE_P(
    Rules, MachineRuleTest,
    ::testing::Values(
        Rule{"NicCount", nullptr, [](NodeFacts& n) { n.devices.pop_back(); },
             "1 NIC, the profile's machine type gpu-a needs 2"},
        Rule{"NicModel", nullptr, [](NodeFacts& n) { n.devices[1].kind = "mlx5 15b3:1017"; },
             "mlx5_1: model mlx5 15b3:1017, the profile's machine type gpu-a needs mlx5 15b3:101d"},
        Rule{"PortRate", nullptr, [](NodeFacts& n) { n.devices[0].port_rate = "100 Gb/sec (4X EDR)"; },
             "mlx5_0: port_rate 100 Gb/sec (4X EDR), the profile's machine type gpu-a needs 200 Gb/sec (4X HDR)"},
        Rule{"PortRateNotRecorded", nullptr, [](NodeFacts& n) { n.devices[0].port_rate = ""; },
             "mlx5_0: port_rate not recorded, the profile's machine type gpu-a needs 200 Gb/sec (4X HDR)"},
        Rule{"ActiveMtu", nullptr, [](NodeFacts& n) { n.devices[0].active_mtu = 1024; },
             "mlx5_0: active_mtu 1024, the profile's machine type gpu-a needs 4096"},
        Rule{"NetdevMtu", nullptr, [](NodeFacts& n) { n.devices[1].netdev_mtu = 1500; },
             "mlx5_1: netdev_mtu 1500, the profile's machine type gpu-a needs 9000"},
        Rule{"GidType", nullptr, [](NodeFacts& n) { n.devices[0].gid_type = "RoCEv1"; },
             "mlx5_0: gid_type RoCEv1, the profile's machine type gpu-a needs RoCEv2"},
        Rule{"LinkLayer", nullptr, [](NodeFacts& n) { n.devices[0].link_layer = "InfiniBand"; },
             "mlx5_0: link_layer InfiniBand, the profile's machine type gpu-a needs Ethernet"},
        Rule{"Firmware", [](NodeFacts& n) { n.devices[1].firmware = "28.39.1002"; },
             [](NodeFacts& n) { n.devices[1].firmware = "28.35.1000"; }, "mlx5_1: firmware 28.35.1000 below 28.39.1002"},
        Rule{"FirmwareAsNumbers", [](NodeFacts& n) { n.devices[1].firmware = "28.100.0"; },
             [](NodeFacts& n) { n.devices[1].firmware = "28.9.9999"; }, "mlx5_1: firmware 28.9.9999 below 28.39.1002"},
        Rule{"FirmwareNotRecorded", nullptr, [](NodeFacts& n) { n.devices[0].firmware = ""; },
             "mlx5_0: firmware not recorded, the profile's machine type gpu-a needs 28.39.1002 or later"},
        Rule{"LinkFlaps", [](NodeFacts& n) { n.devices[0].link_downs = 2; },
             [](NodeFacts& n) { n.devices[0].link_downs = 3; },
             "mlx5_0 port 1: went down 3 times in the 3600 s before its run, the profile allows 2"},
        Rule{"CapabilityUnsupported", nullptr, [](NodeFacts& n) { n.devices[0].capabilities["atomics"] = "unsupported"; },
             "mlx5_0: capability atomics unsupported"},
        Rule{"CapabilityBroken", nullptr, [](NodeFacts& n) { n.devices[1].capabilities["rdma_read"] = "broken"; },
             "mlx5_1: capability rdma_read broken"},
        Rule{"CapabilityNotProbed", nullptr, [](NodeFacts& n) { n.devices[0].capabilities.erase("rc_qp"); },
             "mlx5_0: capability rc_qp not probed"},
        Rule{"PairBandwidth", [](NodeFacts& n) { Write(n).mib_per_s = 180.0 * 0.9 / kGbPerMiB; },
             [](NodeFacts& n) { Write(n).mib_per_s = 12.1 / kGbPerMiB; },
             "pair node-a <- node-b mlx5_0 write bandwidth 65536 B: 12.1 Gb/s below 180 Gb/s - 10 %"},
        Rule{"PairLatency", [](NodeFacts& n) { Send(n).median_us = 3.0 * 1.1; },
             [](NodeFacts& n) { Send(n).median_us = 3.4; },
             "pair node-a <- node-b mlx5_0 send latency 64 B: 3.40 us above 3 us + 10 %"},
        Rule{"PairPointNotMeasured", nullptr, [](NodeFacts& n) { Write(n).error = "ibv_post_send: ENOMEM"; },
             "pair node-a <- node-b mlx5_0 write bandwidth 65536 B: not measured (ibv_post_send: ENOMEM)"}),
    [](const ::testing::TestParamInfo<Rule>& info) { return std::string(info.param.name); });

TEST(MachineCheckTest, AnAbsentFieldChecksNothing) {
  NodeFacts odd;
  odd.host = "odd";
  odd.devices = {DeviceFacts{"rxe0", "rxe", "", "", 1024, 0, "IB", "", {{"atomics", "broken"}}}};
  odd.pairs.push_back({"odd", "other", "rxe0", PairPoints(0.1, 900).points});
  EXPECT_THAT(CheckNode(MachineProfile(), odd), IsEmpty());
}

TEST(MachineCheckTest, AnUnnamedTypeSaysTheProfile) {
  MachineProfile p;
  p.active_mtu = 4096;
  NodeFacts node = GpuANode();
  node.devices[0].active_mtu = 2048;
  EXPECT_THAT(CheckNode(p, node), ElementsAre("mlx5_0: active_mtu 2048, the profile needs 4096"));
}

// Another model's firmware numbers are another scale: only the main model is held to it.
TEST(MachineCheckTest, TheFirmwareFloorHoldsTheMainModelOnly) {
  MachineProfile p = GpuA();
  p.nic_models.push_back("mlx5 15b3:a2dc");  // a BlueField beside the ConnectX-7s
  NodeFacts node = GpuANode();
  node.devices[1].kind = "mlx5 15b3:a2dc";
  node.devices[1].firmware = "24.35.1000";
  EXPECT_THAT(CheckNode(p, node), IsEmpty());
  node.devices[0].firmware = "24.35.1000";
  EXPECT_THAT(CheckNode(p, node), ElementsAre("mlx5_0: firmware 24.35.1000 below 28.39.1002"));
}

// Every rule that fails says so, in order: count, then each device, then the pairs.
TEST(MachineCheckTest, EveryViolationIsListedInOrder) {
  NodeFacts node = GpuANode();
  node.devices.pop_back();
  node.devices[0].active_mtu = 1024;
  node.devices[0].capabilities["atomics"] = "unsupported";
  Write(node).mib_per_s = 1;
  EXPECT_THAT(CheckNode(GpuA(), node),
              ElementsAre("1 NIC, the profile's machine type gpu-a needs 2", HasSubstr("active_mtu 1024"),
                          "mlx5_0: capability atomics unsupported", HasSubstr("write bandwidth 65536 B")));
}

// The fleet: three gpu-a nodes and their pairs, node-b's second port at MTU 1024.
struct ProfiledFleet {
  std::vector<DeviceRun> runs;
  std::vector<std::vector<BenchRun>> bench;
};

ProfiledFleet ThreeNodes(double slow_pair_gb_per_s = 180) {
  ProfiledFleet f;
  for (const std::string host : {"node-a", "node-b", "node-c"}) {
    for (const std::string device : {"mlx5_0", "mlx5_1"}) {
      DeviceFacts d = GpuADevice(device);
      if (host == "node-b" && device == "mlx5_1") d.active_mtu = 1024;
      f.runs.push_back(MachineRun(host, d));
      f.bench.emplace_back();
    }
  }
  f.runs.push_back(MachineRun("node-b", GpuADevice("mlx5_0"), /*peer=*/"node-a"));
  f.bench.push_back({PairPoints(190, 2.9)});
  f.runs.push_back(MachineRun("node-c", GpuADevice("mlx5_0"), /*peer=*/"node-a"));
  f.bench.push_back({PairPoints(slow_pair_gb_per_s, 2.9)});
  return f;
}


TEST(FleetProfileTest, ANodeBelowItsProfileFailsAndIsNamedFirst) {
  ProfiledFleet f = ThreeNodes();
  FleetOptions options;
  options.profile = GpuA();
  const FleetReport fleet = BuildFleet(f.runs, f.bench, options);

  const FleetNode& b = Node(fleet, "node-b");
  EXPECT_EQ(b.verdict, NodeVerdict::kFail);
  EXPECT_THAT(b.profile_violations, ElementsAre("mlx5_1: active_mtu 1024, the profile's machine type gpu-a needs 4096"));
  EXPECT_EQ(fleet.nodes.front().name, "node-b");
  EXPECT_EQ(Node(fleet, "node-a").verdict, NodeVerdict::kHealthy);
  EXPECT_TRUE(fleet.Troubled());
  EXPECT_THAT(FleetHeadline(fleet), HasSubstr("; below the profile of gpu-a: node-b"));
  EXPECT_EQ(NodeFindings(fleet, b).front(), "mlx5_1: active_mtu 1024, the profile's machine type gpu-a needs 4096");
  EXPECT_THAT(FleetSummaryText(fleet, {}), HasSubstr(" node-b: mlx5_1: active_mtu 1024"));
  EXPECT_THAT(FleetToMarkdown(fleet),
              HasSubstr("Below the machine profile of gpu-a:\n\n- node-b: mlx5_1: active_mtu 1024, the profile's machine "
                        "type gpu-a needs 4096\n"));
  EXPECT_THAT(FleetToHtml(fleet), HasSubstr("<li>node-b: mlx5_1: active_mtu 1024"));
  const nlohmann::json json = FleetToJson(fleet);
  EXPECT_EQ(json["summary"]["below_profile"], nlohmann::json({"node-b"}));
  EXPECT_EQ(json["profile"]["machine_type"], "gpu-a");
  EXPECT_EQ(json["nodes"][0]["profile_violations"][0], "mlx5_1: active_mtu 1024, the profile's machine type gpu-a needs 4096");
}

TEST(FleetProfileTest, WithoutAProfileNothingChanges) {
  ProfiledFleet f = ThreeNodes();
  const FleetReport fleet = BuildFleet(f.runs, f.bench, FleetOptions());
  EXPECT_EQ(Node(fleet, "node-b").verdict, NodeVerdict::kOutlier);  // drift from the majority only
  EXPECT_THAT(Node(fleet, "node-b").profile_violations, IsEmpty());
  EXPECT_THAT(FleetHeadline(fleet), Not(HasSubstr("below the profile")));
  EXPECT_TRUE(FleetToJson(fleet)["profile"].is_null());
}

// A port that went down before its run is a flapping link: named on the first lines, the
// node an outlier; past the profile's link_flaps.max the node fails. No down, no finding.
TEST(FleetProfileTest, AFlappingLinkIsNamedAndPastTheProfileFails) {
  ProfiledFleet f = ThreeNodes();
  DeviceFacts flapping = GpuADevice("mlx5_0");
  flapping.link_downs = 3;
  f.runs[4] = MachineRun("node-c", flapping);  // node-c's mlx5_0
  const FleetReport plain = BuildFleet(f.runs, f.bench, FleetOptions());
  EXPECT_THAT(Node(plain, "node-c").flapping_links, ElementsAre("mlx5_0 port 1: went down 3 times in the 3600 s before its run"));
  EXPECT_EQ(Node(plain, "node-c").verdict, NodeVerdict::kOutlier);
  EXPECT_THAT(Node(plain, "node-a").flapping_links, IsEmpty());
  EXPECT_THAT(FleetHeadline(plain), HasSubstr("; flapping links: node-c"));
  EXPECT_EQ(FleetToJson(plain)["summary"]["flapping_links"], nlohmann::json({"node-c"}));

  FleetOptions options;
  options.profile = GpuA();  // allows 2
  const FleetReport profiled = BuildFleet(f.runs, f.bench, options);
  EXPECT_EQ(Node(profiled, "node-c").verdict, NodeVerdict::kFail);
  EXPECT_THAT(Node(profiled, "node-c").profile_violations,
              ElementsAre("mlx5_0 port 1: went down 3 times in the 3600 s before its run, the profile allows 2"));
}

// A pair below the profile's point fails both its nodes: which side is slow, the pair
// matrix tells, not the profile.
TEST(FleetProfileTest, APairBelowItsPointCountsAgainstBothItsNodes) {
  ProfiledFleet f = ThreeNodes(/*slow_pair_gb_per_s=*/100);
  FleetOptions options;
  options.profile = GpuA();
  options.profile->active_mtu.reset();  // node-b's MTU aside
  const FleetReport fleet = BuildFleet(f.runs, f.bench, options);
  const std::string line = "pair node-a <- node-c mlx5_0 write bandwidth 65536 B: 100.0 Gb/s below 180 Gb/s - 10 %";
  EXPECT_THAT(Node(fleet, "node-a").profile_violations, ElementsAre(line));
  EXPECT_THAT(Node(fleet, "node-c").profile_violations, ElementsAre(line));
  EXPECT_THAT(Node(fleet, "node-b").profile_violations, IsEmpty());
}

// nics.models names a model as the fleet report's kind does: one definition of a model
// (node_facts.h DeviceKind) for the profile and for the capabilities a kind should share.
TEST(FleetProfileTest, AModelIsTheFleetReportsKind) {
  ProfiledFleet f = ThreeNodes();
  DeviceFacts lacking = GpuADevice("mlx5_1");
  lacking.capabilities["atomics"] = "unsupported";
  f.runs[5] = MachineRun("node-c", lacking);  // node-c's mlx5_1
  const FleetReport fleet = BuildFleet(f.runs, f.bench, FleetOptions());
  const FleetNode& c = Node(fleet, "node-c");
  ASSERT_EQ(c.missing_capabilities.size(), 1u);
  EXPECT_EQ(c.missing_capabilities[0].kind, "mlx5 15b3:101d");
  EXPECT_EQ(c.missing_capabilities[0].kind, DeviceKind(f.runs[5].results.environment, f.runs[5].identity));
  EXPECT_THAT(GpuA().nic_models, ElementsAre(c.missing_capabilities[0].kind));
}

}  // namespace
}  // namespace rdmacheck
