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

TEST(MutationSectionTest, TheOldLooseSchemaIsRefused) {
  const std::string path = testing::TempDir() + "/old_mutation.json";
  std::ofstream(path) << R"({"schema": "rdmacheck.mutation/1", "devices": []})";
  absl::StatusOr<std::optional<MutationRun>> run = LoadMutationRun(path);
  EXPECT_FALSE(run.ok()) << "a /1 file counted any failure as a kill";
  std::remove(path.c_str());
}

TEST(MutationSectionTest, ShowsKilledActedAndTotalPerDevice) {
  ExtraSection s = MutationSection({Fixture()});
  EXPECT_EQ(s.id, "mutation");
  ASSERT_EQ(s.data["devices"].size(), 2u);
  const nlohmann::json& rxe = s.data["devices"][0];
  EXPECT_EQ(rxe["killed"], 1);
  EXPECT_EQ(rxe["acted"], 4);
  EXPECT_EQ(rxe["total"], 4);
  EXPECT_EQ(rxe["loose_killed"], 2) << "cqe_lost's run failed, but not in an ordinary way";
  EXPECT_DOUBLE_EQ(rxe["score"].get<double>(), 0.25);
  EXPECT_THAT(s.markdown, HasSubstr("| device | killed | acted | mutants | score | loose count | control |"));
  EXPECT_THAT(s.markdown, HasSubstr("| rxe0 | 1 | 4 | 4 | 25.0 % | 2 | equal to a plain run (12 tests) |"));
  EXPECT_THAT(s.markdown, HasSubstr("| siw0 | 0 | 0 | 1 | 0.0 % | 0 | DIFFERENT from a plain run"));
  EXPECT_THAT(s.html, HasSubstr("<td>rxe0</td><td>1</td><td>4</td><td>4</td><td>25.0 %</td><td>2</td>"));
}

TEST(MutationSectionTest, EverySurvivorSaysWhy) {
  ExtraSection s = MutationSection({Fixture()});
  // The reason in its source (escaped for the Markdown table).
  EXPECT_THAT(s.markdown, HasSubstr("| rxe0 | `wc_invalidated_rkey` |"));
  EXPECT_THAT(s.markdown, HasSubstr("rxe already reports WITH_INV wrong \\| so the test xfails"));
  // A probe-visible variant whose plain mutant was killed: the probe hid it.
  EXPECT_THAT(s.markdown, HasSubstr("| rxe0 | `wc_byte_len@probe` |"));
  EXPECT_THAT(s.markdown, HasSubstr("killed when only the tests see it; what the probe made of it hid it"));
  // Killed only by the loose count: a test is missing.
  EXPECT_THAT(s.markdown, HasSubstr("| rxe0 | `cqe_lost` | the first successful completion is lost | not explained: "
                                    "a test is missing |"));
  // Never acted.
  EXPECT_THAT(s.markdown, HasSubstr("| siw0 | `wc_byte_len` | a successful receive reports one byte more than arrived "
                                    "| not explained: it never acted"));
  EXPECT_THAT(s.markdown, Not(HasSubstr("| rxe0 | `wc_byte_len` |")));  // killed there
  EXPECT_THAT(s.html, HasSubstr("<td><code>wc_invalidated_rkey</code></td>"));
  EXPECT_EQ(s.data["devices"][0]["survivors"].size(), 3u);
}

}  // namespace
}  // namespace rdmacheck
