// runner/kernel_log.h: parsing /dev/kmsg records, recognising the kernel's problem
// reports, grouping their lines, and attributing them to the tests whose window holds them.
#include "runner/kernel_log.h"

#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::StartsWith;

TEST(KmsgRecordTest, ParsesPrefixTimeAndTextWithoutDictionary) {
  std::optional<KernelRecord> r =
      ParseKmsgRecord("4,1234,5678901,-,caller=T12;WARNING: CPU: 0 PID: 12 at x.c:1 f+0x1/0x2\n SUBSYSTEM=x\n");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->usec, 5678901);
  EXPECT_EQ(r->seq, 1234u);
  EXPECT_EQ(r->level, 4);
  EXPECT_EQ(r->text, "WARNING: CPU: 0 PID: 12 at x.c:1 f+0x1/0x2");
  EXPECT_EQ(ParseKmsgRecord("12,9,100,-;rdmacheck: x\n")->level, 4);  // facility user (1<<3) | warning
  EXPECT_FALSE(ParseKmsgRecord("no semicolon").has_value());
  EXPECT_FALSE(ParseKmsgRecord("4,x,y,-;text").has_value());
}

TEST(KernelProblemTest, RecognisesTheKernelsReports) {
  for (const char* line : {"WARNING: CPU: 1 PID: 77 at drivers/infiniband/sw/rxe/rxe_qp.c:9 rxe_qp_do_cleanup",
                           "BUG: kernel NULL pointer dereference, address: 0000000000000008",
                           "kernel BUG at mm/slub.c:435!", "Oops: 0002 [#1] PREEMPT SMP NOPTI",
                           "general protection fault, probably for non-canonical address 0xdead: 0000 [#1]",
                           "WARNING: possible circular locking dependency detected",
                           "INFO: task kworker/u4:2:81 blocked for more than 120 seconds.",
                           "rcu: INFO: rcu_preempt self-detected stall on CPU",
                           "rcu: INFO: rcu_sched detected stalls on CPUs/tasks:",
                           "watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [rxe_loop:9]",
                           "UBSAN: shift-out-of-bounds in drivers/infiniband/sw/siw/siw_qp.c:12",
                           "Kernel panic - not syncing: sysrq triggered crash",
                           "kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)"}) {
    EXPECT_TRUE(IsKernelProblem(line)) << line;
  }
  for (const char* line : {"rdma_rxe: loaded", "infiniband rxe0: set active", "rdmacheck: suite pd on rxe0 starts",
                           "siw: device registered", "------------[ cut here ]------------"}) {
    EXPECT_FALSE(IsKernelProblem(line)) << line;
  }
}

// Two runs of one bug give one signature (the walk shrinks by it); two bugs give two.
TEST(KernelProblemSignatureTest, DropsWhatDiffersBetweenRunsOfTheSameBug) {
  EXPECT_EQ(KernelProblemSignature("[   12.345678] WARNING: CPU: 1 PID: 345 at drivers/infiniband/sw/rxe/rxe_comp.c:683 "
                                   "rxe_completer+0x1a/0x2b0 [rdma_rxe]"),
            "kernel: WARNING: at drivers/infiniband/sw/rxe/rxe_comp.c:683 rxe_completer");
  EXPECT_EQ(KernelProblemSignature("WARNING: CPU: 0 PID: 9 at drivers/infiniband/sw/rxe/rxe_comp.c:683 "
                                   "rxe_completer+0x22/0x2b0 [rdma_rxe]"),
            "kernel: WARNING: at drivers/infiniband/sw/rxe/rxe_comp.c:683 rxe_completer");
  EXPECT_EQ(KernelProblemSignature("INFO: task kworker/u4:2:81 blocked for more than 120 seconds."),
            "kernel: INFO: task blocked.");
  EXPECT_EQ(KernelProblemSignature("BUG: KASAN: use-after-free in rxe_qp_do_cleanup+0x1c/0x90 [rdma_rxe]"),
            "kernel: BUG: KASAN: use-after-free in rxe_qp_do_cleanup");
  EXPECT_NE(KernelProblemSignature("WARNING: CPU: 0 PID: 9 at drivers/infiniband/sw/rxe/rxe_comp.c:683 rxe_completer"),
            KernelProblemSignature("WARNING: CPU: 0 PID: 9 at drivers/infiniband/sw/rxe/rxe_qp.c:20 rxe_qp_do_cleanup"));
}

