#include "reports/report_html.h"

#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "reports/html_cells.h"
#include "reports/presentation.h"

namespace rdmacheck {

std::string HtmlEscape(absl::string_view text) {
  return absl::StrReplaceAll(text, {{"&", "&amp;"}, {"<", "&lt;"}, {">", "&gt;"}, {"\"", "&quot;"}, {"'", "&#39;"}});
}

namespace {

std::string Esc(absl::string_view text) { return HtmlEscape(text); }

std::string Plural(int n, absl::string_view word) {
  if (n == 1) return absl::StrCat(n, " ", word);
  if (absl::EndsWith(word, "y")) return absl::StrCat(n, " ", word.substr(0, word.size() - 1), "ies");
  return absl::StrCat(n, " ", word, "s");
}

constexpr TestStatus kStatuses[] = {TestStatus::kPass,  TestStatus::kFail,  TestStatus::kSkip,
                                    TestStatus::kXfail, TestStatus::kXpass, TestStatus::kBlocked};

int Count(const RunSummary& s, TestStatus status) {
  switch (status) {
    case TestStatus::kPass:
      return s.pass;
    case TestStatus::kFail:
      return s.fail;
    case TestStatus::kSkip:
      return s.skip;
    case TestStatus::kXfail:
      return s.xfail;
    case TestStatus::kXpass:
      return s.xpass;
    case TestStatus::kBlocked:
      return s.blocked;
  }
  return 0;
}

std::string TestLink(const std::string& test, const std::string& catalogue_id) {
  return absl::StrCat("<a class=\"test\" href=\"#", Esc(CatalogueAnchor(catalogue_id)), "\">", BreakableHtml(test),
                      "</a>");
}

std::string FailureAnchor(size_t device, size_t test) { return absl::StrCat("f-", device, "-", test); }

class Page {
 public:
  explicit Page(const Report& report) : r_(report) {}

  std::string Head() const {
    std::vector<std::string> labels;
    for (const DeviceSection& d : r_.devices) labels.push_back(d.label);
    std::string title = absl::StrCat("rdmacheck report: ", absl::StrJoin(labels, ", "));
    std::string out = absl::StrCat(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        "<meta name=\"generator\" content=\"rdmacheck report (",
        kReportSchema, ")\">\n<title>", Esc(title), "</title>\n<style>\n", ReportCss(),
        "</style>\n</head>\n<body>\n<header>\n<h1>", Esc(title), "</h1>\n<p class=\"meta\">");
    if (!r_.generated.empty()) absl::StrAppend(&out, "Generated ", Esc(r_.generated), " · ");
    absl::StrAppend(&out, Plural(static_cast<int>(r_.devices.size()), "device"), " · ",
                    Plural(static_cast<int>(r_.matrix.size()), "test"), "</p>\n");
    for (const std::string& line : IncompleteRunLines(r_)) absl::StrAppend(&out, "<p class=\"lab-failure\"><strong>⚠ ", Esc(line), "</strong></p>\n");
    out += "<nav>";
    const std::pair<const char*, const char*> sections[] = {{"summary", "Summary"},
                                                            {"environment", "Environment"},
                                                            {"capabilities", "Capabilities"},
                                                            {"suites", "Suites"},
                                                            {"tests", "Tests"},
                                                            {"failures", "Failures"},
                                                            {"quirks", "Quirks"},
                                                            {"catalogue", "Catalogue"}};
    for (const auto& [id, name] : sections) absl::StrAppend(&out, "<a href=\"#", id, "\">", name, "</a> ");
    for (const ExtraSection& s : r_.extra_sections) {
      absl::StrAppend(&out, "<a href=\"#extra-", Esc(s.id), "\">", Esc(s.title), "</a> ");
    }
    return out + "</nav>\n</header>\n<main>\n";
  }

