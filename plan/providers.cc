#include "plan/providers.h"

#include <algorithm>
#include <fstream>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "nlohmann/json.hpp"

namespace rdmacheck {

absl::StatusOr<Providers> LoadProviders(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.contains("ops") || !j["ops"].is_object() || !j.contains("providers") ||
      !j["providers"].is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not a provider file (no \"ops\" and \"providers\" objects)"));
  }
  Providers out;
  for (const auto& [name, e] : j["providers"].items()) {
    Provider p;
    p.name = name;
    p.ops_table = e.value("ops_table", "");
    if (p.ops_table.empty() || !e.contains("ops") || !e["ops"].is_array()) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": provider ", name, " needs ops_table and ops"));
    }
    std::set<std::string> verbs;
    for (const nlohmann::json& op : e["ops"]) {
      const std::string member = op.is_string() ? op.get<std::string>() : "";
      if (!j["ops"].contains(member)) {
        return absl::InvalidArgumentError(absl::StrCat(path, ": provider ", name, " lists op \"", member,
                                                       "\", which \"ops\" does not map to a verb"));
      }
      for (const nlohmann::json& verb : j["ops"][member]) verbs.insert(verb.get<std::string>());
    }
    p.verbs.assign(verbs.begin(), verbs.end());
    const nlohmann::json no_path = e.value("no_failing_path", nlohmann::json::object());
    for (const auto& [id, why] : no_path.items()) {
      const std::string verb = std::vector<std::string>(absl::StrSplit(id, '/'))[0];
      if (!verbs.count(verb) || !why.is_string() || why.get<std::string>().empty()) {
        return absl::InvalidArgumentError(absl::StrCat(path, ": ", name, " no_failing_path ", id,
                                                       " must name a verb the provider implements and say why"));
      }
      p.no_failing_path[id] = why.get<std::string>();
    }
    out.emplace(name, std::move(p));
  }
  return out;
}

bool IsErrorPromise(const Promise& p) {
  if (p.kind == PromiseKind::kErrno) return true;
  return p.kind == PromiseKind::kReturns && p.what != "0" && p.what != "none";
}

ProviderErrors MeasureProviderErrors(const Coverage& coverage, const Provider& provider) {
  ProviderErrors e;
  e.provider = provider.name;
  e.ops_table = provider.ops_table;
  for (const std::string& verb : provider.verbs) {
    auto v = std::find_if(coverage.verbs.begin(), coverage.verbs.end(),
                          [&](const VerbCoverage& vc) { return vc.verb == verb; });
    if (v == coverage.verbs.end()) {
      e.undocumented.push_back(verb);
      continue;
    }
    ++e.verbs;
    std::vector<ProviderErrors::Error>& errors = e.by_verb[verb];
    bool complete = true;
    for (const PromiseCoverage& pc : v->promises) {
      if (!IsErrorPromise(*pc.promise)) continue;
      ProviderErrors::Error err{&pc, ""};
      ++e.errors;
      if (pc.state == CoverageState::kTested) {
        ++e.tested;
      } else if (auto why = provider.no_failing_path.find(pc.promise->Id()); why != provider.no_failing_path.end()) {
        err.no_failing_path = why->second;
        ++e.no_failing_path;
      } else if (pc.state == CoverageState::kUntestable) {
        ++e.untestable;
      } else {
        ++e.untested;
        complete = false;
      }
      errors.push_back(std::move(err));
    }
    e.verbs_complete += complete;
  }
  return e;
}

}  // namespace rdmacheck
