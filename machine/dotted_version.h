// Firmware versions compared as numbers, part by part: "28.39.1002" is below "28.100.0"
// though a string compare says otherwise.
#ifndef RDMACHECK_MACHINE_DOTTED_VERSION_H_
#define RDMACHECK_MACHINE_DOTTED_VERSION_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/strings/string_view.h"

namespace rdmacheck {

// The numbers of a version's leading "N.N.N" ("16.35.2000 (MT_0000000012)" -> 16, 35,
// 2000); nullopt when it does not start with a digit ("", "unknown").
std::optional<std::vector<uint64_t>> DottedVersion(absl::string_view text);

// <0, 0, >0 as a is below, equal to or above b; missing parts count as 0 ("28.39" ==
// "28.39.0").
int CompareVersions(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b);

}  // namespace rdmacheck

#endif  // RDMACHECK_MACHINE_DOTTED_VERSION_H_
