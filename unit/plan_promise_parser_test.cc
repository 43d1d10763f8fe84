// The man page parser (plan/promise_parser.h) on markup it meets, and on the real pages of
// two rdma-core versions: 44 (Debian 12) and 65 (Debian sid), unit/testdata/manpages/.
#include <filesystem>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "plan/man_source.h"
#include "plan/promise_parser.h"

namespace rdmacheck {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

const std::string kPages = std::string(RDMACHECK_SOURCE_DIR) + "/unit/testdata/manpages/";

std::vector<std::string> Ids(const PagePromises& p) {
  std::vector<std::string> ids;
  for (const Promise& promise : p.promises) ids.push_back(promise.Id());
  return ids;
}

TEST(ManLineTextTest, TakesTheMarkupOff) {
  EXPECT_EQ(ManLineText(R"(.BI "struct ibv_pd *ibv_alloc_pd(struct ibv_context " "*context" );)"),
            "struct ibv_pd *ibv_alloc_pd(struct ibv_context  *context );");
  EXPECT_EQ(ManLineText(R"(\f[B]ibv_advise_mr()\f[R] returns 0 when\[cq]s done)"), "ibv_advise_mr() returns 0 when's done");
  EXPECT_EQ(ManLineText(R"(.B IBV_ACCESS_LOCAL_WRITE \fR  Enable Local Write Access)"),
            "IBV_ACCESS_LOCAL_WRITE   Enable Local Write Access");
  EXPECT_EQ(ManLineText(R"(returns 0 on success, and \-1 on error.)"), "returns 0 on success, and -1 on error.");
  EXPECT_EQ(ManLineText(R"(.\" -*- nroff -*-)"), "");
  EXPECT_EQ(ManLineText(".TH IBV_ALLOC_PD 3 2006-10-31 libibverbs"), "");
  EXPECT_EQ(ManLineText(".Fn ibv_foo EINVAL"), "ibv_foo EINVAL");  // mdoc: the arguments are text
}

TEST(PromiseParserTest, ReadsVerbsReturnsErrnosAndFlags) {
  ManPage page = ParseManPage("ibv_thing.3", R"(.TH IBV_THING 3
.SH "NAME"
ibv_make_thing, ibv_drop_thing \- make or drop a thing
.SH "SYNOPSIS"
.BI "struct ibv_thing *ibv_make_thing(struct ibv_pd " "*pd" ", int " "access" );
.BI "int ibv_drop_thing(struct ibv_thing " "*thing" );
.BI "int ibv_make_thing_ex(struct ibv_pd " "*pd" );
.SH "DESCRIPTION"
.I access
is IBV_ACCESS_LOCAL_WRITE or IBV_ACCESS_REMOTE_READ (any IBV_ACCESS_* flag).
.B ibv_drop_thing()
fails with EBUSY while IBV_THING_LIVE is set.
.SH "RETURN VALUE"
.B ibv_make_thing()
returns a pointer to the thing, or NULL if the request fails.
.B ibv_drop_thing()
and
.B ibv_make_thing_ex()
return 0 on success, or the value of errno on failure.
.SH "SEE ALSO"
.BR ibv_other (3), IBV_NOT_A_PROMISE
)");
  PagePromises found = ReadPagePromises(page);
  EXPECT_THAT(found.verbs, ElementsAre("ibv_make_thing", "ibv_drop_thing", "ibv_make_thing_ex"));
  EXPECT_THAT(Ids(found), ElementsAre("ibv_make_thing/returns/NULL", "ibv_drop_thing/returns/0",
                                      "ibv_make_thing_ex/returns/0", "ibv_drop_thing/returns/errno",
                                      "ibv_make_thing_ex/returns/errno", "ibv_make_thing/flag/IBV_ACCESS_LOCAL_WRITE",
                                      "ibv_make_thing/flag/IBV_ACCESS_REMOTE_READ", "ibv_drop_thing/errno/EBUSY",
                                      "ibv_drop_thing/flag/IBV_THING_LIVE"));
  EXPECT_EQ(found.promises[0].line, 15);  // where "NULL" stands
}

TEST(PromiseParserTest, ASoLinkHasNoText) {
  EXPECT_THAT(ParseManPage("ibv_x.3", ".so man3/ibv_y.3\n").lines, IsEmpty());
}

