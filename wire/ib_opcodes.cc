#include "wire/ib_opcodes.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace rdmacheck {
namespace {

struct Row {
  IbOp op;
  IbPosition position;
  int header_bytes;  // RC/UC headers; XRC adds its XRCETH, UD its DETH
  const char* name;
};

// The low five bits of an RC/UC/XRC opcode (IBTA Vol 1 §9.2, OpCode field table), with
// FLUSH and ATOMIC WRITE of release 1.5 (rxe has them since Linux 6.2).
constexpr int kRows = 0x1e;
const Row kRcRows[kRows] = {
    {IbOp::kSend, IbPosition::kFirst, 0, "SEND First"},
    {IbOp::kSend, IbPosition::kMiddle, 0, "SEND Middle"},
    {IbOp::kSend, IbPosition::kLast, 0, "SEND Last"},
    {IbOp::kSend, IbPosition::kLast, 4, "SEND Last with Immediate"},
    {IbOp::kSend, IbPosition::kOnly, 0, "SEND Only"},
    {IbOp::kSend, IbPosition::kOnly, 4, "SEND Only with Immediate"},
    {IbOp::kWrite, IbPosition::kFirst, 16, "RDMA WRITE First"},
    {IbOp::kWrite, IbPosition::kMiddle, 0, "RDMA WRITE Middle"},
    {IbOp::kWrite, IbPosition::kLast, 0, "RDMA WRITE Last"},
    {IbOp::kWrite, IbPosition::kLast, 4, "RDMA WRITE Last with Immediate"},
    {IbOp::kWrite, IbPosition::kOnly, 16, "RDMA WRITE Only"},
    {IbOp::kWrite, IbPosition::kOnly, 20, "RDMA WRITE Only with Immediate"},
    {IbOp::kReadRequest, IbPosition::kOnly, 16, "RDMA READ Request"},
    {IbOp::kReadResponse, IbPosition::kFirst, 4, "RDMA READ Response First"},
    {IbOp::kReadResponse, IbPosition::kMiddle, 0, "RDMA READ Response Middle"},
    {IbOp::kReadResponse, IbPosition::kLast, 4, "RDMA READ Response Last"},
    {IbOp::kReadResponse, IbPosition::kOnly, 4, "RDMA READ Response Only"},
    {IbOp::kAck, IbPosition::kOnly, 4, "Acknowledge"},
    {IbOp::kAtomicAck, IbPosition::kOnly, 12, "ATOMIC Acknowledge"},
    {IbOp::kAtomic, IbPosition::kOnly, 28, "CmpSwap"},
    {IbOp::kAtomic, IbPosition::kOnly, 28, "FetchAdd"},
    {IbOp::kReserved, IbPosition::kOnly, 0, ""},
    {IbOp::kSend, IbPosition::kLast, 4, "SEND Last with Invalidate"},
    {IbOp::kSend, IbPosition::kOnly, 4, "SEND Only with Invalidate"},
    {IbOp::kReserved, IbPosition::kOnly, 0, ""},
    {IbOp::kReserved, IbPosition::kOnly, 0, ""},
    {IbOp::kReserved, IbPosition::kOnly, 0, ""},
    {IbOp::kReserved, IbPosition::kOnly, 0, ""},
    {IbOp::kFlush, IbPosition::kOnly, 20, "FLUSH"},
    {IbOp::kAtomicWrite, IbPosition::kOnly, 16, "ATOMIC WRITE"},
};

IbOpcode Reserved(uint8_t opcode, IbService service) {
  IbOpcode o;
  o.value = opcode;
  o.service = service;
  o.name = absl::StrFormat("opcode 0x%02x (reserved)", opcode);
  return o;
}

}  // namespace

bool IbOpcode::has_aeth() const {
  return op == IbOp::kAck || op == IbOp::kAtomicAck ||
         (op == IbOp::kReadResponse && position != IbPosition::kMiddle);
}

const char* ServiceName(IbService service) {
  switch (service) {
    case IbService::kRc: return "RC";
    case IbService::kUc: return "UC";
    case IbService::kRd: return "RD";
    case IbService::kUd: return "UD";
    case IbService::kCnp: return "CNP";
    case IbService::kXrc: return "XRC";
    case IbService::kUnknown: break;
  }
  return "?";
}

IbOpcode DescribeOpcode(uint8_t opcode) {
  const uint8_t low = opcode & 0x1f;
  IbService service;
  switch (opcode >> 5) {
    case 0: service = IbService::kRc; break;
    case 1: service = IbService::kUc; break;
    case 2: service = IbService::kRd; break;
    case 3: service = IbService::kUd; break;
    case 4: service = IbService::kCnp; break;
    case 5: service = IbService::kXrc; break;
    default: return Reserved(opcode, IbService::kUnknown);
  }
  if (service == IbService::kCnp) {
    if (opcode != 0x81) return Reserved(opcode, service);
    IbOpcode o;
    o.value = opcode;
    o.service = service;
    o.op = IbOp::kCnp;
    o.header_bytes = 16;
    o.name = "CNP";
    return o;
  }
  if (low >= kRows || kRcRows[low].op == IbOp::kReserved) return Reserved(opcode, service);
  const Row& row = kRcRows[low];
  IbOpcode o;
  o.value = opcode;
  o.service = service;
  o.op = row.op;
  o.position = row.position;
  o.header_bytes = row.header_bytes;
  o.name = absl::StrCat(ServiceName(service), " ", row.name);
  switch (service) {
    case IbService::kUc:  // SEND and RDMA WRITE only
      if (low > 0x0b) return Reserved(opcode, service);
      break;
    case IbService::kUd:  // SEND Only (with Immediate), after a DETH
      if (low != 0x04 && low != 0x05) return Reserved(opcode, service);
      o.header_bytes += 8;
      break;
    case IbService::kRd:  // RDETH and DETH; RoCE has no RD, it is decoded but not checked
      if (low > 0x14) return Reserved(opcode, service);
      o.header_bytes += 12;
      break;
    case IbService::kXrc:
      if (low > 0x17) return Reserved(opcode, service);
      o.header_bytes += 4;
      break;
    default:
      break;
  }
  return o;
}

}  // namespace rdmacheck
