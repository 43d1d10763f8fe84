#include "harness/connection/cm_events.h"

#include <poll.h>

#include <cerrno>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "harness/status.h"

namespace rdmacheck {

absl::StatusOr<CmEventPtr> WaitCmEvent(rdma_event_channel* channel, absl::Duration timeout) {
  pollfd p{channel->fd, POLLIN, 0};
  int rc;
  do {
    rc = poll(&p, 1, static_cast<int>(absl::ToInt64Milliseconds(timeout)));
  } while (rc < 0 && errno == EINTR);
  if (rc < 0) return ErrnoStatus(errno, "poll(rdma_cm channel)");
  if (rc == 0) {
    return absl::DeadlineExceededError(
        absl::StrCat("timed out after ", absl::FormatDuration(timeout), " waiting for an rdma_cm event"));
  }
  rdma_cm_event* event = nullptr;
  if (rdma_get_cm_event(channel, &event) != 0) return ErrnoStatus(errno, "rdma_get_cm_event");
  return CmEventPtr(event);
}

absl::StatusOr<CmEventPtr> ExpectCmEvent(rdma_event_channel* channel, rdma_cm_event_type expected,
                                         absl::Duration timeout) {
  RDMACHECK_ASSIGN_OR_RETURN(CmEventPtr event, WaitCmEvent(channel, timeout));
  if (event->event != expected) {
    return absl::FailedPreconditionError(absl::StrCat("expected rdma_cm event ", rdma_event_str(expected), ", got ",
                                                      rdma_event_str(event->event), " (status ", event->status, ")"));
  }
  return event;
}

}  // namespace rdmacheck
