#include "testing/completion_matchers.h"

#include <arpa/inet.h>

#include "absl/strings/str_cat.h"

namespace rdmacheck {

ExpectedWc SendCompletion(uint64_t wr_id, uint32_t qp_num, ibv_wc_opcode opcode) {
  ExpectedWc e;
  e.opcode = opcode;
  e.wr_id = wr_id;
  e.qp_num = qp_num;
  if (opcode == IBV_WC_COMP_SWAP || opcode == IBV_WC_FETCH_ADD) e.byte_len = 8;
  return e;
}

ExpectedWc RecvCompletion(uint64_t wr_id, uint32_t qp_num, uint32_t byte_len, ibv_wc_opcode opcode) {
  ExpectedWc e;
  e.opcode = opcode;
  e.wr_id = wr_id;
  e.qp_num = qp_num;
  e.receive_side = true;
  e.byte_len = byte_len;
  return e;
}

ExpectedWc ErrorCompletion(uint64_t wr_id, uint32_t qp_num, ibv_wc_status status) {
  ExpectedWc e;
  e.status = status;
  e.wr_id = wr_id;
  e.qp_num = qp_num;
  return e;
}

ibv_wc_opcode SendSideOpcode(ibv_wr_opcode opcode) {
  switch (opcode) {
    case IBV_WR_RDMA_WRITE:
    case IBV_WR_RDMA_WRITE_WITH_IMM: return IBV_WC_RDMA_WRITE;
    case IBV_WR_RDMA_READ: return IBV_WC_RDMA_READ;
    case IBV_WR_ATOMIC_CMP_AND_SWP: return IBV_WC_COMP_SWAP;
    case IBV_WR_ATOMIC_FETCH_AND_ADD: return IBV_WC_FETCH_ADD;
    case IBV_WR_LOCAL_INV: return IBV_WC_LOCAL_INV;
    case IBV_WR_BIND_MW: return IBV_WC_BIND_MW;
    case IBV_WR_TSO: return IBV_WC_TSO;
    default: return IBV_WC_SEND;
  }
}

std::vector<std::string> WcMismatches(const ibv_wc& wc, const ExpectedWc& e) {
  std::vector<std::string> out;
  auto differs = [&out](absl::string_view field, const std::string& got, const std::string& want) {
    out.push_back(absl::StrCat(field, " is ", got, ", expected ", want));
  };
  if (wc.status != e.status) differs("status", WcStatusName(wc.status), WcStatusName(e.status));
  if (wc.wr_id != e.wr_id) differs("wr_id", absl::StrCat(wc.wr_id), absl::StrCat(e.wr_id));
  if (wc.qp_num != e.qp_num) differs("qp_num", absl::StrCat(wc.qp_num), absl::StrCat(e.qp_num));
  if (e.status != IBV_WC_SUCCESS || wc.status != IBV_WC_SUCCESS) return out;  // nothing else is valid

  if (wc.opcode != e.opcode) differs("opcode", WcOpcodeName(wc.opcode), WcOpcodeName(e.opcode));
  if (e.byte_len && wc.byte_len != *e.byte_len) differs("byte_len", absl::StrCat(wc.byte_len), absl::StrCat(*e.byte_len));
  if (!e.receive_side) return out;

  const bool has_imm = (wc.wc_flags & IBV_WC_WITH_IMM) != 0;
  if (e.imm) {
    if (!has_imm) {
      out.push_back("IBV_WC_WITH_IMM is not set, expected immediate data");
    } else if (ntohl(wc.imm_data) != *e.imm) {
      differs("imm_data", absl::StrCat("0x", absl::Hex(ntohl(wc.imm_data))), absl::StrCat("0x", absl::Hex(*e.imm)));
    }
  } else if (has_imm) {
    out.push_back("IBV_WC_WITH_IMM is set, expected no immediate data");
  }
  const bool has_inv = (wc.wc_flags & IBV_WC_WITH_INV) != 0;
  if (e.invalidated_rkey) {
    if (!has_inv) {
      // The flag missing with the rkey in its field is another deviation than no rkey at
      // all (the field is imm_data's union): say which, so an expectation can tell them apart.
      const std::string held = wc.invalidated_rkey == *e.invalidated_rkey
                                   ? std::string("the expected rkey")
                                   : absl::StrCat("0x", absl::Hex(wc.invalidated_rkey), ", not the expected 0x",
                                                  absl::Hex(*e.invalidated_rkey));
      out.push_back(absl::StrCat("IBV_WC_WITH_INV is not set, expected an invalidated rkey; the field holds ", held));
    } else if (wc.invalidated_rkey != *e.invalidated_rkey) {
      differs("invalidated_rkey", absl::StrCat("0x", absl::Hex(wc.invalidated_rkey)),
              absl::StrCat("0x", absl::Hex(*e.invalidated_rkey)));
    }
  } else if (has_inv) {
    out.push_back("IBV_WC_WITH_INV is set, expected no invalidation");
  }
  if (e.src_qp && wc.src_qp != *e.src_qp) differs("src_qp", absl::StrCat(wc.src_qp), absl::StrCat(*e.src_qp));
  if (e.grh && ((wc.wc_flags & IBV_WC_GRH) != 0) != *e.grh) {
    out.push_back(*e.grh ? "IBV_WC_GRH is not set, expected a GRH" : "IBV_WC_GRH is set, expected none");
  }
  return out;
}

}  // namespace rdmacheck
