#include "wire/link_watch.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace rdmacheck {

void DirectionWatch::Observe(absl::Time now, int64_t sent, int64_t received) {
  if (sent > sent_) {
    pending_.emplace_back(sent, now);
    sent_ = sent;
  }
  if (received > received_) {
    received_ = received;
    last_progress_ = now;
  }
  while (!pending_.empty() && pending_.front().first <= received_) pending_.pop_front();
}

bool DirectionWatch::Stalled(absl::Time now, absl::Duration bound) const {
  return waiting() > 0 && now - waiting_since() >= bound && now - last_progress_ >= bound;
}

std::string StallLine(const std::string& link, const std::string& from, const std::string& to,
                      const DirectionWatch& watch, absl::Time run_start, absl::Time now) {
  const absl::Time since = watch.waiting_since();
  return absl::StrCat("link ", link, ": node ", from, " -> node ", to, " stopped carrying frames at ",
                      absl::FormatTime("%H:%M:%E1S UTC", since, absl::UTCTimeZone()),
                      absl::StrFormat(" (%.1f s into the run)", absl::ToDoubleSeconds(since - run_start)), ": ",
                      watch.waiting(), " frames sent by node ", from, " never reached node ", to,
                      absl::StrFormat(" (none arrived for %.0f s)", absl::ToDoubleSeconds(now - watch.last_progress())));
}

}  // namespace rdmacheck
