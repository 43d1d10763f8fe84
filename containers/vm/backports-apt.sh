#!/usr/bin/env bash
# Runs an apt command (apt-get, apt-cache) against the backports suite of this machine's
# own Debian release, without touching the machine's apt configuration: the suite is
# derived from the existing apt sources (same URIs, components and keys as the entries for
# <codename>, suite <codename>-backports) into a private apt directory, so no mirror
# address is written anywhere in the repository.
#
#   backports-apt.sh apt-get download linux-image-6.12.95+deb12-amd64
#   backports-apt.sh apt-cache depends linux-image-amd64
#   backports-apt.sh --print-sources      the derived sources, for a look
#
# The private directory is $RDMACHECK_CACHE/apt-backports (default /var/cache/rdmacheck);
# its package lists are refreshed when older than a day. Exit 3 when the sources contain
# no entry for the release (nothing to derive from).
# For tests: BACKPORTS_APT_ETC (default /etc/apt) and BACKPORTS_OS_RELEASE
# (default /etc/os-release) are read instead (containers/vm/backports-apt_test.sh).
set -euo pipefail
dir=${RDMACHECK_CACHE:-/var/cache/rdmacheck}/apt-backports
etc=${BACKPORTS_APT_ETC:-/etc/apt}
die() { echo "backports-apt: $*" >&2; exit "${2:-1}"; }

# shellcheck disable=SC1090
codename=$(. "${BACKPORTS_OS_RELEASE:-/etc/os-release}" && echo "${VERSION_CODENAME:-}")
[ -n "$codename" ] || die "no VERSION_CODENAME in /etc/os-release" 3
suite=$codename-backports

# derive: the host's entries for $codename, re-pointed at $suite (deb822 and one-line
# formats). deb822 paragraphs are copied whole, so a multi-line Signed-By key survives.
derive() {
  local f
  for f in "$etc"/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk -v cn="$codename" -v suite="$suite" 'BEGIN { on = 1 }
      function flush(  i, s, t) {
        s = " " suites " "; t = " " types " "
        if (n && on && s ~ (" " cn " ") && t ~ / deb /) {
          for (i = 1; i <= n; i++) {
            if (tolower(lines[i]) ~ /^suites:/) print "Suites: " suite
            else if (tolower(lines[i]) ~ /^types:/) print "Types: deb"
            else print lines[i]
          }
          print ""
        }
        n = 0; on = 1; suites = ""; types = ""
      }
      /^[ \t]*#/ { next }
      /^[ \t]*$/ { flush(); next }
      { lines[++n] = $0 }
      tolower($0) ~ /^suites:/ { suites = $0; sub(/^[^:]*:[ \t]*/, "", suites) }
      tolower($0) ~ /^types:/ { types = $0; sub(/^[^:]*:[ \t]*/, "", types) }
      tolower($0) ~ /^enabled:[ \t]*no/ { on = 0 }
      END { flush() }' "$f"
  done >"$1/sources.list.d/backports.sources"
  for f in "$etc"/sources.list "$etc"/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    # deb [options] URI SUITE COMPONENT...
    awk -v cn="$codename" -v suite="$suite" '
      $1 == "deb" { i = 2; if ($2 ~ /^\[/) while ($i !~ /\]$/) i++; if ($2 ~ /^\[/) i++
                    if ($(i + 1) == cn) { $(i + 1) = suite; print } }' "$f"
  done >"$1/sources.list"
  [ -s "$1/sources.list.d/backports.sources" ] || [ -s "$1/sources.list" ]
}

opts=(-o "Dir::Etc::SourceList=$dir/sources.list" -o "Dir::Etc::SourceParts=$dir/sources.list.d"
  -o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir/cache" -o APT::Sandbox::User=root)

if [ "${1:-}" = --print-sources ]; then
  t=$(mktemp -d) && trap 'rm -rf "$t"' EXIT && mkdir "$t/sources.list.d"
  derive "$t" || die "no apt source for '$codename' to derive $suite from" 3
  cat "$t/sources.list" "$t/sources.list.d/backports.sources"
  exit 0
fi
[ $# -gt 0 ] || die "usage: backports-apt.sh apt-get|apt-cache ARGS... | --print-sources" 2

mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/sources.list.d"
exec 8>"$dir/.lock"
flock 8
stamp=$dir/lists/.updated
if [ -z "$(find "$stamp" -mmin -1440 2>/dev/null)" ]; then
  derive "$dir" || die "no apt source for '$codename' in $etc to derive $suite from" 3
  echo "backports-apt: refreshing the $suite package lists" >&2
  apt-get "${opts[@]}" update -qq >&2 || die "apt-get update of $suite failed"
  touch "$stamp"
fi
exec 8>&-
cmd=$1
shift
exec "$cmd" "${opts[@]}" "$@"
