// Where rdmacheck's data files are: the installed copy (<prefix>/share/rdmacheck/NAME, next
// to the binary's bin/, as the .deb lays it out) or else the source tree's (a build run
// from its build directory).
#ifndef RDMACHECK_HARNESS_SHARE_DIR_H_
#define RDMACHECK_HARNESS_SHARE_DIR_H_

#include <string>

#include "absl/strings/string_view.h"

namespace rdmacheck {

// <dir of /proc/self/exe>/../share/rdmacheck/`name` when it is a directory, else `source_dir`.
std::string ShareDir(absl::string_view name, const std::string& source_dir);

}  // namespace rdmacheck

#endif  // RDMACHECK_HARNESS_SHARE_DIR_H_
