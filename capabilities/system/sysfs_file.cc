#include "capabilities/system/sysfs_file.h"

#include <fstream>

#include "absl/strings/ascii.h"

namespace rdmacheck {

std::string ReadSysfsLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return std::string(absl::StripAsciiWhitespace(line));
}

}  // namespace rdmacheck
