// reports/kernel_section.h: the report's "Kernel log and device counters" section.
#include "reports/kernel_section.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::testing::HasSubstr;

Report OneRun() {
  DeviceRun run;
  run.results.device = "rxe0";
  run.results.environment = {{"kernel_log", "read from /dev/kmsg"}, {"traffic_counters", "read before and after"}};
  TestResult warned, moved, flagged, plain;
  warned.name = "PdTest.Warns";
  warned.status = TestStatus::kFail;
  warned.kernel_log = {"[ 1.000000] WARNING: CPU: 0 PID: 9 at rxe_pool.c:1"};
  moved.name = "RcSendTest.Moves";
  moved.traffic = {{"completions", 2}, {"counters", {{"sent_pkts", 2}}}, {"read_ms", 1.0}};
  flagged.name = "RcSendTest.Hidden";
  flagged.traffic = {{"completions", 1}, {"counters", nlohmann::json::object()}, {"read_ms", 3.0},
                     {"flag", "1 work completion(s) on the wire, but no counter of rxe0 port 1 moved"}};
  plain.name = "PdTest.Plain";
  plain.traffic = {{"completions", 0}, {"counters", nlohmann::json::object()}, {"read_ms", 2.0}};
  run.results.tests = {warned, moved, flagged, plain};
  return BuildReport({run});
}

TEST(KernelSectionTest, CountsKernelFailuresTrafficFlagsAndOverhead) {
  Report report = OneRun();
  KernelFindings f = FindingsOf(report.devices[0].run.results);
  EXPECT_EQ(f.kernel_failures.size(), 1u);
  EXPECT_EQ(f.counted, 3);
  EXPECT_EQ(f.with_traffic, 2);
  EXPECT_EQ(f.counters_moved, 1);
  EXPECT_EQ(f.flagged.size(), 1u);
  EXPECT_DOUBLE_EQ(f.read_ms_median, 2.0);
  EXPECT_DOUBLE_EQ(f.read_ms_max, 3.0);
}

TEST(KernelSectionTest, ShowsTheLinesAndTheFlags) {
  ExtraSection s = KernelSection(OneRun());
  EXPECT_EQ(s.title, "Kernel log and device counters");
  EXPECT_THAT(s.markdown, HasSubstr("| tests failed by the kernel log | 1 |"));
  EXPECT_THAT(s.markdown, HasSubstr("WARNING: CPU: 0 PID: 9 at rxe_pool.c:1"));
  EXPECT_THAT(s.markdown, HasSubstr("flagged `RcSendTest.Hidden`"));
  EXPECT_THAT(s.html, HasSubstr("<pre>[ 1.000000] WARNING"));
  EXPECT_EQ(s.data["devices"][0]["flagged: traffic that moved no counter"], "1");
}

TEST(KernelSectionTest, AnOlderRunSaysItDidNotRecord) {
  DeviceRun run;
  run.results.device = "siw0";
  KernelFindings f = FindingsOf(run.results);
  EXPECT_THAT(f.kernel_log, HasSubstr("not recorded"));
}

}  // namespace
}  // namespace rdmacheck
