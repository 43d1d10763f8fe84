// The run's floor (issue 30.2): a device of a transport that carries RC must run RC SEND,
// RDMA WRITE and RDMA READ; a run where they all skipped is a failure, not green.
#include "runner/run_floor.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::testing::AllOf;
using ::testing::Each;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
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

}  // namespace
}  // namespace rdmacheck
