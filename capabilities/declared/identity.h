// Who the device is and where it runs: the identity part of the profile.
#ifndef RDMACHECK_CAPABILITIES_DECLARED_IDENTITY_H_
#define RDMACHECK_CAPABILITIES_DECLARED_IDENTITY_H_

#include <infiniband/verbs.h>

#include "capabilities/profile/profile.h"
#include "capabilities/system/rdma_netlink.h"
#include "harness/device.h"

namespace rdmacheck {

// The driver comes from netlink (the kernel's uverbs driver id: "rxe", "siw"), else from
// the sysfs driver link of the device's parent (PCI devices), else "unknown". `netlink`
// may be null.
Identity ReadIdentity(ibv_context* context, const Selection& selection, const ibv_device_attr_ex& attr,
                      const NetlinkDevice* netlink);

}  // namespace rdmacheck

#endif  // RDMACHECK_CAPABILITIES_DECLARED_IDENTITY_H_
