#include "plan/prose.h"

#include <fstream>
#include <set>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace rdmacheck {

absl::StatusOr<std::vector<ProsePromise>> LoadProsePromises(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.contains("promises") || !j["promises"].is_array()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not a prose promise file (no \"promises\" array)"));
  }
  std::vector<ProsePromise> out;
  std::set<std::string> ids;
  for (const nlohmann::json& e : j["promises"]) {
    ProsePromise p;
    p.promise.kind = PromiseKind::kBehaviour;
    p.promise.verb = e.value("verb", "");
    p.promise.what = e.value("what", "");
    p.promise.page = e.value("page", "");
    p.promise.line = e.value("line", 0);
    p.promise.text = e.value("statement", "");
    p.quote = e.value("quote", "");
    if (p.promise.verb.empty() || p.promise.what.empty() || p.promise.page.empty() || p.promise.line <= 0 ||
        p.quote.empty() || p.promise.text.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": entry ", e.dump(), " needs verb, what, page, line, quote and statement"));
    }
    if (!ids.insert(p.promise.Id()).second) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": ", p.promise.Id(), " is listed twice"));
    }
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<std::string> AddProsePromises(const std::vector<ProsePromise>& prose, PromiseSet& set) {
  std::vector<std::string> dropped;
  for (const ProsePromise& p : prose) {
    auto verb = set.by_verb.find(p.promise.verb);
    if (verb == set.by_verb.end()) {
      dropped.push_back(p.promise.Id());
    } else if (set.Find(p.promise.Id()) == nullptr) {
      verb->second.push_back(p.promise);
    }
  }
  return dropped;
}

}  // namespace rdmacheck
