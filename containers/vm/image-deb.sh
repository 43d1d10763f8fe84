#!/usr/bin/env bash
# Builds rdmacheck's Debian package in a chroot of an image's build root
# (containers/vm/image-root.sh ... build): with the release's compiler, headers and
# libraries, so the binary is built against the release's rdma-core (what its verbs
# headers offer is compiled in) and the package's Depends (dpkg-shlibdeps) name the
# release's library packages.
#
#   containers/vm/image-deb.sh BUILD_ROOT OUT_DEB
#
# The project tree is bound read-only at its own path; the build directory,
# BUILD_ROOT/build/rdmacheck, is kept, so a later build of changed sources in the same
# checkout is incremental (one from another checkout starts it again).
# Only the `rdmacheck` target is built: the package holds nothing else.
set -euo pipefail
die() { echo "image-deb: $*" >&2; exit 1; }
[ $# -eq 2 ] || die "usage: image-deb.sh BUILD_ROOT OUT_DEB"
root=${1%/} out=$2
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
mkdir -p "$root/build"
# shellcheck disable=SC2016  # expanded in the chroot
"$here/image-chroot.sh" "$root" --ro "$repo" -- bash -euo pipefail -c '
  repo=$1 b=/build/rdmacheck
  # A build directory configured from another checkout cannot be reused (CMake refuses a
  # second source tree): start it again.
  if [ -f "$b/CMakeCache.txt" ] && ! grep -qxF "CMAKE_HOME_DIRECTORY:INTERNAL=$repo" "$b/CMakeCache.txt"; then
    rm -rf "$b"
  fi
  # CMAKE_SKIP_INSTALL_ALL_DEPENDENCY: cpack would otherwise build everything (unit tests, selftest) first.
  cmake -S "$repo" -B "$b" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_SKIP_INSTALL_ALL_DEPENDENCY=ON >/dev/null
  nice cmake --build "$b" -j"$(nproc)" --target rdmacheck
  rm -f "$b"/package/rdmacheck_*.deb
  (cd "$b" && cpack -G DEB --config CPackConfig.cmake >cpack.log 2>&1) || { tail -n 20 "$b/cpack.log"; exit 1; }
' image-deb "$repo" >&2 || die "building the package in $root failed"
deb=$(ls "$root"/build/rdmacheck/package/rdmacheck_*_amd64.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || die "cpack made no rdmacheck_<version>_amd64.deb"
cp "$deb" "$out.tmp" && mv "$out.tmp" "$out"
