#include "reports/report_markdown.h"

#include <cstdint>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "reports/presentation.h"

namespace rdmacheck {

namespace {

const char* StatusGlyph(TestStatus status) {
  switch (status) {
    case TestStatus::kPass:
      return "✅";
    case TestStatus::kFail:
      return "❌";
    case TestStatus::kSkip:
      return "➖";
    case TestStatus::kXfail:
      return "🟡";
    case TestStatus::kXpass:
      return "❗";
    case TestStatus::kBlocked:
      return "⛔";
  }
  return "?";
}

const char* OutcomeGlyph(const std::string& outcome) {
  if (outcome == "supported") return "✅";
  if (outcome == "unsupported") return "➖";
  if (outcome == "broken") return "❌";
  return "❔";
}

// Text safe inside a table cell or a line: no pipes, newlines or HTML.
std::string Cell(absl::string_view text) {
  return absl::StrReplaceAll(text, {{"|", "\\|"}, {"\n", " "}, {"<", "&lt;"}, {">", "&gt;"}});
}

// "name = value" lines (counters, an impairment's figures: ReadableText) as one line,
// "a = 1; b = 2"; any other text as it is (Cell joins its lines with a space).
std::string OneLine(const std::string& text) {
  if (!absl::StrContains(text, '\n')) return text;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (!absl::StrContains(line, " = ")) return text;
  }
  return absl::StrReplaceAll(text, {{"\n", "; "}});
}

std::string Code(absl::string_view text) {
  std::string fence = "`";
  while (absl::StrContains(text, fence)) fence += "`";
  return absl::StrCat(fence, fence.size() > 1 ? " " : "", Cell(text), fence.size() > 1 ? " " : "", fence);
}

// A fenced block of at most `max_lines` lines.
std::string Block(absl::string_view text, size_t max_lines) {
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  std::string body;
  for (size_t i = 0; i < lines.size() && i < max_lines; ++i) absl::StrAppend(&body, lines[i].substr(0, 300), "\n");
  if (lines.size() > max_lines)
    absl::StrAppend(&body, "… (", lines.size() - max_lines, " more lines in report.html)\n");
  std::string fence = "```";
  while (absl::StrContains(body, fence)) fence += "`";
  return absl::StrCat(fence, "\n", body, fence, "\n");
}

// How much of the report to write: ReportToMarkdown tries these from the most to the least.
struct Limits {
  bool full_matrix = true;
  size_t message_lines = 20;    // per failure message
  size_t max_items = SIZE_MAX;  // failures, differing rows, quirks: each list cut after this many
};

std::string More(size_t shown, size_t total, const char* what) {
  if (shown >= total) return "";
  return absl::StrCat("\n… ", total - shown, " more ", what, " in report.html.\n\n");
}

class Writer {
 public:
  Writer(const Report& report, Limits limits) : r_(report), limits_(limits) {}

  // A link to the test's catalogue entry; remembers it so the entry is written.
  std::string TestLink(const std::string& test, const std::string& catalogue_id) {
    linked_.insert(catalogue_id);
    return absl::StrCat("[", Code(test), "](#", CatalogueAnchor(catalogue_id), ")");
  }

  std::string Header(const char* first) const {
    std::string h = absl::StrCat("| ", first, " |");
    std::string rule = "|---|";
    for (const DeviceSection& d : r_.devices) {
      absl::StrAppend(&h, " ", Cell(d.label), " |");
      rule += "---|";
    }
    return absl::StrCat(h, "\n", rule, "\n");
  }

  std::string Title() const {
    std::vector<std::string> labels;
    for (const DeviceSection& d : r_.devices) labels.push_back(d.label);
    std::string out = absl::StrCat("# rdmacheck report: ", Cell(absl::StrJoin(labels, ", ")), "\n\n");
    if (!r_.generated.empty()) absl::StrAppend(&out, "Generated ", r_.generated, ". ");
    absl::StrAppend(
        &out,
        "Legend: ✅ passed · ❌ failed · ➖ skipped (capability absent) · 🟡 xfail (expected failure) · "
        "❗ xpass (listed as failing, passed) · ⛔ blocked (behind an expected failure) · · not run.\n\n");
    for (const std::string& line : IncompleteRunLines(r_)) absl::StrAppend(&out, "**⚠ ", Cell(line), "**\n\n");
    if (r_.devices.size() > 1) {
      absl::StrAppend(&out, "**", r_.DifferingTests(), " tests and ", r_.DifferingCapabilities(),
                      " capabilities differ between the devices** (see Differences).\n\n");
    }
    return out;
  }

