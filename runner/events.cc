#include "runner/events.h"

#include <chrono>
#include <cstdlib>
#include <fstream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "runner/kernel_log.h"
#include "testing/device_test.h"
#include "nlohmann/json.hpp"

namespace rdmacheck {

namespace {
const char* KindName(TestEvent::Kind kind) {
  switch (kind) {
    case TestEvent::Kind::kStart: return "start";
    case TestEvent::Kind::kEnd: return "end";
    case TestEvent::Kind::kFatal: return "fatal";
  }
  return "unknown";
}
}  // namespace

std::string EncodeEvent(const TestEvent& e) {
  nlohmann::json j = {{"event", KindName(e.kind)}, {"name", e.name}};
  if (e.start_us != 0) j["start_us"] = e.start_us;
  if (e.end_us != 0) j["end_us"] = e.end_us;
  if (!e.traffic.is_null()) j["traffic"] = e.traffic;
  if (e.kind == TestEvent::Kind::kEnd) {
    j["status"] = TestStatusName(e.status);
    j["duration_ms"] = e.duration_ms;
    j["setup_ms"] = e.setup_ms;
    if (e.peer_pairs > 0) j["peer_pairs"] = e.peer_pairs;
    j["capability"] = e.capability;
  }
  if (!e.message.empty()) j["message"] = e.message;
  // dump() with `replace` keeps a line valid JSON whatever bytes a test message holds.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

absl::StatusOr<TestEvent> DecodeEvent(absl::string_view line) {
  nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return absl::InvalidArgumentError("event is not a JSON object");
  TestEvent e;
  std::string kind = j.value("event", "");
  if (kind == "start") {
    e.kind = TestEvent::Kind::kStart;
  } else if (kind == "end") {
    e.kind = TestEvent::Kind::kEnd;
    absl::StatusOr<TestStatus> status = TestStatusFromName(j.value("status", ""));
    if (!status.ok()) return status.status();
    e.status = *status;
  } else if (kind == "fatal") {
    e.kind = TestEvent::Kind::kFatal;
  } else {
    return absl::InvalidArgumentError(absl::StrCat("unknown event '", kind, "'"));
  }
  e.name = j.value("name", "");
  e.message = j.value("message", "");
  e.capability = j.value("capability", "");
  e.duration_ms = j.value("duration_ms", 0.0);
  e.setup_ms = j.value("setup_ms", 0.0);
  e.peer_pairs = j.value("peer_pairs", 0);
  e.start_us = j.value("start_us", int64_t{0});
  e.end_us = j.value("end_us", int64_t{0});
  if (j.contains("traffic")) e.traffic = j["traffic"];
  return e;
}

void AppendEvent(const std::string& path, const TestEvent& event) {
  std::ofstream out(path, std::ios::app);
  out << EncodeEvent(event) << "\n";
}

namespace {

class EventWriter : public ::testing::EmptyTestEventListener {
 public:
  EventWriter(std::string path, std::unique_ptr<TestWatch> watch) : path_(std::move(path)), watch_(std::move(watch)) {}

  void OnTestStart(const ::testing::TestInfo& info) override {
    start_ = std::chrono::steady_clock::now();
    TestEvent e;
    e.kind = TestEvent::Kind::kStart;
    e.name = FullName(info);
    e.start_us = start_us_ = MonotonicMicros();
    AppendEvent(path_, e);
    if (watch_) watch_->Start();
  }

  void OnTestEnd(const ::testing::TestInfo& info) override {
    const ::testing::TestResult& result = *info.result();
    TestEvent e;
    e.kind = TestEvent::Kind::kEnd;
    e.name = FullName(info);
    e.start_us = start_us_;
    if (watch_) e.traffic = watch_->End();
    e.end_us = MonotonicMicros();
    e.duration_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
    e.status = result.Failed() ? TestStatus::kFail : result.Skipped() ? TestStatus::kSkip : TestStatus::kPass;
    // One part per failed assertion (or skip), as the expectations split them back
    // (AppendFailurePart): a trace's lines end their part, and so does an exception's text.
    for (int i = 0; i < result.total_part_count(); ++i) {
      const ::testing::TestPartResult& part = result.GetTestPartResult(i);
      bool wanted = e.status == TestStatus::kSkip ? part.skipped() : part.failed();
      if (!wanted) continue;
      const bool located = part.failed() && part.file_name() != nullptr;
      AppendFailurePart(e.message, located ? absl::StrCat(part.file_name(), ":", part.line_number(), ": ", part.message())
                                           : std::string(part.message()));
    }
    for (int i = 0; i < result.test_property_count(); ++i) {
      const ::testing::TestProperty& p = result.GetTestProperty(i);
      if (absl::string_view(p.key()) == "rdmacheck_capability") e.capability = p.value();
      if (absl::string_view(p.key()) == kSetupMsProperty) e.setup_ms = std::atof(p.value());
      if (absl::string_view(p.key()) == kPeerPairsProperty) e.peer_pairs = std::atoi(p.value());
    }
    AppendEvent(path_, e);
  }

 private:
  static std::string FullName(const ::testing::TestInfo& info) {
    return absl::StrCat(info.test_suite_name(), ".", info.name());
  }

  std::string path_;
  std::unique_ptr<TestWatch> watch_;
  std::chrono::steady_clock::time_point start_;
  int64_t start_us_ = 0;
};

}  // namespace

std::unique_ptr<::testing::TestEventListener> MakeEventWriter(const std::string& path,
                                                              std::unique_ptr<TestWatch> watch) {
  return std::make_unique<EventWriter>(path, std::move(watch));
}

int ChildExitAfterTests(int run_all_tests, const ::testing::UnitTest& unit) {
  if (run_all_tests == 0) return 0;
  // Non-zero with no failed test can only be a failure outside them; an ad hoc failure
  // beside failed tests is one too (those may all be xfails: the run would pass).
  bool outside = unit.failed_test_count() == 0 || unit.ad_hoc_test_result().Failed();
  for (int i = 0; i < unit.total_test_suite_count(); ++i) {
    outside |= unit.GetTestSuite(i)->ad_hoc_test_result().Failed();
  }
  return outside ? kChildFailedOutsideTests : 0;
}

std::vector<TestEvent> EventReader::ReadNew() {
  std::vector<TestEvent> events;
  std::ifstream in(path_);
  if (!in) return events;
  in.seekg(offset_);
  std::string line;
  while (true) {
    std::streampos before = in.tellg();
    if (!std::getline(in, line)) break;
    if (in.eof()) {  // a line still being written: read it next time
      offset_ = static_cast<long>(before);
      return events;
    }
    offset_ = static_cast<long>(in.tellg());
    absl::StatusOr<TestEvent> event = DecodeEvent(line);
    if (event.ok()) events.push_back(*std::move(event));
  }
  return events;
}

}  // namespace rdmacheck
