// A machine profile learned from a healthy fleet (machine/profile_learn.h): each field is
// what most of the fleet shows, the pairs' tolerance follows their spread, a setting a
// machine's own NICs differ in is left out, and — the round trip — the profile learned
// from a fleet on disk, written and read back, passes every node of that fleet.
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/files.h"
#include "machine/profile_check.h"
#include "machine/profile_learn.h"
#include "reports/fleet/fleet_model.h"
#include "reports/fleet/fleet_profile.h"
#include "reports/fleet/rounds.h"
#include "unit/machine_fixtures.h"

namespace rdmacheck {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using namespace fixtures;  // NOLINT: the fixtures are this file's vocabulary

// `n` gpu-a nodes as the Slurm job leaves them (nodes/<node>/<device>, pairs/<a>--<b>/),
// every pair of the first round with a benchmark that varies a little, as real ones do.
std::filesystem::path WriteFleet(const std::string& name, int n) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(::testing::TempDir()) / name;
  fs::remove_all(root);
  auto write = [&](const fs::path& dir, const DeviceRun& run, const std::vector<BenchRun>& bench) {
    EXPECT_TRUE(WriteFile((dir / "results.json").string(), ResultsToJson(run.results).dump()).ok());
    EXPECT_TRUE(WriteFile((dir / "capabilities.json").string(), run.capabilities.dump()).ok());
    if (!bench.empty()) {
      EXPECT_TRUE(WriteFile((dir / "bench.json").string(), BenchRunToJson(bench[0]).dump()).ok());
    }
  };
  auto node = [](int i) { return absl::StrCat("node", i); };
  for (int i = 0; i < n; ++i) {
    for (const std::string device : {"mlx5_0", "mlx5_1"}) {
      DeviceFacts d = GpuADevice(device);
      if (i % 4 == 1) d.firmware = "28.39.2024";  // some nodes a step ahead
      write(root / "nodes" / node(i) / device, MachineRun(node(i), d), {});
    }
  }
  const Round first = PairRounds(n).front();
  for (size_t p = 0; p < first.pairs.size(); ++p) {
    const std::string server = node(first.pairs[p].first), client = node(first.pairs[p].second);
    write(root / "pairs" / (server + "--" + client) / "mlx5_0", MachineRun(client, GpuADevice("mlx5_0"), server),
          {PairPoints(180.0 + 3.0 * (static_cast<int>(p % 5) - 2), 3.0 + 0.05 * (p % 3))});
  }
  return root;
}

TEST(MachineLearnTest, ALearnedProfilePassesTheFleetItCameFrom) {
  const std::filesystem::path root = WriteFleet("machine_learn_fleet", 10);
  std::vector<NodeFacts> machines;
  absl::StatusOr<FleetReport> fleet = LoadFleet({root.string()}, FleetOptions(), &machines);
  ASSERT_TRUE(fleet.ok()) << fleet.status();
  ASSERT_EQ(machines.size(), 10u);
  EXPECT_EQ(machines[0].pairs.size(), 1u);  // each node took part in one pair of the round

  const MachineProfile learned = LearnProfile(machines, "gpu-a");
  EXPECT_EQ(learned.nic_count, 2);
  EXPECT_THAT(learned.nic_models, ElementsAre("mlx5 15b3:101d"));
  EXPECT_EQ(learned.port_rate, "200 Gb/sec (4X HDR)");
  EXPECT_EQ(learned.active_mtu, 4096);
  EXPECT_EQ(learned.netdev_mtu, 9000);
  EXPECT_EQ(learned.gid_type, "RoCEv2");
  EXPECT_EQ(learned.link_layer, "Ethernet");
  EXPECT_EQ(learned.min_firmware, "28.39.1002");
  EXPECT_THAT(learned.capabilities, ElementsAre("atomics", "rc_qp", "rdma_read"));  // odp is unsupported
  ASSERT_EQ(learned.pairs.count("write bandwidth 65536 B"), 1u);
  EXPECT_DOUBLE_EQ(learned.pairs.at("write bandwidth 65536 B").expect, 180.0);
  EXPECT_DOUBLE_EQ(learned.pairs.at("write bandwidth 65536 B").tolerance, 0.1);
  EXPECT_FALSE(learned.link_flaps.has_value());

  // Written as `fleet profile --learn --out` writes it, read back, checked over the fleet.
  const std::string path = (root / "gpu-a.json").string();
  ASSERT_TRUE(WriteFile(path, MachineProfileText(learned)).ok());
  absl::StatusOr<MachineProfile> read = LoadMachineProfile(path);
  ASSERT_TRUE(read.ok()) << read.status();
  for (const NodeFacts& node : machines) EXPECT_THAT(CheckNode(*read, node), IsEmpty()) << node.host;
  FleetOptions options;
  options.profile = *read;
  absl::StatusOr<FleetReport> checked = LoadFleet({root.string()}, options);
  ASSERT_TRUE(checked.ok()) << checked.status();
  EXPECT_THAT(NodesBelowProfile(*checked), IsEmpty());
  EXPECT_FALSE(checked->Troubled());
}

