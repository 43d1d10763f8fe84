#include "harness/verbs/owners.h"

#include <cstdio>
#include <utility>

#include "harness/status.h"

namespace rdmacheck {
namespace {
ReleaseFailureHandler& Handler() {
  static ReleaseFailureHandler handler;
  return handler;
}
}  // namespace

void SetReleaseFailureHandler(ReleaseFailureHandler handler) { Handler() = std::move(handler); }

void OnReleaseFailure(const char* verb, int err) {
  if (Handler()) {
    Handler()(verb, err);
    return;
  }
  std::fprintf(stderr, "rdmacheck: %s failed: %s; the object leaks\n", verb,
               std::string(ErrnoName(err)).c_str());
}

}  // namespace rdmacheck
