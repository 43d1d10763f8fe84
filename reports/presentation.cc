#include "reports/presentation.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace rdmacheck {

namespace {

// The environment fields in the order a reader looks for them, with their labels. Fields
// not listed here still appear, after these, under their own names.
constexpr std::pair<const char*, const char*> kEnvironmentOrder[] = {
    {"driver", "driver"},
    {"transport", "transport"},
    {"link_layer", "link layer"},
    {"fw_ver", "firmware"},
    {"kernel", "kernel"},
    {"rdma_core", "rdma-core"},
    {"providers", "ibverbs-providers"},
    {"os", "system"},
    {"active_mtu", "active MTU"},
    {"port", "port"},
    {"gid_index", "GID index"},
    {"gid", "GID"},
    {"gid_type", "GID type"},
    {"netdev", "netdev"},
    {"kernel_log", "kernel log"},
    {"traffic_counters", "traffic counters"},
    {"traffic_run_totals", "counters, whole run"},
    {"connect_method", "connection method"},
    {"hostname", "host"},
};

void MarkDiffers(std::vector<TextRow>& rows) {
  for (TextRow& row : rows) {
    row.differs = std::set<std::string>(row.cells.begin(), row.cells.end()).size() > 1;
  }
}

void Flatten(const nlohmann::json& value, const std::string& prefix, std::map<std::string, std::string>& out,
             std::vector<std::string>& order) {
  auto add = [&](const std::string& key, std::string text) {
    if (!out.count(key)) order.push_back(key);
    out[key] = std::move(text);
  };
  if (value.is_object() && !value.empty()) {
    for (const auto& [k, v] : value.items()) Flatten(v, prefix.empty() ? k : absl::StrCat(prefix, ".", k), out, order);
  } else if (value.is_array() &&
             std::any_of(value.begin(), value.end(), [](const nlohmann::json& v) { return v.is_structured(); })) {
    for (size_t i = 0; i < value.size(); ++i) Flatten(value[i], absl::StrCat(prefix, "[", i, "]"), out, order);
  } else {
    add(prefix, ReadableText(value));
  }
}

// `rdmacheck doctor`'s verdict on the host of each run, then every finding that is not
// "ok" (a problem, a warning, what could not be checked) with its fix.
void AddDoctorRows(const Report& report, std::vector<TextRow>& rows) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::string>> cells;  // row label -> one cell per device
  const size_t n = report.devices.size();
  auto cell = [&](const std::string& label, size_t i, std::string text) {
    if (!cells.count(label)) {
      order.push_back(label);
      cells[label].resize(n);
    }
    cells[label][i] = std::move(text);
  };
  for (size_t i = 0; i < n; ++i) {
    const nlohmann::json& doctor = report.devices[i].run.results.environment.value("doctor", nlohmann::json());
    if (!doctor.is_object()) continue;
    cell("set-up (rdmacheck doctor)", i, doctor.value("headline", ""));
    for (const nlohmann::json& f : doctor.value("findings", nlohmann::json::array())) {
      const std::string severity = f.value("severity", "");
      if (severity == "ok") continue;
      std::string text = absl::StrCat(severity, ": ", f.value("what", ""));
      if (f.contains("fix")) absl::StrAppend(&text, " (fix: ", f.value("fix", ""), ")");
      cell(absl::StrCat("doctor: ", f.value("check", ""), f.contains("device") ? " " + f.value("device", "") : ""), i,
           std::move(text));
    }
  }
  for (const std::string& label : order) rows.push_back({label, cells[label], false});
}

}  // namespace

std::string JsonText(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_null()) return "";
  return value.dump();
}

std::string ReadableText(const nlohmann::json& value) {
  if (value.is_array() && std::none_of(value.begin(), value.end(), [](const nlohmann::json& v) {
        return v.is_structured();
      })) {
    std::vector<std::string> items;
    for (const nlohmann::json& v : value) items.push_back(JsonText(v));
    return absl::StrJoin(items, ", ");
  }
  if (!value.is_structured()) return JsonText(value);
  if (value.empty()) return "";  // an empty object
  std::map<std::string, std::string> leaves;
  std::vector<std::string> order;
  Flatten(value, "", leaves, order);
  std::vector<std::string> lines;
  for (const std::string& key : order) {
    lines.push_back(key.empty() ? leaves[key] : absl::StrCat(key, " = ", leaves[key]));
  }
  return absl::StrJoin(lines, "\n");
}

std::string MovedCountersText(const nlohmann::json& counters) {
  if (!counters.is_object()) return ReadableText(counters);
  nlohmann::json moved = nlohmann::json::object();
  for (const auto& [name, value] : counters.items()) {
    if (!(value.is_number() && value == 0)) moved[name] = value;
  }
  return ReadableText(moved);
}

