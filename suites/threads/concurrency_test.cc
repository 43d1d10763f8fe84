// Verbs from several threads at once. libibverbs and its providers are thread-safe: "the
// verbs are thread safe" (rdma-core Documentation/libibverbs.md, "Thread safety"; IBTA Vol 1
// 11.1: the verbs are a semantic interface, with no order imposed between independent
// callers). A driver whose object tables or queues race shows here as a failed create, a
// duplicated key or handle, a lost or duplicated completion, or a crash; none of these is
// a timing: the tests count and compare, they do not measure.
#include <infiniband/verbs.h>

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "harness/completion.h"
#include "harness/connection/cm_steps.h"
#include "harness/status.h"
#include "harness/timeouts.h"
#include "harness/verbs/factories.h"
#include "testing/device_test.h"

namespace rdmacheck {
namespace {

constexpr int kThreads = 4;

// What the threads of a test found, collected under a lock; the test asserts on it once
// they have joined (GoogleTest assertions are not made from the worker threads).
class Findings {
 public:
  void Add(std::string what) {
    absl::MutexLock lock(&mu_);
    if (problems_.size() < 10) problems_.push_back(std::move(what));
    ++count_;
  }
  std::string Summary() const {
    absl::MutexLock lock(&mu_);
    std::string out = absl::StrCat(count_, " problem(s)");
    for (const std::string& p : problems_) absl::StrAppend(&out, "; ", p);
    return out;
  }
  bool empty() const {
    absl::MutexLock lock(&mu_);
    return count_ == 0;
  }

