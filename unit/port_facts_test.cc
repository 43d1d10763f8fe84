// capabilities/system/port_facts.h over fake sysfs trees: a PCI RoCE NIC states all three
// facts, rxe (no PCI parent) no PCIe link, an InfiniBand port (no netdev) no netdev MTU,
// and a device that is not there none; a link half stated is not recorded.
#include "capabilities/system/port_facts.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

namespace fs = std::filesystem;
using ::testing::Eq;
using ::testing::Optional;

// A sysfs tree in a temporary directory, removed with it.
class FakeSysfs {
 public:
  FakeSysfs() : root_(fs::path(::testing::TempDir()) / absl::StrCat("port_facts_test-", getpid())) {
    fs::remove_all(root_);
  }
  ~FakeSysfs() { fs::remove_all(root_); }

  // Writes `value` and a newline, as the kernel does, to root/`path`.
  void Write(const std::string& path, const std::string& value) {
    fs::create_directories((root_ / path).parent_path());
    std::ofstream(root_ / path) << value << "\n";
  }
  std::string root() const { return root_.string(); }

 private:
  fs::path root_;
};

TEST(PortFactsTest, APciRoceNicStatesRateNetdevMtuAndPcieLink) {
  FakeSysfs sys;
  sys.Write("class/infiniband/mlx5_0/ports/1/rate", "100 Gb/sec (4X EDR)");
  sys.Write("class/infiniband/mlx5_0/device/current_link_speed", "16.0 GT/s PCIe");
  sys.Write("class/infiniband/mlx5_0/device/current_link_width", "16");
  sys.Write("class/net/enp1s0f0np0/mtu", "9000");
  const PortFacts f = ReadPortFacts("mlx5_0", 1, "enp1s0f0np0", sys.root());
  EXPECT_THAT(f.rate, Optional(Eq("100 Gb/sec (4X EDR)")));
  EXPECT_THAT(f.netdev_mtu, Optional(9000));
  EXPECT_THAT(f.pcie_link, Optional(Eq("16.0 GT/s PCIe x16")));
}

TEST(PortFactsTest, AVirtualDeviceHasNoPcieLink) {
  FakeSysfs sys;
  sys.Write("class/infiniband/rxe0/ports/1/rate", "2.5 Gb/sec (1X SDR)");
  sys.Write("class/net/eth0/mtu", "1500");
  const PortFacts f = ReadPortFacts("rxe0", 1, "eth0", sys.root());
  EXPECT_THAT(f.rate, Optional(Eq("2.5 Gb/sec (1X SDR)")));
  EXPECT_THAT(f.netdev_mtu, Optional(1500));
  EXPECT_EQ(f.pcie_link, std::nullopt);
}

TEST(PortFactsTest, AnInfinibandPortHasNoNetdevMtu) {
  FakeSysfs sys;
  sys.Write("class/infiniband/mlx5_1/ports/1/rate", "200 Gb/sec (4X HDR)");
  sys.Write("class/net/ib0/mtu", "2044");  // IPoIB's, not the port's: the run names no netdev
  const PortFacts f = ReadPortFacts("mlx5_1", 1, "", sys.root());
  EXPECT_THAT(f.rate, Optional(Eq("200 Gb/sec (4X HDR)")));
  EXPECT_EQ(f.netdev_mtu, std::nullopt);
}

TEST(PortFactsTest, NothingIsRecordedThatIsNotThere) {
  FakeSysfs sys;
  sys.Write("class/infiniband/mlx5_0/device/current_link_speed", "8.0 GT/s PCIe");  // no width
  sys.Write("class/net/eth0/mtu", "not a number");
  const PortFacts f = ReadPortFacts("mlx5_0", 2, "eth0", sys.root());
  EXPECT_EQ(f.rate, std::nullopt);  // port 2 has no rate file
  EXPECT_EQ(f.netdev_mtu, std::nullopt);
  EXPECT_EQ(f.pcie_link, std::nullopt);
  const PortFacts gone = ReadPortFacts("no_such_device", 1, "no_such_netdev", sys.root());
  EXPECT_EQ(gone.rate, std::nullopt);
  EXPECT_EQ(gone.netdev_mtu, std::nullopt);
  EXPECT_EQ(gone.pcie_link, std::nullopt);
}

}  // namespace
}  // namespace rdmacheck
