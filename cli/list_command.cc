// rdmacheck list: the catalogue of tests, the page a person reads to learn what is checked.
#include <stdlib.h>

#include <fstream>
#include <iostream>
#include <set>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "capabilities/expectations/expectations.h"
#include "gtest/gtest.h"
#include "cli/commands.h"
#include "cli/expectation_flags.h"
#include "runner/test_selection.h"
#include "testing/catalogue.h"
#include "nlohmann/json.hpp"

ABSL_DECLARE_FLAG(std::string, opcodes);

ABSL_FLAG(bool, check, false,
          "Fail (exit 1) when a test has no catalogue entry, an entry names no test, or a shipped expectation "
          "file is malformed or has a pattern that matches no test");

namespace rdmacheck {
namespace {

// One row per catalogue entry (a TEST_P pattern is one entry for all its instances).
struct Row {
  std::string suite;
  const TestAbout* about;
  int instances;
};

std::string Needs(const TestAbout& about) {
  std::vector<std::string> names;
  for (Cap cap : about.needs) names.emplace_back(CapName(cap));
  return absl::StrJoin(names, ", ");
}

// Problems `--check` reports: tests without an entry, entries without a test.
std::vector<std::string> CatalogueProblems(const std::vector<RegisteredTest>& tests) {
  std::vector<std::string> problems;
  std::set<std::pair<std::string, std::string>> used;
  for (const RegisteredTest& t : tests) {
    auto key = CatalogueKey(t.test_suite, t.test_name);
    if (FindAbout(t.test_suite, t.test_name) == nullptr) {
      if (used.insert(key).second) {
        problems.push_back(absl::StrCat(t.name, ": no RDMACHECK_ABOUT(", key.first, ", ", key.second, ", ...)"));
      }
    } else {
      used.insert(key);
    }
  }
  for (const TestAbout& a : Catalogue()) {
    if (!used.count({a.fixture, a.name})) {
      problems.push_back(absl::StrCat(a.file, ":", a.line, ": RDMACHECK_ABOUT(", a.fixture, ", ", a.name,
                                      ") names no registered test"));
    }
  }
  for (const RunsAlone& mark : RunsAloneMarks()) {
    if (!used.count({mark.fixture, mark.name})) {
      problems.push_back(absl::StrCat(mark.file, ":", mark.line, ": RDMACHECK_RUNS_ALONE(", mark.fixture, ", ",
                                      mark.name, ") names no registered test"));
    }
  }
  return problems;
}

// What passing tests put on the wire in the wire lab (cli/wire_slices_command.cc), by test
// body: {"DatapathTest.Send": {"rxe": {"sequence": [...]}, "siw": ...}}. Empty when the wire
// lab has not run here.
nlohmann::json WireOpcodes() {
  std::string path = absl::GetFlag(FLAGS_opcodes);
  if (path.empty()) {
    const char* out = getenv("RDMACHECK_OUT");
    path = absl::StrCat(out != nullptr && *out != '\0' ? out : "out", "/wire/opcodes.json");
  }
  std::ifstream in(path);
  nlohmann::json j = in ? nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false) : nlohmann::json::object();
  return j.is_object() ? j : nlohmann::json::object();
}

// "rxe: B>A RC SEND Only, A>B RC Acknowledge" per link, at most kShownSteps steps each.
constexpr size_t kShownSteps = 8;
std::vector<std::string> OnTheWire(const nlohmann::json& opcodes, const std::string& test) {
  std::vector<std::string> lines;
  if (!opcodes.contains(test)) return lines;
  for (const auto& [link, seen] : opcodes[test].items()) {
    std::vector<std::string> steps;
    const nlohmann::json sequence = seen.value("sequence", nlohmann::json::array());
    for (const nlohmann::json& step : sequence) {
      if (steps.size() == kShownSteps) {  // a line to read, not the whole exchange
        steps.push_back(absl::StrCat("... (", sequence.size(), " steps)"));
        break;
      }
      steps.push_back(step.get<std::string>());
    }
    lines.push_back(absl::StrCat(link, ": ", absl::StrJoin(steps, ", ")));
  }
  return lines;
}

}  // namespace

