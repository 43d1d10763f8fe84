// Per-test slices of a wire capture: which packets each test put on its wire in the
// two-node wire lab (scripts/wire-lab.sh), so a failing test opens straight to its packets
// in Wireshark and a passing one shows what its operation looks like on the wire.
//
// A test's slice is what lies between its two wire marks (runner/wire_marks.h) in the
// capture: exact, unlike the test's window on the guest's clock. The frames come from
// tshark's field output (the columns of kWireSliceFields, tab-separated).
#ifndef RDMACHECK_REPORTS_WIRE_SLICES_H_
#define RDMACHECK_REPORTS_WIRE_SLICES_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"
#include "results/results.h"

namespace rdmacheck {

// tshark -T fields -E separator=/t -E occurrence=a -E aggregator=, with these -e columns.
inline const std::vector<std::string> kWireSliceFields = {
    "frame.number",          "ip.src",          "icmp.type",          "udp.dstport",        "udp.payload",
    "infiniband.bth.opcode", "infiniband.bth.destqp", "iwarp_rdma.opcode", "iwarp_mpa.key.req", "iwarp_mpa.key.rep"};

struct WireFrame {
  int64_t number = 0;
  std::string source;                // IPv4 source address
  std::vector<std::string> opcodes;  // RDMA operations in it: "RC SEND Only", "RDMAP Send", "MPA Request"
  std::string mark;                  // a wire mark's payload, or ""
};

// Frames from tshark's field output; lines that are not frames are ignored. ICMP frames
// (which quote the datagram they answer) are dropped.
std::vector<WireFrame> ParseWireFrames(absl::string_view tshark_fields);

// The names of RDMA operations on the wire.
std::string RoceOpcodeName(int opcode, int dest_qp);  // BTH opcode (IBTA vol 1 table 38)
std::string RdmapOpcodeName(int opcode);              // RDMAP opcode (RFC 5040 4.3)

struct WireSlice {
  int64_t start_mark = 0, end_mark = 0;      // frame numbers of its marks (end 0: none, the capture's end)
  int64_t first_packet = 0, last_packet = 0;  // its first and last RDMA frame (0: none)
  int packets = 0;                            // RDMA frames between the marks
  std::map<std::string, int> opcodes;         // "B>A RC SEND Only" -> count
  std::vector<std::string> sequence;          // run-length: "B>A RC SEND Only x3"; capped
  bool truncated = false;                     // sequence longer than kMaxSequence
  // One of its marks was lost (netem drops them like any datagram): the neighbouring
  // test's mark bounds the slice instead, and a start mark lost makes it begin where the
  // previous test ended.
  bool mark_lost = false;
};
inline constexpr int kMaxSequence = 40;

// Slices by test name. The marks' sender is node B ("B>A" in opcode names, "A>B" the
// other way). A test that ran twice (a retry) keeps its last slice. A mark seen twice (a
// duplicating wire) counts once.
std::map<std::string, WireSlice> SliceByMarks(const std::vector<WireFrame>& frames);

// A slice as results.json's per-test "wire": link, marks, packets, opcodes, sequence, the
// Wireshark display filter that shows it, and the violations (objects of a wire check's
// JSON with a frame number inside the slice).
nlohmann::json SliceToJson(const WireSlice& slice, const std::string& link, const nlohmann::json& violations);

// The violations of a wire check's JSON output (its "violations"; faults are not violations),
// or every object with an integer "frame" (or "packet") under other JSON; an advisory
// ("severity": "advisory") is none of them: it fails no test.
std::vector<nlohmann::json> ViolationsOf(const nlohmann::json& wire_check);

// A stalled lab link (`rdmacheck wire watch`'s JSON: reason, link, capture_a_frames_before)
// ends what a run can say about its device: on that link only the tests whose slice ended
// in node A's capture before the stall keep their result; the others are not the device's
// and are listed as not run in environment "lab_failure" (also set, with the reason, for a
// run on another link that the lab stopped); the run is marked incomplete.
void ApplyLabFailure(const nlohmann::json& failure, const std::string& link,
                     const std::map<std::string, WireSlice>& slices, RunResults& run);

// Whether a violation at `frame` of the stalled link's capture is the lab's failure, not the
// device's (`lab_failure`: the environment entry ApplyLabFailure wrote): it came after the
// stall (the device answering a wire that stopped, e.g. by retrying without end) or inside
// the slice of a test the failure took from the device. Never on another link's capture.
bool SetAsideByLabFailure(const nlohmann::json& lab_failure, const std::map<std::string, WireSlice>& slices,
                          int64_t frame);

}  // namespace rdmacheck

#endif  // RDMACHECK_REPORTS_WIRE_SLICES_H_
