// fork() in a process with registered memory. ibv_fork_init(3): without fork support, a
// page of a registered buffer that the parent touches after fork is copied on write and
// the device keeps addressing the old page, which now belongs to the child, so "the
// parent's" RDMA traffic reads and writes the child's memory. With support (the kernel's
// copy-on-fork since Linux 5.13: IBV_FORK_UNNEEDED; or ibv_fork_init / RDMAV_FORK_SAFE=1:
// IBV_FORK_ENABLED) the registered pages stay the parent's, and the child cannot reach
// them.
//
// The child only touches memory and writes to a pipe (async-signal-safe: the suite's
// process has threads), never calls a verb, and leaves with _exit.
#include <infiniband/verbs.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#include "harness/completion.h"
#include "harness/patterns.h"
#include "harness/reap.h"
#include "harness/timeouts.h"
#include "harness/verbs/factories.h"
#include "testing/device_test.h"

namespace rdmacheck {
namespace {

// A forked child that overwrites `bytes` of its copy of `memory` with `garbage`, says so
// on a pipe, and waits (bounded) until told to exit: alive, it keeps the pages it copied.
class ScribblingChild {
 public:
  ScribblingChild(uint8_t* memory, size_t bytes, uint8_t garbage) {
    if (pipe(to_parent_) != 0 || pipe(to_child_) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      close(to_parent_[0]);
      close(to_child_[1]);
      std::memset(memory, garbage, bytes);
      char done = 'w';
      (void)!write(to_parent_[1], &done, 1);
      pollfd wait_for_parent{to_child_[0], POLLIN, 0};
      poll(&wait_for_parent, 1, 60 * 1000);  // bounded: a parent that died leaves no orphan for long
      _exit(0);
    }
    close(to_parent_[1]);
    close(to_child_[0]);
  }
  ~ScribblingChild() {
    if (pid_ <= 0) return;
    close(to_child_[1]);  // the child's poll returns: it exits
    if (absl::IsDeadlineExceeded(ReapWithin(pid_, LocalEventWait()).status())) {
      // Its exit releases its copy of the uverbs file, which may hang in the driver: a
      // failure naming where, not a hang.
      if (absl::Status gone = KillAndReap(pid_); !gone.ok()) ADD_FAILURE() << gone.message();
    }
    close(to_parent_[0]);
  }
  bool started() const { return pid_ > 0; }
  // Waits (bounded) until the child has overwritten its copy.
  bool AwaitScribbled() {
    pollfd p{to_parent_[0], POLLIN, 0};
    char c = 0;
    return poll(&p, 1, static_cast<int>(absl::ToInt64Milliseconds(DefaultWait()))) == 1 && read(to_parent_[0], &c, 1) == 1;
  }

