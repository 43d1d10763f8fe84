// The wire checks (wire/): each rule flags the one synthetic capture made to break it, and
// only that rule; the good captures pass every rule. The captures are written by
// unit/testdata/wire/make_captures.py (committed beside it; a test checks they are current).
// tshark reads them, as it reads a lab capture (scripts/install-deps.sh installs it).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "cli/commands.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"
#include "wire/check_capture.h"
#include "wire/crc.h"
#include "wire/rules.h"

namespace rdmacheck {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

const fs::path kCaptures = fs::path(RDMACHECK_SOURCE_DIR) / "unit/testdata/wire";

struct Doctored {
  std::string capture;  // file name in unit/testdata/wire
  std::string rule;     // the one rule it breaks ("" for a good capture)
  bool wire_reorders = false;  // checked as taken after a wire that may reorder (--wire_reorders)
};

std::string Name(const ::testing::TestParamInfo<Doctored>& info) {
  std::string name = fs::path(info.param.capture).stem().string() + (info.param.wire_reorders ? "_wire_reorders" : "");
  for (char& c : name) {
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

const std::vector<Doctored>& Captures() {
  static const auto* captures = new std::vector<Doctored>{
      {"roce_good.pcap", ""},
      {"roce_good_snaplen96.pcap", ""},
      {"iwarp_good.pcap", ""},
      {"iwarp_good_snaplen80.pcap", ""},
      {"roce_bad_udp_port.pcap", "roce.udp_port"},
      {"roce_bad_icrc.pcap", "roce.icrc"},
      {"roce_bad_unplaced_loss.pcap", "roce.unplaced_loss"},  // a note: the gap an ACK covers
      {"roce_bad_uc_duplicate.pcap", "roce.duplicate_packet"},  // a note: a UC packet seen twice
      // A UC SEND overtaken by the next: a note where the wire may reorder, else the PSN going back.
      {"roce_bad_uc_reorder.pcap", "roce.unplaced_reorder", /*wire_reorders=*/true},
      {"roce_bad_uc_reorder.pcap", "roce.psn"},
      {"roce_bad_opcode_sequence.pcap", "roce.opcode_sequence"},
      {"roce_bad_payload_size.pcap", "roce.payload_size"},
      {"roce_bad_ackreq.pcap", "roce.ackreq"},
      {"roce_bad_aeth_syndrome.pcap", "roce.aeth_syndrome"},
      {"roce_bad_ack_msn.pcap", "roce.ack_msn"},
      {"roce_bad_read_response.pcap", "roce.read_response"},
      {"roce_bad_destqp.pcap", "roce.destqp"},
      {"roce_bad_pkey.pcap", "roce.pkey"},
      {"roce_bad_rnr_timer.pcap", "roce.rnr_timer"},
      {"roce_bad_rnr_nak.pcap", "roce.rnr_nak"},  // an RNR NAK for a READ
      {"iwarp_bad_mpa_startup.pcap", "iwarp.mpa_startup"},
      {"iwarp_bad_mpa_crc.pcap", "iwarp.mpa_crc"},
      {"iwarp_bad_ddp_rdmap_opcode.pcap", "iwarp.ddp_rdmap_opcode"},
      {"iwarp_bad_untagged_msn_mo.pcap", "iwarp.untagged_msn_mo"},
      {"iwarp_bad_tagged_write.pcap", "iwarp.tagged_write"},
      {"iwarp_bad_read_response.pcap", "iwarp.read_response"},
      {"iwarp_bad_terminate.pcap", "iwarp.terminate"},  // siw 6.1's, nibbles swapped
      {"iwarp_bad_terminate_reserved.pcap", "iwarp.terminate"},
      // Issue 26: the same rules on other link types and in a tunnel, PSNs around a READ,
      // one violation per MSN fault, the initiator's first FPDU.
      {"rocev1_good.pcap", ""},
      {"roce_good_vxlan.pcap", ""},
      {"roce_good_geneve.pcap", ""},
      {"roce_good_sequence.pcap", ""},
      {"roce_bad_psn_read_reuse.pcap", "roce.psn"},
      {"roce_bad_psn_retransmit.pcap", "roce.psn"},
      {"roce_bad_ack_msn_missed.pcap", "roce.ack_msn"},
      {"roce_bad_read_replay.pcap", "roce.read_response"},  // one for the replay, not one per packet
      {"iwarp_bad_mpa_first_fpdu.pcap", "iwarp.mpa_startup"},
      // Connections begin with their CM exchange: the same QP numbers again are a new one.
      {"roce_good_cm.pcap", ""},
      {"roce_bad_cm_start_psn.pcap", "roce.psn"},
      {"roce_bad_ack_before_request.pcap", "roce.ack_msn"},
      // A TERMINATE as the hardware drivers send an MPA error: layer LLP, error type 3.
      {"iwarp_good_terminate_llp.pcap", ""},
      // Issue 34 item 3: recovery on a lossy wire (go-back-N, the timer, a duplicate atomic
      // answered) is clean; each recovery rule broken alone (unit/wire_recovery_test.cc
      // has the finer cases); TCP's retransmissions under iWARP are read once.
      {"roce_good_recovery.pcap", ""},
      {"roce_bad_seq_nak_psn.pcap", "roce.seq_nak"},
      {"roce_bad_seq_nak_twice.pcap", "roce.seq_nak"},
      {"roce_bad_retransmission_payload.pcap", "roce.retransmission"},
      {"roce_bad_retransmission_opcode.pcap", "roce.retransmission"},
      {"roce_bad_retransmission_length.pcap", "roce.retransmission"},
      {"roce_bad_retry_count.pcap", "roce.retry_count"},
      {"roce_bad_duplicate_atomic.pcap", "roce.duplicate_atomic"},
      {"iwarp_good_tcp_retransmit.pcap", ""},
      {"iwarp_good_out_of_order.pcap", ""},
  };
  return *captures;
}

class WireCaptureTest : public ::testing::TestWithParam<Doctored> {};

// Violations and notes alike: a good capture is clean, a doctored one says its one rule.
TEST_P(WireCaptureTest, FlagsExactlyTheRuleItBreaks) {
  const Doctored& c = GetParam();
  WireCheckOptions options;
  options.wire_may_reorder = c.wire_reorders;
  ASSERT_OK_AND_ASSIGN(WireReport report, CheckCapture((kCaptures / c.capture).string(), options));
  std::vector<WireViolation> flagged = report.violations;
  flagged.insert(flagged.end(), report.notes.begin(), report.notes.end());
  std::vector<std::string> rules;
  for (const WireViolation& v : flagged) rules.push_back(v.rule);
  if (c.rule.empty()) {
    EXPECT_THAT(rules, IsEmpty()) << WireReportText(report);
    EXPECT_TRUE(report.clean());
    EXPECT_GT(report.rdma_packets(), 10) << "the dissectors decoded too little of " << c.capture;
  } else {
    EXPECT_THAT(rules, ElementsAre(c.rule)) << WireReportText(report);
    ASSERT_FALSE(flagged.empty());
    EXPECT_GT(flagged[0].frame, 0);
    EXPECT_EQ(flagged[0].reference, WireRuleById(c.rule).reference);
  }
}

INSTANTIATE_TEST_SUITE_P(Captures, WireCaptureTest, ::testing::ValuesIn(Captures()), Name);

TEST(WireRulesTest, EveryRuleHasADoctoredCapture) {
  std::set<std::string> tested, all;
  for (const Doctored& c : Captures()) {
    if (!c.rule.empty()) tested.insert(c.rule);
  }
  for (const WireRule& r : WireRules()) {
    all.insert(std::string(r.id));
    EXPECT_FALSE(r.reference.empty()) << r.id;
  }
  EXPECT_EQ(tested, all);
}

TEST(WireReportTest, GoodRoceCaptureIsSummarisedPerFlowAndOpcode) {
  absl::StatusOr<WireReport> report = CheckCapture((kCaptures / "roce_good.pcap").string());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->frames, 37);
  EXPECT_EQ(report->roce_packets, 36);  // not the RoCEv2 header quoted by the ICMP error in frame 37
  EXPECT_EQ(report->crc_checked, 36);   // IPv4 and IPv6 (frame 30)
  EXPECT_EQ(report->crc_unchecked, 0);
  EXPECT_EQ(report->opcodes.at("RC RDMA READ Response Middle"), 2);
  EXPECT_EQ(report->opcodes.at("UD SEND Only"), 2);
  const WireFlow* requests = nullptr;
  for (const WireFlow& f : report->flows) {
    if (f.id == "roce 10.88.0.1 > 10.88.0.2 qp 0x000012") requests = &f;
  }
  ASSERT_NE(requests, nullptr);
  EXPECT_EQ(requests->first_frame, 1);
  EXPECT_EQ(requests->retransmissions, 1);  // the SEND after the RNR NAK
  EXPECT_EQ(requests->opcodes.at("RC SEND Only"), 3);
  ASSERT_EQ(report->faults.size(), 1u);  // the RNR NAK
  EXPECT_EQ(report->faults[0].kind, "RNR NAK");
  EXPECT_EQ(report->faults[0].detail, "timer 1");
  const nlohmann::json json = WireReportJson(*report);
  EXPECT_TRUE(json["ok"].get<bool>());
  EXPECT_EQ(json["rules"].size(), WireRules().size());
}

// Frames cut by the snap length keep their headers: every rule but the ICRC still reads them.
TEST(WireReportTest, TruncatedFramesAreCountedNotChecked) {
  absl::StatusOr<WireReport> report = CheckCapture((kCaptures / "roce_good_snaplen96.pcap").string());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_GT(report->truncated, 0);
  EXPECT_GT(report->crc_unchecked, 0);
  EXPECT_LE(report->crc_unchecked, report->truncated);
  EXPECT_EQ(report->crc_checked + report->crc_unchecked, report->roce_packets);
}

TEST(WireReportTest, TerminateIsReportedAsAFault) {
  absl::StatusOr<WireReport> report = CheckCapture((kCaptures / "iwarp_good.pcap").string());
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->faults.size(), 1u);
  EXPECT_EQ(report->faults[0].frame, 18);
  EXPECT_EQ(report->faults[0].kind, "TERMINATE");
  EXPECT_EQ(report->faults[0].detail, "DDP tagged buffer error, code 0x00");
  EXPECT_EQ(report->faults[0].flow, "iwarp 10.88.0.2:5791 > 10.88.0.1:40000");
  // Frame 10 is TCP sending frame 9 again: counted, not read twice (its MSN would repeat).
  for (const WireFlow& f : report->flows) {
    EXPECT_EQ(f.retransmissions, f.id == "iwarp 10.88.0.1:40000 > 10.88.0.2:5791" ? 1 : 0) << f.id;
  }
}

// Wireshark decodes no FPDU cut by the snap length: such FPDUs are counted, and the MSN/MO,
// WRITE and READ tracking of their direction starts over after them (no false gaps).
TEST(WireReportTest, CutFpdusAreCountedAsUndecoded) {
  absl::StatusOr<WireReport> report = CheckCapture((kCaptures / "iwarp_good_snaplen80.pcap").string());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_GT(report->iwarp_undecoded, 0);
  EXPECT_THAT(report->violations, IsEmpty());
}

// A test's slice: the packets of its time window (and, optionally, only its flows).
TEST(WireReportTest, SliceCountsThePacketsOfATimeWindow) {
  absl::StatusOr<WireReport> report = CheckCapture((kCaptures / "roce_good.pcap").string());
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->packets.size(), 36u);
  // Frames 13..16 (the generator puts frame N at N-1 ms): the 600-byte READ and its response.
  const double t0 = 1764000000.0;
  WireSlice read = SliceReport(*report, t0 + 0.0115, t0 + 0.0155);
  EXPECT_EQ(read.first_frame, 13);
  EXPECT_EQ(read.last_frame, 16);
  EXPECT_EQ(read.packets, 4);
  EXPECT_THAT(read.opcodes, ::testing::ElementsAre(::testing::Pair("RC RDMA READ Request", 1),
                                                   ::testing::Pair("RC RDMA READ Response First", 1),
                                                   ::testing::Pair("RC RDMA READ Response Last", 1),
                                                   ::testing::Pair("RC RDMA READ Response Middle", 1)));
  WireSlice requests_only =
      SliceReport(*report, t0 + 0.0115, t0 + 0.0155, {"roce 10.88.0.1 > 10.88.0.2 qp 0x000012"});
  EXPECT_EQ(requests_only.packets, 1);
  WireSlice rnr = SliceReport(*report, t0, t0 + 1);
  ASSERT_EQ(rnr.faults.size(), 1u);
  EXPECT_EQ(WireSliceJson(rnr)["faults"][0]["kind"], "RNR NAK");
  EXPECT_EQ(SliceReport(*report, t0 + 5, t0 + 6).first_frame, 0);
}