struct VersionCounts {
  const char* version;
  int pages, verbs, promises, returns, errnos, flags;
};

class RealPagesTest : public ::testing::TestWithParam<VersionCounts> {};

// The numbers are what the parser reads today; a change to the parser that moves them is
// meant to be seen (and the numbers updated with the reason in the commit).
TEST_P(RealPagesTest, VerbsAndPromises) {
  const VersionCounts& want = GetParam();
  absl::StatusOr<PromiseSet> set = ReadPromiseDir(kPages + want.version);
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_EQ(set->pages, want.pages);
  EXPECT_EQ(static_cast<int>(set->by_verb.size()), want.verbs);
  EXPECT_EQ(static_cast<int>(set->PromiseCount()), want.promises);
  EXPECT_EQ(static_cast<int>(set->CountOf(PromiseKind::kReturns)), want.returns);
  EXPECT_EQ(static_cast<int>(set->CountOf(PromiseKind::kErrno)), want.errnos);
  EXPECT_EQ(static_cast<int>(set->CountOf(PromiseKind::kFlag)), want.flags);
  for (const char* id : {"ibv_alloc_pd/returns/NULL", "ibv_dealloc_pd/returns/0", "ibv_dealloc_pd/returns/errno",
                         "ibv_reg_mr/flag/IBV_ACCESS_MW_BIND", "ibv_reg_mr/returns/NULL", "ibv_dereg_mr/returns/errno",
                         "ibv_advise_mr/errno/EOPNOTSUPP", "ibv_close_device/returns/-1",
                         "ibv_attach_mcast/returns/0", "ibv_detach_mcast/returns/0", "ibv_post_send/flag/IBV_SEND_SIGNALED",
                         "ibv_modify_qp/flag/IBV_QP_STATE", "ibv_poll_cq/returns/negative",
                         "ibv_get_device_list/returns/sets-errno", "rdma_create_id/returns/-1",
                         "ibv_query_gid_table/returns/-errno", "ibv_ack_cq_events/returns/none"}) {
    EXPECT_NE(set->Find(id), nullptr) << id;
  }
  EXPECT_EQ(set->Find("ibv_get_device_list/returns/NULL")->page, "ibv_get_device_list.3");
  EXPECT_EQ(set->Find("ibv_reg_mr/flag/IBV_ACCESS_"), nullptr);  // a family is not a flag
}

INSTANTIATE_TEST_SUITE_P(RdmaCore, RealPagesTest,
                         ::testing::Values(VersionCounts{"44", 128, 180, 617, 270, 35, 312},
                                           VersionCounts{"65", 139, 204, 733, 328, 48, 357}),
                         [](const auto& info) { return std::string("v") + info.param.version; });

// The installed pages are gzip-compressed: read through zlib, rdma-core 44's give what the
// committed sources give.
TEST(PromiseParserTest, InstalledGzipPagesReadLikeTheirSources) {
  if (!std::filesystem::exists("/usr/share/man/man3/ibv_alloc_pd.3.gz")) GTEST_SKIP() << "libibverbs-dev's pages not installed";
  absl::StatusOr<ManPage> gz = ReadManPage("/usr/share/man/man3/ibv_reg_mr.3.gz");
  absl::StatusOr<ManPage> plain = ReadManPage(kPages + "44/ibv_reg_mr.3");
  ASSERT_TRUE(gz.ok() && plain.ok());
  EXPECT_EQ(gz->name, "ibv_reg_mr.3");
  EXPECT_EQ(Ids(ReadPagePromises(*gz)), Ids(ReadPagePromises(*plain)));
  absl::StatusOr<ManPage> link = ReadManPage("/usr/share/man/man3/ibv_dereg_mr.3.gz");  // a symbolic link
  ASSERT_TRUE(link.ok());
  EXPECT_THAT(link->lines, IsEmpty());
}

TEST(PromiseParserTest, AnUnreadableDirectoryIsAnError) {
  EXPECT_FALSE(ReadPromiseDir("/nonexistent").ok());
  EXPECT_FALSE(ReadPromiseDir(RDMACHECK_SOURCE_DIR "/docs").ok());  // no ibv_*.3 there
}

}  // namespace
}  // namespace rdmacheck
