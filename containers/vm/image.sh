#!/usr/bin/env bash
# Prepares an image for the lab (RDMACHECK_IMAGE of scripts/lab.sh) and prints
# "ROOT KVER": the root file system the guest boots over 9p and its kernel's version
# (ROOT/boot/vmlinuz-KVER, ROOT/lib/modules/KVER).
#
#   containers/vm/image.sh NAME
#
# NAME is a Debian release (bookworm, trixie, sid, ...) or a directory holding a root file
# system with its kernel and rdmacheck installed (a user's own image, unpacked; used as it is).
# A release is made here, cached under $RDMACHECK_CACHE/images/<release>-<archive date>-<key>
# (key: the package lists and the scripts that make the roots):
#   build/  debootstrap with the release's compiler and rdma-core headers (image-root.sh);
#           rdmacheck's .deb is built in a chroot of it (image-deb.sh), keyed by the project's
#           files, and so is siw.ko when the kernel lacks it (image-siw.sh)
#   run/    debootstrap with the release's linux-image-amd64; the .deb is installed into it with
#           apt, which resolves its Depends from the release's archive
# The archive's date is checked (its InRelease) when the image is older than a week
# (RDMACHECK_IMAGE_MAX_AGE days); a newer archive makes a new image and the old one is removed.
# A warm run costs a few seconds (hashing the project's files). Exit 2 on an unusable NAME.
set -euo pipefail
die() { echo "image: $*" >&2; exit "${2:-1}"; }
log() { echo "image: $*" >&2; }
[ $# -eq 1 ] && [ -n "$1" ] || die "usage: image.sh RELEASE|DIR" 2
name=$1
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

# kernel_of ROOT: the one kernel version in ROOT/lib/modules that has its vmlinuz.
kernel_of() {
  local k found=''
  for k in "$1"/lib/modules/*/; do
    k=$(basename "$k")
    [ -f "$1/boot/vmlinuz-$k" ] && found=$k
  done
  echo "$found"
}

if [[ $name == */* ]] || [ -d "$name" ]; then
  [ -d "$name" ] || die "no directory $name" 2
  root=$(cd "$name" && pwd)
  kver=$(kernel_of "$root")
  [ -n "$kver" ] || die "$root has no kernel: boot/vmlinuz-KVER with lib/modules/KVER" 2
  [ -x "$root/usr/bin/rdmacheck" ] ||
    die "$root has no /usr/bin/rdmacheck: install rdmacheck's .deb into it first (cpack -G DEB)" 2
  echo "$root $kver"
  exit 0
fi
[[ $name =~ ^[a-z]+$ ]] && [ -e "/usr/share/debootstrap/scripts/$name" ] ||
  die "unknown image '$name': host, a Debian release debootstrap knows (bookworm, trixie, sid, ...) or a directory" 2

cache=${RDMACHECK_CACHE:-/var/cache/rdmacheck}/images
max_age=${RDMACHECK_IMAGE_MAX_AGE:-7}
key=$({ cat "$here/image-root.sh" "$here/image-chroot.sh"; "$here/image-root.sh" --packages build
  "$here/image-root.sh" --packages run; } | sha256sum | cut -c1-12)
mkdir -p "$cache"
exec 8>"$cache/.lock-$name"  # one per release: another release may be built meanwhile
flock -n 8 || { log "waiting for the image lock $cache/.lock-$name"; flock 8; }

# The newest complete image of this release and key (names sort by archive date).
dir=$(find "$cache" -maxdepth 1 -name "$name-*-$key" -type d 2>/dev/null | sort | tail -n 1)
if [ -n "$dir" ] && ! { [ -f "$dir/run/.archive-date" ] && [ -f "$dir/build/.archive-date" ]; }; then dir=''; fi
# Checked against the archive when missing or older than max_age days (-mtime +N: N+1 days).
if [ -z "$dir" ] || [ ! -f "$dir/.checked" ] || [ -n "$(find "$dir/.checked" -mtime "+$((max_age - 1))")" ]; then
  mirror=$("$here/debian-mirror.sh")
  t=$(mktemp)
  date=''
  if /usr/lib/apt/apt-helper download-file "$mirror/dists/$name/InRelease" "$t" >/dev/null 2>&1; then
    date=$(date -u -d "$(sed -n 's/^Date: //p' "$t" | head -n 1)" +%Y%m%d)
  fi
  rm -f "$t"
  if [ -z "$date" ]; then
    [ -n "$dir" ] || die "cannot read $mirror/dists/$name/InRelease (no such release, or no network)"
    log "cannot reach the archive: keeping $dir"
  elif [ -n "$dir" ] && [ "$(cat "$dir/run/.archive-date")" = "$date" ]; then
    touch "$dir/.checked"
  else
    new=$cache/$name-$date-$key
    log "making image $name (archive of $date) in $new"
    mkdir -p "$new"
    s=$SECONDS
    pids=()
    for k in build run; do  # both at once: mostly waiting for the mirror
      [ -f "$new/$k/.archive-date" ] || { "$here/image-root.sh" "$name" "$k" "$new/$k" & pids+=($!); }
    done
    for p in "${pids[@]}"; do wait "$p" || die "making the roots of $name failed"; done
    log "roots made in $((SECONDS - s)) s"
    touch "$new/.checked"
    [ -z "$dir" ] || rm -rf "$dir"
    dir=$new
  fi
fi

run=$dir/run
kver=$(kernel_of "$run")
[ -n "$kver" ] || die "$run has no kernel"
"$here/image-siw.sh" "$dir/build" "$run" "$kver" || exit 1

# rdmacheck: built from the project's files as they are (tracked and untracked, not ignored;
# the documentation aside).
src=$(cd "$repo" && { git ls-files -z -co --exclude-standard -- . ':!:*.md' 2>/dev/null || find . -path ./build -prune -o -path ./out -prune -o -type f -print0; } |
  LC_ALL=C sort -z | xargs -0 sha256sum 2>/dev/null | sha256sum | cut -c1-12)
if [ "$(cat "$run/.rdmacheck-src" 2>/dev/null)" != "$src" ]; then
  deb=$dir/rdmacheck-$src.deb
  if [ ! -f "$deb" ]; then
    log "building rdmacheck's .deb in a chroot of $name"
    s=$SECONDS
    rm -f "$dir"/rdmacheck-*.deb
    "$here/image-deb.sh" "$dir/build" "$deb" || exit 1
    log "built in $((SECONDS - s)) s"
  fi
  log "installing $(basename "$deb") into $name with apt"
  cp "$deb" "$run/tmp/rdmacheck.deb"
  # The same version again must replace the old build: remove it first.
  "$here/image-chroot.sh" "$run" -- bash -euo pipefail -c '
    dpkg --purge rdmacheck >/dev/null 2>&1 || true
    apt-get -o Acquire::Check-Valid-Until=false update -qq  # the mirror may be a past snapshot
    apt-get install -y -qq --no-install-recommends /tmp/rdmacheck.deb >/dev/null
    rm -f /tmp/rdmacheck.deb /var/cache/apt/archives/*.deb' >&2 ||
    die "apt could not install rdmacheck's .deb into $name (do its Depends resolve there?)"
  echo "$src" >"$run/.rdmacheck-src"
fi
echo "$run $kver"