TEST(WireReportTest, ViolationCarriesFrameTimeAndFlow) {
  absl::StatusOr<WireReport> report = CheckCapture((kCaptures / "roce_bad_seq_nak_psn.pcap").string());
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->violations.size(), 1u);
  const WireViolation& v = report->violations[0];
  EXPECT_EQ(v.frame, 4);
  EXPECT_DOUBLE_EQ(v.time, 1764000000.003);  // the generator puts frame N at (N-1) ms
  EXPECT_EQ(v.flow, "roce 10.88.0.2 > 10.88.0.1 qp 0x000011");
  EXPECT_THAT(WireReportText(*report),
              ::testing::HasSubstr("frame 4 roce.seq_nak: the PSN sequence error NAK names PSN 0x000066; the first "
                                   "PSN missing is 0x000065"));
}

// Loss the capture cannot place is a note: it breaks no rule (ok, exit 0, fails no test:
// the JSON keeps it out of "violations"), but the capture is not called clean anywhere.
TEST(WireReportTest, UnplacedLossIsANoteNotAViolation) {
  ASSERT_OK_AND_ASSIGN(WireReport report, CheckCapture((kCaptures / "roce_bad_unplaced_loss.pcap").string()));
  EXPECT_THAT(report.violations, IsEmpty());
  ASSERT_EQ(report.notes.size(), 1u);
  EXPECT_EQ(report.notes[0].rule, "roce.unplaced_loss");
  EXPECT_EQ(report.notes[0].severity, "note");
  EXPECT_EQ(report.notes[0].frame, 18);  // the READ Response Only that acknowledges past the gap
  EXPECT_TRUE(report.ok());
  EXPECT_FALSE(report.clean());
  const nlohmann::json json = WireReportJson(report);
  EXPECT_TRUE(json["ok"].get<bool>());
  EXPECT_FALSE(json["clean"].get<bool>());
  EXPECT_THAT(json["violations"], IsEmpty());
  EXPECT_EQ(json["notes"][0]["rule"], "roce.unplaced_loss");
  const std::string text = WireReportText(report);
  EXPECT_THAT(text, ::testing::HasSubstr("frame 18 roce.unplaced_loss (note): "));
  EXPECT_THAT(text, ::testing::HasSubstr("1 note: not clean"));
  EXPECT_THAT(text, ::testing::Not(::testing::HasSubstr("every rule holds")));
  const WireSlice slice = SliceReport(report, 0, 2e9);
  EXPECT_EQ(slice.notes.size(), 1u);
  EXPECT_THAT(WireSliceJson(slice)["violations"], IsEmpty());
  EXPECT_EQ(WireRuleById("roce.unplaced_loss").severity, WireRule::kNote);
}

