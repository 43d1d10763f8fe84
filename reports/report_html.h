// report.html: one self-contained page (inline CSS and JavaScript, no external asset, works
// offline from file://) for reading a report in a browser.
//
// Sections: summary cards with counts per device, environment, capability matrix (declared
// attributes folded), results per suite, the test matrix (rows: tests grouped by suite,
// columns: devices) with filters by suite / status / device / name, a "differences only"
// toggle and sortable columns, failures with their messages, quirks, and the catalogue:
// every test name links to its entry (#cat-Fixture.Name).
//
// The page works without JavaScript (everything is rendered); the script only filters,
// sorts and counts. Filter state lives in the address: report.html#tests?status=fail&diff=1
// (keys suite, status, device, q, diff, sort), so a filtered view can be linked.
#ifndef RDMACHECK_REPORTS_REPORT_HTML_H_
#define RDMACHECK_REPORTS_REPORT_HTML_H_

#include <string>

#include "absl/strings/string_view.h"

#include "reports/report_model.h"

namespace rdmacheck {

std::string ReportToHtml(const Report& report);

// Text made safe for HTML content and attribute values (& < > " ').
std::string HtmlEscape(absl::string_view text);

// The page's stylesheet and script (reports/html/report.css, report.js, built in).
const char* ReportCss();
const char* ReportJs();

}  // namespace rdmacheck

#endif  // RDMACHECK_REPORTS_REPORT_HTML_H_
