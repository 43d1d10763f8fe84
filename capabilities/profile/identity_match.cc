#include "capabilities/profile/identity_match.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace rdmacheck {

std::string IdentityMismatch(const Identity& file, const Identity& device) {
  // Named as capabilities.json names them, so the reader finds the field in the file.
  static const std::pair<const char*, std::string Identity::*> kCompared[] = {
      {"driver", &Identity::driver}, {"node_guid", &Identity::node_guid}, {"fw_ver", &Identity::fw_ver},
      {"kernel", &Identity::kernel}, {"rdma_core", &Identity::rdma_core}};
  auto or_none = [](const std::string& value) { return value.empty() ? std::string("none") : value; };
  std::vector<std::string> differences;
  for (const auto& [name, field] : kCompared) {
    if (file.*field != device.*field) {
      differences.push_back(absl::StrCat(name, " ", or_none(file.*field), " vs ", or_none(device.*field)));
    }
  }
  return absl::StrJoin(differences, ", ");
}

}  // namespace rdmacheck
