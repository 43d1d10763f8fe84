#include "runner/counters.h"

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "capabilities/verdict/decide.h"
#include "harness/completion.h"

namespace rdmacheck {

std::unique_ptr<TrafficWatch> TrafficWatch::For(const Selection& selection, const Profile& profile) {
  if (!Decide(profile, Cap::kTrafficCounters).available) return nullptr;
  DeviceCounters counters = DeviceCounters::Find(selection.device, selection.port);
  if (!counters.any()) return nullptr;
  std::unique_ptr<TrafficWatch> watch(new TrafficWatch(std::move(counters)));
  watch->where_ = absl::StrCat(selection.device, " port ", selection.port);
  return watch;
}

void TrafficWatch::Start() {
  const absl::Time t = absl::Now();
  completions_before_ = WireCompletions();
  before_ = counters_.Read();
  read_ms_ = absl::ToDoubleMilliseconds(absl::Now() - t);
}

nlohmann::json TrafficWatch::End() {
  const absl::Time t = absl::Now();
  const uint64_t completions = WireCompletions() - completions_before_;
  absl::StatusOr<CounterValues> after = counters_.Read();
  read_ms_ += absl::ToDoubleMilliseconds(absl::Now() - t);
  nlohmann::json record;
  if (!before_.ok() || !after.ok()) {
    record = {{"completions", completions},
              {"error", std::string((before_.ok() ? after.status() : before_.status()).message())}};
  } else {
    record = TrafficRecord(completions, CounterDeltas(*before_, *after), where_);
  }
  record["read_ms"] = read_ms_;
  return record;
}

nlohmann::json TrafficRecord(uint64_t completions, const std::map<std::string, int64_t>& deltas,
                             const std::string& where) {
  nlohmann::json record = {{"completions", completions}, {"counters", deltas}};
  if (completions > 0 && deltas.empty()) {
    record["flag"] = absl::StrCat(completions, " work completion(s) on the wire, but no counter of ", where,
                                  " moved: the traffic went another way, or the counters do not count it");
  }
  return record;
}

}  // namespace rdmacheck
