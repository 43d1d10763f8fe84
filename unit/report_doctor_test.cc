// The report shows `rdmacheck doctor`'s verdict from each run's environment block, and
// every finding that is not "ok", with its fix (reports/presentation.cc).
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "reports/presentation.h"
#include "reports/report_markdown.h"
#include "unit/report_fixtures.h"

namespace rdmacheck {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(ReportDoctorTest, VerdictAndNonOkFindingsBecomeEnvironmentRows) {
  DeviceRun run = fixtures::RunOf("rxe0", {fixtures::Result("pd", "PdTest.Alloc", TestStatus::kPass)});
  run.results.environment["doctor"] = {
      {"verdict", "ready"},
      {"headline", "READY: rxe0 (1 warning)"},
      {"findings",
       {{{"check", "memlock"}, {"severity", "ok"}, {"what", "RLIMIT_MEMLOCK unlimited"}},
        {{"check", "uverbs_permissions"}, {"device", "rxe0"}, {"severity", "warning"},
         {"what", "/dev/infiniband/uverbs0 mode 0666"}, {"fix", "chmod 0660 /dev/infiniband/uverbs0"}}}}};
  std::vector<DeviceRun> runs;
  runs.push_back(std::move(run));
  Report report = BuildReport(std::move(runs));

  std::vector<TextRow> rows = EnvironmentRows(report);
  EXPECT_THAT(rows, Contains(AllOf(Field(&TextRow::key, "set-up (rdmacheck doctor)"),
                                   Field(&TextRow::cells, ElementsAre("READY: rxe0 (1 warning)")))));
  EXPECT_THAT(rows, Contains(AllOf(Field(&TextRow::key, "doctor: uverbs_permissions rxe0"),
                                   Field(&TextRow::cells, ElementsAre(AllOf(HasSubstr("warning: /dev/infiniband/uverbs0"),
                                                                            HasSubstr("fix: chmod 0660")))))));
  EXPECT_THAT(rows, Not(Contains(Field(&TextRow::key, HasSubstr("memlock")))));
  EXPECT_THAT(ReportToMarkdown(report), HasSubstr("READY: rxe0 (1 warning)"));
}

}  // namespace
}  // namespace rdmacheck
