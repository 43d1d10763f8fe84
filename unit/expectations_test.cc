// Expected deviations: the file format, matching, version ranges, stale patterns, and
// what an entry makes of a result (xfail / xpass).
#include "capabilities/expectations/expectations.h"

#include <cstdio>
#include <fstream>

#include "capabilities/verdict/broken.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace rdmacheck {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

nlohmann::json Entry(std::string test, std::string kind = "fails") {
  return {{"test", std::move(test)},
          {"kind", std::move(kind)},
          {"reason", "siw says no"},
          {"reference", "RFC 5040"},
          {"signature", "EINVAL"}};
}

ExpectationFile File(std::vector<nlohmann::json> entries) {
  absl::StatusOr<ExpectationFile> file =
      ParseExpectations({{"driver", "siw"}, {"expectations", entries}}, "/x/siw.json");
  EXPECT_TRUE(file.ok()) << file.status();
  return file.ok() ? *file : ExpectationFile{};
}

TestResult Result(TestStatus status) {
  TestResult r;
  r.name = "QpTest.RtsManual";
  r.status = status;
  r.message = "qp_test.cc:10: EINVAL";
  return r;
}

TEST(ExpectationFormatTest, AValidFileParses) {
  nlohmann::json e = Entry("QpTest.*");
  e["kernel"] = {{"from", "5.3"}, {"before", "6.10"}};
  e["rdma_core"] = {{"from", "40"}};
  ExpectationFile file = File({e});
  ASSERT_EQ(file.entries.size(), 1u);
  EXPECT_EQ(file.driver, "siw");
  EXPECT_EQ(file.entries[0].kernel.before, "6.10");
  EXPECT_EQ(file.entries[0].reference, "RFC 5040");
}

TEST(ExpectationFormatTest, MistakesAreErrorsThatNameTheEntry) {
  auto error = [](nlohmann::json entry) {
    return ParseExpectations({{"driver", "siw"}, {"expectations", {Entry("A.B"), entry}}}, "/x/siw.json").status();
  };
  nlohmann::json typo = Entry("A.B");
  typo["reasn"] = "x";
  EXPECT_THAT(error(typo).message(), HasSubstr("siw.json entry 1: unknown key 'reasn'"));
  nlohmann::json no_reason = Entry("A.B");
  no_reason.erase("reason");
  EXPECT_THAT(error(no_reason).message(), HasSubstr("'reason' must be a non-empty string"));
  EXPECT_THAT(error(Entry("A.B", "sometimes")).message(), HasSubstr("must be \"fails\" or \"flaky\""));
  EXPECT_THAT(error(Entry("A.B:C.D")).message(), HasSubstr("must be one pattern"));
  nlohmann::json no_signature = Entry("A.B");
  no_signature.erase("signature");
  EXPECT_THAT(error(no_signature).message(), HasSubstr("siw.json entry 1: 'signature' must be a non-empty string"));
  nlohmann::json bad_signature = Entry("A.B");
  bad_signature["signature"] = "status (IBV_WC_";
  EXPECT_THAT(error(bad_signature).message(), HasSubstr("is not a regular expression"));
  nlohmann::json bad_version = Entry("A.B");
  bad_version["kernel"] = {{"from", "new"}};
  EXPECT_THAT(error(bad_version).message(), HasSubstr("kernel"));
  EXPECT_FALSE(ParseExpectations(nlohmann::json::array(), "/x/siw.json").ok());
}

// Issue 30 item 4: an entry for every test, or a signature that matches nearly anything,
// absorbs deviations no one has seen.
TEST(ExpectationFormatTest, UnspecificEntriesAreRefused) {
  auto error = [](nlohmann::json entry) {
    return std::string(ParseExpectations({{"driver", "siw"}, {"expectations", {entry}}}, "/x/siw.json").status().message());
  };
  EXPECT_THAT(error(Entry("*")), HasSubstr("must name its fixture"));
  EXPECT_THAT(error(Entry("Table/*Test.*/RC_SQD_to_*")), HasSubstr("must name its fixture"));
  EXPECT_THAT(error(Entry("*/*")), HasSubstr("must name its fixture"));
  for (const char* broad : {".*", "[\\s\\S]*", "\\w+", "\\d+", "IBV_WC_LOC_QP_OP_ERR|.+", "(status )?"}) {
    nlohmann::json e = Entry("A.B");
    e["signature"] = broad;
    EXPECT_THAT(error(e), HasSubstr("matches nearly anything")) << broad;
  }
  EXPECT_EQ(error(Entry("Inst/FooTest.Bar*/UC_*")), "");
}

