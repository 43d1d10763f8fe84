#!/usr/bin/env bash
# Builds the lab VM's initramfs: static busybox, the modules needed to mount the host's
# root over 9p and put an overlay on it, and containers/vm/initramfs-init as /init.
# Usage: build-initramfs.sh ROOT KVER OUT
#   ROOT: unpacked kernel package (ROOT/lib/modules/KVER, depmod already run)
set -euo pipefail
root=$1 kver=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)
busybox=/bin/busybox
[ -x "$busybox" ] && ! ldd "$busybox" >/dev/null 2>&1 ||
  { echo "build-initramfs: $busybox is not a static busybox (apt-get install busybox-static)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"/{bin,mods,proc,sys,dev,lower,rw,newroot}
cp "$busybox" "$tmp/bin/busybox"
cp "$here/initramfs-init" "$tmp/init"
chmod +x "$tmp/init"

# Modules in load order (--show-depends prints dependencies first; "builtin" lines need
# nothing). Compressed modules (.ko.xz/.ko.zst on newer kernels) are unpacked, because
# busybox insmod may not read them.
deps=$(for m in virtio_pci 9pnet_virtio 9p overlay; do
  modprobe -d "$root" -S "$kver" --show-depends "$m" || exit 1
done) || { echo "build-initramfs: modules for 9p/overlay missing under $root" >&2; exit 1; }
n=0
echo "$deps" | awk '$1 == "insmod" && !seen[$2]++ { print $2 }' | while read -r ko; do
  n=$((n + 1)); dst=$tmp/mods/$(printf %02d $n)-$(basename "${ko%.ko*}").ko
  case $ko in
    *.xz)  xz -dc "$ko" > "$dst" ;;
    *.zst) zstd -qdc "$ko" > "$dst" ;;
    *)     cp "$ko" "$dst" ;;
  esac
done

(cd "$tmp" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) | gzip -1 > "$out.tmp"
mv "$out.tmp" "$out"
