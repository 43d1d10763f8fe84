// runner/conformance_run.h TwoHostEnvironment: what `run --peer` records of the MTUs, in
// bytes: the serving port's active MTU, and the path MTU its pairs use, the smaller of the
// two ports' (harness/connection/connected_pair.h TwoHostPathMtu, which the pairs use too).
#include "gtest/gtest.h"
#include "harness/connection/connected_pair.h"
#include "runner/conformance_run.h"

namespace rdmacheck {
namespace {

Selection WithActiveMtu(ibv_mtu mtu) {
  Selection s;
  s.port_attr.active_mtu = mtu;
  return s;
}

TEST(TwoHostEnvironmentTest, PathMtuIsTheSmallerOfBothPorts) {
  const nlohmann::json lower_peer = TwoHostEnvironment(WithActiveMtu(IBV_MTU_4096), IBV_MTU_1024);
  EXPECT_EQ(lower_peer["peer_active_mtu"], 1024);
  EXPECT_EQ(lower_peer["path_mtu"], 1024);
  const nlohmann::json lower_here = TwoHostEnvironment(WithActiveMtu(IBV_MTU_2048), IBV_MTU_4096);
  EXPECT_EQ(lower_here["peer_active_mtu"], 4096);
  EXPECT_EQ(lower_here["path_mtu"], 2048);
  EXPECT_EQ(TwoHostPathMtu(WithActiveMtu(IBV_MTU_2048), IBV_MTU_4096), IBV_MTU_2048);
}

}  // namespace
}  // namespace rdmacheck
