#include "harness/remote/wire.h"

#include <cstring>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "harness/status.h"

namespace rdmacheck {
namespace {

// Runs `parse` and turns a JSON exception (missing key, wrong type) into DataLoss.
template <typename T, typename F>
absl::StatusOr<T> Parse(absl::string_view what, F parse) {
  try {
    return parse();
  } catch (const nlohmann::json::exception& e) {
    return absl::DataLossError(absl::StrCat("malformed ", what, " from the peer: ", e.what()));
  }
}

nlohmann::json ToJson(const QpAddress& a) {
  return {{"qp_num", a.qp_num}, {"lid", a.lid}, {"gid", ToHex({a.gid.raw, sizeof(a.gid.raw)})}, {"psn", a.psn}};
}

QpAddress AddressFromJson(const nlohmann::json& j) {
  QpAddress a;
  a.qp_num = j.at("qp_num").get<uint32_t>();
  a.lid = j.at("lid").get<uint16_t>();
  a.psn = j.at("psn").get<uint32_t>();
  absl::StatusOr<std::vector<uint8_t>> gid = FromHex(j.at("gid").get<std::string>());
  if (!gid.ok() || gid->size() != sizeof(a.gid.raw)) throw nlohmann::json::other_error::create(501, "bad gid", &j);
  std::memcpy(a.gid.raw, gid->data(), sizeof(a.gid.raw));
  return a;
}

RemoteBuffer BufferFromJson(const nlohmann::json& j) {
  return {j.at("addr").get<uint64_t>(), j.at("rkey").get<uint32_t>(), j.at("length").get<uint32_t>()};
}

}  // namespace

std::string ToHex(absl::Span<const uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(bytes.size() * 2, '0');
  for (size_t i = 0; i < bytes.size(); ++i) {
    out[2 * i] = kDigits[bytes[i] >> 4];
    out[2 * i + 1] = kDigits[bytes[i] & 0xf];
  }
  return out;
}

absl::StatusOr<std::vector<uint8_t>> FromHex(const std::string& hex) {
  if (hex.size() % 2 != 0) return absl::DataLossError("odd-length hex string");
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  std::vector<uint8_t> out(hex.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) {
    int hi = digit(hex[2 * i]), lo = digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return absl::DataLossError("bad hex digit");
    out[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return out;
}

nlohmann::json ToJson(const PairOptions& o) {
  const PathOptions& p = o.path;
  nlohmann::json path = {{"timeout", p.timeout},
                         {"retry_cnt", p.retry_cnt},
                         {"rnr_retry", p.rnr_retry},
                         {"min_rnr_timer", p.min_rnr_timer},
                         {"max_rd_atomic", p.max_rd_atomic},
                         {"max_dest_rd_atomic", p.max_dest_rd_atomic},
                         {"qkey", p.qkey},
                         {"access", p.access}};
  nlohmann::json j = {{"qp_type", static_cast<int>(o.qp_type)},
                      {"max_send_wr", o.max_send_wr},
                      {"max_recv_wr", o.max_recv_wr},
                      {"max_send_sge", o.max_send_sge},
                      {"max_recv_sge", o.max_recv_sge},
                      {"max_inline_data", o.max_inline_data},
                      {"sq_sig_all", o.sq_sig_all},
                      {"use_srq", o.use_srq},
                      {"use_comp_channel", o.use_comp_channel},
                      {"buffer_size", o.buffer_size},
                      {"mr_access", o.mr_access},
                      {"send_ops_flags", o.send_ops_flags},
                      {"path", path}};
  if (o.path_mtu) j["path_mtu"] = static_cast<int>(*o.path_mtu);
  return j;
}

absl::StatusOr<PairOptions> OptionsFromJson(const nlohmann::json& j) {
  return Parse<PairOptions>("pair options", [&] {
    PairOptions o;
    o.qp_type = static_cast<ibv_qp_type>(j.at("qp_type").get<int>());
    o.max_send_wr = j.at("max_send_wr").get<uint32_t>();
    o.max_recv_wr = j.at("max_recv_wr").get<uint32_t>();
    o.max_send_sge = j.at("max_send_sge").get<uint32_t>();
    o.max_recv_sge = j.at("max_recv_sge").get<uint32_t>();
    o.max_inline_data = j.at("max_inline_data").get<uint32_t>();
    o.sq_sig_all = j.at("sq_sig_all").get<bool>();
    o.use_srq = j.at("use_srq").get<bool>();
    o.use_comp_channel = j.at("use_comp_channel").get<bool>();
    o.buffer_size = j.at("buffer_size").get<size_t>();
    o.mr_access = j.at("mr_access").get<int>();
    o.send_ops_flags = j.at("send_ops_flags").get<uint64_t>();
    if (j.contains("path_mtu")) o.path_mtu = static_cast<ibv_mtu>(j.at("path_mtu").get<int>());
    const nlohmann::json& p = j.at("path");
    o.path.timeout = p.at("timeout").get<uint8_t>();
    o.path.retry_cnt = p.at("retry_cnt").get<uint8_t>();
    o.path.rnr_retry = p.at("rnr_retry").get<uint8_t>();
    o.path.min_rnr_timer = p.at("min_rnr_timer").get<uint8_t>();
    o.path.max_rd_atomic = p.at("max_rd_atomic").get<uint8_t>();
    o.path.max_dest_rd_atomic = p.at("max_dest_rd_atomic").get<uint8_t>();
    o.path.qkey = p.at("qkey").get<uint32_t>();
    o.path.access = p.at("access").get<int>();
    return o;
  });
}

nlohmann::json ToJson(const EndpointInfo& info) { return {{"address", ToJson(info.address)}, {"buffer", ToJson(info.buffer)}}; }

absl::StatusOr<EndpointInfo> InfoFromJson(const nlohmann::json& j) {
  return Parse<EndpointInfo>("endpoint info", [&] {
    return EndpointInfo{AddressFromJson(j.at("address")), BufferFromJson(j.at("buffer"))};
  });
}

nlohmann::json SlicesToJson(absl::Span<const Slice> slices) {
  nlohmann::json j = nlohmann::json::array();
  for (const Slice& s : slices) j.push_back({s.offset, s.length});
  return j;
}

absl::StatusOr<std::vector<Slice>> SlicesFromJson(const nlohmann::json& j) {
  return Parse<std::vector<Slice>>("SGE list", [&] {
    std::vector<Slice> slices;
    for (const nlohmann::json& s : j) slices.push_back({s.at(0).get<size_t>(), s.at(1).get<uint32_t>()});
    return slices;
  });
}

nlohmann::json ToJson(const RemoteBuffer& b) { return {{"addr", b.addr}, {"rkey", b.rkey}, {"length", b.length}}; }

absl::StatusOr<RemoteBuffer> RemoteBufferFromJson(const nlohmann::json& j) {
  return Parse<RemoteBuffer>("remote buffer", [&] { return BufferFromJson(j); });
}

nlohmann::json ToJson(const GuardSpec& spec) {
  nlohmann::json j = {{"access", spec.access}, {"other_pd", spec.other_pd}};
  if (spec.iova) j["iova"] = *spec.iova;
  return j;
}

absl::StatusOr<GuardSpec> GuardSpecFromJson(const nlohmann::json& j) {
  return Parse<GuardSpec>("guarded target", [&] {
    GuardSpec spec;
    spec.access = j.at("access").get<int>();
    spec.other_pd = j.at("other_pd").get<bool>();
    if (j.contains("iova")) spec.iova = j.at("iova").get<uint64_t>();
    return spec;
  });
}

nlohmann::json ToJson(const SendRequest& r) {
  return {{"wr_id", r.wr_id},           {"opcode", static_cast<int>(r.opcode)}, {"sges", SlicesToJson(r.sges)},
          {"flags", r.flags},           {"imm", r.imm},                         {"invalidate_rkey", r.invalidate_rkey},
          {"remote", ToJson(r.remote)}, {"compare_add", r.compare_add},         {"swap", r.swap}};
}

absl::StatusOr<SendRequest> RequestFromJson(const nlohmann::json& j) {
  return Parse<SendRequest>("work request", [&] {
    SendRequest r;
    r.wr_id = j.at("wr_id").get<uint64_t>();
    r.opcode = static_cast<ibv_wr_opcode>(j.at("opcode").get<int>());
    for (const nlohmann::json& s : j.at("sges")) r.sges.push_back({s.at(0).get<size_t>(), s.at(1).get<uint32_t>()});
    r.flags = j.at("flags").get<unsigned>();
    r.imm = j.at("imm").get<uint32_t>();
    r.invalidate_rkey = j.at("invalidate_rkey").get<uint32_t>();
    r.remote = BufferFromJson(j.at("remote"));
    r.compare_add = j.at("compare_add").get<uint64_t>();
    r.swap = j.at("swap").get<uint64_t>();
    return r;
  });
}

nlohmann::json ToJson(const ibv_wc& wc) {
  return {{"wr_id", wc.wr_id},         {"status", static_cast<int>(wc.status)}, {"opcode", static_cast<int>(wc.opcode)},
          {"vendor_err", wc.vendor_err}, {"byte_len", wc.byte_len},             {"imm_data", wc.imm_data},
          {"qp_num", wc.qp_num},       {"src_qp", wc.src_qp},                   {"wc_flags", wc.wc_flags},
          {"pkey_index", wc.pkey_index}, {"slid", wc.slid},                     {"sl", wc.sl},
          {"dlid_path_bits", wc.dlid_path_bits}};
}

absl::StatusOr<ibv_wc> WcFromJson(const nlohmann::json& j) {
  return Parse<ibv_wc>("work completion", [&] {
    ibv_wc wc{};
    wc.wr_id = j.at("wr_id").get<uint64_t>();
    wc.status = static_cast<ibv_wc_status>(j.at("status").get<int>());
    wc.opcode = static_cast<ibv_wc_opcode>(j.at("opcode").get<int>());
    wc.vendor_err = j.at("vendor_err").get<uint32_t>();
    wc.byte_len = j.at("byte_len").get<uint32_t>();
    wc.imm_data = j.at("imm_data").get<uint32_t>();  // the raw (network-order) field, unchanged
    wc.qp_num = j.at("qp_num").get<uint32_t>();
    wc.src_qp = j.at("src_qp").get<uint32_t>();
    wc.wc_flags = j.at("wc_flags").get<unsigned>();
    wc.pkey_index = j.at("pkey_index").get<uint16_t>();
    wc.slid = j.at("slid").get<uint16_t>();
    wc.sl = j.at("sl").get<uint8_t>();
    wc.dlid_path_bits = j.at("dlid_path_bits").get<uint8_t>();
    return wc;
  });
}

nlohmann::json ToJson(Pattern p) { return {{"constant", p.constant()}, {"value", p.value()}}; }

absl::StatusOr<Pattern> PatternFromJson(const nlohmann::json& j) {
  return Parse<Pattern>("pattern", [&] {
    const uint32_t value = j.at("value").get<uint32_t>();
    return j.at("constant").get<bool>() ? Pattern::Constant(static_cast<uint8_t>(value)) : Pattern::Seeded(value);
  });
}

std::string SockaddrToHex(const sockaddr_storage& address) {
  const size_t length = address.ss_family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
  return ToHex({reinterpret_cast<const uint8_t*>(&address), length});
}

absl::StatusOr<sockaddr_storage> SockaddrFromHex(const std::string& hex) {
  RDMACHECK_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, FromHex(hex));
  sockaddr_storage address{};
  if (bytes.size() != sizeof(sockaddr_in) && bytes.size() != sizeof(sockaddr_in6)) {
    return absl::DataLossError("malformed socket address from the peer");
  }
  std::memcpy(&address, bytes.data(), bytes.size());
  return address;
}

nlohmann::json ErrorToJson(const absl::Status& status) {
  nlohmann::json j = {{"ok", false}, {"code", static_cast<int>(status.code())}, {"message", std::string(status.message())}};
  if (std::optional<int> err = ErrnoOf(status)) j["errno"] = *err;
  return j;
}

absl::Status ErrorFromJson(const nlohmann::json& j) {
  const std::string message = absl::StrCat("peer: ", j.value("message", std::string("(no message)")));
  absl::Status status(static_cast<absl::StatusCode>(j.value("code", static_cast<int>(absl::StatusCode::kUnknown))),
                      message);
  if (j.contains("errno")) {  // the same errno payload ErrnoStatus() gives, so ErrnoOf() works here too
    ErrnoStatus(j.at("errno").get<int>(), "").ForEachPayload(
        [&](absl::string_view url, const absl::Cord& payload) { status.SetPayload(url, payload); });
  }
  return status;
}

}  // namespace rdmacheck