// iWARP: TCP recovers, and Wireshark marks its copies (tcp.analysis.retransmission). A
// capture whose every data segment was sent twice reads as the one sent once: the same
// PDUs and opcodes, no MSN, MO, tagged offset or READ length counted twice.
TEST(WireReportTest, TcpRetransmissionsAreReadOnce) {
  ASSERT_OK_AND_ASSIGN(WireReport once, CheckCapture((kCaptures / "iwarp_good.pcap").string()));
  ASSERT_OK_AND_ASSIGN(WireReport twice, CheckCapture((kCaptures / "iwarp_good_tcp_retransmit.pcap").string()));
  EXPECT_THAT(twice.violations, IsEmpty()) << WireReportText(twice);
  EXPECT_EQ(twice.iwarp_pdus, once.iwarp_pdus);
  EXPECT_EQ(twice.opcodes, once.opcodes);
  EXPECT_EQ(twice.faults.size(), once.faults.size());
  ASSERT_EQ(twice.flows.size(), once.flows.size());
  for (size_t i = 0; i < twice.flows.size(); ++i) {
    EXPECT_GT(twice.flows[i].retransmissions, once.flows[i].retransmissions) << twice.flows[i].id;
  }
}

// A segment lost on the wire and retransmitted after the one that followed it (what netem's
// loss does ahead of the capture) is read where TCP puts it: the same FPDUs, MSNs and MOs
// as the lossless capture, no sequence violation.
TEST(WireReportTest, TcpSegmentsAreReadInTcpOrder) {
  ASSERT_OK_AND_ASSIGN(WireReport in_order, CheckCapture((kCaptures / "iwarp_good.pcap").string()));
  ASSERT_OK_AND_ASSIGN(WireReport reordered, CheckCapture((kCaptures / "iwarp_good_out_of_order.pcap").string()));
  EXPECT_THAT(reordered.violations, IsEmpty()) << WireReportText(reordered);
  EXPECT_EQ(reordered.iwarp_pdus, in_order.iwarp_pdus);
  EXPECT_EQ(reordered.opcodes, in_order.opcodes);
}

