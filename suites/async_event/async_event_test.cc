// The asynchronous event queue of a context: it can be read without blocking, and a bounded
// wait on it ends when nothing comes. Events themselves are produced where their objects
// are tested: CQ overrun (suites/cq), SRQ limit and Last WQE Reached (suites/srq).
#include <infiniband/verbs.h>

#include <cerrno>

#include "harness/completion.h"
#include "testing/async_events.h"
#include "testing/device_test.h"

namespace rdmacheck {
namespace {

class AsyncEventTest : public DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped()) return;
    DropStaleAsyncEvents(context());
  }
};

RDMACHECK_ABOUT(AsyncEventTest, NonBlockingReadReportsEagain,
                "with O_NONBLOCK on context->async_fd and no event queued, ibv_get_async_event returns -1 with errno "
                "EAGAIN",
                "ibv_get_async_event(3) (non-blocking use via fcntl on async_fd)");
TEST_F(AsyncEventTest, NonBlockingReadReportsEagain) {
  ScopedNonBlocking non_blocking(context()->async_fd);
  ASSERT_TRUE(non_blocking.ok()) << ErrnoName(errno);
  ibv_async_event event{};
  errno = 0;
  const int rc = ibv_get_async_event(context(), &event);
  if (rc == 0) ibv_ack_async_event(&event);
  EXPECT_EQ(rc, -1) << "an event appeared on an idle context: " << AsyncEventName(event.event_type);
  EXPECT_THAT(errno, ErrnoIs(EAGAIN));
}

RDMACHECK_ABOUT(AsyncEventTest, BoundedWaitEndsWhenIdle,
                "a bounded wait for an async event on an idle context ends with a timeout instead of blocking",
                "ibv_get_async_event(3) (async_fd is pollable); harness/completion.h WaitAsyncEvent");
TEST_F(AsyncEventTest, BoundedWaitEndsWhenIdle) {
  absl::StatusOr<ibv_async_event> event = WaitAsyncEvent(context(), Scaled(absl::Milliseconds(200)));
  EXPECT_EQ(event.status().code(), absl::StatusCode::kDeadlineExceeded)
      << (event.ok() ? AsyncEventName(event->event_type) : std::string(event.status().message()));
}

}  // namespace
}  // namespace rdmacheck
