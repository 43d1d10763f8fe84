// Cells of report.html that fit a laptop screen (1366 px; reports/fit_check.sh checks it in
// Chromium). A table grows as wide as its widest unbreakable word, so names and paths get
// break points at their separators, and long or structured text is folded, never printed
// as one long line. Every function escapes what it is given.
//
//   BreakableHtml("Inst/CqTest.Create/RC")  -> "Inst/<wbr>CqTest.<wbr>Create/<wbr>RC"
//   TextCellHtml("a = 1\nb = 2")            -> "<ul class=\"kv\"><li>a = 1</li><li>b = 2</li></ul>"
#ifndef RDMACHECK_REPORTS_HTML_CELLS_H_
#define RDMACHECK_REPORTS_HTML_CELLS_H_

#include <string>

#include "absl/strings/string_view.h"

namespace rdmacheck {

// A cell folds a line longer than this, and a list longer than kFoldLines lines.
inline constexpr size_t kFoldChars = 240;
inline constexpr size_t kFoldLines = 6;

// Escaped text with a break opportunity (<wbr>) after each / _ . : , = that follows a
// letter or digit: test names, paths, device labels. The text reads and copies the same.
std::string BreakableHtml(absl::string_view text);

// A cell's content, for a cell of class "text" (CSS: it wraps anywhere it must): one line
// as it is; one line longer than kFoldChars as <details> whose summary is its start;
// several lines ("name = value", presentation.h ReadableText) as a list, folded in
// <details> ("N values") past kFoldLines lines.
std::string TextCellHtml(absl::string_view text);

}  // namespace rdmacheck

#endif  // RDMACHECK_REPORTS_HTML_CELLS_H_
