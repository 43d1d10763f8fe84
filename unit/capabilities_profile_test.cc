// The profile's JSON round trip, its text form, and the lab's fact check.
#include "capabilities/profile/profile.h"
#include "capabilities/profile/profile_check.h"
#include "capabilities/profile/profile_text.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace rdmacheck {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

Profile Full() {
  Profile p;
  p.identity.device = "rxe0";
  p.identity.driver = "rxe";
  p.identity.protocol = "roce";
  p.identity.transport = "InfiniBand";
  p.identity.link_layer = "Ethernet";
  p.identity.port = 1;
  p.identity.gid_index = 1;
  p.identity.gid = "10.77.1.1";
  p.identity.gid_type = "RoCEv2";
  p.declared = nlohmann::json::parse(R"({"atomic_cap": "HCA", "device_cap_flags": ["SRQ_RESIZE"],
      "limits": {"max_qp": 1048560}, "ports": [{"port": 1, "state": "ACTIVE", "max_mtu": 4096,
      "gids": [{"index": 1, "gid": "10.77.1.1", "type": "RoCEv2", "family": "IPv4", "netdev": "eth9"}]}]})");
  p.observed[Cap::kAtomics] = {Outcome::kSupported, 0, "CAS and FAA right"};
  p.observed[Cap::kXrc] = {Outcome::kUnsupported, EOPNOTSUPP, "ibv_open_xrcd: EOPNOTSUPP"};
  p.observed[Cap::kSendWithInv] = {Outcome::kBroken, 0, "completion lacks IBV_WC_WITH_INV"};
  p.measured["max_inline_data"] = {512, "accepts 512, refuses 513"};
  p.quirks.push_back({"send_with_inv", "broken: completion lacks IBV_WC_WITH_INV"});
  return p;
}

TEST(ProfileJsonTest, EveryPartSurvivesTheRoundTrip) {
  Profile p = Full();
  ASSERT_OK_AND_ASSIGN(Profile back, ProfileFromJson(ProfileToJson(p)));
  EXPECT_EQ(ProfileToJson(back), ProfileToJson(p));
  EXPECT_EQ(back.identity.driver, "rxe");
  EXPECT_EQ(back.measured["max_inline_data"].value, 512);
  EXPECT_EQ(back.observed[Cap::kXrc].err, EOPNOTSUPP);
}

TEST(ProfileJsonTest, UnknownCapabilitiesAreIgnoredUnknownOutcomesAreErrors) {
  nlohmann::json j = ProfileToJson(Full());
  j["observed"]["teleportation"] = {{"outcome", "supported"}};
  ASSERT_OK_AND_ASSIGN(Profile back, ProfileFromJson(j));
  EXPECT_EQ(back.observed.size(), 3u);
  j["observed"]["atomics"]["outcome"] = "sort of";
  EXPECT_FALSE(ProfileFromJson(j).ok());
}

TEST(ProfileTextTest, ShowsIdentityObservationsMeasurementsAndQuirks) {
  std::string text = ProfileToText(Full());
  EXPECT_THAT(text, HasSubstr("rxe0: driver rxe (roce), transport InfiniBand, link layer Ethernet"));
  EXPECT_THAT(text, HasSubstr("atomic_cap: HCA"));
  EXPECT_THAT(text, HasSubstr("GID 1   10.77.1.1"));
  EXPECT_THAT(text, HasSubstr("xrc              unsupported  EOPNOTSUPP"));
  EXPECT_THAT(text, HasSubstr("max_inline_data  512"));
  EXPECT_THAT(text, HasSubstr("send_with_inv: broken: completion lacks IBV_WC_WITH_INV"));
  EXPECT_THAT(text, HasSubstr("connects RC QPs by: manual"));
}

TEST(ProfileCheckTest, FactsThatHoldGiveNoMismatch) {
  nlohmann::json facts = {{"checks", {{"/identity/transport", "InfiniBand"}, {"/observed/atomics/outcome", "supported"}}}};
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> mismatches, CheckProfile(ProfileToJson(Full()), facts));
  EXPECT_THAT(mismatches, IsEmpty());
}

TEST(ProfileCheckTest, AWrongObservationIsReportedWithTheProbesDetail) {
  nlohmann::json facts = {{"checks", {{"/observed/send_with_inv/outcome", "supported"}, {"/identity/nothing", 1}}}};
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> mismatches, CheckProfile(ProfileToJson(Full()), facts));
  EXPECT_THAT(mismatches,
              ElementsAre(HasSubstr("/identity/nothing: expected 1, but the profile has no such field"),
                          "/observed/send_with_inv/outcome: expected \"supported\", got \"broken\" "
                          "(completion lacks IBV_WC_WITH_INV)"));
}

TEST(ProfileCheckTest, MalformedFactsAreAnError) {
  EXPECT_FALSE(CheckProfile(ProfileToJson(Full()), nlohmann::json::array()).ok());
  EXPECT_FALSE(CheckProfile(ProfileToJson(Full()), {{"checks", {{"no-slash", 1}}}}).ok());
}

}  // namespace
}  // namespace rdmacheck
