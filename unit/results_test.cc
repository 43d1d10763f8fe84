// results.json and junit.xml: the run's record.
#include "results/results.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace rdmacheck {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TestResult Result(std::string suite, std::string name, TestStatus status, std::string capability = "") {
  TestResult r;
  r.suite = std::move(suite);
  r.name = std::move(name);
  r.status = status;
  r.capability = std::move(capability);
  return r;
}

RunResults Sample() {
  RunResults run;
  run.device = "rxe0";
  run.suites = {{"pd", 12.5, 1}, {"cq", 3, 2}};
  run.tests = {Result("pd", "PdTest.A", TestStatus::kPass), Result("pd", "PdTest.B", TestStatus::kFail),
               Result("cq", "CqTest.C", TestStatus::kSkip, "cq_resize"),
               Result("cq", "Inst/CqTest.D/1", TestStatus::kXfail),
               Result("cq", "CqTest.E", TestStatus::kSkip, "cq_resize")};
  run.tests[1].message = "pd_test.cc:10: Expected EBUSY <&>";
  run.tests[3].expectation_reason = "rxe rounds up";
  return run;
}

TEST(ResultsTest, SummaryCountsStatusesAndSkipsPerCapability) {
  RunSummary s = Summarize(Sample().tests);
  EXPECT_EQ(s.total, 5);
  EXPECT_EQ(s.pass, 1);
  EXPECT_EQ(s.fail, 1);
  EXPECT_EQ(s.skip, 2);
  EXPECT_EQ(s.xfail, 1);
  EXPECT_EQ(s.skipped_by_capability.at("cq_resize"), 2);
  EXPECT_EQ(ExitCodeFor(s), 1);
}

// 997 instances are about 215 bodies: both are counted, and a skip that is the consequence
// of another test's failure is counted under that test, not under a capability.
TEST(ResultsTest, SummaryCountsBodiesAndConsequenceSkips) {
  EXPECT_EQ(TestBodyName("Types/QpSqdTest.Drain/UC"), "QpSqdTest.Drain");
  EXPECT_EQ(TestBodyName("PdTest.A"), "PdTest.A");
  std::vector<TestResult> tests = {Result("qp", "Types/QpSqeTest.Sqe/UC", TestStatus::kXfail),
                                   Result("qp", "Types/QpSqeTest.Sqe/UD", TestStatus::kXfail),
                                   Result("qp", "Table/QpLegal.T/UC_SQE_to_RTS", TestStatus::kSkip),
                                   Result("qp", "Table/QpLegal.T/UD_SQE_to_ERR", TestStatus::kSkip)};
  tests[2].message = std::string(kConsequenceOf) + "QpSqeTest.Sqe/UC: the start state SQE is out of reach";
  tests[3].message = std::string(kConsequenceOf) + "QpSqeTest.Sqe/UD: the start state SQE is out of reach";
  RunSummary s = Summarize(tests);
  EXPECT_EQ(s.total, 4);
  EXPECT_EQ(s.bodies, 2);
  EXPECT_EQ(InstanceName("Types/QpSqeTest.Sqe/UC"), "QpSqeTest.Sqe/UC");
  EXPECT_EQ(InstanceName("PdTest.A"), "PdTest.A");
  EXPECT_EQ(ConsequenceOf(tests[2]), "QpSqeTest.Sqe/UC");
  EXPECT_EQ(s.skipped_as_consequence_of.at("QpSqeTest.Sqe"), 2);
  EXPECT_TRUE(s.skipped_by_capability.empty());
}

// Issue 30.3: a skip "as a consequence of" X is honest only while X's failure is an
// expected deviation. Then it is `blocked`, counted apart; when X failed unexpectedly or
// passed, the skip hid something and is a failure.
TestResult ConsequenceSkip(const std::string& cause_instance, const std::string& name) {
  TestResult r = Result("qp", name, TestStatus::kSkip);
  r.message = std::string(kConsequenceOf) + cause_instance + ": the start state SQE is out of reach";
  return r;
}

std::vector<TestResult> ConsequenceOfSqe(TestStatus cause_status) {
  std::vector<TestResult> tests = {Result("qp", "Types/QpSqeTest.Sqe/UC", cause_status),
                                   ConsequenceSkip("QpSqeTest.Sqe/UC", "Table/QpLegal.T/UC_SQE_to_RTS")};
  JudgeConsequences(tests);
  return tests;
}

