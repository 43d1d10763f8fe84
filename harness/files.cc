#include "harness/files.h"

#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"

namespace rdmacheck {

absl::Status WriteFile(const std::string& path, absl::string_view content) {
  std::error_code ec;
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  std::ofstream out(path, std::ios::binary);
  out << content;
  out.close();
  if (!out) return absl::UnavailableError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

}  // namespace rdmacheck