TEST(ExpectationFormatTest, AWireEntryNamesItsRuleAndHowManyViolationsItAbsorbs) {
  auto error = [](nlohmann::json entry) {
    return std::string(ParseExpectations({{"driver", "rxe"}, {"expectations", {entry}}}, "/x/rxe.json").status().message());
  };
  nlohmann::json wire = Entry("A.B");
  wire["on_the_wire"] = true;
  EXPECT_THAT(error(wire), HasSubstr("needs 'rule'"));
  wire["rule"] = "roce.read_response";
  EXPECT_THAT(error(wire), HasSubstr("'absorbs' must be a count"));
  wire["absorbs"] = 0;
  EXPECT_THAT(error(wire), HasSubstr("'absorbs' must be a count"));
  wire["absorbs"] = 2;
  EXPECT_EQ(error(wire), "");
  wire["rule"] = "READ responses";
  EXPECT_THAT(error(wire), HasSubstr("'rule' must be a wire rule id"));
  nlohmann::json plain = Entry("A.B");
  plain["absorbs"] = 2;
  EXPECT_THAT(error(plain), HasSubstr("belong to an 'on_the_wire' entry"));
}

TEST(ExpectationFormatTest, TopLevelAlternativesSplitOutsideGroupsAndClasses) {
  EXPECT_THAT(TopLevelAlternatives("a|(b|c)|[|]d|e\\|f"), ElementsAre("a", "(b|c)", "[|]d", "e\\|f"));
}

TEST(ExpectationFormatTest, SignatureAlternativesMultiplyOutGroups) {
  EXPECT_THAT(SignatureAlternatives("a(b|c)d|e"), ElementsAre("a(b)d", "a(c)d", "e"));
  EXPECT_THAT(SignatureAlternatives("(x|y(1|2))+z"), ElementsAre("(x)+z", "(y(1))+z", "(y(2))+z"));
  EXPECT_THAT(SignatureAlternatives("(?:p|q)[(|]\\(r\\|s\\)"),
              ElementsAre("(?:p)[(|]\\(r\\|s\\)", "(?:q)[(|]\\(r\\|s\\)"));
  EXPECT_THAT(SignatureAlternatives("a(?!b|c)"), ElementsAre("a(?!b|c)"));  // a condition, not text
  EXPECT_GT(SignatureAlternatives("(a|b)(a|b)(a|b)(a|b)(a|b)(a|b)(a|b)(a|b)(a|b)").size(), kMaxSignatureAlternatives);
}

std::string LoadError(const std::string& signature) {
  nlohmann::json e = Entry("A.B");
  e["signature"] = signature;
  return std::string(ParseExpectations({{"driver", "siw"}, {"expectations", {e}}}, "/x/siw.json").status().message());
}

// Issue "Verdict integrity III" item 5: signatures that match any failure, or any timeout.
TEST(ExpectationFormatTest, AlternativesThatMatchWhatAnyFailurePrintsAreRefused) {
  for (const char* generic : {"IBV_WC_SUCCESS|(IBV_WC_REM_ACCESS_ERR|\\.cc:\\d+: )", "Value of:", "Failure",
                              "Expected equality of these values", "Timed out", "timed out after \\S+",
                              "timed out after ([\\d.]+(ms|h|m|s))+ waiting for a completion event",
                              "waiting for an rdma_cm event", "waiting for an async event"}) {
    const std::string error = LoadError(generic);
    EXPECT_THAT(error, HasSubstr("matches what any failure prints")) << generic;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;  // one line, as `run` prints it
  }
  EXPECT_THAT(LoadError("(\\d+|1) of 1 arrived"), HasSubstr("whatever was awaited"));
  EXPECT_EQ(LoadError("waiting for (completions|a completion event): 0 of 1"), "");  // each names one
  EXPECT_THAT(LoadError("waiting for [a-z ]+: 0 of 1 arrived"), HasSubstr("whatever was awaited"));
  EXPECT_THAT(LoadError("waiting for completions: \\d+ of 5 arrived"), HasSubstr("whatever count arrived"));
  EXPECT_THAT(LoadError("waiting for completions: [01] of 5"), HasSubstr("whatever count arrived"));
  for (const char* named : {"waiting for a completion event: 0 of 1 arrived", "waiting for completions: 1 of 5 arrived",
                            "waiting for completions: 0 of \\d+ arrived",
                            "waiting for RDMA_CM_EVENT_CONNECT_REQUEST: 0 of 1 arrived",
                            "the SEND never completed: [^\\n]*waiting for completions: \\d+ of 1 arrived",
                            "status is IBV_WC_LOC_QP_OP_ERR, expected IBV_WC_LOC_PROT_ERR"}) {
    EXPECT_EQ(LoadError(named), "") << named;
  }
}

