// How a suite's child process tells `rdmacheck run` what happens, as it happens: one JSON
// object per line in an events file, flushed after each line, so a child that crashes or
// hangs has already reported every test it finished and the one it was running.
#ifndef RDMACHECK_RUNNER_EVENTS_H_
#define RDMACHECK_RUNNER_EVENTS_H_

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "results/results.h"

namespace rdmacheck {

struct TestEvent {
  enum class Kind { kStart, kEnd, kFatal };
  Kind kind = Kind::kStart;
  std::string name;  // GoogleTest full name; for kFatal, empty
  TestStatus status = TestStatus::kPass;
  std::string message;  // failure or skip text; for kFatal, why the child could not run
  std::string capability;
  double duration_ms = 0;
  double setup_ms = 0;  // fixture set-up and pair building (kSetupMsProperty)
  int peer_pairs = 0;   // pairs built with the remote endpoint on the peer (kPeerPairsProperty)
  // The test's window on CLOCK_MONOTONIC, in microseconds (kernel_log.h attributes kernel
  // log lines by it): kStart carries start_us, kEnd both.
  int64_t start_us = 0, end_us = 0;
  nlohmann::json traffic;  // kEnd: what a TestWatch saw (counters.h); null without one
};

// Something the event writer does around each test, inside its window: Start() as the
// test starts, End() as it ends; End()'s JSON travels in the end event as "traffic".
class TestWatch {
 public:
  virtual ~TestWatch() = default;
  virtual void Start() = 0;
  virtual nlohmann::json End() = 0;
};

std::string EncodeEvent(const TestEvent& event);
absl::StatusOr<TestEvent> DecodeEvent(absl::string_view line);

// Appends one event to `path` (used for kFatal before GoogleTest runs).
void AppendEvent(const std::string& path, const TestEvent& event);

// A GoogleTest listener that writes start/end events to `path`; `watch`, if any, runs
// around each test.
std::unique_ptr<::testing::TestEventListener> MakeEventWriter(const std::string& path,
                                                              std::unique_ptr<TestWatch> watch = nullptr);

// The child's exit status after its tests, `run_all_tests` being RUN_ALL_TESTS()'s value:
// 0 while every failure GoogleTest counted is a test's (its end event carries it), else
// kChildFailedOutsideTests: a failure in SetUpTestSuite / TearDownTestSuite, an environment
// or a listener, which no event carries (the supervisor fails the suite's ChildEnd with it).
// A failing test alone keeps 0: its event carries it, and expectations may turn it to xfail.
inline constexpr int kChildFailedOutsideTests = 4;
int ChildExitAfterTests(int run_all_tests, const ::testing::UnitTest& unit);

// Reads the complete lines appended to an events file since the last call.
class EventReader {
 public:
  explicit EventReader(std::string path) : path_(std::move(path)) {}
  std::vector<TestEvent> ReadNew();

 private:
  std::string path_;
  long offset_ = 0;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_RUNNER_EVENTS_H_
