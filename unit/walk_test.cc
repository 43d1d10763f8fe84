// `rdmacheck walk` without a device: the generator's determinism per seed, the model's
// predictions, the action format, the ledger's rules and the shrinker (walk/).
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <set>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "walk/action.h"
#include "walk/generator.h"
#include "walk/ledger.h"
#include "walk/model.h"
#include "walk/shrink.h"
#include "walk/walk.h"

namespace rdmacheck::walk {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

Action Create(Op op, int id, int pd = -1) {
  Action a;
  a.op = op;
  a.id = id;
  a.pd = pd;
  return a;
}

Action CreateQp(int id, int pd, int cq, ibv_qp_type type = IBV_QPT_RC, int srq = -1) {
  Action a = Create(Op::kCreateQp, id, pd);
  a.cq = cq;
  a.qp_type = type;
  a.srq = srq;
  return a;
}

Action Destroy(int obj) {
  Action a;
  a.op = Op::kDestroy;
  a.obj = obj;
  return a;
}

Action Modify(int qp, ibv_qp_state to) {
  Action a;
  a.op = Op::kModifyQp;
  a.qp = qp;
  a.to = to;
  return a;
}

// Applies `a` with the answer the model predicts, as the dry run does.
Prediction Step(Model& model, const Action& a) {
  Prediction p = model.Predict(a);
  if (p.runnable) {
    Outcome o;
    o.err = p.Canonical();
    model.Apply(a, o);
  }
  return p;
}

TEST(WalkGeneratorTest, SameSeedGivesTheSameActions) {
  const std::vector<Action> a = GenerateDryRun(42, 500, DefaultWeights(), Traits());
  const std::vector<Action> b = GenerateDryRun(42, 500, DefaultWeights(), Traits());
  ASSERT_EQ(a.size(), 500u);
  EXPECT_TRUE(a == b);
  EXPECT_FALSE(a == GenerateDryRun(43, 500, DefaultWeights(), Traits()));
}

// The same seed makes the same walk in every process, not only twice in one: these are
// seed 1's first actions in this build (absl::BitGen salted its seed per process, and this
// list then changed from run to run).
TEST(WalkGeneratorTest, SeedOneStartsTheSameInEveryProcess) {
  std::vector<std::string> first;
  for (const Action& a : GenerateDryRun(1, 6, DefaultWeights(), Traits())) first.push_back(Describe(a));
  EXPECT_THAT(first, ElementsAre("create_pd #1", "reg_mr #2 pd#1", "destroy #1", "reg_mr #3 pd#1", "reg_mr #4 pd#1",
                                 "destroy #1"));
}

TEST(WalkGeneratorTest, EveryActionIsRunnableAndEveryOpOccurs) {
  Model model;
  std::set<Op> ops;
  std::set<Variant> variants;
  for (const Action& a : GenerateDryRun(7, 3000, DefaultWeights(), Traits())) {
    Prediction p = model.Predict(a);
    ASSERT_TRUE(p.runnable) << Describe(a) << ": " << p.skip_reason;
    Outcome o;
    o.err = p.Canonical();
    if (a.op == Op::kPostSend && a.variant == Variant::kBadLkey) o.errored_qps = {a.qp, model.Find(a.qp)->peer};
    if (a.op == Op::kModifyQp && a.to == IBV_QPS_ERR && model.Find(a.qp)->peer >= 0) {
      o.errored_qps = {model.Find(a.qp)->peer};
    }
    if (a.op == Op::kDestroy && model.Find(a.obj)->kind == Kind::kQp && model.Find(a.obj)->peer >= 0 && o.err == 0) {
      o.errored_qps = {model.Find(a.obj)->peer};
    }
    model.Apply(a, o);
    ops.insert(a.op);
    if (a.op == Op::kPostSend) variants.insert(a.variant);
  }
  EXPECT_EQ(ops.size(), 12u);
  EXPECT_EQ(variants.size(), 3u);
}

TEST(WalkGeneratorTest, IwarpGetsNoUdNoAhNoConnect) {
  Traits iwarp;
  iwarp.ud = iwarp.ah = iwarp.manual_connect = false;
  for (const Action& a : GenerateDryRun(3, 2000, DefaultWeights(), iwarp)) {
    EXPECT_NE(a.op, Op::kCreateAh);
    EXPECT_NE(a.op, Op::kConnect);
    if (a.op == Op::kCreateQp) {
      EXPECT_EQ(a.qp_type, IBV_QPT_RC);
    }
  }
}

TEST(WalkModelTest, ParentWithChildrenIsPredictedEbusy) {
  Model model;
  Step(model, Create(Op::kCreatePd, 1));
  Step(model, Create(Op::kCreateCq, 2));
  Step(model, Create(Op::kRegMr, 3, 1));
  Step(model, Create(Op::kCreateSrq, 4, 1));
  Step(model, CreateQp(5, 1, 2, IBV_QPT_RC, 4));

  for (int parent : {1, 2, 4}) {
    Prediction p = model.Predict(Destroy(parent));
    EXPECT_FALSE(p.success) << "#" << parent;
    EXPECT_THAT(p.errnos, ElementsAre(EBUSY)) << "#" << parent;
  }
  // EBUSY leaves the object: it is still there to be destroyed later.
  Step(model, Destroy(1));
  EXPECT_TRUE(model.Find(1)->alive);

  EXPECT_TRUE(Step(model, Destroy(5)).success);  // the QP: a leaf
  EXPECT_TRUE(model.Predict(Destroy(2)).success);
  EXPECT_TRUE(model.Predict(Destroy(4)).success);
  EXPECT_THAT(model.Predict(Destroy(1)).errnos, ElementsAre(EBUSY));  // the MR and the SRQ still use it
  Step(model, Destroy(3));
  Step(model, Destroy(4));
  EXPECT_TRUE(model.Predict(Destroy(1)).success);
}

TEST(WalkModelTest, AnAhKeepsItsPdBusy) {
  Model model;
  Step(model, Create(Op::kCreatePd, 1));
  Step(model, Create(Op::kCreateAh, 2, 1));
  EXPECT_THAT(model.Predict(Destroy(1)).errnos, ElementsAre(EBUSY));
}

TEST(WalkModelTest, IllegalTransitionIsEinvalAndKeepsTheState) {
  Model model;
  Step(model, Create(Op::kCreatePd, 1));
  Step(model, Create(Op::kCreateCq, 2));
  Step(model, CreateQp(3, 1, 2));
  Prediction p = Step(model, Modify(3, IBV_QPS_RTS));  // RESET -> RTS: not in the table
  EXPECT_FALSE(p.success);
  EXPECT_THAT(p.errnos, ElementsAre(EINVAL));
  EXPECT_EQ(model.Find(3)->state, IBV_QPS_RESET);
  EXPECT_TRUE(Step(model, Modify(3, IBV_QPS_INIT)).success);
  EXPECT_EQ(model.Find(3)->state, IBV_QPS_INIT);
  EXPECT_FALSE(model.Predict(Modify(3, IBV_QPS_SQE)).success);  // RC has no SQE
  EXPECT_TRUE(model.Predict(Modify(3, IBV_QPS_ERR)).success);
}

TEST(WalkModelTest, PostsOnAConnectedPair) {
  Model model;
  Step(model, Create(Op::kCreatePd, 1));
  Step(model, Create(Op::kCreateCq, 2));
  Step(model, Create(Op::kRegMr, 3, 1));
  Step(model, CreateQp(4, 1, 2));
  Step(model, CreateQp(5, 1, 2));
  Action send;
  send.op = Op::kPostSend;
  send.qp = 4;
  send.mr = 3;
  send.length = 64;
  EXPECT_FALSE(model.Predict(send).runnable);  // not connected yet

  Action connect;
  connect.op = Op::kConnect;
  connect.qp = 4;
  connect.peer = 5;
  EXPECT_TRUE(Step(model, connect).success);
  EXPECT_EQ(model.Find(4)->peer, 5);
  EXPECT_TRUE(model.Predict(send).success);
  send.variant = Variant::kTooManySge;
  EXPECT_FALSE(model.Predict(send).success);
  EXPECT_THAT(model.Predict(send).errnos, UnorderedElementsAre(EINVAL, ENOMEM));
  send.variant = Variant::kBadLkey;
  EXPECT_TRUE(model.Predict(send).Allows(0));
  EXPECT_TRUE(model.Predict(send).Allows(EINVAL));

  // A connected QP moves only to ERR (with its peer) or along a move that must be refused.
  EXPECT_FALSE(model.Predict(Modify(4, IBV_QPS_SQD)).runnable);
  EXPECT_THAT(model.Predict(Modify(4, IBV_QPS_INIT)).errnos, ElementsAre(EINVAL));
  Outcome broken;
  broken.errored_qps = {5};
  model.Apply(Modify(4, IBV_QPS_ERR), broken);
  EXPECT_EQ(model.Find(4)->state, IBV_QPS_ERR);
  EXPECT_EQ(model.Find(5)->state, IBV_QPS_ERR);
  EXPECT_EQ(model.Find(4)->peer, -1);
}

TEST(WalkModelTest, ActionsOnObjectsNeverCreatedAreSkipped) {
  Model model;
  EXPECT_FALSE(model.Predict(Destroy(9)).runnable);
  EXPECT_FALSE(model.Predict(Create(Op::kRegMr, 2, /*pd=*/1)).runnable);
  Step(model, Create(Op::kCreatePd, 1));
  EXPECT_FALSE(model.Predict(Create(Op::kCreateCq, 1)).runnable);  // a name is used once
}

TEST(WalkActionTest, JsonRoundTrip) {
  for (const Action& a : GenerateDryRun(11, 400, DefaultWeights(), Traits())) {
    absl::StatusOr<Action> back = ActionFromJson(ToJson(a));
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_TRUE(*back == a) << ToJson(a).dump() << " -> " << ToJson(*back).dump();
  }
  EXPECT_FALSE(ActionFromJson(nlohmann::json{{"op", "explode"}}).ok());
  EXPECT_FALSE(ActionFromJson(nlohmann::json{{"op", "destroy"}}).ok());  // no obj
}

TEST(WalkActionTest, Weights) {
  absl::StatusOr<Weights> w = ParseWeights("create=5,bad_post=0");
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->at("create"), 5);
  EXPECT_EQ(w->at("destroy"), 2);
  EXPECT_EQ(w->at("bad_post"), 0);
  EXPECT_FALSE(ParseWeights("creat=1").ok());
  EXPECT_FALSE(ParseWeights("create=-1").ok());
  EXPECT_FALSE(ParseWeights("create").ok());
  EXPECT_FALSE(ParseWeights("create=0,destroy=0,modify=0,connect=0,send=0,recv=0,poll=0").ok());
}