// A user's file (`run --expectations FILE`) loads through the same checks as a shipped one.
TEST(ExpectationFormatTest, AUsersFileGetsTheSameChecks) {
  const std::string path = ::testing::TempDir() + "/user_expectations.json";
  nlohmann::json e = Entry("CqEventsTest.SolicitedOnlyWakesOnlyForSolicited");
  e["signature"] = "timed out after \\S+ waiting for a completion event";
  std::ofstream(path) << nlohmann::json{{"driver", "siw"}, {"expectations", {e}}}.dump();
  absl::StatusOr<ExpectationFile> file = LoadExpectations(path);
  EXPECT_THAT(file.status().message(), HasSubstr("user_expectations.json entry 0: signature alternative"));
  EXPECT_THAT(file.status().message(), HasSubstr("matches what any failure prints"));
  std::remove(path.c_str());
}

TEST(ExpectationMatchTest, PatternsMatchFullOrCatalogueNames) {
  ExpectationFile file = File({Entry("CqTest.Create"), Entry("QpTest.Rts*")});
  EXPECT_TRUE(file.entries[0].Matches("CqTest.Create"));
  EXPECT_TRUE(file.entries[0].Matches("Sizes/CqTest.Create/3"));  // every instance
  EXPECT_FALSE(file.entries[0].Matches("CqTest.CreateMany"));
  EXPECT_TRUE(file.entries[1].Matches("QpTest.RtsManual"));
  EXPECT_FALSE(file.entries[1].Matches("QpTest.Rtr"));
}

TEST(ExpectationMatchTest, VersionRangesAreHalfOpen) {
  VersionRange range{"6.1", "6.9"};
  EXPECT_TRUE(range.Contains("6.1.0-56-amd64"));
  EXPECT_TRUE(range.Contains("6.8.12"));
  EXPECT_FALSE(range.Contains("6.9"));
  EXPECT_FALSE(range.Contains("5.15.0"));
  EXPECT_FALSE(range.Contains("unknown"));
  EXPECT_TRUE(VersionRange{}.Contains("unknown"));
  EXPECT_TRUE((VersionRange{"44", ""}.Contains("44.0-2")));
}

TEST(ExpectationMatchTest, AnEntryOutsideItsVersionRangeDoesNotApply) {
  nlohmann::json old_kernels = Entry("QpTest.RtsManual");
  old_kernels["kernel"] = {{"before", "6.0"}};
  ExpectationFile file = File({old_kernels});
  EXPECT_EQ(FindExpectation(file, "QpTest.RtsManual", "6.1.0-56-amd64", "44.0-2"), nullptr);
  EXPECT_NE(FindExpectation(file, "QpTest.RtsManual", "5.10.0", "44.0-2"), nullptr);
}

