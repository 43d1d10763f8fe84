#!/usr/bin/env bash
# Unit test of backports-apt.sh's derivation of the backports suite from apt sources
# (both formats, with keys, options, disabled entries and other suites that must not be
# copied). CTest: lab.backports-sources (label unit); needs no network.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
mkdir -p "$t/apt/sources.list.d"
echo 'VERSION_CODENAME=bookworm' >"$t/os-release"
cat >"$t/apt/sources.list.d/debian.sources" <<'SRC'
Types: deb deb-src
# a comment inside the paragraph
URIs: http://mirror.example/debian
Suites: bookworm bookworm-updates
Components: main contrib
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://mirror.example/debian-security
Suites: bookworm-security
Components: main

Types: deb
URIs: http://disabled.example/debian
Suites: bookworm
Components: main
Enabled: no

Types: deb
URIs: http://inline.example/debian
Suites: bookworm
Components: main
Signed-By:
 -----BEGIN PGP PUBLIC KEY BLOCK-----
 .
 mQINBGPL0BUBEADmW5NdOOHwPIJlgPu6JDcKw/NZJPR8lsD9K7UgrF6nP+yLg9Wc
 -----END PGP PUBLIC KEY BLOCK-----
SRC
cat >"$t/apt/sources.list" <<'SRC'
deb [arch=amd64 signed-by=/k.gpg] http://legacy.example/debian bookworm main non-free
deb http://legacy.example/debian bookworm-updates main
# deb http://commented.example/debian bookworm main
deb-src http://legacy.example/debian bookworm main
SRC
got=$(BACKPORTS_APT_ETC=$t/apt BACKPORTS_OS_RELEASE=$t/os-release "$here/backports-apt.sh" --print-sources)
want='deb [arch=amd64 signed-by=/k.gpg] http://legacy.example/debian bookworm-backports main non-free
Types: deb
URIs: http://mirror.example/debian
Suites: bookworm-backports
Components: main contrib
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://inline.example/debian
Suites: bookworm-backports
Components: main
Signed-By:
 -----BEGIN PGP PUBLIC KEY BLOCK-----
 .
 mQINBGPL0BUBEADmW5NdOOHwPIJlgPu6JDcKw/NZJPR8lsD9K7UgrF6nP+yLg9Wc
 -----END PGP PUBLIC KEY BLOCK-----'
if [ "$got" != "$want" ]; then
  echo "FAIL: derived sources differ"; diff <(echo "$want") <(echo "$got"); exit 1
fi
echo "ok: backports derived from deb822 and one-line sources"

# Nothing for the release: exit 3 with a message.
echo 'VERSION_CODENAME=trixie' >"$t/os-release"
rc=0
BACKPORTS_APT_ETC=$t/apt BACKPORTS_OS_RELEASE=$t/os-release "$here/backports-apt.sh" --print-sources 2>"$t/err" || rc=$?
[ "$rc" = 3 ] && grep -q "no apt source for 'trixie'" "$t/err" || { echo "FAIL: exit $rc: $(cat "$t/err")"; exit 1; }
echo "ok: no source for the release: exit 3"
