// What keeps report.html within a laptop screen (reports/html_cells.h, presentation.h):
// structured values read as "name = value" lines, counters only the ones that moved, names
// break at their separators, long and listed cells fold. reports/fit_check.sh checks the
// rendered page in Chromium (CTest report.browser).
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "reports/html_cells.h"
#include "reports/presentation.h"
#include "reports/report_html.h"
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

TEST(ReadableTextTest, NoJsonBlobs) {
  EXPECT_EQ(ReadableText("rxe"), "rxe");
  EXPECT_EQ(ReadableText(1024), "1024");
  EXPECT_EQ(ReadableText(nlohmann::json::array({"ATOMIC", "MEM_WINDOW"})), "ATOMIC, MEM_WINDOW");
  EXPECT_EQ(ReadableText({{"netem", "loss 1%"}, {"nodes", {{{"eth1", {{"sent", 441}}}}}}}),
            "netem = loss 1%\nnodes[0].eth1.sent = 441");
  EXPECT_EQ(ReadableText(nlohmann::json::object()), "");
  EXPECT_EQ(ReadableText(nlohmann::json::array({1, {{"a", 2}}})), "[0] = 1\n[1].a = 2");
}

TEST(ReadableTextTest, CountersThatDidNotMoveAreLeftOut) {
  EXPECT_EQ(MovedCountersText({{"rcvd_pkts", 411}, {"link_downed", 0}, {"sent_pkts", 429}}),
            "rcvd_pkts = 411\nsent_pkts = 429");
  EXPECT_EQ(MovedCountersText({{"link_downed", 0}}), "");
}

TEST(ReadableTextTest, EnvironmentRowsReadAsLines) {
  DeviceRun run = fixtures::RunOf("rxe0", {fixtures::Result("pd", "PdTest.Alloc", TestStatus::kPass)});
  run.results.environment["traffic_run_totals"] = {{"rdma_sends", 39}, {"link_downed", 0}};
  std::vector<DeviceRun> runs;
  runs.push_back(std::move(run));
  Report report = BuildReport(std::move(runs));
  EXPECT_THAT(EnvironmentRows(report), Contains(AllOf(Field(&TextRow::key, "counters, whole run"),
                                                      Field(&TextRow::cells, ElementsAre("rdma_sends = 39")))));
  EXPECT_THAT(ReportToHtml(report), AllOf(HasSubstr("rdma_sends = 39"), Not(HasSubstr("{&quot;rdma_sends"))));
}

TEST(HtmlCellsTest, NamesBreakAtTheirSeparators) {
  EXPECT_EQ(BreakableHtml("Inst/CqTest.Create/RC"), "Inst/<wbr>CqTest.<wbr>Create/<wbr>RC");
  EXPECT_EQ(BreakableHtml("/dev/x<y"), "/dev/<wbr>x&lt;y");  // no break before the first word
  EXPECT_EQ(BreakableHtml("a_"), "a_");                        // none at the end
}

TEST(HtmlCellsTest, ShortLinesStayLongOnesAndListsFold) {
  EXPECT_EQ(TextCellHtml("a <b>"), "a &lt;b&gt;");
  EXPECT_EQ(TextCellHtml("a = 1\nb = 2"), "<ul class=\"kv\"><li>a = 1</li><li>b = 2</li></ul>");
  std::string many;
  for (int i = 0; i < 10; ++i) many += "c" + std::to_string(i) + " = 1\n";
  EXPECT_THAT(TextCellHtml(many), HasSubstr("<details class=\"kv\"><summary>10 values</summary><ul class=\"kv\">"));
  const std::string long_line = std::string(300, 'x') + " end";
  EXPECT_THAT(TextCellHtml(long_line), AllOf(HasSubstr("<details class=\"long\"><summary>"), HasSubstr(" end</details>")));
}

}  // namespace
}  // namespace rdmacheck