  std::string Summary() const {
    std::string out = absl::StrCat("## Summary\n\n", Header(""));
    auto row = [&](const char* name, auto value) {
      absl::StrAppend(&out, "| ", name, " |");
      for (const DeviceSection& d : r_.devices) absl::StrAppend(&out, " ", value(d), " |");
      out += "\n";
    };
    row("tests", [](const DeviceSection& d) { return absl::StrCat(d.summary.total); });
    row("test bodies", [](const DeviceSection& d) { return absl::StrCat(d.summary.bodies); });
    row("✅ passed", [](const DeviceSection& d) { return absl::StrCat(d.summary.pass); });
    row("❌ failed", [](const DeviceSection& d) { return absl::StrCat(d.summary.fail); });
    row("➖ skipped", [](const DeviceSection& d) { return absl::StrCat(d.summary.skip); });
    row("🟡 xfail", [](const DeviceSection& d) { return absl::StrCat(d.summary.xfail); });
    row("❗ xpass", [](const DeviceSection& d) { return absl::StrCat(d.summary.xpass); });
    row("⛔ blocked", [](const DeviceSection& d) { return absl::StrCat(d.summary.blocked); });
    row("skipped for", [](const DeviceSection& d) { return Cell(SkipsText(d.summary)); });
    row("time", [](const DeviceSection& d) { return FormatDuration(d.run.results.duration_ms); });
    row("started", [](const DeviceSection& d) { return Cell(d.run.results.started); });
    row("run directory", [](const DeviceSection& d) { return Code(d.run.source); });
    return out + "\n";
  }

  std::string Environment() const {
    std::string out = absl::StrCat("## Environment\n\n", Header(""));
    for (const TextRow& row : EnvironmentRows(r_)) {
      absl::StrAppend(&out, "| ", row.key, " |");
      for (const std::string& c : row.cells) absl::StrAppend(&out, " ", c.empty() ? "" : Cell(OneLine(c)), " |");
      out += "\n";
    }
    return out + "\n";
  }

  std::string Capabilities() const {
    std::string out =
        "## Capabilities\n\nObserved by the probe (✅ supported · ➖ unsupported · ❌ broken: declared but "
        "failed when tried); ⚠️ marks a quirk, **bold** a difference between devices.\n\n";
    if (r_.capabilities.empty()) {
      out += "The probe recorded no observed capabilities.\n\n";
    } else if (r_.devices.size() == 1) {
      out += "| Capability | Observed | Detail |\n|---|---|---|\n";
      for (const CapabilityRow& row : r_.capabilities) {
        const CapabilityObservation& o = *row.cells[0];
        absl::StrAppend(&out, "| ", row.quirk ? "⚠️ " : "", Code(row.capability), " | ", OutcomeGlyph(o.outcome),
                        " ", o.outcome, " | ", Cell(o.detail), o.err ? absl::StrCat(" (errno ", o.err, ")") : "",
                        " |\n");
      }
    } else {
      out += Header("Capability");
      for (const CapabilityRow& row : r_.capabilities) {
        std::string name = Code(row.capability);
        if (row.differs) name = absl::StrCat("**", name, "**");
        absl::StrAppend(&out, "| ", row.quirk ? "⚠️ " : "", name, " |");
        for (const auto& cell : row.cells) {
          absl::StrAppend(&out, " ", cell ? absl::StrCat(OutcomeGlyph(cell->outcome), " ", cell->outcome) : "·", " |");
        }
        out += "\n";
      }
    }
    std::vector<TextRow> measured = MeasuredRows(r_);
    if (!measured.empty()) {
      absl::StrAppend(&out, "\nMeasured by the probe (the largest value the device accepted):\n\n", Header("Limit"));
      for (const TextRow& row : measured) {
        absl::StrAppend(&out, "| ", row.differs && r_.devices.size() > 1 ? "**" : "", Code(row.key),
                        row.differs && r_.devices.size() > 1 ? "**" : "", " |");
        for (const std::string& c : row.cells) absl::StrAppend(&out, " ", c.empty() ? "·" : Cell(c), " |");
        out += "\n";
      }
    }
    std::vector<TextRow> declared = DeclaredRows(r_);
    if (!declared.empty()) {
      absl::StrAppend(&out, "\n<details><summary>Declared by the device (", declared.size(),
                      " attributes)</summary>\n\n", Header("Attribute"));
      for (const TextRow& row : declared) {
        absl::StrAppend(&out, "| ", row.differs ? "**" : "", Code(row.key), row.differs ? "**" : "", " |");
        for (const std::string& c : row.cells) absl::StrAppend(&out, " ", Cell(c), " |");
        out += "\n";
      }
      out += "\n</details>\n";
    }
    return out + "\n";
  }