// The walk's findings: one name ("Walk.modify_qp") may carry several deviations; the entry
// whose signature matches applies, and none when none does.
TEST(ExpectationMatchTest, AWalkFindingTakesTheEntryWhoseSignatureMatches) {
  nlohmann::json accepted = Entry("Walk.modify_qp", "flaky");
  accepted["signature"] = "modify_qp RC \\w+->\\w+: success, the model allows EINVAL";
  nlohmann::json reads = Entry("Walk.modify_qp", "flaky");
  reads["signature"] = "reads RESET, expected";
  ExpectationFile file = File({accepted, reads});
  EXPECT_EQ(FindMatchingExpectation(file, "Walk.modify_qp", "ibv_query_qp after an accepted move RESET->INIT reads "
                                    "RESET, expected INIT", "6.1.0", "44.0"),
            &file.entries[1]);
  EXPECT_EQ(FindMatchingExpectation(file, "Walk.modify_qp", "modify_qp RC RESET->SQE: success, the model allows EINVAL "
                                    "(IBTA 10.3.1)", "6.1.0", "44.0"),
            &file.entries[0]);
  EXPECT_EQ(FindMatchingExpectation(file, "Walk.modify_qp", "modify_qp RC RESET->SQE: EBUSY, the model allows EINVAL",
                                    "6.1.0", "44.0"),
            nullptr);
  EXPECT_EQ(FindMatchingExpectation(file, "Walk.poll", "reads RESET, expected INIT", "6.1.0", "44.0"), nullptr);
}

TEST(StaleEntriesTest, APatternThatMatchesNoRegisteredTestIsStale) {
  ExpectationFile file = File({Entry("PdTest.*"), Entry("GoneTest.Removed")});
  std::vector<std::string> tests = {"PdTest.AllocDealloc", "Inst/CqTest.Create/0"};
  EXPECT_THAT(StaleEntries(file, tests),
              ElementsAre("siw.json entry 1: pattern 'GoneTest.Removed' matches no registered test"));
  EXPECT_THAT(StaleEntries(File({Entry("CqTest.Create")}), tests), IsEmpty());
}

TEST(ApplyExpectationTest, AKnownFailureIsXfailWithItsReason) {
  ExpectationFile file = File({Entry("QpTest.RtsManual")});
  TestResult r = Result(TestStatus::kFail);
  ApplyExpectation(&file.entries[0], r);
  EXPECT_EQ(r.status, TestStatus::kXfail);
  EXPECT_EQ(r.expectation_reason, "siw says no");
  EXPECT_EQ(r.expectation_reference, "RFC 5040");
  EXPECT_EQ(r.message, "qp_test.cc:10: EINVAL");  // the failure stays visible
  EXPECT_FALSE(IsFailure(r.status));
}

TEST(ApplyExpectationTest, AKernelLogFailureIsNeverXfail) {
  ExpectationFile file = File({Entry("QpTest.RtsManual")});
  TestResult r = Result(TestStatus::kFail);
  r.kernel_log = {"[ 1.0] WARNING: CPU: 0 PID: 1 at drivers/infiniband/sw/siw/siw_qp.c:1"};
  ApplyExpectation(&file.entries[0], r);
  EXPECT_EQ(r.status, TestStatus::kFail);
  EXPECT_EQ(r.expectation_reason, "");
}

TEST(ApplyExpectationTest, APassOfAKnownFailureIsXpassAndFailsTheRun) {
  ExpectationFile file = File({Entry("QpTest.RtsManual")});
  TestResult r = Result(TestStatus::kPass);
  ApplyExpectation(&file.entries[0], r);
  EXPECT_EQ(r.status, TestStatus::kXpass);
  EXPECT_THAT(r.message, HasSubstr("stale entry, or the device was fixed"));
  EXPECT_TRUE(IsFailure(r.status));
}

TEST(ApplyExpectationTest, FlakyPassesStayPassesSkipsStaySkipsNoEntryChangesNothing) {
  ExpectationFile file = File({Entry("QpTest.RtsManual", "flaky"), Entry("QpTest.Other")});
  TestResult pass = Result(TestStatus::kPass);
  ApplyExpectation(&file.entries[0], pass);
  EXPECT_EQ(pass.status, TestStatus::kPass);
  TestResult fail = Result(TestStatus::kFail);
  ApplyExpectation(&file.entries[0], fail);
  EXPECT_EQ(fail.status, TestStatus::kXfail);
  EXPECT_EQ(fail.expectation_reason, "flaky: siw says no");
  TestResult skip = Result(TestStatus::kSkip);
  ApplyExpectation(&file.entries[1], skip);
  EXPECT_EQ(skip.status, TestStatus::kSkip);
  TestResult untouched = Result(TestStatus::kFail);
  ApplyExpectation(nullptr, untouched);
  EXPECT_EQ(untouched.status, TestStatus::kFail);
}

