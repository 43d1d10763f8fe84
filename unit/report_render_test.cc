// The report's renderers: report.json (and its schema), report.md, report.html.
#include <regex>
#include <set>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"
#include "reports/report_html.h"
#include "reports/report_json.h"
#include "reports/report_markdown.h"
#include "unit/report_fixtures.h"

namespace rdmacheck {
namespace {

using fixtures::Expected;
using fixtures::Result;
using fixtures::RunOf;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Le;
using ::testing::Not;
using ::testing::SizeIs;

// Two devices that differ in one test, one capability; a failure, an xfail, a quirk.
Report TwoDevices() {
  std::vector<DeviceRun> runs;
  runs.push_back(RunOf(
      "rxe0",
      {Result("pd", "PdTest.A", TestStatus::kPass),
       Expected(Result("mw", "MwTest.Bind", TestStatus::kXfail, "bind failed"), "rxe lacks MW type 2", "rdma-core #1"),
       Result("ops", "Sizes/OpsTest.Send/0", TestStatus::kPass)},
      {{"atomics", "supported"}}));
  runs.push_back(RunOf(
      "siw0",
      {Result("pd", "PdTest.A", TestStatus::kFail, "pd_test.cc:10: Expected <EBUSY> & got 0"),
       Expected(Result("mw", "MwTest.Bind", TestStatus::kXfail, "bind failed"), "rxe lacks MW type 2", "rdma-core #1")},
      {{"atomics", "unsupported"}}, {{"atomics", "siw declares no atomics"}}));
  Report r = BuildReport(std::move(runs));
  r.generated = "2025-01-15T10:00:00+00:00";
  return r;
}

// Every "](#cat-X)" link in Markdown, or href="#cat-X" in HTML, has its anchor.
void ExpectLinksResolve(const std::string& text, const std::regex& link, const std::string& anchor_format) {
  int links = 0;
  for (std::sregex_iterator it(text.begin(), text.end(), link), end; it != end; ++it) {
    ++links;
    std::string anchor = anchor_format;
    anchor.replace(anchor.find("%s"), 2, (*it)[1].str());
    EXPECT_THAT(text, HasSubstr(anchor)) << "link without anchor: " << (*it)[0];
  }
  EXPECT_GT(links, 0);
}

TEST(ReportJsonTest, HasTheSchemaTheMatricesAndTheDifferences) {
  nlohmann::json j = ReportToJson(TwoDevices());
  EXPECT_EQ(j["schema"], "rdmacheck.report/1");
  EXPECT_EQ(j["generated"], "2025-01-15T10:00:00+00:00");
  ASSERT_EQ(j["devices"].size(), 2u);
  EXPECT_EQ(j["devices"][1]["label"], "siw0");
  EXPECT_EQ(j["devices"][1]["summary"]["fail"], 1);
  EXPECT_EQ(j["devices"][1]["suites"][0]["summary"]["fail"], 1);
  EXPECT_EQ(j["test_matrix"]["devices"], nlohmann::json({"rxe0", "siw0"}));
  EXPECT_EQ(j["test_matrix"]["rows"][0]["cells"], nlohmann::json({"pass", "fail"}));
  EXPECT_EQ(j["test_matrix"]["rows"][2]["cells"], nlohmann::json({"pass", nullptr}));
  EXPECT_EQ(j["test_matrix"]["rows"][2]["catalogue"], "OpsTest.Send");
  EXPECT_EQ(j["capability_matrix"]["rows"][0]["cells"][1]["outcome"], "unsupported");
  EXPECT_EQ(j["differences"], nlohmann::json({{"tests", 2}, {"capabilities", 1}}));
  EXPECT_EQ(j["quirks"][0]["kind"], "xfail");
  EXPECT_EQ(j["quirks"][0]["reference"], "rdma-core #1");
  EXPECT_EQ(j["catalogue"].size(), 3u);
}

TEST(ReportJsonTest, RebuildsTheSameReportFromReportJson) {
  nlohmann::json first = ReportToJson(TwoDevices());
  ASSERT_OK_AND_ASSIGN(std::vector<DeviceRun> runs, RunsFromReportJson(first, "report.json"));
  Report again = BuildReport(std::move(runs));
  again.generated = first["generated"];
  EXPECT_EQ(ReportToJson(again), first);
}

TEST(ReportJsonTest, RefusesADocumentThatIsNotAReport) {
  EXPECT_THAT(RunsFromReportJson({{"schema", "rdmacheck.results/1"}}, "x.json").status().message(),
              HasSubstr("x.json: not a report.json"));
}

// report.schema.json documents what ReportToJson writes: every required field is there.
TEST(ReportJsonTest, ProvidesEveryFieldTheSchemaRequires) {
  ASSERT_OK_AND_ASSIGN(nlohmann::json schema,
                       ReadJsonFile(std::string(RDMACHECK_SOURCE_DIR) + "/reports/report.schema.json"));
  EXPECT_EQ(schema["properties"]["schema"]["const"], kReportSchema);
  nlohmann::json j = ReportToJson(TwoDevices());
  for (const auto& key : schema["required"]) EXPECT_TRUE(j.contains(key)) << key;
  for (const auto& key : schema["$defs"]["device"]["required"]) EXPECT_TRUE(j["devices"][0].contains(key)) << key;
  for (const auto& key : schema["$defs"]["summary"]["required"])
    EXPECT_TRUE(j["devices"][0]["summary"].contains(key)) << key;
  for (const auto& key : schema["properties"]["catalogue"]["items"]["required"]) {
    EXPECT_TRUE(j["catalogue"][0].contains(key)) << key;
  }
}

TEST(ReportMarkdownTest, HasEverySectionAndEveryFailureAndXfail) {
  std::string md = ReportToMarkdown(TwoDevices());
  for (const char* section :
       {"# rdmacheck report: rxe0, siw0", "## Summary", "## Environment", "## Capabilities", "## Results by suite",
        "## Failures", "## Differences", "## Quirks", "## All tests", "## Catalogue"}) {
    EXPECT_THAT(md, HasSubstr(section));
  }
  EXPECT_THAT(md, HasSubstr("pd_test.cc:10: Expected <EBUSY> & got 0"));  // in a code block: verbatim
  EXPECT_THAT(md, HasSubstr("rxe lacks MW type 2"));
  EXPECT_THAT(md, HasSubstr("Reference: rdma-core #1"));
  EXPECT_THAT(md, HasSubstr("siw declares no atomics"));
  EXPECT_THAT(md, HasSubstr("**2 tests and 1 capabilities differ"));
}

TEST(ReportMarkdownTest, EveryTestLinksToItsCatalogueEntry) {
  std::string md = ReportToMarkdown(TwoDevices());
  ExpectLinksResolve(md, std::regex(R"(\]\(#cat-([^)]+)\))"), "<a id=\"cat-%s\"></a>");
  EXPECT_THAT(md, HasSubstr("<a id=\"cat-OpsTest.Send\"></a>"));
}

TEST(ReportMarkdownTest, OneDeviceHasNoDifferencesSection) {
  std::vector<DeviceRun> runs;
  runs.push_back(RunOf("rxe0", {Result("pd", "PdTest.A", TestStatus::kPass)}));
  std::string md = ReportToMarkdown(BuildReport(std::move(runs)));
  EXPECT_THAT(md, Not(HasSubstr("## Differences")));
  EXPECT_THAT(md, HasSubstr("None: no test failed"));
}

TEST(ReportMarkdownTest, FitsAPullRequestCommentWhateverTheRun) {
  std::vector<TestResult> a, b;
  const std::string long_message(4000, 'x');
  for (int i = 0; i < 1500; ++i) {
    a.push_back(Result("big", "BigTest.Case" + std::to_string(i), TestStatus::kPass));
    b.push_back(Result("big", "BigTest.Case" + std::to_string(i), i % 3 ? TestStatus::kPass : TestStatus::kFail,
                       long_message + "\nline 2\nline 3"));
  }
  std::vector<DeviceRun> runs;
  runs.push_back(RunOf("rxe0", a));
  runs.push_back(RunOf("siw0", b));
  std::string md = ReportToMarkdown(BuildReport(std::move(runs)));
  EXPECT_THAT(md.size(), Le(kMarkdownBudget));
  EXPECT_THAT(md, AllOf(HasSubstr("## Summary"), HasSubstr("## Catalogue"), HasSubstr("more failures in report.html")));
  ExpectLinksResolve(md, std::regex(R"(\]\(#cat-([^)]+)\))"), "<a id=\"cat-%s\"></a>");
}

TEST(ReportMarkdownTest, EscapesTableCells) {
  std::vector<DeviceRun> runs;
  runs.push_back(RunOf("rxe0", {Result("pd", "PdTest.A", TestStatus::kPass)}));
  runs[0].results.environment["kernel"] = "6.1|evil\nline";
  std::string md = ReportToMarkdown(BuildReport(std::move(runs)));
  EXPECT_THAT(md, HasSubstr("| 6.1\\|evil line |"));
}

TEST(ReportHtmlTest, IsOneSelfContainedPage) {
  std::string html = ReportToHtml(TwoDevices());
  EXPECT_THAT(html, HasSubstr("<style>"));
  EXPECT_THAT(html, HasSubstr("<script>"));
  EXPECT_FALSE(std::regex_search(html, std::regex(R"((src|href)\s*=\s*"?(https?:)?//)", std::regex::icase)));
  EXPECT_THAT(html, Not(HasSubstr("<link")));
  EXPECT_THAT(html, Not(HasSubstr("<script src")));
}

TEST(ReportHtmlTest, HasTheMatrixCountsAndFilters) {
  std::string html = ReportToHtml(TwoDevices());
  EXPECT_THAT(html, HasSubstr("id=\"matrix\""));
  EXPECT_THAT(html, HasSubstr("id=\"capability-matrix\""));
  EXPECT_THAT(html, HasSubstr("id=\"count-1-fail\">1<"));
  EXPECT_THAT(html, HasSubstr("id=\"count-0-xfail\">1<"));
  for (const char* control : {"f-suite", "f-status", "f-device", "f-diff", "f-q"})
    EXPECT_THAT(html, HasSubstr(control));
  EXPECT_THAT(html, HasSubstr("data-differs=\"1\""));
  EXPECT_THAT(html, HasSubstr("data-status=\"none\">not run"));
}

TEST(ReportHtmlTest, EscapesWhatTheRunsWrote) {
  std::vector<DeviceRun> runs;
  runs.push_back(RunOf("rxe0", {Result("pd", "PdTest.A", TestStatus::kFail, "<script>alert(1)</script> & \"x\"")}));
  std::string html = ReportToHtml(BuildReport(std::move(runs)));
  EXPECT_THAT(html, HasSubstr("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot;"));
  EXPECT_THAT(html, Not(HasSubstr("<script>alert(1)")));
}

TEST(ReportHtmlTest, EveryTestLinksToItsCatalogueEntry) {
  Report r = TwoDevices();
  std::string html = ReportToHtml(r);
  ExpectLinksResolve(html, std::regex(R"(href="#cat-([^"]+)\")"), "id=\"cat-%s\"");
  for (const MatrixRow& row : r.matrix) EXPECT_THAT(html, HasSubstr("href=\"#cat-" + row.catalogue_id + "\""));
  // A failed cell leads to its message.
  EXPECT_THAT(html, HasSubstr("<a href=\"#f-1-0\">failed</a>"));
  EXPECT_THAT(html, HasSubstr("id=\"f-1-0\""));
}

TEST(ReportRenderTest, ExtraSectionsAppearInEveryFormat) {
  Report r = TwoDevices();
  r.extra_sections.push_back({"bench", "Benchmarks", {{"rxe0", 1}}, "bench markdown", "<p>bench html</p>"});
  EXPECT_EQ(ReportToJson(r)["extra"]["bench"]["rxe0"], 1);
  EXPECT_THAT(ReportToMarkdown(r), HasSubstr("## Benchmarks\n\nbench markdown"));
  EXPECT_THAT(ReportToHtml(r), AllOf(HasSubstr("id=\"extra-bench\""), HasSubstr("<p>bench html</p>")));
}

}  // namespace
}  // namespace rdmacheck
