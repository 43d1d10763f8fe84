#include "harness/testing/device_test.h"

#include <string>

#include "harness/status.h"

namespace rdmacheck {

void RecordMissingCapability(Cap cap) {
  ::testing::Test::RecordProperty("rdmacheck_capability", std::string(CapName(cap)));
}

void DeviceTest::SetUp() {
  SetReleaseFailureHandler([](const char* verb, int err) {
    ADD_FAILURE() << verb << " failed with " << ErrnoName(err) << " while releasing: the object leaks";
  });
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const TestAbout* about = FindAbout(info->test_suite_name(), info->name());
  if (about == nullptr) return;  // `rdmacheck list --check` reports the missing entry
  for (Cap cap : about->needs) {
    RDMACHECK_REQUIRE(cap);
  }
}

absl::StatusOr<ConnectedPair> DeviceTest::CreatePair(PairOptions options) {
  if (!options.method) options.method = connect_method();
  return ConnectedPair::Create(context(), selection(), options, TestDevice::Get().peer());
}

const ibv_device_attr_ex& DeviceTest::device_attr() {
  static const ibv_device_attr_ex attr = [] {
    ibv_device_attr_ex a{};
    int rc = ibv_query_device_ex(context(), nullptr, &a);
    if (rc != 0) ADD_FAILURE() << "ibv_query_device_ex: " << ErrnoName(rc);
    return a;
  }();
  return attr;
}

}  // namespace rdmacheck
