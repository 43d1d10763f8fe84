#include "reports/report_diff.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace rdmacheck {

const char* ChangeKindName(ChangeKind kind) {
  switch (kind) {
    case ChangeKind::kRegression:
      return "regression";
    case ChangeKind::kNewFailing:
      return "new_failing";
    case ChangeKind::kFixed:
      return "fixed";
    case ChangeKind::kChanged:
      return "changed";
    case ChangeKind::kAdded:
      return "added";
    case ChangeKind::kRemoved:
      return "removed";
  }
  return "unknown";
}

ChangeKind ClassifyChange(std::optional<TestStatus> before, std::optional<TestStatus> after) {
  if (!before) return after && IsFailure(*after) ? ChangeKind::kNewFailing : ChangeKind::kAdded;
  if (!after) return ChangeKind::kRemoved;
  if (!IsFailure(*before) && IsFailure(*after)) return ChangeKind::kRegression;
  if (IsFailure(*before) && (*after == TestStatus::kPass || *after == TestStatus::kXfail)) return ChangeKind::kFixed;
  return ChangeKind::kChanged;
}

bool IsCapabilityRegression(const std::string& before, const std::string& after) {
  return before == "supported" && (after == "unsupported" || after == "broken");
}

int ReportDiff::Regressions() const {
  int n = static_cast<int>(devices_removed.size());
  for (const TestChange& t : tests) n += t.kind == ChangeKind::kRegression;
  for (const CapabilityChange& c : capabilities) n += c.regression;
  return n;
}

namespace {

void DiffDevice(const DeviceSection& old_dev, const DeviceSection& new_dev, const std::string& name, ReportDiff& diff) {
  const std::vector<TestResult>& old_tests = old_dev.run.results.tests;
  const std::vector<TestResult>& new_tests = new_dev.run.results.tests;
  std::map<std::pair<std::string, std::string>, const TestResult*> old_by_name;
  for (const TestResult& t : old_tests) old_by_name[{t.suite, t.name}] = &t;
  std::set<std::pair<std::string, std::string>> seen;
  for (const TestResult& t : new_tests) {
    seen.insert({t.suite, t.name});
    auto it = old_by_name.find({t.suite, t.name});
    std::optional<TestStatus> before;
    if (it != old_by_name.end()) before = it->second->status;
    if (before == t.status) {
      ++diff.unchanged_tests;
      continue;
    }
    std::string message = t.status == TestStatus::kXpass
                              ? absl::StrCat("passed, but listed as failing: ", t.expectation_reason)
                              : t.message;
    diff.tests.push_back({ClassifyChange(before, t.status), name, t.suite, t.name, before, t.status, message});
  }
  for (const TestResult& t : old_tests) {
    if (seen.count({t.suite, t.name})) continue;
    diff.tests.push_back({ChangeKind::kRemoved, name, t.suite, t.name, t.status, std::nullopt, ""});
  }

  std::set<std::string> caps;
  for (const auto& [cap, o] : old_dev.run.observed) caps.insert(cap);
  for (const auto& [cap, o] : new_dev.run.observed) caps.insert(cap);
  for (const std::string& cap : caps) {
    auto b = old_dev.run.observed.find(cap);
    auto a = new_dev.run.observed.find(cap);
    std::string before = b == old_dev.run.observed.end() ? "" : b->second.outcome;
    std::string after = a == new_dev.run.observed.end() ? "" : a->second.outcome;
    if (before == after) continue;
    diff.capabilities.push_back({name, cap, before, after, IsCapabilityRegression(before, after)});
  }
}

std::string StatusOrAbsent(const std::optional<TestStatus>& s) { return s ? TestStatusName(*s) : "(not run)"; }
std::string OutcomeOrAbsent(const std::string& s) { return s.empty() ? "(not probed)" : s; }

std::string FirstLine(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  if (line.size() > 160) line = line.substr(0, 157) + "...";
  return line;
}

const char* KindTitle(ChangeKind kind) {
  switch (kind) {
    case ChangeKind::kRegression:
      return "newly failing";
    case ChangeKind::kNewFailing:
      return "new tests, failing";
    case ChangeKind::kFixed:
      return "fixed";
    case ChangeKind::kChanged:
      return "changed";
    case ChangeKind::kAdded:
      return "new tests";
    case ChangeKind::kRemoved:
      return "no longer run";
  }
  return "";
}

constexpr ChangeKind kKinds[] = {ChangeKind::kRegression, ChangeKind::kNewFailing, ChangeKind::kFixed,
                                 ChangeKind::kChanged,    ChangeKind::kAdded,      ChangeKind::kRemoved};

}  // namespace

