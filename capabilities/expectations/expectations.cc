#include "capabilities/expectations/expectations.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

#include "capabilities/profile/cap.h"
#include "harness/share_dir.h"

#ifndef RDMACHECK_SOURCE_EXPECTATIONS_DIR
#define RDMACHECK_SOURCE_EXPECTATIONS_DIR ""
#endif

namespace rdmacheck {
namespace {

using json = nlohmann::json;

// "6.1.0-56-amd64" -> {6, 1, 0}: the leading dotted numbers.
std::vector<int> VersionParts(absl::string_view version) {
  size_t end = 0;
  while (end < version.size() && (absl::ascii_isdigit(version[end]) || version[end] == '.')) ++end;
  std::vector<int> parts;
  for (absl::string_view part : absl::StrSplit(version.substr(0, end), '.', absl::SkipEmpty())) {
    int n = 0;
    if (!absl::SimpleAtoi(part, &n)) break;
    parts.push_back(n);
  }
  return parts;
}

int CompareVersions(absl::string_view a, absl::string_view b) {
  std::vector<int> x = VersionParts(a), y = VersionParts(b);
  for (size_t i = 0; i < std::max(x.size(), y.size()); ++i) {
    int p = i < x.size() ? x[i] : 0, q = i < y.size() ? y[i] : 0;
    if (p != q) return p < q ? -1 : 1;
  }
  return 0;
}

// '*' and '?' as in --gtest_filter (one pattern, no ':' or '-').
bool Glob(absl::string_view pattern, absl::string_view text) {
  if (pattern.empty()) return text.empty();
  if (pattern[0] == '*') {
    for (size_t i = 0; i <= text.size(); ++i) {
      if (Glob(pattern.substr(1), text.substr(i))) return true;
    }
    return false;
  }
  if (text.empty()) return false;
  if (pattern[0] != '?' && pattern[0] != text[0]) return false;
  return Glob(pattern.substr(1), text.substr(1));
}

// "Inst/FooTest.Bar/1", "FooTest.Bar*": the fixture before the '.' is spelt out.
bool NamesAFixture(absl::string_view pattern) {
  const size_t dot = pattern.find('.');
  if (dot == absl::string_view::npos) return false;
  const size_t slash = pattern.substr(0, dot).rfind('/');
  absl::string_view fixture = pattern.substr(slash == absl::string_view::npos ? 0 : slash + 1,
                                             dot - (slash == absl::string_view::npos ? 0 : slash + 1));
  return !fixture.empty() && fixture.find_first_of("*?") == absl::string_view::npos;
}

absl::StatusOr<VersionRange> ParseRange(const json& j, const std::string& where) {
  if (!j.is_object()) return absl::InvalidArgumentError(absl::StrCat(where, ": must be {\"from\": .., \"before\": ..}"));
  VersionRange range;
  for (const auto& [key, value] : j.items()) {
    if ((key != "from" && key != "before") || !value.is_string() || VersionParts(value.get<std::string>()).empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": '", key, "' must be \"from\" or \"before\" with a version like \"6.1\""));
    }
    (key == "from" ? range.from : range.before) = value.get<std::string>();
  }
  return range;
}

