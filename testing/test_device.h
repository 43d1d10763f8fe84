// The device under test, opened once per process and shared by every test in it.
//
// `rdmacheck run` starts one child process per suite; each opens the device here, loads
// the capability profile the parent probed, and runs its tests against it. Tests reach it
// through DeviceTest (device_test.h).
#ifndef RDMACHECK_TESTING_TEST_DEVICE_H_
#define RDMACHECK_TESTING_TEST_DEVICE_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "capabilities/profile/profile.h"
#include "harness/connection/connected_pair.h"
#include "harness/device.h"
#include "harness/verbs/owners.h"

namespace rdmacheck {

class TestDevice {
 public:
  // Opens the device and selects port and GID. `profile_path` empty: probe here.
  static absl::Status Open(const SelectionRequest& request, const std::string& profile_path);
  static bool IsOpen();
  static const TestDevice& Get();  // only after a successful Open()

  ibv_context* context() const { return context_.get(); }
  const Selection& selection() const { return selection_; }
  const Profile& profile() const { return profile_; }

  // Two-host mode (`run --peer`): where pairs' passive endpoints are made; null in loopback.
  RemoteEndpointFactory* peer() const { return peer_.get(); }
  static void SetPeer(std::unique_ptr<RemoteEndpointFactory> peer);  // after Open()

 private:
  ContextPtr context_;
  Selection selection_;
  Profile profile_;
  std::unique_ptr<RemoteEndpointFactory> peer_;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_TESTING_TEST_DEVICE_H_