  std::string Summary() const {
    std::string out = "<section id=\"summary\">\n<h2>Summary</h2>\n<div class=\"cards\">\n";
    for (size_t d = 0; d < r_.devices.size(); ++d) {
      const DeviceSection& dev = r_.devices[d];
      const nlohmann::json& env = dev.run.results.environment;
      std::vector<std::string> sub;
      for (const char* key : {"driver", "transport", "link_layer"}) {
        if (env.contains(key) && !JsonText(env[key]).empty()) sub.push_back(JsonText(env[key]));
      }
      absl::StrAppend(&out, "<div class=\"card\" data-device=\"", d, "\">\n<h3>", Esc(dev.label),
                      "</h3>\n<p class=\"sub\">", Esc(absl::StrJoin(sub, " · ")),
                      "</p>\n<ul class=\"counts\">\n<li class=\"total\"><b id=\"count-", d, "-total\">",
                      dev.summary.total, "</b> tests (", dev.summary.bodies, " test bodies)</li>\n");
      for (TestStatus s : kStatuses) {
        absl::StrAppend(&out, "<li class=\"st-", TestStatusName(s), Count(dev.summary, s) ? "" : " zero",
                        "\"><b id=\"count-", d, "-", TestStatusName(s), "\">", Count(dev.summary, s), "</b> ",
                        StatusWord(s), "</li>\n");
      }
      absl::StrAppend(&out, "</ul>\n<p class=\"sub\">", FormatDuration(dev.run.results.duration_ms), " · started ",
                      Esc(dev.run.results.started), "</p>\n");
      if (!dev.summary.skipped_by_capability.empty() || !dev.summary.skipped_as_consequence_of.empty()) {
        absl::StrAppend(&out, "<p class=\"sub\">skipped for: ", Esc(SkipsText(dev.summary)), "</p>\n");
      }
      absl::StrAppend(&out, "<p class=\"sub source\">", Esc(dev.run.source), "</p>\n</div>\n");
    }
    out += "</div>\n";
    if (r_.devices.size() > 1) {
      absl::StrAppend(&out, "<p id=\"differences-line\" class=\"callout\"><b>", Plural(r_.DifferingTests(), "test"),
                      "</b> and <b>", Plural(r_.DifferingCapabilities(), "capability"),
                      "</b> differ between the devices. <a href=\"#tests?diff=1\" data-filter=\"diff=1\">Show the "
                      "differing tests</a>.</p>\n");
    }
    return out + "</section>\n";
  }

  // A table of text rows, one column per device, differing rows marked.
  std::string TextTable(const char* first, const std::vector<TextRow>& rows) const {
    std::string out = absl::StrCat("<table class=\"grid\">\n<thead><tr><th>", first, "</th>");
    for (const DeviceSection& d : r_.devices) absl::StrAppend(&out, "<th>", BreakableHtml(d.label), "</th>");
    out += "</tr></thead>\n<tbody>\n";
    for (const TextRow& row : rows) {
      absl::StrAppend(&out, "<tr", row.differs && r_.devices.size() > 1 ? " class=\"differs\"" : "", "><th>",
                      Esc(row.key), "</th>");
      for (const std::string& c : row.cells) absl::StrAppend(&out, "<td class=\"text\">", TextCellHtml(c), "</td>");
      out += "</tr>\n";
    }
    return out + "</tbody>\n</table>\n";
  }

  std::string Environment() const {
    return absl::StrCat("<section id=\"environment\">\n<h2>Environment</h2>\n", TextTable("", EnvironmentRows(r_)),
                        "</section>\n");
  }