TEST(ProblemCollectorTest, AReportKeepsItsFollowingLinesUpToTheEndMarker) {
  ProblemCollector c;
  c.Add({1'000'000, 4, "rdma_rxe: qp#17 state error"}, 0);  // before: not part of anything
  c.Add({2'000'000, 4, "WARNING: CPU: 0 PID: 5 at x.c:1 f"}, 100);
  c.Add({2'000'100, 4, "Modules linked in: rdma_rxe"}, 100);
  c.Add({2'000'200, 4, "---[ end trace 0000000000000000 ]---"}, 100);
  c.Add({2'000'300, 6, "rdma_rxe: unrelated after the end"}, 100);
  c.Add({9'000'000, 3, "BUG: unable to handle page fault"}, 100);
  std::vector<KernelProblem> p = c.Take();
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].usec, 2'000'000 - 100);  // on CLOCK_MONOTONIC
  EXPECT_THAT(p[0].lines, ElementsAre("[    2.000000] WARNING: CPU: 0 PID: 5 at x.c:1 f",
                                      "[    2.000100] Modules linked in: rdma_rxe",
                                      "[    2.000200] ---[ end trace 0000000000000000 ]---"));
  EXPECT_THAT(p[1].lines, ElementsAre("[    9.000000] BUG: unable to handle page fault"));
  EXPECT_THAT(c.Take(), IsEmpty());
}

TEST(ProblemCollectorTest, ALineLongAfterTheLastIsNotPartOfTheReport) {
  ProblemCollector c;
  c.Add({1'000'000, 4, "INFO: task x:1 blocked for more than 120 seconds."}, 0);
  c.Add({1'000'000 + ProblemCollector::kContinuationUs + 1, 6, "later, unrelated"}, 0);
  std::vector<KernelProblem> p = c.Take();
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].lines.size(), 1u);
}

TestResult Windowed(const std::string& name, int64_t start, int64_t end, TestStatus status = TestStatus::kPass) {
  TestResult t;
  t.suite = "pd";
  t.name = name;
  t.status = status;
  t.start_us = start;
  t.end_us = end;
  return t;
}

TEST(AttachKernelProblemsTest, FailsTheTestWhoseWindowHoldsTheReport) {
  std::vector<TestResult> tests = {Windowed("A.First", 100, 200), Windowed("A.Second", 300, 400),
                                   Windowed("A.Skipped", 500, 600, TestStatus::kSkip)};
  tests[2].capability = "atomics";
  std::vector<std::string> outside =
      AttachKernelProblems({{350, {"[0.000350] WARNING: at x", "[0.000351] Call Trace:"}},
                            {550, {"[0.000550] BUG: y"}},
                            {250, {"[0.000250] Oops: z"}}},
                           tests);
  EXPECT_EQ(tests[0].status, TestStatus::kPass);
  EXPECT_THAT(tests[0].kernel_log, IsEmpty());
  EXPECT_EQ(tests[1].status, TestStatus::kFail);
  EXPECT_THAT(tests[1].message, StartsWith("kernel log: "));
  EXPECT_THAT(tests[1].message, HasSubstr("WARNING: at x"));
  EXPECT_THAT(tests[1].kernel_log, ElementsAre("[0.000350] WARNING: at x", "[0.000351] Call Trace:"));
  EXPECT_EQ(tests[2].status, TestStatus::kFail);  // a skip that splatted is no skip
  EXPECT_EQ(tests[2].capability, "");
  EXPECT_THAT(outside, ElementsAre("[0.000250] Oops: z"));
  TestResult r = OutsideTestsResult("pd", outside);
  EXPECT_EQ(r.name, kKernelLogOutsideTests);
  EXPECT_EQ(r.status, TestStatus::kFail);
  EXPECT_THAT(r.message, HasSubstr("Oops: z"));
}

TEST(AttachKernelProblemsTest, KeepsTheTestsOwnFailureMessage) {
  std::vector<TestResult> tests = {Windowed("A.Fails", 100, 200, TestStatus::kFail)};
  tests[0].message = "x.cc:3: Expected 0, got 22";
  AttachKernelProblems({{150, {"[0.000150] WARNING: w"}}}, tests);
  EXPECT_THAT(tests[0].message, HasSubstr("kernel log: "));
  EXPECT_THAT(tests[0].message, HasSubstr("Expected 0, got 22"));
}

