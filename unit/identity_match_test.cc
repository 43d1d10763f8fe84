// `run --capabilities FILE` takes a profile only when it was probed on the device opened
// now (capabilities/profile/identity_match.h): each field that differs is named, with the
// file's value and the device's.
#include "capabilities/profile/identity_match.h"

#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

Identity Mlx5() {
  Identity id;
  id.device = "mlx5_0";
  id.driver = "mlx5";
  id.node_guid = "b859:9f03:00a1:2b3c";
  id.fw_ver = "28.39.1002";
  id.kernel = "6.1.0-56-amd64";
  id.rdma_core = "44.0-2";
  id.hostname = "node0007";
  id.time = "2025-01-02T03:04:05Z";
  return id;
}

TEST(IdentityMatchTest, TheSameDeviceAndSoftwareMatch) {
  Identity later = Mlx5();
  later.time = "2025-02-01T00:00:00Z";  // when it was taken is no part of who
  EXPECT_EQ(IdentityMismatch(Mlx5(), later), "");
}

TEST(IdentityMatchTest, AnotherDeviceIsNamedByDriverAndGuid) {
  Identity rxe = Mlx5();
  rxe.driver = "rxe";
  rxe.node_guid = "5054:00ff:fe88:0101";
  EXPECT_EQ(IdentityMismatch(Mlx5(), rxe), "driver mlx5 vs rxe, node_guid b859:9f03:00a1:2b3c vs 5054:00ff:fe88:0101");
}

TEST(IdentityMatchTest, TheSameDeviceUnderOtherSoftwareDiffers) {
  Identity upgraded = Mlx5();
  upgraded.fw_ver = "28.40.1000";
  upgraded.kernel = "6.12.95+deb12-amd64";
  upgraded.rdma_core = "52.0-2";
  EXPECT_EQ(IdentityMismatch(Mlx5(), upgraded),
            "fw_ver 28.39.1002 vs 28.40.1000, kernel 6.1.0-56-amd64 vs 6.12.95+deb12-amd64, rdma_core 44.0-2 vs 52.0-2");
}

// A file without an identity (written by hand, or cut short) is no evidence about this
// device: refused, its empty fields shown as "none".
TEST(IdentityMatchTest, AProfileWithoutIdentityIsRefused) {
  EXPECT_EQ(IdentityMismatch(Identity(), Mlx5()),
            "driver none vs mlx5, node_guid none vs b859:9f03:00a1:2b3c, fw_ver none vs 28.39.1002, kernel none vs "
            "6.1.0-56-amd64, rdma_core none vs 44.0-2");
}

}  // namespace
}  // namespace rdmacheck
