#include "reports/integrators.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/match.h"
#include "reports/presentation.h"

namespace rdmacheck {
namespace {

// The first of `keys` that the run's environment or its capabilities.json identity holds.
std::string Recorded(const DeviceRun& run, std::initializer_list<const char*> keys) {
  for (const char* key : keys) {
    for (const nlohmann::json* from : {&run.results.environment, &run.identity}) {
      if (from->is_object() && from->contains(key)) {
        std::string text = JsonText((*from)[key]);
        if (!text.empty()) return text;
      }
    }
  }
  return "";
}

std::string Hex(const nlohmann::json& id, int digits) {
  return id.is_number_unsigned() || id.is_number_integer() ? absl::StrFormat("0x%0*x", digits, id.get<uint64_t>())
                                                            : JsonText(id);
}

std::string Vendor(const DeviceRun& run) {
  if (std::string pci = Recorded(run, {"pci_vendor"}); !pci.empty()) return "pci:" + pci;
  if (run.identity.contains("vendor_id")) return "oui:" + Hex(run.identity["vendor_id"], 6);
  return "";
}

std::string Model(const DeviceRun& run) {
  if (std::string pci = Recorded(run, {"pci_device"}); !pci.empty()) return "pci:" + pci;
  if (!run.identity.contains("vendor_part_id")) return "";
  std::string model = "part:" + JsonText(run.identity["vendor_part_id"]);
  const nlohmann::json hw = run.identity.value("hw_ver", nlohmann::json());
  if (hw.is_number() && hw != 0) absl::StrAppend(&model, " hw:", JsonText(hw));
  return model;
}

std::string Transport(const DeviceRun& run) {
  const std::string protocol = JsonText(run.identity.value("protocol", nlohmann::json()));
  if (protocol == "roce") return "RoCE";
  if (protocol == "iw") return "iWARP";
  if (protocol == "ib") return "InfiniBand";
  const std::string transport = Recorded(run, {"transport"});
  if (transport == "InfiniBand" && Recorded(run, {"link_layer"}) == "Ethernet") return "RoCE";  // before "protocol"
  return transport;
}

// RFC 4180: a field with a comma, a quote or a line break is quoted, its quotes doubled.
std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  return absl::StrCat("\"", absl::StrReplaceAll(text, {{"\"", "\"\""}}), "\"");
}

std::string MdCell(const std::string& text) {
  return absl::StrReplaceAll(text, {{"|", "\\|"}, {"\n", " "}, {"<", "&lt;"}, {">", "&gt;"}});
}

std::vector<std::string> Fields(const IntegratorRow& r) {
  return {r.device,
          r.vendor,
          r.model,
          r.driver,
          r.transport,
          r.firmware,
          r.kernel,
          r.rdma_core,
          r.plan_version,
          absl::StrCat(r.mandatory_passed),
          absl::StrCat(r.mandatory_total),
          r.floor,
          absl::StrCat(r.tests_passed),
          absl::StrCat(r.tests_total),
          absl::StrCat(r.deviation_tests.size()),
          absl::StrJoin(r.deviation_tests, "; "),
          r.complete ? "yes" : "no",
          r.started};
}

}  // namespace

const std::vector<std::string>& IntegratorColumns() {
  static const auto* columns = new std::vector<std::string>{
      "device",           "vendor",          "model",  "driver",       "transport",   "firmware",
      "kernel",           "rdma_core",       "plan_version", "mandatory_passed", "mandatory_total", "floor",
      "tests_passed",     "tests_total",     "deviations",   "deviation_tests",  "complete",        "started"};
  return *columns;
}

std::vector<IntegratorRow> IntegratorRows(const Report& report) {
  std::vector<IntegratorRow> rows;
  for (const DeviceSection& d : report.devices) {
    const DeviceRun& run = d.run;
    IntegratorRow r;
    r.device = d.label;
    r.vendor = Vendor(run);
    r.model = Model(run);
    r.driver = Recorded(run, {"driver"});
    r.transport = Transport(run);
    r.firmware = Recorded(run, {"fw_ver"});
    r.kernel = Recorded(run, {"kernel"});
    r.rdma_core = Recorded(run, {"rdma_core"});
    r.plan_version = JsonText(run.results.environment.value("plan_version", nlohmann::json()));
    if (r.plan_version.empty()) r.plan_version = kUnversionedPlan;
    r.floor = JsonText(run.results.environment.value("floor", nlohmann::json()));
    for (const TestResult& t : run.results.tests) {
      if (t.suite == "run" && absl::StartsWith(t.name, "RunFloor.")) {
        ++r.mandatory_total;
        if (t.status == TestStatus::kPass) ++r.mandatory_passed;
      }
      if (t.status == TestStatus::kXfail) r.deviation_tests.push_back(t.name);
    }
    r.tests_passed = d.summary.pass;
    r.tests_total = d.summary.total;
    r.complete = run.results.complete;
    r.started = run.results.started;
    rows.push_back(std::move(r));
  }
  return rows;
}

std::string IntegratorsCsv(const Report& report) {
  std::string out = absl::StrCat(absl::StrJoin(IntegratorColumns(), ","), "\r\n");
  for (const IntegratorRow& row : IntegratorRows(report)) {
    std::vector<std::string> fields = Fields(row);
    for (std::string& f : fields) f = CsvField(f);
    absl::StrAppend(&out, absl::StrJoin(fields, ","), "\r\n");
  }
  return out;
}

std::string IntegratorsMarkdown(const Report& report) {
  const std::vector<IntegratorRow> rows = IntegratorRows(report);
  std::string out =
      "# rdmacheck: the hand-over rows\n\n"
      "One row per device for an integrators' (compliance) list; integrators.csv holds the same with every "
      "column (docs/report.md). Mandatory: the run's floor (RunFloor.*).\n\n"
      "| device | vendor | model | driver | transport | firmware | kernel | rdma-core | plan | mandatory passed | "
      "tests passed | deviations | complete |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const IntegratorRow& r : rows) {
    absl::StrAppend(&out, "| ", absl::StrJoin(std::vector<std::string>{MdCell(r.device), MdCell(r.vendor), MdCell(r.model), MdCell(r.driver),
                                               MdCell(r.transport), MdCell(r.firmware), MdCell(r.kernel),
                                               MdCell(r.rdma_core), MdCell(r.plan_version),
                                               absl::StrCat(r.mandatory_passed, "/", r.mandatory_total),
                                               absl::StrCat(r.tests_passed, "/", r.tests_total),
                                               absl::StrCat(r.deviation_tests.size()), r.complete ? "yes" : "no"},
                                              " | "),
                    " |\n");
  }
  for (const IntegratorRow& r : rows) {
    absl::StrAppend(&out, "\n## ", MdCell(r.device), "\n\n- floor: ", r.floor.empty() ? "(not recorded)" : MdCell(r.floor),
                    "\n- started: ", MdCell(r.started), "\n- deviations (", r.deviation_tests.size(), ")",
                    r.deviation_tests.empty() ? ": none" : ":", "\n");
    for (const std::string& t : r.deviation_tests) absl::StrAppend(&out, "  - `", t, "`\n");
  }
  return out;
}

}  // namespace rdmacheck
