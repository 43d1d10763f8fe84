// reports/wire_verdict.h: a wire violation in a test's slice fails the test unless the
// driver's expectation names it by its signature.
#include "reports/wire_verdict.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const nlohmann::json kReadViolation = {{"frame", 17},
                                       {"rule", "roce.read_response"},
                                       {"message", "READ response Middle without a First"},
                                       {"reference", "IBTA Vol 1 9.4"}};

ExpectationFile File(const std::string& signature, const std::string& kind = "flaky", int absorbs = 100,
                     const std::string& rule = "roce.read_response") {
  nlohmann::json j = {{"driver", "rxe"},
                      {"expectations",
                       {{{"test", "T.Read"},
                         {"kind", kind},
                         {"reason", "replays READ responses"},
                         {"reference", "ref"},
                         {"signature", signature},
                         {"on_the_wire", true},
                         {"rule", rule},
                         {"absorbs", absorbs}}}}};
  absl::StatusOr<ExpectationFile> file = ParseExpectations(j, "rxe.json");
  EXPECT_TRUE(file.ok()) << file.status();
  return *file;
}

TestResult Result(TestStatus status, const std::string& message = "") {
  TestResult r;
  r.suite = "datapath";
  r.name = "T.Read";
  r.status = status;
  r.message = message;
  return r;
}

TEST(WireVerdictTest, EachViolationIsAPartNamingCaptureFrameRuleAndReference) {
  EXPECT_THAT(WireFailureParts({kReadViolation}, "rxe.pcap"),
              ElementsAre("rxe.pcap:17: roce.read_response: READ response Middle without a First (IBTA Vol 1 9.4)"));
  // The expectations see it as a failed assertion of its own.
  EXPECT_THAT(FailureParts("x_test.cc:12: want SUCCESS\nrxe.pcap:17: roce.psn: gap"),
              ElementsAre("x_test.cc:12: want SUCCESS", "rxe.pcap:17: roce.psn: gap"));
}

TEST(WireVerdictTest, AViolationFailsAPassingTest) {
  TestResult r = Result(TestStatus::kPass);
  JudgeByWire(WireFailureParts({kReadViolation}, "rxe.pcap"), nullptr, r);
  EXPECT_EQ(r.status, TestStatus::kFail);
  EXPECT_THAT(r.message, HasSubstr("rxe.pcap:17: roce.read_response"));
}

TEST(WireVerdictTest, AKnownWireDeviationIsAnXfail) {
  const ExpectationFile file = File("roce\\.read_response: READ response Middle");
  TestResult r = Result(TestStatus::kPass);
  JudgeByWire(WireFailureParts({kReadViolation}, "rxe.pcap"), &file.entries[0], r);
  EXPECT_EQ(r.status, TestStatus::kXfail);
  EXPECT_THAT(r.expectation_reason, HasSubstr("flaky on the wire: replays READ responses"));
  EXPECT_THAT(r.message, HasSubstr("rxe.pcap:17"));
}

TEST(WireVerdictTest, AnXfailStaysOneWhenItsWireDeviationIsKnownToo) {
  const ExpectationFile file = File("roce\\.read_response");
  TestResult r = Result(TestStatus::kXfail, "read_test.cc:40: status IBV_WC_WR_FLUSH_ERR");
  r.expectation_reason = "flushes";
  JudgeByWire(WireFailureParts({kReadViolation}, "rxe.pcap"), &file.entries[0], r);
  EXPECT_EQ(r.status, TestStatus::kXfail);
  EXPECT_THAT(r.expectation_reason, HasSubstr("flushes; flaky on the wire"));
}

TEST(WireVerdictTest, AWireDeviationTheEntryDoesNotNameFails) {
  const ExpectationFile file = File("roce\\.psn", "fails");
  TestResult r = Result(TestStatus::kXfail, "read_test.cc:40: status IBV_WC_WR_FLUSH_ERR, want IBV_WC_SUCCESS");
  JudgeByWire(WireFailureParts({kReadViolation}, "rxe.pcap"), &file.entries[0], r);
  EXPECT_EQ(r.status, TestStatus::kFail);
  EXPECT_THAT(r.message, HasSubstr("not the known wire deviation"));
  EXPECT_THAT(r.message, HasSubstr("IBV_WC_WR_FLUSH_ERR"));  // its own message kept
}

TEST(WireVerdictTest, AListedWireDeviationThatDidNotShowIsAnXpass) {
  const ExpectationFile fails = File("roce\\.read_response", "fails");
  TestResult r = Result(TestStatus::kPass);
  JudgeByWire({}, &fails.entries[0], r);
  EXPECT_EQ(r.status, TestStatus::kXpass);
  const ExpectationFile flaky = File("roce\\.read_response", "flaky");
  TestResult p = Result(TestStatus::kPass);
  JudgeByWire({}, &flaky.entries[0], p);
  EXPECT_EQ(p.status, TestStatus::kPass);
}

TEST(WireVerdictTest, WireEntriesAreFoundOnlyForTheWire) {
  const ExpectationFile file = File("roce");
  EXPECT_EQ(FindExpectation(file, "T.Read", "6.1.0", "44.0"), nullptr);
  EXPECT_EQ(FindExpectation(file, "T.Read", "6.1.0", "44.0", /*on_the_wire=*/true), &file.entries[0]);
}

