#include "reports/mutation_section.h"

#include <sys/stat.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "reports/report_html.h"

namespace rdmacheck {
namespace {

bool IsDir(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}
bool Exists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0;
}

std::string MdCell(const std::string& text) { return absl::StrReplaceAll(text, {{"|", "\\|"}, {"\n", " "}}); }

std::string Percent(int killed, int total) {
  return total == 0 ? "-" : absl::StrFormat("%.1f %%", 100.0 * killed / total);
}

std::string ControlText(const nlohmann::json& device) {
  const nlohmann::json control = device.value("control", nlohmann::json::object());
  if (control.empty()) return "not run";
  return control.value("equal", false)
             ? absl::StrCat("equal to a plain run (", control.value("tests", 0), " tests)")
             : absl::StrCat("DIFFERENT from a plain run: ", control.value("differences", nlohmann::json::object()).dump());
}

}  // namespace

absl::StatusOr<std::optional<MutationRun>> LoadMutationRun(const std::string& input) {
  std::string path = input;
  if (IsDir(input)) {
    if (Exists(input + "/results.json") || !Exists(input + "/mutation.json")) return std::nullopt;
    path = input + "/mutation.json";
  } else if (input.size() < 5 || input.compare(input.size() - 5, 5, ".json") != 0) {
    return std::nullopt;
  }
  absl::StatusOr<nlohmann::json> json = ReadJsonFile(path);
  if (!json.ok()) return json.status();
  if (!json->is_object() || json->value("schema", "") != kMutationSchema) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not a mutation run (schema ", kMutationSchema, ")"));
  }
  MutationRun run{path, *json, {}};
  const std::string dir = path.substr(0, path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/'));
  for (const nlohmann::json& device : json->value("devices", nlohmann::json::array())) {
    const std::string plain = absl::StrCat(dir.empty() ? "." : dir, "/", device.value("device", ""), "/plain");
    if (Exists(plain + "/results.json")) run.plain_runs.push_back(plain);
  }
  return run;
}

namespace {

// Why a mutant survived: its source's reason, or what the run shows.
std::string SurvivalReason(const nlohmann::json& m, const nlohmann::json& device) {
  if (m.contains("survives") && m["survives"].is_string()) return m["survives"].get<std::string>();
  if (!m.value("acted", true)) return "not explained: it never acted (its deviation did not come up in its tests)";
  for (const nlohmann::json& base : device.value("mutants", nlohmann::json::array())) {
    if (m.value("variant", "") == "probe" && base.value("name", "") == m.value("base", "") && base.value("killed", false)) {
      return "not explained: killed when only the tests see it; what the probe made of it hid it";
    }
  }
  return "not explained: a test is missing";
}

}  // namespace

ExtraSection MutationSection(const std::vector<MutationRun>& runs) {
  ExtraSection s;
  s.id = "mutation";
  s.title = "Mutation score";
  s.data = {{"devices", nlohmann::json::array()}};
  const std::string intro =
      "Each mutant makes the device deviate in exactly one way (a completion field, the data, the completion "
      "stream, a post-time error, a query, MR rights, an event, rdma_cm, work accepted then failed; "
      "selftest/mutants/), in the tests only or, as <name>@probe, in the capability probe too, and runs the "
      "tests that concern it. It is killed when a test that passed without it fails in an ordinary way (not a "
      "crash, a hang, a leak or the kernel log) and the mutant acted (changed an answer); the score is killed "
      "over all mutants. The loose count is any failing run, as before. A survivor is a deviation no test saw; "
      "its source says why no conformance test can see it, or a test is missing. The control (the library "
      "loaded, nothing changed) must give a plain run's verdicts.";
  s.markdown = absl::StrCat(intro,
                            "\n\n| device | killed | acted | mutants | score | loose count | control |\n"
                            "|---|---|---|---|---|---|---|\n");
  s.html = absl::StrCat("<p>", HtmlEscape(intro), "</p>\n<table class=\"grid\"><thead><tr><th>device</th>"
                        "<th>killed</th><th>acted</th><th>mutants</th><th>score</th><th>loose count</th>"
                        "<th>control</th></tr></thead><tbody>\n");
  std::string survivors_md, survivors_html;
  for (const MutationRun& run : runs) {
    for (const nlohmann::json& device : run.mutation.value("devices", nlohmann::json::array())) {
      const std::string name = device.value("device", "");
      int killed = 0, acted = 0, loose = 0, total = 0;
      nlohmann::json survivors = nlohmann::json::array();
      for (const nlohmann::json& m : device.value("mutants", nlohmann::json::array())) {
        ++total;
        acted += m.value("acted", false) ? 1 : 0;
        loose += m.value("loose_killed", false) ? 1 : 0;
        if (m.value("killed", false)) {
          ++killed;
          continue;
        }
        const std::string why = SurvivalReason(m, device);
        survivors.push_back({{"name", m.value("name", "")}, {"what", m.value("what", "")}, {"survives", why}});
        absl::StrAppend(&survivors_md, "| ", name, " | `", m.value("name", ""), "` | ", MdCell(m.value("what", "")),
                        " | ", MdCell(why), " |\n");
        absl::StrAppend(&survivors_html, "<tr><td>", HtmlEscape(name), "</td><td><code>",
                        HtmlEscape(m.value("name", "")), "</code></td><td>", HtmlEscape(m.value("what", "")),
                        "</td><td>", HtmlEscape(why), "</td></tr>\n");
      }
      const std::string control = ControlText(device);
      s.data["devices"].push_back({{"device", name}, {"killed", killed}, {"acted", acted}, {"total", total},
                                   {"loose_killed", loose},
                                   {"score", total ? nlohmann::json(static_cast<double>(killed) / total) : nlohmann::json()},
                                   {"control", control}, {"survivors", survivors}, {"source", run.source}});
      absl::StrAppend(&s.markdown, "| ", name, " | ", killed, " | ", acted, " | ", total, " | ",
                      Percent(killed, total), " | ", loose, " | ", MdCell(control), " |\n");
      absl::StrAppend(&s.html, "<tr><td>", HtmlEscape(name), "</td><td>", killed, "</td><td>", acted, "</td><td>",
                      total, "</td><td>", Percent(killed, total), "</td><td>", loose, "</td><td>",
                      HtmlEscape(control), "</td></tr>\n");
    }
  }
  s.html += "</tbody></table>\n";
  if (survivors_md.empty()) {
    s.markdown += "\nNo survivors.\n";
    s.html += "<p>No survivors.</p>\n";
  } else {
    absl::StrAppend(&s.markdown, "\nSurvivors:\n\n| device | mutant | what it changes | why no test sees it |\n"
                                 "|---|---|---|---|\n", survivors_md);
    absl::StrAppend(&s.html, "<h3>Survivors</h3>\n<table class=\"grid\"><thead><tr><th>device</th><th>mutant</th>"
                             "<th>what it changes</th><th>why no test sees it</th></tr></thead><tbody>\n",
                    survivors_html, "</tbody></table>\n");
  }
  return s;
}

}  // namespace rdmacheck
