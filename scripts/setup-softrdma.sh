#!/usr/bin/env bash
# Brings up software RDMA devices and waits until they are ACTIVE: rxe0 (Soft-RoCE,
# rdma_rxe) and siw0 (Soft-iWARP, siw). Used inside the VM of scripts/lab.sh, and on real
# hosts whose kernel has these modules.
#
#   setup-softrdma.sh [--rxe] [--siw] [--netdev IF] [--teardown]
#
#   --rxe, --siw   the devices to bring up (default: both)
#   --netdev IF    the netdev to put them on. Default: the interface of the default route,
#                  else one dummy netdev per device, created here:
#                  rdmacheck-rxe 10.77.1.1/24, rdmacheck-siw 10.77.2.1/24
#                  (fixed MACs 02:00:0a:4d:01:01 and 02:00:0a:4d:02:01)
#   --teardown     delete the devices and dummy netdevs this script created and unload
#                  the rdma_rxe/siw modules it loaded (of the kinds given, default both)
#
# Idempotent: an existing rxe0/siw0 on the right netdev is reused, a second --teardown
# finds nothing to do. What it creates is recorded in /run/rdmacheck-softrdma.state for
# --teardown. Modules already loaded are not loaded again; env MODPROBE (default
# "modprobe") loads the others, e.g. MODPROBE="modprobe -d DIR" for modules under DIR.
# Exit status: 0 done, 1 an error (printed: a missing module names the package that
# usually has it; an iproute2 without `rdma link add` is named as such).
# Tested in the lab by scripts/setup-softrdma_test.sh (CTest device.setup-softrdma).
set -euo pipefail
# Few processes on purpose: in the lab's emulated VM each exec costs ~0.1 s.
STATE=/run/rdmacheck-softrdma.state
MODPROBE=${MODPROBE:-modprobe}

log() { echo "setup-softrdma: $*"; }
die() { echo "setup-softrdma: error: $*" >&2; exit 1; }

kinds=() netdev='' teardown=''
while [ $# -gt 0 ]; do
  case $1 in
    --rxe | --siw) kinds+=("${1#--}") ;;
    --netdev) netdev=${2:?--netdev needs an interface name}; shift ;;
    --netdev=*) netdev=${1#*=} ;;
    --teardown) teardown=1 ;;
    -h | --help) sed -n '2,/^set /{/^set /d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
  shift