  std::string Capabilities() const {
    std::string out =
        "<section id=\"capabilities\">\n<h2>Capabilities</h2>\n<p class=\"help\">What the probe observed when it tried "
        "each capability: <span class=\"cap supported\">supported</span> <span class=\"cap "
        "unsupported\">unsupported</span> "
        "<span class=\"cap broken\">broken</span> (declared, but failed when tried). ⚠ marks a quirk; a highlighted "
        "row "
        "differs between devices. Hover a cell for the detail.</p>\n";
    if (r_.capabilities.empty()) {
      out += "<p>The probe recorded no observed capabilities.</p>\n";
    } else {
      out += "<table class=\"grid caps\" id=\"capability-matrix\">\n<thead><tr><th>Capability</th>";
      for (const DeviceSection& d : r_.devices) absl::StrAppend(&out, "<th>", BreakableHtml(d.label), "</th>");
      if (r_.devices.size() == 1) out += "<th>Detail</th>";
      out += "</tr></thead>\n<tbody>\n";
      for (const CapabilityRow& row : r_.capabilities) {
        std::vector<std::string> classes;
        if (row.differs) classes.push_back("differs");
        if (row.quirk) classes.push_back("quirk");
        absl::StrAppend(&out, "<tr",
                        classes.empty() ? "" : absl::StrCat(" class=\"", absl::StrJoin(classes, " "), "\""), "><th>",
                        row.quirk ? "⚠ " : "", "<code>", BreakableHtml(row.capability), "</code></th>");
        for (const auto& cell : row.cells) {
          if (!cell) {
            out += "<td class=\"cap none\">·</td>";
            continue;
          }
          std::string title = cell->detail;
          if (cell->err) absl::StrAppend(&title, title.empty() ? "" : " ", "(errno ", cell->err, ")");
          absl::StrAppend(&out, "<td class=\"cap ", Esc(cell->outcome), "\" title=\"", Esc(title), "\">",
                          Esc(cell->outcome), "</td>");
        }
        if (r_.devices.size() == 1 && row.cells[0]) {
          absl::StrAppend(&out, "<td class=\"detail text\">", TextCellHtml(row.cells[0]->detail),
                          row.cells[0]->err ? absl::StrCat(" (errno ", row.cells[0]->err, ")") : "", "</td>");
        }
        out += "</tr>\n";
      }
      out += "</tbody>\n</table>\n";
    }
    std::vector<TextRow> details;
    std::vector<TextRow> measured = MeasuredRows(r_, &details);
    if (!measured.empty()) {
      out += "<h3>Measured by the probe</h3>\n<table class=\"grid\" id=\"measured\">\n<thead><tr><th>Limit</th>";
      for (const DeviceSection& d : r_.devices) absl::StrAppend(&out, "<th>", BreakableHtml(d.label), "</th>");
      out += "</tr></thead>\n<tbody>\n";
      for (size_t i = 0; i < measured.size(); ++i) {
        absl::StrAppend(&out, "<tr", measured[i].differs && r_.devices.size() > 1 ? " class=\"differs\"" : "",
                        "><th><code>", BreakableHtml(measured[i].key), "</code></th>");
        for (size_t d = 0; d < measured[i].cells.size(); ++d) {
          absl::StrAppend(&out, "<td class=\"text\" title=\"", Esc(details[i].cells[d]), "\">",
                          TextCellHtml(measured[i].cells[d]), "</td>");
        }
        out += "</tr>\n";
      }
      out += "</tbody>\n</table>\n";
    }
    std::vector<TextRow> declared = DeclaredRows(r_);
    if (!declared.empty()) {
      absl::StrAppend(&out, "<details>\n<summary>Declared by the device (", declared.size(), " attributes)</summary>\n",
                      TextTable("Attribute", declared), "</details>\n");
    }
    return out + "</section>\n";
  }

  std::string Suites() const {
    std::string out =
        "<section id=\"suites\">\n<h2>Results by suite</h2>\n<table class=\"grid\">\n<thead><tr><th>Suite</th>";
    for (const DeviceSection& d : r_.devices) absl::StrAppend(&out, "<th>", BreakableHtml(d.label), "</th>");
    out += "</tr></thead>\n<tbody>\n";
    for (const std::string& suite : r_.SuiteNames()) {
      absl::StrAppend(&out, "<tr><th><a href=\"#tests?suite=", Esc(suite), "\" data-filter=\"suite=", Esc(suite), "\">",
                      Esc(suite), "</a></th>");
      for (const DeviceSection& d : r_.devices) {
        std::string cell = "<span class=\"none\">not run</span>";
        if (const SuiteCounts* s = d.FindSuite(suite)) {
          cell.clear();
          for (TestStatus st : kStatuses) {
            int n = Count(s->summary, st);
            if (n)
              absl::StrAppend(&cell, "<span class=\"pill st-", TestStatusName(st), "\">", n, " ", StatusWord(st),
                              "</span> ");
          }
          absl::StrAppend(&cell, "<span class=\"time\">", FormatDuration(s->duration_ms), ", set-up ",
                          FormatDuration(s->setup_ms),
                          s->processes > 1 ? absl::StrCat(", ", s->processes, " processes") : "", "</span>");
        }
        absl::StrAppend(&out, "<td>", cell, "</td>");
      }
      out += "</tr>\n";
    }
    return out + "</tbody>\n</table>\n</section>\n";
  }