TEST(MachineLearnTest, EachFieldIsWhatMostOfTheFleetShows) {
  std::vector<NodeFacts> nodes;
  for (int i = 0; i < 5; ++i) nodes.push_back(GpuANode(absl::StrCat("node", i)));
  nodes[2].devices[0].firmware = "28.40.1000";
  NodeFacts odd = GpuANode("odd");
  odd.devices.pop_back();
  odd.devices[0].kind = "mlx5 15b3:1017";
  odd.devices[0].firmware = "16.35.2000";  // another model: not the floor of the main one
  odd.devices[0].active_mtu = 1024;
  odd.devices[0].capabilities["atomics"] = "unsupported";
  nodes.push_back(odd);

  const MachineProfile learned = LearnProfile(nodes);
  EXPECT_EQ(learned.nic_count, 2);
  EXPECT_THAT(learned.nic_models, ElementsAre("mlx5 15b3:101d", "mlx5 15b3:1017"));  // the most common first
  EXPECT_EQ(learned.active_mtu, 4096);
  EXPECT_EQ(learned.min_firmware, "28.39.1002");
  EXPECT_THAT(learned.capabilities, ElementsAre("rc_qp", "rdma_read"));  // atomics: not on every device
  EXPECT_THAT(CheckNode(learned, odd),
              ElementsAre("1 NIC, the profile needs 2", "mlx5_0: active_mtu 1024, the profile needs 4096"));
}

struct Spread {
  const char* name;
  std::vector<double> gb_per_s;
  double expect, tolerance;
};

class MachinePairSpreadTest : public ::testing::TestWithParam<Spread> {};

TEST_P(MachinePairSpreadTest, ExpectIsTheMedianAndToleranceFollowsTheSpread) {
  std::vector<NodeFacts> nodes;
  for (size_t i = 0; i < GetParam().gb_per_s.size(); ++i) {
    NodeFacts n;
    n.host = absl::StrCat("node", i);
    n.pairs.push_back({"server", n.host, "mlx5_0", PairPoints(GetParam().gb_per_s[i], 3.0).points});
    nodes.push_back(n);
  }
  const MachineProfile learned = LearnProfile(nodes);
  ASSERT_EQ(learned.pairs.count("write bandwidth 65536 B"), 1u);
  EXPECT_NEAR(learned.pairs.at("write bandwidth 65536 B").expect, GetParam().expect, 1e-9);
  EXPECT_NEAR(learned.pairs.at("write bandwidth 65536 B").tolerance, GetParam().tolerance, 1e-9);
}

INSTANTIATE_TEST_SUITE_P(
    Pairs, MachinePairSpreadTest,
    ::testing::Values(Spread{"AllAlikeGetTheFloor", {100, 100, 100, 100, 100}, 100, 0.1},
                      // deviations 0, 10, 10, 20, 20: MAD 10, 3 x 10 / 100
                      Spread{"WideSpreadWidens", {100, 90, 110, 80, 120}, 100, 0.3},
                      // MAD 2 of 123.45: 0.0486 -> the floor; the median to three digits
                      Spread{"ThreeSignificantDigits", {123.45, 121.45, 125.45}, 123, 0.1},
                      // an even count averages the middle two: median 100; deviations 7, 1, 1, 7: MAD 4
                      Spread{"EvenCountAveragesTheMiddle", {93, 99, 101, 107}, 100, 0.12}),
    [](const ::testing::TestParamInfo<Spread>& info) { return std::string(info.param.name); });

// Machines with an InfiniBand and an Ethernet NIC have no one link layer: the learned
// profile leaves it out and says so, and still passes them.
TEST(MachineLearnTest, ASettingAMachinesOwnNicsDifferInIsLeftOut) {
  std::vector<NodeFacts> nodes;
  for (int i = 0; i < 3; ++i) {
    NodeFacts n = GpuANode(absl::StrCat("node", i));
    n.devices[1].link_layer = "InfiniBand";
    n.devices[1].gid_type = "IB";
    nodes.push_back(n);
  }
  std::vector<std::string> notes;
  const MachineProfile learned = LearnProfile(nodes, "", &notes);
  EXPECT_FALSE(learned.link_layer.has_value());
  EXPECT_FALSE(learned.gid_type.has_value());
  EXPECT_EQ(learned.active_mtu, 4096);
  EXPECT_THAT(notes, ElementsAre("gid_type left out: the devices of 3 of 3 nodes differ in it (IB, RoCEv2)",
                                 HasSubstr("link_layer left out")));
  for (const NodeFacts& n : nodes) EXPECT_THAT(CheckNode(learned, n), IsEmpty());
}

}  // namespace
}  // namespace rdmacheck