ReportDiff DiffReports(const Report& before, const Report& after) {
  ReportDiff diff;
  auto name_of = [](const DeviceSection& d) { return d.run.results.device; };
  std::vector<std::pair<const DeviceSection*, const DeviceSection*>> pairs;
  if (before.devices.size() == 1 && after.devices.size() == 1) {
    pairs.emplace_back(&before.devices[0], &after.devices[0]);
  } else {
    for (const DeviceSection& n : after.devices) {
      const DeviceSection* match = nullptr;
      for (const DeviceSection& o : before.devices) {
        if (name_of(o) == name_of(n)) match = &o;
      }
      if (match) {
        pairs.emplace_back(match, &n);
      } else {
        diff.devices_added.push_back(name_of(n));
      }
    }
    for (const DeviceSection& o : before.devices) {
      bool found = false;
      for (const DeviceSection& n : after.devices) found = found || name_of(o) == name_of(n);
      if (!found) diff.devices_removed.push_back(name_of(o));
    }
  }
  for (const auto& [o, n] : pairs) {
    std::string name = name_of(*o) == name_of(*n) ? name_of(*n) : absl::StrCat(name_of(*o), " -> ", name_of(*n));
    DiffDevice(*o, *n, name, diff);
  }
  std::stable_sort(diff.tests.begin(), diff.tests.end(),
                   [](const TestChange& a, const TestChange& b) { return a.kind < b.kind; });
  std::stable_sort(diff.capabilities.begin(), diff.capabilities.end(),
                   [](const CapabilityChange& a, const CapabilityChange& b) { return a.regression > b.regression; });
  return diff;
}

std::string DiffToText(const ReportDiff& diff, const std::string& old_name, const std::string& new_name) {
  std::string out = absl::StrCat("rdmacheck report diff: ", old_name, " -> ", new_name, "\n");
  for (const std::string& d : diff.devices_removed)
    absl::StrAppend(&out, "REGRESSION device ", d, ": missing from NEW\n");
  for (const CapabilityChange& c : diff.capabilities) {
    if (!c.regression) continue;
    absl::StrAppend(&out, "REGRESSION ", c.device, " capability ", c.capability, ": ", c.before, " -> ", c.after, "\n");
  }
  for (ChangeKind kind : kKinds) {
    int n = 0;
    for (const TestChange& t : diff.tests) n += t.kind == kind;
    if (n == 0) continue;
    absl::StrAppend(&out, kind == ChangeKind::kRegression ? "REGRESSION: " : "", n, " ", KindTitle(kind), ":\n");
    int shown = 0;
    for (const TestChange& t : diff.tests) {
      if (t.kind != kind) continue;
      // Regressions are all listed; the rest is capped to keep the output one screen.
      if (kind != ChangeKind::kRegression && kind != ChangeKind::kNewFailing && ++shown > 10) {
        absl::StrAppend(&out, "  ... ", n - 10, " more (see --format=json)\n");
        break;
      }
      absl::StrAppend(&out, "  ", t.device, " ", t.suite, " ", t.test, ": ", StatusOrAbsent(t.before), " -> ",
                      StatusOrAbsent(t.after), "\n");
      if ((kind == ChangeKind::kRegression || kind == ChangeKind::kNewFailing) && !t.message.empty()) {
        absl::StrAppend(&out, "      ", FirstLine(t.message), "\n");
      }
    }
  }
  for (const CapabilityChange& c : diff.capabilities) {
    if (c.regression) continue;
    absl::StrAppend(&out, "  ", c.device, " capability ", c.capability, ": ", OutcomeOrAbsent(c.before), " -> ",
                    OutcomeOrAbsent(c.after), "\n");
  }
  for (const std::string& d : diff.devices_added) absl::StrAppend(&out, "  device ", d, ": new in NEW\n");
  absl::StrAppend(&out, "rdmacheck report diff: ",
                  diff.Regressed() ? absl::StrCat(diff.Regressions(), " regression(s)") : std::string("no regression"),
                  "; ", diff.tests.size(), " tests changed, ", diff.unchanged_tests, " unchanged; ",
                  diff.capabilities.size(), " capabilities changed\n");
  return out;
}