 private:
  mutable absl::Mutex mu_;
  std::vector<std::string> problems_;
  int count_ = 0;
};

class ConcurrencyTest : public DeviceTest {};

RDMACHECK_ABOUT(ConcurrencyTest, ObjectsCreatedAndDestroyedFromManyThreads,
                "4 threads, 40 rounds each, at the same time: each allocates a PD, creates a CQ, registers an MR on "
                "its own PD and one on a PD they share, creates an RC QP, and destroys them in reverse; every verb "
                "succeeds, and the lkeys and rkeys of the MRs on the shared PD that are live at once are all "
                "different",
                "rdma-core Documentation/libibverbs.md (thread safety); ibv_reg_mr(3) (lkey/rkey identify the MR); "
                "IBTA Vol 1 10.6.3.1 (an R_Key names one region)",
                Cap::kRcQp);
TEST_F(ConcurrencyTest, ObjectsCreatedAndDestroyedFromManyThreads) {
  constexpr int kRounds = 40;
  ASSERT_OK_AND_ASSIGN(PdPtr shared_pd, AllocPd(context()));
  Findings findings;
  absl::Mutex keys_mu;
  std::map<uint32_t, int> live_keys;  // lkey or rkey -> the thread holding an MR with it

  auto worker = [&](int id) {
    std::vector<uint8_t> buffer(4096), shared_buffer(4096);
    for (int round = 0; round < kRounds; ++round) {
      const std::string where = absl::StrCat("thread ", id, " round ", round, ": ");
      absl::StatusOr<PdPtr> pd = AllocPd(context());
      if (!pd.ok()) return findings.Add(where + std::string(pd.status().message()));
      absl::StatusOr<CqPtr> cq = CreateCq(context(), 4);
      if (!cq.ok()) return findings.Add(where + std::string(cq.status().message()));
      absl::StatusOr<MrPtr> mr = RegMr(pd->get(), absl::MakeSpan(buffer), IBV_ACCESS_LOCAL_WRITE);
      if (!mr.ok()) return findings.Add(where + std::string(mr.status().message()));
      absl::StatusOr<MrPtr> on_shared =
          RegMr(shared_pd.get(), absl::MakeSpan(shared_buffer), IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
      if (!on_shared.ok()) return findings.Add(where + std::string(on_shared.status().message()));
      {
        absl::MutexLock lock(&keys_mu);
        for (uint32_t key : std::set<uint32_t>{(*on_shared)->lkey, (*on_shared)->rkey}) {
          auto [it, fresh] = live_keys.emplace(key, id);
          if (!fresh) findings.Add(absl::StrCat(where, "key 0x", absl::Hex(key), " is also live in thread ", it->second));
        }
      }
      absl::StatusOr<QpPtr> qp = CreateQp(pd->get(), QpInitAttr(IBV_QPT_RC, cq->get(), /*depth=*/4));
      if (!qp.ok()) return findings.Add(where + std::string(qp.status().message()));
      qp->reset();
      {
        absl::MutexLock lock(&keys_mu);
        for (uint32_t key : std::set<uint32_t>{(*on_shared)->lkey, (*on_shared)->rkey}) {
          auto it = live_keys.find(key);
          if (it != live_keys.end() && it->second == id) live_keys.erase(it);
        }
      }
      // The owners release the rest in reverse order: MRs, CQ, PD (a failed release fails the test).
    }
  };
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) threads.emplace_back(worker, i);
  for (std::thread& t : threads) t.join();
  EXPECT_TRUE(findings.empty()) << findings.Summary();
}

RDMACHECK_ABOUT(ConcurrencyTest, ThreadsPostToOwnQpsOneSharedCq,
                "4 threads each post 200 signaled SENDs on their own RC QP, all QPs completing on one shared send CQ "
                "that a fifth thread polls: every SEND completes exactly once, successfully, with its own wr_id and "
                "its QP's qp_num; every receiver gets its 200 messages; nothing more completes afterwards",
                "ibv_post_send(3), ibv_poll_cq(3) (one completion per signaled WR); rdma-core "
                "Documentation/libibverbs.md (thread safety); IBTA Vol 1 10.8.1 (a CQ may serve several queues), "
                "C10-96 (completions of a queue in order)",
                Cap::kRcQp);
TEST_F(ConcurrencyTest, ThreadsPostToOwnQpsOneSharedCq) {
  constexpr int kMessages = 200;
  constexpr uint32_t kWindow = 16;  // SENDs in flight per thread: the SQ depth
  constexpr uint32_t kLength = 32;
  ASSERT_OK_AND_ASSIGN(ibv_context * pair_context, PairContext(context(), selection(), connect_method()));
  ASSERT_OK_AND_ASSIGN(PdPtr pd, AllocPd(pair_context));
  ASSERT_OK_AND_ASSIGN(CqPtr shared_cq, CreateCq(pair_context, kThreads * kWindow + 1));
  std::vector<ConnectedPair> pairs;
  for (int i = 0; i < kThreads; ++i) {
    PairOptions options;
    options.max_send_wr = kWindow;
    options.max_recv_wr = kMessages;
    options.active_shared = {pd.get(), nullptr, nullptr, shared_cq.get()};
    ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
    for (int m = 0; m < kMessages; ++m) ASSERT_OK(pair.remote().PostRecv(m, 0, kLength));
    pairs.push_back(std::move(pair));
  }
  std::map<uint32_t, int> thread_of_qp;
  for (int i = 0; i < kThreads; ++i) thread_of_qp[pairs[i].local().qp_num()] = i;

  Findings findings;
  std::atomic<int> in_flight[kThreads] = {};
  std::atomic<bool> stop{false};
  std::vector<std::vector<int>> seen(kThreads, std::vector<int>(kMessages, 0));
  auto sender = [&](int id) {
    const absl::Time deadline = absl::Now() + DefaultWait();
    for (int m = 0; m < kMessages && !stop; ++m) {
      while (in_flight[id].load() >= static_cast<int>(kWindow)) {
        if (absl::Now() > deadline) return findings.Add(absl::StrCat("thread ", id, ": SQ never drained"));
        std::this_thread::yield();
      }
      ++in_flight[id];
      // wr_id: the thread in the high half, the message in the low.
      SendRequest send = SendRequest::Send((uint64_t{static_cast<uint32_t>(id)} << 32) | m, {{0, kLength}});
      if (absl::Status posted = pairs[id].local().Post(send); !posted.ok()) {
        return findings.Add(absl::StrCat("thread ", id, " message ", m, ": ", posted.message()));
      }
    }
  };
  auto poller = [&] {
    int expected = kThreads * kMessages, got = 0;
    const absl::Time deadline = absl::Now() + DefaultWait();
    ibv_wc wcs[16];
    while (got < expected && absl::Now() < deadline && !stop) {
      const int n = ibv_poll_cq(shared_cq.get(), 16, wcs);
      if (n < 0) return findings.Add(absl::StrCat("ibv_poll_cq returned ", n));
      if (n == 0) std::this_thread::yield();
      for (int k = 0; k < n; ++k) {
        const ibv_wc& wc = wcs[k];
        const int id = static_cast<int>(wc.wr_id >> 32);
        const uint32_t m = static_cast<uint32_t>(wc.wr_id);
        if (wc.status != IBV_WC_SUCCESS) findings.Add("a SEND failed: " + DescribeWc(wc));
        if (id < 0 || id >= kThreads || m >= kMessages) {
          findings.Add("a completion with a wr_id nobody posted: " + DescribeWc(wc));
          continue;
        }
        auto owner = thread_of_qp.find(wc.qp_num);
        if (owner == thread_of_qp.end() || owner->second != id) {
          findings.Add(absl::StrCat("thread ", id, "'s SEND completed with qp_num ", wc.qp_num, ": ", DescribeWc(wc)));
        }
        if (++seen[id][m] == 2) findings.Add(absl::StrCat("thread ", id, " message ", m, " completed twice"));
        --in_flight[id];
        ++got;
      }
    }
    if (got < expected) findings.Add(absl::StrCat(got, " of ", expected, " SENDs completed within ", absl::FormatDuration(DefaultWait())));
  };
  std::thread poll_thread(poller);
  std::vector<std::thread> senders;
  for (int i = 0; i < kThreads; ++i) senders.emplace_back(sender, i);
  for (std::thread& t : senders) t.join();
  poll_thread.join();
  stop = true;
  EXPECT_TRUE(findings.empty()) << findings.Summary();
  EXPECT_THAT(DrainCompletions(shared_cq.get(), LocalEventWait()), ::testing::IsEmpty())
      << "the shared CQ held more completions after every SEND had completed once";
  for (int i = 0; i < kThreads; ++i) {
    absl::StatusOr<std::vector<ibv_wc>> received = pairs[i].remote().PollRecvs(kMessages);
    ASSERT_TRUE(received.ok()) << "receiver " << i << ": " << received.status();
    int ok = 0;
    for (const ibv_wc& wc : *received) ok += wc.status == IBV_WC_SUCCESS ? 1 : 0;
    EXPECT_EQ(ok, kMessages) << "receiver " << i << " got " << ok << " successful receives";
  }
}

}  // namespace
}  // namespace rdmacheck
