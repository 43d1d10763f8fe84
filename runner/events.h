// How a suite's child process tells `rdmacheck run` what happens, as it happens: one JSON
// object per line in an events file, flushed after each line, so a child that crashes or
// hangs has already reported every test it finished and the one it was running.
#ifndef RDMACHECK_RUNNER_EVENTS_H_
#define RDMACHECK_RUNNER_EVENTS_H_

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
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
};

std::string EncodeEvent(const TestEvent& event);
absl::StatusOr<TestEvent> DecodeEvent(absl::string_view line);

// Appends one event to `path` (used for kFatal before GoogleTest runs).
void AppendEvent(const std::string& path, const TestEvent& event);

// A GoogleTest listener that writes start/end events to `path`.
std::unique_ptr<::testing::TestEventListener> MakeEventWriter(const std::string& path);

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
