// The end-of-test check's own logic (harness/leftover_completions.h): which completions
// found on a CQ after a test are defects, which of them the counts prove a surplus (reported
// even after the test failed), and which CQs are checked at all.
#include "harness/leftover_completions.h"

#include <infiniband/verbs.h>

#include <optional>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

constexpr uint32_t kQp = 17;

ibv_wc Wc(uint64_t wr_id, ibv_wc_opcode opcode, ibv_wc_status status, uint32_t qp_num = kQp) {
  ibv_wc wc{};
  wc.wr_id = wr_id;
  wc.opcode = opcode;
  wc.status = status;
  wc.qp_num = qp_num;
  return wc;
}

// QP 17's queue with `posted` WRs, `polled` of whose completions the test took.
std::optional<CountedQueue> Counted(uint64_t posted, uint64_t polled) { return CountedQueue{kQp, posted, polled}; }
constexpr std::nullopt_t kNoBound = std::nullopt;

// The old rule alone (no bound known): one line per leftover that should not be there.
std::vector<std::string> Unbounded(const std::vector<ibv_wc>& left, bool qp_in_error, const char* where) {
  const LeftoverVerdict verdict = JudgeLeftovers(left, kNoBound, qp_in_error, where);
  EXPECT_THAT(verdict.surplus, IsEmpty()) << "without a bound nothing is proven";
  return verdict.unexpected;
}

TEST(LeftoverCompletionsTest, NothingLeftIsNoProblem) {
  EXPECT_THAT(Unbounded({}, /*qp_in_error=*/false, "the send CQ of QP 17"), IsEmpty());
  const LeftoverVerdict counted = JudgeLeftovers({}, Counted(2, 2), /*qp_in_error=*/false, "the send CQ of QP 17");
  EXPECT_THAT(counted.surplus, IsEmpty());
  EXPECT_THAT(counted.unexpected, IsEmpty());
}

// The misbehaviour the check exists for: the receive delivered twice.
TEST(LeftoverCompletionsTest, ADuplicatedCompletionIsNamedByWrIdOpcodeAndStatus) {
  const std::vector<ibv_wc> left = {Wc(7, IBV_WC_RECV, IBV_WC_SUCCESS)};
  EXPECT_THAT(Unbounded(left, /*qp_in_error=*/false, "the receive CQ of QP 17"),
              ElementsAre(AllOf(HasSubstr("left over on the receive CQ of QP 17"), HasSubstr("wr_id 7"),
                                HasSubstr("IBV_WC_RECV"), HasSubstr("IBV_WC_SUCCESS"))));
}

// Even in Error, a successful completion (or an error other than a flush) is no flush.
TEST(LeftoverCompletionsTest, OnlyFlushesAreExpectedOfAQpInError) {
  const std::vector<ibv_wc> left = {Wc(1, IBV_WC_SEND, IBV_WC_WR_FLUSH_ERR), Wc(2, IBV_WC_SEND, IBV_WC_SUCCESS),
                                    Wc(3, IBV_WC_RDMA_WRITE, IBV_WC_REM_ACCESS_ERR)};
  EXPECT_THAT(Unbounded(left, /*qp_in_error=*/true, "the send CQ of QP 5"),
              ElementsAre(HasSubstr("wr_id 2"), HasSubstr("wr_id 3")));
}

// A flush on the CQ of a QP that is not in Error is a completion nobody asked for.
TEST(LeftoverCompletionsTest, AFlushOfAQpNotInErrorIsAProblem) {
  const std::vector<ibv_wc> left = {Wc(4, IBV_WC_RECV, IBV_WC_WR_FLUSH_ERR)};
  EXPECT_THAT(Unbounded(left, /*qp_in_error=*/false, "the receive CQ of QP 5"),
              ElementsAre(AllOf(HasSubstr("wr_id 4"), HasSubstr("IBV_WC_WR_FLUSH_ERR"))));
}

