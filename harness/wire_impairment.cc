#include "harness/wire_impairment.h"

#include <regex>

#include "absl/flags/flag.h"

ABSL_FLAG(std::string, impaired_wire, "",
          "The impairment on the wire to the peer, as PROFILE or 'PROFILE: NETEM ARGUMENTS' (impair/profiles, set "
          "by scripts/wire-lab.sh --impair): UC and UD may then lose messages, and their tests stop requiring that "
          "every one arrives; where it reorders or duplicates packets (netem reorder, duplicate, a delay with "
          "jitter), UC's order and once-only delivery are not asked either");

namespace rdmacheck {

std::string WireImpairment() { return absl::GetFlag(FLAGS_impaired_wire); }

bool WireImpaired() { return !WireImpairment().empty(); }

bool WireMayReorder() {
  static const std::regex kReorders(R"(\b(reorder|duplicate)\b|\bdelay\s+\S+\s+[0-9])");
  return std::regex_search(WireImpairment(), kReorders);
}

}  // namespace rdmacheck
