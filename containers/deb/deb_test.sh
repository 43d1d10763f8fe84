#!/usr/bin/env bash
# Tests of the Debian package (containers/deb/package.cmake).
#
#   deb_test.sh build BUILD_DIR
#       (host, ctest package.deb) makes the package with CPack and checks its name, its
#       declared dependencies and that it holds the binary, the expectations and the scripts.
#   deb_test.sh install BUILD_DIR [RUN_FLAGS...]
#       (lab, ctest device.deb) installs it with dpkg into a clean Debian root (the container
#       base of containers/make-base-rootfs.sh: only the runtime packages, no build tree) and
#       runs there, on every device: `rdmacheck doctor`, `rdmacheck list --check` (the
#       expectations are found under /usr/share) and `rdmacheck run --suites=device,pd`.
#       Results in $OUT/deb/<device>/. Exit 77 outside the lab or without the base tarball.
set -uo pipefail
mode=${1:-} build=${2:-}
shift 2 || { echo "usage: deb_test.sh build|install BUILD_DIR [RUN_FLAGS...]" >&2; exit 2; }
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
fail() { echo "deb_test: $*" >&2; exit 1; }
deb() { ls "$build"/package/rdmacheck_*_amd64.deb 2>/dev/null | head -1; }

make_package() {
  rm -f "$build"/package/rdmacheck_*.deb
  (cd "$build" && cpack -G DEB --config CPackConfig.cmake >cpack.log 2>&1) || { tail -20 "$build/cpack.log" >&2; fail "cpack failed"; }
  [ -n "$(deb)" ] || fail "cpack made no rdmacheck_<version>_amd64.deb in $build/package"
}

if [ "$mode" = build ]; then
  make_package
  pkg=$(deb)
  depends=$(dpkg-deb -f "$pkg" Depends)
  for d in libibverbs1 librdmacm1 ibverbs-providers libstdc++6; do
    grep -q "\b$d\b" <<<"$depends" || fail "Depends lacks $d: $depends"
  done
  contents=$(dpkg-deb -c "$pkg")
  for f in ./usr/bin/rdmacheck ./usr/share/rdmacheck/expectations/rxe.json ./usr/share/rdmacheck/expectations/siw.json \
           ./usr/share/rdmacheck/scripts/setup-softrdma.sh ./usr/share/rdmacheck/scripts/run-devices.sh; do
    grep -q " $f\$" <<<"$contents" || fail "the package lacks $f"
  done
  echo "deb_test: $(basename "$pkg") ($(du -k "$pkg" | cut -f1) KiB), Depends: $depends"
  exit 0
fi

[ "$mode" = install ] || fail "unknown mode '$mode'"
[ -n "${RDMACHECK_LAB:-}" ] || { echo "deb_test: not in the lab (scripts/lab.sh): skipped"; exit 77; }
base=$("$repo/containers/make-base-rootfs.sh" --print-path)
[ -s "$base" ] || { echo "deb_test: no base root $base (containers/make-base-rootfs.sh on the host): skipped"; exit 77; }
[ -n "$(deb)" ] || make_package
pkg=$(deb)
out=${OUT:-$repo/out}/deb
rm -rf "$out" && mkdir -p "$out"

root=$(mktemp -d /tmp/deb-root.XXXXXX)
cleanup() {
  for m in out dev sys proc; do umount -R "$root/$m" 2>/dev/null; done
  rm -rf "$root"
}
trap cleanup EXIT
tar -xf "$base" -C "$root" || fail "cannot unpack $base"
cp "$pkg" "$root/tmp/"
chroot "$root" dpkg -i "/tmp/$(basename "$pkg")" >"$out/dpkg.log" 2>&1 || { cat "$out/dpkg.log" >&2; fail "dpkg -i failed"; }
mkdir -p "$root/out"
mount -t proc proc "$root/proc" && mount --rbind /sys "$root/sys" && mount --rbind /dev "$root/dev" &&
  mount --bind "$out" "$root/out" || fail "cannot mount /proc, /sys, /dev into the root"
in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "$@"; }

[ "$(in_root sh -c 'command -v rdmacheck')" = /usr/bin/rdmacheck ] || fail "rdmacheck is not on PATH in the root"
[ ! -e "$root$repo" ] || fail "the clean root holds the source tree: it would prove nothing"
in_root rdmacheck list --check >"$out/list-check.log" 2>&1 || { cat "$out/list-check.log" >&2; fail "rdmacheck list --check failed"; }
grep -Eq '\b[1-9][0-9]* expectation files' "$out/list-check.log" ||
  fail "the installed rdmacheck finds no expectation files under /usr/share/rdmacheck: $(tail -1 "$out/list-check.log")"
rc=0
for dev in $(ls /sys/class/infiniband); do
  in_root rdmacheck doctor --device="$dev" >"$out/doctor-$dev.txt" 2>&1
  d=$?
  echo "deb_test: $dev doctor exit $d: $(head -1 "$out/doctor-$dev.txt")"
  [ "$d" -eq 0 ] || rc=1
  in_root rdmacheck run --device="$dev" --suites=device,pd --out="/out/$dev" "$@" >"$out/run-$dev.log" 2>&1
  r=$?
  echo "deb_test: $dev run exit $r: $(tail -1 "$out/run-$dev.log")"
  [ "$r" -eq 0 ] || rc=1
done
exit "$rc"