int ListCommand(const std::vector<std::string>& positional) {
  if (!positional.empty()) return UsageError("list takes no arguments");
  const std::string format = absl::GetFlag(FLAGS_format);
  if (format != "text" && format != "json" && format != "md") return UsageError("--format must be text, json or md");
  std::vector<RegisteredTest> tests = RegisteredTests();

  if (absl::GetFlag(FLAGS_check)) {
    std::vector<std::string> problems = CatalogueProblems(tests);
    absl::StatusOr<std::vector<ExpectationFile>> expectations = AllShippedExpectations();
    if (!expectations.ok()) {
      problems.emplace_back(expectations.status().message());
    } else {
      for (const ExpectationFile& file : *expectations) {
        for (std::string& stale : StaleEntries(file, ExpectableNames())) problems.push_back(std::move(stale));
      }
    }
    for (const std::string& p : problems) std::cerr << "rdmacheck list: " << p << "\n";
    std::cout << "rdmacheck list: " << tests.size() << " tests, " << Catalogue().size() << " catalogue entries, "
              << (expectations.ok() ? expectations->size() : 0) << " expectation files, " << problems.size()
              << " problems" << std::endl;
    return problems.empty() ? kExitOk : kExitFailures;
  }

  const nlohmann::json opcodes = WireOpcodes();
  std::vector<Row> rows;
  for (const RegisteredTest& t : tests) {
    const TestAbout* about = FindAbout(t.test_suite, t.test_name);
    if (about == nullptr) continue;
    if (!rows.empty() && rows.back().about == about) {
      ++rows.back().instances;
    } else {
      rows.push_back({t.suite, about, 1});
    }
  }
  if (format == "json") {
    nlohmann::json out = nlohmann::json::array();
    for (const Row& r : rows) {
      std::vector<std::string> needs;
      for (Cap cap : r.about->needs) needs.emplace_back(CapName(cap));
      nlohmann::json row = {{"suite", r.suite},
                            {"test", absl::StrCat(r.about->fixture, ".", r.about->name)},
                            {"instances", r.instances},
                            {"purpose", r.about->purpose},
                            {"reference", r.about->reference},
                            {"needs", needs}};
      if (const RunsAlone* alone = FindRunsAlone(r.about->fixture, r.about->name)) row["runs_alone"] = alone->why;
      const std::string test = absl::StrCat(r.about->fixture, ".", r.about->name);
      if (opcodes.contains(test)) row["on_the_wire"] = opcodes[test];
      out.push_back(std::move(row));
    }
    std::cout << out.dump(2) << std::endl;
    return kExitOk;
  }
  std::string suite;
  for (const Row& r : rows) {
    std::string name = absl::StrCat(r.about->fixture, ".", r.about->name);
    std::string count = r.instances > 1 ? absl::StrCat(" (", r.instances, " cases)") : "";
    if (format == "md") {
      if (r.suite != suite) std::cout << "\n## " << r.suite << "\n\n| Test | Checks | Reference | Needs |\n|---|---|---|---|\n";
      std::cout << "| <a id=\"" << name << "\"></a>`" << name << "`" << count << " | " << r.about->purpose << " | "
                << r.about->reference << " | " << Needs(*r.about) << " |\n";
    } else {
      if (r.suite != suite) std::cout << "\n" << r.suite << "\n";
      std::cout << "  " << name << count << "\n      " << r.about->purpose << "\n";
      if (!r.about->reference.empty()) std::cout << "      ref: " << r.about->reference << "\n";
      if (!r.about->needs.empty()) std::cout << "      needs: " << Needs(*r.about) << "\n";
      if (const RunsAlone* alone = FindRunsAlone(r.about->fixture, r.about->name)) {
        std::cout << "      runs alone (run --jobs): " << alone->why << "\n";
      }
      for (const std::string& line : OnTheWire(opcodes, name)) std::cout << "      on the wire, " << line << "\n";
    }
    suite = r.suite;
  }
  return kExitOk;
}

}  // namespace rdmacheck
