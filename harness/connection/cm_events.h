// Waiting for rdma_cm events, bounded.
#ifndef RDMACHECK_HARNESS_CONNECTION_CM_EVENTS_H_
#define RDMACHECK_HARNESS_CONNECTION_CM_EVENTS_H_

#include <rdma/rdma_cma.h>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "harness/timeouts.h"
#include "harness/verbs/owners.h"

namespace rdmacheck {

// The next event on `channel` (acknowledged when the returned owner goes away), or
// DeadlineExceeded ("... waiting for an rdma_cm event: 0 of 1 arrived").
absl::StatusOr<CmEventPtr> WaitCmEvent(rdma_event_channel* channel, absl::Duration timeout = DefaultWait());

// The next event, which must be `expected`; any other event is an error naming both
// (e.g. "expected ESTABLISHED, got REJECTED (status 28)"); a timeout names it too
// ("... waiting for RDMA_CM_EVENT_ESTABLISHED: 0 of 1 arrived").
absl::StatusOr<CmEventPtr> ExpectCmEvent(rdma_event_channel* channel, rdma_cm_event_type expected,
                                         absl::Duration timeout = DefaultWait());

}  // namespace rdmacheck

#endif  // RDMACHECK_HARNESS_CONNECTION_CM_EVENTS_H_
