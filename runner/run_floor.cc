#include "runner/run_floor.h"

#include <map>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace rdmacheck {
namespace {

struct FloorItem {
  const char* name;       // RunFloor.<name>
  const char* operation;  // what the transport carries
  const char* body;       // the basic test of it
};

constexpr FloorItem kFloor[] = {
    {"RcSend", "RC SEND", "RcSendSizeTest.SendArrivesIntact"},
    {"RdmaWrite", "RDMA WRITE", "RdmaWriteSizeTest.WriteLandsIntact"},
    {"RdmaRead", "RDMA READ", "RdmaReadSizeTest.ReadReturnsRemoteBytes"},
};

// A body's minimal instances: the 1-byte message (testing/message_sizes.h) over every way
// of connecting ("Connect/RcSendSizeTest.SendArrivesIntact/Manual_One", ".../RdmaCm_One"):
// one that the device cannot connect skips, the other still reaches a verdict.
std::string MinimalInstances(const FloorItem& item) { return absl::StrCat("*", item.body, "/*_One"); }

bool HasFloor(ibv_transport_type transport) {
  return transport == IBV_TRANSPORT_IB || transport == IBV_TRANSPORT_IWARP;
}

bool ReachedAVerdict(TestStatus status) { return status != TestStatus::kSkip && status != TestStatus::kBlocked; }

const char* TransportWord(ibv_transport_type transport) {
  return transport == IBV_TRANSPORT_IWARP ? "iWARP" : "InfiniBand/RoCE";
}

TestResult FloorResult(const std::string& name, const std::string& reason) {
  TestResult r;
  r.suite = kRunFloorSuite;
  r.name = absl::StrCat("RunFloor.", name);
  r.purpose = "the run's floor: what every device of its transport must be able to run";
  r.reference = "IBTA Vol 1 9.4 (RC operations); RFC 5040 (RDMAP)";
  r.status = reason.empty() ? TestStatus::kPass : TestStatus::kFail;
  r.message = reason;
  return r;
}

}  // namespace

std::string FloorInstancesFilter() {
  std::vector<std::string> patterns;
  for (const FloorItem& item : kFloor) patterns.push_back(MinimalInstances(item));
  return absl::StrJoin(patterns, ":");
}

FloorSelection SelectFloor(const std::vector<RegisteredTest>& all, std::vector<RegisteredTest> selected,
                           ibv_transport_type transport, FloorMode mode) {
  FloorSelection floor;
  floor.tests = std::move(selected);
  if (!HasFloor(transport)) {
    floor.note = "none: the transport has no floor (RunFloor.Transport fails)";
    return floor;
  }
  if (mode == FloorMode::kOff) {
    floor.note = "off (--floor=off): not run, RunFloor.Selection fails";
    floor.failure = FloorResult("Selection", absl::StrCat("the floor was not run (--floor=off): nothing in this run "
                                                          "says the device carries RC SEND, RDMA WRITE and RDMA READ"));
    return floor;
  }
  std::set<std::string> bodies, names;
  for (const RegisteredTest& t : floor.tests) {
    bodies.insert(TestBodyName(t.name));
    names.insert(t.name);
  }
  std::vector<std::string> added_items, added_patterns, absent;
  size_t added_tests = 0;
  for (const FloorItem& item : kFloor) {
    if (bodies.count(item.body)) continue;
    const size_t before = floor.tests.size();
    for (const RegisteredTest& t : all) {
      if (!names.count(t.name) && MatchesGtestFilter(t.name, MinimalInstances(item))) floor.tests.push_back(t);
    }
    if (floor.tests.size() == before) {
      absent.push_back(MinimalInstances(item));
    } else {
      added_items.push_back(item.operation);
      added_patterns.push_back(MinimalInstances(item));
      added_tests += floor.tests.size() - before;
    }
  }
  floor.added = added_tests > 0;
  if (!absent.empty()) {
    floor.failure = FloorResult("Selection", absl::StrCat("the floor cannot run: no test of this binary matches ",
                                                          absl::StrJoin(absent, ":")));
  }
  if (floor.added) {
    floor.note = absl::StrCat("added ", added_tests, " tests (", absl::StrJoin(added_patterns, ":"),
                              "): the selection held no test of ", absl::StrJoin(added_items, ", "));
  } else if (absent.empty()) {
    floor.note = "in the selection";
  }
  if (floor.failure) absl::StrAppend(&floor.note, floor.note.empty() ? "" : "; ", floor.failure->message);
  return floor;
}

std::vector<TestResult> RunFloorResults(const std::vector<RegisteredTest>& selected,
                                        const std::vector<TestResult>& results, ibv_transport_type transport) {
  std::vector<TestResult> floor;
  if (!HasFloor(transport)) {
    // No floor rdmacheck knows of: nothing it ran can say the device carries anything, so
    // the run cannot end green on it.
    floor.push_back(FloorResult("Transport", absl::StrCat("transport ", static_cast<int>(transport),
                                                          " is neither InfiniBand/RoCE nor iWARP: rdmacheck has "
                                                          "no floor for it, so no run on it can pass")));
    return floor;
  }
  std::set<std::string> selected_bodies;
  for (const RegisteredTest& t : selected) selected_bodies.insert(TestBodyName(t.name));

  for (const FloorItem& item : kFloor) {
    if (!selected_bodies.count(item.body)) continue;
    int instances = 0, ran = 0;
    std::string first_reason;
    for (const TestResult& r : results) {
      if (TestBodyName(r.name) != item.body) continue;
      ++instances;
      if (ReachedAVerdict(r.status)) {
        ++ran;
      } else if (first_reason.empty()) {
        first_reason = r.message.substr(0, r.message.find('\n'));
      }
    }
    floor.push_back(FloorResult(
        item.name, ran > 0 ? ""
                           : absl::StrCat("no instance of ", item.body, " ran (", instances, " skipped or blocked",
                                          first_reason.empty() ? "" : absl::StrCat("; first: ", first_reason),
                                          "): every ", TransportWord(transport), " device must run ", item.operation)));
  }

  // A suite the run selected must come back with results (a child that reports nothing
  // is recorded as never run by the supervisor; this catches a result stream that lost
  // a whole suite on the way).
  std::map<std::string, int> per_suite;
  for (const TestResult& r : results) ++per_suite[r.suite];
  for (const std::string& suite : SuitesOf(selected)) {
    if (per_suite[suite] > 0) continue;
    floor.push_back(FloorResult(absl::StrCat("SuiteReported/", suite),
                                absl::StrCat("suite ", suite, " was selected, but no result of it came back")));
  }
  return floor;
}

}  // namespace rdmacheck
