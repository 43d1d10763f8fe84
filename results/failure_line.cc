#include "results/failure_line.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace rdmacheck {
namespace {

// "path/file.cc:176: rest" -> "rest"; any other line unchanged.
std::string WithoutLocation(const std::string& line, bool* had_location = nullptr) {
  const size_t colon = line.find(": ");
  size_t digits = colon;
  while (digits != std::string::npos && digits > 0 && std::isdigit(static_cast<unsigned char>(line[digits - 1]))) --digits;
  const bool located = colon != std::string::npos && digits < colon && digits > 0 && line[digits - 1] == ':' &&
                       line.find(' ') >= digits;
  if (had_location) *had_location = located;
  return located ? line.substr(colon + 2) : line;
}

}  // namespace

std::string FailureLine(const std::string& message, size_t max) {
  std::vector<std::string> lines;
  for (size_t start = 0; start <= message.size();) {
    const size_t end = std::min(message.find('\n', start), message.size());
    lines.push_back(message.substr(start, end - start));
    start = end + 1;
  }
  std::string line = WithoutLocation(lines.front());
  // The first failure's "Actual:" line, before the next failure starts.
  for (size_t i = 1; i < lines.size(); ++i) {
    bool next_failure = false;
    WithoutLocation(lines[i], &next_failure);
    if (next_failure) break;
    const size_t actual = lines[i].find("Actual: ");
    if (actual == std::string::npos) continue;
    const size_t explained = lines[i].rfind(": ");
    if (explained > actual + 6) line += lines[i].substr(explained);
    break;
  }
  if (line.size() > max) line = line.substr(0, max - 3) + "...";
  return line;
}

}  // namespace rdmacheck