TEST(WireCheckErrorsTest, MissingOrUnreadableCaptureIsAnError) {
  EXPECT_EQ(CheckCapture("/nonexistent/capture.pcap").status().code(), absl::StatusCode::kNotFound);
  const fs::path garbage = fs::path(::testing::TempDir()) / "not_a_capture.pcap";
  std::ofstream(garbage) << "not a capture\n";
  absl::StatusOr<WireReport> report = CheckCapture(garbage.string());
  EXPECT_EQ(report.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(report.status().message()), ::testing::HasSubstr("tshark could not read"));
}

// A capture still being written ends inside a packet: what came before it is checked.
TEST(WireCheckErrorsTest, CaptureCutShortIsCheckedUpToTheCut) {
  std::ifstream good(kCaptures / "roce_good.pcap", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(good)), std::istreambuf_iterator<char>());
  const fs::path cut = fs::path(::testing::TempDir()) / "cut_short.pcap";
  std::ofstream(cut, std::ios::binary) << bytes.substr(0, 3000);
  absl::StatusOr<WireReport> report = CheckCapture(cut.string());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->cut_short);
  EXPECT_GT(report->frames, 5);
  EXPECT_THAT(report->violations, IsEmpty());
}

TEST(WireCheckErrorsTest, TsharkIsBoundedInTime) {
  WireCheckOptions options;
  options.tshark.budget = absl::ZeroDuration();
  EXPECT_EQ(CheckCapture((kCaptures / "roce_good.pcap").string(), options).status().code(),
            absl::StatusCode::kDeadlineExceeded);
}

