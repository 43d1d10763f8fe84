#include "results/results.h"

#include <set>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace rdmacheck {

namespace {
constexpr std::pair<TestStatus, const char*> kStatusNames[] = {
    {TestStatus::kPass, "pass"},   {TestStatus::kFail, "fail"},   {TestStatus::kSkip, "skip"},
    {TestStatus::kXfail, "xfail"}, {TestStatus::kXpass, "xpass"}, {TestStatus::kBlocked, "blocked"},
};
}  // namespace

const char* TestStatusName(TestStatus status) {
  for (const auto& [s, name] : kStatusNames) {
    if (s == status) return name;
  }
  return "unknown";
}

absl::StatusOr<TestStatus> TestStatusFromName(absl::string_view name) {
  for (const auto& [s, n] : kStatusNames) {
    if (n == name) return s;
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown test status '", name, "'"));
}

bool IsFailure(TestStatus status) { return status == TestStatus::kFail || status == TestStatus::kXpass; }

void AppendFailurePart(std::string& message, absl::string_view part) {
  std::vector<absl::string_view> lines;
  for (absl::string_view line : absl::StrSplit(part, '\n')) {
    if (!absl::StripAsciiWhitespace(line).empty()) lines.push_back(absl::StripTrailingAsciiWhitespace(line));
  }
  if (lines.empty()) return;
  absl::StrAppend(&message, message.empty() ? "" : kFailurePartSeparator, absl::StrJoin(lines, "\n"));
}

std::string TestBodyName(const std::string& test_name) {
  // GoogleTest full names are "[Prefix/]Fixture.Name[/param]"; the prefix holds no '.'.
  size_t dot = test_name.find('.');
  if (dot == std::string::npos) return test_name;
  std::string fixture = test_name.substr(0, dot);
  std::string name = test_name.substr(dot + 1);
  if (size_t slash = fixture.rfind('/'); slash != std::string::npos) fixture = fixture.substr(slash + 1);
  if (size_t slash = name.find('/'); slash != std::string::npos) name = name.substr(0, slash);
  return fixture + "." + name;
}

std::string InstanceName(const std::string& test_name) {
  const size_t dot = test_name.find('.');
  const size_t slash = test_name.rfind('/', dot);  // the end of the instantiation's prefix, if any
  return dot == std::string::npos || slash == std::string::npos ? test_name : test_name.substr(slash + 1);
}

std::string ConsequenceOf(const TestResult& result) {
  const std::string prefix = kConsequenceOf;
  const bool skip_like = result.status == TestStatus::kSkip || result.status == TestStatus::kBlocked;
  if (!skip_like || result.message.rfind(prefix, 0) != 0) return "";
  size_t end = result.message.find(':', prefix.size());
  return end == std::string::npos ? "" : result.message.substr(prefix.size(), end - prefix.size());
}

namespace {

// What the cause did in this run, as the statuses of the results with its instance name
// (one, unless two instantiations share a parameter name), for a consequence's failure.
std::string CauseOutcome(const std::set<TestStatus>& seen) {
  auto any = [&](TestStatus s) { return seen.count(s) > 0; };
  if (any(TestStatus::kFail) || any(TestStatus::kXpass)) return "failed unexpectedly (not an expected deviation)";
  if (any(TestStatus::kPass)) return "passed: nothing should stand in the way";
  if (seen.empty()) return "did not run here (filtered out, or no test instance has that name)";
  return "reached no verdict (skipped or blocked itself)";
}

}  // namespace

void JudgeConsequences(std::vector<TestResult>& tests) {
  std::map<std::string, std::set<TestStatus>> by_instance;
  for (const TestResult& t : tests) by_instance[InstanceName(t.name)].insert(t.status);
  for (TestResult& t : tests) {
    const std::string cause = ConsequenceOf(t);
    if (cause.empty()) continue;
    const auto found = by_instance.find(cause);
    const std::set<TestStatus> seen = found == by_instance.end() ? std::set<TestStatus>{} : found->second;
    if (seen == std::set<TestStatus>{TestStatus::kXfail}) {
      t.status = TestStatus::kBlocked;
      continue;
    }
    // The test ran and could not reach its start; with no expected deviation of its cause to
    // explain that, it is the test's own finding.
    t.status = TestStatus::kFail;
    t.message = absl::StrCat("could not start, and not behind an expected deviation: ", cause, " ", CauseOutcome(seen),
                             ": ", t.message);
  }
}

std::map<std::string, PeerUse> PeerUseBySuite(const std::vector<TestResult>& tests) {
  std::map<std::string, PeerUse> use;
  for (const TestResult& t : tests) {
    PeerUse& u = use[t.suite];
    if (t.status == TestStatus::kSkip || t.status == TestStatus::kBlocked) {
      ++(t.message.rfind(kLoopbackOnly, 0) == 0 ? u.loopback_only : u.other);
    } else {
      ++(t.peer_pairs > 0 ? u.peer : u.other);
    }
  }
  return use;
}

RunSummary Summarize(const std::vector<TestResult>& tests) {
  RunSummary s;
  std::set<std::string> bodies;
  for (const TestResult& t : tests) {
    ++s.total;
    bodies.insert(TestBodyName(t.name));
    switch (t.status) {
      case TestStatus::kPass: ++s.pass; break;
      case TestStatus::kFail: ++s.fail; break;
      case TestStatus::kSkip:
        ++s.skip;
        if (std::string cause = ConsequenceOf(t); !cause.empty()) {
          ++s.skipped_as_consequence_of[TestBodyName(cause)];
        } else {
          ++s.skipped_by_capability[t.capability.empty() ? "(none)" : t.capability];
        }
        break;
      case TestStatus::kXfail: ++s.xfail; break;
      case TestStatus::kXpass: ++s.xpass; break;
      case TestStatus::kBlocked:
        ++s.blocked;
        ++s.skipped_as_consequence_of[TestBodyName(ConsequenceOf(t))];
        break;
    }
  }
  s.bodies = static_cast<int>(bodies.size());
  return s;
}

nlohmann::json SummaryToJson(const RunSummary& s) {
  return {{"total", s.total},
          {"pass", s.pass},
          {"fail", s.fail},
          {"skip", s.skip},
          {"xfail", s.xfail},
          {"xpass", s.xpass},
          {"blocked", s.blocked},
          {"bodies", s.bodies},
          {"skipped_by_capability", s.skipped_by_capability},
          {"skipped_as_consequence_of", s.skipped_as_consequence_of}};
}

int ExitCodeFor(const RunSummary& summary) { return summary.fail + summary.xpass > 0 ? 1 : 0; }

namespace {

nlohmann::json TestToJson(const TestResult& t) {
  nlohmann::json j = {{"suite", t.suite},
                      {"name", t.name},
                      {"status", TestStatusName(t.status)},
                      {"duration_ms", t.duration_ms},
                      {"setup_ms", t.setup_ms},
                      {"message", t.message},
                      {"capability", t.capability},
                      {"purpose", t.purpose},
                      {"reference", t.reference},
                      {"needs", t.needs}};
  if (t.abnormal) j["abnormal"] = true;
  if (t.peer_pairs > 0) j["peer_pairs"] = t.peer_pairs;
  if (!t.expectation_reason.empty()) {
    j["expectation"] = {{"reason", t.expectation_reason}, {"reference", t.expectation_reference}};
  }
  j["kernel_log"] = t.kernel_log;
  if (!t.traffic.is_null()) j["traffic"] = t.traffic;
  return j;
}

absl::StatusOr<TestResult> TestFromJson(const nlohmann::json& j) {
  TestResult t;
  t.suite = j.at("suite").get<std::string>();
  t.name = j.at("name").get<std::string>();
  absl::StatusOr<TestStatus> status = TestStatusFromName(j.at("status").get<std::string>());
  if (!status.ok()) return status.status();
  t.status = *status;
  t.duration_ms = j.value("duration_ms", 0.0);
  t.setup_ms = j.value("setup_ms", 0.0);
  t.peer_pairs = j.value("peer_pairs", 0);
  t.message = j.value("message", "");
  t.capability = j.value("capability", "");
  t.purpose = j.value("purpose", "");
  t.reference = j.value("reference", "");
  t.needs = j.value("needs", std::vector<std::string>{});
  t.abnormal = j.value("abnormal", false);
  if (j.contains("expectation")) {
    t.expectation_reason = j["expectation"].value("reason", "");
    t.expectation_reference = j["expectation"].value("reference", "");
  }
  t.kernel_log = j.value("kernel_log", std::vector<std::string>{});
  if (j.contains("traffic")) t.traffic = j["traffic"];
  return t;
}

}  // namespace

nlohmann::json ResultsToJson(const RunResults& results) {
  RunSummary s = Summarize(results.tests);
  nlohmann::json suites = nlohmann::json::array();
  for (const SuiteTiming& suite : results.suites) {
    suites.push_back({{"name", suite.name}, {"duration_ms", suite.duration_ms}, {"setup_ms", suite.setup_ms},
                      {"processes", suite.processes}});
  }
  nlohmann::json tests = nlohmann::json::array();
  for (const TestResult& t : results.tests) tests.push_back(TestToJson(t));
  return {{"schema", "rdmacheck.results/1"},
          {"device", results.device},
          {"environment", results.environment},
          {"started", results.started},
          {"complete", results.complete},
          {"duration_ms", results.duration_ms},
          {"summary", SummaryToJson(s)},
          {"suites", suites},
          {"tests", tests}};
}

absl::StatusOr<RunResults> ResultsFromJson(const nlohmann::json& json) {
  try {
    RunResults r;
    r.device = json.at("device").get<std::string>();
    r.environment = json.value("environment", nlohmann::json::object());
    r.started = json.value("started", "");
    r.complete = json.value("complete", true);
    r.duration_ms = json.value("duration_ms", 0.0);
    for (const auto& s : json.value("suites", nlohmann::json::array())) {
      r.suites.push_back({s.at("name").get<std::string>(), s.value("duration_ms", 0.0), s.value("setup_ms", 0.0),
                           s.value("processes", 0)});
    }
    for (const auto& t : json.at("tests")) {
      absl::StatusOr<TestResult> test = TestFromJson(t);
      if (!test.ok()) return test.status();
      r.tests.push_back(*std::move(test));
    }
    return r;
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("results.json: ", e.what()));
  }
}

