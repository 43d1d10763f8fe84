// Which mutant this process runs: RDMACHECK_MUTANT, in a suite child only.
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

// The process that runs the tests (runner/conformance_run.cc): `rdmacheck __child ...`,
// or a forked child.
bool IsSuiteChild() {
  if (getenv(kForkedChildEnv) != nullptr) return true;
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t first_end = cmdline.find('\0');
  if (first_end == std::string::npos) return false;
  const size_t second_end = cmdline.find('\0', first_end + 1);
  return cmdline.substr(first_end + 1, second_end - first_end - 1) == "__child";
}

const Mutant* Select() {
  const char* name = getenv("RDMACHECK_MUTANT");
  if (!name || !*name || !IsSuiteChild()) return nullptr;
  // A forked child loaded this library with `run`, before it was a child: its helpers must
  // not inherit it either (see KeepHelpersUnmutated), nor the mark of a child.
  unsetenv("LD_PRELOAD");
  unsetenv(kForkedChildEnv);
  for (const Mutant& m : AllMutants()) {
    if (strcmp(m.name, name) == 0) return &m;
  }
  // A typo must not pass as a mutant that survived: the child fails loudly.
  fprintf(stderr, "libmutants: unknown RDMACHECK_MUTANT '%s'\n", name);
  abort();
}

// A suite child's own helpers (`rdma resource show` for the leak check, shells) run
// unmutated, and without loading this library and libstdc++ again each time: they do not
// inherit LD_PRELOAD from it.
__attribute__((constructor)) void KeepHelpersUnmutated() {
  if (getenv("RDMACHECK_MUTANT") && IsSuiteChild()) unsetenv("LD_PRELOAD");
}

}  // namespace

const Mutant* Active() {
  static const Mutant* active = Select();
  return active;
}

}  // namespace rdmacheck::mutants