TEST(WalkActionTest, ZeroWeightNeverChosen) {
  absl::StatusOr<Weights> w = ParseWeights("destroy=0,bad_post=0");
  ASSERT_TRUE(w.ok());
  for (const Action& a : GenerateDryRun(5, 1000, *w, Traits())) {
    EXPECT_NE(a.op, Op::kDestroy);
    EXPECT_EQ(a.variant, Variant::kValid);
  }
}

TEST(WalkLedgerTest, EachWrCompletesOnce) {
  Ledger ledger;
  ledger.Posted({1, /*qp=*/4, true, -1, 3, 0, 64, Variant::kValid});
  Pending p;
  EXPECT_EQ(ledger.Complete(1, &p), Ledger::Match::kPending);
  EXPECT_EQ(p.qp, 4);
  EXPECT_EQ(ledger.Complete(1, &p), Ledger::Match::kDuplicate);
  EXPECT_EQ(ledger.Complete(2, &p), Ledger::Match::kUnknown);
  ledger.Posted({3, 4, true, -1, 3, 1, 64, Variant::kValid});
  ledger.Discard(4, /*late_allowed=*/true);  // its QP destroyed
  EXPECT_EQ(ledger.Complete(3, &p), Ledger::Match::kLate);
  EXPECT_EQ(ledger.Complete(3, &p), Ledger::Match::kDuplicate);
}

