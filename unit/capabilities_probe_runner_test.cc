// The probe isolation: a probe that crashes, hangs or says nothing marks its capabilities
// broken with what happened, and the parent carries on.
#include "capabilities/probes/probe_runner.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>

#include "capabilities/probes/refusal.h"
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

// Issue 30.1: only a refusal up front is absence. A WRITE_WITH_IMM that the device accepts
// and then completes in error is broken (its tests run and fail), never unsupported.
TEST(ProbeScopeTest, AnAcceptedRequestThatCompletesInErrorIsBrokenNotUnsupported) {
  ProbeInput input = DeclaringAtomics("NONE");  // nothing declared about WRITE_WITH_IMM
  ProbeScope scope(nullptr, input);
  scope.Tried(Cap::kWriteWithImm,
              absl::AbortedError("RDMA WRITE with immediate completed with status=IBV_WC_REM_INV_REQ_ERR"), "");
  scope.Tried(Cap::kSendWithImm, absl::DeadlineExceededError("timed out after 5s waiting for 1 completion"), "");
  scope.Tried(Cap::kRdmaRead, absl::DataLossError("RDMA READ: the data that arrived differs"), "");
  scope.Tried(Cap::kQpEx, ErrnoStatus(EINVAL, "SEND: ibv_poll_cq"), "");  // after acceptance
  scope.Tried(Cap::kCqEx, ErrnoStatus(ENOMEM, "ibv_create_cq_ex"), "");  // not how absence is said
  for (Cap cap : {Cap::kWriteWithImm, Cap::kSendWithImm, Cap::kRdmaRead, Cap::kQpEx, Cap::kCqEx}) {
    EXPECT_THAT(scope.report().observed[cap],
                AllOf(Field(&Observation::outcome, Outcome::kBroken),
                      Field(&Observation::detail, HasSubstr("accepted, then failed: "))))
        << CapName(cap);
  }
}

TEST(ProbeScopeTest, TheVerbRefusingUpFrontIsUnsupported) {
  ProbeInput input = DeclaringAtomics("NONE");
  ProbeScope scope(nullptr, input);
  scope.Tried(Cap::kWriteWithImm, ErrnoStatus(EINVAL, "ibv_post_send(opcode RDMA_WRITE_WITH_IMM)"), "");
  scope.Tried(Cap::kXrc, ErrnoStatus(ENOSYS, "ibv_open_xrcd"), "");
  scope.Tried(Cap::kUcQp, ErrnoStatus(EPROTONOSUPPORT, "ibv_create_qp(UC)"), "");
  for (Cap cap : {Cap::kWriteWithImm, Cap::kXrc, Cap::kUcQp}) {
    EXPECT_THAT(scope.report().observed[cap], AllOf(Field(&Observation::outcome, Outcome::kUnsupported),
                                                    Field(&Observation::detail, HasSubstr("refused: "))))
        << CapName(cap);
  }
}

// Issue 35.1: only the verb that names the capability may say it is absent. A refusal
// from another step of the attempt (the receive posted first, the PD or CQ, a hand-wired
// RC QP's RTR) is that step failing on a device that has the feature.
TEST(ProbeScopeTest, ARefusalFromAnotherStepOfTheAttemptIsBroken) {
  ProbeInput input = DeclaringAtomics("NONE");
  ProbeScope scope(nullptr, input);
  scope.Tried(Cap::kWriteWithImm, ErrnoStatus(EINVAL, "ibv_post_recv(qp 18)"), "");
  scope.Tried(Cap::kUdQp, ErrnoStatus(EINVAL, "ibv_create_cq(cqe=16, comp_vector=0)"), "");
  scope.Tried(Cap::kUcQp, ErrnoStatus(EOPNOTSUPP, "ibv_alloc_pd"), "");
  scope.Tried(Cap::kManualConnect, ErrnoStatus(EINVAL, "ibv_modify_qp(qp 17 to RTR, mask 0x1f81)"), "");
  scope.Tried(Cap::kRdmaCm, ErrnoStatus(EINVAL, "rdma_accept"), "");
  scope.Tried(Cap::kMulticast, ErrnoStatus(EINVAL, "a UD QP (multicast needs one): ibv_create_qp(type=4)"), "");
  scope.Tried(Cap::kQpStateQuery, ErrnoStatus(EINVAL, "ibv_modify_qp(qp 3 to INIT, mask 0x39)"), "");
  scope.Tried(Cap::kQpEx, ErrnoStatus(EINVAL, "ibv_create_qp_ex(type 2)"), "");  // no send_ops_flags asked
  for (Cap cap : {Cap::kWriteWithImm, Cap::kUdQp, Cap::kUcQp, Cap::kManualConnect, Cap::kRdmaCm, Cap::kMulticast,
                  Cap::kQpStateQuery, Cap::kQpEx}) {
    EXPECT_THAT(scope.report().observed[cap], Field(&Observation::outcome, Outcome::kBroken)) << CapName(cap);
  }
}

TEST(ProbeScopeTest, EachCapabilityIsRefusedOnlyByItsOwnVerb) {
  EXPECT_TRUE(IsRefusal(ErrnoStatus(EINVAL, "ibv_modify_qp(qp 5 to RTR, mask 0x1f81)"), Cap::kMtu4096));
  EXPECT_FALSE(IsRefusal(ErrnoStatus(EINVAL, "ibv_modify_qp(qp 5 to INIT, mask 0x39)"), Cap::kMtu4096));
  EXPECT_TRUE(IsRefusal(ErrnoStatus(EOPNOTSUPP, "ibv_create_qp(type=3)"), Cap::kUdQp));
  EXPECT_FALSE(IsRefusal(ErrnoStatus(EOPNOTSUPP, "ibv_create_qp_ex(type=3)"), Cap::kUdQp));  // another verb
  EXPECT_FALSE(IsRefusal(ErrnoStatus(ENOMEM, "ibv_create_qp(RC)"), Cap::kInlineData));       // not a refusal
  EXPECT_TRUE(IsRefusal(ErrnoStatus(EINVAL, "ibv_create_qp(RC)"), Cap::kInlineData));
  EXPECT_TRUE(IsRefusal(ErrnoStatus(EINVAL, "ibv_create_qp_ex(XRC_SEND)"), Cap::kXrc));
  EXPECT_FALSE(IsRefusal(ErrnoStatus(EINVAL, "ibv_post_send(qp 9, opcode 0)"), Cap::kRnrRetry));  // none names it
  EXPECT_TRUE(NamingVerbs(Cap::kManualConnect).empty());  // IB/RoCE must wire; iWARP never does (a transport rule)
}

TEST(ProbeScopeTest, DeclaredAbsentStaysUnsupportedWhateverTheFailure) {
  ProbeInput input = DeclaringAtomics("NONE");
  ProbeScope scope(nullptr, input);
  scope.Tried(Cap::kAtomics, absl::AbortedError("CAS completed with status=IBV_WC_REM_INV_REQ_ERR"), "");
  EXPECT_THAT(scope.report().observed[Cap::kAtomics],
              AllOf(Field(&Observation::outcome, Outcome::kUnsupported),
                    Field(&Observation::detail, HasSubstr("not declared (atomic_cap=NONE)"))));
}

}  // namespace
}  // namespace rdmacheck
