#include "bench/bench_report.h"

#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "reports/report_html.h"

namespace rdmacheck {
namespace {

std::string Headline(const BenchPoint& p) {
  if (!p.ok()) return "n/a";
  return p.metric == "latency" ? absl::StrFormat("%.2f us", p.median_us) : absl::StrFormat("%.1f MiB/s", p.mib_per_s);
}

std::string Size(uint32_t size) {
  if (size >= 1024 * 1024 && size % (1024 * 1024) == 0) return absl::StrCat(size / (1024 * 1024), " MiB");
  if (size >= 1024 && size % 1024 == 0) return absl::StrCat(size / 1024, " KiB");
  return absl::StrCat(size, " B");
}

const BenchPoint* Find(const std::vector<BenchPoint>& points, const BenchPoint& like) {
  for (const BenchPoint& p : points) {
    if (p.SameKind(like)) return &p;
  }
  return nullptr;
}

// One row per rdmacheck point: the cells every rendering shows.
struct Row {
  std::string what, size, ours, detail, theirs, ratio, error;
};

std::vector<Row> Rows(const BenchRun& run) {
  std::vector<Row> rows;
  for (const BenchPoint& p : run.points) {
    Row r{absl::StrCat(p.op, " ", p.metric), Size(p.size), Headline(p), "", "", "", p.error};
    if (p.ok() && p.metric == "latency") r.detail = absl::StrFormat("min %.2f, p99 %.2f", p.min_us, p.p99_us);
    if (const BenchPoint* theirs = Find(run.perftest, p)) {
      r.theirs = theirs->ok() ? absl::StrCat(Headline(*theirs), " (", theirs->tool, ")") : "failed: " + theirs->error;
      if (p.ok() && theirs->ok() && theirs->Headline() > 0) {
        r.ratio = absl::StrFormat("%.2f", p.Headline() / theirs->Headline());
      }
    }
    rows.push_back(r);
  }
  return rows;
}

std::string RunTitle(const BenchRun& run) {
  const std::string where = run.peer.empty() ? "loopback" : absl::StrCat("to the peer ", run.peer);
  return absl::StrCat(run.device, " (", run.transport, ", ", where, ", connected ", run.method, ", ", run.poll == "event" ? "event-driven completions, " : "", run.started, ")");
}

}  // namespace

std::string BenchTable(const BenchRun& run) {
  std::string out = absl::StrCat(RunTitle(run), "\n");
  absl::StrAppend(&out, absl::StrFormat("  %-16s %8s %14s  %-22s %-28s %s\n", "measure", "size", "rdmacheck", "",
                                        "perftest", "ratio"));
  for (const Row& r : Rows(run)) {
    absl::StrAppend(&out, absl::StrFormat("  %-16s %8s %14s  %-22s %-28s %s%s\n", r.what, r.size, r.ours, r.detail,
                                          r.theirs, r.ratio, r.error.empty() ? "" : "  error: " + r.error));
  }
  return out;
}

std::optional<ExtraSection> BenchSection(const std::vector<BenchRun>& runs) {
  if (runs.empty()) return std::nullopt;
  ExtraSection s;
  s.id = "bench";
  s.title = "Benchmark";
  s.data = {{"runs", nlohmann::json::array()}};
  const std::string intro =
      "Latency (median; send and write: half a ping-pong, read: a round trip) and bandwidth, measured by "
      "`rdmacheck bench` over a loopback pair; perftest beside it where it was run. Numbers, not tests.";
  s.markdown = intro + "\n";
  s.html = absl::StrCat("<p>", HtmlEscape(intro), "</p>\n");
  for (const BenchRun& run : runs) {
    s.data["runs"].push_back(BenchRunToJson(run));
    absl::StrAppend(&s.markdown, "\n### ", run.device, "\n\n", RunTitle(run),
                    "\n\n| measure | size | rdmacheck | | perftest | ratio |\n|---|---|---|---|---|---|\n");
    absl::StrAppend(&s.html, "<h3>", HtmlEscape(RunTitle(run)),
                    "</h3>\n<table class=\"grid\"><thead><tr><th>measure</th><th>size</th><th>rdmacheck</th><th></th>"
                    "<th>perftest</th><th>ratio</th></tr></thead><tbody>\n");
    for (const Row& r : Rows(run)) {
      const std::string ours = r.error.empty() ? r.ours : "failed: " + r.error;
      absl::StrAppend(&s.markdown, "| ", r.what, " | ", r.size, " | ", ours, " | ", r.detail, " | ", r.theirs, " | ",
                      r.ratio, " |\n");
      absl::StrAppend(&s.html, "<tr><td>", HtmlEscape(r.what), "</td><td>", HtmlEscape(r.size), "</td><td>",
                      HtmlEscape(ours), "</td><td>", HtmlEscape(r.detail), "</td><td>", HtmlEscape(r.theirs),
                      "</td><td>", HtmlEscape(r.ratio), "</td></tr>\n");
    }
    s.html += "</tbody></table>\n";
  }
  return s;
}


std::vector<BenchChange> DiffBench(const std::vector<BenchRun>& before, const std::vector<BenchRun>& after,
                                   double threshold) {
  std::vector<BenchChange> changes;
  for (const BenchRun& a : after) {
    for (const BenchRun& b : before) {
      if (a.device != b.device && !(before.size() == 1 && after.size() == 1)) continue;
      for (const BenchPoint& now : a.points) {
        const BenchPoint* was = Find(b.points, now);
        if (was == nullptr || !was->ok() || was->Headline() <= 0) continue;
        BenchChange c{a.device, *was, now, 0, false};
        if (!now.ok()) {
          c.regression = true;  // measured before, fails now
        } else {
          c.change = now.Headline() / was->Headline() - 1;
          c.regression = now.metric == "latency" ? c.change > threshold : c.change < -threshold;
        }
        changes.push_back(c);
      }
    }
  }
  std::stable_sort(changes.begin(), changes.end(),
                   [](const BenchChange& x, const BenchChange& y) { return x.regression > y.regression; });
  return changes;
}

std::string BenchChangesText(const std::vector<BenchChange>& changes, double threshold) {
  if (changes.empty()) return "";
  int regressions = 0;
  for (const BenchChange& c : changes) regressions += c.regression;
  std::string out = absl::StrFormat("benchmark: %d of %d points regressed by more than %.0f%%\n", regressions,
                                    changes.size(), threshold * 100);
  for (const BenchChange& c : changes) {
    absl::StrAppend(&out, absl::StrFormat("  %s %s %s %s %s: %s -> %s (%+.1f%%)\n", c.regression ? "REGRESSED" : "ok",
                                          c.device, c.after.op, c.after.metric, Size(c.after.size),
                                          Headline(c.before), c.after.ok() ? Headline(c.after) : "failed: " + c.after.error,
                                          c.change * 100));
  }
  return out;
}

nlohmann::json BenchChangesJson(const std::vector<BenchChange>& changes, double threshold) {
  nlohmann::json out = {{"threshold", threshold}, {"changes", nlohmann::json::array()}};
  for (const BenchChange& c : changes) {
    out["changes"].push_back({{"device", c.device},
                              {"op", c.after.op},
                              {"metric", c.after.metric},
                              {"size", c.after.size},
                              {"before", c.before.Headline()},
                              {"after", c.after.ok() ? nlohmann::json(c.after.Headline()) : nlohmann::json(nullptr)},
                              {"change", c.change},
                              {"regression", c.regression}});
  }
  return out;
}

}  // namespace rdmacheck
