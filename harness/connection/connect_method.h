// The two ways rdmacheck connects QPs.
#ifndef RDMACHECK_HARNESS_CONNECTION_CONNECT_METHOD_H_
#define RDMACHECK_HARNESS_CONNECTION_CONNECT_METHOD_H_

namespace rdmacheck {

enum class ConnectMethod {
  kManual,  // ibv_modify_qp RESET->INIT->RTR->RTS with the peer's QPN and GID (IB, RoCE)
  kRdmaCm,  // rdma_cm resolve/connect/accept (required by iWARP, whose MPA handshake needs it)
};

inline const char* ConnectMethodName(ConnectMethod method) {
  return method == ConnectMethod::kManual ? "manual" : "rdma_cm";
}

}  // namespace rdmacheck

#endif  // RDMACHECK_HARNESS_CONNECTION_CONNECT_METHOD_H_
