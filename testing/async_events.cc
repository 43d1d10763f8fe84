#include "testing/async_events.h"

#include <fcntl.h>

#include <cerrno>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "harness/completion.h"
#include "harness/status.h"

namespace rdmacheck {

std::string AsyncEventName(ibv_event_type type) {
  switch (type) {
#define RDMACHECK_CASE(x) \
  case x:                 \
    return absl::StrCat(#x, " (", ibv_event_type_str(x), ")");
    RDMACHECK_CASE(IBV_EVENT_CQ_ERR) RDMACHECK_CASE(IBV_EVENT_QP_FATAL) RDMACHECK_CASE(IBV_EVENT_QP_REQ_ERR)
    RDMACHECK_CASE(IBV_EVENT_QP_ACCESS_ERR) RDMACHECK_CASE(IBV_EVENT_COMM_EST) RDMACHECK_CASE(IBV_EVENT_SQ_DRAINED)
    RDMACHECK_CASE(IBV_EVENT_PATH_MIG) RDMACHECK_CASE(IBV_EVENT_PATH_MIG_ERR) RDMACHECK_CASE(IBV_EVENT_DEVICE_FATAL)
    RDMACHECK_CASE(IBV_EVENT_PORT_ACTIVE) RDMACHECK_CASE(IBV_EVENT_PORT_ERR) RDMACHECK_CASE(IBV_EVENT_LID_CHANGE)
    RDMACHECK_CASE(IBV_EVENT_PKEY_CHANGE) RDMACHECK_CASE(IBV_EVENT_SM_CHANGE)
    RDMACHECK_CASE(IBV_EVENT_SRQ_ERR) RDMACHECK_CASE(IBV_EVENT_SRQ_LIMIT_REACHED)
    RDMACHECK_CASE(IBV_EVENT_QP_LAST_WQE_REACHED) RDMACHECK_CASE(IBV_EVENT_CLIENT_REREGISTER)
    RDMACHECK_CASE(IBV_EVENT_GID_CHANGE) RDMACHECK_CASE(IBV_EVENT_WQ_FATAL)
#undef RDMACHECK_CASE
  }
  return absl::StrCat("event ", static_cast<int>(type));
}

absl::StatusOr<ibv_async_event> WaitForAsyncEvent(ibv_context* context, ibv_event_type type,
                                                  const AsyncEventFilter& filter, absl::Duration timeout) {
  std::vector<std::string> others;
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    absl::Duration left = deadline - absl::Now();
    if (left < absl::ZeroDuration()) left = absl::ZeroDuration();
    absl::StatusOr<ibv_async_event> event = WaitAsyncEvent(context, left);
    if (!event.ok()) {
      if (event.status().code() != absl::StatusCode::kDeadlineExceeded) return event.status();
      return absl::DeadlineExceededError(absl::StrCat(
          "no ", AsyncEventName(type), " within ", absl::FormatDuration(timeout), "; other events: ",
          others.empty() ? std::string("none") : absl::StrJoin(others, ", ")));
    }
    if (event->event_type == type && (!filter || filter(*event))) return *event;
    others.push_back(AsyncEventName(event->event_type));
  }
}

absl::StatusOr<std::vector<ibv_async_event>> DrainAsyncEvents(ibv_context* context) {
  ScopedNonBlocking non_blocking(context->async_fd);
  if (!non_blocking.ok()) return ErrnoStatus(errno, "fcntl(async_fd, O_NONBLOCK)");
  std::vector<ibv_async_event> events;
  while (true) {
    ibv_async_event event{};
    if (ibv_get_async_event(context, &event) != 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) return events;
      return ErrnoStatus(errno, "ibv_get_async_event");
    }
    ibv_async_event copy = event;
    ibv_ack_async_event(&event);
    events.push_back(copy);
  }
}

ScopedNonBlocking::ScopedNonBlocking(int fd) : fd_(fd), old_flags_(fcntl(fd, F_GETFL)) {
  if (old_flags_ >= 0 && fcntl(fd, F_SETFL, old_flags_ | O_NONBLOCK) != 0) old_flags_ = -1;
}

ScopedNonBlocking::~ScopedNonBlocking() {
  if (old_flags_ >= 0) fcntl(fd_, F_SETFL, old_flags_);
}

void DropStaleAsyncEvents(ibv_context* context) {
  absl::StatusOr<std::vector<ibv_async_event>> stale = DrainAsyncEvents(context);
  if (!stale.ok()) {
    ADD_FAILURE() << "the async event queue could not be drained: " << stale.status();
    return;
  }
  ::testing::Test::RecordProperty("stale_events", static_cast<int>(stale->size()));
}

}  // namespace rdmacheck
