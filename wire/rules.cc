#include "wire/rules.h"

namespace rdmacheck {

const std::vector<WireRule>& WireRules() {
  static const auto* rules = new std::vector<WireRule>{
      // RoCEv2: IBTA Vol 1 (release 1.4) chapter 9 and Annex A17 (RoCEv2).
      {"roce.udp_port", "roce", "RoCEv2 packets go to UDP destination port 4791 (the source port is free)",
       "IBTA Annex A17 (RoCEv2: UDP encapsulation, destination port 4791)"},
      {"roce.icrc", "roce", "the ICRC matches the packet (CRC-32 over the masked IP/UDP/BTH pseudo-header and the rest)",
       "IBTA Annex A17.8 (ICRC for RoCEv2), Vol 1 §7.8 (invariant CRC)"},
      {"roce.psn", "roce",
       "per QP and direction, request PSNs advance by one per packet modulo 2^24 (a READ by its response count); "
       "an RC retransmission goes back to a PSN that carried the same operation before, or that was lost before "
       "the capture (a READ's response PSNs carry only a READ again); a forward gap on RC is loss, judged by the "
       "recovery rules below",
       "IBTA Vol 1 §9.2 (BTH PSN), §9.7 (reliable service: PSN sequence, READ PSN space, duplicates)"},
      {"roce.opcode_sequence", "roce",
       "opcodes are defined and legal for the QP type; a message is First, Middle*, Last or Only, never interleaved",
       "IBTA Vol 1 §9.2 (BTH OpCode table), §9.5 (transaction ordering), §9.8 (unreliable service)"},
      {"roce.payload_size", "roce",
       "First and Middle packets carry exactly the path MTU, Last and Only no more than it",
       "IBTA Vol 1 §9.6 (packet length checks), §9.7 (packet payload and the path MTU)"},
      // Advisory: §9.7's words on AckReq in a message's last packet are guidance to the
      // requester (a responder ACKs coalesced messages anyway), not a receiver check.
      {"roce.ackreq", "roce", "the last packet of an RC SEND or RDMA WRITE message has AckReq set",
       "IBTA Vol 1 §9.2 (BTH AckReq), §9.7 (requester behaviour)", WireRule::kAdvisory},
      {"roce.aeth_syndrome", "roce",
       "every AETH syndrome is an ACK, an RNR NAK or a NAK with a defined code; READ responses and atomic ACKs carry an ACK",
       "IBTA Vol 1 §9.3 (AETH syndrome encoding), §9.7.5.1 (ACK/NAK)"},
      {"roce.ack_msn", "roce",
       "an ACK/NAK acknowledges a PSN that was sent, and its MSN advances by the messages it completes (after a wrong "
       "MSN the count resumes from the one seen: one fault, one violation)",
       "IBTA Vol 1 §9.7.5.1 (ACK/NAK: PSN and MSN)"},
      {"roce.read_response", "roce",
       "READ responses start at the request's PSN, follow it PSN by PSN, and carry exactly its DMA length",
       "IBTA Vol 1 §9.4 (RDMA READ), §9.7 (READ responses)"},
      {"roce.destqp", "roce",
       "within a connection, the responses to one QP's requests all go to one QP (DestQP)",
       "IBTA Vol 1 §9.2 (BTH DestQP), §9.7 (RC: one QP pair per connection)"},
      {"roce.pkey", "roce", "the P_Key stays the same within a connection, in both directions",
       "IBTA Vol 1 §9.2 (BTH P_Key), §10.9 (partitions)"},
      // RC recovery on a lossy wire (wire/roce_recovery.h): the responder's sequence error
      // NAK, the requester's go-back-N and retry limit, duplicates answered, loss the capture
      // cannot place. Read against Linux rxe (rxe_resp.c check_psn/duplicate_request,
      // rxe_comp.c check_ack/COMPST_ERROR_RETRY, rxe_req.c req_retry).
      {"roce.seq_nak", "roce",
       "a responder that receives a request beyond the PSN it expects sends one PSN sequence error NAK (NAK code 0) "
       "for that loss, naming the PSN it expects (the first one missing), and no other until that PSN arrives",
       "IBTA Vol 1 §9.7.5.1 (responder ACK/NAK: an out-of-sequence request is NAKed with a PSN sequence error, "
       "later ones dropped silently), §9.9 (error handling: the PSN sequence error class)"},
      {"roce.retransmission", "roce",
       "the requester resends from the NAKed PSN or, after its timer, from the oldest unacknowledged one, and each "
       "packet it resends carries the opcode, payload length and bytes it carried the first time (a READ request "
       "may be re-sent for what is still missing: only its opcode is compared)",
       "IBTA Vol 1 §9.7 (requester: retry from the PSN sequence error NAK or the transport timer), §9.4.4 (a "
       "retried RDMA READ need not repeat the original's address and length)"},
      {"roce.retry_count", "roce",
       "without a response that acknowledges progress, the requester goes back to resend at most retry_cnt times "
       "(--retry_cnt, default 7 as the harness sets it): no PSN is sent more than retry_cnt + 1 times in a row; "
       "resends after an RNR NAK count against rnr_retry, not here",
       "IBTA Vol 1 §9.7 (requester: transport retry counter, QP attribute Retry Count; RNR retry counted apart)"},
      {"roce.rnr_nak", "roce",
       "an RNR NAK answers only a request that consumes a receive WQE (a SEND, an RDMA WRITE with immediate), never "
       "an RDMA READ or an atomic",
       "IBTA Vol 1 §9.7.5.2.8 (RNR NAK: the responder had no receive WQE)"},
      {"roce.rnr_timer", "roce",
       "after an RNR NAK the requester waits at least the time its timer field names before it resends (a gap "
       "the capture shows is the requester's wait plus the network's delays, never less)",
       "IBTA Vol 1 §9.7.5.2.8 (RNR NAK: the requester waits the RNR NAK timer's time before retrying), Table 45 "
       "(RNR NAK timer field encodings); ibv_modify_qp(3) min_rnr_timer"},
      {"roce.duplicate_atomic", "roce",
       "a duplicate request is answered, not executed again: an atomic's answer to its duplicate carries the "
       "original value of its first execution (a SEND or WRITE duplicate is ACKed, a READ re-executed)",
       "IBTA Vol 1 §9.7.5.1 (responder: duplicate requests are acknowledged again; an atomic's from its saved "
       "result), §9.4 (atomic operations)"},
      {"roce.duplicate_packet", "roce",
       "a UC packet seen twice (the PSN and opcode of one already carried): a network that duplicates, whose copy "
       "the UC receiver drops as out of sequence, or a sender resending what UC never resends; one capture point "
       "cannot tell which",
       "IBTA Vol 1 §9.8.3 (UC: the receiver accepts only the expected PSN); a note on the capture, not on the "
       "devices", WireRule::kNote},
      {"roce.unplaced_reorder", "roce",
       "on a capture taken where the network may reorder (wire check --wire_reorders), a UC packet behind the "
       "PSNs already carried that no earlier packet carried: a network that delivered it late, or a sender "
       "going back; one capture point cannot tell which",
       "IBTA Vol 1 §9.8.3 (UC: PSNs only go forward; the receiver takes the next First or Only); a note on the "
       "capture, not on the devices", WireRule::kNote},
      {"roce.unplaced_loss", "roce",
       "a loss the capture shows is recovered where the capture can see it: a PSN gap that no NAK and no "
       "retransmission closes (the responder went on as if it had the packets, or the capture ended first), or "
       "a NAK for a PSN this capture saw arrive, is loss this capture point cannot place",
       "IBTA Vol 1 §9.7 (reliable service); a note on the capture, not on the devices", WireRule::kNote},
      // iWARP: MPA over TCP (RFC 5044, RFC 6581), DDP (RFC 5041), RDMAP (RFC 5040, RFC 7306).
      {"iwarp.mpa_startup", "iwarp",
       "the MPA request and reply (key, revision 1 or 2, reserved bits, private data length <= 512 and as sent, "
       "CRC flag) precede any DDP data, the initiator sends the first FPDU (the responder waits for it), and "
       "nothing follows a rejecting reply",
       "RFC 5044 §7 (connection setup: MPA request and reply frames); RFC 6581 (MPA revision 2)"},
      {"iwarp.mpa_crc", "iwarp", "when the MPA reply negotiated CRCs, every FPDU's CRC32c matches",
       "RFC 5044 §4 (FPDU format and CRC32c)"},
      {"iwarp.ddp_rdmap_opcode", "iwarp",
       "DDP and RDMAP versions are 1, the opcode is defined, tagged only for WRITE and READ response, and on the "
       "untagged queue the opcode belongs to",
       "RFC 5040 §4 (RDMAP header, opcodes, queue numbers); RFC 5041 §5 (DDP header); RFC 7306 (opcodes 8-11)"},
      {"iwarp.untagged_msn_mo", "iwarp",
       "per queue, each untagged message takes the next MSN, and its segments' MO advance by the bytes sent",
       "RFC 5041 §5 (untagged DDP header: QN, MSN, MO), §6 (data transfer)"},
      {"iwarp.tagged_write", "iwarp",
       "the segments of one RDMA WRITE keep their STag and continue its tagged offset",
       "RFC 5041 §5 (tagged DDP header), §6 (data transfer); RFC 5040 §5 (RDMA Write)"},
      {"iwarp.read_response", "iwarp",
       "READ responses answer the oldest outstanding READ request: its sink STag, offsets inside "
       "[sink TO, sink TO + size), contiguous, exactly its size",
       "RFC 5040 §4 (Read Request header), §5 (RDMA Read)"},
      {"iwarp.terminate", "iwarp",
       "a TERMINATE decodes to a defined layer, error type and code with its reserved bits clear, and is the "
       "last FPDU its sender sends",
       "RFC 5040 §4 (Terminate header and error codes), §7 (stream teardown); RFC 5041 §7 (DDP errors); RFC 5044 and RFC 6581 (LLP errors)"},
  };
  return *rules;
}

nlohmann::json WireRulesJson() {
  nlohmann::json rules = nlohmann::json::array();
  for (const WireRule& r : WireRules()) {
    rules.push_back({{"id", r.id},
                     {"transport", r.transport},
                     {"title", r.title},
                     {"reference", r.reference},
                     {"severity", r.severity}});
  }
  return rules;
}

const WireRule& WireRuleById(absl::string_view id) {
  for (const WireRule& rule : WireRules()) {
    if (rule.id == id) return rule;
  }
  static const WireRule unknown{"unknown", "", "a rule missing from WireRules()", "(none: add it to wire/rules.cc)"};
  return unknown;
}

}  // namespace rdmacheck
