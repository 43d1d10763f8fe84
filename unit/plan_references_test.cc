// The IBTA and RFC sections read from a test's reference (plan/references.h).
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "plan/references.h"

namespace rdmacheck {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(CitedSectionsTest, Ibta) {
  EXPECT_THAT(CitedSections("ibv_bind_mw(3); IBTA Vol 1 10.6.7.2 (C10-73: the MR must allow window binding), C10-75"),
              ElementsAre("IBTA Vol 1 10.6.7.2", "IBTA Vol 1 C10-75"));
  EXPECT_THAT(CitedSections("IBTA Vol 1 ch. 11 (Create SRQ)"), ElementsAre("IBTA Vol 1 ch. 11"));
  EXPECT_THAT(CitedSections("IBTA Vol 1 1.5 A19.4.2 (ATOMIC WRITE: 8 bytes)"), ElementsAre("IBTA Vol 1 Annex A19.4.2"));
  EXPECT_THAT(CitedSections("IBTA Vol 1 11.2.1.2 (Query HCA: the limits), 11.2.3-11.2.8 (resource creation)"),
              ElementsAre("IBTA Vol 1 11.2.1.2", "IBTA Vol 1 11.2.3", "IBTA Vol 1 11.2.8"));
  EXPECT_THAT(CitedSections("ibv_create_ah(3); Annex A16 / A17 (RoCE, RoCEv2: no LRH)"),
              ElementsAre("IBTA Vol 1 Annex A16", "IBTA Vol 1 Annex A17"));
  EXPECT_THAT(CitedSections("IBTA Vol 1 10.8.3.1 / 11.6.2 (completion errors move the QP to Error; rxe: x)"),
              ElementsAre("IBTA Vol 1 10.8.3.1", "IBTA Vol 1 11.6.2"));
}

TEST(CitedSectionsTest, Rfc) {
  EXPECT_THAT(CitedSections("RFC 5040 7.1, 4.8 (Terminate), RFC 5041 7.2 (DDP error 0x00: Invalid STag)"),
              ElementsAre("RFC 5040 7.1", "RFC 5040 4.8", "RFC 5041 7.2"));
  EXPECT_THAT(CitedSections("RFC 5040 (RDMAP), RFC 5044 (MPA: negotiated on the connected stream)"),
              ElementsAre("RFC 5040", "RFC 5044"));
}

TEST(CitedSectionsTest, ManPagesAreNotSections) { EXPECT_THAT(CitedSections("ibv_alloc_pd(3)"), IsEmpty()); }

}  // namespace
}  // namespace rdmacheck
