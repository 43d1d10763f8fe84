// The buffers (SGEs) of the work requests posted and not yet completed, so that a data mutant can
// reach the bytes a completion describes; for a send also its opcode and remote range. A receive is keyed by its QP number (0 for an
// SRQ, whose completion names the QP) and wr_id; the entry goes when its completion comes.
#include <mutex>
#include <set>
#include <unordered_map>
#include <utility>

#include "selftest/mutants/mutant.h"

namespace rdmacheck::mutants {
namespace {

struct Key {
  uint32_t qp_num;
  uint64_t wr_id;
  bool operator==(const Key& o) const { return qp_num == o.qp_num && wr_id == o.wr_id; }
};
struct KeyHash {
  size_t operator()(const Key& k) const { return std::hash<uint64_t>()(k.wr_id * 1000003u ^ k.qp_num); }
};

struct Posted {
  std::mutex mutex;
  std::unordered_map<Key, Buffer, KeyHash> recv, send;
  std::set<uint32_t> invalidated_rkeys;
};
Posted& State() {
  static Posted* state = new Posted;  // never destroyed: children exit with completions pending
  return *state;
}

template <typename Wr>
Buffer Sges(const Wr* wr) {
  Buffer b;
  b.found = true;
  for (int i = 0; wr->sg_list && i < wr->num_sge && i < Buffer::kMaxSges; ++i) b.sges[b.num_sge++] = wr->sg_list[i];
  return b;
}

Buffer Take(std::unordered_map<Key, Buffer, KeyHash>& map, Key key) {
  auto it = map.find(key);
  if (it == map.end()) return {};
  Buffer b = it->second;
  map.erase(it);
  return b;
}

}  // namespace

void RecordRecv(uint32_t qp_num, const ibv_recv_wr* wr) {
  std::lock_guard<std::mutex> lock(State().mutex);
  State().recv[{qp_num, wr->wr_id}] = Sges(wr);
}

void RecordSend(uint32_t qp_num, const ibv_send_wr* wr) {
  Buffer b = Sges(wr);
  b.opcode = wr->opcode;
  if (wr->opcode == IBV_WR_RDMA_READ || wr->opcode == IBV_WR_RDMA_WRITE || wr->opcode == IBV_WR_RDMA_WRITE_WITH_IMM) {
    b.remote_addr = wr->wr.rdma.remote_addr;
    b.rkey = wr->wr.rdma.rkey;
  }
  if (wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP || wr->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
    b.remote_addr = wr->wr.atomic.remote_addr;
    b.rkey = wr->wr.atomic.rkey;
  }
  std::lock_guard<std::mutex> lock(State().mutex);
  State().send[{qp_num, wr->wr_id}] = b;
  if (wr->opcode == IBV_WR_SEND_WITH_INV) State().invalidated_rkeys.insert(wr->invalidate_rkey);
}

Buffer TakeRecv(uint32_t qp_num, uint64_t wr_id) {
  std::lock_guard<std::mutex> lock(State().mutex);
  Buffer b = Take(State().recv, {qp_num, wr_id});
  return b.found ? b : Take(State().recv, {0, wr_id});
}

Buffer TakeSend(uint32_t qp_num, uint64_t wr_id) {
  std::lock_guard<std::mutex> lock(State().mutex);
  return Take(State().send, {qp_num, wr_id});
}

bool SentWithInvalidate(uint32_t rkey) {
  std::lock_guard<std::mutex> lock(State().mutex);
  return State().invalidated_rkeys.count(rkey) > 0;
}

}  // namespace rdmacheck::mutants
