// Which QPs the caller moved to the error state itself: a QP that reads back ERR without
// that got there by an error (an error completion, a fatal event). Keyed by the QP's
// address, forgotten when the QP is destroyed or moved to RESET.
#include <mutex>
#include <set>

#include "selftest/mutants/mutant.h"

namespace rdmacheck::mutants {
namespace {

std::mutex mutex;
std::set<ibv_qp*>& ErrByCaller() {
  static auto* qps = new std::set<ibv_qp*>;  // never destroyed: children exit with QPs
  return *qps;
}

}  // namespace

void RecordModify(ibv_qp* qp, const ibv_qp_attr* attr, int mask) {
  if (!(mask & IBV_QP_STATE)) return;
  std::lock_guard<std::mutex> lock(mutex);
  if (attr->qp_state == IBV_QPS_ERR) ErrByCaller().insert(qp);
  if (attr->qp_state == IBV_QPS_RESET) ErrByCaller().erase(qp);
}

void ForgetQp(ibv_qp* qp) {
  std::lock_guard<std::mutex> lock(mutex);
  ErrByCaller().erase(qp);
}

bool MovedToErrByCaller(ibv_qp* qp) {
  std::lock_guard<std::mutex> lock(mutex);
  return ErrByCaller().count(qp) > 0;
}

}  // namespace rdmacheck::mutants
