#include "reports/image_section.h"

#include <map>
#include <set>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "reports/report_html.h"

namespace rdmacheck {
namespace {

std::string MdCell(const std::string& text) { return absl::StrReplaceAll(text, {{"|", "\\|"}, {"\n", " "}}); }

// A deviation as it can recur on another image: the driver, its kind and its subject.
using QuirkKey = std::tuple<std::string, std::string, std::string>;

// Appends a table to the section, both renderings.
void AddTable(ExtraSection& s, const std::vector<std::string>& head, const std::vector<std::vector<std::string>>& rows) {
  absl::StrAppend(&s.markdown, "\n| ", absl::StrJoin(head, " | "), " |\n|");
  for (size_t i = 0; i < head.size(); ++i) s.markdown += "---|";
  s.markdown += "\n";
  absl::StrAppend(&s.html, "<table class=\"grid\"><thead><tr>");
  for (const std::string& h : head) absl::StrAppend(&s.html, "<th>", HtmlEscape(h), "</th>");
  s.html += "</tr></thead><tbody>\n";
  for (const auto& row : rows) {
    std::vector<std::string> md;
    s.html += "<tr>";
    for (const std::string& cell : row) {
      md.push_back(MdCell(cell));
      absl::StrAppend(&s.html, "<td>", HtmlEscape(cell), "</td>");
    }
    s.html += "</tr>\n";
    absl::StrAppend(&s.markdown, "| ", absl::StrJoin(md, " | "), " |\n");
  }
  s.html += "</tbody></table>\n";
}

}  // namespace

std::string ImageId::Label() const {
  return absl::StrCat(os.empty() ? "unknown system" : os, ": kernel ", kernel, ", rdma-core ", rdma_core);
}

ImageId ImageOf(const RunResults& results) {
  const nlohmann::json& env = results.environment;
  return {env.value("os", ""), env.value("kernel", ""), env.value("rdma_core", ""), env.value("providers", "")};
}

std::optional<ExtraSection> ImageSection(const Report& report) {
  std::vector<ImageId> images;
  std::vector<size_t> image_of;  // per device
  for (const DeviceSection& d : report.devices) {
    const ImageId id = ImageOf(d.run.results);
    size_t i = 0;
    while (i < images.size() && !(images[i] == id)) ++i;
    if (i == images.size()) images.push_back(id);
    image_of.push_back(i);
  }
  if (images.size() < 2) return std::nullopt;

  ExtraSection s;
  s.id = "images";
  s.title = "Images";
  const std::string intro =
      "The runs come from several system images (OS, kernel, rdma-core). Per image and device the counts; then "
      "each deviation of a driver (profile quirk, broken capability, xfail, xpass) across the images, in the order "
      "the runs were given, with the image where it appears or disappears.";
  s.markdown = intro + "\n";
  s.html = absl::StrCat("<p>", HtmlEscape(intro), "</p>\n");
  s.data = {{"images", nlohmann::json::array()}, {"runs", nlohmann::json::array()}, {"deviations", nlohmann::json::array()}};
  for (size_t i = 0; i < images.size(); ++i) {
    s.data["images"].push_back({{"image", absl::StrCat(i + 1)}, {"os", images[i].os}, {"kernel", images[i].kernel},
                                {"rdma_core", images[i].rdma_core}, {"providers", images[i].providers}});
  }
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < images.size(); ++i) {
    rows.push_back({absl::StrCat(i + 1), images[i].os, images[i].kernel, images[i].rdma_core, images[i].providers});
  }
  AddTable(s, {"image", "system", "kernel", "rdma-core", "ibverbs-providers"}, rows);

  rows.clear();
  for (size_t d = 0; d < report.devices.size(); ++d) {
    const RunSummary& c = report.devices[d].summary;
    rows.push_back({absl::StrCat(image_of[d] + 1), report.devices[d].label, report.devices[d].run.results.environment.value("driver", ""),
                    absl::StrCat(c.total), absl::StrCat(c.pass), absl::StrCat(c.fail), absl::StrCat(c.skip),
                    absl::StrCat(c.xfail), absl::StrCat(c.xpass)});
    s.data["runs"].push_back({{"image", image_of[d] + 1}, {"device", report.devices[d].label}, {"total", c.total},
                              {"pass", c.pass}, {"fail", c.fail}, {"skip", c.skip}, {"xfail", c.xfail},
                              {"xpass", c.xpass}});
  }
  AddTable(s, {"image", "device", "driver", "tests", "pass", "fail", "skip", "xfail", "xpass"}, rows);

  // Each deviation: on which images it shows (for its driver), in first-seen order.
  std::map<QuirkKey, std::set<size_t>> seen;
  std::vector<QuirkKey> order;
  std::map<std::string, std::set<size_t>> driver_images;  // images that ran the driver at all
  for (size_t d = 0; d < report.devices.size(); ++d) {
    driver_images[report.devices[d].run.results.environment.value("driver", "")].insert(image_of[d]);
  }
  for (const ReportQuirk& q : report.quirks) {
    const std::string driver = report.devices[q.device].run.results.environment.value("driver", "");
    QuirkKey key{driver, QuirkKindName(q.kind), q.catalogue_id.empty() ? q.subject : q.catalogue_id};
    if (!seen.count(key)) order.push_back(key);
    seen[key].insert(image_of[q.device]);
  }
  std::vector<std::string> head = {"driver", "kind", "deviation"};
  for (size_t i = 0; i < images.size(); ++i) head.push_back(absl::StrCat("image ", i + 1));
  head.push_back("change");
  std::vector<std::vector<std::string>> changing, steady;  // those that change come first
  for (const QuirkKey& key : order) {
    const auto& [driver, kind, subject] = key;
    std::vector<std::string> row = {driver, kind, subject};
    std::vector<std::string> changes;
    int before = -1;  // shown on the previous image that ran the driver: 1, 0, unknown
    nlohmann::json on = nlohmann::json::array();
    for (size_t i = 0; i < images.size(); ++i) {
      if (!driver_images[driver].count(i)) {
        row.push_back("(not run)");
        continue;
      }
      const int here = seen[key].count(i) ? 1 : 0;
      row.push_back(here ? "yes" : "-");
      if (here) on.push_back(i + 1);
      if (before >= 0 && here != before) {
        changes.push_back(absl::StrCat(here ? "appears in " : "gone in ", "image ", i + 1, " (kernel ",
                                       images[i].kernel, ", rdma-core ", images[i].rdma_core, ")"));
      }
      before = here;
    }
    row.push_back(changes.empty() ? "same on every image" : absl::StrJoin(changes, "; "));
    (changes.empty() ? steady : changing).push_back(row);
    s.data["deviations"].push_back(
        {{"driver", driver}, {"kind", kind}, {"subject", subject}, {"images", on}, {"changes", changes}});
  }
  changing.insert(changing.end(), steady.begin(), steady.end());
  AddTable(s, head, changing);
  return s;
}

}  // namespace rdmacheck