absl::StatusOr<Expectation> ParseEntry(const json& j, const std::string& where) {
  if (!j.is_object()) return absl::InvalidArgumentError(absl::StrCat(where, ": must be an object"));
  static const char* const kKeys[] = {"test",   "capability", "kind",        "reason", "reference", "signature",
                                      "kernel", "rdma_core",  "on_the_wire", "rule",   "absorbs"};
  for (const auto& [key, value] : j.items()) {
    if (std::find(std::begin(kKeys), std::end(kKeys), key) == std::end(kKeys)) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": unknown key '", key, "'"));
    }
  }
  auto text = [&](const char* key) -> absl::StatusOr<std::string> {
    if (!j.contains(key) || !j[key].is_string() || j[key].get<std::string>().empty()) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": '", key, "' must be a non-empty string"));
    }
    return j[key].get<std::string>();
  };
  Expectation e;
  if (j.contains("capability")) {
    if (j.contains("test")) return absl::InvalidArgumentError(absl::StrCat(where, ": 'test' and 'capability' exclude each other"));
    if (!j["capability"].is_string() || !CapFromName(j["capability"].get<std::string>())) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": 'capability' must name a capability (rdmacheck probe lists them)"));
    }
    e.capability = j["capability"].get<std::string>();
  }
  absl::StatusOr<std::string> test = e.capability.empty() ? text("test") : absl::StatusOr<std::string>("-"),
                              kind = text("kind"), reason = text("reason"),
                              reference = text("reference"), signature = text("signature");
  for (const auto* s : {&test, &kind, &reason, &reference, &signature}) {
    if (!s->ok()) return s->status();
  }
  try {
    e.signature_re = std::make_shared<const std::regex>(*signature, std::regex::ECMAScript | std::regex::optimize);
  } catch (const std::regex_error& error) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": signature '", *signature, "' is not a regular expression: ", error.what()));
  }
  const std::vector<std::string> alternatives = SignatureAlternatives(*signature);
  if (alternatives.size() > kMaxSignatureAlternatives) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": signature has more than ", kMaxSignatureAlternatives,
                                                   " alternatives once its groups are multiplied out"));
  }
  for (const std::string& alternative : alternatives) {
    if (std::string broad = SignatureTooBroad(alternative); !broad.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": signature alternative '", alternative, "' ", broad,
                                                     ": name the deviating value"));
    }
  }
  e.signature = *signature;
  e.test = e.capability.empty() ? *test : "";
  if (e.capability.empty() && e.test.find_first_of(":- ") != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": test '", e.test, "' must be one pattern (no ':', '-', ' ')"));
  }
  if (e.capability.empty() && !NamesAFixture(e.test)) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": test '", e.test,
                                                   "' must name its fixture (\"Inst/FooTest.Bar*\"): an entry "
                                                   "for every test absorbs what no one has seen"));
  }
  if (*kind == "fails") {
    e.kind = ExpectationKind::kFails;
  } else if (*kind == "flaky") {
    e.kind = ExpectationKind::kFlaky;
  } else {
    return absl::InvalidArgumentError(absl::StrCat(where, ": kind '", *kind, "' must be \"fails\" or \"flaky\""));
  }
  e.reason = *reason;
  e.reference = *reference;
  if (j.contains("on_the_wire")) {
    if (!j["on_the_wire"].is_boolean() || !e.capability.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": 'on_the_wire' must be true or false, on a 'test' entry"));
    }
    e.on_the_wire = j["on_the_wire"].get<bool>();
  }
  if (e.on_the_wire != (j.contains("rule") || j.contains("absorbs"))) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, e.on_the_wire ? ": an 'on_the_wire' entry needs 'rule' (the wire rule it absorbs) and 'absorbs' "
                               "(the most violations of one test it absorbs)"
                             : ": 'rule' and 'absorbs' belong to an 'on_the_wire' entry"));
  }
  if (e.on_the_wire) {
    static const std::regex kRuleId(R"re([a-z]+\.[a-z0-9_]+)re");
    if (!j.contains("rule") || !j["rule"].is_string() || !std::regex_match(j["rule"].get<std::string>(), kRuleId)) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": 'rule' must be a wire rule id like \"roce.psn\" "
                                                            "(rdmacheck wire rules)"));
    }
    if (!j.contains("absorbs") || !j["absorbs"].is_number_integer() || j["absorbs"].get<int64_t>() < 1 ||
        j["absorbs"].get<int64_t>() > 1000000) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": 'absorbs' must be a count from 1 to 1000000"));
    }
    e.wire_rule = j["rule"].get<std::string>();
    e.absorbs = static_cast<int>(j["absorbs"].get<int64_t>());
  }
  for (auto [key, range] : {std::make_pair("kernel", &e.kernel), std::make_pair("rdma_core", &e.rdma_core)}) {
    if (!j.contains(key)) continue;
    absl::StatusOr<VersionRange> parsed = ParseRange(j[key], absl::StrCat(where, " ", key));
    if (!parsed.ok()) return parsed.status();
    *range = *parsed;
  }
  return e;
}

}  // namespace

const char* ExpectationKindName(ExpectationKind kind) { return kind == ExpectationKind::kFails ? "fails" : "flaky"; }

bool VersionRange::Contains(absl::string_view version) const {
  if (IsOpen()) return true;
  if (VersionParts(version).empty()) return false;  // an unknown version is in no closed range
  if (!from.empty() && CompareVersions(version, from) < 0) return false;
  if (!before.empty() && CompareVersions(version, before) >= 0) return false;
  return true;
}

bool Expectation::Matches(absl::string_view test_name) const {
  if (test.empty()) return false;  // a capability entry
  return Glob(test, test_name) || Glob(test, TestBodyName(std::string(test_name)));
}

