#include "plan/coverage_render.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace rdmacheck {
namespace {

// "IBTA Vol 1 9.4" before "IBTA Vol 1 10.2": numbers compare as numbers.
bool NaturalLess(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (absl::ascii_isdigit(a[i]) && absl::ascii_isdigit(b[j])) {
      size_t ie = i, je = j;
      while (ie < a.size() && absl::ascii_isdigit(a[ie])) ++ie;
      while (je < b.size() && absl::ascii_isdigit(b[je])) ++je;
      long x = std::stol(a.substr(i, ie - i)), y = std::stol(b.substr(j, je - j));
      if (x != y) return x < y;
      i = ie;
      j = je;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

std::vector<std::pair<std::string, int>> SortedCitations(const Coverage& c) {
  std::vector<std::pair<std::string, int>> sorted(c.citations.begin(), c.citations.end());
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return NaturalLess(a.first, b.first); });
  return sorted;
}

// "errno/EINVAL" (the verb is the heading).
std::string Short(const Promise& p) { return absl::StrCat(PromiseKindName(p.kind), "/", p.what); }

std::vector<std::string> InState(const VerbCoverage& v, CoverageState state, bool with_tests) {
  std::vector<std::string> out;
  for (const PromiseCoverage& pc : v.promises) {
    if (pc.state != state) continue;
    std::string s = Short(*pc.promise);
    if (with_tests && !pc.tests.empty()) absl::StrAppend(&s, " (", absl::StrJoin(pc.tests, ", "), ")");
    if (state == CoverageState::kUntestable) absl::StrAppend(&s, " [", pc.why, "]");
    out.push_back(std::move(s));
  }
  return out;
}

std::string Header(const Coverage& c) {
  std::string s = absl::StrCat(CoverageTotalsLine(c), "\n", c.verbs_with_a_test, " of ", c.verbs.size(),
                               " verbs have a test; ", c.tests_declaring, " of ", c.tests,
                               " tests declare promises (plan/checks.json)\nman pages: ", c.manpages, " (", c.pages,
                               " pages)\n");
  if (c.with_run) absl::StrAppend(&s, "device: the run in ", c.run_dir, "\n");
  if (!c.unknown.empty()) {
    absl::StrAppend(&s, c.unknown.size(), " declared promises are not on these pages: ", absl::StrJoin(c.unknown, "; "), "\n");
  }
  if (!c.dropped_prose.empty()) {
    absl::StrAppend(&s, c.dropped_prose.size(), " prose promises name verbs these pages lack: ",
                    absl::StrJoin(c.dropped_prose, ", "), "\n");
  }
  return s;
}

std::string ProviderTotalsLine(const ProviderErrors& e) {
  return absl::StrCat(e.errors, " documented errors of the ", e.verbs, " verbs ", e.provider, " implements: ", e.tested,
                      " tested, ", e.untestable, " untestable on this device, ", e.no_failing_path, " ", e.provider,
                      " cannot return, ", e.untested, " untested (", e.verbs_complete, " of ", e.verbs,
                      " verbs complete)");
}

// The errors of `e` no test checks; with cannot_return, those the provider cannot return ("id: why").
std::vector<std::string> ProviderErrorList(const ProviderErrors& e, bool cannot_return) {
  std::vector<std::string> out;
  for (const auto& [verb, errors] : e.by_verb) {
    for (const ProviderErrors::Error& err : errors) {
      const std::string id = err.coverage->promise->Id();
      if (cannot_return && !err.no_failing_path.empty()) out.push_back(absl::StrCat(id, ": ", err.no_failing_path));
      if (!cannot_return && err.no_failing_path.empty() && err.coverage->state == CoverageState::kUntested) {
        out.push_back(id);
      }
    }
  }
  return out;
}

}  // namespace

std::string ProviderErrorsText(const ProviderErrors& e) {
  std::string s = absl::StrCat(ProviderTotalsLine(e), "\n    ops table: ", e.ops_table, "\n");
  for (const std::string& id : ProviderErrorList(e, false)) absl::StrAppend(&s, "    untested: ", id, "\n");
  for (const std::string& id : ProviderErrorList(e, true)) absl::StrAppend(&s, "    cannot return: ", id, "\n");
  if (!e.undocumented.empty()) {
    absl::StrAppend(&s, "    no man page: ", absl::StrJoin(e.undocumented, ", "), "\n");
  }
  return s;
}

std::string ProviderErrorsMarkdown(const ProviderErrors& e) {
  std::string s = absl::StrCat("## Documented errors of the verbs ", e.provider, " implements\n\n", ProviderTotalsLine(e),
                               " (ops table: ", e.ops_table, ").\n\n| Error | State |\n|---|---|\n");
  for (const std::string& id : ProviderErrorList(e, false)) absl::StrAppend(&s, "| `", id, "` | untested |\n");
  for (const std::string& line : ProviderErrorList(e, true)) {
    const size_t colon = line.find(": ");
    absl::StrAppend(&s, "| `", line.substr(0, colon), "` | ", e.provider, " cannot return it: ", line.substr(colon + 2),
                    " |\n");
  }
  return s;
}

