// The RC recovery rules (wire/roce_recovery.h) on packet sequences built here, one RC
// connection A (QP 0x11) <-> B (QP 0x12), path MTU 256: each doctored sequence breaks one
// rule, each legal recovery is clean. A lost packet is one the sequence leaves out (lost
// before the capture, as in the wire lab). unit/wire_check_test.cc runs the same rules on
// the pcaps of unit/testdata/wire/make_captures.py, through tshark.
#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "wire/check_capture.h"
#include "wire/roce_check.h"
#include "wire/roce_recovery.h"

namespace rdmacheck {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr uint8_t kSendFirst = 0x00, kSendLast = 0x02, kSendOnly = 0x04;
constexpr uint8_t kWriteFirst = 0x06, kWriteMiddle = 0x07, kWriteLast = 0x08, kWriteLastImm = 0x09;
constexpr uint8_t kReadRequest = 0x0c, kReadFirst = 0x0d, kReadMiddle = 0x0e, kReadLast = 0x0f;
constexpr uint8_t kAck = 0x11, kAtomicAck = 0x12, kFetchAdd = 0x14, kUcSendOnly = 0x24;
// kRnrNak's timer is 1 (0.01 ms): a resend one frame (1 ms) later waited long enough.
constexpr uint32_t kAckSyndrome = 0x1f, kSeqNak = 0x60, kRnrNak = 0x20 | 1;
constexpr uint32_t kMtu = 256;

// Packets in capture order; frame N at N ms.
class Wire {
 public:
  // A request A -> B. `bytes` stands for its content (its hash).
  RocePacket& Request(uint8_t opcode, uint32_t psn, int64_t payload = 16, uint64_t bytes = 1) {
    RocePacket& p = Add("10.0.0.1", "10.0.0.2", 0x12, opcode, psn);
    p.payload = payload;
    p.ack_req = true;
    p.content_hash = bytes;
    if (p.opcode.op == IbOp::kReadRequest) p.dma_length = static_cast<uint32_t>(payload);
    if (p.opcode.op == IbOp::kReadRequest || p.opcode.op == IbOp::kAtomic) p.payload = 0;
    return p;
  }
  // A response B -> A; AETH on the opcodes that carry one.
  RocePacket& Response(uint8_t opcode, uint32_t psn, uint32_t msn, uint32_t syndrome = kAckSyndrome,
                       int64_t payload = 0) {
    RocePacket& p = Add("10.0.0.2", "10.0.0.1", 0x11, opcode, psn);
    p.payload = payload;
    if (p.opcode.has_aeth()) {
      p.syndrome = syndrome;
      p.msn = msn;
    }
    return p;
  }
  RocePacket& AtomicAck(uint32_t psn, uint32_t msn, uint64_t original) {
    RocePacket& p = Response(kAtomicAck, psn, msn);
    p.atomic_original = original;
    return p;
  }

  // `path_mtu` 0: the checker infers it from the first First or Middle it sees.
  WireReport Check(int retry_cnt = kHarnessRetryCnt, uint32_t path_mtu = kMtu, bool wire_may_reorder = false) const {
    WireReport report;
    CheckRoce(packets_, path_mtu, report, retry_cnt, wire_may_reorder);
    return report;
  }

 private:
  RocePacket& Add(const char* src, const char* dst, uint32_t qp, uint8_t opcode, uint32_t psn) {
    RocePacket p;
    p.frame.number = static_cast<int64_t>(packets_.size()) + 1;
    p.frame.time = 1764000000.0 + 0.001 * p.frame.number;
    p.src = src;
    p.dst = dst;
    p.sport = 49152;
    p.dport = 4791;
    p.opcode = DescribeOpcode(opcode);
    p.pkey = 0xffff;
    p.dest_qp = qp;
    p.psn = psn;
    packets_.push_back(p);
    return packets_.back();
  }

