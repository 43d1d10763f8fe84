#include "plan/coverage.h"

#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "plan/references.h"
#include "nlohmann/json.hpp"

namespace rdmacheck {
namespace {

absl::StatusOr<nlohmann::json> ReadJson(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return absl::InvalidArgumentError(absl::StrCat(path, ": not valid JSON"));
  return j;
}

// "Connect/RcSendSizeTest.SendArrivesIntact/Manual_One" -> "RcSendSizeTest.SendArrivesIntact".
std::string TestKey(const std::string& name) {
  size_t dot = name.find('.');
  if (dot == std::string::npos) return name;
  auto [fixture, test] = CatalogueKey(name.substr(0, dot), name.substr(dot + 1));
  return absl::StrCat(fixture, ".", test);
}

}  // namespace

const char* CoverageStateName(CoverageState state) {
  switch (state) {
    case CoverageState::kTested: return "tested";
    case CoverageState::kUntestable: return "untestable";
    case CoverageState::kUntested: return "untested";
  }
  return "?";
}

absl::StatusOr<RunEvidence> LoadRunEvidence(const std::string& dir) {
  RunEvidence run;
  run.dir = dir;
  const std::string results = absl::StrCat(dir, "/results.json"), caps = absl::StrCat(dir, "/capabilities.json");
  std::error_code ec;
  if (!std::filesystem::exists(results, ec) && !std::filesystem::exists(caps, ec)) {
    return absl::NotFoundError(absl::StrCat("cannot read ", dir, ": no results.json or capabilities.json"));
  }
  if (std::filesystem::exists(results, ec)) {
    absl::StatusOr<nlohmann::json> j = ReadJson(results);
    if (!j.ok()) return j.status();
    run.driver = j->value("environment", nlohmann::json::object()).value("driver", "");
    for (const nlohmann::json& t : j->value("tests", nlohmann::json::array())) {
      const std::string key = TestKey(t.value("name", ""));
      const std::string status = t.value("status", ""), capability = t.value("capability", "");
      if (status == "skip" && !capability.empty()) {
        run.skipped_for.emplace(key, capability);
      } else if (status != "skip" && status != "blocked") {
        run.ran.insert(key);
      }
    }
  }
  if (std::filesystem::exists(caps, ec)) {
    absl::StatusOr<nlohmann::json> j = ReadJson(caps);
    if (!j.ok()) return j.status();
    const nlohmann::json observed = j->value("observed", nlohmann::json::object());  // items() must not outlive it
    for (const auto& [cap, seen] : observed.items()) {
      if (seen.is_object() && seen.value("outcome", "") != "supported") run.absent.insert(cap);
    }
  }
  return run;
}

Coverage MeasureCoverage(const PromiseSet& promises, const Checks& checks, const std::vector<TestAbout>& catalogue,
                         const RunEvidence* run) {
  Coverage c;
  c.manpages = promises.source;
  c.pages = promises.pages;
  c.with_run = run != nullptr;
  if (run != nullptr) c.run_dir = run->dir;

  // Why a test cannot check anything on this device ("" when it can).
  std::map<std::string, std::string> blocked;
  std::map<std::string, std::vector<std::string>> declared_by;  // promise id -> tests
  for (const TestAbout& about : catalogue) {
    const std::string name = absl::StrCat(about.fixture, ".", about.name);
    ++c.tests;
    for (const std::string& section : CitedSections(about.reference)) ++c.citations[section];
    auto declared = checks.find(name);
    if (declared == checks.end()) continue;
    c.tests_declaring += !declared->second.empty();
    for (const std::string& id : declared->second) declared_by[id].push_back(name);
    if (run == nullptr || run->ran.count(name)) continue;
    if (auto skip = run->skipped_for.find(name); skip != run->skipped_for.end()) {
      blocked[name] = skip->second;
      continue;
    }
    for (Cap cap : about.needs) {
      if (run->absent.count(CapName(cap))) blocked[name] = CapName(cap);
    }
  }
  for (const auto& [test, ids] : checks) {
    for (const std::string& id : ids) {
      if (promises.Find(id) == nullptr) c.unknown.push_back(absl::StrCat(test, ": ", id));
    }
  }

  for (const auto& [verb, list] : promises.by_verb) {
    VerbCoverage v;
    v.verb = verb;
    auto page = promises.verb_page.find(verb);
    v.page = page == promises.verb_page.end() ? "" : page->second;
    for (const Promise& p : list) {
      PromiseCoverage pc{&p, CoverageState::kUntested, {}, ""};
      auto tests = declared_by.find(p.Id());
      if (tests != declared_by.end()) {
        pc.tests = tests->second;
        std::vector<std::string> reasons;
        for (const std::string& t : pc.tests) {
          auto b = blocked.find(t);
          if (b == blocked.end()) break;
          reasons.push_back(absl::StrCat(t, " needs ", b->second));
        }
        pc.state = reasons.size() == pc.tests.size() ? CoverageState::kUntestable : CoverageState::kTested;
        if (pc.state == CoverageState::kUntestable) pc.why = absl::StrJoin(reasons, "; ");
      }
      switch (pc.state) {
        case CoverageState::kTested: ++v.tested; break;
        case CoverageState::kUntestable: ++v.untestable; break;
        case CoverageState::kUntested: ++v.untested; break;
      }
      v.promises.push_back(std::move(pc));
    }
    c.promises += v.promises.size();
    c.tested += v.tested;
    c.untestable += v.untestable;
    c.untested += v.untested;
    c.verbs_with_a_test += v.tested + v.untestable > 0;
    c.verbs.push_back(std::move(v));
  }
  return c;
}

}  // namespace rdmacheck
