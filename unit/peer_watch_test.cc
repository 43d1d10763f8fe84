// One stuck peer must not poison the rest of the run (issue 39.3). The decision with a
// fake probe: only failures ask the peer, an answering peer changes nothing, a silent one
// stops the run once and says why. Then the supervisor with scripted children (shell
// scripts writing the events a real child would): a dead peer ends the suite within
// seconds, the failed test keeps its failure with the reason, the rest are not run.
#include "runner/peer_watch.h"

#include <string>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "reports/presentation.h"
#include "reports/report_model.h"
#include "runner/events.h"
#include "runner/leak_check.h"
#include "runner/shard_pool.h"
#include "runner/supervisor.h"
#include "unit/scripted_child.h"

namespace rdmacheck {
namespace {

using ::testing::_;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::MockFunction;
using ::testing::Not;
using ::testing::Return;
using fixtures::Event;
using fixtures::ScriptedChild;

constexpr char kSilence[] = "the peer did not answer in time (receive)";
constexpr char kPeerGone[] = "the peer 10.0.0.2:18515 stopped answering its side channel";

TestResult Result(const std::string& name, TestStatus status, const std::string& message = "") {
  TestResult r;
  r.suite = "s";
  r.name = name;
  r.status = status;
  r.message = message;
  return r;
}

RegisteredTest Planned(const std::string& name) { return {"s", name, "T", name.substr(2)}; }

TEST(PeerWatchTest, OnlyFailuresAskThePeer) {
  MockFunction<absl::Status(absl::Duration)> probe;
  EXPECT_CALL(probe, Call(_)).Times(0);
  PeerWatch watch("10.0.0.2:18515", absl::Seconds(5), probe.AsStdFunction());
  for (TestStatus status : {TestStatus::kPass, TestStatus::kSkip, TestStatus::kXfail, TestStatus::kBlocked}) {
    TestResult r = Result("T.a", status);
    EXPECT_TRUE(watch.AfterResult(r));
  }
  EXPECT_FALSE(watch.stopped());
}

TEST(PeerWatchTest, AnAnsweringPeerLeavesTheFailureAlone) {
  MockFunction<absl::Status(absl::Duration)> probe;
  EXPECT_CALL(probe, Call(absl::Seconds(5))).Times(2).WillRepeatedly(Return(absl::OkStatus()));
  PeerWatch watch("10.0.0.2:18515", absl::Seconds(5), probe.AsStdFunction());
  for (const char* name : {"T.a", "T.b"}) {  // asked after each failure: it may die any time
    TestResult r = Result(name, TestStatus::kFail, "wc.status is IBV_WC_RETRY_EXC_ERR");
    EXPECT_TRUE(watch.AfterResult(r));
    EXPECT_EQ(r.message, "wc.status is IBV_WC_RETRY_EXC_ERR");
    EXPECT_FALSE(r.abnormal);
  }
  EXPECT_FALSE(watch.stopped());
}

TEST(PeerWatchTest, ASilentPeerStopsTheRunOnceAndSaysWhy) {
  MockFunction<absl::Status(absl::Duration)> probe;
  EXPECT_CALL(probe, Call(_)).WillOnce(Return(absl::DeadlineExceededError(kSilence)));  // dead stays dead
  PeerWatch watch("10.0.0.2:18515", absl::Seconds(5), probe.AsStdFunction());

  TestResult first = Result("T.a", TestStatus::kFail, "rdma_connect: ETIMEDOUT");
  EXPECT_FALSE(watch.AfterResult(first));
  EXPECT_TRUE(watch.stopped());
  EXPECT_EQ(first.status, TestStatus::kFail);
  EXPECT_THAT(first.message, ::testing::StartsWith("rdma_connect: ETIMEDOUT\n\n"));  // its own failure first
  EXPECT_THAT(first.message, HasSubstr(kPeerGone));
  EXPECT_THAT(first.message, HasSubstr(kSilence));
  EXPECT_TRUE(first.abnormal);  // no expectation makes an xfail of it

  TestResult second = Result("T.b", TestStatus::kFail, "timed out");  // another child's, meanwhile
  EXPECT_FALSE(watch.AfterResult(second));
  EXPECT_THAT(second.message, HasSubstr(kPeerGone));

  const nlohmann::json lab = watch.LabFailure({"T.c", "T.d"});
  EXPECT_EQ(lab["peer"], "10.0.0.2:18515");
  EXPECT_EQ(lab["after"], "T.a");
  EXPECT_EQ(lab["not_run"], nlohmann::json({"T.c", "T.d"}));  // the wire lab's shape: a list
  EXPECT_THAT(lab["reason"].get<std::string>(), HasSubstr(kPeerGone));
  EXPECT_THAT(LabFailureLine(lab),
              ::testing::MatchesRegex("rdmacheck: peer 10\\.0\\.0\\.2:18515 unreachable \\(side channel silent for "
                                      "[0-9]+\\.[0-9] s\\) after T\\.a; 2 tests not run"));
}

TEST(PeerWatchTest, TheReportSaysTheLabFailedNotTheDevice) {
  MockFunction<absl::Status(absl::Duration)> probe;
  EXPECT_CALL(probe, Call(_)).WillOnce(Return(absl::DeadlineExceededError(kSilence)));
  PeerWatch watch("10.0.0.2:18515", absl::Seconds(5), probe.AsStdFunction());
  TestResult failed = Result("T.a", TestStatus::kFail);
  ASSERT_FALSE(watch.AfterResult(failed));

  Report report;
  report.devices.emplace_back();
  report.devices[0].label = "rxe0";
  report.devices[0].run.results.environment["lab_failure"] = watch.LabFailure({"T.b", "T.c"});
  report.devices[0].run.results.complete = false;
  EXPECT_THAT(IncompleteRunLines(report),
              ElementsAre(AllOf(HasSubstr("rxe0: the lab failed, not the device; 2 tests not run"),
                                HasSubstr(kPeerGone))));
}

TEST(PeerWatchTest, ConcurrentFailuresProbeOnce) {
  MockFunction<absl::Status(absl::Duration)> probe;
  EXPECT_CALL(probe, Call(_)).WillOnce([](absl::Duration) {
    absl::SleepFor(absl::Milliseconds(100));
    return absl::UnavailableError("the peer closed the side channel");
  });
  PeerWatch watch("h:1", absl::Seconds(5), probe.AsStdFunction());
  std::vector<TestResult> results = {Result("T.a", TestStatus::kFail), Result("T.b", TestStatus::kFail)};
  std::vector<std::thread> supervisors;
  for (TestResult& r : results) supervisors.emplace_back([&watch, &r] { EXPECT_FALSE(watch.AfterResult(r)); });
  for (std::thread& t : supervisors) t.join();
  for (const TestResult& r : results) EXPECT_THAT(r.message, HasSubstr("the peer h:1 stopped answering"));
}

TEST(PeerWatchTest, TheLineNamesPeerTestAndCount) {
  EXPECT_EQ(LabFailureLine({{"peer", "hostB:18515"}, {"silent_s", 5.02}, {"after", "Connect/RcTest.Send/RdmaCm"},
                            {"not_run", {"T.b", "T.c", "T.d"}}}),
            "rdmacheck: peer hostB:18515 unreachable (side channel silent for 5.0 s) after Connect/RcTest.Send/RdmaCm; "
            "3 tests not run");
}

TEST(PeerWatchTest, NotRunIsWhatHasNoResult) {
  const std::vector<RegisteredTest> planned = {Planned("T.a"), Planned("T.b"), Planned("T.c")};
  const std::vector<TestResult> results = {Result("T.a", TestStatus::kFail), Result(kLeakCheckTest, TestStatus::kPass)};
  EXPECT_EQ(TestsNotRun(planned, results), (std::vector<std::string>{"T.b", "T.c"}));

  // The floor judges what ran: all of it without a lab failure, less the not-run with one.
  EXPECT_EQ(TestsRun(planned, nlohmann::json::object()).size(), 3u);
  const nlohmann::json environment = {{"lab_failure", {{"not_run", {"T.b", "T.c"}}}}};
  EXPECT_THAT(TestsRun(planned, environment), ElementsAre(Field(&RegisteredTest::name, "T.a")));
}

// The scripted child's options with the watch.
ChildOptions WatchedOptions(const ScriptedChild& child, PeerWatch* watch,
                            absl::Duration test_timeout = absl::Seconds(30)) {
  ChildOptions options = child.Options();
  options.test_timeout = test_timeout;
  options.peer_watch = watch;
  return options;
}

// T.a fails (the wire stalled), T.b starts; `ending` decides what T.b does.
std::vector<TestEvent> FailThenStart() {
  return {Event(TestEvent::Kind::kStart, "T.a"),
          Event(TestEvent::Kind::kEnd, "T.a", TestStatus::kFail, "timed out after 20s waiting for an rdma_cm event"),
          Event(TestEvent::Kind::kStart, "T.b")};
}

TEST(PeerWatchSupervisorTest, ADeadPeerEndsTheSuiteWithinSeconds) {
  MockFunction<absl::Status(absl::Duration)> probe;
  EXPECT_CALL(probe, Call(_)).WillOnce(Return(absl::DeadlineExceededError(kSilence)));
  PeerWatch watch("10.0.0.2:18515", absl::Seconds(5), probe.AsStdFunction());
  ScriptedChild child(FailThenStart(), "exec sleep 60");  // T.b hangs on the dead peer

  const absl::Time start = absl::Now();
  SuiteOutcome outcome = RunSuite({"s", {"T.a", "T.b", "T.c"}, ""}, WatchedOptions(child, &watch));
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));  // not T.b's 30 s watchdog, nor T.c's
  ASSERT_THAT(outcome.results, ElementsAre(Field(&TestResult::name, "T.a")));  // T.b, T.c: not run
  EXPECT_EQ(outcome.results[0].status, TestStatus::kFail);
  EXPECT_THAT(outcome.results[0].message, HasSubstr("waiting for an rdma_cm event\n"));
  EXPECT_THAT(outcome.results[0].message, HasSubstr(kPeerGone));
  EXPECT_EQ(outcome.processes, 1);  // no new child after the peer went
  EXPECT_TRUE(watch.stopped());
}

