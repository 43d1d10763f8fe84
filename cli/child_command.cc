// rdmacheck __child: the process `run` starts per suite. Opens the device, runs the tests
// GoogleTest's --gtest_filter names, and reports each through the events file.
#include <stdlib.h>
#include <unistd.h>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "cli/commands.h"
#include "harness/remote/peer_link.h"
#include "runner/counters.h"
#include "runner/events.h"
#include "runner/leak_check.h"
#include "runner/wire_marks.h"
#include "harness/timeouts.h"
#include "harness/selection_flags.h"
#include "testing/test_device.h"

ABSL_DECLARE_FLAG(std::string, capabilities);
ABSL_FLAG(std::string, events, "", "File the child appends test events to (internal)");

namespace rdmacheck {

int ChildCommand(const std::vector<std::string>& positional) {
  const std::string events = absl::GetFlag(FLAGS_events);
  if (events.empty() || !positional.empty()) return UsageError("__child needs --events=FILE and no arguments");
  absl::StatusOr<SelectionRequest> request = SelectionRequestFromFlags();
  absl::Status opened = request.ok() ? TestDevice::Open(*request, absl::GetFlag(FLAGS_capabilities)) : request.status();
  if (opened.ok() && !absl::GetFlag(FLAGS_peer).empty()) {  // two-host mode
    absl::StatusOr<std::unique_ptr<PeerLink>> link =
        PeerLink::Connect(absl::GetFlag(FLAGS_peer), TestDevice::Get().selection().transport);
    if (link.ok()) {
      TestDevice::SetPeer(*std::move(link));
    } else {
      opened = link.status();
    }
  }
  if (!opened.ok()) {
    TestEvent fatal;
    fatal.kind = TestEvent::Kind::kFatal;
    fatal.message = std::string(opened.message());
    AppendEvent(events, fatal);
    return UsageError(opened);
  }
  const absl::StatusOr<ObjectCounts> baseline = CountProcessObjects(getpid());
  ::testing::UnitTest::GetInstance()->listeners().Append(
      MakeEventWriter(events, TrafficWatch::For(TestDevice::Get().selection(), TestDevice::Get().profile())).release());
  if (const char* marks = getenv(kWireMarksEnv); marks != nullptr && *marks != '\0') {  // the wire lab
    absl::StatusOr<std::unique_ptr<::testing::TestEventListener>> marker = MakeWireMarker(marks);
    if (!marker.ok()) return UsageError(marker.status());
    ::testing::UnitTest::GetInstance()->listeners().Append(marker->release());
  }
  // Outcomes travel through the events file; a failure outside every test has no event,
  // so it travels in the exit status (ChildExitAfterTests), returned after the leak check.
  const int exit_status = ChildExitAfterTests(RUN_ALL_TESTS(), *::testing::UnitTest::GetInstance());
  {  // the leak check: one more result of the suite; uncountable is a failure, not a pass
    const absl::Time start = absl::Now();
    const std::string leak =
        baseline.ok() ? CheckForLeaks(getpid(), *baseline, Scaled(absl::Seconds(2)))
                      : absl::StrCat("cannot count this process's verbs objects: ", baseline.status().message());
    TestEvent result;
    result.kind = TestEvent::Kind::kEnd;
    result.name = kLeakCheckTest;
    result.status = leak.empty() ? TestStatus::kPass : TestStatus::kFail;
    result.message = leak;
    result.duration_ms = absl::ToDoubleMilliseconds(absl::Now() - start);
    AppendEvent(events, result);
  }
  return exit_status;
}

}  // namespace rdmacheck
