#include "runner/kernel_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <regex>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "capabilities/verdict/broken.h"

namespace rdmacheck {

int64_t MonotonicMicros() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000 + ts.tv_nsec / 1000;
}

std::optional<KernelRecord> ParseKmsgRecord(absl::string_view raw) {
  const size_t semicolon = raw.find(';');
  if (semicolon == absl::string_view::npos) return std::nullopt;
  std::vector<absl::string_view> fields = absl::StrSplit(raw.substr(0, semicolon), ',');
  int prefix = 0;
  int64_t usec = 0;
  uint64_t seq = 0;
  if (fields.size() < 3 || !absl::SimpleAtoi(fields[0], &prefix) || !absl::SimpleAtoi(fields[1], &seq) ||
      !absl::SimpleAtoi(fields[2], &usec)) {
    return std::nullopt;
  }
  absl::string_view text = raw.substr(semicolon + 1);
  text = text.substr(0, text.find('\n'));  // the continuation lines are KEY=value pairs
  return KernelRecord{usec, prefix & 7, std::string(text), seq};
}

std::string KernelProblemSignature(absl::string_view first_line) {
  std::string s(first_line);
  static const auto* const kRewrites = new std::vector<std::pair<std::regex, std::string>>{
      {std::regex(R"(^\[\s*\d+\.\d+\]\s*)"), ""},                  // dmesg's stamp
      {std::regex(R"(CPU: \d+ PID: \d+ )"), ""},                          // WARNING: CPU: 1 PID: 345 at
      {std::regex(R"(\+0x[0-9a-f]+/0x[0-9a-f]+)"), ""},                   // rxe_completer+0x1a/0x2b0
      {std::regex(R"( \[[A-Za-z0-9_]+\]$)"), ""},                         // the module: [rdma_rxe]
      {std::regex(R"(task \S+:\d+ blocked for more than \d+ seconds)"), "task blocked"},  // hung_task.c
      {std::regex(R"(by task \S+/\d+)"), "by a task"},                   // KASAN's access line
      {std::regex(R"(\s+)"), " "},
  };
  for (const auto& [pattern, replacement] : *kRewrites) s = std::regex_replace(s, pattern, replacement);
  return absl::StrCat("kernel: ", absl::StripAsciiWhitespace(s));
}

bool IsKernelProblem(absl::string_view text) {
  // Where the kernel's reports begin (kernel/panic.c __warn, lib/bug.c, arch/x86/kernel/dumpstack.c
  // and traps.c, kernel/locking/lockdep.c, kernel/hung_task.c, kernel/rcu/tree_stall.h,
  // kernel/watchdog.c, lib/ubsan.c, mm/kasan/report.c, mm/kmemleak.c).
  static constexpr absl::string_view kStarts[] = {
      "WARNING:", "BUG:", "kernel BUG at", "Oops", "general protection fault", "UBSAN:", "Kernel panic",
      "INFO: task ", "INFO: trying to register non-static key", "watchdog: BUG:", "NMI watchdog:"};
  static constexpr absl::string_view kContains[] = {
      "detected stall", "self-detected stall", "detected stalls", "possible circular locking dependency",
      "possible recursive locking", "inconsistent lock state", "BUG: KASAN", "blocked for more than",
      "soft lockup", "hard LOCKUP", "new suspected memory leaks"};
  for (absl::string_view s : kStarts) {
    if (absl::StartsWith(text, s)) return true;
  }
  for (absl::string_view s : kContains) {
    if (absl::StrContains(text, s)) return true;
  }
  return false;
}

void ProblemCollector::Add(const KernelRecord& record, int64_t clock_offset_us) {
  const std::string line =
      absl::StrFormat("[%5d.%06d] %s", record.usec / 1'000'000, record.usec % 1'000'000, record.text);
  const bool starts = IsKernelProblem(record.text);
  const bool continues = open_ && record.usec - last_usec_ <= kContinuationUs &&
                         problems_.back().lines.size() < kMaxLines;
  if (starts && !continues) {
    problems_.push_back({record.usec - clock_offset_us, {line}});
    open_ = true;
  } else if (continues) {
    problems_.back().lines.push_back(line);
  } else {
    open_ = false;
    return;
  }
  last_usec_ = record.usec;
  if (absl::StrContains(record.text, "---[ end trace")) open_ = false;
}

std::vector<KernelProblem> ProblemCollector::Take() {
  // A report still growing is taken as it is: its later lines, if any, are dropped (a
  // report split across suites is rare, and its first line is what fails the test).
  std::vector<KernelProblem> taken;
  taken.swap(problems_);
  open_ = false;
  return taken;
}

void LostRecords::Overrun() {
  if (last_) {
    pending_ = true;
  } else {
    ++unmeasured_;
  }
}

void LostRecords::Read(uint64_t seq) {
  if (last_ && seq > *last_ + 1) {
    counted_ += seq - *last_ - 1;
  } else if (pending_) {
    ++unmeasured_;  // EPIPE without a gap: lost, but not counted
  }
  pending_ = false;
  last_ = seq;
}

std::string LostRecords::Describe() const {
  const int unmeasured = unmeasured_ + (pending_ ? 1 : 0);
  const std::string how_many =
      counted_ == 0 ? "an unknown number of" : absl::StrCat(unmeasured > 0 ? "at least " : "", counted_);
  return absl::StrCat(how_many, " records overwritten before they were read");
}

