// FailureLine (results/failure_line.h): the one line of a failed test's message that a drain
// reason or a fleet report row shows.
#include "results/failure_line.h"

#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

// The Slurm lab's broken node: the matcher's explanation names the deviating value.
TEST(FailureLineTest, AMatcherExplanationFollowsTheFailedAssertion) {
  const std::string message =
      "/work/x/suites/datapath/rc_send_test.cc:176: Value of: recvs[i]\n"
      "Expected: is the expected work completion\n"
      "  Actual: 48-byte object <00-00 01-00> (of type ibv_wc), wc{status=IBV_WC_SUCCESS opcode=IBV_WC_RECV "
      "byte_len=2}: byte_len is 2, expected 1\n"
      "message 0\n"
      "/work/x/suites/datapath/rc_send_test.cc:176: Value of: recvs[i]\n";
  EXPECT_EQ(FailureLine(message), "Value of: recvs[i]: byte_len is 2, expected 1");
}

TEST(FailureLineTest, WithoutAnExplanationTheFirstLineWithoutItsLocation) {
  EXPECT_EQ(FailureLine("a/b_test.cc:12: Expected equality of these values:\n  x\n    Which is: 1\n  y\n"),
            "Expected equality of these values:");
  EXPECT_EQ(FailureLine("a/b_test.cc:12: Value of: ok\n  Actual: false\nExpected: true"), "Value of: ok");
  EXPECT_EQ(FailureLine("the child crashed: SIGSEGV"), "the child crashed: SIGSEGV") << "no location: unchanged";
  EXPECT_EQ(FailureLine(""), "");
}

TEST(FailureLineTest, AnExplanationOfALaterFailureIsNotTaken) {
  EXPECT_EQ(FailureLine("a.cc:1: Failure\nb.cc:2: Value of: v\n  Actual: 3, wc{}: later\n"), "Failure");
}

TEST(FailureLineTest, LongLinesAreCut) {
  EXPECT_EQ(FailureLine(std::string(300, 'x'), 20), std::string(17, 'x') + "...");
}

}  // namespace
}  // namespace rdmacheck
