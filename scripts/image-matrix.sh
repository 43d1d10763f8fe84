#!/usr/bin/env bash
# The compatibility report over system images: runs the lab's main job (scripts/lab.sh) on
# each image and writes one report over all their runs: the test matrix (every test's
# verdict per image and device), and its "Images" section (per image and device the counts;
# per deviation the images where it shows, and where it appears or disappears).
#
#   scripts/image-matrix.sh [IMAGE...]     default: host trixie sid
#
# IMAGE: as RDMACHECK_IMAGE of scripts/lab.sh (host, a Debian release, or a directory).
# Results: <out>/images/<image>/<device>/ (each image's own report beside), the matrix in
# <out>/images/report.{html,md,json}; <out> is RDMACHECK_OUT (default <repo>/out). An image
# whose run fails (a failed test, or a panic after some suites) is in the matrix with what it
# wrote. Exit 0 when every image passed, 1 otherwise, 2 on an unknown IMAGE. Arguments after `--` go to every `rdmacheck run` (e.g. -- --suites=device,pd).
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
log() { echo "image-matrix: $*" >&2; }
images=() run_args=()
while [ $# -gt 0 ]; do
  case $1 in
    --) shift; run_args=("$@"); break ;;
    -h | --help) sed -n '2,/^set /{/^set /d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    -*) log "error: unknown option '$1'"; exit 2 ;;
    *) images+=("$1"); shift ;;
  esac
done
[ ${#images[@]} -gt 0 ] || images=(host trixie sid)
for image in "${images[@]}"; do  # the names containers/vm/image.sh takes, checked before hours of work
  [ "$image" = host ] || [ -d "$image" ] || { [[ $image =~ ^[a-z]+$ ]] && [ -e "/usr/share/debootstrap/scripts/$image" ]; } ||
    { log "error: unknown image '$image': host, a Debian release (bookworm, trixie, sid, ...) or a directory"; exit 2; }
done
# The host's build: the host image runs it, and it writes the matrix.
{ cmake -S "$repo" -B "$repo/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null &&
  cmake --build "$repo/build" -j2 --target rdmacheck >/dev/null; } || { log "error: the build failed"; exit 1; }
out=${RDMACHECK_OUT:-$repo/out}/images
mkdir -p "$out" || exit 2
rc=0 dirs=()
for image in "${images[@]}"; do
  name=$(basename "$image")
  rm -rf "${out:?}/$name"
  log "image $image -> $out/$name"
  s=$SECONDS st=0
  RDMACHECK_IMAGE=$image RDMACHECK_OUT=$out/$name "$repo/scripts/lab.sh" -- scripts/run-devices.sh "${run_args[@]}" || st=$?
  log "image $image: exit $st in $((SECONDS - s)) s"
  [ "$st" -eq 0 ] || rc=1
  for r in "$out/$name"/*/results.json; do [ -f "$r" ] && dirs+=("$(dirname "$r")"); done
done
[ ${#dirs[@]} -gt 0 ] || { log "error: no image produced results"; exit 1; }
"$repo/build/rdmacheck" report --out="$out" "${dirs[@]}" || rc=1
log "matrix over ${#images[@]} images: $out/report.html"
exit $rc
