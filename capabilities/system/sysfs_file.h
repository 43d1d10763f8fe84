// One value of sysfs (or procfs): the first line of a file, as the kernel wrote it.
#ifndef RDMACHECK_CAPABILITIES_SYSTEM_SYSFS_FILE_H_
#define RDMACHECK_CAPABILITIES_SYSTEM_SYSFS_FILE_H_

#include <string>

namespace rdmacheck {

// The first line of `path` without surrounding whitespace; "" when the file is absent or
// unreadable (sysfs has no empty values, so "" is never an answer of the kernel's).
std::string ReadSysfsLine(const std::string& path);

}  // namespace rdmacheck

#endif  // RDMACHECK_CAPABILITIES_SYSTEM_SYSFS_FILE_H_
