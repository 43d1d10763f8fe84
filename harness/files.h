#ifndef RDMACHECK_HARNESS_FILES_H_
#define RDMACHECK_HARNESS_FILES_H_

// Writing output files. Every file rdmacheck writes (results, profiles, reports) goes
// through WriteFile, so a missing output folder is created and an unwritable path is one
// clear error, never a silently empty file.

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace rdmacheck {

// Writes `content` to `path`, creating its parent folders. UNAVAILABLE: "cannot write PATH".
absl::Status WriteFile(const std::string& path, absl::string_view content);

}  // namespace rdmacheck

#endif  // RDMACHECK_HARNESS_FILES_H_
