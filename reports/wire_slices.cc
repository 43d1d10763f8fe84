#include "reports/wire_slices.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "results/wire_mark.h"
#include "wire/ib_opcodes.h"

namespace rdmacheck {
namespace {

// The column of a field in kWireSliceFields.
enum Column { kNumber, kSource, kIcmp, kUdpPort, kUdpPayload, kBthOpcode, kDestQp, kRdmap, kMpaReq, kMpaRep };

// "0x0000001" or "17" -> 17; -1 when it is no number.
int ParseInt(absl::string_view s) {
  int v = 0;
  if (absl::ConsumePrefix(&s, "0x")) {
    uint32_t u = 0;
    return absl::SimpleHexAtoi(s, &u) ? static_cast<int>(u) : -1;
  }
  return absl::SimpleAtoi(s, &v) ? v : -1;
}

// tshark prints bytes as hex, with or without ':' between them; "" when it is not hex.
std::string HexToText(absl::string_view hex) {
  std::string digits = absl::StrReplaceAll(absl::StripAsciiWhitespace(hex), {{":", ""}});
  std::string text;
  for (size_t i = 0; i + 1 < digits.size(); i += 2) {
    uint32_t byte = 0;
    if (!absl::SimpleHexAtoi(absl::string_view(digits).substr(i, 2), &byte)) return "";
    text.push_back(static_cast<char>(byte));
  }
  return text;
}

}  // namespace

std::string RoceOpcodeName(int opcode, int dest_qp) {
  const IbOpcode o = DescribeOpcode(static_cast<uint8_t>(opcode));  // the wire check's table (wire/)
  if (!o.defined()) return absl::StrCat("BTH opcode 0x", absl::Hex(opcode));
  return dest_qp == 1 ? absl::StrCat(o.name, " (QP1: CM MAD)") : o.name;
}

std::string RdmapOpcodeName(int opcode) {
  static const char* const kNames[] = {"RDMA Write", "RDMA Read Request", "RDMA Read Response", "Send",
                                       "Send with Invalidate", "Send with SE", "Send with SE and Invalidate",
                                       "Terminate"};
  if (opcode >= 0 && opcode < 8) return absl::StrCat("RDMAP ", kNames[opcode]);
  return absl::StrCat("RDMAP opcode ", opcode);
}

std::vector<WireFrame> ParseWireFrames(absl::string_view tshark_fields) {
  std::vector<WireFrame> frames;
  for (absl::string_view line : absl::StrSplit(tshark_fields, '\n')) {
    std::vector<absl::string_view> col = absl::StrSplit(line, '\t');
    if (col.size() < kWireSliceFields.size()) continue;
    WireFrame f;
    if (!absl::SimpleAtoi(col[kNumber], &f.number) || !col[kIcmp].empty()) continue;
    f.source = std::string(col[kSource]);
    if (col[kUdpPort] == "9") {
      std::string text = HexToText(col[kUdpPayload]);
      if (absl::StartsWith(text, kWireMarkPrefix)) f.mark = text;
    }
    std::vector<absl::string_view> qps = absl::StrSplit(col[kDestQp], ',', absl::SkipEmpty());
    std::vector<absl::string_view> ops = absl::StrSplit(col[kBthOpcode], ',', absl::SkipEmpty());
    for (size_t i = 0; i < ops.size(); ++i) {
      f.opcodes.push_back(RoceOpcodeName(ParseInt(ops[i]), i < qps.size() ? ParseInt(qps[i]) : -1));
    }
    for (absl::string_view op : absl::StrSplit(col[kRdmap], ',', absl::SkipEmpty())) {
      f.opcodes.push_back(RdmapOpcodeName(ParseInt(op)));
    }
    if (!col[kMpaReq].empty()) f.opcodes.push_back("MPA Request");
    if (!col[kMpaRep].empty()) f.opcodes.push_back("MPA Reply");
    frames.push_back(std::move(f));
  }
  return frames;
}

std::map<std::string, WireSlice> SliceByMarks(const std::vector<WireFrame>& frames) {
  std::map<std::string, WireSlice> slices;
  const std::string start = absl::StrCat(kWireMarkPrefix, "start ");
  const std::string end = absl::StrCat(kWireMarkPrefix, "end ");
  std::string node_b;  // the marks' sender
  WireSlice* open = nullptr;
  // What came since the last mark while no slice was open: the slice of a test whose start
  // mark was lost (an impaired wire drops marks too), claimed by its end mark.
  WireSlice between;
  std::string last_step;
  int repeat = 0;
  auto target = [&]() -> WireSlice& { return open != nullptr ? *open : between; };
  auto flush = [&] {
    if (repeat == 0) return;
    WireSlice& t = target();
    if (static_cast<int>(t.sequence.size()) < kMaxSequence) {
      t.sequence.push_back(repeat > 1 ? absl::StrCat(last_step, " x", repeat) : last_step);
    } else {
      t.truncated = true;
    }
    repeat = 0;
  };
  auto restart_between = [&](int64_t mark) {
    between = WireSlice{};
    between.start_mark = mark;
  };
  for (const WireFrame& f : frames) {
    if (absl::StartsWith(f.mark, start)) {
      const std::string name = f.mark.substr(start.size());
      auto it = slices.find(name);
      if (open != nullptr && it != slices.end() && &it->second == open) continue;  // the same mark twice
      flush();
      node_b = f.source;
      if (open != nullptr) {  // the open test's end mark was lost: this mark ends it
        open->end_mark = f.number;
        open->mark_lost = true;
      }
      open = &(slices[name] = WireSlice{});
      open->start_mark = f.number;
      continue;
    }
    if (absl::StartsWith(f.mark, end)) {
      const std::string name = f.mark.substr(end.size());
      auto it = slices.find(name);
      if (open == nullptr && it != slices.end() && it->second.end_mark != 0) continue;  // the same mark twice
      flush();
      if (open == nullptr) {  // its start mark was lost: it began after the last mark
        WireSlice& claimed = slices[name] = between;
        claimed.mark_lost = true;
        claimed.end_mark = f.number;
      } else if (it != slices.end() && &it->second == open) {
        open->end_mark = f.number;
      } else {  // another test is open: its end mark and this test's start mark were lost
        open->end_mark = f.number;
        open->mark_lost = true;
      }
      open = nullptr;
      restart_between(f.number);
      continue;
    }
    if (f.opcodes.empty()) continue;
    WireSlice& t = target();
    if (t.first_packet == 0) t.first_packet = f.number;
    t.last_packet = f.number;
    ++t.packets;
    const char* direction = f.source == node_b ? "B>A " : "A>B ";
    for (const std::string& op : f.opcodes) {
      const std::string step = absl::StrCat(direction, op);
      ++t.opcodes[step];
      if (repeat > 0 && step == last_step) {
        ++repeat;
      } else {
        flush();
        last_step = step;
        repeat = 1;
      }
    }
  }
  flush();
  return slices;
}

std::vector<nlohmann::json> ViolationsOf(const nlohmann::json& wire_check) {
  // A whole report: its violations only (its "faults", NAKs and TERMINATEs a test may
  // provoke on purpose, and its flows also carry frame numbers).
  if (wire_check.is_object() && wire_check.contains("violations")) return ViolationsOf(wire_check["violations"]);
  std::vector<nlohmann::json> found;
  if (wire_check.is_object()) {
    // An advisory (wire/rules.h) is reported in the capture's check and fails no test.
    if (wire_check.contains("severity") && wire_check["severity"] == "advisory") return found;
    for (const char* key : {"frame", "packet"}) {
      if (wire_check.contains(key) && wire_check[key].is_number_integer()) {
        found.push_back(wire_check);
        return found;
      }
    }
  }
  if (wire_check.is_structured()) {
    for (const nlohmann::json& child : wire_check) {
      for (nlohmann::json& v : ViolationsOf(child)) found.push_back(std::move(v));
    }
  }
  return found;
}

nlohmann::json SliceToJson(const WireSlice& slice, const std::string& link, const nlohmann::json& violations) {
  const int64_t last = slice.end_mark != 0 ? slice.end_mark : slice.last_packet;
  nlohmann::json j = {{"link", link},
                      {"start_mark", slice.start_mark},
                      {"end_mark", slice.end_mark},
                      {"first_packet", slice.first_packet},
                      {"last_packet", slice.last_packet},
                      {"packets", slice.packets},
                      {"opcodes", slice.opcodes},
                      {"sequence", slice.sequence},
                      {"filter", absl::StrCat("frame.number >= ", slice.start_mark, " && frame.number <= ", last)}};
  if (slice.truncated) j["sequence_truncated"] = true;
  if (slice.mark_lost) j["mark_lost"] = true;
  nlohmann::json inside = nlohmann::json::array();
  for (const nlohmann::json& v : ViolationsOf(violations)) {
    const int64_t frame = v.contains("frame") ? v["frame"].get<int64_t>() : v["packet"].get<int64_t>();
    if (frame >= slice.start_mark && (slice.end_mark == 0 || frame <= slice.end_mark)) inside.push_back(v);
  }
  if (!inside.empty()) j["violations"] = inside;
  return j;
}

void ApplyLabFailure(const nlohmann::json& failure, const std::string& link,
                     const std::map<std::string, WireSlice>& slices, RunResults& run) {
  std::vector<std::string> not_run;
  if (failure.value("link", "") == link) {
    const int64_t before = failure.value("capture_a_frames_before", int64_t{0});
    std::vector<TestResult> kept;
    for (TestResult& t : run.tests) {
      auto it = slices.find(t.name);
      const bool ended_before = it != slices.end() && it->second.end_mark != 0 && it->second.end_mark <= before;
      if (ended_before) {
        kept.push_back(std::move(t));
      } else {
        not_run.push_back(t.name);
      }
    }
    run.tests = std::move(kept);
  }
  run.environment["lab_failure"] = {{"reason", failure.value("reason", "the lab failed")},
                                    {"link", failure.value("link", "")},
                                    {"not_run", not_run}};
  if (failure.value("link", "") == link) {
    run.environment["lab_failure"]["stalled_after_frame"] = failure.value("capture_a_frames_before", int64_t{0});
  }
  run.complete = false;
}

bool SetAsideByLabFailure(const nlohmann::json& lab_failure, const std::map<std::string, WireSlice>& slices,
                          int64_t frame) {
  if (!lab_failure.is_object() || !lab_failure.contains("stalled_after_frame")) return false;
  if (frame > lab_failure["stalled_after_frame"].get<int64_t>()) return true;
  for (const nlohmann::json& name : lab_failure.value("not_run", nlohmann::json::array())) {
    auto it = slices.find(name.get<std::string>());
    if (it == slices.end()) continue;
    const WireSlice& s = it->second;
    if (frame >= s.start_mark && (s.end_mark == 0 || frame <= s.end_mark)) return true;
  }
  return false;
}


}  // namespace rdmacheck
