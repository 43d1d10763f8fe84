#include "walk/ledger.h"

#include "absl/strings/str_cat.h"
#include "harness/completion.h"

namespace rdmacheck::walk {

Ledger::Match Ledger::Complete(uint64_t wr_id, Pending* out) {
  auto it = pending_.find(wr_id);
  if (it != pending_.end()) {
    *out = it->second;
    pending_.erase(it);
    completed_.insert(wr_id);
    return Match::kPending;
  }
  if (late_.erase(wr_id) > 0) {
    completed_.insert(wr_id);
    return Match::kLate;
  }
  return completed_.count(wr_id) ? Match::kDuplicate : Match::kUnknown;
}

std::string Ledger::CheckStatus(const Pending& p, ibv_wc_status status) const {
  const bool bad_lkey = p.variant == Variant::kBadLkey;
  if (relaxed_.count(p.qp) || doomed_.count(p.qp) || lost_.count(p.wr_id)) return "";
  if (status == IBV_WC_WR_FLUSH_ERR && flushing_.count(p.qp)) return "";
  if (bad_lkey && status == IBV_WC_LOC_PROT_ERR) return "";
  if (!bad_lkey && status == IBV_WC_SUCCESS) return "";
  return absl::StrCat("expected ", bad_lkey ? "IBV_WC_LOC_PROT_ERR" : "IBV_WC_SUCCESS",
                      flushing_.count(p.qp) ? " or IBV_WC_WR_FLUSH_ERR" : "");
}

std::vector<Pending> Ledger::OutstandingOn(int qp) const {
  std::vector<Pending> out;
  for (const auto& [id, p] : pending_) {
    if (p.qp == qp && p.srq < 0) out.push_back(p);
  }
  return out;
}

int Ledger::CountOn(int qp, bool send) const {
  int n = 0;
  for (const auto& [id, p] : pending_) n += p.qp == qp && p.send == send && p.srq < 0;
  return n;
}

int Ledger::CountOnSrq(int srq) const {
  int n = 0;
  for (const auto& [id, p] : pending_) n += p.srq == srq;
  return n;
}

bool Ledger::SrqHasLost(int srq) const {
  for (const auto& [id, p] : pending_) {
    if (p.srq == srq && lost_.count(id)) return true;
  }
  return false;
}

std::vector<Pending> Ledger::OnMr(int mr) const {
  std::vector<Pending> out;
  for (const auto& [id, p] : pending_) {
    if (p.mr == mr) out.push_back(p);
  }
  return out;
}

std::vector<Pending> Ledger::Discard(int qp, bool late_allowed) {
  std::vector<Pending> gone;
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (it->second.qp == qp && it->second.srq < 0) {
      if (late_allowed) late_.insert(it->first);
      gone.push_back(it->second);
      it = pending_.erase(it);
    } else {
      ++it;
    }
  }
  incoming_.erase(qp);
  return gone;
}

std::vector<Pending> Ledger::DiscardSrq(int srq) {
  std::vector<Pending> gone;
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (it->second.srq == srq) {
      late_.insert(it->first);
      gone.push_back(it->second);
      it = pending_.erase(it);
    } else {
      ++it;
    }
  }
  return gone;
}

void Ledger::Connected(int qp) {
  flushing_.erase(qp);
  doomed_.erase(qp);
  relaxed_.erase(qp);
  incoming_.erase(qp);
}

}  // namespace rdmacheck::walk