  std::string Suites() const {
    std::string out = absl::StrCat("## Results by suite\n\n", Header("Suite"));
    for (const std::string& suite : r_.SuiteNames()) {
      absl::StrAppend(&out, "| ", Cell(suite), " |");
      for (const DeviceSection& d : r_.devices) {
        std::string cell = "·";
        if (const SuiteCounts* s = d.FindSuite(suite)) {
          const RunSummary& c = s->summary;
          cell = absl::StrCat(c.pass, " ✅ ", c.fail, " ❌ ", c.skip, " ➖");
          if (c.xfail) absl::StrAppend(&cell, " ", c.xfail, " 🟡");
          if (c.xpass) absl::StrAppend(&cell, " ", c.xpass, " ❗");
          if (c.blocked) absl::StrAppend(&cell, " ", c.blocked, " ⛔");
          absl::StrAppend(&cell, " (", FormatDuration(s->duration_ms), ", set-up ", FormatDuration(s->setup_ms),
                          s->processes > 1 ? absl::StrCat(", ", s->processes, " processes") : "", ")");
        }
        absl::StrAppend(&out, " ", cell, " |");
      }
      out += "\n";
    }
    return out + "\n";
  }

  std::string Failures() {
    std::string out = "## Failures\n\n";
    size_t total = 0;
    for (const DeviceSection& d : r_.devices) {
      for (const TestResult& t : d.run.results.tests) {
        if (!IsFailure(t.status) || ++total > limits_.max_items) continue;
        absl::StrAppend(&out, "- ", StatusGlyph(t.status), " **", Cell(d.label), "** ", Cell(t.suite), " ",
                        TestLink(t.name, CatalogueId(t.name)), "\n\n");
        std::string message = t.status == TestStatus::kXpass
                                  ? absl::StrCat("passed, but listed as failing: ", t.expectation_reason)
                                  : t.message;
        if (!message.empty()) absl::StrAppend(&out, Block(message, limits_.message_lines), "\n");
      }
    }
    if (total == 0) out += "None: no test failed or passed unexpectedly.\n\n";
    return out + More(limits_.max_items, total, "failures");
  }

  std::string Differences() {
    if (r_.devices.size() < 2) return "";
    std::string out = absl::StrCat("## Differences\n\nTests whose outcome differs between the devices (",
                                   r_.DifferingTests(), " of ", r_.matrix.size(), ").\n\n");
    if (r_.DifferingTests() == 0) return out + "None: every test has the same outcome on every device.\n\n";
    out += MatrixTable(/*differing_only=*/true, limits_.max_items);
    return out + More(limits_.max_items, r_.DifferingTests(), "differing tests") + "\n";
  }

  std::string Quirks() {
    std::string out =
        "## Quirks\n\nWhere a device deviates: the probe saw it differ from what it declares, a declared "
        "feature did not work, or a test fails as its driver's expectation file says.\n\n";
    if (r_.quirks.empty()) return out + "None found.\n\n";
    size_t shown = 0;
    for (size_t d = 0; d < r_.devices.size(); ++d) {
      bool header = false;
      for (const ReportQuirk& q : r_.quirks) {
        if (q.device != d || shown >= limits_.max_items) continue;
        ++shown;
        if (!header && r_.devices.size() > 1) absl::StrAppend(&out, "### ", Cell(r_.devices[d].label), "\n\n");
        header = true;
        std::string subject;
        switch (q.kind) {
          case QuirkKind::kProfile:
            subject = absl::StrCat("⚠️ ", Code(q.subject));
            break;
          case QuirkKind::kBroken:
            subject = absl::StrCat("❌ broken ", Code(q.subject));
            break;
          case QuirkKind::kXfail:
            subject = absl::StrCat("🟡 expected failure ", TestLink(q.subject, q.catalogue_id));
            break;
          case QuirkKind::kXpass:
            subject = absl::StrCat("❗ unexpected pass ", TestLink(q.subject, q.catalogue_id));
            break;
        }
        absl::StrAppend(&out, "- ", subject, ": ", Cell(q.text));
        if (!q.reference.empty()) absl::StrAppend(&out, " Reference: ", Cell(q.reference), ".");
        out += "\n";
      }
      if (header) out += "\n";
    }
    return out + More(shown, r_.quirks.size(), "quirks");
  }

