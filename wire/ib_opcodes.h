// The BTH OpCode table (IBTA Vol 1 §9.2): for each opcode, the service (top three bits),
// the operation, where the packet sits in its message, and how many bytes of extended
// transport headers follow the BTH — what the checks need to read a packet's role and its
// payload length from the UDP length even when the capture cut the packet short.
#ifndef RDMACHECK_WIRE_IB_OPCODES_H_
#define RDMACHECK_WIRE_IB_OPCODES_H_

#include <cstdint>
#include <string>

namespace rdmacheck {

enum class IbService { kRc, kUc, kRd, kUd, kCnp, kXrc, kUnknown };
enum class IbOp { kSend, kWrite, kReadRequest, kReadResponse, kAck, kAtomicAck, kAtomic, kFlush, kAtomicWrite, kCnp,
                  kReserved };
enum class IbPosition { kFirst, kMiddle, kLast, kOnly };

struct IbOpcode {
  uint8_t value = 0;
  IbService service = IbService::kUnknown;
  IbOp op = IbOp::kReserved;
  IbPosition position = IbPosition::kOnly;
  int header_bytes = 0;  // extended transport headers between the BTH and the payload
  std::string name;      // "RC SEND First", "UD SEND Only with Immediate", "opcode 0x15 (reserved)"

  bool defined() const { return op != IbOp::kReserved; }
  // Sent by a requester (else by a responder: ACKs, READ responses, atomic ACKs).
  bool request() const {
    return op == IbOp::kSend || op == IbOp::kWrite || op == IbOp::kReadRequest || op == IbOp::kAtomic ||
           op == IbOp::kFlush || op == IbOp::kAtomicWrite;
  }
  // The packet ends a message (Last, Only, and every single-packet request).
  bool ends_message() const { return position == IbPosition::kLast || position == IbPosition::kOnly; }
  bool has_aeth() const;
};

IbOpcode DescribeOpcode(uint8_t opcode);

// "RC", "UC", "RD", "UD", "CNP", "XRC", "?".
const char* ServiceName(IbService service);

}  // namespace rdmacheck

#endif  // RDMACHECK_WIRE_IB_OPCODES_H_
