// Mutants of rdma_cm: an event of another type, private data altered or cut short.
#include "selftest/mutants/families.h"

namespace rdmacheck::mutants {
namespace {

bool CarriesPrivateData(const rdma_cm_event* e) {
  return (e->event == RDMA_CM_EVENT_CONNECT_REQUEST || e->event == RDMA_CM_EVENT_ESTABLISHED ||
          e->event == RDMA_CM_EVENT_REJECTED || e->event == RDMA_CM_EVENT_CONNECT_RESPONSE) &&
         e->param.conn.private_data && e->param.conn.private_data_len > 0;
}

}  // namespace

std::vector<Mutant> CmMutants() {
  return {
      {.name = "cm_private_data",
       .what = "the first byte of the private data an rdma_cm event carries is corrupted",
       .suites = "rdma_cm", .filter = "Amount/PrivateDataTest.CarriedBothWays/OneByte", .devices = "", .survives = nullptr,
       .cm_event = [](rdma_cm_event* e) {
         // librdmacm keeps the data in the event it allocated: writable.
         if (CarriesPrivateData(e)) *const_cast<uint8_t*>(static_cast<const uint8_t*>(e->param.conn.private_data)) ^= 0xff;
       }},
      {.name = "cm_private_data_len",
       .what = "an rdma_cm event reports one byte less private data than it carries",
       // RoCE pads private data to the CM message's size (a one-byte payload arrives as 56):
       // only a payload of the limit shows a shortened length there.
       .suites = "rdma_cm", .filter = "Amount/PrivateDataTest.CarriedBothWays/Limit", .devices = "", .survives = nullptr,
       .cm_event = [](rdma_cm_event* e) { if (CarriesPrivateData(e)) --e->param.conn.private_data_len; }},
      {.name = "cm_reject_as_unreachable",
       .what = "a connection refused by the peer (RDMA_CM_EVENT_REJECTED) is reported as RDMA_CM_EVENT_UNREACHABLE",
       .suites = "rdma_cm", .filter = "Amount/PrivateDataTest.CarriedByReject/OneByte:CmErrorTest.ConnectWithNobodyListeningFails",
       .devices = "", .survives = nullptr,
       .cm_event = [](rdma_cm_event* e) { if (e->event == RDMA_CM_EVENT_REJECTED) e->event = RDMA_CM_EVENT_UNREACHABLE; }},
  };
}

}  // namespace rdmacheck::mutants
