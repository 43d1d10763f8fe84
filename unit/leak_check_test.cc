// The leak check's bookkeeping: counting a process's objects in `rdma -j resource show`
// output, and naming what leaked.
#include "runner/leak_check.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace rdmacheck {
namespace {

TEST(LeakCheckTest, CountsOnlyTheEntriesOfThePid) {
  // As iproute2 6.1 prints `rdma -j resource show qp` (kernel QPs have no pid).
  constexpr char kQps[] = R"([{"ifindex":1,"ifname":"rxe0","port":1,"lqpn":1,"type":"GSI","state":"RTS","comm":"[ib_core]"},
    {"ifindex":1,"ifname":"rxe0","port":1,"lqpn":17,"type":"RC","state":"RTS","pid":42,"comm":"rdmacheck"},
    {"ifindex":1,"ifname":"rxe0","port":1,"lqpn":18,"type":"RC","state":"RTS","pid":42,"comm":"rdmacheck"},
    {"ifindex":1,"ifname":"rxe0","port":1,"lqpn":19,"type":"RC","state":"INIT","pid":7,"comm":"other"}])";
  EXPECT_THAT(CountOwnedBy(kQps, 42), IsOkAndHolds(2));
  EXPECT_THAT(CountOwnedBy("[]", 42), IsOkAndHolds(0));
  EXPECT_FALSE(CountOwnedBy("Failed to open NETLINK_RDMA socket", 42).ok());
}

TEST(LeakCheckTest, MoreOfATypeThanBeforeIsALeakAndIsNamed) {
  const ObjectCounts before = {{"pd", 1}, {"qp", 0}, {"mr", 0}};
  EXPECT_EQ(DescribeLeak(before, before), "");
  EXPECT_EQ(DescribeLeak(before, {{"pd", 0}, {"qp", 0}, {"mr", 0}}), "");  // fewer is not a leak
  EXPECT_EQ(DescribeLeak(before, {{"pd", 1}, {"qp", 2}, {"mr", 1}}),
            "1 mr, 2 qp still held after the suite's tests (before: mr 0, qp 0)");
}

}  // namespace
}  // namespace rdmacheck