// RoCEv1 (GRH + BTH) is read with the transport rules RoCEv2 has, its packets counted as RoCEv1
// (before issue 26 they were not read at all, and the capture passed as clean).
TEST(WireLinkTypesTest, RoceV1IsCheckedLikeRoceV2) {
  ASSERT_OK_AND_ASSIGN(WireReport v1, CheckCapture((kCaptures / "rocev1_good.pcap").string()));
  ASSERT_OK_AND_ASSIGN(WireReport v2, CheckCapture((kCaptures / "roce_good.pcap").string()));
  EXPECT_EQ(v1.rocev1_packets, 35);  // roce_good's IPv4 RoCEv2 frames
  EXPECT_EQ(v1.roce_packets, 0);
  EXPECT_EQ(v1.opcodes.at("RC RDMA READ Response Middle"), v2.opcodes.at("RC RDMA READ Response Middle"));
  EXPECT_EQ(v1.faults.size(), 1u);  // the RNR NAK
  EXPECT_EQ(v1.flows[0].id, "rocev1 fe80::1 > fe80::2 qp 0x000012");
}

// Inside VXLAN or Geneve the RoCEv2 headers are the inner ones: addresses and the ICRC's
// pseudo-header (before issue 26 the outer IP header went into the ICRC: false roce.icrc).
TEST(WireLinkTypesTest, TunnelledRoceUsesTheInnerHeaders) {
  for (const char* capture : {"roce_good_vxlan.pcap", "roce_good_geneve.pcap"}) {
    ASSERT_OK_AND_ASSIGN(WireReport report, CheckCapture((kCaptures / capture).string()));
    EXPECT_EQ(report.roce_packets, 36) << capture;
    EXPECT_EQ(report.crc_checked, 36) << capture;
    EXPECT_EQ(report.flows[0].src, "10.88.0.1") << capture;
  }
}

