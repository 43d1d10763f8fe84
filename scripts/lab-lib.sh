# shellcheck shell=bash
# The VM lab's machinery, shared by scripts/lab.sh (one guest) and scripts/wire-lab.sh
# (two guests on a captured virtual wire): kernel selection and its cache (kernel package,
# siw.ko, depmod, initramfs, the KVM probe), the per-boot control share read by
# containers/vm/guest-init.sh, the QEMU command line, and what a finished guest left
# (status, panic, timeout). Sourced, not run; the caller sets `set -euo pipefail`.
#
# Globals it reads: LAB_TAG (log prefix), and the RDMACHECK_* variables of scripts/lab.sh.
# lab_kernel sets kver kdir custom (custom_image custom_modules) root moddir initrd;
# lab_prepare sets accel.

lab_repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
vm=$lab_repo/containers/vm
cache=${RDMACHECK_CACHE:-/var/cache/rdmacheck}
mem=${RDMACHECK_LAB_MEM:-4096}
limit=${RDMACHECK_LAB_TIMEOUT:-3000}
# A guest reaches its command in 10-30 s under TCG (more with several VMs on 2 cores); one
# that has not after this long is stuck in its boot, which no later second will fix.
boot_limit=${RDMACHECK_LAB_BOOT_TIMEOUT:-240}
accel=${RDMACHECK_LAB_ACCEL:-}
LAB_TAG=${LAB_TAG:-lab}
# The root the guest boots over 9p: the host's, or an image's (scripts/lab.sh, RDMACHECK_IMAGE),
# which then gets the project tree shared beside it, at its own path.
lab_hostroot=${lab_hostroot:-/}

log() { echo "$LAB_TAG: $*" >&2; }
die() { log "error: $*"; exit 125; }
need() { command -v "$1" >/dev/null || die "$1 not found (package $2): run scripts/install-deps.sh"; }

lab_check_tools() {
  local t
  for t in qemu-system-x86_64:qemu-system-x86 cpio:cpio depmod:kmod modprobe:kmod \
    flock:util-linux timeout:coreutils apt-get:apt dpkg-deb:dpkg; do
    need "${t%%:*}" "${t#*:}"
  done
  [ -x /bin/busybox ] || die "/bin/busybox not found (package busybox-static): run scripts/install-deps.sh"
  [[ $mem =~ ^[0-9]+$ && $limit =~ ^[0-9]+$ && $boot_limit =~ ^[0-9]+$ ]] ||
    die "RDMACHECK_LAB_MEM, RDMACHECK_LAB_TIMEOUT and RDMACHECK_LAB_BOOT_TIMEOUT must be numbers"
  case $accel in '' | kvm | tcg) ;; *) die "RDMACHECK_LAB_ACCEL must be kvm or tcg" ;; esac
}

# meta_abi [APT...]: the ABI the linux-image-amd64 metapackage depends on.
meta_abi() {
  # The whole output into sed (no early exit that would break the pipe).
  "$@" apt-cache depends linux-image-amd64 2>/dev/null |
    sed -n 's/.*Depends: linux-image-\(.*\)$/\1/p' | sed -n 1p
}

