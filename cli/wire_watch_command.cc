// rdmacheck wire watch: watches the wire lab's links while its nodes run, each link
// captured at both ends, and stops at the first direction that stalls (wire/link_watch.h).
//
//   rdmacheck wire watch [--stall_after=SECONDS] [--lab_failure=FILE.json] LINK...
//   LINK: NAME,MAC_A,CAPTURE_A,MAC_B,CAPTURE_B   (node A's NIC and capture, node B's)
//
// Runs until killed (scripts/wire-lab.sh ends it with the run) or a stall: then one line
// on stderr naming the link, the direction and the time, the same in FILE.json (with the
// frame count of node A's capture before the stall: tests whose end lies past it are not
// the device's, `rdmacheck wire-slices --lab_failure`), and exit 1. Exit 2 on bad input.
#include <iostream>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cli/commands.h"
#include "harness/files.h"
#include "nlohmann/json.hpp"
#include "wire/link_watch.h"
#include "wire/pcap_tail.h"

ABSL_FLAG(double, stall_after, 10,
          "wire watch: seconds a direction may hold frames sent and not received, with none arriving, before it "
          "counts as stalled");
ABSL_FLAG(std::string, lab_failure, "",
          "wire watch: where to write a stall as JSON; wire-slices: that JSON, so that on its link no test whose slice "
          "ends past the stall is the device's");

namespace rdmacheck {
namespace {

struct End {
  std::string node;
  MacAddress mac;
  PcapTail capture;
};

struct Watched {
  std::string name;
  End a, b;
  DirectionWatch a_to_b, b_to_a;
  std::vector<std::pair<absl::Time, int64_t>> a_frames;  // node A's capture size over time
};

absl::StatusOr<Watched> ParseLink(const std::string& spec, absl::Time start) {
  std::vector<std::string> f = absl::StrSplit(spec, ',');
  if (f.size() != 5 || f[0].empty()) {
    return absl::InvalidArgumentError(absl::StrCat("wire watch: '", spec, "' is not NAME,MAC_A,CAPTURE_A,MAC_B,CAPTURE_B"));
  }
  absl::StatusOr<MacAddress> a = ParseMac(f[1]), b = ParseMac(f[3]);
  if (!a.ok()) return a.status();
  if (!b.ok()) return b.status();
  return Watched{f[0], {"A", *a, PcapTail(f[2])}, {"B", *b, PcapTail(f[4])}, DirectionWatch(start),
                 DirectionWatch(start), {}};
}

// Node A's capture size when the stalled direction's oldest waiting frame was sent.
int64_t AFramesAt(const Watched& w, absl::Time when) {
  int64_t frames = 0;
  for (const auto& [t, n] : w.a_frames) {
    if (t > when) break;
    frames = n;
  }
  return frames;
}

int ReportStall(const Watched& w, bool b_to_a, absl::Time start, absl::Time now) {
  const DirectionWatch& d = b_to_a ? w.b_to_a : w.a_to_b;
  const std::string from = b_to_a ? "B" : "A", to = b_to_a ? "A" : "B";
  const std::string line = StallLine(w.name, from, to, d, start, now);
  std::cerr << "rdmacheck wire watch: " << line << std::endl;
  if (const std::string path = absl::GetFlag(FLAGS_lab_failure); !path.empty()) {
    const nlohmann::json failure = {{"reason", absl::StrCat("the lab's wire stalled: ", line)},
                                    {"link", w.name},
                                    {"direction", absl::StrCat(from, ">", to)},
                                    {"since", absl::FormatTime(absl::RFC3339_sec, d.waiting_since(), absl::UTCTimeZone())},
                                    {"frames_waiting", d.waiting()},
                                    {"capture_a_frames_before", AFramesAt(w, d.waiting_since())}};
    if (absl::Status s = WriteFile(path, failure.dump(2) + "\n"); !s.ok()) std::cerr << s.message() << std::endl;
  }
  return kExitFailures;
}

}  // namespace

int WireWatchCommand(const std::vector<std::string>& links) {
  const double after = absl::GetFlag(FLAGS_stall_after);
  if (!(after > 0)) return UsageError("--stall_after must be a positive number of seconds");
  if (links.empty()) return UsageError("usage: rdmacheck wire watch [--stall_after=S] NAME,MAC_A,CAPTURE_A,MAC_B,CAPTURE_B...");
  const absl::Time start = absl::Now();
  std::vector<Watched> watched;
  for (const std::string& spec : links) {
    absl::StatusOr<Watched> w = ParseLink(spec, start);
    if (!w.ok()) return UsageError(w.status());
    watched.push_back(*std::move(w));
  }
  const absl::Duration bound = absl::Seconds(after);
  for (;;) {
    const absl::Time now = absl::Now();
    for (Watched& w : watched) {
      for (PcapTail* c : {&w.a.capture, &w.b.capture}) {
        if (absl::Status s = c->Poll(); !s.ok()) return UsageError(s);
      }
      w.a_frames.emplace_back(now, w.a.capture.frames());
      w.a_to_b.Observe(now, w.a.capture.frames_from(w.a.mac), w.b.capture.frames_from(w.a.mac));
      w.b_to_a.Observe(now, w.b.capture.frames_from(w.b.mac), w.a.capture.frames_from(w.b.mac));
      if (w.b_to_a.Stalled(now, bound)) return ReportStall(w, /*b_to_a=*/true, start, now);
      if (w.a_to_b.Stalled(now, bound)) return ReportStall(w, /*b_to_a=*/false, start, now);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
}

}  // namespace rdmacheck
