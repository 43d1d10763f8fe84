#!/usr/bin/env bash
# Downloads a Debian kernel image package and unpacks it into DIR, without installing it
# on the host (the host runs its own kernel; this one only boots the lab VM).
# Usage: fetch-kernel.sh KVER DIR      KVER: a Debian kernel ABI, e.g. 6.1.0-56-amd64
# The package comes from the machine's apt sources, else from the backports suite derived
# from them (backports-apt.sh). DIR/.deb-version gets the package version, DIR/.apt
# "host" or "backports" (build-siw.sh fetches the matching source from the same place).
set -euo pipefail
kver=$1 dir=$2
here=$(cd "$(dirname "$0")" && pwd)

# Unpack next to DIR and rename at the end: an interrupted run never leaves a half tree.
tmp=$(mktemp -d "$dir.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

pkg=linux-image-$kver
download() { (cd "$tmp" && "$@" apt-get download -q -o APT::Sandbox::User=root "$pkg" >/dev/null); }
where=''
# Stale apt lists name versions the mirror no longer has (or not yet the one asked for):
# refresh the host's lists once and retry.
for attempt in 1 2; do
  if apt-cache show "$pkg" >/dev/null 2>&1; then
    where=host
    download 2>/dev/null && break
  elif "$here/backports-apt.sh" apt-cache show "$pkg" >/dev/null 2>&1; then
    where=backports
    download "$here/backports-apt.sh" && break
  fi
  [ "$attempt" = 2 ] || apt-get update -qq || true
done
deb=$(echo "$tmp"/linux-image-*.deb)
[ -f "$deb" ] || {
  echo "fetch-kernel: cannot download $pkg from apt or from the backports suite (is $kver a Debian kernel ABI?)" >&2
  exit 1
}
dpkg-deb -x "$deb" "$tmp/root"
# The source package version matching this image, for building out-of-tree modules.
dpkg-deb -f "$deb" Version >"$tmp/root/.deb-version"
echo "$where" >"$tmp/root/.apt"
rm -f "$deb"
[ -f "$tmp/root/boot/vmlinuz-$kver" ] || { echo "fetch-kernel: no boot/vmlinuz-$kver in the package" >&2; exit 1; }
mv "$tmp/root" "$dir"
