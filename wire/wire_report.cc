#include "wire/wire_report.h"

#include <algorithm>
#include <cmath>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "wire/rules.h"

namespace rdmacheck {

void AddViolation(WireReport& report, int64_t frame, double time, absl::string_view rule, const std::string& flow,
                  std::string message) {
  const WireRule& r = WireRuleById(rule);
  std::vector<WireViolation>& list = r.severity == WireRule::kNote ? report.notes : report.violations;
  list.push_back({frame, time, std::string(rule), flow, std::move(message), std::string(r.reference),
                  std::string(r.severity)});
}

void CountPacket(WireReport& report, size_t index, int64_t frame, double time, const std::string& opcode) {
  report.packets.push_back({frame, time, index, opcode});
  WireFlow& flow = report.flows[index];
  if (flow.packets++ == 0) {
    flow.first_frame = frame;
    flow.first_time = time;
  }
  flow.last_frame = frame;
  flow.last_time = time;
  ++flow.opcodes[opcode];
}

WireSlice SliceReport(const WireReport& report, double from, double to, const std::vector<std::string>& flows) {
  WireSlice slice;
  slice.from = from;
  slice.to = to;
  auto wanted = [&](const std::string& flow) {
    return flows.empty() || std::find(flows.begin(), flows.end(), flow) != flows.end();
  };
  for (const WirePacket& p : report.packets) {
    if (p.time < from || p.time > to || !wanted(report.flows[p.flow].id)) continue;
    if (slice.packets++ == 0) slice.first_frame = p.frame;
    slice.last_frame = p.frame;
    ++slice.opcodes[p.opcode];
  }
  for (const WireViolation& v : report.violations) {
    if (v.time >= from && v.time <= to && wanted(v.flow)) slice.violations.push_back(v);
  }
  for (const WireViolation& n : report.notes) {
    if (n.time >= from && n.time <= to && wanted(n.flow)) slice.notes.push_back(n);
  }
  for (const WireFault& f : report.faults) {
    if (f.time >= from && f.time <= to && wanted(f.flow)) slice.faults.push_back(f);
  }
  return slice;
}

namespace {

nlohmann::json ViolationsJson(const std::vector<WireViolation>& violations) {
  nlohmann::json json = nlohmann::json::array();
  for (const WireViolation& v : violations) {
    json.push_back({{"frame", v.frame},
                    {"time", v.time},
                    {"rule", v.rule},
                    {"flow", v.flow},
                    {"message", v.message},
                    {"reference", v.reference},
                    {"severity", v.severity}});
  }
  return json;
}

nlohmann::json FaultsJson(const std::vector<WireFault>& faults) {
  nlohmann::json json = nlohmann::json::array();
  for (const WireFault& f : faults) {
    json.push_back({{"frame", f.frame}, {"time", f.time}, {"flow", f.flow}, {"kind", f.kind}, {"detail", f.detail}});
  }
  return json;
}

}  // namespace

nlohmann::json WireSliceJson(const WireSlice& slice) {
  return {{"from", slice.from},
          {"to", slice.to},
          {"first_frame", slice.first_frame},
          {"last_frame", slice.last_frame},
          {"packets", slice.packets},
          {"opcodes", slice.opcodes},
          {"violations", ViolationsJson(slice.violations)},
          {"notes", ViolationsJson(slice.notes)},
          {"faults", FaultsJson(slice.faults)}};
}

// {"median": ..., "worst": ...} in ms, or null for none.
nlohmann::json MedianAndWorst(std::vector<double> ms) {
  if (ms.empty()) return nullptr;
  std::sort(ms.begin(), ms.end());
  auto round3 = [](double v) { return std::round(v * 1000) / 1000; };
  return {{"median", round3(ms[ms.size() / 2])}, {"worst", round3(ms.back())}};
}

nlohmann::json RecoveryJson(const WireReport& report) {
  const WireRecovery& r = report.recovery;
  int64_t resent = 0;
  for (const WireFlow& f : report.flows) {
    if (f.transport != "iwarp") resent += f.retransmissions;
  }
  return {{"losses", r.losses},
          {"recovered", static_cast<int64_t>(r.recovery_ms.size())},
          {"recovery_ms", MedianAndWorst(r.recovery_ms)},
          {"naks", {{"sequence_error", r.seq_naks}, {"rnr", r.rnr_naks}, {"other", r.other_naks}}},
          {"retries", r.retries},
          {"resent_packets", resent},
          {"rnr_wait_ms", MedianAndWorst(r.rnr_wait_ms)}};
}

nlohmann::json WireReportJson(const WireReport& report) {
  nlohmann::json flows = nlohmann::json::array();
  for (const WireFlow& f : report.flows) {
    nlohmann::json flow = {{"id", f.id},
                           {"transport", f.transport},
                           {"src", f.src},
                           {"dst", f.dst},
                           {"qp_type", f.qp_type},
                           {"first_frame", f.first_frame},
                           {"last_frame", f.last_frame},
                           {"first_time", f.first_time},
                           {"last_time", f.last_time},
                           {"packets", f.packets},
                           {"opcodes", f.opcodes},
                           {"retransmissions", f.retransmissions}};
    if (f.dest_qp >= 0) flow["dest_qp"] = f.dest_qp;
    if (f.tcp_stream >= 0) flow["tcp_stream"] = f.tcp_stream;
    flows.push_back(std::move(flow));
  }
  return {{"capture", report.capture},
          {"ok", report.ok()},
          {"clean", report.clean()},
          {"cut_short", report.cut_short},
          {"frames", report.frames},
          {"roce_packets", report.roce_packets},
          {"roce_undecoded", report.roce_undecoded},
          {"rocev1_packets", report.rocev1_packets},
          {"ib_packets", report.ib_packets},
          {"iwarp_pdus", report.iwarp_pdus},
          {"truncated", report.truncated},
          {"iwarp_undecoded", report.iwarp_undecoded},
          {"crc_checked", report.crc_checked},
          {"crc_unchecked", report.crc_unchecked},
          {"opcodes", report.opcodes},
          {"flows", flows},
          {"violations", ViolationsJson(report.violations)},
          {"notes", ViolationsJson(report.notes)},
          {"faults", FaultsJson(report.faults)},
          // RoCE's RC recovery (iWARP's is TCP's: the flows' retransmissions and the node's counters).
          {"recovery", report.roce_packets > 0 ? RecoveryJson(report) : nlohmann::json(nullptr)},
          {"rules", WireRulesJson()}};
}

std::string WireReportText(const WireReport& report) {
  std::string out = absl::StrCat(
      report.capture, ": ", report.frames, " frames, checked: ", report.roce_packets, " RoCEv2 packets (",
      report.roce_undecoded, " not decoded by tshark: BTH read from the bytes), ", report.rocev1_packets,
      " RoCEv1 packets, ", report.ib_packets, " InfiniBand packets, ", report.iwarp_pdus, " iWARP PDUs (",
      report.iwarp_undecoded, " undecoded) in ", report.flows.size(), " flows; CRC checked on ", report.crc_checked,
      ", not checkable on ", report.crc_unchecked, " (", report.truncated, " frames cut by the snap length); ",
      report.faults.size(), " NAK/TERMINATE\n");
  if (report.cut_short) {
    absl::StrAppend(&out, "the file ends inside a packet (still being written?): the frames before it were checked\n");
  }
  if (report.clean()) {
    absl::StrAppend(&out, "every rule holds\n");
    return out;
  }
  // Violations and notes in frame order, each marked with its severity unless a violation.
  std::vector<const WireViolation*> lines;
  for (const auto* list : {&report.violations, &report.notes}) {
    for (const WireViolation& v : *list) lines.push_back(&v);
  }
  std::stable_sort(lines.begin(), lines.end(),
                   [](const WireViolation* a, const WireViolation* b) { return a->frame < b->frame; });
  int64_t advisories = 0;
  for (const WireViolation* v : lines) {
    const bool marked = v->severity != WireRule::kViolation;
    absl::StrAppendFormat(&out, "frame %d %s%s: %s [%s] (%s)\n", v->frame, v->rule,
                          marked ? absl::StrCat(" (", v->severity, ")") : "", v->message, v->flow, v->reference);
    if (v->advisory()) ++advisories;
  }
  const int64_t violations = static_cast<int64_t>(report.violations.size()) - advisories;
  const int64_t notes = static_cast<int64_t>(report.notes.size());
  absl::StrAppend(&out, violations, violations == 1 ? " violation, " : " violations, ", advisories,
                  advisories == 1 ? " advisory, " : " advisories, ", notes, notes == 1 ? " note" : " notes",
                  notes > 0 ? ": not clean (loss, duplicates or reordering this capture point cannot place)\n" : "\n");
  return out;
}

}  // namespace rdmacheck
