#include "machine/dotted_version.h"

#include <algorithm>

namespace rdmacheck {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
constexpr uint64_t kLargest = uint64_t{1} << 48;  // a part past this is clamped, not wrapped

}  // namespace

std::optional<std::vector<uint64_t>> DottedVersion(absl::string_view text) {
  std::vector<uint64_t> parts;
  size_t i = 0;
  while (i < text.size() && IsDigit(text[i])) {
    uint64_t n = 0;
    for (; i < text.size() && IsDigit(text[i]); ++i) n = std::min<uint64_t>(n * 10 + (text[i] - '0'), kLargest);
    parts.push_back(n);
    // A dot and a digit continue the version; anything else ends it.
    if (i + 1 >= text.size() || text[i] != '.' || !IsDigit(text[i + 1])) break;
    ++i;
  }
  if (parts.empty()) return std::nullopt;
  return parts;
}

int CompareVersions(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    const uint64_t x = i < a.size() ? a[i] : 0, y = i < b.size() ? b[i] : 0;
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

}  // namespace rdmacheck
