#!/usr/bin/env bash
# Builds siw.ko (Soft-iWARP) for an image whose kernel lacks CONFIG_RDMA_SIW (Debian's
# kernels up to at least 7.2 have rxe but not siw), in a chroot of the image's build root:
# the release's linux-headers and compiler, and the siw directory of its linux-source
# (containers/vm/build-siw.sh, run there). The module goes into the run root's
# lib/modules/KVER/updates/ and the run root's depmod indexes it. Nothing to do when the
# kernel has siw.
#
#   containers/vm/image-siw.sh BUILD_ROOT RUN_ROOT KVER
set -euo pipefail
die() { echo "image-siw: $*" >&2; exit 1; }
[ $# -eq 3 ] || die "usage: image-siw.sh BUILD_ROOT RUN_ROOT KVER"
build=${1%/} run=${2%/} kver=$3
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
grep -qs '^CONFIG_RDMA_SIW=[my]' "$run/boot/config-$kver" && exit 0
[ ! -f "$run/lib/modules/$kver/updates/siw.ko" ] || exit 0
echo "image-siw: building siw.ko for $kver (its config lacks CONFIG_RDMA_SIW)" >&2
mkdir -p "$build/build"
# shellcheck disable=SC2016  # expanded in the chroot
"$here/image-chroot.sh" "$build" --ro "$repo" -- bash -euo pipefail -c '
  # The mirror may be a snapshot of the archive, whose Release has expired (Valid-Until).
  apt-get -o Acquire::Check-Valid-Until=false update -qq && apt-get install -y -qq --no-install-recommends "linux-headers-$2" xz-utils zstd >/dev/null
  "$1/containers/vm/build-siw.sh" / "$2" /build/siw.ko
' image-siw "$repo" "$kver" >&2 || die "building siw.ko for $kver failed"
install -D -m 0644 "$build/build/siw.ko" "$run/lib/modules/$kver/updates/siw.ko"
"$here/image-chroot.sh" "$run" -- depmod "$kver" || die "depmod in $run failed"
