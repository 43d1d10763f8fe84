#include "plan/checks.h"

#include <filesystem>
#include <fstream>
#include <set>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "harness/share_dir.h"

namespace rdmacheck {

absl::StatusOr<Checks> LoadChecks(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.contains("checks") || !j["checks"].is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not a checks file (no \"checks\" object)"));
  }
  Checks checks;
  for (const auto& [test, ids] : j["checks"].items()) {
    if (!ids.is_array()) return absl::InvalidArgumentError(absl::StrCat(path, ": ", test, ": not a list of promise ids"));
    std::vector<std::string>& out = checks[test];
    for (const nlohmann::json& id : ids) {
      if (!id.is_string()) return absl::InvalidArgumentError(absl::StrCat(path, ": ", test, ": ", id.dump(), " is not an id"));
      out.push_back(id.get<std::string>());
    }
  }
  return checks;
}

std::vector<std::string> UnknownPromises(const Checks& checks, const PromiseSet& promises) {
  std::vector<std::string> unknown;
  for (const auto& [test, ids] : checks) {
    for (const std::string& id : ids) {
      if (promises.Find(id) == nullptr) {
        unknown.push_back(absl::StrCat(test, ": ", id, " names no promise of the man pages in ", promises.source));
      }
    }
  }
  return unknown;
}

std::vector<std::string> UndeclaredOrStale(const Checks& checks, const std::vector<TestAbout>& catalogue) {
  std::vector<std::string> problems;
  std::set<std::string> tests;
  for (const TestAbout& about : catalogue) {
    std::string name = absl::StrCat(about.fixture, ".", about.name);
    if (!checks.count(name)) {
      problems.push_back(absl::StrCat(about.file, ":", about.line, ": ", name, " has no entry in plan/checks.json"));
    }
    tests.insert(std::move(name));
  }
  for (const auto& [test, ids] : checks) {
    if (!tests.count(test)) problems.push_back(absl::StrCat("plan/checks.json: ", test, " names no test"));
  }
  return problems;
}

std::string PlanDataDir() { return ShareDir("plan", RDMACHECK_SOURCE_PLAN_DIR); }

}  // namespace rdmacheck
