// The profile as a person reads it (`rdmacheck probe --format=text`): identity, what the
// device declares, what the probe observed and measured, and the quirks.
#ifndef RDMACHECK_CAPABILITIES_PROFILE_PROFILE_TEXT_H_
#define RDMACHECK_CAPABILITIES_PROFILE_PROFILE_TEXT_H_

#include <string>

#include "capabilities/profile/profile.h"

namespace rdmacheck {

std::string ProfileToText(const Profile& profile);

}  // namespace rdmacheck

#endif  // RDMACHECK_CAPABILITIES_PROFILE_PROFILE_TEXT_H_
