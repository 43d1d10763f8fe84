// Mutants of events: a completion notification that is never delivered, an async event
// that is lost.
#include "selftest/mutants/families.h"

namespace rdmacheck::mutants {

std::vector<Mutant> EventMutants() {
  return {
      {.name = "cq_event_lost",
       .what = "ibv_req_notify_cq succeeds but never arms the CQ: no completion event comes",
       .suites = "comp_channel", .filter = "CompChannelEventTest.EventAfterCompletionWhenArmed", .devices = "",
       .survives = nullptr,
       .req_notify_cq = [](ibv_cq*, int, int (*)(ibv_cq*, int)) {
         Acted();
         return 0;
       }},
      {.name = "async_event_lost",
       .what = "IBV_EVENT_SRQ_LIMIT_REACHED is never delivered",
       .suites = "srq", .filter = "SrqTrafficTest.LimitReachedEvent", .devices = "", .survives = nullptr,
       .drop_async_event = [](const ibv_async_event& e) { return e.event_type == IBV_EVENT_SRQ_LIMIT_REACHED; }},
      {.name = "port_err_lost",
       .what = "IBV_EVENT_PORT_ERR is never delivered: the link going down goes unreported",
       .suites = "link_events", .filter = "LinkEventsTest.LinkDownAndUpAreReported", .devices = "", .survives = nullptr,
       .drop_async_event = [](const ibv_async_event& e) { return e.event_type == IBV_EVENT_PORT_ERR; }},
      {.name = "gid_change_lost",
       .what = "IBV_EVENT_GID_CHANGE is never delivered: an address added to or removed from the netdev goes unreported",
       .suites = "link_events", .filter = "*AddressEventsTest.AddressAddedAndRemoved/Ipv4", .devices = "rxe0",
       .survives = nullptr,
       .drop_async_event = [](const ibv_async_event& e) { return e.event_type == IBV_EVENT_GID_CHANGE; }},
  };
}

}  // namespace rdmacheck::mutants
