// The documented errors of a provider (plan/providers.h): the reviewed provider file holds
// to the man pages of rdma-core 44, and the measure counts each error of an implemented
// verb once: tested, untestable here, one the provider cannot return, or untested.
#include <fstream>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "plan/promise_parser.h"
#include "plan/providers.h"

namespace rdmacheck {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

const std::string kSource = RDMACHECK_SOURCE_DIR;

TEST(PlanProvidersTest, TheReviewedFileNamesErrorsOfThePages) {
  absl::StatusOr<Providers> providers = LoadProviders(kSource + "/plan/providers.json");
  ASSERT_TRUE(providers.ok()) << providers.status();
  absl::StatusOr<PromiseSet> pages = ReadPromiseDir(kSource + "/unit/testdata/manpages/44");
  ASSERT_TRUE(pages.ok()) << pages.status();
  for (const char* name : {"rxe", "siw"}) {
    ASSERT_TRUE(providers->count(name)) << name;
    const Provider& p = providers->at(name);
    EXPECT_THAT(p.ops_table, HasSubstr(absl::StrCat("providers/", name, "/", name, ".c:")));
    EXPECT_GT(p.verbs.size(), 20u) << name;
    for (const auto& [id, why] : p.no_failing_path) {
      const Promise* promise = pages->Find(id);
      ASSERT_NE(promise, nullptr) << name << ": " << id << " is not a promise of the rdma-core 44 pages";
      EXPECT_TRUE(IsErrorPromise(*promise)) << name << ": " << id << " is not an error";
    }
  }
}

TEST(PlanProvidersTest, AFileWithAnUnknownOpOrAnUnexplainedErrorIsRefused) {
  const std::string dir = ::testing::TempDir();
  auto write = [&](const std::string& text) {
    std::ofstream(dir + "/providers.json") << text;
    return LoadProviders(dir + "/providers.json");
  };
  EXPECT_THAT(write(R"({"ops": {}, "providers": {"x": {"ops_table": "t", "ops": ["alloc_pd"]}}})").status().message(),
              HasSubstr("lists op \"alloc_pd\""));
  EXPECT_THAT(write(R"({"ops": {"alloc_pd": ["ibv_alloc_pd"]}, "providers": {"x": {"ops_table": "t", "ops": ["alloc_pd"],
                        "no_failing_path": {"ibv_query_qp/returns/errno": "why"}}}})")
                  .status()
                  .message(),
              HasSubstr("must name a verb the provider implements"));
  EXPECT_FALSE(LoadProviders(dir + "/none.json").ok());
}

// Coverage of two verbs: ibv_alloc_pd (NULL tested), ibv_query_qp (errno untested,
// EINVAL one the provider cannot return, 0 not an error).
TEST(PlanProvidersTest, EachErrorIsCountedInOneState) {
  std::vector<Promise> promises = {{"ibv_alloc_pd", PromiseKind::kReturns, "NULL"},
                                   {"ibv_query_qp", PromiseKind::kReturns, "0"},
                                   {"ibv_query_qp", PromiseKind::kReturns, "errno"},
                                   {"ibv_query_qp", PromiseKind::kErrno, "EINVAL"}};
  Coverage c;
  c.verbs = {{"ibv_alloc_pd", "ibv_alloc_pd.3", {{&promises[0], CoverageState::kTested, {"PdTest.X"}, ""}}},
             {"ibv_query_qp",
              "ibv_query_qp.3",
              {{&promises[1], CoverageState::kTested, {"QpTest.Y"}, ""},
               {&promises[2], CoverageState::kUntested, {}, ""},
               {&promises[3], CoverageState::kUntested, {}, ""}}}};
  Provider p{"x", "t", {"ibv_alloc_pd", "ibv_query_qp", "ibv_undocumented"}, {{"ibv_query_qp/errno/EINVAL", "why"}}};
  ProviderErrors e = MeasureProviderErrors(c, p);
  EXPECT_EQ(e.verbs, 2);
  EXPECT_EQ(e.errors, 3);
  EXPECT_EQ(e.tested, 1);
  EXPECT_EQ(e.no_failing_path, 1);
  EXPECT_EQ(e.untested, 1);
  EXPECT_EQ(e.verbs_complete, 1);
  EXPECT_THAT(e.undocumented, ElementsAre("ibv_undocumented"));
  ASSERT_EQ(e.by_verb["ibv_query_qp"].size(), 2u);
  EXPECT_EQ(e.by_verb["ibv_query_qp"][1].no_failing_path, "why");
}

}  // namespace
}  // namespace rdmacheck
