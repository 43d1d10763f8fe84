#!/usr/bin/env bash
# Downloads a Debian kernel image package and unpacks it into DIR, without installing it
# on the host (the host runs its own kernel; this one only boots the lab VM).
# Usage: fetch-kernel.sh KVER DIR      KVER: a Debian kernel ABI, e.g. 6.1.0-56-amd64
set -euo pipefail
kver=$1 dir=$2

# Unpack next to DIR and rename at the end: an interrupted run never leaves a half tree.
tmp=$(mktemp -d "$dir.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

download() { (cd "$tmp" && apt-get download -q -o APT::Sandbox::User=root "$1" >/dev/null); }
# Stale apt lists point at versions the mirror no longer has: refresh once and retry.
download "linux-image-$kver" 2>/dev/null || { apt-get update -qq && download "linux-image-$kver"; } || {
  echo "fetch-kernel: cannot download linux-image-$kver (is it a Debian kernel ABI in apt?)" >&2
  exit 1
}
deb=$(echo "$tmp"/linux-image-*.deb)
dpkg-deb -x "$deb" "$tmp/root"
# The source package version matching this image, for building out-of-tree modules.
dpkg-deb -f "$deb" Version > "$tmp/root/.deb-version"
rm -f "$deb"
[ -f "$tmp/root/boot/vmlinuz-$kver" ] || { echo "fetch-kernel: no boot/vmlinuz-$kver in the package" >&2; exit 1; }
mv "$tmp/root" "$dir"
