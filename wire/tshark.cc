#include "wire/tshark.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "harness/child_process.h"

namespace rdmacheck {

std::vector<std::string> TsharkArgs(const std::string& capture) {
  return {"tshark", "-r", capture, "-n", "-T", "ek",
          // Full fields of these layers only (every other layer is one "filtered" key).
          "-J", "frame ip ipv6 udp tcp infiniband iwarp_mpa iwarp_ddp_rdmap",
          // A segment lost on the wire comes again after the ones that followed it (TCP's
          // retransmission): the FPDUs are read in TCP's order, as the receiver reads them,
          // not in the order the capture saw the segments.
          "-o", "tcp.reassemble_out_of_order:TRUE",
          // The payloads' own protocols (RPC-over-RDMA, SMB Direct) are not ours to judge;
          // their heuristics misread test patterns as malformed packets.
          "--disable-protocol", "rpcordma", "--disable-protocol", "smb_direct"};
}

absl::StatusOr<TsharkRun> ForEachTsharkPacket(const std::string& capture, const TsharkOptions& options,
                                              const std::function<void(const nlohmann::json& layers)>& on_packet) {
  if (!std::ifstream(capture).good()) {
    return absl::NotFoundError(absl::StrCat("cannot read ", capture, ": ", std::strerror(errno)));
  }
  std::vector<std::string> args = TsharkArgs(capture);
  args[0] = options.program;
  absl::StatusOr<ChildProcess> child = SpawnChild(args, Stderr::kSeparate);
  if (!child.ok()) {
    return absl::UnavailableError(
        absl::StrCat(child.status().message(), " (Wireshark's tshark reads the capture: scripts/install-deps.sh installs it)"));
  }
  TsharkRun run;
  std::string pending;  // an incomplete last line
  absl::Status parse_error;
  auto on_line = [&](absl::string_view line) {
    if (line.empty() || !parse_error.ok() || absl::StartsWith(line, "{\"index\"")) return;
    nlohmann::json packet = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (packet.is_discarded() || !packet.contains("layers")) {
      parse_error = absl::UnavailableError(absl::StrCat("tshark printed a line that is not an EK packet: ",
                                                        line.substr(0, 120)));
      return;
    }
    on_packet(packet["layers"]);
    ++run.packets;
  };
  const auto deadline = std::chrono::steady_clock::now() + absl::ToChronoNanoseconds(options.budget);
  int exit = FinishChild(*child, deadline, [&](absl::string_view chunk) {
    pending.append(chunk.data(), chunk.size());
    size_t start = 0;
    for (size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1) {
      on_line(absl::string_view(pending).substr(start, nl - start));
    }
    pending.erase(0, start);
  });
  on_line(pending);
  if (exit < 0) {
    return absl::DeadlineExceededError(absl::StrCat("tshark did not finish reading ", capture, " within ",
                                                    absl::FormatDuration(options.budget)));
  }
  if (!parse_error.ok()) return parse_error;
  if (exit != 0 && absl::StrContains(child->errors, "cut short in the middle of a packet")) {
    run.cut_short = true;
  } else if (exit != 0) {
    std::string why = "no error message";
    for (absl::string_view line : absl::StrSplit(child->errors, '\n', absl::SkipWhitespace())) {
      if (absl::StrContains(line, "Running as user")) continue;  // its warning for root
      why = std::string(line);
      break;
    }
    return absl::UnavailableError(absl::StrCat("tshark could not read ", capture, " (exit ", exit, "): ", why));
  }
  return run;
}

}  // namespace rdmacheck
