// The run's floor (issue 30.2): a device of a transport that carries RC must run RC SEND,
// RDMA WRITE and RDMA READ; a run where they all skipped is a failure, not green. And every
// run holds the floor (issue 35.3): a selection without it gets its minimal instances added,
// and `--floor=off` is a failing RunFloor.Selection, never a quiet exit 0.
#include "runner/run_floor.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::Each;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Optional;
using ::testing::SizeIs;

RegisteredTest Registered(const std::string& suite, const std::string& name) { return {suite, name, "", ""}; }

TestResult Result(const std::string& suite, const std::string& name, TestStatus status, std::string message = "") {
  TestResult r;
  r.suite = suite;
  r.name = name;
  r.status = status;
  r.message = std::move(message);
  return r;
}

const std::vector<RegisteredTest> kDatapath = {
    Registered("datapath", "Sizes/RcSendSizeTest.SendArrivesIntact/64"),
    Registered("datapath", "Sizes/RdmaWriteSizeTest.WriteLandsIntact/64"),
    Registered("datapath", "Sizes/RdmaReadSizeTest.ReadReturnsRemoteBytes/64"),
};

std::vector<TestResult> AllWith(TestStatus status, const std::string& message = "") {
  std::vector<TestResult> results;
  for (const RegisteredTest& t : kDatapath) results.push_back(Result(t.suite, t.name, status, message));
  return results;
}

TEST(RunFloorTest, EveryBasicOperationThatRanPassesTheFloor) {
  for (TestStatus ran : {TestStatus::kPass, TestStatus::kFail, TestStatus::kXfail}) {
    std::vector<TestResult> floor = RunFloorResults(kDatapath, AllWith(ran), IBV_TRANSPORT_IB);
    EXPECT_THAT(floor, AllOf(SizeIs(3), Each(Field(&TestResult::status, TestStatus::kPass))));
  }
}

// A probe that called everything absent: every traffic test skipped, and without the
// floor the run would exit 0.
TEST(RunFloorTest, AllSkippedFailsWithOneLineEach) {
  std::vector<TestResult> floor =
      RunFloorResults(kDatapath, AllWith(TestStatus::kSkip, "requires rdma_write: unsupported"), IBV_TRANSPORT_IWARP);
  ASSERT_THAT(floor, SizeIs(3));
  EXPECT_THAT(floor, Each(Field(&TestResult::status, TestStatus::kFail)));
  EXPECT_THAT(floor[1].message, AllOf(HasSubstr("no instance of RdmaWriteSizeTest.WriteLandsIntact ran"),
                                      HasSubstr("requires rdma_write: unsupported"),
                                      HasSubstr("every iWARP device must run RDMA WRITE")));
  EXPECT_EQ(floor[1].name, "RunFloor.RdmaWrite");
  EXPECT_EQ(floor[1].message.find('\n'), std::string::npos);
}

TEST(RunFloorTest, BlockedDoesNotCountAsRun) {
  std::vector<TestResult> floor = RunFloorResults(kDatapath, AllWith(TestStatus::kBlocked), IBV_TRANSPORT_IB);
  EXPECT_THAT(floor, Each(Field(&TestResult::status, TestStatus::kFail)));
}

TEST(RunFloorTest, OnlyWhatTheSelectionConcerns) {
  const std::vector<RegisteredTest> pd = {Registered("pd", "PdTest.AllocDealloc")};
  EXPECT_THAT(RunFloorResults(pd, {Result("pd", "PdTest.AllocDealloc", TestStatus::kSkip)}, IBV_TRANSPORT_IB),
              IsEmpty());
}

TEST(RunFloorTest, ATransportWithoutAFloorFails) {
  std::vector<TestResult> floor = RunFloorResults(kDatapath, AllWith(TestStatus::kPass), IBV_TRANSPORT_USNIC);
  ASSERT_THAT(floor, SizeIs(1));
  EXPECT_EQ(floor[0].name, "RunFloor.Transport");
  EXPECT_EQ(floor[0].status, TestStatus::kFail);
}