// The entry describes one deviation: a different failure of the same test is not it.
TEST(ApplyExpectationTest, AFailureThatDoesNotMatchTheSignatureStaysAFailure) {
  nlohmann::json entry = Entry("QpTest.RtsManual");
  entry["signature"] = "status IBV_WC_WR_FLUSH_ERR.*want IBV_WC_REM_ACCESS_ERR";
  ExpectationFile file = File({entry});
  TestResult known = Result(TestStatus::kFail);
  known.message = "access_test.cc:40: status IBV_WC_WR_FLUSH_ERR (5), want IBV_WC_REM_ACCESS_ERR (10)";
  ApplyExpectation(&file.entries[0], known);
  EXPECT_EQ(known.status, TestStatus::kXfail);

  TestResult other = Result(TestStatus::kFail);
  other.message = "access_test.cc:40: status IBV_WC_SUCCESS (0), want IBV_WC_REM_ACCESS_ERR (10)";
  ApplyExpectation(&file.entries[0], other);
  EXPECT_EQ(other.status, TestStatus::kFail);
  EXPECT_TRUE(IsFailure(other.status));
  EXPECT_THAT(other.message, HasSubstr("not the known deviation (siw says no; signature /status IBV_WC_WR_FLUSH_ERR"));
  EXPECT_THAT(other.message, HasSubstr("status IBV_WC_SUCCESS (0)"));  // what really happened stays visible
  EXPECT_TRUE(other.expectation_reason.empty());
}

// A failure message as the runner joins its parts.
std::string Joined(const std::vector<std::string>& parts) {
  std::string message;
  for (const std::string& part : parts) AppendFailurePart(message, part);
  return message;
}

// Each failed assertion must be the deviation: a second, different failure in the same
// test (a wrong value after the known wrong status) makes it a failure.
TEST(ApplyExpectationTest, EveryFailedAssertionMustMatchTheSignature) {
  nlohmann::json entry = Entry("QpTest.RtsManual");
  entry["signature"] = "status is IBV_WC_LOC_QP_OP_ERR, expected IBV_WC_LOC_PROT_ERR";
  ExpectationFile file = File({entry});
  const std::string known = "a.cc:10: Value of: wc\n  Actual: status is IBV_WC_LOC_QP_OP_ERR, expected IBV_WC_LOC_PROT_ERR";
  EXPECT_THAT(FailureParts(known + "\nb.cc:20: byte 3 is 0x00"), ElementsAre(known, "b.cc:20: byte 3 is 0x00"));
  // SCOPED_TRACE lines belong to the assertion above them; the runner separates parts with a
  // blank line (AppendFailurePart), so what follows a trace, located or not, is a part of its
  // own, and a part's own blank line is dropped. (failure_parts_test.cc splits the messages
  // of a real GoogleTest process.)
  const std::string traced = "a.cc:1: mtu 3 vs 1\nGoogle Test trace:\na.cc:9: port 1\na.cc:8: device rxe0";
  const std::string thrown = "C++ exception with description \"x\" thrown in the test body.";
  EXPECT_THAT(FailureParts(Joined({traced, "b.cc:2: other\n\n", thrown})), ElementsAre(traced, "b.cc:2: other", thrown));
  EXPECT_THAT(FailureParts(traced + "\n"), ElementsAre(traced));
  EXPECT_THAT(FailureParts(Joined({"a.cc:1: mtu 3 vs 1\n\n  \nwant 1\n"})), ElementsAre("a.cc:1: mtu 3 vs 1\nwant 1"));
  EXPECT_THAT(FailureParts(traced + "\nrxe.pcap:3: roce.psn: gap"), ElementsAre(traced, "rxe.pcap:3: roce.psn: gap"));

  TestResult two = Result(TestStatus::kFail);
  two.message = Joined({known, known});
  ApplyExpectation(&file.entries[0], two);
  EXPECT_EQ(two.status, TestStatus::kXfail);

  TestResult extra = Result(TestStatus::kFail);
  extra.message = Joined({known, "b.cc:20: DATA_LOSS: byte 3 is 0x00, expected 0x5a"});
  ApplyExpectation(&file.entries[0], extra);
  EXPECT_EQ(extra.status, TestStatus::kFail);
}

