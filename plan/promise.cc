#include "plan/promise.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace rdmacheck {

const char* PromiseKindName(PromiseKind kind) {
  switch (kind) {
    case PromiseKind::kReturns: return "returns";
    case PromiseKind::kErrno: return "errno";
    case PromiseKind::kFlag: return "flag";
    case PromiseKind::kBehaviour: return "behaviour";
  }
  return "?";
}

std::optional<PromiseKind> PromiseKindFromName(absl::string_view name) {
  for (PromiseKind kind : {PromiseKind::kReturns, PromiseKind::kErrno, PromiseKind::kFlag, PromiseKind::kBehaviour}) {
    if (name == PromiseKindName(kind)) return kind;
  }
  return std::nullopt;
}

std::string Promise::Id() const { return absl::StrCat(verb, "/", PromiseKindName(kind), "/", what); }

const Promise* PromiseSet::Find(absl::string_view id) const {
  std::vector<absl::string_view> parts = absl::StrSplit(id, absl::MaxSplits('/', 2));
  if (parts.size() != 3) return nullptr;
  auto verb = by_verb.find(std::string(parts[0]));
  if (verb == by_verb.end()) return nullptr;
  for (const Promise& p : verb->second) {
    if (PromiseKindName(p.kind) == parts[1] && p.what == parts[2]) return &p;
  }
  return nullptr;
}

size_t PromiseSet::PromiseCount() const {
  size_t n = 0;
  for (const auto& [verb, promises] : by_verb) n += promises.size();
  return n;
}

size_t PromiseSet::CountOf(PromiseKind kind) const {
  size_t n = 0;
  for (const auto& [verb, promises] : by_verb) {
    for (const Promise& p : promises) n += p.kind == kind;
  }
  return n;
}

}  // namespace rdmacheck
