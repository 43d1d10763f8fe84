#include "walk/fault_injection.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/ascii.h"

namespace rdmacheck::walk {
namespace {

constexpr const char* kDirs[] = {"/sys/kernel/debug/failslab", "/sys/kernel/debug/fail_page_alloc"};

bool Read(const std::string& path, std::string& value) {
  std::ifstream in(path);
  if (!in) return false;
  std::stringstream s;
  s << in.rdbuf();
  value = std::string(absl::StripAsciiWhitespace(s.str()));
  return true;
}

bool Write(const std::string& path, const std::string& value) {
  std::ofstream out(path);
  out << value << '\n';
  out.flush();
  return static_cast<bool>(out);
}

// The thread's make-it-fail, opened once while nothing fails: opening a file allocates, so
// an open while failures are on could fail, and turning them off must not need one (a
// thread left failing dies at its next page-table allocation, SIGBUS).
void SetTaskFailing(bool on) {
  thread_local const int fd = open("/proc/thread-self/make-it-fail", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return;
  const char value = on ? '1' : '0';
  (void)!pwrite(fd, &value, 1, 0);
}

}  // namespace

absl::StatusOr<FaultInjection> FaultInjection::Arm(int interval) {
  if (interval < 1) return absl::InvalidArgumentError("--fail_alloc must be 1 or more (every N-th allocation fails)");
  const std::map<std::string, std::string> wanted = {
      {"probability", "100"}, {"interval", std::to_string(interval)}, {"times", "-1"}, {"space", "0"},
      {"verbose", "0"},       {"task-filter", "Y"},                   {"ignore-gfp-wait", "N"}};
  FaultInjection armed;
  for (const char* dir : kDirs) {
    std::string ignored;
    if (!Read(absl::StrCat(dir, "/task-filter"), ignored)) {
      return absl::FailedPreconditionError(
          absl::StrCat("this kernel has no fault injection (", dir,
                       " missing: CONFIG_FAILSLAB, CONFIG_FAIL_PAGE_ALLOC, debugfs): boot the lab's debug kernel, "
                       "RDMACHECK_KERNEL=debug"));
    }
  }
  for (const char* dir : kDirs) {
    for (const auto& [name, value] : wanted) {
      const std::string path = absl::StrCat(dir, "/", name);
      std::string before;
      if (!Read(path, before)) continue;  // failslab has no ignore-gfp-highmem, and so on
      armed.saved_[path] = before;
      if (!Write(path, value)) return absl::PermissionDeniedError(absl::StrCat("cannot write ", path));
    }
  }
  // fail_page_alloc leaves order-0 pages alone unless told (min-order 1 by default).
  const std::string min_order = absl::StrCat(kDirs[1], "/min-order");
  std::string before;
  if (Read(min_order, before)) {
    armed.saved_[min_order] = before;
    Write(min_order, "0");
  }
  return armed;
}

FaultInjection::~FaultInjection() {
  for (const auto& [path, value] : saved_) Write(path, value);
}

FailingScope::FailingScope(bool on) : on_(on) {
  if (on_) SetTaskFailing(true);
}

FailingScope::~FailingScope() {
  if (!on_) return;
  const int saved = errno;  // the call's errno, read after the scope ends
  SetTaskFailing(false);
  errno = saved;
}

}  // namespace rdmacheck::walk