TEST(RunFloorTest, ASelectedSuiteWithoutResultsFails) {
  const std::vector<RegisteredTest> two = {Registered("pd", "PdTest.A"), Registered("cq", "CqTest.B")};
  std::vector<TestResult> floor = RunFloorResults(two, {Result("pd", "PdTest.A", TestStatus::kPass)}, IBV_TRANSPORT_IB);
  ASSERT_THAT(floor, SizeIs(1));
  EXPECT_EQ(floor[0].name, "RunFloor.SuiteReported/cq");
  EXPECT_EQ(floor[0].status, TestStatus::kFail);
}

// What a binary with the suites registers of the floor's bodies (two ways of connecting,
// two sizes each), and a test of another suite.
const RegisteredTest kPd = Registered("pd", "PdTest.AllocDealloc");
std::vector<RegisteredTest> AllRegistered() {
  std::vector<RegisteredTest> all = {kPd};
  for (const char* body : {"RcSendSizeTest.SendArrivesIntact", "RdmaWriteSizeTest.WriteLandsIntact",
                           "RdmaReadSizeTest.ReadReturnsRemoteBytes"}) {
    for (const char* instance : {"Manual_One", "Manual_64KiB", "RdmaCm_One", "RdmaCm_64KiB"}) {
      all.push_back(Registered("datapath", absl::StrCat("Connect/", body, "/", instance)));
    }
  }
  return all;
}

std::vector<std::string> Names(const std::vector<RegisteredTest>& tests) {
  std::vector<std::string> names;
  for (const RegisteredTest& t : tests) names.push_back(t.name);
  return names;
}

// `run --suites=pd`: before, no floor item concerned the selection and the run could exit 0
// with nothing basic tested; now the 1-byte instances are added and judged.
TEST(SelectFloorTest, ASelectionWithoutTheFloorGetsItsMinimalInstances) {
  FloorSelection floor = SelectFloor(AllRegistered(), {kPd}, IBV_TRANSPORT_IB, FloorMode::kOn);
  EXPECT_THAT(Names(floor.tests),
              ElementsAre("PdTest.AllocDealloc", "Connect/RcSendSizeTest.SendArrivesIntact/Manual_One",
                          "Connect/RcSendSizeTest.SendArrivesIntact/RdmaCm_One",
                          "Connect/RdmaWriteSizeTest.WriteLandsIntact/Manual_One",
                          "Connect/RdmaWriteSizeTest.WriteLandsIntact/RdmaCm_One",
                          "Connect/RdmaReadSizeTest.ReadReturnsRemoteBytes/Manual_One",
                          "Connect/RdmaReadSizeTest.ReadReturnsRemoteBytes/RdmaCm_One"));
  EXPECT_TRUE(floor.added);
  EXPECT_FALSE(floor.failure.has_value());
  EXPECT_THAT(floor.note, AllOf(HasSubstr("added 6 tests"), HasSubstr("RC SEND, RDMA WRITE, RDMA READ")));
  EXPECT_EQ(floor.note.find('\n'), std::string::npos);

  // ... so RunFloor.* results are produced: here all three ran (the Manual ones skipped).
  std::vector<TestResult> results = {Result("pd", "PdTest.AllocDealloc", TestStatus::kPass)};
  for (const RegisteredTest& t : floor.tests) {
    if (t.suite != "datapath") continue;
    const bool manual = t.name.find("/Manual_") != std::string::npos;
    results.push_back(Result(t.suite, t.name, manual ? TestStatus::kSkip : TestStatus::kPass));
  }
  std::vector<TestResult> judged = RunFloorResults(floor.tests, results, IBV_TRANSPORT_IWARP);
  ASSERT_THAT(judged, SizeIs(3));
  EXPECT_THAT(judged, Each(Field(&TestResult::status, TestStatus::kPass)));
}

