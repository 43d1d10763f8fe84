// runner/counters.h and capabilities/system/device_counters.h: counter deltas and the flag on
// traffic that left no trace on the device.
#include "runner/counters.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::testing::HasSubstr;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

TEST(CounterDeltasTest, OnlyCountersThatMoved) {
  EXPECT_THAT(CounterDeltas({{"sent_pkts", 10}, {"rcvd_pkts", 7}, {"send_err", 1}},
                            {{"sent_pkts", 14}, {"rcvd_pkts", 7}, {"send_err", 1}, {"new", 3}}),
              UnorderedElementsAre(Pair("sent_pkts", 4)));
  EXPECT_THAT(CounterDeltas({{"c", 9}}, {{"c", 2}}), UnorderedElementsAre(Pair("c", -7)));  // reset
}

TEST(TrafficRecordTest, TrafficWithCountersIsNotFlagged) {
  nlohmann::json r = TrafficRecord(2, {{"sent_pkts", 2}, {"rcvd_pkts", 2}}, "rxe0 port 1");
  EXPECT_EQ(r["completions"], 2);
  EXPECT_EQ(r["counters"]["sent_pkts"], 2);
  EXPECT_FALSE(r.contains("flag"));
}

TEST(TrafficRecordTest, TrafficThatMovedNoCounterIsFlagged) {
  nlohmann::json r = TrafficRecord(3, {}, "rxe0 port 1");
  ASSERT_TRUE(r.contains("flag"));
  EXPECT_THAT(r["flag"].get<std::string>(), HasSubstr("no counter of rxe0 port 1 moved"));
}

TEST(TrafficRecordTest, NoTrafficNoFlag) { EXPECT_FALSE(TrafficRecord(0, {}, "rxe0 port 1").contains("flag")); }

TEST(DeviceCountersTest, AnAbsentDeviceHasNoneAndSaysWhereItLooked) {
  DeviceCounters c = DeviceCounters::Find("no_such_device_x", 1);
  EXPECT_FALSE(c.any());
  EXPECT_THAT(c.evidence(), HasSubstr("/sys/class/infiniband/no_such_device_x/ports/1/hw_counters: none"));
}

}  // namespace
}  // namespace rdmacheck