TEST(PeerWatchSupervisorTest, AnAnsweringPeerLetsTheChildGoOn) {
  MockFunction<absl::Status(absl::Duration)> probe;
  EXPECT_CALL(probe, Call(_)).WillOnce(Return(absl::OkStatus()));  // after T.a only
  PeerWatch watch("10.0.0.2:18515", absl::Seconds(5), probe.AsStdFunction());
  ScriptedChild child({Event(TestEvent::Kind::kStart, "T.a"),
                       Event(TestEvent::Kind::kEnd, "T.a", TestStatus::kFail, "wc.status 12"),
                       Event(TestEvent::Kind::kStart, "T.b"), Event(TestEvent::Kind::kEnd, "T.b"),
                       Event(TestEvent::Kind::kEnd, kLeakCheckTest)},
                      "sleep 0.3; exit 0");  // stopped and continued meanwhile: ends as usual

  SuiteOutcome outcome = RunSuite({"s", {"T.a", "T.b"}, ""}, WatchedOptions(child, &watch));
  ASSERT_THAT(outcome.results, ElementsAre(Field(&TestResult::name, "T.a"), Field(&TestResult::name, "T.b"),
                                           Field(&TestResult::name, kLeakCheckTest)));
  EXPECT_EQ(outcome.results[0].message, "wc.status 12");
  EXPECT_THAT(outcome.results, Not(::testing::Contains(Field(&TestResult::name, kChildEndTest))));
  EXPECT_FALSE(watch.stopped());
}

