#!/usr/bin/env bash
# Makes one root file system of a Debian release for an image of the lab
# (containers/vm/image.sh): debootstrap --variant=minbase from this machine's mirror
# (containers/vm/debian-mirror.sh) with the packages of KIND:
#   build  what building rdmacheck and its .deb needs: the release's compiler, CMake,
#          GoogleTest, Abseil, nlohmann-json and rdma-core's headers (libibverbs-dev, librdmacm-dev); file (CPack reads the binary with it)
#   run    what the lab boots: the release's kernel (linux-image-amd64 and its modules),
#          kmod and mount; rdmacheck's .deb, installed later with apt, brings the rest
#
#   containers/vm/image-root.sh RELEASE KIND DIR
#   containers/vm/image-root.sh RELEASE --include=PKG,... DIR     (containers/make-base-rootfs.sh)
#
# DIR is made whole or not at all (a temporary directory renamed at the end). DIR/.archive-date
# holds the date of the archive it was made from (the Date of the suite's InRelease, YYYYMMDD).
# `image-root.sh --packages KIND` prints KIND's package list (image.sh keys its cache by it).
# Needs root and debootstrap (scripts/install-deps.sh); about 1-4 minutes per root.
set -euo pipefail
die() { echo "image-root: $*" >&2; exit 1; }
packages() {
  case $1 in
    build) echo build-essential,file,cmake,pkg-config,libgtest-dev,libgmock-dev,googletest,libabsl-dev,nlohmann-json3-dev,libibverbs-dev,librdmacm-dev ;;
    run) echo linux-image-amd64,kmod,mount ;;
    --include=*) echo "${1#--include=}" ;;
    *) die "unknown kind '$1' (build, run or --include=PKG,...)" ;;
  esac
}
if [ "${1:-}" = --packages ]; then packages "${2:-}"; exit 0; fi
[ $# -eq 3 ] || die "usage: image-root.sh RELEASE build|run|--include=PKG,... DIR"
release=$1 kind=$2 dir=${3%/}
include=$(packages "$kind")
[ "$(id -u)" -eq 0 ] || die "must run as root (debootstrap)"
command -v debootstrap >/dev/null || die "debootstrap not found: run scripts/install-deps.sh"
mirror=$("$(dirname "$0")/debian-mirror.sh") || exit 1

mkdir -p "$(dirname "$dir")"
tmp=$(mktemp -d "$dir.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "image-root: debootstrap $release ($kind) from $mirror" >&2
debootstrap --variant=minbase --include="$include" "$release" "$tmp/root" "$mirror" >"$tmp/log" 2>&1 ||
  { tail -n 20 "$tmp/log" >&2; die "debootstrap of $release failed"; }
date=$(sed -n 's/^Date: //p' "$tmp/root"/var/lib/apt/lists/*_dists_"${release}"_InRelease 2>/dev/null | head -n 1)
date -u -d "${date:-now}" +%Y%m%d >"$tmp/root/.archive-date"
# No package cache: the image is booted from here, and apt fetches again when it needs to.
rm -f "$tmp/root"/var/cache/apt/archives/*.deb
mv "$tmp/root" "$dir"
