// reports/image_section.h: the report's "Images" section (scripts/image-matrix.sh).
#include "reports/image_section.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "unit/report_fixtures.h"

namespace rdmacheck {
namespace {

using fixtures::Expected;
using fixtures::Result;
using fixtures::RunOf;
using ::testing::HasSubstr;

DeviceRun OnImage(DeviceRun run, const std::string& os, const std::string& kernel, const std::string& rdma_core) {
  run.results.environment["os"] = os;
  run.results.environment["kernel"] = kernel;
  run.results.environment["rdma_core"] = rdma_core;
  return run;
}

// rxe0 on two images: an xfail on the first that passes on the second (the quirk is gone), a
// profile quirk on both; siw0 only on the first.
Report TwoImages() {
  TestResult quirky = Expected(Result("srq", "SrqTest.Query", TestStatus::kXfail), "no query_srq", "man");
  TestResult fixed = Result("srq", "SrqTest.Query", TestStatus::kPass);
  TestResult plain = Result("pd", "PdTest.Alloc", TestStatus::kPass);
  return BuildReport({OnImage(RunOf("rxe0", {quirky, plain}, {}, {{"mtu", "max_mtu below active"}}), "Debian 12", "6.1.0", "44.0-2"),
                      OnImage(RunOf("siw0", {plain}), "Debian 12", "6.1.0", "44.0-2"),
                      OnImage(RunOf("rxe0", {fixed, plain}, {}, {{"mtu", "max_mtu below active"}}), "Debian sid", "7.2.13", "65.0-1.1")});
}

TEST(ImageSectionTest, OneImageNeedsNoSection) {
  TestResult plain = Result("pd", "PdTest.Alloc", TestStatus::kPass);
  EXPECT_FALSE(ImageSection(BuildReport({OnImage(RunOf("rxe0", {plain}), "Debian 12", "6.1.0", "44.0-2"),
                                         OnImage(RunOf("siw0", {plain}), "Debian 12", "6.1.0", "44.0-2")})));
}

TEST(ImageSectionTest, CountsPerImageAndDevice) {
  std::optional<ExtraSection> s = ImageSection(TwoImages());
  ASSERT_TRUE(s);
  ASSERT_EQ(s->data["images"].size(), 2u);
  EXPECT_EQ(s->data["images"][1]["rdma_core"], "65.0-1.1");
  ASSERT_EQ(s->data["runs"].size(), 3u);
  EXPECT_EQ(s->data["runs"][2]["image"], 2);
  EXPECT_EQ(s->data["runs"][0]["xfail"], 1);
  EXPECT_EQ(s->data["runs"][2]["xfail"], 0);
}

TEST(ImageSectionTest, NamesTheImageWhereADeviationDisappears) {
  std::optional<ExtraSection> s = ImageSection(TwoImages());
  ASSERT_TRUE(s);
  EXPECT_THAT(s->markdown, HasSubstr("| rxe | xfail | SrqTest.Query | yes | - | gone in image 2 (kernel 7.2.13, rdma-core 65.0-1.1) |"));
  EXPECT_THAT(s->markdown, HasSubstr("| rxe | profile | mtu | yes | yes | same on every image |"));
  EXPECT_THAT(s->html, HasSubstr("<td>Debian sid</td>"));
  for (const nlohmann::json& d : s->data["deviations"]) {
    if (d["subject"] == "SrqTest.Query") EXPECT_EQ(d["images"], nlohmann::json::array({1}));
    if (d["subject"] == "mtu") EXPECT_EQ(d["images"], nlohmann::json::array({1, 2}));
  }
}

}  // namespace
}  // namespace rdmacheck