absl::StatusOr<RunResults> LoadResults(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  nlohmann::json json = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return absl::InvalidArgumentError(absl::StrCat(path, ": not valid JSON"));
  absl::StatusOr<RunResults> results = ResultsFromJson(json);
  if (!results.ok()) return absl::InvalidArgumentError(absl::StrCat(path, ": ", results.status().message()));
  return results;
}

namespace {

std::string XmlEscape(absl::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default:
        // XML 1.0 forbids most control characters even when escaped.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r') {
          out += '?';
        } else {
          out += c;
        }
    }
  }
  return out;
}

// The results of one <testsuite>, in the run's order.
struct JunitSuite {
  std::string name;
  double duration_ms = 0;
  bool timed = false;  // a suite the run planned; the run's own results' suites have no timing
  std::vector<const TestResult*> tests;
};

// The suites the run timed, in its order, then every other suite a result names ("capabilities",
// "run"): each result in exactly one.
std::vector<JunitSuite> JunitSuites(const RunResults& results) {
  std::vector<JunitSuite> suites;
  std::map<std::string, size_t> index;
  auto suite = [&](const std::string& name) -> JunitSuite& {
    auto [it, added] = index.emplace(name, suites.size());
    if (added) suites.emplace_back().name = name;
    return suites[it->second];
  };
  for (const SuiteTiming& timing : results.suites) {
    JunitSuite& s = suite(timing.name);
    s.duration_ms += timing.duration_ms;
    s.timed = true;
  }
  for (const TestResult& t : results.tests) {
    JunitSuite& s = suite(t.suite);
    s.tests.push_back(&t);
    if (!s.timed) s.duration_ms += t.duration_ms;
  }
  return suites;
}

}  // namespace

