#!/usr/bin/env bash
# Builds siw.ko (Soft-iWARP) out of tree for a Debian kernel that lacks it
# (Debian's 6.1 kernels have CONFIG_RDMA_SIW off). Needs linux-headers-KVER installed.
# Usage: build-siw.sh KVER SOURCE_VERSION OUT_KO
#   SOURCE_VERSION: Debian version of the kernel image (e.g. 6.1.192-2); the matching
#   linux-source-X.Y is used when apt still has it, else the newest one.
set -euo pipefail
kver=$1 srcver=$2 out=$3
[[ $kver =~ ^([0-9]+\.[0-9]+) ]] || { echo "build-siw: odd kernel version $kver" >&2; exit 1; }
series=${BASH_REMATCH[1]}   # 6.1.0-56-amd64 -> 6.1
headers=/usr/src/linux-headers-$kver
[ -f "$headers/Makefile" ] || { echo "build-siw: $headers missing (apt-get install linux-headers-$kver)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
get() { apt-get download -q -o APT::Sandbox::User=root "$1" >/dev/null 2>&1; }
get "linux-source-$series=$srcver" || get "linux-source-$series" ||
  { echo "build-siw: cannot download linux-source-$series" >&2; exit 1; }
# Only the siw directory is needed out of the ~140 MB source tarball.
dpkg-deb --fsys-tarfile linux-source-*.deb |
  tar -xO "./usr/src/linux-source-$series.tar.xz" |
  tar -xJ "linux-source-$series/drivers/infiniband/sw/siw"
rm -f linux-source-*.deb
# CONFIG_DEBUG_INFO_BTF_MODULES= skips the BTF step, which would need pahole.
make -s -C "$headers" M="$tmp/linux-source-$series/drivers/infiniband/sw/siw" \
  CONFIG_RDMA_SIW=m CONFIG_DEBUG_INFO_BTF_MODULES= -j"$(nproc)" modules >&2
cp "linux-source-$series/drivers/infiniband/sw/siw/siw.ko" "$out"
