// walk/isolated.h: a walk in a child process. No device here: the bodies below play the
// child's part (they tell the observer what a walk would, then crash, hang or finish), and
// the opener hands them no context.
#include "walk/isolated.h"

#include <signal.h>
#include <unistd.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck::walk {
namespace {

using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;

DeviceOpener NoDevice() {
  return [] { return absl::StatusOr<SelectedDevice>(SelectedDevice{}); };
}

Action Post(int qp) {
  Action a;
  a.op = Op::kPostSend;
  a.qp = qp;
  return a;
}

// Two steps told, the second begun and never finished.
WalkResult TwoStepsThenTheSecondBegins(WalkObserver& o) {
  o.Started(Traits{});
  o.Begin(1, Post(1));
  o.Step({Post(1), "success"}, {});
  o.Begin(2, Post(2));
  return {};
}

TEST(WalkIsolatedTest, ACrashIsAFindingAtTheStepItHappenedIn) {
  absl::StatusOr<WalkResult> r = RunIsolated(
      NoDevice(),
      [](ibv_context*, const Selection&, WalkObserver& o) {
        TwoStepsThenTheSecondBegins(o);
        raise(SIGSEGV);
        return WalkResult{};
      },
      absl::Seconds(30));
  ASSERT_TRUE(r.ok()) << r.status();
  // The crashing step is kept, so walk.json replays it.
  EXPECT_THAT(r->steps, ElementsAre(Field(&StepRecord::outcome, "success"),
                                    Field(&StepRecord::outcome, HasSubstr("killed by signal 11 (SEGV)"))));
  ASSERT_EQ(r->findings.size(), 1u);
  EXPECT_EQ(r->findings[0].step, 2);
  EXPECT_EQ(r->findings[0].signature, "killed by SEGV in post_send");
}

TEST(WalkIsolatedTest, AStepThatNeverReturnsIsAFinding) {
  absl::StatusOr<WalkResult> r = RunIsolated(
      NoDevice(),
      [](ibv_context*, const Selection&, WalkObserver& o) {
        TwoStepsThenTheSecondBegins(o);
        pause();  // a call stuck for good
        return WalkResult{};
      },
      absl::Milliseconds(300));
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->findings.size(), 1u);
  EXPECT_EQ(r->findings[0].step, 2);
  EXPECT_THAT(r->findings[0].message, HasSubstr("did not return within 300ms"));
  EXPECT_EQ(r->findings[0].signature, "hang in post_send");
}

TEST(WalkIsolatedTest, AFinishedWalkIsRebuiltFromItsStream) {
  absl::StatusOr<WalkResult> r = RunIsolated(
      NoDevice(),
      [](ibv_context*, const Selection&, WalkObserver& o) {
        o.Started(Traits{});
        o.Begin(1, Post(1));
        const Finding found{1, "post_send", "accepted, expected EINVAL", "post_send: success instead of EINVAL"};
        o.Step({Post(1), "success"}, {&found, 1});
        o.Teardown();
        const Finding leak{0, "teardown", "destroy failed", "teardown: destroy qp: EBUSY"};
        o.Finished({&leak, 1});
        return WalkResult{};
      },
      absl::Seconds(30));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->steps.size(), 1u);
  EXPECT_THAT(r->findings, ElementsAre(Field(&Finding::signature, "post_send: success instead of EINVAL"),
                                       Field(&Finding::signature, "teardown: destroy qp: EBUSY")));
}

TEST(WalkIsolatedTest, ADeviceThatCannotBeOpenedIsAnError) {
  absl::StatusOr<WalkResult> r = RunIsolated(
      [] { return absl::StatusOr<SelectedDevice>(absl::NotFoundError("no RDMA device 'mlx9'")); },
      [](ibv_context*, const Selection&, WalkObserver&) { return WalkResult{}; }, absl::Seconds(30));
  EXPECT_EQ(r.status().code(), absl::StatusCode::kAborted);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("no RDMA device 'mlx9'"));
}

}  // namespace
}  // namespace rdmacheck::walk