TEST(WalkLedgerTest, StatusRules) {
  Ledger ledger;
  Pending valid{1, 4, true, -1, 3, 0, 64, Variant::kValid};
  Pending bad{2, 4, true, -1, 3, 1, 64, Variant::kBadLkey};
  EXPECT_EQ(ledger.CheckStatus(valid, IBV_WC_SUCCESS), "");
  EXPECT_NE(ledger.CheckStatus(valid, IBV_WC_WR_FLUSH_ERR), "");  // not in ERR: no flush
  EXPECT_EQ(ledger.CheckStatus(bad, IBV_WC_LOC_PROT_ERR), "");
  EXPECT_NE(ledger.CheckStatus(bad, IBV_WC_SUCCESS), "");
  ledger.SetFlushing(4);
  EXPECT_EQ(ledger.CheckStatus(valid, IBV_WC_WR_FLUSH_ERR), "");
  EXPECT_NE(ledger.CheckStatus(valid, IBV_WC_REM_ACCESS_ERR), "");
}

// An SRQ receive whose MR was deregistered may end in any status on whichever QP takes it
// (rxe: IBV_WC_LOC_QP_OP_ERR on a QP that was not the one it was posted through).
TEST(WalkLedgerTest, AReceiveThatLostItsMemoryMayEndAnyWayOnAnyQp) {
  Ledger ledger;
  Pending on_srq{1, /*qp=*/4, false, /*srq=*/9, 3, 0, 512, Variant::kValid};
  ledger.Posted(on_srq);
  EXPECT_FALSE(ledger.SrqHasLost(9));
  ledger.SetLost(1);
  EXPECT_TRUE(ledger.SrqHasLost(9));
  Pending taken = on_srq;
  taken.qp = 7;
  EXPECT_EQ(ledger.CheckStatus(taken, IBV_WC_LOC_QP_OP_ERR), "");
  Pending other{2, 7, false, 9, 3, 1, 512, Variant::kValid};
  EXPECT_NE(ledger.CheckStatus(other, IBV_WC_LOC_QP_OP_ERR), "");  // its memory is there
  Pending p;
  ASSERT_EQ(ledger.Complete(1, &p), Ledger::Match::kPending);
  EXPECT_FALSE(ledger.SrqHasLost(9));  // gone from the SRQ
}