// A test that posted two receives and took both leaves nothing owed: a third receive
// completion is a surplus, reported even after the test failed (an xfail's expected failure
// must not hide it), naming the counts and the completion.
TEST(LeftoverCompletionsTest, ACompletionBeyondThePostedWorkRequestsIsASurplus) {
  const std::vector<ibv_wc> left = {Wc(7, IBV_WC_RECV, IBV_WC_SUCCESS)};
  const LeftoverVerdict verdict = JudgeLeftovers(left, Counted(2, 2), /*qp_in_error=*/false, "the receive CQ of QP 17");
  EXPECT_THAT(verdict.surplus,
              ElementsAre(AllOf(HasSubstr("more completions than posted work requests: 2 posted, 2 polled during the "
                                          "test, 1 left over on the receive CQ of QP 17"),
                                HasSubstr("wr_id 7, IBV_WC_RECV, IBV_WC_SUCCESS"))));
  EXPECT_THAT(verdict.unexpected, IsEmpty()) << "one line for the queue, not one more per leftover";
}

// Within the bound a leftover proves nothing by itself: a test that failed stopped short of
// polling what it expected. It stays an unexpected leftover (reported only for a test that
// has not failed), never a surplus.
TEST(LeftoverCompletionsTest, LeftoversWithinTheBoundAreNoSurplus) {
  const std::vector<ibv_wc> left = {Wc(3, IBV_WC_SEND, IBV_WC_SUCCESS), Wc(4, IBV_WC_SEND, IBV_WC_SUCCESS)};
  const LeftoverVerdict verdict = JudgeLeftovers(left, Counted(4, 2), /*qp_in_error=*/false, "the send CQ of QP 17");
  EXPECT_THAT(verdict.surplus, IsEmpty());
  EXPECT_THAT(verdict.unexpected, ElementsAre(HasSubstr("wr_id 3"), HasSubstr("wr_id 4")));
}

// The bound counts unsignaled WRs too (they complete when they fail): 3 posted, 1 polled, 2
// flushes of a QP in Error left: legitimate, nothing at all.
TEST(LeftoverCompletionsTest, FlushesWithinTheBoundOfAQpInErrorAreNothing) {
  const std::vector<ibv_wc> left = {Wc(2, IBV_WC_SEND, IBV_WC_WR_FLUSH_ERR), Wc(3, IBV_WC_SEND, IBV_WC_WR_FLUSH_ERR)};
  const LeftoverVerdict verdict = JudgeLeftovers(left, Counted(3, 1), /*qp_in_error=*/true, "the send CQ of QP 17");
  EXPECT_THAT(verdict.surplus, IsEmpty());
  EXPECT_THAT(verdict.unexpected, IsEmpty());
}

// A flush is a completion like any other: one more than the QP had WRs outstanding is a
// surplus, even of a QP in Error.
TEST(LeftoverCompletionsTest, AFlushBeyondTheBoundIsASurplus) {
  const std::vector<ibv_wc> left = {Wc(5, IBV_WC_RECV, IBV_WC_WR_FLUSH_ERR), Wc(5, IBV_WC_RECV, IBV_WC_WR_FLUSH_ERR)};
  const LeftoverVerdict verdict = JudgeLeftovers(left, Counted(2, 1), /*qp_in_error=*/true, "the receive CQ of QP 17");
  EXPECT_THAT(verdict.surplus, ElementsAre(AllOf(HasSubstr("2 posted, 1 polled during the test, 2 left over"),
                                                 HasSubstr("wr_id 5, IBV_WC_RECV, IBV_WC_WR_FLUSH_ERR"))));
}

// The test itself took more completions than it posted: proven, though nothing is left.
TEST(LeftoverCompletionsTest, MorePolledThanPostedIsASurplusWithNothingLeft) {
  const LeftoverVerdict verdict = JudgeLeftovers({}, Counted(1, 2), /*qp_in_error=*/false, "the send CQ of QP 17");
  EXPECT_THAT(verdict.surplus, ElementsAre(HasSubstr("1 posted, 2 polled during the test, 0 left over")));
}

