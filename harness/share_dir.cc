#include "harness/share_dir.h"

#include <filesystem>
#include <system_error>

namespace rdmacheck {

std::string ShareDir(absl::string_view name, const std::string& source_dir) {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const std::filesystem::path installed =
        self.parent_path().parent_path() / "share" / "rdmacheck" / std::string(name);
    if (std::filesystem::is_directory(installed, ec)) return installed.string();
  }
  return source_dir;
}

}  // namespace rdmacheck
