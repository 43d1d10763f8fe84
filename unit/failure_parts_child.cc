// A GoogleTest process that reports through the runner's event writer (runner/events.h), as
// `rdmacheck __child` does, for unit/failure_parts_test.cc: its tests fail the ways a device
// test can, so that test reads the messages the runner really writes, not a hand-made join.
// OutsideTests fails outside its test, for unit/child_exit_test.cc.
//
//   rdmacheck_failure_parts_child EVENTS_FILE --gtest_filter=RunnerMessages.*
//   (exits as __child does, ChildExitAfterTests: 0 here, the failures are the tests')
#include <stdexcept>

#include "gtest/gtest.h"
#include "runner/events.h"

namespace {

// Not constants, so the compiler cannot see the outcome.
volatile int active_mtu = 4096;
volatile int byte_3 = 0x00;

int Mtu() { return active_mtu; }
int Byte3() { return byte_3; }

// GoogleTest appends the trace lines to the failure under a SCOPED_TRACE, with no newline
// after the last one; the next failure follows it in the runner's message.
TEST(RunnerMessages, TracedThenAnother) {
  {
    SCOPED_TRACE("port 1 of rxe0");
    EXPECT_EQ(Mtu(), 1024) << "active_mtu is 4096, want 1024";
  }
  EXPECT_EQ(Byte3(), 0x5a) << "byte 3 is 0x00, want 0x5a";
}

TEST(RunnerMessages, TracedOnly) {
  SCOPED_TRACE("port 1 of rxe0");
  EXPECT_EQ(Mtu(), 1024) << "active_mtu is 4096, want 1024";
}

// An exception's failure has no source location.
TEST(RunnerMessages, FailsThenThrows) {
  EXPECT_EQ(Mtu(), 1024) << "active_mtu is 4096, want 1024";
  throw std::runtime_error("ibv_post_send: ENOMEM");
}

// Its test passes; its TearDownTestSuite fails, where no test's result can carry it.
class OutsideTests : public ::testing::Test {
 public:
  static void TearDownTestSuite() { ADD_FAILURE() << "TearDownTestSuite: ibv_dealloc_pd: EBUSY"; }
};

TEST_F(OutsideTests, Passes) {}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc != 2) return 2;
  ::testing::UnitTest::GetInstance()->listeners().Append(rdmacheck::MakeEventWriter(argv[1]).release());
  return rdmacheck::ChildExitAfterTests(RUN_ALL_TESTS(), *::testing::UnitTest::GetInstance());
}
