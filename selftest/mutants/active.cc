// Which mutant this process runs: RDMACHECK_MUTANT, in a suite child, and for a
// probe-visible variant (<name>@probe) in `rdmacheck probe` too; and the note that it acted.
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "selftest/mutants/mutant.h"

namespace rdmacheck::mutants {
namespace {

// A child forked from `run`'s fork server says so in its environment: kForkedChildEnv of
// runner/fork_server.h, spelled out here as "__child" is (the library uses no rdmacheck layer).
constexpr char kForkedChildEnv[] = "RDMACHECK_FORKED_CHILD";

// The first argument of this process (`rdmacheck <command>`): "__child", "probe", ...
std::string Command() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t first_end = cmdline.find('\0');
  if (first_end == std::string::npos) return "";
  const size_t second_end = cmdline.find('\0', first_end + 1);
  return cmdline.substr(first_end + 1, second_end - first_end - 1);
}

// The process that runs the tests (runner/conformance_run.cc): `rdmacheck __child ...`,
// or a forked child.
bool IsSuiteChild() { return getenv(kForkedChildEnv) != nullptr || Command() == "__child"; }

bool IsProbeVariant(const std::string& name) {
  const size_t n = strlen(kProbeVariant);
  return name.size() > n && name.compare(name.size() - n, n, kProbeVariant) == 0;
}

// Where the mutant acts in this process: "tests", "probe", or nullptr (not here).
const char* Role(const char* name) {
  if (!name || !*name) return nullptr;
  if (IsSuiteChild()) return "tests";
  if (IsProbeVariant(name) && Command() == "probe") return "probe";
  return nullptr;
}

const char* role = nullptr;  // of the active mutant, set by Select()
std::string acted_file;      // RDMACHECK_MUTANT_ACTED, read by Select()

const Mutant* Select() {
  const char* name = getenv("RDMACHECK_MUTANT");
  role = Role(name);
  if (!role) return nullptr;
  if (const char* file = getenv("RDMACHECK_MUTANT_ACTED")) acted_file = file;
  // A forked child loaded this library with `run`, before it was a child: its helpers must
  // not inherit it either (see KeepHelpersUnmutated), nor the mark of a child.
  unsetenv("LD_PRELOAD");
  unsetenv(kForkedChildEnv);
  std::string base = name;
  if (IsProbeVariant(base)) base.resize(base.size() - strlen(kProbeVariant));
  for (const Mutant& m : AllMutants()) {
    if (base == m.name) return &m;
  }
  // A typo must not pass as a mutant that survived: the child fails loudly.
  fprintf(stderr, "libmutants: unknown RDMACHECK_MUTANT '%s'\n", name);
  abort();
}

// A suite child's (or the probe's) own helpers (`rdma resource show` for the leak check,
// shells) run unmutated, and without loading this library and libstdc++ again each time:
// they do not inherit LD_PRELOAD from it.
__attribute__((constructor)) void KeepHelpersUnmutated() {
  if (Role(getenv("RDMACHECK_MUTANT"))) unsetenv("LD_PRELOAD");
}

}  // namespace

const Mutant* Active() {
  static const Mutant* active = Select();
  return active;
}

void Acted() {
  // Once per process; a forked probe child has its own pid and notes itself.
  static std::atomic<pid_t> noted{0};
  const pid_t pid = getpid();
  if (acted_file.empty() || noted.exchange(pid) == pid) return;
  const std::string line = std::string(getenv("RDMACHECK_MUTANT") ? getenv("RDMACHECK_MUTANT") : "?") + " " +
                           role + " " + std::to_string(pid) + "\n";
  const int fd = open(acted_file.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  (void)!write(fd, line.data(), line.size());  // one short append: whole, whatever else writes
  close(fd);
}

namespace {
thread_local int rdma_cm_depth = 0;
}  // namespace

InRdmaCm::InRdmaCm() { ++rdma_cm_depth; }
InRdmaCm::~InRdmaCm() { --rdma_cm_depth; }
bool InsideRdmaCm() { return rdma_cm_depth > 0; }

}  // namespace rdmacheck::mutants