std::vector<TextRow> EnvironmentRows(const Report& report) {
  std::vector<std::string> keys;
  std::vector<std::string> labels;
  for (const auto& [key, label] : kEnvironmentOrder) {
    keys.push_back(key);
    labels.push_back(label);
  }
  std::set<std::string> known(keys.begin(), keys.end());
  known.insert("device");  // the column title already
  known.insert("doctor");  // rows of its own, below
  for (const DeviceSection& d : report.devices) {
    for (const auto& [key, value] : d.run.results.environment.items()) {
      if (known.insert(key).second) {
        keys.push_back(key);
        labels.push_back(key);
      }
    }
  }
  std::vector<TextRow> rows;
  for (size_t i = 0; i < keys.size(); ++i) {
    TextRow row{labels[i], {}, false};
    bool any = false;
    for (const DeviceSection& d : report.devices) {
      const nlohmann::json& env = d.run.results.environment;
      std::string text;
      if (env.contains(keys[i])) {
        text = keys[i] == "traffic_run_totals" ? MovedCountersText(env[keys[i]]) : ReadableText(env[keys[i]]);
      }
      if (keys[i] == "driver" && text.empty()) text = JsonText(d.run.identity.value("driver", nlohmann::json()));
      any = any || !text.empty();
      row.cells.push_back(text);
    }
    if (any) rows.push_back(std::move(row));
  }
  AddDoctorRows(report, rows);
  MarkDiffers(rows);
  return rows;
}

std::vector<TextRow> DeclaredRows(const Report& report) {
  std::vector<std::string> order;
  std::vector<std::map<std::string, std::string>> per_device;
  for (const DeviceSection& d : report.devices) {
    per_device.emplace_back();
    Flatten(d.run.declared, "", per_device.back(), order);
  }
  std::vector<TextRow> rows;
  std::set<std::string> done;
  for (const std::string& key : order) {
    if (key.empty() || !done.insert(key).second) continue;
    TextRow row{key, {}, false};
    for (const auto& values : per_device) {
      auto it = values.find(key);
      row.cells.push_back(it == values.end() ? "" : it->second);
    }
    rows.push_back(std::move(row));
  }
  MarkDiffers(rows);
  return rows;
}

std::vector<TextRow> MeasuredRows(const Report& report, std::vector<TextRow>* details) {
  std::set<std::string> names;
  for (const DeviceSection& d : report.devices) {
    if (!d.run.measured.is_object()) continue;
    for (const auto& [name, m] : d.run.measured.items()) names.insert(name);
  }
  std::vector<TextRow> rows;
  if (details) details->clear();
  for (const std::string& name : names) {
    TextRow row{name, {}, false}, detail{name, {}, false};
    for (const DeviceSection& d : report.devices) {
      const nlohmann::json& m =
          d.run.measured.is_object() && d.run.measured.contains(name) ? d.run.measured[name] : nlohmann::json();
      row.cells.push_back(m.is_object() ? JsonText(m.value("value", nlohmann::json())) : JsonText(m));
      detail.cells.push_back(m.is_object() ? JsonText(m.value("detail", nlohmann::json())) : "");
    }
    rows.push_back(std::move(row));
    if (details) details->push_back(std::move(detail));
  }
  MarkDiffers(rows);
  return rows;
}

std::string FormatDuration(double ms) {
  if (ms < 1000) return absl::StrFormat("%.0f ms", ms);
  if (ms < 600000) return absl::StrFormat("%.1f s", ms / 1000);
  return absl::StrFormat("%.1f min", ms / 60000);
}

std::string CountsText(const RunSummary& s) {
  std::string text;
  auto add = [&](int n, const char* word) {
    if (n > 0) absl::StrAppend(&text, text.empty() ? "" : ", ", n, " ", word);
  };
  add(s.pass, StatusWord(TestStatus::kPass));
  add(s.fail, StatusWord(TestStatus::kFail));
  add(s.skip, StatusWord(TestStatus::kSkip));
  add(s.xfail, StatusWord(TestStatus::kXfail));
  add(s.xpass, StatusWord(TestStatus::kXpass));
  add(s.blocked, StatusWord(TestStatus::kBlocked));
  return text.empty() ? "no tests" : text;
}

std::string CatalogueAnchor(const std::string& catalogue_id) { return "cat-" + catalogue_id; }

std::string SkipsText(const RunSummary& s) {
  std::string text;
  for (const auto& [cap, n] : s.skipped_by_capability) {
    absl::StrAppend(&text, text.empty() ? "" : ", ", cap == "(none)" ? "other" : cap, " ", n);
  }
  for (const auto& [cause, n] : s.skipped_as_consequence_of) {
    absl::StrAppend(&text, text.empty() ? "" : ", ", "as a consequence of ", cause, " ", n);
  }
  return text;
}

std::string IncompleteRunLine(const std::string& device, const RunResults& results) {
  const nlohmann::json& env = results.environment;
  if (env.contains("lab_failure") && env["lab_failure"].is_object()) {
    const nlohmann::json& f = env["lab_failure"];
    const size_t not_run = f.contains("not_run") && f["not_run"].is_array() ? f["not_run"].size() : 0;
    const int set_aside = f.value("violations_set_aside", 0);
    return absl::StrCat(device, ": the lab failed, not the device; ", not_run, " tests not run",
                        set_aside > 0 ? absl::StrCat(", ", set_aside, " wire violations after it set aside") : "",
                        ", and none after the failure is the device's: ", f.value("reason", "(no reason recorded)"));
  }
  if (results.complete) return "";
  // results.json is rewritten after every suite: what it holds is all that is known.
  return absl::StrCat(device, ": the run did not finish (complete: false); its results stop where it did, after ",
                      results.tests.size(),
                      " results, and do not say why (a node that died, in a kernel panic or a reset, leaves no reason)");
}

std::vector<std::string> IncompleteRunLines(const Report& report) {
  std::vector<std::string> lines;
  for (const DeviceSection& d : report.devices) {
    if (std::string line = IncompleteRunLine(d.label, d.run.results); !line.empty()) lines.push_back(std::move(line));
  }
  return lines;
}

}  // namespace rdmacheck