  std::string MatrixTable(bool differing_only, size_t max_rows = SIZE_MAX) {
    size_t rows = 0;
    std::string out = Header("Test");
    out.insert(2, "Suite | ");
    out.insert(out.find('\n') + 2, "---|");
    for (const MatrixRow& row : r_.matrix) {
      if ((differing_only && !row.differs) || ++rows > max_rows) continue;
      absl::StrAppend(&out, "| ", Cell(row.suite), " | ", TestLink(row.test, row.catalogue_id), " |");
      for (size_t d = 0; d < r_.devices.size(); ++d) {
        const TestResult* t = r_.Cell(row, d);
        absl::StrAppend(&out, " ", t ? absl::StrCat(StatusGlyph(t->status), " ", TestStatusName(t->status)) : "·",
                        " |");
      }
      out += "\n";
    }
    return out;
  }

  std::string FullMatrix() {
    return absl::StrCat("## All tests\n\n<details><summary>", r_.matrix.size(), " tests</summary>\n\n",
                        MatrixTable(/*differing_only=*/false), "\n</details>\n\n");
  }

  std::string Catalogue() const {
    std::string out =
        "## Catalogue\n\nWhat each test above checks, where its expectation comes from, and what it needs.\n\n";
    for (const CatalogueEntry& e : r_.catalogue) {
      if (!linked_.count(e.id)) continue;
      absl::StrAppend(&out, "- <a id=\"", CatalogueAnchor(e.id), "\"></a>", Code(e.id), " (", Cell(e.suite),
                      "): ", e.purpose.empty() ? "(no catalogue entry)" : Cell(e.purpose));
      if (!e.reference.empty()) absl::StrAppend(&out, ". Reference: ", Cell(e.reference));
      if (!e.needs.empty()) absl::StrAppend(&out, ". Needs: ", Cell(absl::StrJoin(e.needs, ", ")));
      out += ".\n";
    }
    return out + "\n";
  }

  std::string Extras() const {
    std::string out;
    for (const ExtraSection& s : r_.extra_sections) absl::StrAppend(&out, "## ", s.title, "\n\n", s.markdown, "\n\n");
    return out;
  }

  std::set<std::string>& linked() { return linked_; }

 private:
  const Report& r_;
  Limits limits_;
  std::set<std::string> linked_;
};

std::string Render(const Report& report, Limits limits) {
  Writer w(report, limits);
  std::string body = absl::StrCat(w.Title(), w.Summary(), w.Environment(), w.Capabilities(), w.Suites(), w.Failures(),
                                  w.Differences(), w.Quirks(), w.Extras());
  if (limits.full_matrix) {
    body += w.FullMatrix();
  } else {
    body += "## All tests\n\nThe full test matrix did not fit here: see report.html or report.json.\n\n";
  }
  return body + w.Catalogue();
}

}  // namespace

std::string ReportToMarkdown(const Report& report, size_t budget) {
  // Cheapest loss first: the full matrix (it is in report.html), then long messages, then
  // long lists; cutting the text is the last resort.
  const Limits tries[] = {{true, 20, SIZE_MAX}, {true, 5, SIZE_MAX}, {false, 20, SIZE_MAX}, {false, 5, SIZE_MAX},
                          {false, 1, SIZE_MAX}, {false, 1, 100},     {false, 1, 25}};
  for (const Limits& limits : tries) {
    std::string md = Render(report, limits);
    if (md.size() <= budget) return md;
  }
  std::string md = Render(report, {false, 1, 10});
  const std::string cut = "\n\n… (cut to fit; the whole report is in report.html and report.json)\n";
  if (budget > cut.size()) md = md.substr(0, budget - cut.size());
  // Do not leave half of a UTF-8 character.
  while (!md.empty() && (static_cast<unsigned char>(md.back()) & 0xC0) == 0x80) md.pop_back();
  if (!md.empty() && static_cast<unsigned char>(md.back()) >= 0xC0) md.pop_back();
  return md + cut;
}

}  // namespace rdmacheck