nlohmann::json ProviderErrorsJson(const ProviderErrors& e) {
  nlohmann::json verbs = nlohmann::json::object();
  for (const auto& [verb, errors] : e.by_verb) {
    nlohmann::json list = nlohmann::json::array();
    for (const ProviderErrors::Error& err : errors) {
      nlohmann::json one = {{"id", err.coverage->promise->Id()}, {"state", CoverageStateName(err.coverage->state)},
                            {"tests", err.coverage->tests}};
      if (!err.no_failing_path.empty()) one["cannot_return"] = err.no_failing_path;
      list.push_back(std::move(one));
    }
    verbs[verb] = std::move(list);
  }
  return {{"provider", e.provider},     {"ops_table", e.ops_table},
          {"verbs", e.verbs},           {"verbs_complete", e.verbs_complete},
          {"errors", e.errors},         {"tested", e.tested},
          {"untestable", e.untestable}, {"cannot_return", e.no_failing_path},
          {"untested", e.untested},     {"by_verb", verbs},
          {"undocumented", e.undocumented}};
}

std::string CoverageTotalsLine(const Coverage& c) {
  return absl::StrCat(c.verbs.size(), " verbs, ", c.promises, " promises: ", c.tested, " tested, ", c.untestable,
                      " untestable on this device, ", c.untested, " untested");
}

std::string CoverageText(const Coverage& c) {
  std::string s = Header(c);
  for (const VerbCoverage& v : c.verbs) {
    absl::StrAppend(&s, "\n", v.verb, " (", v.page, "): ", v.tested, " tested, ", v.untestable, " untestable, ",
                    v.untested, " untested\n");
    for (auto [state, label] : {std::pair{CoverageState::kTested, "tested"},
                                std::pair{CoverageState::kUntestable, "untestable"},
                                std::pair{CoverageState::kUntested, "untested"}}) {
      std::vector<std::string> list = InState(v, state, false);
      if (!list.empty()) absl::StrAppend(&s, "    ", label, ": ", absl::StrJoin(list, ", "), "\n");
    }
  }
  absl::StrAppend(&s, "\nCited sections (tests citing each)\n");
  for (const auto& [section, n] : SortedCitations(c)) absl::StrAppend(&s, "  ", section, ": ", n, "\n");
  return s;
}

std::string CoverageMarkdown(const Coverage& c) {
  std::string s = absl::StrCat("# Promises of the man pages and their tests\n\n");
  for (absl::string_view line : absl::StrSplit(Header(c), '\n', absl::SkipEmpty())) absl::StrAppend(&s, "- ", line, "\n");
  absl::StrAppend(&s, "\n| Verb | Page | Tested | Untestable | Untested |\n|---|---|---|---|---|\n");
  for (const VerbCoverage& v : c.verbs) {
    absl::StrAppend(&s, "| [`", v.verb, "`](#", v.verb, ") | ", v.page, " | ", v.tested, " | ", v.untestable, " | ",
                    v.untested, " |\n");
  }
  for (const VerbCoverage& v : c.verbs) {
    absl::StrAppend(&s, "\n## ", v.verb, "\n\n| Promise | State | Tests | Stated at |\n|---|---|---|---|\n");
    for (const PromiseCoverage& pc : v.promises) {
      absl::StrAppend(&s, "| `", Short(*pc.promise), "` | ", CoverageStateName(pc.state),
                      pc.why.empty() ? "" : absl::StrCat(": ", pc.why), " | ", absl::StrJoin(pc.tests, ", "), " | ",
                      pc.promise->page, ":", pc.promise->line, " |\n");
    }
  }
  absl::StrAppend(&s, "\n## Cited sections\n\n| Section | Tests |\n|---|---|\n");
  for (const auto& [section, n] : SortedCitations(c)) absl::StrAppend(&s, "| ", section, " | ", n, " |\n");
  return s;
}

nlohmann::json CoverageJson(const Coverage& c) {
  nlohmann::json verbs = nlohmann::json::array();
  for (const VerbCoverage& v : c.verbs) {
    nlohmann::json promises = nlohmann::json::array();
    for (const PromiseCoverage& pc : v.promises) {
      nlohmann::json p = {{"id", pc.promise->Id()},           {"kind", PromiseKindName(pc.promise->kind)},
                          {"what", pc.promise->what},         {"state", CoverageStateName(pc.state)},
                          {"tests", pc.tests},                {"page", pc.promise->page},
                          {"line", pc.promise->line},         {"text", pc.promise->text}};
      if (!pc.why.empty()) p["why"] = pc.why;
      promises.push_back(std::move(p));
    }
    verbs.push_back({{"verb", v.verb}, {"page", v.page}, {"tested", v.tested}, {"untestable", v.untestable},
                     {"untested", v.untested}, {"promises", promises}});
  }
  nlohmann::json citations = nlohmann::json::array();
  for (const auto& [section, n] : SortedCitations(c)) citations.push_back({{"section", section}, {"tests", n}});
  nlohmann::json out = {{"schema", "rdmacheck.plan-coverage/1"},
                        {"manpages", c.manpages},
                        {"pages", c.pages},
                        {"totals",
                         {{"verbs", c.verbs.size()},
                          {"verbs_with_a_test", c.verbs_with_a_test},
                          {"promises", c.promises},
                          {"tested", c.tested},
                          {"untestable", c.untestable},
                          {"untested", c.untested},
                          {"tests", c.tests},
                          {"tests_declaring", c.tests_declaring}}},
                        {"unknown_declarations", c.unknown},
                        {"verbs", verbs},
                        {"citations", citations}};
  if (c.with_run) out["run"] = c.run_dir;
  return out;
}

}  // namespace rdmacheck
