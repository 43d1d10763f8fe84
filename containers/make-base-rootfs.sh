#!/usr/bin/env bash
# Makes an offline base image for containers/Dockerfile: a minimal Debian root file
# system (debootstrap --variant=minbase) that already holds the image's runtime packages,
# as a tarball for `podman import` / `docker import`. The VM lab has no network, so
# containers/prove-in-lab.sh builds the image from this base there.
#
#   containers/make-base-rootfs.sh [--print-path | OUT_TAR]
#
# Prints the tarball's path (--print-path: only that, nothing is made). Default OUT_TAR:
# ${RDMACHECK_CACHE:-/var/cache/rdmacheck}/container/base-<release>-<hash of the packages>.tar,
# reused when it exists (30 s to 4 min to make, depending on the mirror; about 100 MB:
# like debian:bookworm-slim, without documentation, man pages and translations). The mirror is the one this
# machine's apt sources use for its release (nothing is written into the repository).
set -euo pipefail
die() { echo "make-base-rootfs: $*" >&2; exit 1; }

# What the image needs at run time (the Dockerfile's RUN step checks the same list).
packages=libibverbs1,librdmacm1,ibverbs-providers,libabsl20220623,iproute2,kmod,ibverbs-utils

codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[ -n "$codename" ] || die "no VERSION_CODENAME in /etc/os-release"
# The key changes with what goes in (the packages, and the "slim" pruning below).
out=${RDMACHECK_CACHE:-/var/cache/rdmacheck}/container/base-$codename-$(echo "$packages slim" | sha256sum | cut -c1-12).tar
case ${1:-} in
  --print-path) echo "$out"; exit 0 ;;
  -*) die "usage: make-base-rootfs.sh [--print-path | OUT_TAR]" ;;
  ?*) out=$1 ;;
esac
if [ -s "$out" ]; then echo "$out"; exit 0; fi

mkdir -p "$(dirname "$out")"
tmp=$(mktemp -d "$out.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# debootstrap minbase from this machine's mirror (the lab's image roots are made the same way).
"$(dirname "$0")/vm/image-root.sh" "$codename" --include="$packages" "$tmp/root" || die "debootstrap failed"
# Smaller (the lab imports it under an emulated CPU, ~1.5 s per MB): no package cache or
# lists, and, as debian:bookworm-slim does, no docs (but the copyrights), man pages or
# translations, also for packages installed later.
r=$tmp/root
rm -rf "$r"/var/cache/apt/*.bin "$r"/var/cache/apt/archives/*.deb "$r"/var/lib/apt/lists/* "$r"/var/log/*.log
find "$r/usr/share/doc" -mindepth 1 ! -name copyright ! -type d -delete
find "$r/usr/share/doc" -mindepth 1 -type d -empty -delete
rm -rf "$r"/usr/share/man/* "$r"/usr/share/info/* "$r"/usr/share/locale/*
cat >"$r/etc/dpkg/dpkg.cfg.d/rdmacheck-slim" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
EOF
tar --numeric-owner -C "$tmp/root" -cf "$tmp/base.tar" .
mv "$tmp/base.tar" "$out"
echo "$out"
