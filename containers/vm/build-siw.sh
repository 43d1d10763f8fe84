#!/usr/bin/env bash
# Builds siw.ko (Soft-iWARP) out of tree for a kernel whose config lacks it (Debian's
# 6.1 and 6.12 kernels have CONFIG_RDMA_SIW off), from the siw directory of the matching
# Debian linux-source-X.Y package.
# Usage: build-siw.sh ROOT KVER OUT_KO
#   ROOT: the kernel as scripts/lab.sh keeps it (fetch-kernel.sh or custom-kernel.sh):
#         ROOT/.deb-version (Debian version of the image, optional: the matching
#         linux-source-X.Y when apt still has it, else the newest one) and ROOT/.apt
#         ("backports" when the image came from the backports suite).
# Kernel headers: /usr/src/linux-headers-KVER when installed, else ROOT/lib/modules/KVER/build,
# else the linux-headers-KVER packages, downloaded and unpacked here (nothing is installed).
# On a Debian host, for its running kernel:
#   build-siw.sh / "$(uname -r)" siw.ko && install -D -m644 siw.ko /lib/modules/"$(uname -r)"/updates/siw.ko && depmod
set -euo pipefail
root=$1 kver=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)
die() { echo "build-siw: $*" >&2; exit 1; }
[[ $kver =~ ^([0-9]+\.[0-9]+) ]] || die "odd kernel version $kver"
series=${BASH_REMATCH[1]}   # 6.1.0-56-amd64 -> 6.1
srcver=$(cat "$root/.deb-version" 2>/dev/null || true)
apt=()
[ "$(cat "$root/.apt" 2>/dev/null)" != backports ] || apt=("$here/backports-apt.sh")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
get() { "${apt[@]}" apt-get download -q -o APT::Sandbox::User=root "$@" >/dev/null 2>&1; }

headers=/usr/src/linux-headers-$kver
[ -f "$headers/Makefile" ] || headers=$root/lib/modules/$kver/build
if [ ! -f "$headers/Makefile" ]; then
  # linux-headers-KVER needs its -common and linux-kbuild packages; their links are
  # relative, only the top Makefile names the -common dir absolutely.
  deps=$("${apt[@]}" apt-cache depends "linux-headers-$kver" 2>/dev/null |
    sed -n 's/^ *Depends: \(linux-\(headers\|kbuild\)-[^ ]*\)$/\1/p')
  [ -n "$deps" ] || die "no kernel headers for $kver (not installed, no $root/lib/modules/$kver/build, and apt has no linux-headers-$kver)"
  mkdir hdr
  # shellcheck disable=SC2086  # package names
  (cd hdr && get "linux-headers-$kver" $deps) || die "cannot download linux-headers-$kver"
  for d in hdr/*.deb; do dpkg-deb -x "$d" hdr/root; done
  headers=$tmp/hdr/root/usr/src/linux-headers-$kver
  sed -i "s|^include /usr/src/|include $tmp/hdr/root/usr/src/|" "$headers/Makefile"
fi
# The compiler the kernel was built with (Debian headers name it, e.g. gcc-12).
cc=$(sed -n 's/^CC = .*)\(gcc[-0-9]*\)$/\1/p' "$headers/.kernelvariables" 2>/dev/null || true)
[ -z "$cc" ] || command -v "$cc" >/dev/null || die "kernel $kver was built with $cc: apt-get install $cc"

{ [ -n "$srcver" ] && get "linux-source-$series=$srcver"; } || get "linux-source-$series" ||
  die "cannot download linux-source-$series (for a kernel of another series, put a siw.ko in its modules dir)"
# Only the siw directory is needed out of the ~150 MB source tarball.
src=$(dpkg-deb -c linux-source-*.deb | sed -n "s|.* \./\(usr/src/linux-source-$series\.tar\.[a-z]*\)$|\1|p")
[ -n "$src" ] || die "no source tarball in linux-source-$series"
unpack=(-xJ)
[[ $src != *.zst ]] || unpack=(--zstd -x)
dpkg-deb --fsys-tarfile linux-source-*.deb | tar -xO "./$src" |
  tar "${unpack[@]}" "linux-source-$series/drivers/infiniband/sw/siw"
rm -f linux-source-*.deb
# CONFIG_DEBUG_INFO_BTF_MODULES= skips the BTF step, which would need pahole.
make -s -C "$headers" M="$tmp/linux-source-$series/drivers/infiniband/sw/siw" \
  CONFIG_RDMA_SIW=m CONFIG_DEBUG_INFO_BTF_MODULES= -j"$(nproc)" modules >&2
cp "linux-source-$series/drivers/infiniband/sw/siw/siw.ko" "$out"
