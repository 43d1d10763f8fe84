// --device, --port and --gid_index: which device, port and GID a command works on.
#ifndef RDMACHECK_HARNESS_SELECTION_FLAGS_H_
#define RDMACHECK_HARNESS_SELECTION_FLAGS_H_

#include <string>

#include "absl/flags/declare.h"
#include "absl/status/statusor.h"
#include "harness/device.h"
#include "harness/verbs/owners.h"

ABSL_DECLARE_FLAG(std::string, device);
ABSL_DECLARE_FLAG(int, port);
ABSL_DECLARE_FLAG(int, gid_index);

namespace rdmacheck {

// The request the flags describe; InvalidArgument for values out of range.
absl::StatusOr<SelectionRequest> SelectionRequestFromFlags();

// The device the flags name, opened, with its port and GID chosen: what every command
// that works on one device starts from. Errors are one line for the user.
struct SelectedDevice {
  ContextPtr context;
  Selection selection;
};
absl::StatusOr<SelectedDevice> OpenSelectedDevice();

}  // namespace rdmacheck

#endif  // RDMACHECK_HARNESS_SELECTION_FLAGS_H_