std::string ResultsToJunit(const RunResults& results) {
  std::ostringstream xml;
  RunSummary all = Summarize(results.tests);
  xml << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  xml << absl::StrFormat("<testsuites name=\"rdmacheck %s\" tests=\"%d\" failures=\"%d\" skipped=\"%d\" time=\"%.3f\">\n",
                         XmlEscape(results.device), all.total, all.fail + all.xpass, all.skip + all.xfail + all.blocked,
                         results.duration_ms / 1000);
  for (const JunitSuite& suite : JunitSuites(results)) {  // every result once: the totals above are the cases
    const std::vector<const TestResult*>& tests = suite.tests;
    int failures = 0, skipped = 0;
    for (const TestResult* t : tests) {
      failures += IsFailure(t->status);
      skipped += t->status == TestStatus::kSkip || t->status == TestStatus::kBlocked || t->status == TestStatus::kXfail;
    }
    xml << absl::StrFormat("  <testsuite name=\"%s.%s\" tests=\"%d\" failures=\"%d\" skipped=\"%d\" time=\"%.3f\">\n",
                           XmlEscape(results.device), XmlEscape(suite.name), tests.size(), failures, skipped,
                           suite.duration_ms / 1000);
    for (const TestResult* t : tests) {
      size_t dot = t->name.find('.');
      xml << absl::StrFormat("    <testcase classname=\"%s\" name=\"%s\" time=\"%.3f\"", XmlEscape(t->name.substr(0, dot)),
                             XmlEscape(dot == std::string::npos ? t->name : t->name.substr(dot + 1)),
                             t->duration_ms / 1000);
      std::string kernel_log;  // CI shows <system-err> beside the outcome
      for (const std::string& line : t->kernel_log) absl::StrAppend(&kernel_log, line, "\n");
      if (!kernel_log.empty()) {
        kernel_log = absl::StrCat("      <system-err>", XmlEscape(kernel_log), "</system-err>\n");
      }
      switch (t->status) {
        case TestStatus::kPass: xml << (kernel_log.empty() ? "/>\n" : ">\n" + kernel_log + "    </testcase>\n"); break;
        case TestStatus::kSkip:
          xml << ">\n      <skipped message=\"" << XmlEscape(t->message) << "\"/>\n    </testcase>\n";
          break;
        case TestStatus::kXfail:
          xml << ">\n      <skipped message=\"xfail: " << XmlEscape(t->expectation_reason) << "\"/>\n    </testcase>\n";
          break;
        case TestStatus::kBlocked:
          xml << ">\n      <skipped message=\"blocked: " << XmlEscape(t->message) << "\"/>\n    </testcase>\n";
          break;
        case TestStatus::kFail:
        case TestStatus::kXpass: {
          std::string message = t->status == TestStatus::kXpass
                                    ? "xpass: passed but listed as failing: " + t->expectation_reason
                                    : t->message;
          xml << ">\n      <failure message=\"" << XmlEscape(message.substr(0, message.find('\n'))) << "\">"
              << XmlEscape(message) << "</failure>\n" << kernel_log << "    </testcase>\n";
          break;
        }
      }
    }
    xml << "  </testsuite>\n";
  }
  xml << "</testsuites>\n";
  return xml.str();
}

}  // namespace rdmacheck
