#include "testing/device_test.h"

#include <string>

#include "absl/time/clock.h"
#include "harness/leftover_completions.h"
#include "harness/status.h"
#include "harness/timeouts.h"

namespace rdmacheck {
namespace {
absl::Duration setup_so_far;  // of the current test
int peer_pairs_so_far = 0;    // of the current test
}  // namespace

void AddSetupTime(absl::Duration spent) {
  setup_so_far += spent;
  ::testing::Test::RecordProperty(kSetupMsProperty, std::to_string(absl::ToInt64Microseconds(setup_so_far) / 1000.0));
}

void RecordMissingCapability(Cap cap) {
  ::testing::Test::RecordProperty("rdmacheck_capability", std::string(CapName(cap)));
}

void DeviceTest::SetUp() {
  setup_so_far = absl::ZeroDuration();
  peer_pairs_so_far = 0;
  const absl::Time start = absl::Now();
  SetUpBase();
  AddSetupTime(absl::Now() - start);
}

void DeviceTest::SetUpBase() {
  SetReleaseFailureHandler([](const char* verb, int err) {
    ADD_FAILURE() << verb << " failed with " << ErrnoName(err) << " while releasing: the object leaks";
  });
  // Every CQ the test polled is polled once more before its endpoint destroys it
  // (harness/leftover_completions.h): a completion left there fails the test. The drain
  // window is short (1 ms, scaled): a completion delivered twice comes with the first. A
  // test that has already failed stopped early, short of polling what it expected: what
  // it left says nothing more (and would blur the failure's signature), unless the counts
  // prove it a surplus (more completions than posted work requests), a defect whatever
  // else failed: an expected failure must not hide a duplicated completion.
  SetLeftoverCheck({Scaled(absl::Milliseconds(1)), [](const std::string& problem, bool surplus) {
                      if (surplus || !::testing::Test::HasFailure()) ADD_FAILURE() << problem;
                    }});
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const TestAbout* about = FindAbout(info->test_suite_name(), info->name());
  if (about == nullptr) return;  // `rdmacheck list --check` reports the missing entry
  for (Cap cap : about->needs) {
    RDMACHECK_REQUIRE(cap);
  }
}

absl::StatusOr<ConnectedPair> DeviceTest::CreatePair(PairOptions options) {
  if (!options.method) options.method = connect_method();
  const absl::Time start = absl::Now();
  absl::StatusOr<ConnectedPair> pair = ConnectedPair::Create(context(), selection(), options, TestDevice::Get().peer());
  AddSetupTime(absl::Now() - start);
  if (pair.ok() && pair->two_host()) {
    ::testing::Test::RecordProperty(kPeerPairsProperty, std::to_string(++peer_pairs_so_far));
  }
  return pair;
}

const ibv_device_attr_ex& DeviceTest::device_attr() {
  struct Queried {
    ibv_device_attr_ex attr{};
    int rc = 0;
  };
  static const Queried queried = [] {
    Queried q;
    q.rc = ibv_query_device_ex(context(), nullptr, &q.attr);
    return q;
  }();
  // Every test that reads the limits fails while they are unknown, not only the first: the
  // zeroed attributes must never pass for the device's.
  if (queried.rc != 0) ADD_FAILURE() << "ibv_query_device_ex failed (" << ErrnoName(queried.rc) << "): the device's limits are unknown";
  return queried.attr;
}

}  // namespace rdmacheck
