#!/usr/bin/env bash
# Installs every Debian package rdmacheck's build, tests and VM lab need.
# Idempotent: when everything is present it only checks and exits (about a second).
set -euo pipefail

log() { echo "install-deps: $*" >&2; }

# The guest kernel's headers must match the kernel the lab boots (see scripts/lab.sh).
kernel_abi() {
  apt-cache depends linux-image-amd64 2>/dev/null |
    sed -n 's/.*Depends: linux-image-\(.*\)-amd64$/\1/p' | head -n1
}

packages=(
  # build and unit tests
  build-essential cmake pkg-config git
  libgtest-dev libgmock-dev googletest libabsl-dev nlohmann-json3-dev
  # `rdmacheck plan` reads the installed (gzipped) man pages of rdma-core
  zlib1g-dev
  # rdma-core: headers, providers (rxe, siw, ...), tools used by the lab and benchmarks
  libibverbs-dev librdmacm-dev rdma-core ibverbs-providers ibverbs-utils rdmacm-utils
  perftest iproute2
  # the VM lab
  qemu-system-x86 busybox-static kmod cpio xz-utils zstd
  # wire checks and the wire lab (`rdmacheck wire check` reads captures through Wireshark's dissectors)
  tshark
  # report browser test, CI template lint, container image
  chromium python3-jsonschema yamllint podman debootstrap
  # the fleet report's benchmark (unit/fleet_report_bench.cc); the Slurm lab
  # (scripts/slurm-lab.sh: its nodes run the host's root, so slurmctld, slurmd and munge
  # come from here; the host's own services are not started, below)
  libbenchmark-dev slurm-wlm munge
)

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: must run as root (apt-get install)" >&2
  exit 2
fi
export DEBIAN_FRONTEND=noninteractive

missing() {
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || echo "$p"
  done
}

abi=$(kernel_abi)
if [ -z "$abi" ]; then
  log "apt lists are empty or stale: running apt-get update"
  apt-get update -qq
  abi=$(kernel_abi)
fi
[ -n "$abi" ] || { echo "install-deps: cannot find the Debian kernel (linux-image-amd64) in apt" >&2; exit 2; }
packages+=("linux-headers-${abi}-amd64")

# The Kubernetes API schema for `ctest -R ci.kubernetes-schema` (ci/kubernetes/validate.mjs):
# npm packages pinned by ci/kubernetes/package-lock.json, installed outside the tree and
# again only when the lock file changes.
install_kubernetes_schema() {
  local src dst=/opt/rdmacheck/kubernetes-schema
  src=$(cd "$(dirname "$0")/../ci/kubernetes" && pwd)
  cmp -s "$src/package-lock.json" "$dst/package-lock.json" && [ -d "$dst/node_modules/kubernetes-models" ] && return 0
  command -v npm >/dev/null || { log "npm missing: the Kubernetes manifests cannot be validated"; return 1; }
  log "installing the Kubernetes API schema (npm: kubernetes-models) into $dst"
  rm -rf "$dst.tmp" && mkdir -p "$dst.tmp" && cp "$src/package.json" "$src/package-lock.json" "$dst.tmp/"
  (cd "$dst.tmp" && npm ci --no-audit --no-fund --loglevel=error >/dev/null) && rm -rf "$dst" && mv "$dst.tmp" "$dst"
}

mapfile -t todo < <(missing "${packages[@]}")
if [ "${#todo[@]}" -eq 0 ]; then
  install_kubernetes_schema
  log "all ${#packages[@]} packages present"
  exit 0
fi
log "installing ${#todo[@]} packages: ${todo[*]}"
# No service starts on this host while installing (munge, slurmd, slurmctld would): a
# policy-rc.d refusing every start, ours only for this install, when there is none.
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d
  trap 'rm -f /usr/sbin/policy-rc.d' EXIT
fi
if ! apt-get install -y -qq --no-install-recommends "${todo[@]}" >/dev/null; then
  log "install failed; refreshing apt lists and retrying"
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${todo[@]}" >/dev/null
fi
install_kubernetes_schema
log "done"