TEST(ResultsTest, AConsequenceOfAnExpectedDeviationIsBlockedAndCountedApart) {
  std::vector<TestResult> tests = ConsequenceOfSqe(TestStatus::kXfail);
  EXPECT_EQ(tests[1].status, TestStatus::kBlocked);
  RunSummary s = Summarize(tests);
  EXPECT_EQ(s.blocked, 1);
  EXPECT_EQ(s.skip, 0);
  EXPECT_EQ(s.skipped_as_consequence_of.at("QpSqeTest.Sqe"), 1);
  EXPECT_EQ(ExitCodeFor(s), 0);
  EXPECT_EQ(SummaryToJson(s)["blocked"], 1);
}

TEST(ResultsTest, AConsequenceOfAnUnexpectedFailureOrAPassFails) {
  for (TestStatus cause : {TestStatus::kFail, TestStatus::kXpass, TestStatus::kPass}) {
    std::vector<TestResult> tests = ConsequenceOfSqe(cause);
    EXPECT_EQ(tests[1].status, TestStatus::kFail) << TestStatusName(cause);
    EXPECT_THAT(tests[1].message, HasSubstr("QpSqeTest.Sqe")) << TestStatusName(cause);
    EXPECT_FALSE(tests[1].abnormal);
  }
}

// The statuses after JudgeConsequences, in order.
std::vector<TestStatus> Judged(std::vector<TestResult>& tests) {
  JudgeConsequences(tests);
  std::vector<TestStatus> statuses;
  for (const TestResult& t : tests) statuses.push_back(t.status);
  return statuses;
}

// Verdict integrity III.7: blocked only behind the *same instance* of the cause. The UC
// instance xfailed, the UD one passed: UD's consequence has nothing in its way and fails.
TEST(ResultsTest, AConsequenceIsBlockedOnlyBehindTheXfailOfItsOwnInstance) {
  std::vector<TestResult> tests = {Result("qp", "Types/QpSqeTest.Sqe/UC", TestStatus::kXfail),
                                   Result("qp", "Types/QpSqeTest.Sqe/UD", TestStatus::kPass),
                                   ConsequenceSkip("QpSqeTest.Sqe/UC", "Table/QpLegal.T/UC_SQE_to_RTS"),
                                   ConsequenceSkip("QpSqeTest.Sqe/UD", "Table/QpLegal.T/UD_SQE_to_RTS")};
  EXPECT_THAT(Judged(tests),
              ElementsAre(TestStatus::kXfail, TestStatus::kPass, TestStatus::kBlocked, TestStatus::kFail));
  EXPECT_THAT(tests[3].message, HasSubstr("QpSqeTest.Sqe/UD passed"));
}

// A cause filtered out of the run (or named wrongly) explains nothing: the consequence's
// own outcome, a start it could not reach, stands as a failure.
TEST(ResultsTest, AConsequenceOfACauseThatDidNotRunFails) {
  std::vector<TestResult> tests = {ConsequenceSkip("QpSqeTest.Sqe/UC", "Table/QpLegal.T/UC_SQE_to_RTS")};
  EXPECT_THAT(Judged(tests), ElementsAre(TestStatus::kFail));
  EXPECT_THAT(tests[0].message, HasSubstr("QpSqeTest.Sqe/UC did not run here"));
}

// An unparameterised cause is the test itself; a parameterised one must be named by instance.
TEST(ResultsTest, AConsequenceNamesItsCausesInstance) {
  std::vector<TestResult> tests = {Result("pd", "PdTest.A", TestStatus::kXfail),
                                   ConsequenceSkip("PdTest.A", "PdTest.B"),
                                   Result("qp", "Types/QpSqeTest.Sqe/UC", TestStatus::kXfail),
                                   ConsequenceSkip("QpSqeTest.Sqe", "Table/QpLegal.T/UC_SQE_to_RTS")};
  EXPECT_THAT(Judged(tests),
              ElementsAre(TestStatus::kXfail, TestStatus::kBlocked, TestStatus::kXfail, TestStatus::kFail));
}

TEST(ResultsTest, ABlockedResultRoundTripsThroughJsonAndJunit) {
  RunResults run = Sample();
  run.tests = ConsequenceOfSqe(TestStatus::kXfail);
  run.suites = {{"qp", 1, 1}};
  absl::StatusOr<RunResults> back = ResultsFromJson(ResultsToJson(run));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->tests[1].status, TestStatus::kBlocked);
  EXPECT_THAT(ResultsToJunit(run), HasSubstr("<skipped message=\"blocked: consequence of QpSqeTest.Sqe/UC"));
}

