#include "testing/test_device.h"

#include <memory>

#include "capabilities/probes/probe.h"
#include "harness/status.h"

namespace rdmacheck {
namespace {
std::unique_ptr<TestDevice>& Instance() {
  static std::unique_ptr<TestDevice> device;
  return device;
}
}  // namespace

absl::Status TestDevice::Open(const SelectionRequest& request, const std::string& profile_path) {
  auto device = std::unique_ptr<TestDevice>(new TestDevice());
  RDMACHECK_ASSIGN_OR_RETURN(device->context_, OpenDevice(request.device));
  RDMACHECK_ASSIGN_OR_RETURN(device->selection_, Select(device->context_.get(), request));
  if (profile_path.empty()) {
    RDMACHECK_ASSIGN_OR_RETURN(device->profile_, ProbeDevice(device->context_.get(), device->selection_));
  } else {
    RDMACHECK_ASSIGN_OR_RETURN(device->profile_, LoadProfile(profile_path));
  }
  Instance() = std::move(device);
  return absl::OkStatus();
}

bool TestDevice::IsOpen() { return Instance() != nullptr; }

const TestDevice& TestDevice::Get() { return *Instance(); }

void TestDevice::SetPeer(std::unique_ptr<RemoteEndpointFactory> peer) { Instance()->peer_ = std::move(peer); }

}  // namespace rdmacheck