# lab_kernel SPEC: the kernel to boot, SPEC in RDMACHECK_KERNEL's forms; an empty SPEC
# with RDMACHECK_KERNEL_IMAGE/_MODULES set takes that image. Sets KVER (its modules dir
# name), kdir (its cache dir) and the paths derived from them.
lab_kernel() {
  local spec=$1 key image=${RDMACHECK_KERNEL_IMAGE:-} mods=${RDMACHECK_KERNEL_MODULES:-} dk
  custom=''
  if [ "$spec" = debug ]; then
    # Built from source on first use (tens of minutes), then cached by content.
    log "the debug kernel (containers/debug-kernel/build.sh; a cold build takes long)"
    dk=$("$lab_repo/containers/debug-kernel/build.sh" "$cache") || die "the debug kernel did not build"
    spec='' image=$dk/vmlinuz mods=$(echo "$dk"/modules/*)
  fi
  if [ -z "$spec" ] && [ -n "$image$mods" ]; then
    [ -f "$image" ] && [ -d "$mods" ] ||
      die "RDMACHECK_KERNEL_IMAGE must be a vmlinuz and RDMACHECK_KERNEL_MODULES its modules directory"
    custom=1 custom_image=$image custom_modules=$mods
    kver=$(basename "$mods")
    # Keyed by what the kernel is: another build at the same paths gets its own entry.
    key=$({ stat -L -c '%n %s %Y' "$image" "$mods"/modules.* || true; } 2>/dev/null |
      sha256sum | cut -c1-12)
    kdir=$cache/custom-$kver-$key
  else
    case $spec in
      '' | default) kver=$(meta_abi) ;;
      backports | *-backports) kver=$(meta_abi "$vm/backports-apt.sh") ;;
      linux-image-*) kver=${spec#linux-image-} ;;
      *) kver=$spec ;;
    esac
    [ -n "$kver" ] || die "cannot tell which kernel '${spec:-default}' is from apt's linux-image-amd64 (apt-get update?); set RDMACHECK_KERNEL to an ABI"
    kdir=$cache/$kver
  fi
  root=$kdir/root                 # the unpacked kernel package (+ siw.ko, depmod)
  moddir=$root/lib/modules/$kver
  # The initramfs is keyed by what it is built from, so editing those rebuilds it.
  initrd=$kdir/initrd-$(cat "$vm/initramfs-init" "$vm/build-initramfs.sh" | sha256sum | cut -c1-12).img
}

# lab_image_kernel ROOT KVER: an image's own kernel, booted in place (ROOT/boot/vmlinuz-KVER,
# ROOT/lib/modules/KVER: the guest's root is ROOT, so its modules are where modprobe looks).
# The initramfs and the KVM probe are cached per image root and kernel.
lab_image_kernel() {
  custom=1 root=$1 kver=$2
  kdir=$cache/image-kernel-$(echo "$root" | sha256sum | cut -c1-12)-$kver
  moddir=$root/lib/modules/$kver
  initrd=$kdir/initrd-$(cat "$vm/initramfs-init" "$vm/build-initramfs.sh" | sha256sum | cut -c1-12).img
}

# Cleanup on any exit: every QEMU (through its timeout wrapper), readers, control dirs
# (their console log first copied to where lab_control said), half-made cache entries.
lab_pids=() lab_runs=() locked=''
# shellcheck disable=SC2317  # called by the trap
lab_cleanup() {
  set +e # a failing kill here must not replace the exit status
  local p r dest
  for p in "${lab_pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  # shellcheck disable=SC2046
  kill $(jobs -p) 2>/dev/null
  for r in "${lab_runs[@]}"; do
    # The console log is written in the run dir and moved at the end (same-fs rename),
    # so concurrent runs sharing <out> do not write into one file.
    dest=$(cat "$r/console.dest" 2>/dev/null)
    [ ! -f "$r/console.log" ] || [ -z "$dest" ] || { cp "$r/console.log" "$dest.$$" && mv -f "$dest.$$" "$dest"; }
    rm -rf "$r"
  done
  # Half-made cache entries, only while we hold the lock: they may be another run's.
  [ -z "$locked" ] || rm -rf "$kdir"/*.tmp "$kdir"/*.tmp.*
  return 0
}
trap lab_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

siw_present() {
  find "$moddir" -name 'siw.ko*' 2>/dev/null | grep -q . ||
    grep -qs '/siw\.ko' "$moddir/modules.builtin"
}

# qemu_args ACCEL: what every boot shares.
qemu_args() {
  local a=(qemu-system-x86_64 -nodefaults -no-user-config -display none -no-reboot -nic none
    -kernel "$root/boot/vmlinuz-$kver" -initrd "$initrd")
  # shellcheck disable=SC2054  # the comma belongs to the -accel value
  if [ "$1" = kvm ]; then a+=(-accel kvm -cpu host); else a+=(-accel tcg,thread=multi -cpu max); fi
  printf '%s\n' "${a[@]}"
}

# lab_prepare: the cache entry of the kernel lab_kernel chose (fetched or taken, siw.ko
# built, depmod, initramfs), under a lock so a concurrent run waits instead of racing;
# then the accelerator (sets accel).
lab_prepare() {
  local probe res said a
  mkdir -p "$kdir" || die "cannot create $kdir (set RDMACHECK_CACHE)"
  exec 9>"$cache/.lock"
  flock -n 9 || { log "waiting for the cache lock $cache/.lock"; flock 9; }
  locked=1
  if [ ! -d "$root" ] && [ -n "$custom" ]; then
    log "taking kernel $kver from $custom_image and $custom_modules"
    "$vm/custom-kernel.sh" "$custom_image" "$custom_modules" "$root" ||
      die "cannot use that kernel"
  elif [ ! -d "$root" ]; then
    log "fetching kernel $kver"
    "$vm/fetch-kernel.sh" "$kver" "$root" || die "fetching kernel $kver failed"
  fi
  if ! siw_present; then
    need make make
    need gcc gcc
    log "building siw.ko (kernel $kver has no CONFIG_RDMA_SIW)"
    "$vm/build-siw.sh" "$root" "$kver" "$kdir/siw.ko.tmp" || die "building siw.ko failed"
    mkdir -p "$moddir/updates"
    mv "$kdir/siw.ko.tmp" "$moddir/updates/siw.ko"
    rm -f "$root/.depmod-done"
  fi
  if [ ! -f "$root/.depmod-done" ]; then
    depmod -b "$root" "$kver" || die "depmod failed"
    touch "$root/.depmod-done"
  fi
  if [ ! -f "$initrd" ]; then
    log "building initramfs"
    rm -f "$kdir"/initrd-*.img
    "$vm/build-initramfs.sh" "$root" "$kver" "$initrd" || die "building the initramfs failed"
  fi
  # KVM: /dev/kvm may exist and still fail to run a guest (emulation failure, QEMU hangs).
  # Use it only when a short boot probe reaches the initramfs; cached per host kernel.
  probe=$kdir/accel-$(uname -r)
  if [ -z "${RDMACHECK_LAB_ACCEL:-}" ] && [ ! -f "$probe" ]; then
    res=tcg
    if [ -w /dev/kvm ]; then
      log "probing KVM (once; result in $probe)"
      mapfile -t a < <(qemu_args kvm)
      # The whole output, not a pipe into grep -q: an early grep exit would fail the pipe.
      said=$(timeout -k 2 10 "${a[@]}" -m 256 -serial stdio \
        -append "console=ttyS0 rdmacheck_probe=1" </dev/null 2>/dev/null || true)
      [[ $said != *rdmacheck-probe-ok* ]] || res=kvm
    fi
    echo "$res" >"$probe"
  fi
  [ -n "${RDMACHECK_LAB_ACCEL:-}" ] || accel=$(cat "$probe")
  exec 9>&-
  locked=''
}

# lab_control OUT CWD CONSOLE PREFIX SETUP -- COMMAND...: a control dir for one boot
# (in $run; not called in a subshell, which would own the readers): guest-init.sh, its settings (env) and the serial FIFOs, with readers that
# pass the command's stdout/stderr through (each line prefixed with PREFIX, if any) and
# keep the console in CONSOLE. SETUP "softrdma" makes guest-init bring up rxe0 and siw0
# on dummy netdevs before COMMAND; "none" leaves the devices to COMMAND.
lab_control() {
  local o=$1 cwd=$2 console=$3 prefix=$4 setup=$5 r v jobenv=()
  shift 6
  r=$(mktemp -d "${TMPDIR:-/tmp}/rdmacheck-lab.XXXXXX")
  lab_runs+=("$r")
  mkdir "$r/ctl"
  echo "$console" >"$r/console.dest"
  cp "$vm/guest-init.sh" "$r/ctl/"
  for v in ${!RDMACHECK_@}; do jobenv+=("$v=${!v}"); done
  jobenv+=(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
    USER=root LOGNAME=root LANG=C.UTF-8 RDMACHECK_LAB=1 "RDMACHECK_OUT=$o" "OUT=$o")
  {
    printf 'REPO=%q\nOUT=%q\nCWD=%q\nMODDIR=%q\nSETUP=%q\n' "$lab_repo" "$o" "$cwd" "${moddir#"${lab_hostroot%/}"}" "$setup"
    [ "$lab_hostroot" = / ] || echo REPO_SHARE=1
    printf 'JOBENV=('; printf '%q ' "${jobenv[@]}"; echo ')'
    printf 'ARGV=('; printf '%q ' "$@"; echo ')'
  } >"$r/ctl/env"
  # Serial ports: ttyS0 the console (to the log; its non-kernel lines to stderr),
  # ttyS1/ttyS2 the command's stdout/stderr.
  mkfifo "$r/con" "$r/out" "$r/err"
  # No prefix: "cat" keeps the bytes as they are.
  local pass=(cat)
  [ -z "$prefix" ] || pass=(sed -u "s|^|$prefix|")
  (sed -u "s/\r$//" <"$r/con" | tee "$r/console.log" | grep --line-buffered -v -E '^\[ *[0-9]+\.[0-9]+\]|^$' |
    "${pass[@]}" >&2) &
  echo $! >"$r/readers"
  "${pass[@]}" <"$r/out" &
  echo $! >>"$r/readers"
  "${pass[@]}" <"$r/err" >&2 &
  echo $! >>"$r/readers"
  run=$r
}

# lab_qemu RUN OUT SMP [EXTRA...]: the QEMU command line of one boot (one word per line).
lab_qemu() {
  local r=$1 o=$2 smp=$3 p a
  shift 3
  share() { echo "local,path=${1//,/,,},mount_tag=$2,security_model=none${3:-}"; }
  mapfile -t a < <(qemu_args "$accel")
  # no_timer_check: under emulation the kernel's IO-APIC timer check can fail by timing
  # alone (6.12 panics with "IO-APIC + timer doesn't work"); the timer itself works.
  # tsc=reliable: under load the clocksource watchdog can declare the emulated TSC unstable;
  # switching sched_clock then patches kernel text while the other vCPU runs it, which TCG
  # does not survive (6.12: "Oops: int3" in sched_clock_cpu from __sched_clock_work, a panic).
  a+=(-smp "$smp" -m "$mem" -append "console=ttyS0 panic=-1 no_timer_check tsc=reliable${RDMACHECK_LAB_CMDLINE:+ $RDMACHECK_LAB_CMDLINE}"
    -virtfs "$(share "$lab_hostroot" hostroot ,readonly=on,multidevs=remap)"
    -virtfs "$(share "$o" out)" -virtfs "$(share "$r/ctl" ctl)")
  [ "$lab_hostroot" = / ] || a+=(-virtfs "$(share "$lab_repo" repo ,readonly=on,multidevs=remap)")
  for p in con out err; do a+=(-chardev "file,id=$p,path=$r/$p" -serial "chardev:$p"); done
  printf '%s\n' "${a[@]}" "$@"
}

# lab_boot_watch RUN PID: bounds a boot. A watcher in the background kills PID (QEMU's
# timeout wrapper) when the guest has not started its command (guest-init.sh's
# "lab: running:" console line) within $boot_limit s, and leaves RUN/boot-stuck holding the
# console's last line; lab_outcome then reports a lab failure, never a device's.
lab_boot_watch() {
  local r=$1 pid=$2
  (
    for ((t = 0; t < boot_limit; t++)); do
      grep -qs '^lab: running: ' "$r/console.log" && exit 0
      kill -0 "$pid" 2>/dev/null || exit 0
      sleep 1
    done
    { grep -v '^ *$' "$r/console.log" 2>/dev/null || true; } | tail -n 1 >"$r/boot-stuck"
    kill "$pid" 2>/dev/null
  ) &
}

# lab_boot_stuck RUN: whether lab_boot_watch stopped that boot.
lab_boot_stuck() { [ -f "$1/boot-stuck" ]; }

# lab_wait_readers RUN: its readers end when QEMU closes the FIFOs; bounded, in case it
# never opened them.
lab_wait_readers() {
  local p left
  for _ in $(seq 50); do
    left=''
    while read -r p; do kill -0 "$p" 2>/dev/null && left=1; done <"$1/readers"
    [ -z "$left" ] && break
    sleep 0.1
  done
}

# panic_report RUN OUT CONSOLE: <OUT>/lab-panic.txt. A test was running when its start is
# the last line of the newest events file of its shard (<logs>/<suite>[.<shard>].<child>.events;
# runner/events.h; the share is written through, so the file is there after the crash).
# Runs in parallel (run-devices.sh: one per device; run --jobs: shards) each name theirs.
panic_report() {
  local r=$1 o=$2 console=$3 f last shard running=() seen=' '
  while read -r _ f; do
    shard=${f%.*.events}
    [[ $seen == *" $shard "* ]] && continue  # only the newest child of each shard
    seen+="$shard "
    last=$(tail -n 1 "$f")
    case $last in
      *'"event":"start"'*)
        running+=("$(sed -n 's/.*"name":"\([^"]*\)".*/\1/p' <<<"$last") (suite $(basename "$f" | cut -d. -f1); events file $f)") ;;
    esac
  done < <(find "$o" -name '*.events' -newer "$r/ctl/env" -printf '%T@ %p\n' 2>/dev/null | sort -rn)
  {
    echo "lab: the guest kernel panicked (kernel $kver); results written before it are kept"
    if [ ${#running[@]} -eq 0 ]; then
      echo "running test: none known (no rdmacheck events file under $o ends in a started test)"
    fi
    for f in "${running[@]}"; do echo "running test: $f"; done
    echo "console ($console), last 40 lines:"
    tail -n 40 "$r/console.log"
  } >"$o/lab-panic.txt"
}

# lab_outcome RUN OUT CONSOLE SECONDS QEMU_RC: what a finished boot left, as lab.sh's exit
# status (the command's, 123 panic, 124 timeout, 125 the lab failed), with the messages.
lab_outcome() {
  local r=$1 o=$2 console=$3 took=$4 rc=$5 status
  status=$(cat "$r/ctl/status" 2>/dev/null || true)
  if lab_boot_stuck "$r"; then
    tail -n 15 "$r/console.log" | sed "s/^/$LAB_TAG: console: /" >&2
    log "error: the guest did not start its command within $boot_limit s (RDMACHECK_LAB_BOOT_TIMEOUT) and was stopped: the boot stuck (the lab failed, not the device); console's last line: '$(cat "$r/boot-stuck")'; console: $console"
    return 125
  fi
  if [ -z "$status" ] && grep -qs 'Kernel panic - not syncing' "$r/console.log"; then
    panic_report "$r" "$o" "$console"
    sed -n "s/^/$LAB_TAG: /;2p" "$o/lab-panic.txt" >&2
    tail -n 15 "$r/console.log" | sed "s/^/$LAB_TAG: console: /" >&2
    log "error: the guest kernel panicked; details in $o/lab-panic.txt"
    return 123
  fi
  if [ -z "$status" ] && [ "$took" -ge "$limit" ]; then
    log "error: VM timed out after $limit s (RDMACHECK_LAB_TIMEOUT) and was killed; console: $console"
    return 124
  fi
  case $status in
    [0-9]*) return "$status" ;;
    '') status="the VM stopped (QEMU exit status $rc) without running the command" ;;
  esac
  tail -n 15 "$r/console.log" | sed "s/^/$LAB_TAG: console: /" >&2
  log "error: $status; console: $console"
  return 125
}
