// The end-of-test check's own logic (harness/leftover_completions.h): which completions
// found on a CQ after a test are defects, and which CQs are checked at all.
#include "harness/leftover_completions.h"

#include <infiniband/verbs.h>

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

ibv_wc Wc(uint64_t wr_id, ibv_wc_opcode opcode, ibv_wc_status status) {
  ibv_wc wc{};
  wc.wr_id = wr_id;
  wc.opcode = opcode;
  wc.status = status;
  return wc;
}

TEST(LeftoverCompletionsTest, NothingLeftIsNoProblem) {
  EXPECT_THAT(JudgeLeftovers({}, /*qp_in_error=*/false, "the send CQ of QP 17"), IsEmpty());
}

// The misbehaviour the check exists for: the receive delivered twice.
TEST(LeftoverCompletionsTest, ADuplicatedCompletionIsNamedByWrIdOpcodeAndStatus) {
  const std::vector<ibv_wc> left = {Wc(7, IBV_WC_RECV, IBV_WC_SUCCESS)};
  EXPECT_THAT(JudgeLeftovers(left, /*qp_in_error=*/false, "the receive CQ of QP 17"),
              ElementsAre(AllOf(HasSubstr("left over on the receive CQ of QP 17"), HasSubstr("wr_id 7"),
                                HasSubstr("IBV_WC_RECV"), HasSubstr("IBV_WC_SUCCESS"))));
}

// Even in Error, a successful completion (or an error other than a flush) is no flush.
TEST(LeftoverCompletionsTest, OnlyFlushesAreExpectedOfAQpInError) {
  const std::vector<ibv_wc> left = {Wc(1, IBV_WC_SEND, IBV_WC_WR_FLUSH_ERR), Wc(2, IBV_WC_SEND, IBV_WC_SUCCESS),
                                    Wc(3, IBV_WC_RDMA_WRITE, IBV_WC_REM_ACCESS_ERR)};
  EXPECT_THAT(JudgeLeftovers(left, /*qp_in_error=*/true, "the send CQ of QP 5"),
              ElementsAre(HasSubstr("wr_id 2"), HasSubstr("wr_id 3")));
}

// A flush on the CQ of a QP that is not in Error is a completion nobody asked for.
TEST(LeftoverCompletionsTest, AFlushOfAQpNotInErrorIsAProblem) {
  const std::vector<ibv_wc> left = {Wc(4, IBV_WC_RECV, IBV_WC_WR_FLUSH_ERR)};
  EXPECT_THAT(JudgeLeftovers(left, /*qp_in_error=*/false, "the receive CQ of QP 5"),
              ElementsAre(AllOf(HasSubstr("wr_id 4"), HasSubstr("IBV_WC_WR_FLUSH_ERR"))));
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