// The bound is the endpoint's QP's: a completion of another QP on the same CQ (a QP a test
// made on the endpoint's CQ) is judged by the old rule, whatever the counts.
TEST(LeftoverCompletionsTest, AnotherQpsCompletionIsJudgedWithoutTheBound) {
  const std::vector<ibv_wc> left = {Wc(9, IBV_WC_SEND, IBV_WC_SUCCESS, /*qp_num=*/18),
                                    Wc(10, IBV_WC_SEND, IBV_WC_WR_FLUSH_ERR, /*qp_num=*/18)};
  const LeftoverVerdict verdict = JudgeLeftovers(left, Counted(0, 0), /*qp_in_error=*/true, "the send CQ of QP 17");
  EXPECT_THAT(verdict.surplus, IsEmpty());
  EXPECT_THAT(verdict.unexpected, ElementsAre(AllOf(HasSubstr("wr_id 9"), Not(HasSubstr("more completions")))));
}

// No bound known (a QP posted to uncounted, an endpoint without a QP): the old rule, so a
// duplicated completion fails only a test that has not failed, and never a correct device.
TEST(LeftoverCompletionsTest, WithoutABoundTheOldRuleStays) {
  const std::vector<ibv_wc> left = {Wc(7, IBV_WC_RECV, IBV_WC_SUCCESS), Wc(8, IBV_WC_RECV, IBV_WC_WR_FLUSH_ERR)};
  const LeftoverVerdict verdict = JudgeLeftovers(left, kNoBound, /*qp_in_error=*/true, "the receive CQ of QP 17");
  EXPECT_THAT(verdict.surplus, IsEmpty());
  EXPECT_THAT(verdict.unexpected, ElementsAre(AllOf(HasSubstr("a completion was left over on the receive CQ of QP 17"),
                                                    HasSubstr("wr_id 7"))));
}

TEST(LeftoverCompletionsTest, PolledCompletionsAreCountedPerCqAndQp) {
  ibv_cq a{}, b{};
  ForgetPolled(&a);
  ForgetPolled(&b);
  const std::vector<ibv_wc> polled = {Wc(1, IBV_WC_SEND, IBV_WC_SUCCESS, 17), Wc(2, IBV_WC_SEND, IBV_WC_SUCCESS, 17),
                                      Wc(3, IBV_WC_SEND, IBV_WC_SUCCESS, 18)};
  CountPolled(&a, polled);
  CountPolled(&b, {polled.data(), 1});
  EXPECT_EQ(PolledFrom(&a, 17), 2u);
  EXPECT_EQ(PolledFrom(&a, 18), 1u);
  EXPECT_EQ(PolledFrom(&a, 19), 0u);
  EXPECT_EQ(PolledFrom(&b, 17), 1u);
  ForgetPolled(&a);  // a new CQ at a's address starts from nothing
  EXPECT_EQ(PolledFrom(&a, 17), 0u);
  EXPECT_EQ(PolledFrom(&a, 18), 0u);
  EXPECT_EQ(PolledFrom(&b, 17), 1u);
  ForgetPolled(&b);
}

TEST(LeftoverCompletionsTest, OnlyPolledCqsAreRemembered) {
  ibv_cq a{}, b{};
  ForgetPolled(&a);
  ForgetPolled(&b);
  MarkPolled(&a);
  EXPECT_TRUE(WasPolled(&a));
  EXPECT_FALSE(WasPolled(&b));
  ForgetPolled(&a);
  EXPECT_FALSE(WasPolled(&a));
  // Marked again after being forgotten (a new CQ at the same address): remembered again,
  // although this thread marked the same address last.
  MarkPolled(&a);
  EXPECT_TRUE(WasPolled(&a));
  ForgetPolled(&a);
}

}  // namespace
}  // namespace rdmacheck
