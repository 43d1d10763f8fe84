// report.md: the report for a pull-request comment or a terminal pager.
//
// Sections: summary (counts, time, skips per device), environment, capabilities, results
// per suite, failures with their messages, differences between devices, quirks, the
// catalogue entries of the tests mentioned, and the full test matrix when it fits. The
// whole stays under `budget` characters (GitHub takes 65,536 in a comment): first the full
// matrix is left to report.html, then failure messages are shortened, then the lists of
// failures, differences and quirks (each says how many more report.html has).
#ifndef RDMACHECK_REPORTS_REPORT_MARKDOWN_H_
#define RDMACHECK_REPORTS_REPORT_MARKDOWN_H_

#include <cstddef>
#include <string>

#include "reports/report_model.h"

namespace rdmacheck {

inline constexpr size_t kMarkdownBudget = 60000;

std::string ReportToMarkdown(const Report& report, size_t budget = kMarkdownBudget);

}  // namespace rdmacheck

#endif  // RDMACHECK_REPORTS_REPORT_MARKDOWN_H_