// Coverage counts each call as the model saw it, by answer; skipped steps count as skipped.
TEST(WalkCoverageTest, CountsEachCallByItsAnswer) {
  WalkResult r;
  Action modify;
  modify.op = Op::kModifyQp;
  r.steps = {{modify, "success", "modify_qp RC RESET->INIT"},
             {modify, "EINVAL", "modify_qp RC RESET->RTS"},
             {modify, "EINVAL", "modify_qp RC RESET->RTS"},
             {Action{}, "skipped: no live CQ #4", ""}};
  const nlohmann::json c = Coverage(r);
  EXPECT_EQ(c["modify_qp RC RESET->INIT"]["success"], 1);
  EXPECT_EQ(c["modify_qp RC RESET->RTS"]["EINVAL"], 2);
  EXPECT_EQ(c["poll"]["skipped"], 1);
  EXPECT_EQ(c.size(), 3u);
}

// The shrinker on the pure model: the "finding" is a PD destroy answered EBUSY by the model.
// From a long walk the shrinker must come down to the three actions that make it.
TEST(WalkShrinkTest, FindsTheThreeActionsBehindAnEbusy) {
  auto pd_busy = [](const std::vector<Action>& actions) {
    Model model;
    for (const Action& a : actions) {
      const Object* o = a.op == Op::kDestroy ? model.Find(a.obj) : nullptr;
      Prediction p = Step(model, a);
      if (p.runnable && o != nullptr && o->kind == Kind::kPd && !p.success) return true;
    }
    return false;
  };
  std::vector<Action> walk = GenerateDryRun(1, 500, DefaultWeights(), Traits());
  ASSERT_TRUE(pd_busy(walk)) << "seed 1 should destroy a busy PD somewhere in 500 steps";
  ShrinkResult r = Shrink(walk, pd_busy);
  EXPECT_FALSE(r.out_of_budget);
  ASSERT_EQ(r.actions.size(), 3u);
  EXPECT_EQ(r.actions[0].op, Op::kCreatePd);
  EXPECT_EQ(r.actions[2].op, Op::kDestroy);
  EXPECT_EQ(r.actions[2].obj, r.actions[0].id);
  EXPECT_TRUE(pd_busy(r.actions));
  // 1-minimal: no single action can go.
  for (size_t i = 0; i < r.actions.size(); ++i) {
    std::vector<Action> fewer = r.actions;
    fewer.erase(fewer.begin() + static_cast<long>(i));
    EXPECT_FALSE(pd_busy(fewer)) << "action " << i << " was not needed";
  }
}

TEST(WalkShrinkTest, KeepsExactlyTheNeededActions) {
  std::vector<Action> actions;
  for (int i = 1; i <= 200; ++i) actions.push_back(Create(Op::kCreatePd, i));
  auto needs_17_and_150 = [](const std::vector<Action>& c) {
    bool a = false, b = false;
    for (const Action& x : c) a |= x.id == 17, b |= x.id == 150;
    return a && b;
  };
  ShrinkResult r = Shrink(actions, needs_17_and_150);
  ASSERT_EQ(r.actions.size(), 2u);
  EXPECT_EQ(r.actions[0].id, 17);
  EXPECT_EQ(r.actions[1].id, 150);
  EXPECT_LT(r.runs, 100);
}

TEST(WalkShrinkTest, StopsAtItsBudget) {
  std::vector<Action> actions;
  for (int i = 1; i <= 64; ++i) actions.push_back(Create(Op::kCreatePd, i));
  ShrinkResult r = Shrink(actions, [](const std::vector<Action>& c) { return c.size() >= 10; }, /*max_runs=*/5);
  EXPECT_TRUE(r.out_of_budget);
  EXPECT_EQ(r.runs, 5);
  EXPECT_GE(r.actions.size(), 10u);
}

TEST(WalkJsonTest, RecordedActionsReadBack) {
  WalkResult result;
  for (const Action& a : GenerateDryRun(9, 50, DefaultWeights(), Traits())) result.steps.push_back({a, "success"});
  result.findings.push_back({3, "destroy #1", "destroy pd: success, the model allows EBUSY", "destroy pd: success"});
  WalkOptions options;
  options.seed = 9;
  options.steps = 50;
  const std::string path = ::testing::TempDir() + "/walk_test_walk.json";
  std::ofstream(path) << WalkJson("rxe0", options, result).dump(2);
  absl::StatusOr<RecordedWalk> back = ReadWalkJson(path);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->seed, 9u);
  EXPECT_TRUE(back->actions == result.actions());
  std::remove(path.c_str());
  EXPECT_FALSE(ReadWalkJson(path).ok());
}

}  // namespace
}  // namespace rdmacheck::walk
