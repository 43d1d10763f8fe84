// The base fixture of every device test.
//
// SetUp() skips the test, with the evidence, when the device lacks a capability that the
// test's catalogue entry (RDMACHECK_ABOUT) lists, and turns a failed release of a verbs
// object (a leak) into a test failure. A derived fixture's SetUp() calls
// DeviceTest::SetUp() first and returns if IsSkipped().
#ifndef RDMACHECK_TESTING_DEVICE_TEST_H_
#define RDMACHECK_TESTING_DEVICE_TEST_H_

#include "capabilities/verdict/decide.h"
#include "gtest/gtest.h"
#include "harness/connection/connected_pair.h"
#include "results/results.h"
#include "testing/catalogue.h"
#include "testing/status_matchers.h"
#include "testing/test_device.h"

namespace rdmacheck {

class DeviceTest : public ::testing::Test {
 protected:
  void SetUp() override;

  static ibv_context* context() { return TestDevice::Get().context(); }
  static const Selection& selection() { return TestDevice::Get().selection(); }
  static const Profile& profile() { return TestDevice::Get().profile(); }
  static uint8_t port() { return selection().port; }
  static bool IsIwarp() { return selection().transport == IBV_TRANSPORT_IWARP; }

  // The device's attributes, queried once per process.
  static const ibv_device_attr_ex& device_attr();

  // A connected QP pair on the device under test; the connect method, unless `options`
  // sets one, is the one the capability profile found working (manual or rdma_cm). In
  // two-host mode the remote endpoint is on the peer host.
  static absl::StatusOr<ConnectedPair> CreatePair(PairOptions options = {});
  static bool TwoHost() { return TestDevice::Get().peer() != nullptr; }
  static ConnectMethod connect_method() { return PreferredConnectMethod(profile()); }

 private:
  void SetUpBase();  // the capability checks; SetUp() times it
};

// Records on the current test which capability it lacked (results.json reads it back).
void RecordMissingCapability(Cap cap);

// Set-up overhead of the current test: DeviceTest::SetUp plus every CreatePair, recorded
// as the test property kSetupMsProperty (results.json: "setup_ms").
inline constexpr char kSetupMsProperty[] = "rdmacheck_setup_ms";
void AddSetupTime(absl::Duration spent);

// Pairs the current test built with the remote endpoint on the peer (two-host mode), as
// the test property kPeerPairsProperty (results.json: "peer_pairs").
inline constexpr char kPeerPairsProperty[] = "rdmacheck_peer_pairs";

}  // namespace rdmacheck

// Skips the current test unless the device has `cap`: for needs that depend on a test
// parameter. Fixed needs belong in the RDMACHECK_ABOUT line.
#define RDMACHECK_REQUIRE(cap)                                                      \
  do {                                                                              \
    ::rdmacheck::Decision rdmacheck_decision_ =                                     \
        ::rdmacheck::Decide(::rdmacheck::TestDevice::Get().profile(), cap);         \
    if (!rdmacheck_decision_.available) {                                           \
      ::rdmacheck::RecordMissingCapability(cap);                                    \
      GTEST_SKIP() << rdmacheck_decision_.reason;                                   \
    }                                                                               \
  } while (0)

// Skips the current test because another test's failure makes it impossible (the device
// never enters the state it starts from, ...): the skip names that test's instance whose
// deviation stands in the way ("QpSqeTest.X/UC", results.h InstanceName), and the summary
// and the report count it under it, not under a missing capability. It stays `blocked` only
// when that instance xfailed in the same run; otherwise it is a failure (JudgeConsequences).
#define RDMACHECK_SKIP_AS_CONSEQUENCE_OF(cause_instance) \
  GTEST_SKIP() << ::rdmacheck::kConsequenceOf << cause_instance << ": "

// Skips the current test in two-host mode: for tests that truly need both endpoints in
// one process (objects the two endpoints share, the rdma_cm id of the passive side, ...).
// `why` names what; the skip is a limitation of the mode, not of the device
// (results.h kLoopbackOnly; `run --peer` counts these per suite).
#define RDMACHECK_REQUIRE_LOOPBACK(why)                                                             \
  do {                                                                                             \
    if (::rdmacheck::DeviceTest::TwoHost()) {                                                      \
      GTEST_SKIP() << ::rdmacheck::kLoopbackOnly                                                   \
                   << " (a limitation of two-host mode, not of the device; it needs one process): " \
                   << why;                                                                         \
    }                                                                                              \
  } while (0)

#endif  // RDMACHECK_TESTING_DEVICE_TEST_H_
