// Port and GID choice: the defaults of --port and --gid_index.
#include <arpa/inet.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/device.h"
#include "testing/status_matchers.h"

namespace rdmacheck {
namespace {

GidEntry Gid(uint32_t index, ibv_gid_type type, const char* ipv6) {
  GidEntry g;
  g.index = index;
  g.type = type;
  inet_pton(AF_INET6, ipv6, g.gid.raw);
  return g;
}

TEST(ChooseGidTest, PrefersRoceV2Ipv4MappedOverOtherEntries) {
  std::vector<GidEntry> gids = {Gid(0, IBV_GID_TYPE_ROCE_V1, "fe80::1"), Gid(1, IBV_GID_TYPE_ROCE_V2, "fe80::1"),
                                Gid(2, IBV_GID_TYPE_ROCE_V1, "::ffff:10.0.0.1"),
                                Gid(3, IBV_GID_TYPE_ROCE_V2, "::ffff:10.0.0.1")};
  EXPECT_THAT(ChooseGid(gids, IBV_TRANSPORT_IB), IsOkAndHolds(3u));
}

TEST(ChooseGidTest, FallsBackToRoceV2ThenRoceV1) {
  EXPECT_THAT(ChooseGid({Gid(0, IBV_GID_TYPE_ROCE_V1, "fe80::1"), Gid(1, IBV_GID_TYPE_ROCE_V2, "fe80::1")},
                        IBV_TRANSPORT_IB),
              IsOkAndHolds(1u));
  EXPECT_THAT(ChooseGid({Gid(4, IBV_GID_TYPE_ROCE_V1, "fe80::1")}, IBV_TRANSPORT_IB), IsOkAndHolds(4u));
}

TEST(ChooseGidTest, NeverChoosesAnAllZeroEntry) {
  EXPECT_THAT(ChooseGid({Gid(0, IBV_GID_TYPE_ROCE_V2, "::"), Gid(1, IBV_GID_TYPE_ROCE_V1, "fe80::2")},
                        IBV_TRANSPORT_IB),
              IsOkAndHolds(1u));
  EXPECT_FALSE(ChooseGid({Gid(0, IBV_GID_TYPE_IB, "::")}, IBV_TRANSPORT_IB).ok());
}

TEST(ChooseGidTest, IwarpTakesItsMacBasedGidEvenThoughItEndsInZeros) {
  // siw's only GID is its MAC followed by zero bytes: not empty.
  GidEntry siw = Gid(0, IBV_GID_TYPE_IB, "5254:0012:3456::");
  EXPECT_FALSE(siw.IsZero());
  EXPECT_THAT(ChooseGid({siw}, IBV_TRANSPORT_IWARP), IsOkAndHolds(0u));
}

TEST(GidEntryTest, FormatsIpv4MappedAsIpv4) {
  EXPECT_EQ(Gid(0, IBV_GID_TYPE_ROCE_V2, "::ffff:10.77.1.1").Address(), "10.77.1.1");
  EXPECT_EQ(Gid(0, IBV_GID_TYPE_ROCE_V2, "fe80::1").Address(), "fe80::1");
  EXPECT_EQ(Gid(0, IBV_GID_TYPE_ROCE_V2, "fe80::1").TypeName(), "RoCEv2");
}

PortInfo Port(uint8_t num, ibv_port_state state) {
  PortInfo p;
  p.num = num;
  p.attr.state = state;
  return p;
}

TEST(ChoosePortTest, TakesTheFirstActivePort) {
  EXPECT_THAT(ChoosePort({Port(1, IBV_PORT_DOWN), Port(2, IBV_PORT_ACTIVE), Port(3, IBV_PORT_ACTIVE)}),
              IsOkAndHolds(2));
}

TEST(ChoosePortTest, NoActivePortIsAnErrorListingStates) {
  absl::StatusOr<uint8_t> port = ChoosePort({Port(1, IBV_PORT_DOWN), Port(2, IBV_PORT_INIT)});
  ASSERT_FALSE(port.ok());
  EXPECT_THAT(std::string(port.status().message()), ::testing::HasSubstr("1:DOWN, 2:INIT"));
}

}  // namespace
}  // namespace rdmacheck
