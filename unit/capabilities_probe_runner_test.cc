// The probe isolation: a probe that crashes, hangs or says nothing marks its capabilities
// broken with what happened, and the parent carries on.
#include "capabilities/probes/probe_runner.h"

#include <signal.h>
#include <unistd.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/status.h"

namespace rdmacheck {
namespace {

using ::testing::AllOf;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

auto Broken(const std::string& detail) {
  return AllOf(Field(&Observation::outcome, Outcome::kBroken), Field(&Observation::detail, HasSubstr(detail)));
}

TEST(ProbeRunnerTest, TheChildsReportComesBack) {
  ProbeReport report = RunInChild({Cap::kSrq}, absl::Seconds(10), [] {
    ProbeReport r;
    r.observed[Cap::kSrq] = {Outcome::kSupported, 0, "made one"};
    r.measured["max_send_sge"] = {6, "accepts 6"};
    r.quirks.push_back({"srq", "noticed"});
    return r;
  });
  EXPECT_THAT(report.observed, UnorderedElementsAre(Pair(Cap::kSrq, Field(&Observation::detail, "made one"))));
  EXPECT_EQ(report.measured["max_send_sge"].value, 6);
  ASSERT_EQ(report.quirks.size(), 1u);
  EXPECT_EQ(report.quirks[0].text, "noticed");
}

TEST(ProbeRunnerTest, ACrashMarksEveryCapabilityOfTheProbeBroken) {
  ProbeReport report = RunInChild({Cap::kAtomics, Cap::kRdmaRead}, absl::Seconds(10), []() -> ProbeReport {
    raise(SIGSEGV);
    return {};
  });
  EXPECT_THAT(report.observed, UnorderedElementsAre(Pair(Cap::kAtomics, Broken("probe crashed: SIGSEGV")),
                                                    Pair(Cap::kRdmaRead, Broken("probe crashed: SIGSEGV"))));
}

TEST(ProbeRunnerTest, AHangIsKilledAtTheTimeLimit) {
  ProbeReport report = RunInChild({Cap::kRdmaCm}, absl::Milliseconds(300), []() -> ProbeReport {
    pause();
    return {};
  });
  EXPECT_THAT(report.observed, UnorderedElementsAre(Pair(Cap::kRdmaCm, Broken("probe timed out after 300ms"))));
}

TEST(ProbeRunnerTest, AnExceptionOrAMissingObservationIsBroken) {
  ProbeReport threw = RunInChild({Cap::kXrc}, absl::Seconds(10), []() -> ProbeReport {
    throw std::runtime_error("boom");
  });
  EXPECT_THAT(threw.observed, UnorderedElementsAre(Pair(Cap::kXrc, Broken("probe threw: boom"))));
  ProbeReport silent = RunInChild({Cap::kOdp}, absl::Seconds(10), [] { return ProbeReport{}; });
  EXPECT_THAT(silent.observed, UnorderedElementsAre(Pair(Cap::kOdp, Broken("recorded nothing"))));
}

TEST(ProbeRunnerTest, AChildThatExitsWithoutAReportIsBroken) {
  ProbeReport report = RunInChild({Cap::kMemlock}, absl::Seconds(10), []() -> ProbeReport { _exit(3); });
  EXPECT_THAT(report.observed, UnorderedElementsAre(Pair(Cap::kMemlock, Broken("exited (status 3) without a report"))));
}

ProbeInput DeclaringAtomics(const char* atomic_cap) {
  ProbeInput input;
  input.selection.port = 1;
  input.declared = {{"atomic_cap", atomic_cap}};
  return input;
}

TEST(ProbeScopeTest, AFailureOfSomethingDeclaredIsBroken) {
  ProbeInput input = DeclaringAtomics("HCA");
  ProbeScope scope(nullptr, input);
  scope.Tried(Cap::kAtomics, ErrnoStatus(EINVAL, "ibv_post_send(CAS)"), "");
  EXPECT_THAT(scope.report().observed[Cap::kAtomics],
              AllOf(Field(&Observation::outcome, Outcome::kBroken), Field(&Observation::err, EINVAL),
                    Field(&Observation::detail, HasSubstr("declared (atomic_cap=HCA), but ibv_post_send(CAS)"))));
}

TEST(ProbeScopeTest, AFailureOfSomethingNotDeclaredIsUnsupported) {
  ProbeInput input = DeclaringAtomics("NONE");
  ProbeScope scope(nullptr, input);
  scope.Tried(Cap::kAtomics, ErrnoStatus(EINVAL, "ibv_post_send(CAS)"), "");
  scope.Tried(Cap::kCqResize, ErrnoStatus(EOPNOTSUPP, "ibv_resize_cq"), "");  // no attribute speaks of it
  scope.Tried(Cap::kSrq, absl::OkStatus(), "made one");
  EXPECT_EQ(scope.report().observed[Cap::kAtomics].outcome, Outcome::kUnsupported);
  EXPECT_EQ(scope.report().observed[Cap::kCqResize].outcome, Outcome::kUnsupported);
  EXPECT_THAT(scope.report().observed[Cap::kSrq],
              AllOf(Field(&Observation::outcome, Outcome::kSupported), Field(&Observation::detail, "made one")));
}

TEST(ProbeScopeTest, ANegativeErrnoIsRecordedAsTheErrnoAndNotedAsAQuirk) {
  ProbeInput input = DeclaringAtomics("NONE");
  ProbeScope scope(nullptr, input);
  scope.Tried(Cap::kWriteWithImm, ErrnoStatus(-EINVAL, "ibv_post_send(qp 1, opcode 1)"), "");
  EXPECT_THAT(scope.report().observed[Cap::kWriteWithImm],
              AllOf(Field(&Observation::err, EINVAL), Field(&Observation::detail, HasSubstr("= -EINVAL"))));
  ASSERT_EQ(scope.report().quirks.size(), 1u);
  EXPECT_THAT(scope.report().quirks[0].text, HasSubstr("returned -EINVAL"));
}

}  // namespace
}  // namespace rdmacheck
