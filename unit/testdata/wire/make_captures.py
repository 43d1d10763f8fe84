#!/usr/bin/env python3
"""Writes the synthetic captures `rdmacheck wire check` is unit-tested on.

  python3 unit/testdata/wire/make_captures.py [OUT_DIR]    (default: this script's folder)

Python 3 standard library only. Each capture is small (a few KB) and built from one
scenario function with knobs: the *_good captures follow every rule; each doctored capture
turns exactly one knob, so it breaks exactly one rule (the file name says which; the unit
test asserts that rule and no other is flagged).

RoCEv2: Ethernet / IPv4 / UDP 4791 / BTH (+ extended headers) / payload / pad / ICRC, the
ICRC computed as IBTA Annex A17.8 says (CRC-32 over 8 bytes of 0xFF standing for the LRH,
the IP header with TOS, TTL and checksum set to ones, the UDP header with its checksum set
to ones, the BTH with Resv8a set to ones, then the rest of the packet), stored little-endian
as rxe does.
iWARP: one TCP connection (handshake, MPA request and reply, then one FPDU per segment:
ULPDU length, DDP/RDMAP headers, payload, pad, CRC32c as RFC 5044 §4 says).
"""
import os
import struct
import sys
import zlib

# --- pcap ----------------------------------------------------------------------------