std::string DiffToMarkdown(const ReportDiff& diff, const std::string& old_name, const std::string& new_name) {
  std::string out = absl::StrCat(
      "## rdmacheck report diff\n\n`", old_name, "` → `", new_name, "`: ",
      diff.Regressed() ? absl::StrCat("**", diff.Regressions(), " regression(s)**") : std::string("no regression"),
      ", ", diff.tests.size(), " tests changed, ", diff.capabilities.size(), " capabilities changed.\n\n");
  for (const std::string& d : diff.devices_removed) absl::StrAppend(&out, "- ❌ device `", d, "` is missing from NEW\n");
  for (const std::string& d : diff.devices_added) absl::StrAppend(&out, "- device `", d, "` is new\n");
  if (!diff.tests.empty()) {
    out += "\n| Change | Device | Suite | Test | Before | After |\n|---|---|---|---|---|---|\n";
    for (const TestChange& t : diff.tests) {
      absl::StrAppend(&out, "| ", t.kind == ChangeKind::kRegression ? "❌ " : "", KindTitle(t.kind), " | ", t.device,
                      " | ", t.suite, " | `", t.test, "` | ", StatusOrAbsent(t.before), " | ", StatusOrAbsent(t.after),
                      " |\n");
    }
  }
  if (!diff.capabilities.empty()) {
    out += "\n| Capability | Device | Before | After |\n|---|---|---|---|\n";
    for (const CapabilityChange& c : diff.capabilities) {
      absl::StrAppend(&out, "| ", c.regression ? "❌ " : "", "`", c.capability, "` | ", c.device, " | ",
                      OutcomeOrAbsent(c.before), " | ", OutcomeOrAbsent(c.after), " |\n");
    }
  }
  return out;
}

nlohmann::json DiffToJson(const ReportDiff& diff, const std::string& old_name, const std::string& new_name) {
  auto status = [](const std::optional<TestStatus>& s) {
    return s ? nlohmann::json(TestStatusName(*s)) : nlohmann::json(nullptr);
  };
  nlohmann::json tests = nlohmann::json::array();
  for (const TestChange& t : diff.tests) {
    tests.push_back({{"kind", ChangeKindName(t.kind)},
                     {"device", t.device},
                     {"suite", t.suite},
                     {"test", t.test},
                     {"before", status(t.before)},
                     {"after", status(t.after)},
                     {"message", t.message}});
  }
  nlohmann::json caps = nlohmann::json::array();
  for (const CapabilityChange& c : diff.capabilities) {
    caps.push_back({{"device", c.device},
                    {"capability", c.capability},
                    {"before", c.before},
                    {"after", c.after},
                    {"regression", c.regression}});
  }
  return {{"schema", "rdmacheck.report-diff/1"},
          {"old", old_name},
          {"new", new_name},
          {"regressions", diff.Regressions()},
          {"unchanged_tests", diff.unchanged_tests},
          {"devices_removed", diff.devices_removed},
          {"devices_added", diff.devices_added},
          {"tests", tests},
          {"capabilities", caps}};
}

}  // namespace rdmacheck
