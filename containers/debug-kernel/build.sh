#!/usr/bin/env bash
# Builds the lab's debug kernel (issue 36): Debian's kernel source of the lab's series
# (package linux-source-6.1) on x86_64_defconfig + kvm_guest.config, with what the lab's
# guest needs (lab.config) and the debug options (debug.config: KASAN, UBSAN, lockdep,
# kmemleak, debug objects, the hung-task detector, failslab and fail_page_alloc).
# Built once and cached by content: the source package's version, both fragments and this
# script name the cache entry; a second call with the same inputs builds nothing.
#
# Usage: build.sh CACHE_DIR     prints the entry: DIR with DIR/vmlinuz, DIR/modules/KVER
#                               (custom-kernel.sh's inputs) and DIR/config, DIR/build.log
# Env:   RDMACHECK_DEBUG_KERNEL_JOBS  make -j (default: nproc)
# scripts/lab.sh boots it with RDMACHECK_KERNEL=debug.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${1:?usage: build.sh CACHE_DIR}
pkg=linux-source-6.1
tarball=/usr/src/$pkg.tar.xz
die() { echo "debug-kernel: $*" >&2; exit 1; }
# After the build starts, its output goes to a log; a failure shows the log's end.
show_log() { [ -z "${log:-}" ] || tail -30 "$log" >&3; }
for t in make:make gcc:gcc flex:flex bison:bison bc:bc; do
  command -v "${t%%:*}" >/dev/null || die "${t%%:*} not found: apt-get install ${t#*:}"
done
[ -f /usr/include/libelf.h ] || die "libelf.h not found: apt-get install libelf-dev"
[ -f "$tarball" ] || die "$tarball not found: apt-get install $pkg"
version=$(dpkg-query -W -f '${Version}' "$pkg" 2>/dev/null) || die "$pkg is not installed"
key=$({ echo "$pkg $version"; cat "$here/lab.config" "$here/debug.config" "$0"; } |
  sha256sum | cut -c1-12)
out=$cache/debug-kernel-$key
if [ -f "$out/vmlinuz" ]; then echo "$out"; exit 0; fi

mkdir -p "$cache"
exec 9>"$cache/debug-kernel.lock"
flock 9
if [ -f "$out/vmlinuz" ]; then echo "$out"; exit 0; fi
work=$(mktemp -d "$cache/debug-kernel-build.XXXXXX")
log=$work/build.log
exec 3>&2 >"$log" 2>&1
trap 'rc=$?; [ $rc = 0 ] || { show_log; echo "debug-kernel: build failed (log above)" >&3; }; rm -rf "$work"' EXIT
start=$(date +%s)
echo "debug-kernel: $pkg $version, key $key"
tar -xJf "$tarball" -C "$work"
src=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'linux-source-*' | head -1)
[ -n "$src" ] || die "no source tree in $tarball"
obj=$work/obj
make -s -C "$src" O="$obj" x86_64_defconfig
"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" \
  "$src/kernel/configs/kvm_guest.config" "$here/lab.config" "$here/debug.config"
make -s -C "$src" O="$obj" olddefconfig
# Every option asked for must be what the config says: one the kernel dropped (a
# missing dependency) would make the kernel quietly less of a debug kernel.
missing=$(grep -h '^CONFIG_' "$here/lab.config" "$here/debug.config" | while IFS= read -r line; do
  name=${line%%=*} value=${line#*=}
  if [ "$value" = n ]; then
    if grep -q "^$name=" "$obj/.config"; then echo "$line"; fi
  # A module built in (something built in selects it) serves as well.
  elif ! grep -qxF "$line" "$obj/.config" &&
    ! { [ "$value" = m ] && grep -qxF "$name=y" "$obj/.config"; }; then
    echo "$line"
  fi
done)
[ -z "$missing" ] || die "options the config did not take: $(echo "$missing" | tr '\n' ' ')"
make -C "$src" O="$obj" -j"${RDMACHECK_DEBUG_KERNEL_JOBS:-$(nproc)}" bzImage modules
kver=$(make -s -C "$src" O="$obj" kernelrelease)
mkdir -p "$work/out"
make -s -C "$src" O="$obj" modules_install INSTALL_MOD_PATH="$work/mods" INSTALL_MOD_STRIP=1
mkdir -p "$work/out/modules"
mv "$work/mods/lib/modules/$kver" "$work/out/modules/$kver"
rm -f "$work/out/modules/$kver/build" "$work/out/modules/$kver/source"
cp "$obj/arch/x86/boot/bzImage" "$work/out/vmlinuz"
cp "$obj/.config" "$work/out/config"
echo "debug-kernel: $kver built in $(($(date +%s) - start)) s"
cp "$log" "$work/out/build.log"
mv "$work/out" "$out"
echo "$out" >&3