KernelLog::KernelLog(const std::string& path) : path_(path) {
  fd_ = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd_ < 0) {
    const int err = errno;
    why_not_ = err == ENOENT ? absl::StrCat("no ", path, " (a container without it?)")
               : err == EACCES || err == EPERM
                   ? absl::StrCat(path, ": ", std::strerror(err),
                                  " (needs CAP_SYSLOG, or kernel.dmesg_restrict=0)")
                   : absl::StrCat(path, ": ", std::strerror(err));
    return;
  }
  // Reading can still be refused (a container's syslog namespace): try once now.
  lseek(fd_, 0, SEEK_END);
  char buffer[8192];
  const ssize_t n = read(fd_, buffer, sizeof(buffer));
  if (n < 0 && errno != EAGAIN && errno != EPIPE) {
    why_not_ = absl::StrCat("reading ", path, ": ", std::strerror(errno));
    close(fd_);
    fd_ = -1;
    return;
  }
  if (n > 0) Take(absl::string_view(buffer, n));  // logged since the seek: as much ours as any later one
  write_fd_ = open(path.c_str(), O_WRONLY | O_CLOEXEC);
}

KernelLog::~KernelLog() {
  if (fd_ >= 0) close(fd_);
  if (write_fd_ >= 0) close(write_fd_);
}

std::string KernelLog::Describe() const {
  if (!readable()) return absl::StrCat("NOT read: ", why_not_);
  std::string d = absl::StrCat("read from ", path_, "; problem lines attributed to tests by time (",
                               calibrated_ ? absl::StrCat("kernel clock - CLOCK_MONOTONIC = ", offset_us_, " us, measured")
                                           : "kernel clock taken as CLOCK_MONOTONIC: not writable, no marker",
                               ")");
  if (lost_.any()) absl::StrAppend(&d, "; ", lost_.Describe());
  return d;
}

void KernelLog::Mark(const std::string& text) {
  if (!readable() || write_fd_ < 0) return;
  Drain();  // the marker must be the next record we look for
  const std::string line = absl::StrCat("<5>rdmacheck: ", text, "\n");
  const int64_t before = MonotonicMicros();
  if (write(write_fd_, line.data(), line.size()) < 0) return;
  mark_mono_us_ = (before + MonotonicMicros()) / 2;
  pending_mark_ = absl::StrCat("rdmacheck: ", text);
  Drain();
}

void KernelLog::Drain() {
  if (!readable()) return;
  char buffer[8192];
  while (true) {
    ssize_t n = read(fd_, buffer, sizeof(buffer) - 1);
    if (n < 0 && errno == EPIPE) {  // overwritten before we read it; the next read goes on
      lost_.Overrun();
      continue;
    }
    if (n <= 0) return;  // EAGAIN: nothing more for now
    Take(absl::string_view(buffer, n));
  }
}

void KernelLog::Take(absl::string_view raw) {
  std::optional<KernelRecord> record = ParseKmsgRecord(raw);
  if (!record) return;
  lost_.Read(record->seq);
  if (!pending_mark_.empty() && record->text == pending_mark_) {
    offset_us_ = record->usec - mark_mono_us_;
    calibrated_ = true;
    pending_mark_.clear();
    return;
  }
  collector_.Add(*record, offset_us_);
}

std::vector<KernelProblem> KernelLog::ReadProblems() {
  Drain();
  return collector_.Take();
}

std::vector<std::string> AttachKernelProblems(const std::vector<KernelProblem>& problems,
                                              std::vector<TestResult>& tests) {
  std::vector<std::string> outside;
  for (const KernelProblem& p : problems) {
    bool attached = false;
    for (TestResult& t : tests) {
      if (t.start_us == 0 || p.usec < t.start_us || p.usec > t.end_us) continue;
      attached = true;
      if (t.kernel_log.empty()) {
        const std::string why = absl::StrCat("kernel log: the kernel reported a problem during this test: ", p.lines[0]);
        t.message = t.status == TestStatus::kFail && !t.message.empty() ? absl::StrCat(why, "\n", t.message) : why;
        t.status = TestStatus::kFail;
        t.capability.clear();
      }
      t.kernel_log.insert(t.kernel_log.end(), p.lines.begin(), p.lines.end());
    }
    if (!attached) outside.insert(outside.end(), p.lines.begin(), p.lines.end());
  }
  return outside;
}

namespace {
// A failed result holding kernel problem lines that no test's window took.
TestResult KernelLogResult(const std::string& suite, const char* name, const std::string& when,
                           std::vector<std::string> lines, const char* purpose) {
  TestResult r;
  r.suite = suite;
  r.name = name;
  r.status = TestStatus::kFail;
  r.message = absl::StrCat("kernel log: the kernel reported a problem ", when, ": ", lines.empty() ? "" : lines[0]);
  r.kernel_log = std::move(lines);
  r.purpose = purpose;
  r.reference = "Documentation/ABI/testing/dev-kmsg; blktests (fails a test on a kernel warning)";
  return r;
}
}  // namespace

TestResult OutsideTestsResult(const std::string& suite, std::vector<std::string> lines) {
  return KernelLogResult(suite, kKernelLogOutsideTests,
                         absl::StrCat("while suite ", suite, " ran, outside every test's window"), std::move(lines),
                         "the kernel logged no WARNING, BUG, Oops, lockdep report, hung task or RCU stall between the "
                         "suite's tests (a driver's deferred work after a test ended, or the runner itself)");
}

TestResult WhileProbingResult(std::vector<std::string> lines) {
  return KernelLogResult(kBrokenCapabilitySuite, kKernelLogWhileProbing,
                         "while the device was opened and probed, before the first suite", std::move(lines),
                         "the kernel logged no WARNING, BUG, Oops, lockdep report, hung task or RCU stall while "
                         "rdmacheck opened the device and its probes tried each capability");
}

}  // namespace rdmacheck
