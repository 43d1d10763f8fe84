// Waiting for a particular asynchronous event of a context, bounded.
//
// The async event queue is shared by everything on the context, so a wait for one event
// may see others first (a QP of an earlier step reporting COMM_EST, ...). Every event read
// here is acknowledged at once: ibv_destroy_qp/cq/srq wait until each event read for their
// object has been acknowledged (ibv_get_async_event(3)), and an unacknowledged one would
// hang the test's cleanup.
//
//   ASSERT_OK_AND_ASSIGN(ibv_async_event e, WaitForAsyncEvent(context(), IBV_EVENT_SRQ_LIMIT_REACHED,
//                                                             [&](const ibv_async_event& e) {
//                                                               return e.element.srq == srq; }));
#ifndef RDMACHECK_TESTING_ASYNC_EVENTS_H_
#define RDMACHECK_TESTING_ASYNC_EVENTS_H_

#include <infiniband/verbs.h>

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "harness/timeouts.h"

namespace rdmacheck {

using AsyncEventFilter = std::function<bool(const ibv_async_event&)>;

// The first event of `type` (and accepted by `filter`, if given) within `timeout`. Other
// events are acknowledged and skipped; a timeout error lists them.
absl::StatusOr<ibv_async_event> WaitForAsyncEvent(ibv_context* context, ibv_event_type type,
                                                  const AsyncEventFilter& filter = nullptr,
                                                  absl::Duration timeout = DefaultWait());

// Every event already queued on the context, read without blocking and acknowledged.
absl::StatusOr<std::vector<ibv_async_event>> DrainAsyncEvents(ibv_context* context);

// A test's start: drains the events earlier tests of this process left on `context`
// (not ours), noting how many as the test's property "stale_events". ADD_FAILUREs if the
// queue cannot be read.
void DropStaleAsyncEvents(ibv_context* context);

// "IBV_EVENT_CQ_ERR (CQ error)".
std::string AsyncEventName(ibv_event_type type);

// Puts `fd` in non-blocking mode for its lifetime and restores its flags afterwards (the
// context's fds are shared by every test in the process).
class ScopedNonBlocking {
 public:
  explicit ScopedNonBlocking(int fd);
  ~ScopedNonBlocking();
  ScopedNonBlocking(const ScopedNonBlocking&) = delete;
  ScopedNonBlocking& operator=(const ScopedNonBlocking&) = delete;
  bool ok() const { return old_flags_ >= 0; }

 private:
  int fd_;
  int old_flags_;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_TESTING_ASYNC_EVENTS_H_
