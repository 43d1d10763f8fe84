// reports/mutation_section.h: the report's "Mutation score" section, from a fixture
// mutation.json (unit/testdata/mutation) as selftest/mutants/run_mutants.py writes it.
#include "reports/mutation_section.h"

#include <cstdio>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const std::string kFixture = std::string(RDMACHECK_SOURCE_DIR) + "/unit/testdata/mutation";

MutationRun Fixture() {
  absl::StatusOr<std::optional<MutationRun>> run = LoadMutationRun(kFixture);
  EXPECT_TRUE(run.ok()) << run.status();
  EXPECT_TRUE(run->has_value());
  return **run;
}

TEST(MutationSectionTest, ADirectoryOrTheFileIsAMutationRun) {
  MutationRun run = Fixture();
  EXPECT_EQ(run.source, kFixture + "/mutation.json");
  EXPECT_TRUE(run.plain_runs.empty()) << "the fixture has no plain runs beside it";
  absl::StatusOr<std::optional<MutationRun>> file = LoadMutationRun(kFixture + "/mutation.json");
  ASSERT_TRUE(file.ok());
  EXPECT_TRUE(file->has_value());
}

TEST(MutationSectionTest, ARunDirectoryIsNot) {
  absl::StatusOr<std::optional<MutationRun>> run =
      LoadMutationRun(std::string(RDMACHECK_SOURCE_DIR) + "/unit/testdata/report/rxe0");
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_FALSE(run->has_value());
}

TEST(MutationSectionTest, AnotherJsonFileIsAnError) {
  const std::string path = testing::TempDir() + "/not_mutation.json";
  std::ofstream(path) << R"({"schema": "rdmacheck.results/1"})";
  absl::StatusOr<std::optional<MutationRun>> run = LoadMutationRun(path);
  EXPECT_FALSE(run.ok());
  EXPECT_THAT(std::string(run.status().message()), HasSubstr("not a mutation run"));
  std::remove(path.c_str());
}

TEST(MutationSectionTest, ShowsTheScorePerDeviceAndEverySurvivor) {
  ExtraSection s = MutationSection({Fixture()});
  EXPECT_EQ(s.id, "mutation");
  ASSERT_EQ(s.data["devices"].size(), 2u);
  EXPECT_EQ(s.data["devices"][0]["killed"], 1);
  EXPECT_EQ(s.data["devices"][0]["total"], 2);
  EXPECT_DOUBLE_EQ(s.data["devices"][0]["score"].get<double>(), 0.5);
  EXPECT_THAT(s.markdown, HasSubstr("| rxe0 | 1 | 2 | 50.0 % | equal to a plain run (12 tests) |"));
  EXPECT_THAT(s.markdown, HasSubstr("| siw0 | 0 | 1 | 0.0 % | DIFFERENT from a plain run"));
  // A survivor with its reason (escaped for the Markdown table), one without.
  EXPECT_THAT(s.markdown, HasSubstr("| rxe0 | `wc_invalidated_rkey` |"));
  EXPECT_THAT(s.markdown, HasSubstr("rxe already reports WITH_INV wrong \\| so the test xfails"));
  EXPECT_THAT(s.markdown, HasSubstr("| siw0 | `wc_byte_len` | a successful receive reports one byte more than arrived "
                                    "| not explained: a test is missing |"));
  EXPECT_THAT(s.markdown, Not(HasSubstr("| rxe0 | `wc_byte_len`")));  // killed there
  EXPECT_THAT(s.html, HasSubstr("<td><code>wc_invalidated_rkey</code></td>"));
  EXPECT_EQ(s.data["devices"][1]["survivors"][0]["survives"], "not explained: a test is missing");
}

}  // namespace
}  // namespace rdmacheck