TEST(SelectFloorTest, OnlyTheItemsTheSelectionLacksAreAdded) {
  const std::vector<RegisteredTest> all = AllRegistered();
  const RegisteredTest send_64k = Registered("datapath", "Connect/RcSendSizeTest.SendArrivesIntact/RdmaCm_64KiB");
  FloorSelection floor = SelectFloor(all, {kPd, send_64k}, IBV_TRANSPORT_IB, FloorMode::kOn);
  EXPECT_THAT(floor.tests, SizeIs(2 + 4));
  EXPECT_THAT(floor.note, AllOf(HasSubstr("added 4 tests"), HasSubstr("no test of RDMA WRITE, RDMA READ")));
}

TEST(SelectFloorTest, ASelectionHoldingTheFloorIsLeftAsItIs) {
  std::vector<RegisteredTest> all = AllRegistered();
  FloorSelection floor = SelectFloor(all, all, IBV_TRANSPORT_IB, FloorMode::kOn);
  EXPECT_EQ(Names(floor.tests), Names(all));
  EXPECT_FALSE(floor.added);
  EXPECT_FALSE(floor.failure.has_value());
  EXPECT_EQ(floor.note, "in the selection");
}

// `run --floor=off` (the mutation driver's slices): nothing added, and a failing result
// that keeps the run from exiting 0 even when everything it ran passed.
TEST(SelectFloorTest, FloorOffAddsNothingAndFailsTheRun) {
  FloorSelection floor = SelectFloor(AllRegistered(), {kPd}, IBV_TRANSPORT_IB, FloorMode::kOff);
  EXPECT_THAT(Names(floor.tests), ElementsAre("PdTest.AllocDealloc"));
  EXPECT_FALSE(floor.added);
  ASSERT_TRUE(floor.failure.has_value());
  EXPECT_EQ(floor.failure->name, "RunFloor.Selection");
  EXPECT_EQ(floor.failure->suite, kRunFloorSuite);
  EXPECT_EQ(floor.failure->status, TestStatus::kFail);
  EXPECT_THAT(floor.failure->message, HasSubstr("the floor was not run (--floor=off)"));
  EXPECT_THAT(floor.note, HasSubstr("off (--floor=off)"));

  std::vector<TestResult> run = {Result("pd", "PdTest.AllocDealloc", TestStatus::kPass), *floor.failure};
  EXPECT_EQ(ExitCodeFor(Summarize(run)), 1);
}

// rdmacheck_selftest links the demo suites only: it cannot run the floor, and says so.
TEST(SelectFloorTest, ABinaryWithoutTheFloorsTestsFails) {
  FloorSelection floor = SelectFloor({kPd}, {kPd}, IBV_TRANSPORT_IB, FloorMode::kOn);
  EXPECT_FALSE(floor.added);
  EXPECT_THAT(floor.failure, Optional(AllOf(Field(&TestResult::name, "RunFloor.Selection"),
                                            Field(&TestResult::status, TestStatus::kFail),
                                            Field(&TestResult::message, HasSubstr("*RdmaReadSizeTest.ReadReturnsRemoteBytes/*_One")))));
}

TEST(SelectFloorTest, ATransportWithoutAFloorGetsNothingAdded) {
  FloorSelection floor = SelectFloor(AllRegistered(), {kPd}, IBV_TRANSPORT_USNIC, FloorMode::kOn);
  EXPECT_THAT(floor.tests, SizeIs(1));
  EXPECT_FALSE(floor.failure.has_value());  // RunFloorResults fails RunFloor.Transport
}

// `health` runs the same instances (cli/health_command.cc): the 1-byte one of each body,
// over every way of connecting, and nothing else.
TEST(SelectFloorTest, TheFloorFilterNamesTheOneByteInstances) {
  std::vector<std::string> matched;
  for (const RegisteredTest& t : AllRegistered()) {
    if (MatchesGtestFilter(t.name, FloorInstancesFilter())) matched.push_back(t.name);
  }
  EXPECT_THAT(matched, AllOf(SizeIs(6), Each(HasSubstr("_One"))));
}

}  // namespace
}  // namespace rdmacheck
