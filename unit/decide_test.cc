// Capability decisions: from a profile to "available" or a skip reason with evidence.
#include "capabilities/verdict/decide.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace rdmacheck {
namespace {

using ::testing::HasSubstr;

TEST(DecideTest, ObservedSupportedIsAvailable) {
  Profile p;
  p.observed[Cap::kAtomics] = {Outcome::kSupported, 0, "CAS and FAA returned the right values"};
  EXPECT_TRUE(Decide(p, Cap::kAtomics).available);
}

TEST(DecideTest, UnsupportedSkipsWithNameAndEvidence) {
  Profile p;
  p.observed[Cap::kAtomics] = {Outcome::kUnsupported, EINVAL, "probe CAS: ibv_post_send returned EINVAL"};
  Decision d = Decide(p, Cap::kAtomics);
  EXPECT_FALSE(d.available);
  EXPECT_THAT(d.reason, HasSubstr("requires atomics"));
  EXPECT_THAT(d.reason, HasSubstr("EINVAL"));
}

// Issue 19: a declared feature that misbehaves is a failure, never a skip.
TEST(DecideTest, BrokenRunsItsTests) {
  Profile p;
  p.observed[Cap::kSrqResize] = {Outcome::kBroken, 0, "declared, but resize returned 0 and max_wr stayed 4"};
  Decision d = Decide(p, Cap::kSrqResize);
  EXPECT_TRUE(d.available);
  EXPECT_EQ(d.reason, "");
}

TEST(DecideTest, NotProbedRunsTheTest) { EXPECT_TRUE(Decide(Profile{}, Cap::kXrc).available); }

TEST(DecideTest, ConnectMethodFollowsTheManualProbe) {
  Profile p;
  p.observed[Cap::kManualConnect] = {Outcome::kUnsupported, EINVAL, "RTR->RTS failed"};
  EXPECT_EQ(PreferredConnectMethod(p), ConnectMethod::kRdmaCm);
  p.observed[Cap::kManualConnect] = {Outcome::kSupported, 0, ""};
  EXPECT_EQ(PreferredConnectMethod(p), ConnectMethod::kManual);
  Profile iwarp;
  iwarp.identity.transport = "iWARP";
  EXPECT_EQ(PreferredConnectMethod(iwarp), ConnectMethod::kRdmaCm);
}

TEST(ProfileJsonTest, RoundTrip) {
  Profile p;
  p.identity.device = "siw0";
  p.identity.transport = "iWARP";
  p.declared = {{"max_qp", 100}};
  p.observed[Cap::kAtomics] = {Outcome::kUnsupported, EINVAL, "x"};
  p.quirks.push_back({"atomics", "declares none"});
  ASSERT_OK_AND_ASSIGN(Profile back, ProfileFromJson(ProfileToJson(p)));
  EXPECT_EQ(ProfileToJson(back), ProfileToJson(p));
}

}  // namespace
}  // namespace rdmacheck