// One MSN fault, one violation: after a wrong MSN the count resumes from the one seen (the
// old checker kept the expected count and flagged all three later ACKs of this capture).
TEST(WireRulesTest, OneMissedMsnIsOneViolation) {
  ASSERT_OK_AND_ASSIGN(WireReport report, CheckCapture((kCaptures / "roce_bad_ack_msn_missed.pcap").string()));
  ASSERT_EQ(report.violations.size(), 1u) << WireReportText(report);
  EXPECT_THAT(report.violations[0].message, ::testing::HasSubstr("has MSN 1, expected 2"));
}

// AckReq on a message's last packet is requester guidance: reported as an advisory, which
// neither fails the check nor a test of the wire lab.
TEST(WireRulesTest, AckReqIsAnAdvisory) {
  EXPECT_EQ(WireRuleById("roce.ackreq").severity, WireRule::kAdvisory);
  EXPECT_EQ(WireRuleById("roce.psn").severity, WireRule::kViolation);
  ASSERT_OK_AND_ASSIGN(WireReport report, CheckCapture((kCaptures / "roce_bad_ackreq.pcap").string()));
  ASSERT_EQ(report.violations.size(), 1u);
  EXPECT_TRUE(report.violations[0].advisory());
  EXPECT_TRUE(report.ok());
  EXPECT_EQ(WireReportJson(report)["violations"][0]["severity"], "advisory");
  EXPECT_THAT(WireReportText(report), ::testing::HasSubstr("roce.ackreq (advisory)"));
  EXPECT_EQ(WireCommand({"check", (kCaptures / "roce_bad_ackreq.pcap").string()}), kExitOk);
}

// `rdmacheck wire check`: 0 every rule holds, 1 a violation, 2 the capture cannot be read.
TEST(WireCommandTest, ExitCodes) {
  EXPECT_EQ(WireCommand({"check", (kCaptures / "iwarp_good.pcap").string()}), kExitOk);
  EXPECT_EQ(WireCommand({"check", (kCaptures / "iwarp_bad_terminate.pcap").string()}), kExitFailures);
  EXPECT_EQ(WireCommand({"check", "/nonexistent/capture.pcap"}), kExitUsage);
  EXPECT_EQ(WireCommand({"check"}), kExitUsage);
  EXPECT_EQ(WireCommand({"rules"}), kExitOk);
}

// Nothing checked is not clean: a capture with no RDMA packet exits 2 ("no RDMA packets in FILE").
TEST(WireCommandTest, NoRdmaPacketsIsExit2) {
  const fs::path empty = fs::path(::testing::TempDir()) / "no_rdma.pcap";
  std::ifstream good(kCaptures / "iwarp_good.pcap", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(good)), std::istreambuf_iterator<char>());
  std::ofstream(empty, std::ios::binary) << bytes.substr(0, 24 + 3 * (16 + 54));  // header + the TCP handshake
  ASSERT_OK_AND_ASSIGN(WireReport report, CheckCapture(empty.string()));
  EXPECT_EQ(report.frames, 3);
  EXPECT_EQ(report.rdma_packets(), 0);
  EXPECT_EQ(WireCommand({"check", empty.string()}), kExitUsage);
}

TEST(WireCrcTest, KnownCheckValues) {
  EXPECT_EQ(Crc32("123456789"), 0xCBF43926u);
  EXPECT_EQ(Crc32c("123456789"), 0xE3069283u);
}

// The committed captures are what the generator writes today.
TEST(WireCapturesTest, CommittedCapturesMatchTheGenerator) {
  const fs::path out = fs::path(::testing::TempDir()) / "wire_captures";
  fs::remove_all(out);
  const std::string command =
      "python3 " + (kCaptures / "make_captures.py").string() + " " + out.string() + " >/dev/null 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  for (const Doctored& c : Captures()) {
    std::ifstream a(kCaptures / c.capture, std::ios::binary), b(out / c.capture, std::ios::binary);
    std::stringstream committed, generated;
    committed << a.rdbuf();
    generated << b.rdbuf();
    EXPECT_TRUE(committed.str() == generated.str()) << c.capture << " differs: run make_captures.py";
  }
}

}  // namespace
}  // namespace rdmacheck