  std::vector<RocePacket> packets_;
};

std::vector<std::string> Rules(const std::vector<WireViolation>& flagged) {
  std::vector<std::string> rules;
  for (const WireViolation& v : flagged) rules.push_back(v.rule);
  return rules;
}

// A WRITE of three packets (PSNs 101..103) after a SEND at 100 whose First is lost; B NAKs
// the first missing PSN once. The caller adds the resend and the final ACK.
Wire WriteLosingItsFirst(uint32_t nak_psn = 101) {
  Wire w;
  w.Request(kSendOnly, 100);
  w.Response(kAck, 100, 1);
  w.Request(kWriteMiddle, 102, kMtu, 2);
  w.Response(kAck, nak_psn, 1, kSeqNak);
  w.Request(kWriteLast, 103, 88, 3);  // dropped by B: no second NAK
  return w;
}

// IBTA Vol 1 §9.7: go-back-N after one loss. B NAKs PSN 101 once, A resends 101..103.
TEST(WireRecoveryTest, GoBackNAfterOneLossIsClean) {
  Wire w = WriteLosingItsFirst();
  w.Request(kWriteFirst, 101, kMtu, 4);
  w.Request(kWriteMiddle, 102, kMtu, 2);
  w.Request(kWriteLast, 103, 88, 3);
  w.Response(kAck, 103, 2);
  const WireReport report = w.Check();
  EXPECT_TRUE(report.clean()) << WireReportText(report);
  EXPECT_EQ(report.flows[0].retransmissions, 1);  // one go back
}

// The requester's timer: an ACK lost, the SEND sent again and answered as a duplicate; a
// SEND of two losing its First and the NAK for it, both packets resent from the oldest
// unacknowledged PSN.
TEST(WireRecoveryTest, TimerRetransmissionIsClean) {
  Wire w;
  w.Request(kSendOnly, 104, 30, 7);
  w.Request(kSendOnly, 104, 30, 7);
  w.Response(kAck, 104, 1);
  w.Request(kSendLast, 106, 10, 8);
  w.Request(kSendFirst, 105, kMtu, 9);
  w.Request(kSendLast, 106, 10, 8);
  w.Response(kAck, 106, 2);
  const WireReport report = w.Check();
  EXPECT_TRUE(report.clean()) << WireReportText(report);
}

TEST(WireRecoveryTest, NakAtTheWrongPsnIsAViolation) {
  Wire w = WriteLosingItsFirst(/*nak_psn=*/102);
  const WireReport report = w.Check();
  EXPECT_THAT(Rules(report.violations), ElementsAre("roce.seq_nak")) << WireReportText(report);
  EXPECT_THAT(report.violations[0].message, HasSubstr("names PSN 0x000066; the first PSN missing is 0x000065"));
  EXPECT_EQ(report.violations[0].frame, 4);
}

TEST(WireRecoveryTest, TwoNaksForOneLossAreAViolation) {
  Wire w = WriteLosingItsFirst();
  w.Response(kAck, 101, 1, kSeqNak);
  const WireReport report = w.Check();
  EXPECT_THAT(Rules(report.violations), ElementsAre("roce.seq_nak")) << WireReportText(report);
  EXPECT_THAT(report.violations[0].message, HasSubstr("a second PSN sequence error NAK"));
  EXPECT_EQ(report.violations[0].frame, 6);
}

// After the lost PSN arrives the loss is over: a NAK for a later loss is a new one.
TEST(WireRecoveryTest, NakForALaterLossIsNotASecond) {
  Wire w = WriteLosingItsFirst();
  w.Request(kWriteFirst, 101, kMtu, 4);
  w.Request(kWriteLast, 103, 88, 3);  // 102 lost this time
  w.Response(kAck, 102, 1, kSeqNak);
  w.Request(kWriteMiddle, 102, kMtu, 2);
  w.Request(kWriteLast, 103, 88, 3);
  w.Response(kAck, 103, 2);
  const WireReport report = w.Check();
  EXPECT_TRUE(report.clean()) << WireReportText(report);
}

// Captured at the requester's end, a NAK comes a round trip late: after the timer already
// resent the lost PSN and a later loss opened. It answers the loss it names, in order.
TEST(WireRecoveryTest, NakArrivingAfterTheResendIsClean) {
  Wire w;
  w.Request(kSendOnly, 100);
  w.Request(kSendOnly, 102, 16, 2);  // 101 lost
  w.Request(kSendOnly, 101, 16, 3);  // the timer
  w.Request(kSendOnly, 102, 16, 2);
  w.Request(kSendOnly, 104, 16, 4);  // 103 lost
  w.Response(kAck, 101, 1, kSeqNak);  // for the first loss, sent before 101 came again
  w.Response(kAck, 103, 3, kSeqNak);
  w.Request(kSendOnly, 103, 16, 5);
  w.Request(kSendOnly, 104, 16, 4);
  w.Response(kAck, 104, 5);
  const WireReport report = w.Check();
  EXPECT_TRUE(report.clean()) << WireReportText(report);
}

// A retransmission repeats its packet: opcode, payload length and bytes.
TEST(WireRecoveryTest, RetransmissionWithOtherPayloadIsAViolation) {
  Wire w = WriteLosingItsFirst();
  w.Request(kWriteFirst, 101, kMtu, 4);
  w.Request(kWriteMiddle, 102, kMtu, /*bytes=*/99);
  w.Request(kWriteLast, 103, 88, 3);
  w.Response(kAck, 103, 2);
  const WireReport report = w.Check();
  EXPECT_THAT(Rules(report.violations), ElementsAre("roce.retransmission")) << WireReportText(report);
  EXPECT_THAT(report.violations[0].message, HasSubstr("other bytes than its first send (frame 3)"));
}

TEST(WireRecoveryTest, RetransmissionWithOtherOpcodeIsAViolation) {
  Wire w = WriteLosingItsFirst();
  w.Request(kWriteFirst, 101, kMtu, 4);
  w.Request(kWriteMiddle, 102, kMtu, 2);
  w.Request(kWriteLastImm, 103, 88, 3);
  w.Response(kAck, 103, 2);
  const WireReport report = w.Check();
  EXPECT_THAT(Rules(report.violations), ElementsAre("roce.retransmission")) << WireReportText(report);
  EXPECT_THAT(report.violations[0].message,
              HasSubstr("resends PSN 0x000067 as RC RDMA WRITE Last with Immediate; its first send (frame 5) was "
                        "RC RDMA WRITE Last"));
}

TEST(WireRecoveryTest, RetransmissionWithOtherLengthIsAViolation) {
  Wire w = WriteLosingItsFirst();
  w.Request(kWriteFirst, 101, kMtu, 4);
  w.Request(kWriteMiddle, 102, kMtu, 2);
  w.Request(kWriteLast, 103, 87, 3);
  w.Response(kAck, 103, 2);
  const WireReport report = w.Check();
  EXPECT_THAT(Rules(report.violations), ElementsAre("roce.retransmission")) << WireReportText(report);
  EXPECT_THAT(report.violations[0].message, HasSubstr("with 87 payload bytes; its first send (frame 5) carried 88"));
}

// A READ may be re-sent for what is still missing (IBTA Vol 1 §9.4.4): another length is legal.
TEST(WireRecoveryTest, ReadResentWithAnotherLengthIsLegal) {
  Wire w;
  w.Request(kReadRequest, 10, 512, 1);
  w.Response(kReadFirst, 10, 0, kAckSyndrome, kMtu);
  w.Request(kReadRequest, 11, 256, 2);  // the timer: re-read the missing half
  w.Response(kReadLast, 11, 1, kAckSyndrome, kMtu);
  w.Request(kReadRequest, 10, 512, 3);
  const WireReport report = w.Check();
  EXPECT_THAT(Rules(report.violations), ::testing::Not(::testing::Contains("roce.retransmission")))
      << WireReportText(report);
}

Wire SentTimes(int sends) {
  Wire w;
  w.Request(kSendOnly, 200);
  w.Response(kAck, 200, 1);
  for (int i = 0; i < sends; ++i) w.Request(kSendOnly, 201);  // every ACK lost before the capture
  w.Response(kAck, 201, 2);
  return w;
}

// retry_cnt 7 (the harness's): a PSN sent 8 times is 7 retries; the 9th send is one too many.
TEST(WireRecoveryTest, PsnSentRetryCntPlusTwoTimesIsAViolation) {
  EXPECT_TRUE(SentTimes(kHarnessRetryCnt + 1).Check().clean());
  const WireReport report = SentTimes(kHarnessRetryCnt + 2).Check();
  EXPECT_THAT(Rules(report.violations), ElementsAre("roce.retry_count")) << WireReportText(report);
  EXPECT_EQ(report.violations[0].frame, 2 + kHarnessRetryCnt + 2);
  EXPECT_THAT(report.violations[0].message, HasSubstr("retry 8 without a response acknowledging progress"));
}

TEST(WireRecoveryTest, RetryCntIsTheQpsValue) {
  EXPECT_TRUE(SentTimes(4).Check(/*retry_cnt=*/3).clean());
  EXPECT_THAT(Rules(SentTimes(5).Check(/*retry_cnt=*/3).violations), ElementsAre("roce.retry_count"));
  EXPECT_THAT(Rules(SentTimes(2).Check(/*retry_cnt=*/0).violations), ElementsAre("roce.retry_count"));
}

// rxe_comp.c resets the count on every response that makes progress.
TEST(WireRecoveryTest, ProgressResetsTheRetryCount) {
  Wire w;
  w.Request(kSendOnly, 300);
  for (int i = 0; i < 7; ++i) w.Request(kSendOnly, 300);
  w.Response(kAck, 300, 1);
  w.Request(kSendOnly, 301);
  for (int i = 0; i < 7; ++i) w.Request(kSendOnly, 301);
  w.Response(kAck, 301, 2);
  EXPECT_TRUE(w.Check().clean()) << WireReportText(w.Check());
}

// A sequence error NAK further on acknowledges the packets before it: progress too. A long
// transfer on a lossy wire moves on by such NAKs alone (seen in the lab's loss-5 capture).
TEST(WireRecoveryTest, NakFurtherOnIsProgress) {
  Wire w;
  w.Request(kSendOnly, 10, 16, 10);
  for (uint32_t psn = 12; psn < 20; ++psn) w.Request(kSendOnly, psn, 16, psn);  // 11 lost
  for (uint32_t lost = 11; lost < 19; ++lost) {  // 8 NAKed retries; each loses the PSN after the NAKed one
    w.Response(kAck, lost, lost - 10, kSeqNak);
    w.Request(kSendOnly, lost, 16, lost);
    for (uint32_t psn = lost + 2; psn < 20; ++psn) w.Request(kSendOnly, psn, 16, psn);
  }
  w.Request(kSendOnly, 19, 16, 19);  // the last one lost too: the timer
  w.Response(kAck, 19, 10);
  const WireReport report = w.Check();
  EXPECT_TRUE(report.clean()) << WireReportText(report);
  EXPECT_THAT(Rules(SentTimes(9).Check().violations), ElementsAre("roce.retry_count"));  // no NAK, no progress
}

// Resends after an RNR NAK count against rnr_retry (7: for ever), not retry_cnt.
TEST(WireRecoveryTest, RnrRetriesDoNotCountAgainstRetryCnt) {
  Wire w;
  w.Request(kSendOnly, 400);
  for (int i = 0; i < 10; ++i) {
    w.Response(kAck, 400, 0, kRnrNak);
    w.Request(kSendOnly, 400);
  }
  w.Response(kAck, 400, 1);
  EXPECT_TRUE(w.Check().clean()) << WireReportText(w.Check());
}

// The requester waits the RNR NAK's timer before it resends (IBTA Vol 1 9.7.5.2.8): timer 16
// asks for 2.56 ms, which a resend 2.5 ms after the NAK did not wait, and one 2.6 ms after did.
WireReport ResendAfterRnrNak(double ms) {
  Wire w;
  w.Request(kSendOnly, 450);
  const double nak = w.Response(kAck, 450, 0, 0x20 | 16).frame.time;
  w.Request(kSendOnly, 450).frame.time = nak + ms / 1000;
  w.Response(kAck, 450, 1).frame.time = nak + ms / 1000 + 0.001;
  return w.Check();
}

// What the report's recovery section shows: gaps and their recovery time, NAKs by kind,
// go-backs, RNR waits.
TEST(WireRecoveryTest, CountsWhatRecoveryTheCaptureShows) {
  Wire w;
  w.Request(kSendOnly, 700);
  w.Response(kAck, 700, 1);
  w.Request(kSendOnly, 702, 16, 2);  // 701 lost: a gap opens at frame 3
  w.Response(kAck, 701, 1, kSeqNak);
  w.Request(kSendOnly, 701, 16, 3);  // the gap closes at frame 5: 2 ms
  w.Request(kSendOnly, 702, 16, 2);
  w.Response(kAck, 702, 3);
  w.Request(kSendOnly, 703, 16, 4);
  w.Response(kAck, 703, 3, kRnrNak);
  w.Request(kSendOnly, 703, 16, 4);  // 1 ms after the RNR NAK
  w.Response(kAck, 703, 4);
  const WireReport report = w.Check();
  EXPECT_TRUE(report.clean()) << WireReportText(report);
  EXPECT_EQ(report.recovery.losses, 1);
  EXPECT_THAT(report.recovery.recovery_ms, ElementsAre(::testing::DoubleNear(2, 1e-3)));
  EXPECT_EQ(report.recovery.seq_naks, 1);
  EXPECT_EQ(report.recovery.rnr_naks, 1);
  EXPECT_EQ(report.recovery.other_naks, 0);
  EXPECT_EQ(report.recovery.retries, 1);
  EXPECT_THAT(report.recovery.rnr_wait_ms, ElementsAre(::testing::DoubleNear(1, 1e-3)));
  const nlohmann::json j = WireReportJson(report)["recovery"];
  EXPECT_EQ(j["recovery_ms"]["worst"], 2.0);  // rounded to microseconds
  EXPECT_EQ(j["naks"]["sequence_error"], 1);
}

TEST(WireRecoveryTest, ResendBeforeTheRnrTimerIsAViolation) {
  const WireReport early = ResendAfterRnrNak(2.5);
  EXPECT_THAT(Rules(early.violations), ElementsAre("roce.rnr_timer")) << WireReportText(early);
  EXPECT_THAT(early.violations[0].message,
              HasSubstr("resends PSN 0x0001c2 2.500 ms after the RNR NAK (frame 2) whose timer 16 asks for 2.56 ms"));
  EXPECT_TRUE(ResendAfterRnrNak(2.6).clean()) << WireReportText(ResendAfterRnrNak(2.6));
}

// IBTA Vol 1 §9.7.5.2.8: an RNR NAK means no receive WQE, which a READ never needs. rxe
// sends one when its host refuses to transmit a READ response (rxe_resp.c read_reply()
// returns RESPST_ERR_RNR when rxe_xmit_packet() fails): one violation, and neither its MSN
// (rxe counted the READ when it began) nor its timer is judged on top of it.
TEST(WireRecoveryTest, RnrNakForAReadIsAViolation) {
  Wire w;
  w.Request(kReadRequest, 10, 768, 1);
  w.Response(kReadFirst, 10, 1, kAckSyndrome, kMtu);
  w.Response(kAck, 10, 1, 0x20);  // RNR NAK, timer 0 (655 ms), for the READ's PSN
  w.Request(kReadRequest, 11, 512, 1);  // resent from where the response stopped, 1 ms later
  w.Response(kReadMiddle, 11, 1, kAckSyndrome, kMtu);
  w.Response(kReadLast, 12, 1, kAckSyndrome, kMtu);
  const WireReport report = w.Check();
  EXPECT_THAT(Rules(report.violations), ElementsAre("roce.rnr_nak")) << WireReportText(report);
  EXPECT_THAT(report.violations[0].message, HasSubstr("RNR NAK for an RDMA READ at PSN 0x00000a"));
  EXPECT_TRUE(ResendAfterRnrNak(2.6).clean()) << "an RNR NAK for a SEND is what RNR NAKs are for";
}

// Four READs posted before any response, so before the checker knows the MTU (each is
// given the most PSNs it could take until the request after it says how many it took); the
// first READ's First response is lost and the READs are resent from there. A resend is no
// "request after" the last READ: that READ still ends where its Last says, and the MSNs of
// the responses count right (a lab capture under 1 % loss, SeveralReadsOutstanding).
TEST(WireRecoveryTest, ReadsResentBeforeTheMtuIsKnownKeepTheirCount) {
  constexpr int64_t kLabMtu = 1024;  // 2000 bytes: 2 packets (8 at the smallest MTU, 256)
  Wire w;
  for (uint32_t psn : {10, 12, 14, 16}) w.Request(kReadRequest, psn, 2000, 1);
  w.Response(kReadLast, 11, 1, kAckSyndrome, 976);  // READ 10's First lost
  w.Response(kReadFirst, 12, 2, kAckSyndrome, kLabMtu);
  w.Response(kReadLast, 13, 2, kAckSyndrome, 976);
  w.Response(kReadFirst, 14, 3, kAckSyndrome, kLabMtu);
  w.Request(kReadRequest, 10, 2000, 1);  // go back to the lost First
  w.Response(kReadLast, 15, 3, kAckSyndrome, 976);
  w.Response(kReadFirst, 16, 4, kAckSyndrome, kLabMtu);
  w.Response(kReadLast, 17, 4, kAckSyndrome, 976);
  const WireReport report = w.Check(kHarnessRetryCnt, /*path_mtu=*/0);
  for (const WireViolation& v : report.violations) EXPECT_NE(v.rule, "roce.ack_msn") << WireReportText(report);
}

Wire AtomicAnsweredTwice(uint64_t second_original) {
  Wire w;
  w.Request(kFetchAdd, 500, 0, 5);
  w.AtomicAck(500, 1, 41);
  w.Request(kFetchAdd, 500, 0, 5);  // the timer fired as the ACK was on its way
  w.AtomicAck(500, 1, second_original);
  return w;
}

TEST(WireRecoveryTest, DuplicateAtomicWithAnotherOriginalValueIsAViolation) {
  EXPECT_TRUE(AtomicAnsweredTwice(41).Check().clean());
  const WireReport report = AtomicAnsweredTwice(42).Check();
  EXPECT_THAT(Rules(report.violations), ElementsAre("roce.duplicate_atomic")) << WireReportText(report);
  EXPECT_THAT(report.violations[0].message,
              HasSubstr("carries original value 0x2a; the first answer to that PSN (frame 2) carried 0x29"));
}

// A duplicate is answered: a SEND's with an ACK (rxe: at the last PSN it took), a READ's
// by executing it again.
TEST(WireRecoveryTest, DuplicatesAreAnswered) {
  Wire w;
  w.Request(kSendOnly, 600);
  w.Response(kAck, 600, 1);
  w.Request(kReadRequest, 601, 300, 2);
  w.Response(kReadFirst, 601, 1, kAckSyndrome, kMtu);
  w.Response(kReadLast, 602, 2, kAckSyndrome, 44);
  w.Request(kSendOnly, 600);  // both again: their answers were lost before the requester
  w.Request(kReadRequest, 601, 300, 2);
  w.Response(kAck, 600, 2);
  w.Response(kReadFirst, 601, 2, kAckSyndrome, kMtu);
  w.Response(kReadLast, 602, 2, kAckSyndrome, 44);
  EXPECT_TRUE(w.Check().clean()) << WireReportText(w.Check());
}

// The responder acknowledges past a PSN the capture never showed arriving, and no NAK or
// retransmission came: the capture missed it, or the responder took a gap. A note.
TEST(WireRecoveryTest, GapClosedByAnAckIsUnplacedLoss) {
  Wire w;
  w.Request(kSendOnly, 700);
  w.Request(kSendOnly, 702);
  w.Response(kAck, 702, 3);
  const WireReport report = w.Check();
  EXPECT_THAT(report.violations, IsEmpty()) << WireReportText(report);
  EXPECT_THAT(Rules(report.notes), ElementsAre("roce.unplaced_loss"));
  EXPECT_THAT(report.notes[0].message, HasSubstr("past PSN 0x0002bd that frame 2 skipped"));
  EXPECT_TRUE(report.ok());
  EXPECT_FALSE(report.clean());
}

TEST(WireRecoveryTest, GapOpenAtTheCaptureEndIsUnplacedLoss) {
  Wire w;
  w.Request(kSendOnly, 700);
  w.Request(kSendOnly, 702);
  const WireReport report = w.Check();
  EXPECT_THAT(Rules(report.notes), ElementsAre("roce.unplaced_loss"));
  EXPECT_EQ(report.notes[0].frame, 2);
  EXPECT_THAT(report.notes[0].message, HasSubstr("neither a NAK nor a retransmission"));
}

// A NAK for a PSN this capture saw arrive: lost after the capture point. Its recovery is
// followed from there (a second NAK for it is still one too many).
TEST(WireRecoveryTest, NakForAPsnSeenArrivingIsUnplacedLoss) {
  Wire w;
  w.Request(kSendOnly, 800);
  w.Request(kSendOnly, 801);
  w.Request(kSendOnly, 802);
  w.Response(kAck, 801, 1, kSeqNak);
  w.Request(kSendOnly, 801);
  w.Request(kSendOnly, 802);
  w.Response(kAck, 802, 3);
  const WireReport report = w.Check();
  EXPECT_THAT(report.violations, IsEmpty()) << WireReportText(report);
  EXPECT_THAT(Rules(report.notes), ElementsAre("roce.unplaced_loss"));
}

// A NAK for a PSN already acknowledged, or never sent, is no sequence error at all.
TEST(WireRecoveryTest, NakOutsideTheUnacknowledgedPsnsIsAViolation) {
  Wire acked;
  acked.Request(kSendOnly, 900);
  acked.Response(kAck, 900, 1);
  acked.Request(kSendOnly, 901);
  acked.Response(kAck, 900, 1, kSeqNak);
  EXPECT_THAT(Rules(acked.Check().violations), ::testing::Contains("roce.seq_nak"));
  Wire unsent;
  unsent.Request(kSendOnly, 900);
  unsent.Response(kAck, 900, 1);
  unsent.Request(kSendOnly, 901);
  unsent.Response(kAck, 905, 2, kSeqNak);
  EXPECT_THAT(Rules(unsent.Check().violations), ::testing::Contains("roce.seq_nak"));
}

// A READ's response packets lost before the capture: a gap in its PSNs, or no First, is
// loss the READ re-sent recovers, not a malformed response.
TEST(WireRecoveryTest, LostReadResponsePacketsAreNoViolation) {
  Wire w;
  w.Request(kReadRequest, 10, 768, 1);
  w.Response(kReadFirst, 10, 0, kAckSyndrome, kMtu);
  w.Response(kReadLast, 12, 1, kAckSyndrome, kMtu);  // 11 lost
  Wire head;
  head.Request(kReadRequest, 10, 768, 1);
  head.Response(kReadMiddle, 11, 0, kAckSyndrome, kMtu);  // First lost
  head.Response(kReadLast, 12, 1, kAckSyndrome, kMtu);
  EXPECT_TRUE(w.Check().ok()) << WireReportText(w.Check());
  EXPECT_TRUE(head.Check().ok()) << WireReportText(head.Check());
}

// UC does not recover: a gap there is still what roce.psn says.
// UC never recovers (IBTA Vol 1 9.8.3): a gap is loss nobody places from one capture point,
// a note that keeps the capture from being called clean, not a violation.
// A UC message that lost its First, or its Last, leaves only the note: the packet after the
// gap may end or begin a message (a lab capture under 1 % loss: "UC SEND Last without a
// First", "UC RDMA WRITE First while a RDMA WRITE message is open").
TEST(WireRecoveryTest, UcMessageCutByLossIsOnlyTheNote) {
  constexpr uint8_t kUcSendFirst = 0x20, kUcSendLast = 0x22, kUcWriteFirst = 0x26, kUcWriteLastImm = 0x29;
  Wire first_lost;
  first_lost.Request(kUcSendFirst, 10, kMtu);
  first_lost.Request(kUcSendLast, 11, 1);
  first_lost.Request(kUcSendLast, 13, 1);  // its First, 12, lost
  first_lost.Request(kUcSendFirst, 14, kMtu);
  first_lost.Request(kUcSendLast, 15, 1);
  Wire last_lost;
  last_lost.Request(kUcWriteFirst, 20, kMtu);
  last_lost.Request(kUcWriteFirst, 22, kMtu);  // the Last with immediate, 21, lost
  last_lost.Request(kUcWriteLastImm, 23, 1);
  for (const Wire* w : {&first_lost, &last_lost}) {
    const WireReport report = w->Check();
    EXPECT_THAT(Rules(report.violations), IsEmpty()) << WireReportText(report);
    EXPECT_THAT(Rules(report.notes), ElementsAre("roce.unplaced_loss")) << WireReportText(report);
  }
}

TEST(WireRecoveryTest, UcGapIsUnplacedLoss) {
  Wire w;
  w.Request(kUcSendOnly, 10);
  w.Request(kUcSendOnly, 12);
  const WireReport report = w.Check();
  EXPECT_THAT(Rules(report.violations), IsEmpty());
  EXPECT_THAT(Rules(report.notes), ElementsAre("roce.unplaced_loss"));
}

// Eight UC SENDs as a reordering wire delivered them (netem reorder, a lab capture's order:
// messages 6 and 7 ahead of 0..5). Where the capture may show a reordered network
// (--wire_reorders), each late one is the note roce.unplaced_reorder; elsewhere the PSN
// going back stays roce.psn: a UC sender never goes back.
TEST(WireRecoveryTest, UcPacketsOvertakenOnAReorderingWireAreNotes) {
  Wire w;
  for (uint32_t psn : {16, 17, 10, 11, 12, 13, 14, 15}) w.Request(kUcSendOnly, psn);
  const WireReport reordering = w.Check(kHarnessRetryCnt, kMtu, /*wire_may_reorder=*/true);
  EXPECT_THAT(Rules(reordering.violations), IsEmpty()) << WireReportText(reordering);
  EXPECT_EQ(Rules(reordering.notes), std::vector<std::string>(6, "roce.unplaced_reorder")) << WireReportText(reordering);
  const WireReport in_order = w.Check();
  EXPECT_THAT(Rules(in_order.violations), Contains("roce.psn")) << WireReportText(in_order);
}

// A network that duplicates (netem's duplicate profile) repeats a UC packet: a note, since
// one capture point cannot tell it from a sender that resent; another opcode at a consumed
// PSN is still a violation.
TEST(WireRecoveryTest, UcPacketSeenTwiceIsANote) {
  Wire w;
  w.Request(kUcSendOnly, 10);
  w.Request(kUcSendOnly, 10);
  const WireReport report = w.Check();
  EXPECT_THAT(Rules(report.violations), IsEmpty());
  EXPECT_THAT(Rules(report.notes), ElementsAre("roce.duplicate_packet"));
}

// Memory stays bounded: the oldest unacknowledged first sends are forgotten past the
// limit, so a resend of one of them is no longer compared.
TEST(WireRecoveryTest, RememberedSendsAreBounded) {
  Wire w;
  const int64_t n = RoceRecovery::kMaxRemembered + 1;
  for (int64_t psn = 0; psn < n; ++psn) w.Request(kSendOnly, static_cast<uint32_t>(psn), 16, 1);
  w.Request(kSendOnly, 0, 16, /*bytes=*/2);  // forgotten: not compared
  w.Request(kSendOnly, 1, 16, /*bytes=*/2);  // still remembered
  const WireReport report = w.Check();
  ASSERT_THAT(Rules(report.violations), ElementsAre("roce.retransmission"));
  EXPECT_EQ(report.violations[0].frame, n + 2);
}

TEST(WireRecoveryTest, RetryCountOutsideZeroToSevenIsRefused) {
  WireCheckOptions options;
  options.retry_cnt = 8;
  EXPECT_EQ(CheckCapture("/nonexistent.pcap", options).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace rdmacheck