class Capture:
    def __init__(self):
        self.frames = []  # bytes of each Ethernet frame
        self.snaplen = 65535

    def add(self, frame):
        self.frames.append(frame)

    def write(self, path):
        with open(path, 'wb') as f:
            f.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, self.snaplen, 1))
            for i, frame in enumerate(self.frames):
                kept = frame[:self.snaplen]
                usec = 1000 * i  # one frame per millisecond
                f.write(struct.pack('<IIII', 1764000000 + usec // 1000000, usec % 1000000, len(kept), len(frame)))
                f.write(kept)


def ip_checksum(header):
    total = sum(struct.unpack('!%dH' % (len(header) // 2), header))
    while total >> 16:
        total = (total & 0xffff) + (total >> 16)
    return (~total) & 0xffff


def ipv4(src, dst, proto, payload, tos=0, ttl=64):
    header = struct.pack('!BBHHHBBH4s4s', 0x45, tos, 20 + len(payload), 0x1234, 0x4000, ttl, proto, 0,
                         bytes(src), bytes(dst))
    return header[:10] + struct.pack('!H', ip_checksum(header)) + header[12:] + payload


def ether(src_mac, dst_mac, payload, ethertype=0x0800):
    return bytes(dst_mac) + bytes(src_mac) + struct.pack('!H', ethertype) + payload


def ipv6(src, dst, proto, payload, traffic_class=0, flow=0x12345, hops=64):
    return struct.pack('!IHBB16s16s', (6 << 28) | (traffic_class << 20) | flow, len(payload), proto, hops,
                       bytes(src), bytes(dst)) + payload


class Host:
    def __init__(self, n):
        self.mac = [0x52, 0x54, 0x00, 0x88, 0x00, n]
        self.ip = [10, 88, 0, n]
        self.ip6 = [0xfe, 0x80] + [0] * 12 + [0, n]  # fe80::N


A, B = Host(1), Host(2)

# --- RoCEv2 ----------------------------------------------------------------------------

ROCE_PORT = 4791
PMTU = 256

# Opcodes (IBTA Vol 1 §9.2, table of BTH opcodes); the UC and UD values are RC's + 0x20/0x60.
SEND_FIRST, SEND_MIDDLE, SEND_LAST, SEND_ONLY = 0x00, 0x01, 0x02, 0x04
WRITE_FIRST, WRITE_MIDDLE, WRITE_LAST, WRITE_ONLY = 0x06, 0x07, 0x08, 0x0a
READ_REQUEST, READ_RESP_FIRST, READ_RESP_MIDDLE, READ_RESP_LAST, READ_RESP_ONLY = 0x0c, 0x0d, 0x0e, 0x0f, 0x10
WRITE_LAST_IMM = 0x09
ACK, ATOMIC_ACK, FETCH_ADD = 0x11, 0x12, 0x14
UC, UD = 0x20, 0x60


def icrc(ip_udp_ib):
    """IBTA A17.8: CRC-32 over the masked pseudo-header and the packet, without the ICRC."""
    b = bytearray(ip_udp_ib)
    if b[0] >> 4 == 6:
        b[0:4] = b'\x6f\xff\xff\xff'  # IPv6 traffic class and flow label
        b[7] = 0xff                  # hop limit
        ip_len = 40
    else:
        b[1] = 0xff                  # IPv4 TOS
        b[8] = 0xff                  # TTL
        b[10:12] = b'\xff\xff'       # header checksum
        ip_len = 20
    b[ip_len + 6:ip_len + 8] = b'\xff\xff'  # UDP checksum
    b[ip_len + 8 + 4] = 0xff                # BTH Resv8a
    return zlib.crc32(b'\xff' * 8 + bytes(b)) & 0xffffffff


def roce(src, dst, opcode, psn, destqp, payload=b'', ack_req=False, pkey=0xffff, sport=49152, dport=ROCE_PORT,
         reth=None, aeth=None, deth=None, atomic=None, atomic_ack=None, bad_icrc=False, v6=False):
    pad = (4 - len(payload) % 4) % 4
    bth = struct.pack('!BBHI', opcode, (pad << 4) | 0x40 | 0x00, pkey, destqp & 0xffffff)  # M=1, TVer=0
    bth += struct.pack('!I', (0x80000000 if ack_req else 0) | (psn & 0xffffff))
    ext = b''
    if deth:
        ext += struct.pack('!II', deth[0], deth[1] & 0xffffff)
    if reth:
        ext += struct.pack('!QII', *reth)            # VA, R_Key, DMA length
    if atomic:
        ext += struct.pack('!QIQQ', *atomic)         # VA, R_Key, swap/add, compare
    if aeth is not None:
        ext += struct.pack('!I', (aeth[0] << 24) | (aeth[1] & 0xffffff))  # syndrome, MSN
    if atomic_ack is not None:
        ext += struct.pack('!Q', atomic_ack)
    ib = bth + ext + payload + b'\x00' * pad
    udp = struct.pack('!HHHH', sport, dport, 8 + len(ib) + 4, 0)
    ip = (lambda p: ipv6(src.ip6, dst.ip6, 17, p)) if v6 else (lambda p: ipv4(src.ip, dst.ip, 17, p))
    packet = ip(udp + ib + b'\0\0\0\0')[:-4]
    crc = icrc(packet)
    if bad_icrc:
        crc ^= 0x00010000
    return ether(src.mac, dst.mac, packet + struct.pack('<I', crc), 0x86dd if v6 else 0x0800)


QP_A, QP_B = 0x000011, 0x000012


def rc_pair(cap):
    """req(...) adds a request A -> B (QP 0x12), rsp(...) a response B -> A (QP 0x11)."""
    def req(opcode, psn, payload=b'', ack_req=False, **kw):
        kw.setdefault('pkey', 0xffff)
        cap.add(roce(A, B, opcode, psn, QP_B, payload, ack_req, **kw))

    def rsp(opcode, psn, msn, syndrome=0x1f, payload=b'', destqp=QP_A, **kw):
        aeth = (syndrome, msn) if opcode in (ACK, ATOMIC_ACK, READ_RESP_FIRST, READ_RESP_LAST, READ_RESP_ONLY) else None
        cap.add(roce(B, A, opcode, psn, destqp, payload, False, aeth=aeth, **kw))
    return req, rsp


def roce_capture(knob=None, snaplen=65535):
    """One RC connection A(QP 0x11) <-> B(QP 0x12) using every RC opcode family, a UC write and a
    UD send. `knob` names the one rule the capture breaks (None: none)."""
    cap = Capture()
    cap.snaplen = snaplen
    k = knob
    req, rsp = rc_pair(cap)

    p = 100
    # SEND Only, ACKed.
    req(SEND_ONLY, p, b'a' * 100, True, bad_icrc=(k == 'icrc'))
    if k == 'udp_port':   # the responder answers to the requester's source port, not to 4791
        rsp(ACK, p, 1, sport=ROCE_PORT, dport=49152)
    else:
        rsp(ACK, p, 1)
    # SEND of three packets: First and Middle carry exactly the PMTU.
    req(SEND_FIRST, p + 1, b'b' * (200 if k == 'payload_size' else PMTU))
    req(WRITE_MIDDLE if k == 'opcode_sequence' else SEND_MIDDLE, p + 2, b'c' * PMTU)
    req(SEND_LAST, p + 3, b'd' * 50, k != 'ackreq')
    rsp(ACK, p + 3, 2, syndrome=0x45 if k == 'aeth_syndrome' else 0x1f,
        destqp=0x99 if k == 'destqp' else QP_A)
    # RDMA WRITE of 600 bytes: First (RETH), Middle, Last.
    req(WRITE_FIRST, p + 4, b'e' * PMTU, reth=(0x7f0000001000, 0x1234, 600))
    req(WRITE_MIDDLE, p + 5, b'f' * PMTU, pkey=0x8001 if k == 'pkey' else 0xffff)
    req(WRITE_LAST, p + 6, b'g' * 88, True)
    # Two WRITE Only, acknowledged by one coalesced ACK (MSN advances by two).
    req(WRITE_ONLY, p + 7, b'h' * 10, True, reth=(0x7f0000002000, 0x1234, 10))
    req(WRITE_ONLY, p + 8, b'i' * 12, True, reth=(0x7f0000003000, 0x1234, 12))
    rsp(ACK, p + 8, 6 if k == 'ack_msn' else 5)
    # READ of 600 bytes: three response packets, so it consumes PSNs p+9..p+11.
    read_psn = p + 9
    req(READ_REQUEST, read_psn, ack_req=True, reth=(0x7f0000004000, 0x5678, 600))
    rsp(READ_RESP_FIRST, read_psn, 6, payload=b'j' * PMTU)
    rsp(READ_RESP_MIDDLE, read_psn + 1, 6, payload=b'k' * PMTU)
    rsp(READ_RESP_LAST, read_psn + 2, 6, payload=b'l' * (100 if k == 'read_response' else 88))
    # The next request skips the PSNs the READ consumed (an 'unplaced_loss' knob skips one
    # more, which the ACK after it covers: no NAK, no retransmission, a loss this capture
    # cannot place).
    p = read_psn + 3 + (1 if k == 'unplaced_loss' else 0)
    # READ of 8 bytes: one response packet.
    req(READ_REQUEST, p, ack_req=True, reth=(0x7f0000005000, 0x5678, 8))
    if k == 'rnr_nak':  # an RNR NAK for the READ (rxe's answer when its host refuses the response), the READ again
        rsp(ACK, p, 7, syndrome=0x21)
        req(READ_REQUEST, p, ack_req=True, reth=(0x7f0000005000, 0x5678, 8))
    rsp(READ_RESP_ONLY, p, 7, payload=b'm' * 8)
    # Fetch&Add, answered by an Atomic ACK.
    req(FETCH_ADD, p + 1, ack_req=True, atomic=(0x7f0000006000, 0x5678, 1, 0))
    rsp(ATOMIC_ACK, p + 1, 8, atomic_ack=41)
    # RNR NAK, then the SEND retransmitted with the same PSN and ACKed.
    req(SEND_ONLY, p + 2, b'n' * 16, True)
    # RNR NAK, timer 1 (0.01 ms: the resend a frame later waited long enough); an
    # 'rnr_timer' knob asks for timer 16 (2.56 ms), which the resend 1 ms later did not wait.
    rsp(ACK, p + 2, 8, syndrome=0x20 | (16 if k == 'rnr_timer' else 1))
    req(SEND_ONLY, p + 2, b'n' * 16, True)
    rsp(ACK, p + 2, 9)
    # B requests too: its PSN space is its own.
    cap.add(roce(B, A, SEND_ONLY, 5000, QP_A, b'o' * 20, True))
    cap.add(roce(A, B, ACK, 5000, QP_B, aeth=(0x1f, 1)))
    # UC RDMA WRITE of two packets (no ACKs on UC), and a UD SEND (DETH).
    cap.add(roce(A, B, UC | WRITE_FIRST, 700, 0x21, b'p' * PMTU, reth=(0x7f0000007000, 0x99, 300)))
    if k == 'uc_duplicate':  # the network repeats the First (netem's duplicate)
        cap.add(roce(A, B, UC | WRITE_FIRST, 700, 0x21, b'p' * PMTU, reth=(0x7f0000007000, 0x99, 300)))
    cap.add(roce(A, B, UC | WRITE_LAST, 701, 0x21, b'q' * 44))
    if k == 'uc_reorder':  # netem's reorder: a UC SEND overtaken by the next one
        cap.add(roce(A, B, UC | SEND_ONLY, 801, 0x22, b't' * 16))
        cap.add(roce(A, B, UC | SEND_ONLY, 800, 0x22, b't' * 16))
    cap.add(roce(A, B, UD | SEND_ONLY, 9, 0x31, b'r' * 64, deth=(0x11111111, 0x32)))
    # The same over IPv6 (link-local GIDs): its ICRC masks traffic class, flow label, hop limit.
    cap.add(roce(A, B, UD | SEND_ONLY, 10, 0x31, b's' * 32, deth=(0x11111111, 0x32), v6=True))
    # A second connection, path MTU 512, whose PSNs overlap the first's (as when every QP starts
    # at the same PSN). It begins with a READ, before any packet shows its path MTU, so the
    # PSNs that READ takes are known only when the next request comes — here sent while the
    # first READ's response is still arriving.
    cap.add(roce(A, B, READ_REQUEST, 100, 0x14, ack_req=True, reth=(0x7f0000008000, 0x77, 1200)))
    cap.add(roce(B, A, READ_RESP_FIRST, 100, 0x13, b'J' * 512, aeth=(0x1f, 1)))
    cap.add(roce(A, B, READ_REQUEST, 103, 0x14, ack_req=True, reth=(0x7f0000009000, 0x77, 512)))
    cap.add(roce(B, A, READ_RESP_MIDDLE, 101, 0x13, b'K' * 512))
    cap.add(roce(B, A, READ_RESP_LAST, 102, 0x13, b'L' * 176, aeth=(0x1f, 1)))
    cap.add(roce(B, A, READ_RESP_ONLY, 103, 0x13, b'M' * 512, aeth=(0x1f, 2)))
    # An ICMP port unreachable quoting the head of a RoCEv2 packet is not a RoCEv2 packet.
    cap.add(icmp_unreachable(B, A, cap.frames[0][14:14 + 60]))
    return cap


def icmp_unreachable(src, dst, quoted):
    body = struct.pack('!BBHI', 3, 3, 0, 0) + quoted
    body = body[:2] + struct.pack('!H', ip_checksum(body + b'\0' * (len(body) % 2))) + body[4:]
    return ether(src.mac, dst.mac, ipv4(src.ip, dst.ip, 1, body))


def roce_sequence_capture(knob=None):
    """PSNs and MSNs around a READ (issue 26, classes 5 and 6): a WRITE that shows the path
    MTU, a SEND, a READ of 600 bytes taking PSNs p+4..p+6, then a SEND at p+7. Knobs:
    psn_read_reuse     the SEND takes p+5, a PSN the READ's responses consumed
    psn_retransmit     a WRITE goes back to p+3, which carried a SEND: no retransmission
    ack_msn_missed     the responder misses one MSN increment and counts on from there:
                       one fault, one roce.ack_msn (not one per later ACK)
    read_replay        the READ is re-sent from p+5 and its response replayed from the
                       middle (Middle, Last; no First): one roce.read_response for the replay"""
    cap = Capture()
    k = knob
    req, rsp = rc_pair(cap)
    lag = 1 if k == 'ack_msn_missed' else 0
    p = 100
    req(WRITE_FIRST, p, b'a' * PMTU, reth=(0x7f0000001000, 0x1234, 600))
    req(WRITE_MIDDLE, p + 1, b'b' * PMTU)
    req(WRITE_LAST, p + 2, b'c' * 88, True)
    rsp(ACK, p + 2, 1)
    req(SEND_ONLY, p + 3, b'd' * 10, True)
    rsp(ACK, p + 3, 2 - lag)
    req(READ_REQUEST, p + 4, ack_req=True, reth=(0x7f0000004000, 0x5678, 600))
    rsp(READ_RESP_FIRST, p + 4, 2 - lag, payload=b'e' * PMTU)
    rsp(READ_RESP_MIDDLE, p + 5, 2 - lag, payload=b'f' * PMTU)
    if k == 'read_replay':  # the Last is lost; the READ is re-sent from p+5 and answered
        req(READ_REQUEST, p + 5, ack_req=True, reth=(0x7f0000004100, 0x5678, 344))
        rsp(READ_RESP_MIDDLE, p + 5, 2, payload=b'f' * PMTU)  # as rxe replays it: no First
    rsp(READ_RESP_LAST, p + 6, 3 - lag, payload=b'g' * 88)
    nxt = p + 5 if k == 'psn_read_reuse' else p + 7
    req(SEND_ONLY, nxt, b'h' * 12, True)
    rsp(ACK, nxt, 4 - lag)
    if k == 'psn_retransmit':
        req(WRITE_ONLY, p + 3, b'i' * 8, True, reth=(0x7f0000002000, 0x1234, 8))
    return cap


# CM MADs (IBTA Vol 1 §12.6, §13.4): class 0x07, method Send, on QP1 as a UD SEND Only.
CM_REQ, CM_REP, CM_RTU, CM_DREQ, CM_DREP = 0x0010, 0x0013, 0x0014, 0x0015, 0x0016


def cm_mad(src, dst, attribute, data, tid, psn):
    mad = struct.pack('!BBBBHHQHHI', 1, 0x07, 2, 0x03, 0, 0, tid, attribute, 0, 0) + data.ljust(232, b'\0')
    return roce(src, dst, UD | SEND_ONLY, psn, 1, mad, deth=(0x80010000, 1))


def cm_req(comm_id, qpn, start_psn):
    """REQ: Local Comm ID, Service ID, CA GUID, Q_Key, Local QPN, Starting PSN, P_Key."""
    return struct.pack('!IIQQIIIIIIH', comm_id, 0, 0x0106000000004791, 0x5254000088000001, 0, 0,
                       qpn << 8 | 1, 1, 0x10 << 3 | 0 << 1, start_psn << 8 | 0x10 << 3 | 7, 0xffff)


def cm_rep(comm_id, remote_id, qpn, start_psn):
    """REP: Local and Remote Comm ID, Q_Key, Local QPN, EECN, Starting PSN."""
    return struct.pack('!IIIIII', comm_id, remote_id, 0, qpn << 8, 0, start_psn << 8)


def roce_cm_capture(knob=None):
    """Connection boundaries (issue 26, class 4): A (QP 0x11) connects to B (QP 0x12) with a CM
    REQ/REP/RTU, SENDs both ways, disconnects (DREQ/DREP), then connects again with the same QP
    numbers and new starting PSNs. Knobs:
    cm_start_psn        the second connection's first request comes before the starting PSN the REQ
                        gave (one after it is loss of the first, judged by the recovery rules)
    ack_before_request  B acknowledges PSN start-1 (0x0001ff) before A sent any request on it"""
    cap = Capture()
    k = knob
    req, rsp = rc_pair(cap)
    tid = [0x1000]

    def cm(src, dst, attribute, data):
        tid[0] += 1
        cap.add(cm_mad(src, dst, attribute, data, tid[0], tid[0] & 0xffffff))

    for n, (a_start, b_start) in enumerate([(100, 5000), (0x200, 0x300)]):
        # Each Starting PSN is where the peer's requests start (as Linux's ib_cm puts it on
        # the wire): A's requests start at the REP's PSN, B's at the REQ's.
        cm(A, B, CM_REQ, cm_req(0x100 + n, QP_A, b_start))
        cm(B, A, CM_REP, cm_rep(0x200 + n, 0x100 + n, QP_B, a_start))
        cm(A, B, CM_RTU, struct.pack('!II', 0x100 + n, 0x200 + n))
        if n == 1 and k == 'ack_before_request':
            rsp(ACK, a_start - 1, 0)
        first = a_start - (1 if n == 1 and k == 'cm_start_psn' else 0)
        req(SEND_ONLY, first, b'a' * 20, True)
        rsp(ACK, first, 1)
        cap.add(roce(B, A, SEND_ONLY, b_start, QP_A, b'b' * 24, True))
        cap.add(roce(A, B, ACK, b_start, QP_B, aeth=(0x1f, 1)))
        if n == 0:
            cm(A, B, CM_DREQ, struct.pack('!III', 0x100, 0x200, QP_B << 8))
            cm(B, A, CM_DREP, struct.pack('!II', 0x200, 0x100))
    return cap


def grh(src, dst, payload_len, hops=64):
    """IBTA Vol 1 §8.3 GRH: IPVer 6, TClass 0, FlowLabel 0, PayLen, NxtHdr 0x1B (IBA), HopLmt, GIDs."""
    return struct.pack('!IHBB16s16s', 6 << 28, payload_len, 0x1b, hops, bytes(src.ip6), bytes(dst.ip6))


def as_rocev1(frame):
    """The RoCEv2 frame's InfiniBand part behind a GRH, Ethernet type 0x8915 (RoCEv1), its
    ICRC computed over the GRH as IBTA A16 says (LRH as 8 bytes of ones; the GRH's traffic
    class, flow label and hop limit, and BTH Resv8a, masked)."""
    src = A if frame[6:12] == bytes(A.mac) else B
    dst = B if src is A else A
    ib = frame[14 + 20 + 8:-4]
    g = grh(src, dst, len(ib) + 4)
    masked = bytearray(g + ib)
    masked[0:4] = b'\x6f\xff\xff\xff'
    masked[7] = 0xff
    masked[40 + 4] = 0xff
    crc = zlib.crc32(b'\xff' * 8 + bytes(masked)) & 0xffffffff
    return ether(src.mac, dst.mac, g + ib + struct.pack('<I', crc), 0x8915)


def rocev1_capture():
    """The good RC connection as RoCEv1 (issue 26, class 2): the same transport rules hold."""
    cap = Capture()
    for frame in roce_capture().frames:
        ethertype = struct.unpack('!H', frame[12:14])[0]
        if ethertype == 0x0800 and frame[14 + 9] == 17:  # IPv4/UDP: RoCEv2
            cap.add(as_rocev1(frame))
    return cap


def tunnel_capture(geneve=False):
    """The good capture with every frame inside VXLAN (UDP 4789, RFC 7348) or Geneve (UDP
    6081, RFC 8926) between two tunnel endpoints (issue 26, class 9): the ICRC covers the
    inner IP and UDP headers."""
    cap = Capture()
    outer_a = Host(101)
    outer_b = Host(102)
    for frame in roce_capture().frames:
        if geneve:  # version 0, no options, protocol Transparent Ethernet Bridging, VNI 42
            inner, port = struct.pack('!HHI', 0, 0x6558, 42 << 8) + frame, 6081
        else:       # I flag, VNI 42
            inner, port = struct.pack('!II', 0x08000000, 42 << 8) + frame, 4789
        udp = struct.pack('!HHHH', 51000, port, 8 + len(inner), 0)
        cap.add(ether(outer_a.mac, outer_b.mac, ipv4(outer_a.ip, outer_b.ip, 17, udp + inner)))
    return cap


ROCE_KNOBS = ['udp_port', 'icrc', 'unplaced_loss', 'opcode_sequence', 'payload_size', 'ackreq', 'aeth_syndrome', 'ack_msn',
              'read_response', 'destqp', 'pkey', 'uc_duplicate', 'uc_reorder', 'rnr_timer', 'rnr_nak']

def roce_recovery_capture(knob=None):
    """RC recovery on a lossy wire (issue 34, item 3). A packet lost is lost before the
    capture (as netem drops it in the sending guest), so it is simply not in it:
    1. go-back-N: a WRITE of three packets loses its First (101); B NAKs PSN 101 (sequence
       error) once, drops 103 silently, and A resends 101..103;
    2. timer: a SEND's ACK is lost and A's timer sends it again, answered as a duplicate;
       then a SEND of two packets loses its First and B's NAK: A's timer resends both;
    3. an atomic whose ACK crossed A's timer: B answers the duplicate from its saved value;
    4. a SEND whose ACKs are lost sent twice (one retry), then ACKed.
    Knobs (each breaks one rule):
    seq_nak_psn             B's NAK names PSN 102, not the first missing 101    roce.seq_nak
    seq_nak_twice           B NAKs 101 again after 103                           roce.seq_nak
    retransmission_payload  A resends 102 with other bytes                       roce.retransmission
    retransmission_opcode   A resends 103 as WRITE Last with Immediate           roce.retransmission
    retransmission_length   A resends 103 one byte short                         roce.retransmission
    retry_count             the SEND of step 4 is sent 9 times (retry_cnt 7 + 2) roce.retry_count
    duplicate_atomic        B answers the duplicate atomic with another value    roce.duplicate_atomic"""
    cap = Capture()
    k = knob
    req, rsp = rc_pair(cap)
    write = (0x7f0000001000, 0x1234, 600)
    req(SEND_ONLY, 100, b'a' * 20, True)
    rsp(ACK, 100, 1)
    # 1. 101 (WRITE First) is lost.
    req(WRITE_MIDDLE, 102, b'c' * PMTU)
    rsp(ACK, 102 if k == 'seq_nak_psn' else 101, 1, syndrome=0x60)  # NAK: PSN sequence error
    req(WRITE_LAST, 103, b'd' * 88, True)
    if k == 'seq_nak_twice':
        rsp(ACK, 101, 1, syndrome=0x60)
    req(WRITE_FIRST, 101, b'b' * PMTU, reth=write)
    req(WRITE_MIDDLE, 102, (b'C' if k == 'retransmission_payload' else b'c') * PMTU)
    if k == 'retransmission_opcode':
        req(WRITE_LAST_IMM, 103, b'\0\0\0\x07' + b'd' * 88, True)
    else:
        req(WRITE_LAST, 103, b'd' * (87 if k == 'retransmission_length' else 88), True)
    rsp(ACK, 103, 2)
    # 2. The ACK of 104 is lost: A's timer sends it again; B ACKs the duplicate.
    req(SEND_ONLY, 104, b'e' * 30, True)
    req(SEND_ONLY, 104, b'e' * 30, True)
    rsp(ACK, 104, 3)
    # 105 (SEND First) and B's NAK for it are lost: A's timer resends from 105.
    req(SEND_LAST, 106, b'g' * 10, True)
    req(SEND_FIRST, 105, b'f' * PMTU)
    req(SEND_LAST, 106, b'g' * 10, True)
    rsp(ACK, 106, 4)
    # 3. The atomic's ACK crossed A's retransmission of it.
    atomic = (0x7f0000006000, 0x5678, 1, 0)
    req(FETCH_ADD, 107, ack_req=True, atomic=atomic)
    rsp(ATOMIC_ACK, 107, 5, atomic_ack=41)
    req(FETCH_ADD, 107, ack_req=True, atomic=atomic)
    rsp(ATOMIC_ACK, 107, 5, atomic_ack=42 if k == 'duplicate_atomic' else 41)
    # 4. B's ACKs of 108 are lost until the last send.
    for _ in range(9 if k == 'retry_count' else 2):
        req(SEND_ONLY, 108, b'h' * 8, True)
    rsp(ACK, 108, 6)
    return cap


RECOVERY_KNOBS = ['seq_nak_psn', 'seq_nak_twice', 'retransmission_payload', 'retransmission_opcode',
                  'retransmission_length', 'retry_count', 'duplicate_atomic']


# --- iWARP -----------------------------------------------------------------------------

def crc32c(data):
    crc = 0xffffffff
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82f63b78 if crc & 1 else 0)
    return crc ^ 0xffffffff


class TcpFlow:
    """One direction of a TCP connection: keeps the sequence number."""

    def __init__(self, src, dst, sport, dport, isn):
        self.src, self.dst, self.sport, self.dport, self.seq = src, dst, sport, dport, isn
        self.peer = None

    def segment(self, payload=b'', flags=0x18):  # PSH|ACK
        ack = self.peer.seq if self.peer else 0
        tcp = struct.pack('!HHIIBBHHH', self.sport, self.dport, self.seq, ack, 5 << 4, flags, 65535, 0, 0)
        self.seq = (self.seq + len(payload) + (1 if flags & 0x03 else 0)) & 0xffffffff
        return ether(self.src.mac, self.dst.mac, ipv4(self.src.ip, self.dst.ip, 6, tcp + payload))


def mpa_frame(key, crc, pd, rev=2, pd_len=None):
    flags = (0x40 if crc else 0) | (0x10 if rev == 2 else 0)  # M=0, C, R=0; revision 2: P (RFC 6581)
    return key + struct.pack('!BBH', flags, rev, len(pd) if pd_len is None else pd_len) + pd


MPA_REQ_KEY, MPA_REP_KEY = b'MPA ID Req Frame', b'MPA ID Rep Frame'

# RDMAP opcodes (RFC 5040 §4.2) and DDP queue numbers (RFC 5040 §5.1).
RD_WRITE, RD_READ_REQ, RD_READ_RESP, RD_SEND, RD_TERMINATE = 0, 1, 2, 3, 7


def fpdu(ddp_rdmap, payload=b'', bad_crc=False):
    """MPA FPDU: ULPDU length, ULPDU, pad to 4, CRC32c (RFC 5044 §4)."""
    ulpdu = ddp_rdmap + payload
    body = struct.pack('!H', len(ulpdu)) + ulpdu
    body += b'\0' * ((4 - len(body) % 4) % 4)
    crc = crc32c(body) ^ (1 if bad_crc else 0)
    return body + struct.pack('<I', crc)  # sent least significant byte first, as siw does


def untagged(opcode, qn, msn, mo, last, rsvdulp=0):
    ddp_ctrl = (0x40 if last else 0) | 0x01            # T=0, L, DV=1
    rdmap_ctrl = 0x40 | opcode                         # RV=1
    return struct.pack('!BBIIII', ddp_ctrl, rdmap_ctrl, rsvdulp, qn, msn, mo)


def tagged(opcode, stag, to, last):
    return struct.pack('!BBIQ', 0x80 | (0x40 if last else 0) | 0x01, 0x40 | opcode, stag, to)


def iwarp_capture(knob=None, snaplen=65535):
    """One iWARP connection, initiator A to responder B: MPA request/reply with CRCs, then
    Sends, an RDMA Write in two segments, an RDMA Read and its response, a Send from B and a
    Terminate from B. `knob` names the one rule the capture breaks (None: none)."""
    cap = Capture()
    cap.snaplen = snaplen
    k = knob
    a = TcpFlow(A, B, 40000, 4791 + 1000, 1000)
    b = TcpFlow(B, A, 4791 + 1000, 40000, 5000)
    cap.add(a.segment(flags=0x02))             # SYN
    b.peer = a
    cap.add(b.segment(flags=0x12))             # SYN ACK
    a.peer = b
    cap.add(a.segment(flags=0x10))             # ACK
    # Revision 2 (as siw sends it): the private data starts with IRD/ORD (RFC 6581 §3).
    cap.add(a.segment(mpa_frame(MPA_REQ_KEY, True, b'\x00\x01\x00\x01abcd')))
    early_send = fpdu(untagged(RD_SEND, 0, 1, 0, True), b'early')
    if k == 'mpa_startup':                     # the initiator does not wait for the reply
        cap.add(a.segment(early_send))
    cap.add(b.segment(mpa_frame(MPA_REP_KEY, True, b'\x00\x01\x00\x01wxyz')))
    msn = 1
    if k == 'mpa_first_fpdu':                  # the responder sends before the initiator did
        cap.add(b.segment(fpdu(untagged(RD_SEND, 0, 1, 0, True), b'too early')))
    if k != 'mpa_startup':
        cap.add(a.segment(early_send))
    msn += 1
    # A Send in two segments: MO advances by the first segment's length.
    cap.add(a.segment(fpdu(untagged(RD_SEND, 0, msn, 0, False), b's' * 100)))
    cap.add(a.segment(fpdu(untagged(RD_SEND, 0, msn, 90 if k == 'untagged_msn_mo' else 100, True), b't' * 50,
                           bad_crc=(k == 'mpa_crc'))))
    msn += 1
    # Two Sends in one TCP segment.
    cap.add(a.segment(fpdu(untagged(RD_SEND, 0, msn, 0, True), b'p' * 12) +
                      fpdu(untagged(RD_SEND, 0, msn + 1, 0, True), b'q' * 16)))
    msn += 2
    # TCP sends that segment again (a retransmission: the rules read the first copy only).
    cap.add(cap.frames[-1])
    # A Send with a reserved opcode (RFC 5040 §4.2 defines 0..7, RFC 7306 8..11).
    cap.add(a.segment(fpdu(untagged(13 if k == 'ddp_rdmap_opcode' else RD_SEND, 0, msn, 0, True), b'u' * 8)))
    # RDMA Write in two tagged segments: same STag, the offset advancing by the segment length.
    cap.add(a.segment(fpdu(tagged(RD_WRITE, 0x1000, 0x10000, False), b'w' * 100)))
    cap.add(a.segment(fpdu(tagged(RD_WRITE, 0x1000, 0x10000 + (120 if k == 'tagged_write' else 100), True),
                           b'x' * 40)))
    # RDMA Read: A asks for 150 bytes into its STag 0x2000 at 0x5000; B answers in two segments.
    rr = struct.pack('!IQIIQ', 0x2000, 0x5000, 150, 0x3000, 0x0)
    cap.add(a.segment(fpdu(untagged(RD_READ_REQ, 1, 1, 0, True) + rr)))
    cap.add(b.segment(fpdu(tagged(RD_READ_RESP, 0x2000, 0x5000, False), b'y' * 100)))
    cap.add(b.segment(fpdu(tagged(RD_READ_RESP, 0x2000, 0x5000 + (110 if k == 'read_response' else 100), True),
                           b'z' * 50)))
    # B sends, then terminates the connection (DDP layer, tagged buffer error, invalid STag).
    cap.add(b.segment(fpdu(untagged(RD_SEND, 0, 2 if k == 'mpa_first_fpdu' else 1, 0, True), b'from b')))
    term = struct.pack('!I', (1 << 28) | (1 << 24) | (0 << 16))
    if k == 'terminate':
        # What siw 6.1 sent on the wire lab's link: DDP (1), untagged buffer error (2), code 2,
        # M and D set, written with little-endian bitfields: the layer and error type nibbles
        # swapped (it reads as LLP, error type 1) and M/D in the reserved bits.
        term = struct.pack('!I', 0x21020300)
    if k == 'terminate_reserved':  # a defined layer, type and code, but reserved bits set
        term = struct.pack('!I', 0x11000300)
    if k == 'terminate_llp':  # as cxgb4 sends an MPA CRC error: layer LLP (2), type 3, code 0x02
        term = struct.pack('!I', (2 << 28) | (3 << 24) | (0x02 << 16))
    cap.add(b.segment(fpdu(untagged(RD_TERMINATE, 2, 1, 0, True) + term)))
    return cap


def iwarp_retransmit_capture():
    """The good iWARP connection with every data segment after the MPA exchange sent twice by
    TCP (same sequence numbers): TCP recovers for iWARP, and the rules read each FPDU once."""
    cap = Capture()
    for i, frame in enumerate(iwarp_capture().frames):
        cap.add(frame)
        if i >= 5 and len(frame) > 14 + 20 + 20:
            cap.add(frame)
    return cap


def iwarp_out_of_order_capture():
    """The good iWARP connection as a lossy wire shows it (netem on the sender, the capture
    after it): the first segment of the two-segment Send is lost, the second arrives, and
    TCP's retransmission of the first comes after it. The bytes are read in TCP order, so
    the MSNs and MOs are as sent."""
    cap = Capture()
    frames = iwarp_capture().frames
    for i, frame in enumerate(frames):
        if i == 6:
            continue
        cap.add(frame)
        if i == 7:
            cap.add(frames[6])
    return cap


IWARP_KNOBS = ['mpa_startup', 'mpa_first_fpdu', 'mpa_crc', 'ddp_rdmap_opcode', 'untagged_msn_mo', 'tagged_write', 'read_response',
               'terminate', 'terminate_reserved']


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    os.makedirs(out, exist_ok=True)
    roce_capture().write(os.path.join(out, 'roce_good.pcap'))
    roce_capture(snaplen=96).write(os.path.join(out, 'roce_good_snaplen96.pcap'))
    for k in ROCE_KNOBS:
        roce_capture(k).write(os.path.join(out, 'roce_bad_%s.pcap' % k))
    roce_sequence_capture().write(os.path.join(out, 'roce_good_sequence.pcap'))
    for k in ['psn_read_reuse', 'psn_retransmit', 'ack_msn_missed', 'read_replay']:
        roce_sequence_capture(k).write(os.path.join(out, 'roce_bad_%s.pcap' % k))
    roce_cm_capture().write(os.path.join(out, 'roce_good_cm.pcap'))
    for k in ['cm_start_psn', 'ack_before_request']:
        roce_cm_capture(k).write(os.path.join(out, 'roce_bad_%s.pcap' % k))
    roce_recovery_capture().write(os.path.join(out, 'roce_good_recovery.pcap'))
    for k in RECOVERY_KNOBS:
        roce_recovery_capture(k).write(os.path.join(out, 'roce_bad_%s.pcap' % k))
    rocev1_capture().write(os.path.join(out, 'rocev1_good.pcap'))
    tunnel_capture().write(os.path.join(out, 'roce_good_vxlan.pcap'))
    tunnel_capture(geneve=True).write(os.path.join(out, 'roce_good_geneve.pcap'))
    iwarp_capture().write(os.path.join(out, 'iwarp_good.pcap'))
    iwarp_capture(snaplen=80).write(os.path.join(out, 'iwarp_good_snaplen80.pcap'))
    iwarp_capture('terminate_llp').write(os.path.join(out, 'iwarp_good_terminate_llp.pcap'))
    iwarp_retransmit_capture().write(os.path.join(out, 'iwarp_good_tcp_retransmit.pcap'))
    iwarp_out_of_order_capture().write(os.path.join(out, 'iwarp_good_out_of_order.pcap'))
    for k in IWARP_KNOBS:
        iwarp_capture(k).write(os.path.join(out, 'iwarp_bad_%s.pcap' % k))


if __name__ == '__main__':
    main()