TEST(WireVerdictTest, FailuresGainThePartsAndSkipsStay) {
  TestResult failed = Result(TestStatus::kFail, "a_test.cc:1: boom");
  JudgeByWire(WireFailureParts({kReadViolation}, "rxe.pcap"), nullptr, failed);
  EXPECT_EQ(failed.status, TestStatus::kFail);
  EXPECT_THAT(failed.message, HasSubstr("boom\nrxe.pcap:17:"));
  TestResult skipped = Result(TestStatus::kSkip, "requires atomics");
  JudgeByWire(WireFailureParts({kReadViolation}, "rxe.pcap"), nullptr, skipped);
  EXPECT_EQ(skipped.status, TestStatus::kSkip);
}

TEST(WireVerdictTest, ViolationsOutsideEveryTestFailTheRun) {
  const TestResult r = WireOutsideTestsResult(WireFailureParts({kReadViolation}, "rxe.pcap"));
  EXPECT_EQ(r.name, kWireOutsideTests);
  EXPECT_EQ(r.status, TestStatus::kFail);
  EXPECT_THAT(r.message, HasSubstr("rxe.pcap:17"));
}

}  // namespace
}  // namespace rdmacheck

namespace rdmacheck {
namespace {

TEST(WireVerdictTest, ManyViolationsAreAllJudgedButFewAreShown) {
  std::vector<nlohmann::json> many(40, kReadViolation);
  many.back() = {{"frame", 99}, {"rule", "roce.psn"}, {"message", "gap"}};
  const ExpectationFile file = File("roce\\.read_response: READ response Middle");
  TestResult r = Result(TestStatus::kPass);
  JudgeByWire(WireFailureParts(many, "rxe.pcap"), &file.entries[0], r);
  EXPECT_EQ(r.status, TestStatus::kFail);  // the last one, not shown, is not the known deviation
  EXPECT_THAT(r.message, HasSubstr("... and 28 more wire violations"));
  EXPECT_THAT(r.message, HasSubstr("not the known wire deviation"));
  EXPECT_THAT(r.message, HasSubstr("a violation of another rule than roce.read_response: rxe.pcap:99: roce.psn: gap"));
}

// Issue 30 item 4: a wire entry absorbs its rule's violations, no more than its count per test.
TEST(WireVerdictTest, MoreViolationsThanTheEntryAbsorbsFail) {
  const ExpectationFile file = File("roce\\.read_response: READ response Middle", "flaky", /*absorbs=*/2);
  TestResult two = Result(TestStatus::kPass);
  JudgeByWire(WireFailureParts({kReadViolation, kReadViolation}, "rxe.pcap"), &file.entries[0], two);
  EXPECT_EQ(two.status, TestStatus::kXfail);
  TestResult three = Result(TestStatus::kPass);
  JudgeByWire(WireFailureParts({kReadViolation, kReadViolation, kReadViolation}, "rxe.pcap"), &file.entries[0], three);
  EXPECT_EQ(three.status, TestStatus::kFail);
  EXPECT_THAT(three.message, HasSubstr("3 violations, the entry absorbs at most 2 per test"));
}

// Two known deviations of one test, each of its own rule (rxe's READ replay and its RNR NAK
// for a READ): each entry absorbs its own violations, within its own count; a violation
// neither names still fails the test.
TEST(WireVerdictTest, EntriesOfTwoRulesAbsorbTogether) {
  ExpectationFile file = File("roce\\.read_response: READ response Middle", "flaky", /*absorbs=*/2);
  const ExpectationFile rnr = File("roce\\.rnr_nak: RNR NAK for an RDMA READ", "flaky", 1, "roce.rnr_nak");
  file.entries.push_back(rnr.entries[0]);
  const std::vector<const Expectation*> entries = {&file.entries[0], &file.entries[1]};
  const nlohmann::json rnr_nak = {{"frame", 7}, {"rule", "roce.rnr_nak"}, {"message", "RNR NAK for an RDMA READ at PSN 0x00000a"}};
  TestResult both = Result(TestStatus::kPass);
  JudgeByWire(WireFailureParts({kReadViolation, rnr_nak, kReadViolation}, "rxe.pcap"), entries, both);
  EXPECT_EQ(both.status, TestStatus::kXfail) << both.message;
  TestResult two_naks = Result(TestStatus::kPass);
  JudgeByWire(WireFailureParts({rnr_nak, rnr_nak}, "rxe.pcap"), entries, two_naks);
  EXPECT_EQ(two_naks.status, TestStatus::kFail);
  EXPECT_THAT(two_naks.message, HasSubstr("2 violations, the entry absorbs at most 1 per test (rule roce.rnr_nak)"));
  TestResult other = Result(TestStatus::kPass);
  JudgeByWire(WireFailureParts({kReadViolation, {{"frame", 9}, {"rule", "roce.psn"}, {"message", "gap"}}}, "rxe.pcap"),
              entries, other);
  EXPECT_EQ(other.status, TestStatus::kFail);
}

TEST(WireVerdictTest, AViolationOfAnotherRuleIsNotAbsorbedEvenIfTheSignatureMatches) {
  // The signature would match the text; the rule it names is another.
  const ExpectationFile file = File("READ response Middle", "flaky", 100, "roce.psn");
  TestResult r = Result(TestStatus::kPass);
  JudgeByWire(WireFailureParts({kReadViolation}, "rxe.pcap"), &file.entries[0], r);
  EXPECT_EQ(r.status, TestStatus::kFail);
  EXPECT_THAT(r.message, HasSubstr("a violation of another rule than roce.psn"));
}

}  // namespace
}  // namespace rdmacheck
