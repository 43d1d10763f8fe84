// --device, --port and --gid_index: which device, port and GID a command works on.
#ifndef RDMACHECK_HARNESS_SELECTION_FLAGS_H_
#define RDMACHECK_HARNESS_SELECTION_FLAGS_H_

#include <string>

#include "absl/flags/declare.h"
#include "absl/status/statusor.h"
#include "harness/device.h"

ABSL_DECLARE_FLAG(std::string, device);
ABSL_DECLARE_FLAG(int, port);
ABSL_DECLARE_FLAG(int, gid_index);

namespace rdmacheck {

// The request the flags describe; InvalidArgument for values out of range.
absl::StatusOr<SelectionRequest> SelectionRequestFromFlags();

}  // namespace rdmacheck

#endif  // RDMACHECK_HARNESS_SELECTION_FLAGS_H_
