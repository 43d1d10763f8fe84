#include "plan/references.h"

#include <algorithm>
#include <regex>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace rdmacheck {
namespace {

// The text without its (notes); an unclosed note runs to the end.
std::string WithoutNotes(absl::string_view text) {
  std::string out;
  int depth = 0;
  for (char c : text) {
    if (c == '(') ++depth;
    if (depth == 0) out.push_back(c);
    if (c == ')' && depth > 0) --depth;
  }
  return out;
}

void Add(std::vector<std::string>& out, std::string section) {
  if (std::find(out.begin(), out.end(), section) == out.end()) out.push_back(std::move(section));
}

void IbtaSections(const std::string& text, std::vector<std::string>& out) {
  static const std::regex kVolume(R"(Vol(?:ume)?\.? ?(\d))");
  static const std::regex kToken(
      R"(ch\. ?(\d+)|\b(\d+(?:\.\d+)+)(?= A\d)|\b(?:Annex )?(A\d+(?:\.\d+)*)\b|\b([Co]\d+-\d+(?:\.\d+)*)|\b(\d+(?:\.\d+)+)\b)");
  std::smatch v;
  const std::string volume = std::regex_search(text, v, kVolume) ? v[1].str() : "1";
  const std::string prefix = absl::StrCat("IBTA Vol ", volume, " ");
  std::string rest = std::regex_replace(text, kVolume, "");
  for (std::sregex_iterator m(rest.begin(), rest.end(), kToken), end; m != end; ++m) {
    // (*m)[2]: "1.5" before "A19": the release of Vol 1, not a section.
    if ((*m)[1].matched) Add(out, absl::StrCat(prefix, "ch. ", (*m)[1].str()));
    if ((*m)[3].matched) Add(out, absl::StrCat(prefix, "Annex ", (*m)[3].str()));
    if ((*m)[4].matched) Add(out, absl::StrCat(prefix, (*m)[4].str()));
    if ((*m)[5].matched) Add(out, absl::StrCat(prefix, (*m)[5].str()));
  }
}

void RfcSections(const std::string& text, std::vector<std::string>& out) {
  static const std::regex kRfc(R"(RFC ?(\d{3,5}))");
  static const std::regex kSection(R"(^[\s,]*(?:section |sec\. ?|§ ?)?(\d+(?:\.\d+)*)\b)");
  for (std::sregex_iterator m(text.begin(), text.end(), kRfc), end; m != end; ++m) {
    const std::string rfc = absl::StrCat("RFC ", (*m)[1].str());
    std::string after = m->suffix().str();
    after = after.substr(0, after.find("RFC"));
    bool any = false;
    std::smatch s;
    while (std::regex_search(after, s, kSection)) {
      Add(out, absl::StrCat(rfc, " ", s[1].str()));
      any = true;
      after = s.suffix().str();
    }
    if (!any) Add(out, rfc);
  }
}

}  // namespace

std::vector<std::string> CitedSections(absl::string_view reference) {
  std::vector<std::string> out;
  for (absl::string_view part : absl::StrSplit(reference, ';')) {
    const std::string text = WithoutNotes(part);
    size_t ibta = std::min(text.find("IBTA"), text.find("Annex"));
    if (ibta != std::string::npos) {
      std::string ib = text.substr(ibta);
      IbtaSections(ib.substr(0, ib.find("RFC")), out);
    }
    RfcSections(text, out);
  }
  return out;
}

}  // namespace rdmacheck
