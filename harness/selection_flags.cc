#include "harness/selection_flags.h"

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

ABSL_FLAG(std::string, device, "", "RDMA device to test, e.g. rxe0 or mlx5_0 (default: the only device)");
ABSL_FLAG(int, port, 0, "Port number (default: the first ACTIVE port)");
ABSL_FLAG(int, gid_index, -1,
          "GID table index (default: a RoCEv2 IPv4-mapped GID on RoCE, the only GID on iWARP)");

namespace rdmacheck {

absl::StatusOr<SelectionRequest> SelectionRequestFromFlags() {
  SelectionRequest request;
  request.device = absl::GetFlag(FLAGS_device);
  int port = absl::GetFlag(FLAGS_port);
  if (port < 0 || port > 255) {
    return absl::InvalidArgumentError(absl::StrCat("--port=", port, ": must be 1..255 (0 = first ACTIVE port)"));
  }
  if (port > 0) request.port = static_cast<uint8_t>(port);
  int gid_index = absl::GetFlag(FLAGS_gid_index);
  if (gid_index < -1) {
    return absl::InvalidArgumentError(absl::StrCat("--gid_index=", gid_index, ": must be >= 0 (-1 = automatic)"));
  }
  if (gid_index >= 0) request.gid_index = static_cast<uint32_t>(gid_index);
  return request;
}

absl::StatusOr<SelectedDevice> OpenSelectedDevice() {
  absl::StatusOr<SelectionRequest> request = SelectionRequestFromFlags();
  if (!request.ok()) return request.status();
  absl::StatusOr<ContextPtr> context = OpenDevice(request->device);
  if (!context.ok()) return context.status();
  absl::StatusOr<Selection> selection = Select(context->get(), *request);
  if (!selection.ok()) return selection.status();
  return SelectedDevice{*std::move(context), *std::move(selection)};
}

}  // namespace rdmacheck
