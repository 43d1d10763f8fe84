// One man page's source, read as text: the groff (man or mdoc) markup taken off, each line
// kept with its number, each line under the section it belongs to.
//
//   absl::StatusOr<ManPage> page = ReadManPage("/usr/share/man/man3/ibv_reg_mr.3.gz");
//   for (const ManLine& line : page->lines) ... line.section ("RETURN VALUE"), line.text
//
// Pages may be plain or gzip-compressed. A page that is only a `.so` link to another page
// (or a symbolic link to one) reads as a page without lines: the other page holds the text.
#ifndef RDMACHECK_PLAN_MAN_SOURCE_H_
#define RDMACHECK_PLAN_MAN_SOURCE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace rdmacheck {

struct ManLine {
  int number = 0;       // 1-based, in the page's source
  std::string section;  // "NAME", "SYNOPSIS", "DESCRIPTION", "RETURN VALUE", ... (upper case)
  std::string text;     // without markup; empty for a line that is markup only
};

struct ManPage {
  std::string name;  // "ibv_reg_mr.3" (the file name without .gz)
  std::vector<ManLine> lines;
};

// The raw source of a page (gunzipped when it ends in .gz).
absl::StatusOr<std::string> ReadManSource(const std::string& path);

// The text of one source line: font escapes (\fB, \f[B]), named characters (\-, \[cq]),
// macro names (.B, .BI, .Fn, ...) and their quotes removed. Request lines that carry no
// text (.TH, .PP, .nf, comments, conditionals) give "".
std::string ManLineText(absl::string_view source_line);

// The page parsed into lines with their sections.
ManPage ParseManPage(const std::string& name, const std::string& source);
absl::StatusOr<ManPage> ReadManPage(const std::string& path);

}  // namespace rdmacheck

#endif  // RDMACHECK_PLAN_MAN_SOURCE_H_