// Two-host mode: a test counts as run with the peer only if it built a pair there and
// reached a verdict; a skip for the mode's limitation is counted apart from other skips.
TEST(ResultsTest, PeerUseCountsPeerPairsAndLoopbackOnlySkips) {
  std::vector<TestResult> tests = {Result("access", "A.x", TestStatus::kPass), Result("access", "A.y", TestStatus::kXfail),
                                   Result("access", "A.z", TestStatus::kSkip), Result("access", "A.w", TestStatus::kSkip),
                                   Result("pd", "P.x", TestStatus::kPass), Result("pd", "P.y", TestStatus::kSkip)};
  tests[0].peer_pairs = 1;
  tests[1].peer_pairs = 2;
  tests[2].message = std::string(kLoopbackOnly) + " (...): the window is bound in this process";
  tests[3].peer_pairs = 1;  // built a pair, then skipped for a capability: not a run
  tests[3].message = "capability mw_type2 absent";
  std::map<std::string, PeerUse> use = PeerUseBySuite(tests);
  EXPECT_EQ(use["access"].peer, 2);
  EXPECT_EQ(use["access"].loopback_only, 1);
  EXPECT_EQ(use["access"].other, 1);
  EXPECT_EQ(use["pd"].peer, 0);
  EXPECT_EQ(use["pd"].other, 2);
}

TEST(ResultsTest, XpassFailsTheRunAndXfailDoesNot) {
  EXPECT_EQ(ExitCodeFor(Summarize({Result("a", "T.x", TestStatus::kXfail)})), 0);
  EXPECT_EQ(ExitCodeFor(Summarize({Result("a", "T.x", TestStatus::kXpass)})), 1);
  EXPECT_EQ(ExitCodeFor(Summarize({Result("a", "T.x", TestStatus::kSkip)})), 0);
}

TEST(ResultsTest, JsonRoundTripKeepsEveryField) {
  RunResults run = Sample();
  run.tests[0].needs = {"atomics"};
  run.tests[0].purpose = "p";
  run.tests[0].reference = "IBTA";
  run.tests[0].peer_pairs = 3;
  nlohmann::json json = ResultsToJson(run);
  EXPECT_EQ(json["tests"][0]["peer_pairs"], 3);
  EXPECT_FALSE(json["tests"][1].contains("peer_pairs"));  // loopback: left out
  EXPECT_EQ(json["schema"], "rdmacheck.results/1");
  EXPECT_EQ(json["summary"]["skipped_by_capability"]["cq_resize"], 2);
  ASSERT_OK_AND_ASSIGN(RunResults back, ResultsFromJson(json));
  EXPECT_EQ(ResultsToJson(back), json);
}

TEST(ResultsTest, KernelLogTrafficAndCompletenessRoundTrip) {
  RunResults run = Sample();
  run.complete = false;
  run.tests[1].kernel_log = {"[ 1.000000] WARNING: CPU: 0 PID: 1 at x"};
  run.tests[0].traffic = {{"completions", 2}, {"counters", {{"sent_pkts", 2}}}, {"read_ms", 0.5}};
  nlohmann::json json = ResultsToJson(run);
  EXPECT_EQ(json["complete"], false);
  EXPECT_EQ(json["tests"][2]["kernel_log"], nlohmann::json::array());  // none: said, not left out
  EXPECT_FALSE(json["tests"][2].contains("traffic"));                 // no counters: left out
  ASSERT_OK_AND_ASSIGN(RunResults back, ResultsFromJson(json));
  EXPECT_FALSE(back.complete);
  EXPECT_EQ(back.tests[1].kernel_log, run.tests[1].kernel_log);
  EXPECT_EQ(back.tests[0].traffic, run.tests[0].traffic);
  EXPECT_EQ(ResultsToJson(back), json);
}

TEST(ResultsTest, JunitCarriesTheKernelLogLines) {
  RunResults run = Sample();
  run.tests[1].kernel_log = {"[ 1.0] WARNING: <x>"};
  EXPECT_THAT(ResultsToJunit(run), HasSubstr("</failure>\n      <system-err>[ 1.0] WARNING: &lt;x&gt;\n</system-err>"));
}

TEST(ResultsTest, FromJsonRejectsUnknownStatus) {
  nlohmann::json json = ResultsToJson(Sample());
  json["tests"][0]["status"] = "maybe";
  EXPECT_FALSE(ResultsFromJson(json).ok());
}

TEST(ResultsTest, JunitHasOneSuitePerSuiteAndEscapesMessages) {
  std::string xml = ResultsToJunit(Sample());
  EXPECT_THAT(xml, HasSubstr("<testsuite name=\"rxe0.pd\" tests=\"2\" failures=\"1\""));
  EXPECT_THAT(xml, HasSubstr("<testsuite name=\"rxe0.cq\" tests=\"3\" failures=\"0\" skipped=\"3\""));
  EXPECT_THAT(xml, HasSubstr("Expected EBUSY &lt;&amp;&gt;"));
  EXPECT_THAT(xml, HasSubstr("classname=\"Inst/CqTest\" name=\"D/1\""));
}

}  // namespace
}  // namespace rdmacheck
