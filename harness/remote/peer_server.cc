#include "harness/remote/peer_server.h"

#include <map>
#include <memory>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "harness/connection/local_endpoint.h"
#include "harness/remote/served_targets.h"
#include "harness/remote/wire.h"
#include "harness/status.h"
#include "harness/timeouts.h"

namespace rdmacheck {
namespace {

nlohmann::json StateOf(const LocalEndpoint& e) {
  const ibv_qp_cap& cap = e.granted_cap();
  return {{"own", ToJson(EndpointInfo{e.address(), e.remote_buffer()})},
          {"peer", ToJson(EndpointInfo{e.peer_address(), e.peer_buffer()})},
          {"qkey", e.qkey()},
          {"cap",
           {{"max_send_wr", cap.max_send_wr},
            {"max_recv_wr", cap.max_recv_wr},
            {"max_send_sge", cap.max_send_sge},
            {"max_recv_sge", cap.max_recv_sge},
            {"max_inline_data", cap.max_inline_data}}}};
}

// One connection's endpoints and the handling of its requests.
class Session {
 public:
  Session(ibv_context* context, const Selection& selection, const std::map<std::string, PeerServer::Handler>& handlers)
      : context_(context), selection_(selection), handlers_(handlers) {}

  // The answer to `request` (without "seq"; the caller adds it).
  nlohmann::json Handle(const nlohmann::json& request) {
    try {
      absl::StatusOr<nlohmann::json> answer = Dispatch(request);
      if (!answer.ok()) return ErrorToJson(answer.status());
      (*answer)["ok"] = true;
      return *answer;
    } catch (const nlohmann::json::exception& e) {
      return ErrorToJson(absl::InvalidArgumentError(absl::StrCat("malformed request: ", e.what())));
    }
  }

 private:
  absl::StatusOr<LocalEndpoint*> Find(const nlohmann::json& request) {
    auto it = endpoints_.find(request.at("ep").get<int64_t>());
    if (it == endpoints_.end()) return absl::NotFoundError("no such endpoint in this session");
    return it->second.get();
  }

