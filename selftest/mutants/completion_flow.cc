// Mutants of the completion stream: each completion is right, but one is lost, one comes
// twice (at once, or once the CQ looks empty), two come in swapped order, or the flushes of
// a QP in error never come. State is per CQ and forgotten when the CQ is destroyed (its
// address may be reused).
#include <algorithm>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

#include <cstring>

#include "selftest/mutants/families.h"

namespace rdmacheck::mutants {
namespace {

struct CqState {
  bool touched = false;         // the one completion a mutant alters is behind us
  std::deque<ibv_wc> pending;   // delivered before anything the device has
  std::optional<ibv_wc> again;  // delivered when the device has nothing
};
std::mutex mutex;
std::map<ibv_cq*, CqState>& States() {
  static auto* states = new std::map<ibv_cq*, CqState>;
  return *states;
}

// Removes wc[i] from the `got` completions; returns the new count.
int Remove(ibv_wc* wc, int got, int i) {
  std::copy(wc + i + 1, wc + got, wc + i);
  return got - 1;
}

bool Ok(const ibv_wc& wc) { return wc.status == IBV_WC_SUCCESS; }

// A completion held back is delivered first, alone.
bool DeliverPending(CqState& s, int n, ibv_wc* wc) {
  if (s.pending.empty() || n <= 0) return false;
  wc[0] = s.pending.front();
  s.pending.pop_front();
  return true;
}

// The index of the CQ's first successful completion among `got`, once per CQ (then -1).
int FirstOk(CqState& s, const ibv_wc* wc, int got) {
  for (int i = 0; !s.touched && i < got; ++i) {
    if (Ok(wc[i])) {
      s.touched = true;
      return i;
    }
  }
  return -1;
}

// Which real completion came where: a change of order or number is the mutant's doing.
bool SameWc(const ibv_wc& a, const ibv_wc& b) { return memcmp(&a, &b, sizeof(ibv_wc)) == 0; }

int PollLosingFirst(PollFn real, ibv_cq* cq, int n, ibv_wc* wc) {
  std::lock_guard<std::mutex> lock(mutex);
  CqState& s = States()[cq];
  int got = real(cq, n, wc);
  if (const int first = FirstOk(s, wc, got); first >= 0) {
    got = Remove(wc, got, first);
    Acted();
  }
  return got;
}

// Each successful completion `twice` picks is followed at once by its copy; what does not
// fit in `n` waits.
int PollDuplicating(PollFn real, ibv_cq* cq, int n, ibv_wc* wc, bool (*twice)(const ibv_wc&)) {
  std::lock_guard<std::mutex> lock(mutex);
  CqState& s = States()[cq];
  if (DeliverPending(s, n, wc)) return 1;
  std::vector<ibv_wc> polled(n > 0 ? n : 0);
  const int got = real(cq, n, polled.data());
  if (got <= 0) return got;
  std::vector<ibv_wc> out;
  for (int i = 0; i < got; ++i) {
    out.push_back(polled[i]);
    if (Ok(polled[i]) && twice(polled[i])) {
      out.push_back(polled[i]);
      Acted();
    }
  }
  const int delivered = std::min<int>(n, static_cast<int>(out.size()));
  std::copy(out.begin(), out.begin() + delivered, wc);
  s.pending.insert(s.pending.end(), out.begin() + delivered, out.end());
  return delivered;
}

int PollDuplicatingReceives(PollFn real, ibv_cq* cq, int n, ibv_wc* wc) {
  return PollDuplicating(real, cq, n, wc, [](const ibv_wc& c) { return (c.opcode & IBV_WC_RECV) != 0; });
}

int PollDuplicatingSends(PollFn real, ibv_cq* cq, int n, ibv_wc* wc) {
  return PollDuplicating(real, cq, n, wc, [](const ibv_wc& c) { return c.opcode == IBV_WC_SEND; });
}

int PollSwapping(PollFn real, ibv_cq* cq, int n, ibv_wc* wc) {
  std::lock_guard<std::mutex> lock(mutex);
  CqState& s = States()[cq];
  if (DeliverPending(s, n, wc)) return 1;
  int got = real(cq, n, wc);
  if (got == 1 && Ok(wc[0])) {  // asked one by one: hold it back if a second one is there
    ibv_wc next;
    if (real(cq, 1, &next) == 1) {
      if (Ok(next)) {
        s.pending.push_back(wc[0]);
        wc[0] = next;
        Acted();
      } else {
        s.pending.push_back(next);
      }
    }
  } else if (got >= 2 && Ok(wc[0]) && Ok(wc[1])) {
    std::swap(wc[0], wc[1]);
    if (!SameWc(wc[0], wc[1])) Acted();
  }
  return got;
}

int PollWithoutFlushes(PollFn real, ibv_cq* cq, int n, ibv_wc* wc) {
  int got = real(cq, n, wc);
  for (int i = got - 1; i >= 0; --i) {
    if (wc[i].status == IBV_WC_WR_FLUSH_ERR) {
      got = Remove(wc, got, i);
      Acted();
    }
  }
  return got;
}

// The first successful completion of each CQ comes once more, on the first poll that finds
// the CQ empty after it: a consumer that takes exactly the completions it expects never
// sees it; one that checks the CQ is empty at the end does.
int PollRepeatingFirstWhenEmpty(PollFn real, ibv_cq* cq, int n, ibv_wc* wc) {
  std::lock_guard<std::mutex> lock(mutex);
  CqState& s = States()[cq];
  const int got = real(cq, n, wc);
  if (got == 0 && s.again && n > 0) {
    wc[0] = *s.again;
    s.again.reset();
    Acted();
    return 1;
  }
  if (const int first = FirstOk(s, wc, got); first >= 0) s.again = wc[first];
  return got;
}

}  // namespace

void ForgetCq(ibv_cq* cq) {
  std::lock_guard<std::mutex> lock(mutex);
  States().erase(cq);
}

std::vector<Mutant> CompletionFlowMutants() {
  return {
      {.name = "cqe_lost",
       .what = "the first successful completion of each CQ is never delivered",
       .suites = "datapath", .filter = "*RcSendTest.MessagesArriveInPostingOrder/RdmaCm", .devices = "",
       .survives = nullptr, .poll = PollLosingFirst},
      {.name = "cqe_duplicated",
       .what = "every successful receive completion is delivered twice (the CQ's consumer index lags)",
       .suites = "datapath", .filter = "Connect/RcSendTest.MessagesArriveInPostingOrder/RdmaCm", .devices = "",
       .survives = nullptr, .poll = PollDuplicatingReceives},
      {.name = "cqe_duplicated_in_xfail",
       .what = "every successful receive completion is delivered twice, in a test that fails as expected on rxe (its "
               "wc_flags deviation): the surplus completion must fail it all the same",
       .suites = "datapath", .filter = "Connect/ImmediateTest.SendWithInvalidateRevokesTheRkey/RdmaCm",
       .devices = "rxe0", .survives = nullptr, .poll = PollDuplicatingReceives},
      {.name = "cqe_multicast_duplicated",
       .what = "every successful receive completion is delivered twice: a multicast datagram reaches a member twice",
       .suites = "multicast", .filter = "Groups/MulticastTest.EveryAttachedQpReceivesEachMessage/SelectedGid",
       .devices = "rxe0", .survives = nullptr, .poll = PollDuplicatingReceives},
      {.name = "cqe_send_duplicated",
       .what = "every successful SEND completion is delivered twice (a shared CQ's consumer index races)",
       .suites = "threads", .filter = "ConcurrencyTest.ThreadsPostToOwnQpsOneSharedCq", .devices = "",
       .survives = nullptr, .poll = PollDuplicatingSends},
      {.name = "cqe_reordered",
       .what = "of two successful completions ready together, the later is delivered first",
       .suites = "datapath", .filter = "Connect/RcSendTest.ManyMessagesInFlight/RdmaCm",
       .devices = "", .survives = nullptr, .poll = PollSwapping},
      {.name = "cqe_repeated_when_empty",
       .what = "the first successful completion of each CQ is delivered again, once, when the CQ is next empty",
       // Survives the tests of 2026-11 alone: they take exactly the completions they
       // expect. Meant to be killed by the check that a test's CQs are empty at its end
       // (issue 30, item 6; testing/, branch vsuites).
       .suites = "datapath", .filter = "Connect/RcSendTest.ReceiveWithMoreRoomThanNeeded/RdmaCm", .devices = "",
       .survives = nullptr, .poll = PollRepeatingFirstWhenEmpty},
      {.name = "cqe_flush_lost",
       .what = "work requests flushed by a QP in error never complete (no IBV_WC_WR_FLUSH_ERR)",
       .suites = "qp_state", .filter = "Types/QpFlushTest.ErrFlushesOutstandingReceives/RC",
       .devices = "",
       .survives = nullptr,
       .poll = PollWithoutFlushes},
  };
}

}  // namespace rdmacheck::mutants