  std::string Tests() const {
    std::vector<std::string> suites;
    for (const MatrixRow& row : r_.matrix) {
      if (suites.empty() || suites.back() != row.suite) suites.push_back(row.suite);
    }
    std::string out = absl::StrCat(
        "<section id=\"tests\">\n<h2>Tests</h2>\n<p class=\"help\">Rows are tests grouped by suite, columns are "
        "devices. "
        "A test name leads to what the test checks and why; a failed cell leads to its message. Click a column title "
        "to "
        "sort.</p>\n<form class=\"controls\" id=\"filters\" onsubmit=\"return false\">\n"
        "<label>Suite <select id=\"f-suite\"><option value=\"\">all</option>");
    for (const std::string& s : suites) absl::StrAppend(&out, "<option>", Esc(s), "</option>");
    out +=
        "</select></label>\n<label>Status <select id=\"f-status\"><option value=\"\">any</option>"
        "<option value=\"problem\">failed or xpass</option>";
    for (TestStatus s : kStatuses)
      absl::StrAppend(&out, "<option value=\"", TestStatusName(s), "\">", StatusWord(s), "</option>");
    out +=
        "<option value=\"none\">not run</option></select></label>\n<label>Device <select id=\"f-device\"><option "
        "value=\"\">all</option>";
    for (size_t d = 0; d < r_.devices.size(); ++d)
      absl::StrAppend(&out, "<option value=\"", d, "\">", Esc(r_.devices[d].label), "</option>");
    absl::StrAppend(
        &out, "</select></label>\n<label><input type=\"checkbox\" id=\"f-diff\"",
        r_.devices.size() < 2 ? " disabled" : "",
        "> differences only</label>\n<label>Name <input type=\"search\" id=\"f-q\" placeholder=\"part of a test name\">"
        "</label>\n<button type=\"button\" id=\"f-reset\">Reset</button>\n</form>\n"
        "<p id=\"filter-summary\" class=\"filter-summary\">Showing all ",
        r_.matrix.size(),
        " tests.</p>\n"
        "<table class=\"grid matrix\" id=\"matrix\" data-devices=\"",
        r_.devices.size(),
        "\">\n<thead><tr>"
        "<th data-sort=\"suite\" aria-sort=\"none\">Suite</th><th data-sort=\"test\" aria-sort=\"none\">Test</th>");
    for (size_t d = 0; d < r_.devices.size(); ++d) {
      absl::StrAppend(&out, "<th data-sort=\"d", d, "\" data-col=\"", d, "\" aria-sort=\"none\">",
                      BreakableHtml(r_.devices[d].label), "</th>");
    }
    out += "</tr></thead>\n<tbody>\n";
    std::string suite;
    for (size_t i = 0; i < r_.matrix.size(); ++i) {
      const MatrixRow& row = r_.matrix[i];
      if (row.suite != suite) {
        suite = row.suite;
        absl::StrAppend(&out, "<tr class=\"group\" data-suite=\"", Esc(suite), "\"><th colspan=\"",
                        r_.devices.size() + 2, "\">", Esc(suite), "</th></tr>\n");
      }
      absl::StrAppend(&out, "<tr class=\"row", row.differs ? " differs" : "", "\" data-order=\"", i, "\" data-suite=\"",
                      Esc(row.suite), "\" data-differs=\"", row.differs ? 1 : 0, "\"><td class=\"suite\">",
                      Esc(row.suite), "</td><td>", TestLink(row.test, row.catalogue_id), "</td>");
      for (size_t d = 0; d < r_.devices.size(); ++d) {
        const TestResult* t = r_.Cell(row, d);
        if (t == nullptr) {
          absl::StrAppend(&out, "<td class=\"st st-none\" data-col=\"", d, "\" data-status=\"none\">not run</td>");
          continue;
        }
        std::string title = t->message;
        if (!t->expectation_reason.empty())
          absl::StrAppend(&title, title.empty() ? "" : "\n", "expected: ", t->expectation_reason);
        if (title.size() > 600) title = title.substr(0, 600) + "…";
        std::string word = StatusWord(t->status);
        if (IsFailure(t->status)) {
          word = absl::StrCat("<a href=\"#", FailureAnchor(d, *row.cells[d]), "\">", word, "</a>");
        }
        absl::StrAppend(&out, "<td class=\"st st-", TestStatusName(t->status), "\" data-col=\"", d, "\" data-status=\"",
                        TestStatusName(t->status), "\"",
                        title.empty() ? "" : absl::StrCat(" title=\"", Esc(title), "\""), ">", word, "</td>");
      }
      out += "</tr>\n";
    }
    return out + "</tbody>\n</table>\n</section>\n";
  }

  std::string Failures() const {
    std::string out = "<section id=\"failures\">\n<h2>Failures</h2>\n";
    bool any = false;
    for (size_t d = 0; d < r_.devices.size(); ++d) {
      const std::vector<TestResult>& tests = r_.devices[d].run.results.tests;
      for (size_t i = 0; i < tests.size(); ++i) {
        const TestResult& t = tests[i];
        if (!IsFailure(t.status)) continue;
        any = true;
        std::string message = t.status == TestStatus::kXpass
                                  ? absl::StrCat("Passed, but listed as failing: ", t.expectation_reason)
                                  : t.message;
        absl::StrAppend(&out, "<div class=\"failure\" id=\"", FailureAnchor(d, i), "\">\n<h3><span class=\"pill st-",
                        TestStatusName(t.status), "\">", StatusWord(t.status), "</span> ", Esc(r_.devices[d].label),
                        " · ", Esc(t.suite), " · ", TestLink(t.name, CatalogueId(t.name)), "</h3>\n<pre>", Esc(message),
                        "</pre>\n</div>\n");
      }
    }
    if (!any) out += "<p>None: no test failed or passed unexpectedly.</p>\n";
    return out + "</section>\n";
  }