// A crash, a watchdog kill, a leak or a kernel splat is never the known deviation, even
// when its message happens to match (here: the signature matches anything).
TEST(ApplyExpectationTest, AnAbnormalFailureIsNeverAbsorbed) {
  for (std::string kind : {"fails", "flaky"}) {
    nlohmann::json entry = Entry("QpTest.RtsManual", kind);
    entry["signature"] = "signal 11 \\(SEGV\\)";  // matches the crash's message, and still does not cover it
    ExpectationFile file = File({entry});
    TestResult crashed = Result(TestStatus::kFail);
    crashed.abnormal = true;
    crashed.message = "crashed: signal 11 (SEGV) while running this test; child output in logs/qp.log";
    ApplyExpectation(&file.entries[0], crashed);
    EXPECT_EQ(crashed.status, TestStatus::kFail) << kind;
    EXPECT_THAT(crashed.message, HasSubstr("never covers a crash")) << kind;
  }
}

// A broken capability is a failing result of its own, with the probe's evidence, unless
// a "capability" entry's signature matches that evidence.
TEST(BrokenCapabilityTest, FailsWithTheEvidenceUnlessItsEntryMatches) {
  Profile p;
  p.observed[Cap::kSendWithInv] = {Outcome::kBroken, 0, "the receive completion lacks IBV_WC_WITH_INV"};
  p.observed[Cap::kAtomics] = {Outcome::kSupported, 0, "CAS and FAA"};
  std::vector<TestResult> none = BrokenCapabilityResults(p, nullptr);
  ASSERT_EQ(none.size(), 1u);
  EXPECT_EQ(none[0].name, "BrokenCapability.send_with_inv");
  EXPECT_EQ(none[0].status, TestStatus::kFail);
  EXPECT_THAT(none[0].message, HasSubstr("lacks IBV_WC_WITH_INV"));

  nlohmann::json entry = {{"capability", "send_with_inv"}, {"kind", "fails"}, {"reason", "rxe forgets the flag"},
                          {"reference", "rxe_cq.c"}, {"signature", "lacks IBV_WC_WITH_INV"}};
  ExpectationFile file = File({entry});
  EXPECT_EQ(BrokenCapabilityResults(p, &file)[0].status, TestStatus::kXfail);
  p.observed[Cap::kSendWithInv].detail = "RECV completed with IBV_WC_REM_INV_REQ_ERR";  // another way of broken
  EXPECT_EQ(BrokenCapabilityResults(p, &file)[0].status, TestStatus::kFail);
  EXPECT_THAT(StaleEntries(file, {"PdTest.Alloc"}), IsEmpty());  // not a test pattern
}

TEST(ExpectationFormatTest, ACapabilityEntryNamesAKnownCapability) {
  nlohmann::json entry = {{"capability", "warp_drive"}, {"kind", "fails"}, {"reason", "r"}, {"reference", "x"},
                          {"signature", "s"}};
  EXPECT_THAT(ParseExpectations({{"driver", "siw"}, {"expectations", {entry}}}, "/x/siw.json").status().message(),
              HasSubstr("must name a capability"));
  entry["capability"] = "send_with_inv";
  entry["test"] = "A.B";
  EXPECT_THAT(ParseExpectations({{"driver", "siw"}, {"expectations", {entry}}}, "/x/siw.json").status().message(),
              HasSubstr("exclude each other"));
}

TEST(ShippedExpectationsTest, EveryShippedFileParsesAndIsNamedForItsDriver) {
  ASSERT_OK_AND_ASSIGN(std::vector<ExpectationFile> files, AllShippedExpectations());
  std::vector<std::string> drivers;
  for (const ExpectationFile& f : files) drivers.push_back(f.driver);
  EXPECT_THAT(drivers, ::testing::IsSupersetOf({"rxe", "siw"}));
  ASSERT_OK_AND_ASSIGN(std::optional<ExpectationFile> siw, ExpectationsForDriver("siw"));
  EXPECT_TRUE(siw.has_value());
  ASSERT_OK_AND_ASSIGN(std::optional<ExpectationFile> none, ExpectationsForDriver("no_such_driver"));
  EXPECT_FALSE(none.has_value());
}

}  // namespace
}  // namespace rdmacheck
