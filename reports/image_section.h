// The report's section "Images": when the runs come from more than one system image (its
// OS, kernel and rdma-core, as each run's environment recorded them; scripts/image-matrix.sh
// runs the main job on several), per image and device the counts, and per deviation of a
// driver (a profile quirk, a broken capability, an xfail, an xpass) the images where it shows,
// with where it appears or disappears from one image to the next, in the order the runs were
// given ("gone in sid: kernel 7.2.13+deb14-amd64, rdma-core 65.0-1.1"). The test matrix above
// already shows every test's verdict across the images.
#ifndef RDMACHECK_REPORTS_IMAGE_SECTION_H_
#define RDMACHECK_REPORTS_IMAGE_SECTION_H_

#include <optional>
#include <string>
#include <vector>

#include "reports/report_model.h"

namespace rdmacheck {

// What identifies a run's image: its environment's os, kernel and rdma_core (and providers).
struct ImageId {
  std::string os, kernel, rdma_core, providers;
  std::string Label() const;  // "Debian GNU/Linux forky/sid: kernel 7.2.13+deb14-amd64, rdma-core 65.0-1.1"
  bool operator==(const ImageId& o) const {
    return os == o.os && kernel == o.kernel && rdma_core == o.rdma_core && providers == o.providers;
  }
};
ImageId ImageOf(const RunResults& results);

// nullopt when every run is from one image.
std::optional<ExtraSection> ImageSection(const Report& report);

}  // namespace rdmacheck

#endif  // RDMACHECK_REPORTS_IMAGE_SECTION_H_
