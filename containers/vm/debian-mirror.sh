#!/usr/bin/env bash
# Prints the Debian mirror this machine's apt sources use for its own release (the first
# `deb` source of <codename>, either format): the mirror debootstrap reads, so that no
# mirror address is written into the repository.
#   containers/vm/debian-mirror.sh      -> e.g. http://deb.debian.org/debian
set -euo pipefail
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[ -n "$codename" ] || { echo "debian-mirror: no VERSION_CODENAME in /etc/os-release" >&2; exit 1; }
mirror=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(TARGET_OF)' |
  awk -v cn="$codename" '$2 == cn && $3 == "deb" && !m { m = $1 } END { print m }')
[ -n "$mirror" ] || { echo "debian-mirror: no apt source for '$codename' in this machine's apt configuration (apt-get update?)" >&2; exit 1; }
echo "${mirror%/}"
