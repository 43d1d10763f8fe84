#include "results/bench_result.h"

#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"

namespace rdmacheck {
namespace {

nlohmann::json PointToJson(const BenchPoint& p) {
  nlohmann::json j = {{"tool", p.tool}, {"op", p.op}, {"metric", p.metric}, {"size", p.size}, {"iterations", p.iterations}};
  if (!p.ok()) {
    j["error"] = p.error;
  } else if (p.metric == "latency") {
    j["min_us"] = p.min_us;
    j["median_us"] = p.median_us;
    j["p99_us"] = p.p99_us;
  } else {
    j["mib_per_s"] = p.mib_per_s;
  }
  return j;
}

BenchPoint PointFromJson(const nlohmann::json& j) {
  BenchPoint p;
  p.tool = j.at("tool").get<std::string>();
  p.op = j.at("op").get<std::string>();
  p.metric = j.at("metric").get<std::string>();
  p.size = j.at("size").get<uint32_t>();
  p.iterations = j.value("iterations", 0);
  p.min_us = j.value("min_us", 0.0);
  p.median_us = j.value("median_us", 0.0);
  p.p99_us = j.value("p99_us", 0.0);
  p.mib_per_s = j.value("mib_per_s", 0.0);
  p.error = j.value("error", "");
  return p;
}

nlohmann::json PointsToJson(const std::vector<BenchPoint>& points) {
  nlohmann::json out = nlohmann::json::array();
  for (const BenchPoint& p : points) out.push_back(PointToJson(p));
  return out;
}

std::vector<BenchPoint> PointsFromJson(const nlohmann::json& j) {
  std::vector<BenchPoint> points;
  for (const nlohmann::json& p : j) points.push_back(PointFromJson(p));
  return points;
}

}  // namespace

nlohmann::json BenchRunToJson(const BenchRun& run) {
  nlohmann::json j = {{"schema", "rdmacheck-bench/1"}, {"device", run.device},  {"transport", run.transport},
                      {"method", run.method},          {"started", run.started}, {"points", PointsToJson(run.points)},
                      {"perftest", PointsToJson(run.perftest)}};
  if (!run.peer.empty()) j["peer"] = run.peer;
  j["poll"] = run.poll;
  return j;
}

absl::StatusOr<BenchRun> BenchRunFromJson(const nlohmann::json& json) {
  try {
    BenchRun run;
    run.device = json.at("device").get<std::string>();
    run.transport = json.value("transport", "");
    run.method = json.value("method", "");
    run.peer = json.value("peer", "");
    run.poll = json.value("poll", "busy");
    run.started = json.value("started", "");
    run.points = PointsFromJson(json.at("points"));
    run.perftest = PointsFromJson(json.value("perftest", nlohmann::json::array()));
    return run;
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("benchmark results: ", e.what()));
  }
}

absl::StatusOr<std::vector<BenchRun>> LoadBenchRuns(const std::string& path) {
  namespace fs = std::filesystem;
  std::vector<BenchRun> runs;
  auto parse = [](const std::string& file) -> absl::StatusOr<nlohmann::json> {
    std::ifstream in(file);
    if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", file));
    nlohmann::json json = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded()) return absl::InvalidArgumentError(absl::StrCat(file, ": not valid JSON"));
    return json;
  };
  const std::string bench_file = (fs::path(path) / "bench.json").string();
  const std::string report_file = fs::is_directory(path) ? (fs::path(path) / "report.json").string() : path;
  if (fs::exists(bench_file)) {
    absl::StatusOr<nlohmann::json> json = parse(bench_file);
    if (!json.ok()) return json.status();
    absl::StatusOr<BenchRun> run = BenchRunFromJson(*json);
    if (!run.ok()) return absl::InvalidArgumentError(absl::StrCat(bench_file, ": ", run.status().message()));
    runs.push_back(*std::move(run));
  } else if (fs::exists(report_file)) {
    absl::StatusOr<nlohmann::json> json = parse(report_file);
    if (!json.ok()) return json.status();
    const nlohmann::json bench = json->value("extra", nlohmann::json::object()).value("bench", nlohmann::json::object());
    for (const nlohmann::json& r : bench.value("runs", nlohmann::json::array())) {
      absl::StatusOr<BenchRun> run = BenchRunFromJson(r);
      if (!run.ok()) return absl::InvalidArgumentError(absl::StrCat(report_file, ": ", run.status().message()));
      runs.push_back(*std::move(run));
    }
  }
  return runs;
}

}  // namespace rdmacheck
