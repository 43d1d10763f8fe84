#include "reports/kernel_section.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "reports/report_html.h"

namespace rdmacheck {
namespace {

std::string MdCell(const std::string& text) { return absl::StrReplaceAll(text, {{"|", "\\|"}, {"\n", " "}}); }

}  // namespace

KernelFindings FindingsOf(const RunResults& results) {
  KernelFindings f;
  f.kernel_log = results.environment.value("kernel_log", "not recorded (a run before kernel-log support)");
  f.traffic_counters = results.environment.value("traffic_counters", "not recorded");
  std::vector<double> reads;
  for (const TestResult& t : results.tests) {
    if (!t.kernel_log.empty()) f.kernel_failures.push_back(&t);
    if (!t.traffic.is_object()) continue;
    ++f.counted;
    if (t.traffic.contains("read_ms")) reads.push_back(t.traffic.value("read_ms", 0.0));
    if (t.traffic.value("completions", 0) > 0) ++f.with_traffic;
    if (!t.traffic.value("counters", nlohmann::json::object()).empty()) ++f.counters_moved;
    if (t.traffic.contains("flag")) f.flagged.push_back(&t);
  }
  if (!reads.empty()) {
    std::sort(reads.begin(), reads.end());
    f.read_ms_median = reads[reads.size() / 2];
    f.read_ms_max = reads.back();
  }
  return f;
}

ExtraSection KernelSection(const Report& report) {
  ExtraSection s;
  s.id = "kernel";
  s.title = "Kernel log and device counters";
  s.data = {{"devices", nlohmann::json::array()}};
  const std::string intro =
      "A kernel WARNING, BUG, Oops, lockdep report, hung task or RCU stall logged while a test ran fails that test "
      "(lines in results.json \"kernel_log\"; outside every test: KernelLog.OutsideTests). The device's counters "
      "(rdma statistic, sysfs counters) are read before and after each test: a test whose work completed on the "
      "wire but moved no counter is flagged (a finding, not a failure).";
  s.markdown = intro + "\n";
  s.html = absl::StrCat("<p>", HtmlEscape(intro), "</p>\n");
  for (const DeviceSection& d : report.devices) {
    const KernelFindings f = FindingsOf(d.run.results);
    const std::string overhead =
        f.counted == 0 ? "-" : absl::StrFormat("median %.2f ms, max %.2f ms per test", f.read_ms_median, f.read_ms_max);
    const std::vector<std::pair<std::string, std::string>> rows = {
        {"kernel log", f.kernel_log},
        {"tests failed by the kernel log", absl::StrCat(f.kernel_failures.size())},
        {"traffic counters", f.traffic_counters},
        {"tests with counter readings", absl::StrCat(f.counted)},
        {"tests with traffic (work completed on the wire)", absl::StrCat(f.with_traffic)},
        {"tests during which a counter moved", absl::StrCat(f.counters_moved)},
        {"flagged: traffic that moved no counter", absl::StrCat(f.flagged.size())},
        {"counter reading overhead", overhead},
    };
    nlohmann::json data = {{"device", d.label}};
    absl::StrAppend(&s.markdown, "\n### ", d.label, "\n\n| | |\n|---|---|\n");
    absl::StrAppend(&s.html, "<h3>", HtmlEscape(d.label), "</h3>\n<table class=\"grid\"><tbody>\n");
    for (const auto& [key, value] : rows) {
      data[key] = value;
      absl::StrAppend(&s.markdown, "| ", key, " | ", MdCell(value), " |\n");
      absl::StrAppend(&s.html, "<tr><th>", HtmlEscape(key), "</th><td>", HtmlEscape(value), "</td></tr>\n");
    }
    s.html += "</tbody></table>\n";
    for (const TestResult* t : f.kernel_failures) {
      data["kernel_failures"].push_back({{"test", t->name}, {"lines", t->kernel_log}});
      absl::StrAppend(&s.markdown, "\n`", t->name, "` failed by the kernel log:\n\n```\n",
                      absl::StrJoin(t->kernel_log, "\n"), "\n```\n");
      absl::StrAppend(&s.html, "<p><code>", HtmlEscape(t->name), "</code> failed by the kernel log:</p>\n<pre>",
                      HtmlEscape(absl::StrJoin(t->kernel_log, "\n")), "</pre>\n");
    }
    for (const TestResult* t : f.flagged) {
      const std::string flag = t->traffic.value("flag", "");
      data["flagged"].push_back({{"test", t->name}, {"flag", flag}});
      absl::StrAppend(&s.markdown, "\n- flagged `", t->name, "`: ", flag, "\n");
      absl::StrAppend(&s.html, "<p>flagged <code>", HtmlEscape(t->name), "</code>: ", HtmlEscape(flag), "</p>\n");
    }
    s.data["devices"].push_back(std::move(data));
  }
  return s;
}

}  // namespace rdmacheck