// A failure message holds one part per failed assertion, separated by a blank line
// (AppendFailurePart, results/results.h); every part must be the known deviation: a second,
// different failure in the same test is not covered by the entry.
// Inside a blank-line block, a line that starts with a location ("file.cc:LINE: ", a wire
// violation's "link.pcap:FRAME: ", reports/wire_verdict.h) starts another part as well: lines
// appended one per line (the wire verdict's) are parts too, and splitting more never absorbs
// more. The lines after a "Google Test trace:" header (SCOPED_TRACE) look like parts but are
// the assertion's own, up to the end of its block; a capture's line is never a trace line.
std::vector<absl::string_view> FailureParts(absl::string_view message) {
  static const std::regex kLocated(R"re(^[^\s:]+\.(cc|h|pcap):\d+: )re");
  static const std::regex kCaptureLocated(R"re(^[^\s:]+\.pcap:\d+: )re");
  static constexpr absl::string_view kTraceHeader = "Google Test trace:";
  auto starts = [](absl::string_view line, const std::regex& location) {
    return std::regex_search(line.begin(), line.end(), location);
  };
  std::vector<absl::string_view> parts;
  for (absl::string_view block : absl::StrSplit(message, kFailurePartSeparator)) {
    const char* part = nullptr;  // where the part being read starts
    bool in_trace = false;
    for (absl::string_view line : absl::StrSplit(block, '\n')) {
      const bool new_part = in_trace ? starts(line, kCaptureLocated) : starts(line, kLocated);
      if (part != nullptr && new_part) {
        parts.push_back(absl::string_view(part, line.data() - part));
        part = nullptr;
        in_trace = false;
      }
      if (part == nullptr) part = line.data();
      in_trace = in_trace || absl::StripTrailingAsciiWhitespace(line) == kTraceHeader;
    }
    if (part != nullptr) parts.push_back(absl::string_view(part, block.data() + block.size() - part));
  }
  for (absl::string_view& part : parts) part = absl::StripAsciiWhitespace(part);
  parts.erase(std::remove(parts.begin(), parts.end(), absl::string_view()), parts.end());
  return parts;
}

bool Expectation::AbsorbsWire(const std::vector<std::string>& parts, std::string* why) const {
  auto refuse = [why](std::string reason) {
    if (why != nullptr) *why = std::move(reason);
    return false;
  };
  if (!on_the_wire || signature_re == nullptr) return refuse("not a wire entry");
  if (parts.size() > static_cast<size_t>(absorbs)) {
    return refuse(absl::StrCat(parts.size(), " violations, the entry absorbs at most ", absorbs, " per test"));
  }
  const std::string rule_field = absl::StrCat(": ", wire_rule, ": ");
  for (const std::string& part : parts) {
    // "link.pcap:FRAME: rule: ...": the rule is the third field.
    const size_t first = part.find(": ");
    if (first == std::string::npos || part.compare(first, rule_field.size(), rule_field) != 0) {
      return refuse(absl::StrCat("a violation of another rule than ", wire_rule, ": ", part));
    }
    if (!std::regex_search(part, *signature_re)) return refuse(absl::StrCat("signature does not match: ", part));
  }
  return true;
}

bool Expectation::MatchesFailure(absl::string_view message) const {
  if (signature_re == nullptr) return false;
  std::vector<absl::string_view> parts = FailureParts(message);
  if (parts.empty()) return false;
  return std::all_of(parts.begin(), parts.end(), [&](absl::string_view part) {
    return std::regex_search(part.begin(), part.end(), *signature_re);
  });
}

absl::StatusOr<ExpectationFile> ParseExpectations(const json& j, const std::string& path) {
  const std::string name = std::filesystem::path(path).filename().string();
  if (!j.is_object() || !j.contains("driver") || !j["driver"].is_string() || !j.contains("expectations") ||
      !j["expectations"].is_array()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": must be {\"driver\": \"<name>\", \"expectations\": [...]}"));
  }
  for (const auto& [key, value] : j.items()) {
    if (key != "driver" && key != "expectations" && key != "comment") {
      return absl::InvalidArgumentError(absl::StrCat(path, ": unknown key '", key, "'"));
    }
  }
  ExpectationFile file;
  file.path = path;
  file.driver = j["driver"].get<std::string>();
  int index = 0;
  for (const json& entry : j["expectations"]) {
    absl::StatusOr<Expectation> e = ParseEntry(entry, absl::StrCat(name, " entry ", index++));
    if (!e.ok()) return e.status();
    file.entries.push_back(*std::move(e));
  }
  return file;
}

absl::StatusOr<ExpectationFile> LoadExpectations(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read expectation file ", path));
  json j = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return absl::InvalidArgumentError(absl::StrCat(path, ": not valid JSON"));
  return ParseExpectations(j, path);
}

std::string ExpectationsDir() { return ShareDir("expectations", RDMACHECK_SOURCE_EXPECTATIONS_DIR); }

absl::StatusOr<std::optional<ExpectationFile>> ExpectationsForDriver(const std::string& driver) {
  if (driver.empty() || driver.find('/') != std::string::npos) return std::optional<ExpectationFile>();
  std::string path = absl::StrCat(ExpectationsDir(), "/", driver, ".json");
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::optional<ExpectationFile>();
  absl::StatusOr<ExpectationFile> file = LoadExpectations(path);
  if (!file.ok()) return file.status();
  return std::optional<ExpectationFile>(*std::move(file));
}

