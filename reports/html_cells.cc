#include "reports/html_cells.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "reports/report_html.h"

namespace rdmacheck {

std::string BreakableHtml(absl::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    absl::StrAppend(&out, HtmlEscape(text.substr(i, 1)));
    const bool separator = absl::string_view("/_.:,=").find(text[i]) != absl::string_view::npos;
    const bool after_word = i > 0 && absl::ascii_isalnum(static_cast<unsigned char>(text[i - 1]));
    if (separator && after_word && i + 1 < text.size()) out += "<wbr>";
  }
  return out;
}

namespace {

// The start of a long line, cut at a space near kFoldChars / 2 when there is one.
std::string StartOf(absl::string_view line) {
  size_t cut = kFoldChars / 2;
  const size_t space = line.rfind(' ', cut);
  if (space != absl::string_view::npos && space > cut / 2) cut = space;
  return absl::StrCat(HtmlEscape(line.substr(0, cut)), " …");
}

}  // namespace

std::string TextCellHtml(absl::string_view text) {
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n', absl::SkipEmpty());
  if (lines.size() <= 1) {
    if (text.size() <= kFoldChars) return HtmlEscape(text);
    return absl::StrCat("<details class=\"long\"><summary>", StartOf(text), "</summary>", HtmlEscape(text),
                        "</details>");
  }
  std::string list = "<ul class=\"kv\">";
  for (absl::string_view line : lines) absl::StrAppend(&list, "<li>", HtmlEscape(line), "</li>");
  list += "</ul>";
  if (lines.size() <= kFoldLines) return list;
  return absl::StrCat("<details class=\"kv\"><summary>", lines.size(), " values</summary>", list, "</details>");
}

}  // namespace rdmacheck
