// Mutants of rdma_cm: an event of another type, private data altered or cut short.
#include <atomic>

#include "selftest/mutants/families.h"

namespace rdmacheck::mutants {
namespace {

std::atomic<int> sent_connect{-1}, sent_accept{-1}, sent_reject{-1};
std::atomic<int>* Sent(rdma_cm_event_type arrives_as) {
  switch (arrives_as) {
    case RDMA_CM_EVENT_CONNECT_REQUEST: return &sent_connect;
    case RDMA_CM_EVENT_ESTABLISHED: return &sent_accept;
    case RDMA_CM_EVENT_REJECTED: return &sent_reject;
    default: return nullptr;
  }
}

bool CarriesPrivateData(const rdma_cm_event* e) {
  return (e->event == RDMA_CM_EVENT_CONNECT_REQUEST || e->event == RDMA_CM_EVENT_ESTABLISHED ||
          e->event == RDMA_CM_EVENT_REJECTED || e->event == RDMA_CM_EVENT_CONNECT_RESPONSE) &&
         e->param.conn.private_data && e->param.conn.private_data_len > 0;
}

}  // namespace

void RecordSentPrivateData(rdma_cm_event_type arrives_as, int length) {
  if (std::atomic<int>* sent = Sent(arrives_as)) *sent = length;
}

int SentPrivateDataLength(rdma_cm_event_type arrives_as) {
  std::atomic<int>* sent = Sent(arrives_as);
  return sent ? sent->load() : -1;
}

std::vector<Mutant> CmMutants() {
  return {
      {.name = "cm_private_data",
       .what = "the first byte of the private data an rdma_cm event carries is corrupted",
       .suites = "rdma_cm", .filter = "Amount/PrivateDataTest.CarriedBothWays/OneByte", .devices = "", .survives = nullptr,
       .cm_event = [](rdma_cm_event* e) {
         // librdmacm keeps the data in the event it allocated: writable.
         if (!CarriesPrivateData(e)) return;
         *const_cast<uint8_t*>(static_cast<const uint8_t*>(e->param.conn.private_data)) ^= 0xff;
         Acted();
       }},
      {.name = "cm_private_data_len",
       .what = "an rdma_cm event reports one byte less private data than the peer sent",
       // Less than was sent, not less than arrived: RoCE pads private data to the CM
       // message's size (one byte sent arrives as 56), which the spec allows.
       .suites = "rdma_cm", .filter = "Amount/PrivateDataTest.CarriedBothWays/OneByte", .devices = "",
       .survives = nullptr,
       .cm_event = [](rdma_cm_event* e) {
         if (const int sent = SentPrivateDataLength(e->event); CarriesPrivateData(e) && sent > 0) {
           e->param.conn.private_data_len = static_cast<uint8_t>(sent - 1);
         }
       }},
      {.name = "cm_reject_as_unreachable",
       .what = "a connection refused by the peer (RDMA_CM_EVENT_REJECTED) is reported as RDMA_CM_EVENT_UNREACHABLE",
       .suites = "rdma_cm", .filter = "Amount/PrivateDataTest.CarriedByReject/OneByte:CmErrorTest.ConnectWithNobodyListeningFails",
       .devices = "", .survives = nullptr,
       .cm_event = [](rdma_cm_event* e) { if (e->event == RDMA_CM_EVENT_REJECTED) e->event = RDMA_CM_EVENT_UNREACHABLE; }},
  };
}

}  // namespace rdmacheck::mutants
