#include "harness/connection/cm_events.h"

#include <poll.h>

#include <cerrno>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "harness/status.h"

namespace rdmacheck {

namespace {
// `what`: the awaited event as the timeout names it (harness/status.h WaitTimedOut).
absl::StatusOr<CmEventPtr> WaitCmEventFor(rdma_event_channel* channel, absl::Duration timeout,
                                          absl::string_view what) {
  pollfd p{channel->fd, POLLIN, 0};
  int rc;
  do {
    rc = poll(&p, 1, static_cast<int>(absl::ToInt64Milliseconds(timeout)));
  } while (rc < 0 && errno == EINTR);
  if (rc < 0) return ErrnoStatus(errno, "poll(rdma_cm channel)");
  if (rc == 0) return WaitTimedOut(timeout, what, 0, 1);
  rdma_cm_event* event = nullptr;
  if (rdma_get_cm_event(channel, &event) != 0) return ErrnoStatus(errno, "rdma_get_cm_event");
  return CmEventPtr(event);
}
}  // namespace

absl::StatusOr<CmEventPtr> WaitCmEvent(rdma_event_channel* channel, absl::Duration timeout) {
  return WaitCmEventFor(channel, timeout, "an rdma_cm event");
}

absl::StatusOr<CmEventPtr> ExpectCmEvent(rdma_event_channel* channel, rdma_cm_event_type expected,
                                         absl::Duration timeout) {
  // The timeout names the event (RDMA_CM_EVENT_ESTABLISHED): a test's waits differ by it.
  RDMACHECK_ASSIGN_OR_RETURN(CmEventPtr event, WaitCmEventFor(channel, timeout, rdma_event_str(expected)));
  if (event->event != expected) {
    return absl::FailedPreconditionError(absl::StrCat("expected rdma_cm event ", rdma_event_str(expected), ", got ",
                                                      rdma_event_str(event->event), " (status ", event->status, ")"));
  }
  return event;
}

}  // namespace rdmacheck
