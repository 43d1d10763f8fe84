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

// A crash after a refused destroy names it: a provider that tore its half of the object down
// before the kernel said EBUSY (libsiw's siw_destroy_cq) kills its caller later, maybe in a
// call on another object.
TEST(WalkIsolatedTest, ACrashNamesTheRefusedDestroyBeforeIt) {
  absl::StatusOr<WalkResult> r = RunIsolated(
      NoDevice(),
      [](ibv_context*, const Selection&, WalkObserver& o) {
        o.Started(Traits{});
        Action create;
        create.op = Op::kCreateCq;
        create.id = 13;
        o.Step({create, "success"}, {});
        Action destroy;
        destroy.op = Op::kDestroy;
        destroy.obj = 13;
        o.Step({destroy, "EBUSY"}, {});
        Action poll;
        poll.op = Op::kPoll;
        poll.cq = 17;
        o.Begin(3, poll);
        raise(SIGSEGV);
        return WalkResult{};
      },
      absl::Seconds(30));
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->findings.size(), 1u);
  EXPECT_EQ(r->findings[0].message,
            "the walk's process was killed by signal 11 (SEGV); refused destroys before it: cq#13 at step 2");
  EXPECT_EQ(r->findings[0].signature, "killed by SEGV in poll");
}

// What the parent watches (the kernel log, in the CLI) lands on the step just done, and on
// the teardown and the exit.
TEST(WalkIsolatedTest, TheWatchsFindingsLandOnTheStepJustDone) {
  int calls = 0;
  const StepWatch watch = [&calls]() -> std::vector<Finding> {
    ++calls;
    if (calls != 2) return {};
    return {{0, "", "the kernel logged: WARNING: CPU: 0 PID: 9 at x.c:1 f", "kernel: WARNING: at x.c:1 f"}};
  };
  absl::StatusOr<WalkResult> r = RunIsolated(
      NoDevice(),
      [](ibv_context*, const Selection&, WalkObserver& o) {
        o.Started(Traits{});
        for (int step = 1; step <= 3; ++step) {
          o.Begin(step, Post(step));
          o.Step({Post(step), "success"}, {});
        }
        o.Teardown();
        o.Finished({});
        return WalkResult{};
      },
      absl::Seconds(30), watch);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(calls, 5);  // three steps, the teardown, the exit
  ASSERT_EQ(r->findings.size(), 1u);
  EXPECT_EQ(r->findings[0].step, 2);
  EXPECT_EQ(r->findings[0].action, Describe(Post(2)));
  EXPECT_EQ(r->findings[0].signature, "kernel: WARNING: at x.c:1 f");
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