done
[ ${#kinds[@]} -gt 0 ] || kinds=(rxe siw)
[ "$EUID" -eq 0 ] || die "must run as root"
command -v rdma >/dev/null && command -v ip >/dev/null || die "no 'rdma'/'ip' tools: install iproute2"

# State lines: "<kind> link <rdma device>", "<kind> dummy <netdev>" or
# "<kind> module <module>", in creation order.
state=()
[ ! -f "$STATE" ] || mapfile -t state <"$STATE"
record() {
  local l
  for l in "${state[@]}"; do [ "$l" != "$*" ] || return 0; done
  state+=("$*")
  echo "$*" >>"$STATE"
}

if [ -n "$teardown" ]; then
  keep=() did=0
  # Newest first: devices before their netdevs, modules last.
  for ((i = ${#state[@]} - 1; i >= 0; i--)); do
    read -r k what name <<<"${state[i]}"
    if [[ " ${kinds[*]} " != *" $k "* ]]; then keep=("${state[i]}" "${keep[@]}"); continue; fi
    did=1
    # Something already gone is fine (idempotent); one still there after a failed
    # delete is reported and kept in the state for a later try.
    case $what in
      link)
        if rdma link delete "$name" 2>/dev/null; then log "deleted $name"
        elif [ -e "/sys/class/infiniband/$name" ]; then log "warning: cannot delete $name"; keep=("${state[i]}" "${keep[@]}")
        fi ;;
      dummy)
        if ip link delete "$name" 2>/dev/null; then log "deleted netdev $name"
        elif ip link show "$name" >/dev/null 2>&1; then log "warning: cannot delete netdev $name"; keep=("${state[i]}" "${keep[@]}")
        fi ;;
      module)
        if $MODPROBE -r "$name" 2>/dev/null; then log "unloaded module $name"
        elif [ -d "/sys/module/$name" ]; then log "warning: module $name still in use, left loaded"
        fi ;;
    esac
  done
  [ "$did" = 1 ] || log "nothing to tear down (no devices of this script: $STATE)"
  if [ ${#keep[@]} -gt 0 ]; then printf '%s\n' "${keep[@]}" >"$STATE"; else rm -f "$STATE"; fi
  exit 0
fi

# Modules: those not loaded yet in one modprobe call, then a clear error per missing one.
# hint MODULE: where the module usually comes from, for this distribution.
hint() {
  local id='' u
  id=$(. /etc/os-release 2>/dev/null && echo "${ID:-}")
  case $id in
    ubuntu) u="install the package linux-modules-extra-$(uname -r)" ;;
    fedora | rhel | centos | rocky | almalinux) u="install the package kernel-modules-extra" ;;
    debian) u="Debian's linux-image-*-amd64 kernels have rdma_rxe, ib_uverbs and rdma_ucm (not the -cloud flavour)" ;;
    *) u="on Ubuntu it is in linux-modules-extra-$(uname -r), on Fedora in kernel-modules-extra" ;;
  esac
  case $1 in
    ib_uverbs) echo "needed for /dev/infiniband/uverbs* (CONFIG_INFINIBAND_USER_ACCESS); $u" ;;
    rdma_ucm) echo "needed for /dev/infiniband/rdma_cm (CONFIG_INFINIBAND_USER_ACCESS); $u" ;;
    rdma_rxe) echo "Soft-RoCE (CONFIG_RDMA_RXE); $u" ;;
    siw) echo "Soft-iWARP (CONFIG_RDMA_SIW); $u; Debian's kernels do not build siw: containers/vm/build-siw.sh builds it (scripts/lab.sh does, for its VM)" ;;
  esac
}
mods=(ib_uverbs rdma_ucm)
[[ " ${kinds[*]} " != *" rxe "* ]] || mods+=(rdma_rxe)
[[ " ${kinds[*]} " != *" siw "* ]] || mods+=(siw)
missing=()
for m in "${mods[@]}"; do [ -d "/sys/module/$m" ] || missing+=("$m"); done
# rxe computes its ICRC with the kernel's crc32 crypto module, which it requests through
# the kernel's modprobe path; that fails where modprobe cannot find the modules (a chroot,
# MODPROBE="modprobe -d DIR"), and "rdma link add" then fails with ENOENT. Load it here.
extra=()
[[ " ${kinds[*]} " != *" rxe "* ]] || [ -d /sys/module/crc32_generic ] || extra=(crc32_generic)
if [ $((${#missing[@]} + ${#extra[@]})) -gt 0 ]; then
  $MODPROBE -a "${missing[@]}" "${extra[@]}" 2>/dev/null || true
  for m in "${missing[@]}"; do
    # A second try per module: built-in ones (no /sys/module entry) succeed here.
    [ -d "/sys/module/$m" ] || $MODPROBE "$m" 2>/dev/null ||
      die "kernel module $m not available for kernel $(uname -r): $(hint "$m")"
    case $m in rdma_rxe) record "rxe module $m" ;; siw) record "siw module $m" ;; esac
  done
fi
# iproute2 before 5.1 has no `rdma link add` (its usage lists only `link show`); asked
# once the modules are in, since without them `rdma` cannot open its netlink socket.
usage=$(rdma link help 2>&1 || true)
[[ $usage != *Usage* || $usage == *"link add"* ]] ||
  die "'rdma link add' is not supported by this iproute2 ($(rdma -V 2>&1)): soft RDMA devices need iproute2 >= 5.1"

# make_node CLASS/NAME NODE: /dev/infiniband/NODE from /sys/class/CLASS/NAME/dev, for a
# /dev that devtmpfs/udev do not maintain (e.g. a privileged container's, whose nodes
# were copied at its start, before this script made the device).
make_node() {
  local majmin
  read -r majmin 2>/dev/null <"/sys/class/$1/dev" || return 1
  mkdir -p /dev/infiniband && mknod -m 0600 "/dev/infiniband/$2" c "${majmin%:*}" "${majmin#*:}" 2>/dev/null &&
    log "made /dev/infiniband/$2 (c $majmin): nothing else makes device nodes in this /dev"
}

if [ -z "$netdev" ]; then # the interface of the default route, if any
  route=$(ip -o route show default 2>/dev/null || true)
  [[ $route =~ \ dev\ ([^ ]+) ]] && netdev=${BASH_REMATCH[1]}
fi
links=$(rdma link show 2>/dev/null || true)

for kind in "${kinds[@]}"; do
  case $kind in
    rxe) dev=rxe0 net=10.77.1.1/24 mac=02:00:0a:4d:01:01 ;;
    siw) dev=siw0 net=10.77.2.1/24 mac=02:00:0a:4d:02:01 ;;
  esac
  nd=${netdev:-rdmacheck-$kind} # no netdev given and no default route: a dummy of our own

  # The netdev of an existing device, from netlink (soft devices on dummies have no
  # /sys/class/infiniband/DEV/device/net); checked before anything is created.
  cur=''
  [[ $links =~ (^|$'\n')link\ $dev/1\ [^$'\n']*netdev\ ([^ $'\n']+) ]] && cur=${BASH_REMATCH[2]}
  [ -z "$cur" ] || [ "$cur" = "$nd" ] ||
    die "$dev already exists on netdev $cur, not $nd (remove it: rdma link delete $dev)"

  if [ -n "$netdev" ]; then
    addr=$(ip -o -4 addr show dev "$nd" 2>/dev/null) || die "no netdev '$nd'"
    [[ $addr =~ inet\ ([^ ]+) ]] && addr=${BASH_REMATCH[1]} || addr='(no IPv4 address)'
  else
    addr=$net
    if ! ip link show "$nd" >/dev/null 2>&1; then
      # A fixed (locally administered) MAC: GUIDs and GIDs derive from it, so they stay
      # the same from run to run and results can be compared.
      ip link add "$nd" address "$mac" type dummy || die "cannot create dummy netdev $nd (module 'dummy' missing?)"
      record "$kind dummy $nd"
    fi
    ip addr replace "$net" dev "$nd"
    ip link set "$nd" up
  fi

  if [ -z "$cur" ]; then
    if ! err=$(rdma link add "$dev" type "$kind" netdev "$nd" 2>&1); then
      die "rdma link add $dev type $kind netdev $nd: $err (another $kind device already on $nd? see 'rdma link show')"
    fi
    record "$kind link $dev"
    what=created
  else
    what=reused
  fi

  # Bounded wait (10 s): the port goes ACTIVE and devtmpfs/udev creates the uverbs node.
  port='' uverbs=''
  for ((i = 0; i < 50; i++)); do
    read -r port 2>/dev/null <"/sys/class/infiniband/$dev/ports/1/state" || true
    for f in /sys/class/infiniband_verbs/uverbs*/ibdev; do
      read -r d 2>/dev/null <"$f" && [ "$d" = "$dev" ] && uverbs=${f%/ibdev} && uverbs=${uverbs##*/}
    done
    [[ $port == *ACTIVE* && -n $uverbs && -e /dev/infiniband/$uverbs ]] && break
    # After a second without it: a /dev that nothing maintains (a container's, filled
    # once at its start) gets the node from us.
    [ "$i" != 5 ] || [ -z "$uverbs" ] || make_node "infiniband_verbs/$uverbs" "$uverbs"
    sleep 0.2
  done
  [[ $port == *ACTIVE* ]] || die "$dev on $nd not ACTIVE after 10 s (port state: ${port:-none})"
  [[ -n $uverbs && -e /dev/infiniband/$uverbs ]] || die "$dev has no /dev/infiniband/uverbs* node"
  log "$dev ACTIVE on $nd $addr, /dev/infiniband/$uverbs ($what)"
done
[ -e /dev/infiniband/rdma_cm ] || make_node misc/rdma_cm rdma_cm ||
  die "no /dev/infiniband/rdma_cm (rdma_ucm loaded but no device node)"

# Registering memory needs a high RLIMIT_MEMLOCK. A script cannot raise its caller's
# limit itself, but root can with prlimit.
if [ "$(ulimit -l)" = unlimited ]; then
  log "memlock: unlimited"
elif prlimit --pid "$PPID" --memlock=unlimited:unlimited 2>/dev/null; then
  log "memlock: raised to unlimited for the calling process (pid $PPID); in other shells run 'ulimit -l unlimited'"
else
  log "memlock: $(ulimit -l) KiB; run 'ulimit -l unlimited' before RDMA programs, or set '* - memlock unlimited' in /etc/security/limits.conf"
fi
