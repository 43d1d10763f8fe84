#include "testing/refusal_status.h"

#include "harness/wire_impairment.h"

namespace rdmacheck {

ibv_wc_status RefusalAsTold(const ibv_wc& told, ibv_wc_status nak) {
  return WireImpaired() && told.status == IBV_WC_RETRY_EXC_ERR ? IBV_WC_RETRY_EXC_ERR : nak;
}

std::set<ibv_wc_status> RefusalsAsTold(std::set<ibv_wc_status> naks) {
  if (WireImpaired()) naks.insert(IBV_WC_RETRY_EXC_ERR);
  return naks;
}

}  // namespace rdmacheck
