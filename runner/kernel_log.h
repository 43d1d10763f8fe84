// The kernel log, in view of every test: a driver that WARNs, BUGs, oopses, trips lockdep
// or reports a hung task or an RCU stall while a test runs has failed that test, whatever
// the verbs returned (blktests fails a test the same way).
//
// `rdmacheck run` (the supervising parent) opens /dev/kmsg at its end before it opens and
// probes the device, and reads it before the first suite (what the probes made the kernel
// report fails KernelLog.WhileProbing) and after each suite. Each record carries the time
// it was logged, in microseconds on the kernel's clock (local_clock();
// Documentation/ABI/testing/dev-kmsg); each test's child reports the test's window on
// CLOCK_MONOTONIC (events.h). A marker the parent writes into the log at each suite's
// start measures the offset between the two clocks (where /dev/kmsg is writable; else they are taken as equal, which they are
// on x86 without NTP slewing to within a few microseconds per second).
//
// Where /dev/kmsg cannot be read (no CAP_SYSLOG with kernel.dmesg_restrict=1, a container
// without it) the run says so once: environment.kernel_log "NOT read: <why>". Records the
// kernel overwrote before they were read (a reader that fell behind: read(2) fails with
// EPIPE) are counted there too; with --strict either fails the run.
#ifndef RDMACHECK_RUNNER_KERNEL_LOG_H_
#define RDMACHECK_RUNNER_KERNEL_LOG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "results/results.h"

namespace rdmacheck {

// CLOCK_MONOTONIC now, in microseconds.
int64_t MonotonicMicros();

struct KernelRecord {
  int64_t usec = 0;  // kernel clock
  int level = 0;     // syslog level, 0 emerg .. 7 debug
  std::string text;
  uint64_t seq = 0;  // the record's sequence number: consecutive, so a gap counts lost records
};

// One /dev/kmsg record: "<prefix>,<seq>,<usec>,<flags>[,...];<text>\n[ KEY=value\n...]".
std::optional<KernelRecord> ParseKmsgRecord(absl::string_view raw);

// Whether a kernel log line reports a kernel bug: "WARNING:", "BUG:", "kernel BUG at",
// "Oops", "general protection fault", lockdep's reports, "INFO: task ... blocked for
// more than", RCU stalls, soft/hard lockups, UBSAN, KASAN, "Kernel panic", kmemleak's
// "new suspected memory leaks" (the debug kernel's: containers/debug-kernel).
bool IsKernelProblem(absl::string_view text);

// What a problem report is, without what differs between two runs of the same bug: the
// "[ 12.345678] " stamp, CPU and PID, a task's name and pid, offsets into functions, a
// hung task's seconds. "WARNING: CPU: 1 PID: 345 at drivers/infiniband/sw/rxe/rxe_comp.c:683
// rxe_completer+0x1a/0x2b0 [rdma_rxe]" -> "kernel: WARNING: at drivers/infiniband/sw/rxe/
// rxe_comp.c:683 rxe_completer". Takes a report's first line.
std::string KernelProblemSignature(absl::string_view first_line);

// A problem report: its first line and the lines of the same report after it, as dmesg
// prints them ("[  12.345678] WARNING: CPU: 0 PID: ..."). usec is on CLOCK_MONOTONIC.
struct KernelProblem {
  int64_t usec = 0;
  std::vector<std::string> lines;
};

// Groups records into problems: a problem line starts one; the lines that follow within
// kContinuationUs of the previous belong to it, up to the "---[ end trace" marker or
// kMaxLines. Records that belong to no problem are dropped.
class ProblemCollector {
 public:
  static constexpr int64_t kContinuationUs = 50'000;
  static constexpr size_t kMaxLines = 60;
  void Add(const KernelRecord& record, int64_t clock_offset_us);
  std::vector<KernelProblem> Take();  // every problem collected so far

 private:
  std::vector<KernelProblem> problems_;
  bool open_ = false;  // the last problem may still grow
  int64_t last_usec_ = 0;
};

// The records lost to overruns. After EPIPE the next read returns the oldest record kept;
// the gap between its sequence number and the last one read is how many were lost. An
// overrun before any record was read cannot be measured.
class LostRecords {
 public:
  void Overrun();           // read(2) failed with EPIPE
  void Read(uint64_t seq);  // a record was read
  bool any() const { return counted_ > 0 || unmeasured_ > 0 || pending_; }
  // "12 records overwritten before they were read", "at least 12 ...", "an unknown number of ...".
  std::string Describe() const;

 private:
  std::optional<uint64_t> last_;
  bool pending_ = false;  // an overrun the next record measures
  uint64_t counted_ = 0;
  int unmeasured_ = 0;
};

class KernelLog {
 public:
  // Opens `path` positioned after the last record: only what is logged from now on is read.
  explicit KernelLog(const std::string& path = "/dev/kmsg");
  ~KernelLog();
  KernelLog(const KernelLog&) = delete;
  KernelLog& operator=(const KernelLog&) = delete;

  bool readable() const { return fd_ >= 0; }
  // environment.kernel_log: "read from /dev/kmsg (...)" or "NOT read: <why>".
  std::string Describe() const;

  // Logs "rdmacheck: <text>" (level notice) and measures the clock offset by it; does
  // nothing where the log is not writable.
  void Mark(const std::string& text);

  // Every problem logged since the last call.
  std::vector<KernelProblem> ReadProblems();

  const LostRecords& lost() const { return lost_; }

 private:
  void Drain();
  void Take(absl::string_view raw);  // one record read
  int fd_ = -1, write_fd_ = -1;
  std::string path_, why_not_;
  int64_t offset_us_ = 0;  // kernel clock - CLOCK_MONOTONIC
  bool calibrated_ = false;
  std::string pending_mark_;
  int64_t mark_mono_us_ = 0;
  LostRecords lost_;
  ProblemCollector collector_;
};

// Attaches each problem to every test whose window contains it (tests without a window
// take none): such a test fails, its message says why, result.kernel_log holds the lines.
// Returns the lines of the problems that fell in no window.
std::vector<std::string> AttachKernelProblems(const std::vector<KernelProblem>& problems,
                                              std::vector<TestResult>& tests);

// The suite's result for kernel problems outside every test's window (failed).
inline constexpr char kKernelLogOutsideTests[] = "KernelLog.OutsideTests";
TestResult OutsideTestsResult(const std::string& suite, std::vector<std::string> lines);

// The run's result for kernel problems logged before the first suite, while the device was
// opened and probed (failed; suite "capabilities", beside the probe's BrokenCapability.*).
inline constexpr char kKernelLogWhileProbing[] = "KernelLog.WhileProbing";
TestResult WhileProbingResult(std::vector<std::string> lines);

}  // namespace rdmacheck

#endif  // RDMACHECK_RUNNER_KERNEL_LOG_H_
