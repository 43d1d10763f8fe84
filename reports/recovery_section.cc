#include "reports/recovery_section.h"

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "reports/report_html.h"

namespace rdmacheck {
namespace {

// The driver counters that count recovery (rxe's names, IBTA's events): what each says.
constexpr std::pair<const char*, const char*> kRecoveryCounters[] = {
    {"out_of_seq_request", "requests out of sequence (responder)"},
    {"rcvd_seq_err", "sequence-error NAKs received (requester)"},
    {"duplicate_request", "duplicate requests answered (responder)"},
    {"completer_retry_err", "retransmissions after the ACK timer (requester)"},
    {"retry_exceeded_err", "retries exceeded (WR failed)"},
    {"rcvd_rnr_err", "RNR NAKs received"},
    {"send_rnr_err", "RNR NAKs sent"},
    {"retry_rnr_exceeded_err", "RNR retries exceeded (WR failed)"},
};

std::string MdCell(const std::string& text) { return absl::StrReplaceAll(text, {{"|", "\\|"}, {"\n", " "}}); }

int64_t Sum(const nlohmann::json& nodes, const std::string& netdev, const char* key) {
  int64_t total = 0;
  for (const nlohmann::json& node : nodes) {
    const nlohmann::json& netem = node.value("netem", nlohmann::json::object());
    if (netdev.empty()) {
      for (const auto& [name, stats] : netem.items()) total += stats.value(key, int64_t{0});
    } else if (netem.contains(netdev)) {
      total += netem[netdev].value(key, int64_t{0});
    }
  }
  return total;
}

int64_t SumTcp(const nlohmann::json& nodes, const char* key) {
  int64_t total = 0;
  for (const nlohmann::json& node : nodes) total += node.value("tcp", nlohmann::json::object()).value(key, int64_t{0});
  return total;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> RecoveryRows(const RunResults& results) {
  const nlohmann::json& env = results.environment;
  const nlohmann::json impairment = env.value("impairment", nlohmann::json::object());
  const nlohmann::json nodes = impairment.value("nodes", nlohmann::json::array());
  // The device's link is its netdev on node B; node A names its end of the same wire alike.
  const std::string netdev = env.value("netdev", "");
  std::vector<std::pair<std::string, std::string>> rows = {
      {"profile", absl::StrCat(impairment.value("profile", "?"), " (netem ", impairment.value("netem", "?"),
                               ", egress of ", impairment.value("egress_of", "?"), ")")},
      {absl::StrCat("netem on ", netdev.empty() ? "every netdev" : netdev, ", both nodes: sent / dropped"),
       absl::StrCat(Sum(nodes, netdev, "sent"), " / ", Sum(nodes, netdev, "dropped"))},
      {"TCP, both nodes: retransmitted segments / DSACKs received / checksum errors",
       absl::StrCat(SumTcp(nodes, "TcpRetransSegs"), " / ", SumTcp(nodes, "TcpExtTCPDSACKRecv"), " / ",
                    SumTcp(nodes, "TcpInCsumErrors"))},
  };
  const nlohmann::json totals = env.value("traffic_run_totals", nlohmann::json::object());
  if (totals.is_object() && !totals.empty()) {
    rows.push_back({"driver: packets sent / received (whole run)",
                    absl::StrCat(totals.value("sent_pkts", int64_t{0}), " / ", totals.value("rcvd_pkts", int64_t{0}))});
    for (const auto& [counter, what] : kRecoveryCounters) {
      rows.push_back({absl::StrCat("driver: ", what, " (", counter, ")"), absl::StrCat(totals.value(counter, int64_t{0}))});
    }
  } else {
    rows.push_back({"driver counters", env.value("traffic_counters", "none read")});
  }
  const nlohmann::json wire = env.value("wire", nlohmann::json::object());
  if (wire.contains("recovery") && wire["recovery"].is_object()) {
    const nlohmann::json& r = wire["recovery"];
    auto n = [&r](const char* key) { return r.value(key, int64_t{0}); };
    auto ms = [&r](const char* key) {
      const nlohmann::json& m = r.contains(key) ? r[key] : nlohmann::json(nullptr);
      if (!m.is_object()) return std::string("none");
      return absl::StrCat(m.value("median", 0.0), " ms / ", m.value("worst", 0.0), " ms");
    };
    const nlohmann::json naks = r.value("naks", nlohmann::json::object());
    rows.push_back({"wire: PSN gaps recovered / seen", absl::StrCat(n("recovered"), " / ", n("losses"))});
    rows.push_back({"wire: recovery time, median / worst", ms("recovery_ms")});
    rows.push_back({"wire: NAKs sequence error / RNR / other",
                    absl::StrCat(naks.value("sequence_error", 0), " / ", naks.value("rnr", 0), " / ",
                                 naks.value("other", 0))});
    rows.push_back({"wire: requester went back / packets resent", absl::StrCat(n("retries"), " / ", n("resent_packets"))});
    rows.push_back({"wire: RNR wait, median / worst", ms("rnr_wait_ms")});
  } else {
    rows.push_back({"wire check", wire.value("checked", false) ? "judged, no recovery figures"
                                                               : "not judged for recovery"});
  }
  int passed = 0, failed = 0, other = 0;
  for (const TestResult& t : results.tests) {
    if (t.status == TestStatus::kPass || t.status == TestStatus::kXfail) ++passed;
    else if (IsFailure(t.status)) ++failed;
    else ++other;
  }
  rows.push_back({"tests: passed or known deviation / failed / skipped or blocked",
                  absl::StrCat(passed, " / ", failed, " / ", other)});
  return rows;
}

std::optional<ExtraSection> RecoverySection(const Report& report) {
  std::vector<const DeviceSection*> impaired;
  for (const DeviceSection& d : report.devices) {
    if (d.run.results.environment.contains("impairment")) impaired.push_back(&d);
  }
  if (impaired.empty()) return std::nullopt;
  ExtraSection s;
  s.id = "recovery";
  s.title = "Recovery under impairment";
  s.data = {{"devices", nlohmann::json::array()}};
  const std::string intro =
      "The wire was impaired on purpose (impair/README.md): the reliable service must recover from every profile "
      "(IBTA Vol 1 9.7: NAKs, retransmission, duplicate detection; RFC 5040 over TCP), and an impairment that did not "
      "act proves nothing. What netem did, what TCP and the driver counted, and the verdicts:";
  s.markdown = intro + "\n";
  s.html = absl::StrCat("<p>", HtmlEscape(intro), "</p>\n");
  for (const DeviceSection* d : impaired) {
    nlohmann::json data = {{"device", d->label}};
    absl::StrAppend(&s.markdown, "\n### ", d->label, "\n\n| | |\n|---|---|\n");
    absl::StrAppend(&s.html, "<h3>", HtmlEscape(d->label), "</h3>\n<table class=\"grid\"><tbody>\n");
    for (const auto& [key, value] : RecoveryRows(d->run.results)) {
      data[key] = value;
      absl::StrAppend(&s.markdown, "| ", MdCell(key), " | ", MdCell(value), " |\n");
      absl::StrAppend(&s.html, "<tr><th>", HtmlEscape(key), "</th><td>", HtmlEscape(value), "</td></tr>\n");
    }
    s.html += "</tbody></table>\n";
    s.data["devices"].push_back(std::move(data));
  }
  return s;
}

}  // namespace rdmacheck