  absl::StatusOr<nlohmann::json> Dispatch(const nlohmann::json& request) {
    const std::string op = request.at("op").get<std::string>();
    if (op == "ping") return nlohmann::json{{"pong", true}};  // liveness: `run` asks after a failure (PingPeer)
    if (op == "hello") {
      if (request.value("version", 0) != kSideChannelVersion) {
        return absl::FailedPreconditionError(absl::StrCat("side channel version ", request.value("version", 0),
                                                          " asked, this server speaks ", kSideChannelVersion));
      }
      return nlohmann::json{{"device", selection_.device},
                            {"transport", TransportName(selection_.transport)},
                            {"port", selection_.port},
                            {"gid_index", selection_.gid.index},
                            {"gid", selection_.gid.Address()},
                            {"gid_type", selection_.gid.TypeName()},
                            {"active_mtu", static_cast<int>(selection_.port_attr.active_mtu)}};
    }
    if (op == "new") {
      const int64_t id = next_id_++;
      endpoints_[id] = std::make_unique<LocalEndpoint>(context_, selection_);
      return nlohmann::json{{"ep", id}};
    }
    RDMACHECK_ASSIGN_OR_RETURN(LocalEndpoint * e, Find(request));
    const int64_t ep = request.at("ep").get<int64_t>();
    if (op == "destroy") {
      targets_.DropEndpoint(ep);
      endpoints_.erase(ep);
      return nlohmann::json::object();
    }
    if (ServedTargets::Handles(op)) return targets_.Handle(op, ep, *e, request);
    if (op == "move_qp_to") {
      RDMACHECK_RETURN_IF_ERROR(e->MoveQpTo(static_cast<ibv_qp_state>(request.at("state").get<int>())));
      return nlohmann::json::object();
    }
    if (op == "qp_state") {
      RDMACHECK_ASSIGN_OR_RETURN(ibv_qp_state state, e->QpState());
      return nlohmann::json{{"state", static_cast<int>(state)}};
    }
    if (op == "prepare" || op == "wire" || op == "rewire" || op == "listen" || op == "accept" || op == "established") {
      nlohmann::json answer = nlohmann::json::object();
      if (op == "established") {
        RDMACHECK_RETURN_IF_ERROR(e->AwaitEstablished());
      } else {
        RDMACHECK_ASSIGN_OR_RETURN(PairOptions options, OptionsFromJson(request.at("options")));
        if (op == "prepare") {
          RDMACHECK_RETURN_IF_ERROR(e->Prepare(options).status());
        } else if (op == "wire") {
          RDMACHECK_ASSIGN_OR_RETURN(EndpointInfo peer, InfoFromJson(request.at("peer")));
          RDMACHECK_RETURN_IF_ERROR(e->Wire(peer, options));
        } else if (op == "rewire") {
          RDMACHECK_ASSIGN_OR_RETURN(EndpointInfo peer, InfoFromJson(request.at("peer")));
          RDMACHECK_RETURN_IF_ERROR(e->Rewire(peer.address, request.at("psn").get<uint32_t>(), options));
        } else if (op == "listen") {
          RDMACHECK_ASSIGN_OR_RETURN(sockaddr_storage address, e->Listen(options));
          answer["address"] = SockaddrToHex(address);
        } else {
          RDMACHECK_RETURN_IF_ERROR(e->Accept(options));
        }
      }
      answer["state"] = StateOf(*e);
      return answer;
    }
    if (op == "fill" || op == "check") {
      const Slice where{request.at("offset").get<size_t>(), request.at("length").get<uint32_t>()};
      RDMACHECK_ASSIGN_OR_RETURN(Pattern pattern, PatternFromJson(request.at("pattern")));
      RDMACHECK_RETURN_IF_ERROR(op == "fill" ? e->Fill(where, pattern) : e->Check(where, pattern));
      return nlohmann::json::object();
    }
    if (op == "read") {
      RDMACHECK_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes,
                                 e->Read({request.at("offset").get<size_t>(), request.at("length").get<uint32_t>()}));
      return nlohmann::json{{"hex", ToHex(bytes)}};
    }
    if (op == "write") {
      RDMACHECK_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, FromHex(request.at("hex").get<std::string>()));
      RDMACHECK_RETURN_IF_ERROR(e->Write(request.at("offset").get<size_t>(), bytes));
      return nlohmann::json::object();
    }
    if (op == "post_recv") {
      RDMACHECK_ASSIGN_OR_RETURN(std::vector<Slice> sges, SlicesFromJson(request.at("sges")));
      RDMACHECK_RETURN_IF_ERROR(e->PostRecv(request.at("wr_id").get<uint64_t>(), sges));
      return nlohmann::json::object();
    }
    if (op == "post") {
      std::vector<SendRequest> requests;
      for (const nlohmann::json& r : request.at("requests")) {
        RDMACHECK_ASSIGN_OR_RETURN(SendRequest parsed, RequestFromJson(r));
        requests.push_back(std::move(parsed));
      }
      RDMACHECK_RETURN_IF_ERROR(e->Post(requests));
      return nlohmann::json::object();
    }
    if (op == "poll" || op == "drain") {
      const bool send = request.at("queue").get<std::string>() == "send";
      const absl::Duration timeout = absl::Milliseconds(request.at("timeout_ms").get<int64_t>());
      absl::StatusOr<std::vector<ibv_wc>> wcs;
      if (op == "poll") {
        const int count = request.at("count").get<int>();
        wcs = send ? e->PollSends(count, timeout) : e->PollRecvs(count, timeout);
      } else {
        wcs = send ? e->DrainSends(timeout) : e->DrainRecvs(timeout);
      }
      if (!wcs.ok()) return wcs.status();
      nlohmann::json list = nlohmann::json::array();
      for (const ibv_wc& wc : *wcs) list.push_back(ToJson(wc));
      return nlohmann::json{{"wcs", list}};
    }
    if (auto handler = handlers_.find(op); handler != handlers_.end()) return handler->second(*e, request);
    return absl::InvalidArgumentError(absl::StrCat("unknown request '", op, "'"));
  }

  ibv_context* context_;
  Selection selection_;
  const std::map<std::string, PeerServer::Handler>& handlers_;
  int64_t next_id_ = 1;
  std::map<int64_t, std::unique_ptr<LocalEndpoint>> endpoints_;
  ServedTargets targets_;  // declared after endpoints_: destroyed first (their MRs are on the endpoints' PDs)
};

}  // namespace

void PeerServer::RunSession(SideChannel channel, const std::atomic<bool>& stop) {
  Session session(context_, selection_, handlers_);
  while (!stop.load()) {
    absl::StatusOr<nlohmann::json> request = channel.Receive(absl::Seconds(1));
    if (absl::IsDeadlineExceeded(request.status())) continue;  // idle: look at `stop`
    if (!request.ok()) return;                                 // the peer hung up
    nlohmann::json answer = session.Handle(*request);
    answer["seq"] = request->value("seq", uint64_t{0});
    if (!channel.Send(answer).ok()) return;
  }
}

absl::Status PeerServer::Serve(SideChannelListener& listener, const std::atomic<bool>& stop,
                               const std::function<void(const std::string&)>& log) {
  std::vector<std::thread> sessions;
  int opened = 0;
  while (!stop.load()) {
    absl::StatusOr<SideChannel> channel = listener.Accept(absl::Seconds(1));
    if (absl::IsDeadlineExceeded(channel.status())) continue;
    if (!channel.ok()) return channel.status();
    const int number = ++opened;
    log(absl::StrCat("session ", number, " opened"));
    sessions.emplace_back([this, &stop, &log, number, c = *std::move(channel)]() mutable {
      RunSession(std::move(c), stop);
      log(absl::StrCat("session ", number, " closed"));
    });
  }
  for (std::thread& t : sessions) t.join();
  return absl::OkStatus();
}

}  // namespace rdmacheck