absl::StatusOr<std::vector<ExpectationFile>> AllShippedExpectations() {
  std::vector<std::string> paths;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(ExpectationsDir(), ec)) {
    if (entry.path().extension() == ".json") paths.push_back(entry.path().string());
  }
  if (ec) return absl::NotFoundError(absl::StrCat("cannot list ", ExpectationsDir(), ": ", ec.message()));
  std::sort(paths.begin(), paths.end());
  std::vector<ExpectationFile> files;
  for (const std::string& path : paths) {
    absl::StatusOr<ExpectationFile> file = LoadExpectations(path);
    if (!file.ok()) return file.status();
    std::string stem = std::filesystem::path(path).stem().string();
    if (file->driver != stem) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": \"driver\" is '", file->driver, "', but the file is named for '", stem, "'"));
    }
    files.push_back(*std::move(file));
  }
  return files;
}

std::vector<std::string> StaleEntries(const ExpectationFile& file, const std::vector<std::string>& test_names) {
  std::vector<std::string> stale;
  const std::string name = std::filesystem::path(file.path).filename().string();
  for (size_t i = 0; i < file.entries.size(); ++i) {
    const Expectation& e = file.entries[i];
    if (!e.capability.empty()) continue;  // checked against the capability names when parsed
    bool used = std::any_of(test_names.begin(), test_names.end(), [&](const std::string& t) { return e.Matches(t); });
    if (!used) {
      stale.push_back(absl::StrCat(name, " entry ", i, ": pattern '", e.test, "' matches no registered test"));
    }
  }
  return stale;
}

const Expectation* FindCapabilityExpectation(const ExpectationFile& file, absl::string_view capability,
                                             absl::string_view kernel, absl::string_view rdma_core) {
  for (const Expectation& e : file.entries) {
    if (e.capability == capability && e.kernel.Contains(kernel) && e.rdma_core.Contains(rdma_core)) return &e;
  }
  return nullptr;
}

const Expectation* FindExpectation(const ExpectationFile& file, absl::string_view test_name,
                                   absl::string_view kernel, absl::string_view rdma_core, bool on_the_wire) {
  for (const Expectation& e : file.entries) {
    if (e.on_the_wire == on_the_wire && e.Matches(test_name) && e.kernel.Contains(kernel) &&
        e.rdma_core.Contains(rdma_core)) {
      return &e;
    }
  }
  return nullptr;
}

std::vector<const Expectation*> FindWireExpectations(const ExpectationFile& file, absl::string_view test_name,
                                                     absl::string_view kernel, absl::string_view rdma_core) {
  std::vector<const Expectation*> found;
  for (const Expectation& e : file.entries) {
    if (e.on_the_wire && e.Matches(test_name) && e.kernel.Contains(kernel) && e.rdma_core.Contains(rdma_core)) {
      found.push_back(&e);
    }
  }
  return found;
}

const Expectation* FindMatchingExpectation(const ExpectationFile& file, absl::string_view name,
                                           absl::string_view message, absl::string_view kernel,
                                           absl::string_view rdma_core) {
  for (const Expectation& e : file.entries) {
    if (!e.on_the_wire && e.Matches(name) && e.kernel.Contains(kernel) && e.rdma_core.Contains(rdma_core) &&
        e.MatchesFailure(message)) {
      return &e;
    }
  }
  return nullptr;
}

void ApplyExpectation(const Expectation* e, TestResult& result) {
  // A kernel problem report is never an expected deviation (runner/kernel_log.h).
  if (e == nullptr || !result.kernel_log.empty()) return;
  const bool fails = e->kind == ExpectationKind::kFails;
  switch (result.status) {
    case TestStatus::kFail:
      if (result.abnormal || !e->MatchesFailure(result.message)) {
        result.message = absl::StrCat("not the known deviation (", e->reason, "; signature /", e->signature, "/",
                                      result.abnormal ? " never covers a crash, a hang, a leak or a kernel splat"
                                                      : " does not match",
                                      "): ", result.message);
        return;  // stays a failure
      }
      result.status = TestStatus::kXfail;
      break;
    case TestStatus::kPass:
      if (!fails) return;  // a flaky test that passed is just a pass
      result.status = TestStatus::kXpass;
      result.message = absl::StrCat("passed, but the expectation file lists it as failing: ", e->reason,
                                    " (stale entry, or the device was fixed)");
      break;
    default:
      return;  // skips (and results already judged) stay as they are
  }
  result.expectation_reason = fails ? e->reason : absl::StrCat("flaky: ", e->reason);
  result.expectation_reference = e->reference;
}

}  // namespace rdmacheck