TEST(AttachKernelProblemsTest, ATestWithoutWindowTakesNothing) {
  std::vector<TestResult> tests = {Windowed("A.NeverStarted", 0, 0)};
  EXPECT_THAT(AttachKernelProblems({{0, {"BUG: b"}}}, tests), ElementsAre("BUG: b"));
  EXPECT_EQ(tests[0].status, TestStatus::kPass);
}

// Issue "Verdict integrity III" item 6: records the kernel overwrote before they were read.
TEST(LostRecordsTest, TheGapAfterAnOverrunCountsWhatWasLost) {
  LostRecords lost;
  lost.Read(10);
  lost.Read(11);
  EXPECT_FALSE(lost.any());
  lost.Overrun();
  EXPECT_TRUE(lost.any());  // before the next record says how many
  EXPECT_EQ(lost.Describe(), "an unknown number of records overwritten before they were read");
  lost.Read(23);
  EXPECT_EQ(lost.Describe(), "11 records overwritten before they were read");
}

TEST(LostRecordsTest, AnOverrunBeforeAnyRecordCannotBeCounted) {
  LostRecords lost;
  lost.Overrun();
  lost.Read(500);
  EXPECT_EQ(lost.Describe(), "an unknown number of records overwritten before they were read");
  lost.Overrun();
  lost.Read(510);
  EXPECT_EQ(lost.Describe(), "at least 9 records overwritten before they were read");
}

// A log file standing in for /dev/kmsg: each append is one record, read by the next read(2).
class KernelLogFileTest : public ::testing::Test {
 protected:
  void Append(const std::string& record) { std::ofstream(path_, std::ios::app) << record; }
  const std::string path_ = ::testing::TempDir() + "/kmsg_" +
                            ::testing::UnitTest::GetInstance()->current_test_info()->name();
  void SetUp() override { std::ofstream(path_, std::ios::trunc) << "4,1,100,-;WARNING: before the reader opened\n"; }
  void TearDown() override { std::filesystem::remove(path_); }
};

// What the run opens before probing sees what the probes make the kernel report; what was
// logged before it opened is not the run's.
TEST_F(KernelLogFileTest, ReadsWhatIsLoggedAfterItOpened) {
  KernelLog log(path_);
  ASSERT_TRUE(log.readable()) << log.Describe();
  Append("4,2,2000000,-;WARNING: CPU: 0 PID: 9 at drivers/infiniband/sw/rxe/rxe_qp.c:1 probe\n");
  std::vector<KernelProblem> problems = log.ReadProblems();
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_THAT(problems[0].lines[0], HasSubstr("rxe_qp.c:1 probe"));
  TestResult r = WhileProbingResult(problems[0].lines);
  EXPECT_EQ(r.name, kKernelLogWhileProbing);
  EXPECT_EQ(r.status, TestStatus::kFail);
  EXPECT_THAT(r.message, HasSubstr("while the device was opened and probed"));
  EXPECT_THAT(r.kernel_log, ElementsAre(HasSubstr("rxe_qp.c:1 probe")));
}

TEST_F(KernelLogFileTest, ASequenceGapIsCountedAsLost) {
  KernelLog log(path_);
  Append("6,2,2000,-;rdma_rxe: loaded\n");
  EXPECT_THAT(log.ReadProblems(), IsEmpty());
  Append("6,9,3000,-;rdma_rxe: later\n");
  EXPECT_THAT(log.ReadProblems(), IsEmpty());
  EXPECT_TRUE(log.lost().any());
  EXPECT_THAT(log.Describe(), HasSubstr("6 records overwritten before they were read"));
}

TEST(KernelLogTest, SaysOnceWhyItCannotRead) {
  KernelLog log("/nonexistent/kmsg");
  EXPECT_FALSE(log.readable());
  EXPECT_THAT(log.Describe(), StartsWith("NOT read: no /nonexistent/kmsg"));
  log.Mark("ignored");
  EXPECT_THAT(log.ReadProblems(), IsEmpty());
}

}  // namespace
}  // namespace rdmacheck