 private:
  pid_t pid_ = -1;
  int to_parent_[2] = {-1, -1};
  int to_child_[2] = {-1, -1};
};

class ForkTest : public DeviceTest {};

RDMACHECK_ABOUT(ForkTest, ChildCannotReachParentsRegisteredMemory,
                "after fork, with a live child that overwrote its copy of the parent's registered buffer: the parent "
                "writes its buffer (the copy-on-write trigger), and the peer's RDMA READ of it returns the parent's "
                "new bytes (not the child's, not the old ones), and the peer's RDMA WRITE into it is seen by the "
                "parent",
                "ibv_fork_init(3) (registered memory and fork; IBV_FORK_UNNEEDED / RDMAV_FORK_SAFE); "
                "fork(2) (copy-on-write); IBTA Vol 1 10.6.3.1 (a registered region stays bound to its pages)",
                Cap::kForkSafe, Cap::kRcQp, Cap::kRdmaWrite, Cap::kRdmaRead);
TEST_F(ForkTest, ChildCannotReachParentsRegisteredMemory) {
  constexpr uint32_t kLength = 4096;  // a page each: [0, 4096) read back, [4096, 8192) written
  PairOptions options;
  options.buffer_size = 2 * kLength;
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  ASSERT_OK(pair.remote().Fill({0, 2 * kLength}, Pattern::Constant(0x11)));
  ASSERT_OK(pair.local().Fill({0, 2 * kLength}, Pattern::Seeded(0xf01)));

  ScribblingChild child(pair.local().buffer().data(), options.buffer_size, 0xee);
  ASSERT_TRUE(child.started()) << "fork: " << std::strerror(errno);
  ASSERT_TRUE(child.AwaitScribbled()) << "the child did not report its write";
  ASSERT_OK(pair.local().Fill({0, 2 * kLength}, Pattern::Seeded(0xf02)));  // the parent's pages, written

  // The peer reads the parent's first page and writes its second.
  ASSERT_OK(pair.remote().Post(SendRequest::Read(1, {{0, kLength}}, pair.remote().peer_buffer().At(0, kLength))));
  ASSERT_OK_AND_ASSIGN(ibv_wc read, pair.remote().PollSend());
  ASSERT_EQ(read.status, IBV_WC_SUCCESS) << "the peer's RDMA READ of the parent's buffer: " << DescribeWc(read);
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> seen, pair.remote().Read({0, kLength}));
  EXPECT_OK(CheckPattern(seen, Pattern::Seeded(0xf02)))
      << "the peer's READ did not return the parent's bytes (0xee: the child's copy; the seeded 0xf01 pattern: "
         "the page before the parent wrote it)";

  ASSERT_OK(pair.remote().Fill({kLength, kLength}, Pattern::Seeded(0xf03)));
  ASSERT_OK(pair.remote().Post(
      SendRequest::Write(2, {{kLength, kLength}}, pair.remote().peer_buffer().At(kLength, kLength))));
  ASSERT_OK_AND_ASSIGN(ibv_wc written, pair.remote().PollSend());
  ASSERT_EQ(written.status, IBV_WC_SUCCESS) << "the peer's RDMA WRITE into the parent's buffer: " << DescribeWc(written);
  EXPECT_OK(pair.local().AwaitPattern({kLength, kLength}, Pattern::Seeded(0xf03)))
      << "the peer's WRITE did not reach the parent's buffer (it went to the child's copy?)";
}

RDMACHECK_ABOUT(ForkTest, TrafficGoesOnAfterTheChildExits,
                "after a fork whose child exits at once, the parent registers new memory and a SEND from it reaches "
                "the peer: the child's exit (its copy of the uverbs file closed) takes nothing from the parent",
                "ibv_fork_init(3); fork(2), _exit(2) (the child's descriptors close, the parent's stay)",
                Cap::kForkSafe, Cap::kRcQp);
TEST_F(ForkTest, TrafficGoesOnAfterTheChildExits) {
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair());
  const pid_t pid = fork();
  ASSERT_GE(pid, 0) << "fork: " << std::strerror(errno);
  if (pid == 0) _exit(0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);

  std::vector<uint8_t> fresh(256);
  FillPattern(absl::MakeSpan(fresh), Pattern::Seeded(0xf04));
  ASSERT_OK_AND_ASSIGN(MrPtr mr, RegMr(pair.local().pd(), absl::MakeSpan(fresh), IBV_ACCESS_LOCAL_WRITE));
  ASSERT_OK(pair.remote().PostRecv(1, 0, 256));
  ibv_sge sge = MakeSge(mr.get(), 0, 256);
  ibv_send_wr send = SendWr(2, &sge, 1);
  ASSERT_OK(pair.local().PostSend(send));
  ASSERT_OK_AND_ASSIGN(ibv_wc sent, pair.local().PollSend());
  EXPECT_EQ(sent.status, IBV_WC_SUCCESS) << DescribeWc(sent);
  ASSERT_OK_AND_ASSIGN(ibv_wc received, pair.remote().PollRecv());
  EXPECT_EQ(received.status, IBV_WC_SUCCESS) << DescribeWc(received);
  EXPECT_OK(pair.remote().Check({0, 256}, Pattern::Seeded(0xf04)));
}

}  // namespace
}  // namespace rdmacheck