TEST(PeerWatchSupervisorTest, AWatchdogTimeoutWithADeadPeerRunsNothingMore) {
  MockFunction<absl::Status(absl::Duration)> probe;
  EXPECT_CALL(probe, Call(_)).WillOnce(Return(absl::UnavailableError("the peer closed the side channel")));
  PeerWatch watch("10.0.0.2:18515", absl::Seconds(5), probe.AsStdFunction());
  ScriptedChild child({Event(TestEvent::Kind::kStart, "T.a")}, "exec sleep 60");

  SuiteOutcome outcome = RunSuite({"s", {"T.a", "T.b"}, ""}, WatchedOptions(child, &watch, absl::Milliseconds(300)));
  ASSERT_THAT(outcome.results, ElementsAre(Field(&TestResult::name, "T.a")));
  EXPECT_THAT(outcome.results[0].message, HasSubstr("timed out"));
  EXPECT_THAT(outcome.results[0].message, HasSubstr(kPeerGone));
  EXPECT_EQ(outcome.processes, 1);
}

TEST(PeerWatchSupervisorTest, NoShardStartsAfterThePeerWent) {
  MockFunction<absl::Status(absl::Duration)> probe;
  EXPECT_CALL(probe, Call(_)).WillOnce(Return(absl::DeadlineExceededError(kSilence)));
  PeerWatch watch("10.0.0.2:18515", absl::Seconds(5), probe.AsStdFunction());
  ScriptedChild child(FailThenStart(), "exec sleep 60");
  const std::vector<Shard> shards = {{"s", 0, {"T.a", "T.b"}, false}, {"t", 0, {"T.c"}, false}};
  std::vector<std::string> started;
  ShardCallbacks callbacks;
  callbacks.on_start = [&](const Shard& shard) { started.push_back(shard.suite); };
  RunShards(shards, /*jobs=*/1, WatchedOptions(child, &watch), callbacks);
  EXPECT_THAT(started, ElementsAre("s"));
}

}  // namespace
}  // namespace rdmacheck