  std::string Quirks() const {
    std::string out =
        "<section id=\"quirks\">\n<h2>Quirks</h2>\n<p class=\"help\">Where a device deviates: the probe saw it differ "
        "from "
        "what it declares, a declared feature did not work when tried, or a test fails as its driver's expectation "
        "file "
        "says (with the reason and the reference).</p>\n";
    if (r_.quirks.empty()) return out + "<p>None found.</p>\n</section>\n";
    for (size_t d = 0; d < r_.devices.size(); ++d) {
      std::string items;
      for (const ReportQuirk& q : r_.quirks) {
        if (q.device != d) continue;
        std::string subject;
        switch (q.kind) {
          case QuirkKind::kProfile:
            subject = absl::StrCat("<span class=\"pill quirk\">probe</span> <code>", Esc(q.subject), "</code>");
            break;
          case QuirkKind::kBroken:
            subject = absl::StrCat("<span class=\"pill st-fail\">broken</span> <code>", Esc(q.subject), "</code>");
            break;
          case QuirkKind::kXfail:
            subject = absl::StrCat("<span class=\"pill st-xfail\">expected failure</span> ",
                                   TestLink(q.subject, q.catalogue_id));
            break;
          case QuirkKind::kXpass:
            subject = absl::StrCat("<span class=\"pill st-xpass\">unexpected pass</span> ",
                                   TestLink(q.subject, q.catalogue_id));
            break;
        }
        absl::StrAppend(&items, "<li class=\"quirk-", QuirkKindName(q.kind), "\">", subject, ": ", Esc(q.text));
        if (!q.reference.empty())
          absl::StrAppend(&items, " <span class=\"ref\">Reference: ", Esc(q.reference), "</span>");
        items += "</li>\n";
      }
      if (items.empty()) continue;
      absl::StrAppend(&out, "<h3>", Esc(r_.devices[d].label), "</h3>\n<ul class=\"quirks\">\n", items, "</ul>\n");
    }
    return out + "</section>\n";
  }

  std::string Extras() const {
    std::string out;
    for (const ExtraSection& s : r_.extra_sections) {
      absl::StrAppend(&out, "<section id=\"extra-", Esc(s.id), "\">\n<h2>", Esc(s.title), "</h2>\n", s.html,
                      "\n</section>\n");
    }
    return out;
  }

  std::string Catalogue() const {
    std::string out =
        "<section id=\"catalogue\">\n<h2>Catalogue</h2>\n<p class=\"help\">What each test checks, where its "
        "expectation comes from, and the capabilities it needs (a device without them skips it). "
        "<code>rdmacheck list</code> prints the same.</p>\n<dl class=\"catalogue\">\n";
    for (const CatalogueEntry& e : r_.catalogue) {
      absl::StrAppend(&out, "<dt id=\"", Esc(CatalogueAnchor(e.id)), "\"><code>", Esc(e.id),
                      "</code> <span class=\"suite\">", Esc(e.suite), "</span></dt>\n<dd><p>",
                      e.purpose.empty() ? "(no catalogue entry)" : Esc(e.purpose), "</p>");
      if (!e.reference.empty()) absl::StrAppend(&out, "<p class=\"ref\">Reference: ", Esc(e.reference), "</p>");
      if (!e.needs.empty())
        absl::StrAppend(&out, "<p class=\"needs\">Needs: ", Esc(absl::StrJoin(e.needs, ", ")), "</p>");
      out += "</dd>\n";
    }
    return out + "</dl>\n</section>\n";
  }

  std::string Tail() const {
    return absl::StrCat("</main>\n<footer>rdmacheck report · schema ", kReportSchema,
                        " · the same data is in report.json and report.md</footer>\n<script>\n", ReportJs(),
                        "</script>\n</body>\n</html>\n");
  }

 private:
  const Report& r_;
};

}  // namespace

std::string ReportToHtml(const Report& report) {
  Page p(report);
  return absl::StrCat(p.Head(), p.Summary(), p.Environment(), p.Capabilities(), p.Suites(), p.Tests(), p.Failures(),
                      p.Quirks(), p.Extras(), p.Catalogue(), p.Tail());
}

}  // namespace rdmacheck
