#include "plan/test_ids.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "nlohmann/json.hpp"

namespace rdmacheck {

absl::StatusOr<TestIds> LoadTestIds(const std::string& path) {
  TestIds ids;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return ids;
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || !j.contains("tests") || !j["tests"].is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not a test ID file (no \"tests\" object)"));
  }
  ids.version = j.value("version", 0);
  ids.next = j.value("next", 1);
  std::set<int> used;
  for (const char* part : {"tests", "retired"}) {
    const nlohmann::json entries = j.value(part, nlohmann::json::object());
    for (const auto& [test, number] : entries.items()) {
      if (!number.is_number_integer() || number.get<int>() < 1 || !used.insert(number.get<int>()).second) {
        return absl::InvalidArgumentError(absl::StrCat(path, ": ", test, ": ", number.dump(), " is not a free number"));
      }
      (std::string(part) == "tests" ? ids.tests : ids.retired)[test] = number.get<int>();
      ids.next = std::max(ids.next, number.get<int>() + 1);
    }
  }
  return ids;
}

absl::Status SaveTestIds(const std::string& path, const TestIds& ids) {
  nlohmann::json j = {{"version", ids.version}, {"next", ids.next}, {"tests", ids.tests}, {"retired", ids.retired}};
  const std::string tmp = absl::StrCat(path, ".tmp");
  {
    std::ofstream out(tmp);
    out << j.dump(2) << "\n";
    if (!out) return absl::PermissionDeniedError(absl::StrCat("cannot write ", tmp));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) return absl::PermissionDeniedError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

IdChanges AssignIds(TestIds& ids, const std::vector<std::string>& current) {
  IdChanges changes;
  std::set<std::string> now(current.begin(), current.end());
  for (auto it = ids.tests.begin(); it != ids.tests.end();) {
    if (now.count(it->first)) {
      ++it;
      continue;
    }
    changes.retired.push_back(*it);
    ids.retired[it->first] = it->second;
    it = ids.tests.erase(it);
  }
  for (const std::string& test : now) {  // name order: the same numbers on every machine
    if (ids.tests.count(test)) continue;
    auto back = ids.retired.find(test);
    int number = back != ids.retired.end() ? back->second : ids.next++;
    if (back != ids.retired.end()) ids.retired.erase(back);
    ids.tests[test] = number;
    changes.added.push_back({test, number});
  }
  if (!changes.empty()) ++ids.version;
  return changes;
}

std::string ShowId(int number) { return absl::StrFormat("T-%04d", number); }

absl::Status AppendChangeLog(const std::string& path, int version, const std::string& date, const IdChanges& changes) {
  std::ofstream out(path, std::ios::app);
  out << "\n## Plan version " << version << " (" << date << ")\n\n";
  for (const auto& [test, number] : changes.added) out << "- added " << ShowId(number) << " " << test << "\n";
  for (const auto& [test, number] : changes.retired) out << "- retired " << ShowId(number) << " " << test << "\n";
  if (!out) return absl::PermissionDeniedError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

}  // namespace rdmacheck
