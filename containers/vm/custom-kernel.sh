#!/usr/bin/env bash
# Puts a kernel that is not a Debian package (a vmlinuz plus its modules directory, e.g.
# one built from source with `make modules_install INSTALL_MOD_PATH=...`) into the layout
# scripts/lab.sh boots: DIR/boot/vmlinuz-KVER and DIR/lib/modules/KVER.
# Usage: custom-kernel.sh VMLINUZ MODULES_DIR DIR    KVER: MODULES_DIR's name
# The modules are hard-linked where the file system allows (else copied): depmod and a
# built siw.ko then write into DIR, never into MODULES_DIR. MODULES_DIR/build (the
# kernel's build tree) is kept, so build-siw.sh can use it when the kernel lacks siw.
set -euo pipefail
image=$1 mods=${2%/} dir=$3
kver=$(basename "$mods")
die() { echo "custom-kernel: $*" >&2; exit 1; }
[ -f "$image" ] || die "no kernel image $image"
[ -f "$mods/modules.order" ] || [ -f "$mods/modules.dep" ] ||
  die "$mods does not look like a modules directory (no modules.order or modules.dep)"

tmp=$(mktemp -d "$dir.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/root/boot" "$tmp/root/lib/modules"
cp "$image" "$tmp/root/boot/vmlinuz-$kver"
cp -al "$mods" "$tmp/root/lib/modules/$kver" 2>/dev/null || {
  rm -rf "$tmp/root/lib/modules/$kver"
  cp -a "$mods" "$tmp/root/lib/modules/$kver"
}
echo custom >"$tmp/root/.apt"
mv "$tmp/root" "$dir"
