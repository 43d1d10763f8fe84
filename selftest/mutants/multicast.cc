// Mutants of the multicast verbs: a device that does not refuse what ibv_attach_mcast,
// ibv_detach_mcast and ibv_destroy_qp must refuse (MulticastRefusalTest). On rxe0 only:
// siw has no UD QPs, so no multicast.
#include <dlfcn.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "selftest/mutants/families.h"

namespace rdmacheck::mutants {
namespace {

// The groups each QP was attached to, for the mutant that detaches them behind the caller.
std::mutex mutex;
std::map<ibv_qp*, std::vector<std::pair<ibv_gid, uint16_t>>>& Attached() {
  static auto* attached = new std::map<ibv_qp*, std::vector<std::pair<ibv_gid, uint16_t>>>;  // children exit with QPs
  return *attached;
}

int RememberAttach(McastFn real, ibv_qp* qp, const ibv_gid* gid, uint16_t lid) {
  const int ret = real(qp, gid, lid);
  if (ret == 0) {
    std::lock_guard<std::mutex> lock(mutex);
    Attached()[qp].push_back({*gid, lid});
  }
  return ret;
}

int ForgetDetach(McastFn real, ibv_qp* qp, const ibv_gid* gid, uint16_t lid) {
  const int ret = real(qp, gid, lid);
  std::lock_guard<std::mutex> lock(mutex);
  auto& groups = Attached()[qp];
  for (auto g = groups.begin(); g != groups.end(); ++g) {
    if (ret == 0 && g->second == lid && std::memcmp(g->first.raw, gid->raw, sizeof gid->raw) == 0) {
      groups.erase(g);
      break;
    }
  }
  return ret;
}

// A refused destroy of an attached QP: detach it from every group and destroy it.
int DestroyDetaching(int (*real)(ibv_qp*), ibv_qp* qp) {
  int ret = real(qp);
  if (ret != EBUSY) return ret;
  std::vector<std::pair<ibv_gid, uint16_t>> groups;
  {
    std::lock_guard<std::mutex> lock(mutex);
    groups.swap(Attached()[qp]);
  }
  // Looked up at run time: the table is linked into the listing tool too, which has no verbs.
  auto detach = reinterpret_cast<McastFn>(dlsym(RTLD_DEFAULT, "ibv_detach_mcast"));
  for (const auto& [gid, lid] : groups) {
    if (detach != nullptr) detach(qp, &gid, lid);
  }
  ret = real(qp);
  if (ret == 0) Acted();
  return ret;
}

}  // namespace

std::vector<Mutant> MulticastMutants() {
  return {
      {.name = "mcast_attach_unchecked",
       .what = "ibv_attach_mcast returns 0 for a QP that is not UD or a GID that is not multicast, attaching nothing",
       .suites = "multicast",
       .filter = "MulticastRefusalTest.AttachingAnRcQpFailsEinval:MulticastRefusalTest.AttachingToAUnicastGidFailsEinval",
       .devices = "rxe0", .survives = nullptr,
       .attach_mcast = [](McastFn real, ibv_qp* qp, const ibv_gid* gid, uint16_t lid) {
         if (qp->qp_type == IBV_QPT_UD && gid->raw[0] == 0xff) return real(qp, gid, lid);
         Acted();
         return 0;
       }},
      {.name = "mcast_detach_unchecked",
       .what = "ibv_detach_mcast returns 0 for a group the QP never joined",
       .suites = "multicast", .filter = "MulticastRefusalTest.DetachingAGroupNeverJoinedFailsEinval",
       .devices = "rxe0", .survives = nullptr,
       .detach_mcast = [](McastFn real, ibv_qp* qp, const ibv_gid* gid, uint16_t lid) {
         const int ret = real(qp, gid, lid);
         if (ret != EINVAL) return ret;
         Acted();
         return 0;
       }},
      {.name = "destroy_attached_qp",
       .what = "ibv_destroy_qp of a QP still attached to a multicast group detaches it and destroys it",
       .suites = "multicast", .filter = "MulticastRefusalTest.DestroyingAnAttachedQpFailsBusy",
       .devices = "rxe0", .survives = nullptr,
       .attach_mcast = RememberAttach, .detach_mcast = ForgetDetach, .destroy_qp = DestroyDetaching},
  };
}

}  // namespace rdmacheck::mutants
