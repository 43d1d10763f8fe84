// C++ source with its comments and the insides of its string and character literals
// blanked (newlines and offsets kept), for the unit tests that read the project's own
// source: a verb or a bracket named in a comment or an RDMACHECK_ABOUT text is no code.
#ifndef RDMACHECK_UNIT_MASKED_SOURCE_H_
#define RDMACHECK_UNIT_MASKED_SOURCE_H_

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/string_view.h"

namespace rdmacheck {

inline std::string MaskCommentsAndLiterals(absl::string_view text) {
  std::string out(text);
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (text.substr(i, 2) == "//" || text.substr(i, 2) == "/*") {
      const bool line = text[i + 1] == '/';
      const size_t stop = line ? text.find('\n', i) : text.find("*/", i);
      const size_t end = stop == absl::string_view::npos ? text.size() : line ? stop : stop + 2;
      for (size_t k = i; k < end; ++k) {
        if (text[k] != '\n') out[k] = ' ';
      }
      i = end - 1;
    } else if (c == '"' || (c == '\'' && !(i > 0 && absl::ascii_isalnum(text[i - 1])))) {  // 1'000 is a number
      for (++i; i < text.size() && text[i] != c; ++i) {
        if (text[i] == '\\' && i + 1 < text.size()) out[i++] = ' ';
        if (text[i] != '\n') out[i] = ' ';
      }
    }
  }
  return out;
}

}  // namespace rdmacheck

#endif  // RDMACHECK_UNIT_MASKED_SOURCE_H_
