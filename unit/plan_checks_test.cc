// The reviewed plan data (plan/checks.json, plan/prose_promises.json) against the man
// pages of rdma-core 44, the version the declarations are written for: every declared
// promise exists, and every prose promise quotes the line it cites.
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "plan/checks.h"
#include "plan/man_source.h"
#include "plan/promise_parser.h"
#include "plan/prose.h"

namespace rdmacheck {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

const std::string kSource = RDMACHECK_SOURCE_DIR;
const std::string kPages44 = kSource + "/unit/testdata/manpages/44";

PromiseSet Promises44() {
  absl::StatusOr<PromiseSet> set = ReadPromiseDir(kPages44);
  EXPECT_TRUE(set.ok()) << set.status();
  absl::StatusOr<std::vector<ProsePromise>> prose = LoadProsePromises(kSource + "/plan/prose_promises.json");
  EXPECT_TRUE(prose.ok()) << prose.status();
  if (!set.ok() || !prose.ok()) return {};
  EXPECT_THAT(AddProsePromises(*prose, *set), IsEmpty());
  return *std::move(set);
}

TEST(PlanChecksTest, EveryDeclaredPromiseIsOnThePages) {
  absl::StatusOr<Checks> checks = LoadChecks(kSource + "/plan/checks.json");
  ASSERT_TRUE(checks.ok()) << checks.status();
  EXPECT_GT(checks->size(), 250u);
  EXPECT_THAT(UnknownPromises(*checks, Promises44()), IsEmpty());
}

TEST(PlanChecksTest, ADeclarationOfNoPromiseFails) {
  Checks checks = {{"PdTest.Made", {"ibv_alloc_pd/returns/NULL", "ibv_alloc_pd/errno/EWHATEVER"}},
                   {"PdTest.Up", {"ibv_no_such_verb/returns/0", "ibv_alloc_pd/nonsense"}}};
  std::vector<std::string> unknown = UnknownPromises(checks, Promises44());
  ASSERT_EQ(unknown.size(), 3u);
  EXPECT_THAT(unknown[0], HasSubstr("PdTest.Made: ibv_alloc_pd/errno/EWHATEVER names no promise"));
}

TEST(PlanChecksTest, TestsAndDeclarationsMatch) {
  std::vector<TestAbout> catalogue = {{"PdTest", "Made", "p", "r", {}, "suites/pd/pd_test.cc", 10},
                                      {"PdTest", "Undeclared", "p", "r", {}, "suites/pd/pd_test.cc", 20}};
  Checks checks = {{"PdTest.Made", {}}, {"PdTest.Gone", {}}};
  EXPECT_THAT(UndeclaredOrStale(checks, catalogue),
              ElementsAre("suites/pd/pd_test.cc:20: PdTest.Undeclared has no entry in plan/checks.json",
                          "plan/checks.json: PdTest.Gone names no test"));
}

TEST(PlanProseTest, EachQuoteStandsOnItsLine) {
  absl::StatusOr<std::vector<ProsePromise>> prose = LoadProsePromises(kSource + "/plan/prose_promises.json");
  ASSERT_TRUE(prose.ok()) << prose.status();
  EXPECT_GE(prose->size(), 5u);
  for (const ProsePromise& p : *prose) {
    absl::StatusOr<ManPage> page = ReadManPage(kPages44 + "/" + p.promise.page);
    ASSERT_TRUE(page.ok()) << p.promise.Id() << ": " << page.status();
    ASSERT_LE(p.promise.line, static_cast<int>(page->lines.size())) << p.promise.Id();
    EXPECT_THAT(page->lines[p.promise.line - 1].text, HasSubstr(p.quote)) << p.promise.Id();
  }
}

TEST(PlanProseTest, MalformedEntriesAreRefused) {
  const std::string path = ::testing::TempDir() + "/prose.json";
  std::ofstream(path) << R"({"promises": [{"verb": "ibv_x", "what": "y"}]})";
  absl::StatusOr<std::vector<ProsePromise>> prose = LoadProsePromises(path);
  EXPECT_FALSE(prose.ok());
  EXPECT_THAT(std::string(prose.status().message()), HasSubstr("needs verb, what, page, line, quote and statement"));
}

}  // namespace
}  // namespace rdmacheck
