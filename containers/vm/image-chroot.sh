#!/usr/bin/env bash
# Runs COMMAND as root in a chroot of ROOT (a root file system of containers/vm/image-root.sh),
# with /proc, /sys and /dev, the host's resolv.conf (apt reaches the mirror), and each DIR
# bound at its own path (--ro: read-only). Everything is mounted in a private mount
# namespace (unshare), so nothing stays mounted when COMMAND ends, however it ends.
#
#   containers/vm/image-chroot.sh ROOT [--bind DIR | --ro DIR]... -- COMMAND [ARG...]
#
# COMMAND gets a clean environment: PATH, HOME=/root, LANG=C.UTF-8, DEBIAN_FRONTEND=noninteractive.
set -euo pipefail
die() { echo "image-chroot: $*" >&2; exit 2; }
[ $# -ge 1 ] && [ -d "$1/usr/bin" ] || die "usage: image-chroot.sh ROOT [--bind DIR | --ro DIR]... -- COMMAND..."
root=$(cd "$1" && pwd)
shift
binds=()
while [ $# -gt 0 ]; do
  case $1 in
    --bind | --ro) [ -d "${2:-}" ] || die "$1 needs a directory"; binds+=("$1" "$(cd "$2" && pwd)"); shift 2 ;;
    --) shift; break ;;
    *) die "unknown option '$1'" ;;
  esac
done
[ $# -gt 0 ] || die "no COMMAND"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
# shellcheck disable=SC2016  # expanded by the inner shell
exec unshare -m --propagation private bash -euo pipefail -c '
  root=$1 n=$2; shift 2
  mount -t proc proc "$root/proc"
  mount --rbind /sys "$root/sys"
  mount --rbind /dev "$root/dev"
  while [ "$n" -gt 0 ]; do
    mkdir -p "$root$2"
    mount --bind "$2" "$root$2"
    [ "$1" = --bind ] || mount -o remount,bind,ro "$root$2"
    shift 2; n=$((n - 2))
  done
  exec chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
' image-chroot "$root" "${#binds[@]}" "${binds[@]}" "$@"
