// From a profile to capability answers: skip reasons carry the observation and the
// declared fact, and declared-vs-observed mismatches become quirks.
#include "capabilities/verdict/decide.h"
#include "capabilities/declared/declared_support.h"
#include "capabilities/profile/quirks.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Optional;
using ::testing::SizeIs;

// A profile as siw0 declares itself (abridged).
Profile SiwLike() {
  Profile p;
  p.identity.port = 1;
  p.identity.transport = "iWARP";
  p.declared = nlohmann::json::parse(R"({
    "device_cap_flags": ["MEM_MGT_EXTENSIONS"],
    "atomic_cap": "NONE",
    "limits": {"max_sge": 6, "max_mw": 0, "max_srq": 102400, "max_ah": 0, "max_qp_rd_atom": 128},
    "odp": {"general": []},
    "ports": [{"port": 1, "max_mtu": 1024, "port_cap_flags": ["CM_SUP"],
               "gids": [{"index": 0, "gid": "200:a4d:201::", "type": "IB", "family": "MAC"}]}]
  })");
  return p;
}

TEST(CapabilityDecisionTest, SkipReasonNamesCapabilityObservationAndDeclaredFact) {
  Profile p = SiwLike();
  p.observed[Cap::kAtomics] = {Outcome::kUnsupported, EINVAL, "CAS: ibv_post_send(qp 1, opcode 5): EINVAL"};
  Decision d = Decide(p, Cap::kAtomics);
  EXPECT_FALSE(d.available);
  EXPECT_EQ(d.reason, "requires atomics: unsupported: CAS: ibv_post_send(qp 1, opcode 5): EINVAL; "
                      "declared atomic_cap=NONE");
}

TEST(CapabilityDecisionTest, ErrnoIsAddedWhenTheDetailLacksIt) {
  Profile p = SiwLike();
  p.observed[Cap::kCqResize] = {Outcome::kUnsupported, EOPNOTSUPP, "ibv_resize_cq refused"};
  EXPECT_THAT(Decide(p, Cap::kCqResize).reason, HasSubstr("ibv_resize_cq refused (EOPNOTSUPP)"));
}

TEST(CapabilityDecisionTest, DeclaredEvidenceIsNotRepeated) {
  Profile p = SiwLike();
  p.observed[Cap::kSrqResize] = {Outcome::kUnsupported, EOPNOTSUPP, "refused although device_cap_flags has SRQ_RESIZE"};
  p.declared["device_cap_flags"] = {"SRQ_RESIZE"};
  std::string reason = Decide(p, Cap::kSrqResize).reason;
  EXPECT_EQ(reason.find("SRQ_RESIZE"), reason.rfind("SRQ_RESIZE")) << reason;
}

TEST(CapabilityDecisionTest, NotProbedRunsTheTestEvenWhenNotDeclared) {
  Profile p = SiwLike();  // declares atomic_cap=NONE, but nobody tried
  EXPECT_TRUE(Decide(p, Cap::kAtomics).available);
}

TEST(CapabilityDecisionTest, ConnectMethodIsACapability) {
  Profile p = SiwLike();
  p.observed[Cap::kManualConnect] = {Outcome::kUnsupported, EINVAL, "RTR->RTS"};
  p.observed[Cap::kRdmaCm] = {Outcome::kSupported, 0, ""};
  EXPECT_EQ(PreferredConnectMethod(p), ConnectMethod::kRdmaCm);
}

TEST(DeclaredSupportTest, ReadsTheDeclaredFacts) {
  Profile p = SiwLike();
  EXPECT_THAT(DeclaredSupport(p.declared, 1, Cap::kAtomics),
              Optional(AllOf(Field(&DeclaredHint::declared, false), Field(&DeclaredHint::evidence, "atomic_cap=NONE"))));
  EXPECT_THAT(DeclaredSupport(p.declared, 1, Cap::kMwType1), Optional(Field(&DeclaredHint::declared, false)));
  EXPECT_THAT(DeclaredSupport(p.declared, 1, Cap::kSendWithInv), Optional(Field(&DeclaredHint::declared, true)));
  EXPECT_THAT(DeclaredSupport(p.declared, 1, Cap::kMtu4096),
              Optional(AllOf(Field(&DeclaredHint::declared, false), Field(&DeclaredHint::evidence, "port 1 max_mtu=1024"))));
  EXPECT_THAT(DeclaredSupport(p.declared, 1, Cap::kAddressHandle), Optional(Field(&DeclaredHint::declared, false)));
  // No attribute speaks about these, and a MAC-based GID table says nothing about IPv6.
  EXPECT_EQ(DeclaredSupport(p.declared, 1, Cap::kCqResize), std::nullopt);
  EXPECT_EQ(DeclaredSupport(p.declared, 1, Cap::kIpv6Gid), std::nullopt);
}

TEST(DeclaredSupportTest, MissingOrForeignFieldsGiveNoHint) {
  EXPECT_EQ(DeclaredSupport(nlohmann::json::object(), 1, Cap::kAtomics), std::nullopt);
  EXPECT_EQ(DeclaredSupport(nlohmann::json{{"atomic_cap", 3}}, 1, Cap::kAtomics), std::nullopt);
  EXPECT_EQ(DeclaredSupport(nlohmann::json{{"ports", nlohmann::json::array()}}, 1, Cap::kMtu4096), std::nullopt);
}

TEST(QuirksTest, ConsistentProfileHasNone) {
  Profile p = SiwLike();
  p.observed[Cap::kAtomics] = {Outcome::kUnsupported, EINVAL, "CAS refused"};
  p.observed[Cap::kRdmaCm] = {Outcome::kSupported, 0, "connected"};
  p.measured["max_send_sge"] = {6, "accepts 6"};
  EXPECT_THAT(FindQuirks(p), IsEmpty());
}

TEST(QuirksTest, DeclaredButFailingAndWorkingButUndeclaredAreListed) {
  Profile p = SiwLike();
  p.observed[Cap::kSendWithInv] = {Outcome::kBroken, 0, "RECV completed with IBV_WC_REM_INV_REQ_ERR"};
  p.observed[Cap::kAtomics] = {Outcome::kSupported, 0, "CAS and FAA right"};
  p.measured["max_send_sge"] = {4, "QP create accepts max_send_sge=4"};
  std::vector<Quirk> quirks = FindQuirks(p);
  EXPECT_THAT(quirks, SizeIs(3));
  EXPECT_THAT(quirks, Contains(AllOf(Field(&Quirk::capability, "send_with_inv"),
                                     Field(&Quirk::text, HasSubstr("REM_INV_REQ_ERR")))));
  EXPECT_THAT(quirks, Contains(AllOf(Field(&Quirk::capability, "atomics"),
                                     Field(&Quirk::text, HasSubstr("not declared (atomic_cap=NONE), but works")))));
  EXPECT_THAT(quirks, Contains(AllOf(Field(&Quirk::capability, "max_send_sge"),
                                     Field(&Quirk::text, HasSubstr("declared max_sge=6")))));
}

}  // namespace
}  // namespace rdmacheck
