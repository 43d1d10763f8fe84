#include "bench/echo_side.h"

#include "absl/strings/str_cat.h"
#include "bench/busy_poll.h"
#include "harness/remote/proxy_endpoint.h"

namespace rdmacheck {
namespace {

absl::Status EchoSends(Endpoint& e, const EchoJob& job, Deadline& deadline) {
  PingPongWrs wrs(e, job.size);
  for (int i = 0; i < job.iterations; ++i) {
    RDMACHECK_RETURN_IF_ERROR(WaitFor(e, e.recv_cq(), IsRecv, deadline, "waiting for a ping").status());
    RDMACHECK_RETURN_IF_ERROR(wrs.PostRecv());
    RDMACHECK_RETURN_IF_ERROR(wrs.PostSend(i));
    RDMACHECK_RETURN_IF_ERROR(ReapSends(e));
  }
  return absl::OkStatus();
}

absl::Status EchoWrites(Endpoint& e, const EchoJob& job, Deadline& deadline) {
  for (int i = 0; i < job.iterations; ++i) {
    RDMACHECK_RETURN_IF_ERROR(AwaitMark(e, job.size, Mark(i), deadline));
    RDMACHECK_RETURN_IF_ERROR(PostPingPongWrite(e, job.size, i));
  }
  return absl::OkStatus();
}

absl::Status Sink(Endpoint& e, const EchoJob& job, Deadline& deadline) {
  for (int received = 0; received < job.iterations; ++received) {
    RDMACHECK_RETURN_IF_ERROR(WaitFor(e, e.recv_cq(), IsRecv, deadline, "waiting for a SEND to arrive").status());
    if (received + job.depth < job.iterations) RDMACHECK_RETURN_IF_ERROR(e.PostRecv(0, 0, job.size));
  }
  return absl::OkStatus();
}

absl::Status NeedsLocal(const Endpoint& e) {
  if (e.in_this_process()) return absl::OkStatus();
  return absl::InternalError("a bench echo job runs on an endpoint in this process");
}

}  // namespace

nlohmann::json ToJson(const EchoJob& job) {
  return {{"kind", job.kind}, {"size", job.size}, {"iterations", job.iterations}, {"depth", job.depth}};
}

absl::StatusOr<EchoJob> EchoJobFromJson(const nlohmann::json& json) {
  try {
    EchoJob job;
    job.kind = json.at("kind").get<std::string>();
    job.size = json.at("size").get<uint32_t>();
    job.iterations = json.at("iterations").get<int>();
    job.depth = json.at("depth").get<int>();
    if (job.kind != "send" && job.kind != "write" && job.kind != "sink") {
      return absl::InvalidArgumentError(absl::StrCat("unknown bench echo job '", job.kind, "'"));
    }
    if (job.iterations < 0 || job.depth < 0 || (job.kind == "write" && job.size == 0)) {
      return absl::InvalidArgumentError("bench echo job: negative count, or a write ping-pong of 0 bytes");
    }
    return job;
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("malformed bench echo job: ", e.what()));
  }
}

absl::Status ArmEcho(Endpoint& e, const EchoJob& job) {
  RDMACHECK_RETURN_IF_ERROR(NeedsLocal(e));
  if (job.kind == "write") return absl::OkStatus();
  return PostRecvs(e, job.kind == "send" ? PingPongRecvOffset(e) : 0, job.size, job.depth);
}

absl::Status RunEcho(Endpoint& e, const EchoJob& job, absl::Duration budget) {
  RDMACHECK_RETURN_IF_ERROR(NeedsLocal(e));
  Deadline deadline(budget);
  if (job.kind == "send") return EchoSends(e, job, deadline);
  if (job.kind == "write") return EchoWrites(e, job, deadline);
  return Sink(e, job, deadline);
}

void AddEchoHandlers(PeerServer& server) {
  server.AddHandler("bench_arm", [](LocalEndpoint& e, const nlohmann::json& request) -> absl::StatusOr<nlohmann::json> {
    RDMACHECK_ASSIGN_OR_RETURN(EchoJob job, EchoJobFromJson(request.at("job")));
    RDMACHECK_RETURN_IF_ERROR(ArmEcho(e, job));
    return nlohmann::json::object();
  });
  server.AddHandler("bench_echo", [](LocalEndpoint& e, const nlohmann::json& request) -> absl::StatusOr<nlohmann::json> {
    RDMACHECK_ASSIGN_OR_RETURN(EchoJob job, EchoJobFromJson(request.at("job")));
    const int64_t budget_ms = request.at("budget_ms").get<int64_t>();
    if (budget_ms <= 0) return absl::InvalidArgumentError("bench_echo: budget_ms must be > 0");
    RDMACHECK_RETURN_IF_ERROR(RunEcho(e, job, absl::Milliseconds(budget_ms)));
    return nlohmann::json::object();
  });
}

absl::StatusOr<std::unique_ptr<EchoSide>> EchoSide::Start(Endpoint& e, const EchoJob& job, absl::Duration budget) {
  std::unique_ptr<EchoSide> side(new EchoSide());
  if (e.in_this_process()) {
    RDMACHECK_RETURN_IF_ERROR(ArmEcho(e, job));
    side->thread_ = std::thread([&e, job, budget, s = side.get()] { s->status_ = RunEcho(e, job, budget); });
  } else {
    auto& proxy = static_cast<ProxyEndpoint&>(e);
    RDMACHECK_RETURN_IF_ERROR(proxy.Call("bench_arm", {{"job", ToJson(job)}}).status());
    side->thread_ = std::thread([&proxy, job, budget, s = side.get()] {
      s->status_ = proxy.Call("bench_echo", {{"job", ToJson(job)}, {"budget_ms", absl::ToInt64Milliseconds(budget)}}, budget).status();
    });
  }
  return side;
}

EchoSide::~EchoSide() {
  if (thread_.joinable()) thread_.join();
}

absl::Status EchoSide::Finish() {
  if (thread_.joinable()) thread_.join();
  return status_;
}

}  // namespace rdmacheck
