// What `rdmacheck walk` found, kept as regression tests: each row is the shrunk action list
// of a finding (its walk-min.json, docs/walk.md), replayed on the device against the walk's
// model (walk/walk.h ReplayWalk) in a child process (walk/isolated.h), so a provider that
// kills its caller fails the row instead of ending the suite. A row passes when the replay
// shows no finding: every call answered as the model allows, every WR completed once, every
// object destroyed at the end. A device with the bug fails the row with the walk's own
// words, and its expectation entry (by the row's name) says why.
//
// To add a finding: shrink it (`rdmacheck walk ... --shrink_runs=N`), copy the actions of
// walk-min.json into a row, name the row for what it does, not for the device that broke.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "harness/device.h"
#include "harness/selection_flags.h"
#include "nlohmann/json.hpp"
#include "testing/device_test.h"
#include "walk/isolated.h"
#include "walk/walk.h"

namespace rdmacheck {
namespace {

struct Replay {
  const char* name;
  const char* found;    // where the walk found it
  const char* actions;  // walk-min.json's "actions" (outcomes are not read)
};

const Replay kReplays[] = {
    {"CqDestroyRefusedThenPolled",
     "siw0 seed 1 and 3 (6.1, rdma-core 44): killed by SEGV in poll after the CQ's refused destroy",
     R"([{"op": "create_pd", "id": 1}, {"op": "create_cq", "id": 2},
         {"op": "create_qp", "id": 3, "pd": 1, "cq": 2, "srq": -1, "type": "RC"},
         {"op": "destroy", "obj": 2}, {"op": "poll", "cq": 2}])"},
    {"CqDestroyRefusedTwiceThenAnotherCqPolled",
     "siw0 seed 4 (6.1, rdma-core 44): cq#17, created after cq#13's first refused destroy, killed its poller after "
     "cq#13's second",
     R"([{"op": "create_pd", "id": 1}, {"op": "create_cq", "id": 2},
         {"op": "create_qp", "id": 3, "pd": 1, "cq": 2, "srq": -1, "type": "RC"},
         {"op": "destroy", "obj": 2}, {"op": "create_cq", "id": 4}, {"op": "destroy", "obj": 2},
         {"op": "poll", "cq": 4}])"},
    {"RcQpResetToSqeIsRefused",
     "siw0 seed 1 (6.1): RESET->SQE accepted, the state read back RESET",
     R"([{"op": "create_pd", "id": 1}, {"op": "create_cq", "id": 2},
         {"op": "create_qp", "id": 3, "pd": 1, "cq": 2, "srq": -1, "type": "RC"},
         {"op": "modify_qp", "qp": 3, "to": "SQE"}])"},
};

class WalkReplayTest : public DeviceTest, public ::testing::WithParamInterface<Replay> {};

RDMACHECK_ABOUT(WalkReplayTest, ShowsNoFinding,
                "the action list of a finding of `rdmacheck walk`, replayed: each call answers as the walk's model "
                "allows (an object in use is not destroyed: EBUSY, and stays usable; an illegal QP move fails with "
                "EINVAL and keeps the state), and no call kills the caller",
                "ibv_create_cq(3) ibv_destroy_cq (EBUSY); ibv_modify_qp(3); IBTA Vol 1 10.3.1, 11.2.5.2 (QP state "
                "table), 11.2.7.3 (Destroy CQ); docs/walk.md");
TEST_P(WalkReplayTest, ShowsNoFinding) {
  const nlohmann::json list = nlohmann::json::parse(GetParam().actions);
  std::vector<walk::Action> actions;
  for (const nlohmann::json& a : list) {
    absl::StatusOr<walk::Action> action = walk::ActionFromJson(a);
    ASSERT_TRUE(action.ok()) << action.status();
    actions.push_back(*action);
  }
  const Selection chosen = selection();
  const walk::DeviceOpener open = [chosen]() -> absl::StatusOr<SelectedDevice> {
    absl::StatusOr<ContextPtr> context = OpenDevice(chosen.device);
    if (!context.ok()) return context.status();
    return SelectedDevice{*std::move(context), chosen};
  };
  absl::StatusOr<walk::WalkResult> replayed = walk::RunIsolated(
      open,
      [&](ibv_context* context, const Selection& s, walk::WalkObserver& observer) {
        return walk::ReplayWalk(context, s, actions, &observer);
      },
      walk::StepBound());
  ASSERT_TRUE(replayed.ok()) << replayed.status();
  for (const walk::Finding& f : replayed->findings) {
    ADD_FAILURE() << "step " << f.step << " (" << f.action << "): " << f.message << " [found: " << GetParam().found
                  << "]";
  }
}

INSTANTIATE_TEST_SUITE_P(Replays, WalkReplayTest, ::testing::ValuesIn(kReplays),
                         [](const ::testing::TestParamInfo<Replay>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace rdmacheck
