#!/usr/bin/env bash
# Impairs a lab node's netdev with one of impair/profiles (netem on its egress), and reads
# back what netem did. Run inside a lab guest (scripts/wire-node.sh), as root.
#
#   impair.sh list                      the profiles: name, netem arguments, purpose
#   impair.sh netem PROFILE             the netem arguments of PROFILE (exit 2: unknown)
#   impair.sh apply PROFILE NETDEV...   netem on each NETDEV's egress (replaces its root qdisc)
#   impair.sh stats NETDEV...           what netem did, as JSON: {"eth1": {"sent": N, "dropped": N,
#                                       "bytes": N, "qdisc": "netem ..."}}
#   impair.sh clear NETDEV...           back to the default qdisc
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
profiles=$here/profiles
die() { echo "impair: $*" >&2; exit 2; }

netem_args() {
  local line
  line=$(awk -F'|' -v name="$1" '$0 !~ /^#/ { n = $1; gsub(/ /, "", n); if (n == name) { a = $2; gsub(/^ +| +$/, "", a); print a } }' "$profiles")
  [ -n "$line" ] || die "unknown profile '$1' (impair.sh list)"
  echo "$line"
}

case ${1:-} in
  list) grep -v '^#' "$profiles" ;;
  netem) netem_args "${2:?usage: impair.sh netem PROFILE}" ;;
  apply)
    args=$(netem_args "${2:?usage: impair.sh apply PROFILE NETDEV...}")
    shift 2
    modprobe sch_netem 2>/dev/null || true
    # A seed where tc and the kernel know one (6.7+); Debian's 6.1 does not: see profiles.
    seed=()
    tc qdisc add dev lo root netem seed 1 2>/dev/null && { tc qdisc del dev lo root; seed=(seed "${RDMACHECK_IMPAIR_SEED:-4791}"); }
    for dev in "$@"; do
      if [[ $args == acks:* || $args == naks:* ]]; then
        # RoCE RC ACKs only: band 4 of a prio qdisc (the default priomap uses bands 1-3)
        # holds netem; a u32 filter sends it UDP to 4791 whose BTH opcode (the first byte
        # after a 20-byte IPv4 and an 8-byte UDP header) is 0x11, Acknowledge (IBTA Vol 1 9.2.1).
        # "naks:" only those whose AETH syndrome (the byte after the 12-byte BTH) is a NAK,
        # 011xxxxx: sequence error, invalid request, remote access, remote operational error
        # (IBTA Vol 1 9.3.5, table 43); ACKs (000xxxxx) and RNR NAKs (001xxxxx) pass.
        match=(match u8 0x11 0xff at 28)
        [[ $args == acks:* ]] || match+=(match u8 0x60 0xe0 at 40)
        tc qdisc replace dev "$dev" root handle 1: prio bands 4 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1 &&
          # shellcheck disable=SC2086  # the profile's words are netem's arguments
          tc qdisc add dev "$dev" parent 1:4 handle 40: netem ${args#*:} "${seed[@]}" &&
          tc filter add dev "$dev" parent 1: protocol ip prio 1 u32 match ip protocol 17 0xff \
            match ip dport 4791 0xffff "${match[@]}" flowid 1:4 ||
          die "tc on $dev refused: $args"
      else
        # shellcheck disable=SC2086  # the profile's words are netem's arguments
        tc qdisc replace dev "$dev" root netem $args "${seed[@]}" || die "tc netem on $dev refused: $args"
      fi
    done
    ;;
  stats)
    shift
    sep=''
    printf '{'
    for dev in "$@"; do
      # netem's own counters: the root qdisc, or the band an "acks:" profile steers to it.
      out=$(tc -s qdisc show dev "$dev" | awk '/^qdisc/ { keep = /^qdisc netem/ } keep') || die "no qdisc on $dev"
      [ -n "$out" ] || die "no netem qdisc on $dev"
      # (no process substitution: the lab's guests have no /dev/fd)
      read -r bytes pkts dropped <<<"$(sed -n 's/.*Sent \([0-9]*\) bytes \([0-9]*\) pkt (dropped \([0-9]*\).*/\1 \2 \3/p' <<<"$out")"
      qdisc=$(head -n1 <<<"$out" | sed 's/"/\\"/g')
      printf '%s"%s": {"sent": %s, "dropped": %s, "bytes": %s, "qdisc": "%s"}' "$sep" "$dev" "${pkts:-0}" "${dropped:-0}" "${bytes:-0}" "$qdisc"
      sep=', '
    done
    printf '}\n'
    ;;
  clear)
    shift
    for dev in "$@"; do tc qdisc del dev "$dev" root 2>/dev/null || true; done
    ;;
  *) die "usage: impair.sh list | netem PROFILE | apply PROFILE NETDEV... | stats NETDEV... | clear NETDEV..." ;;
esac
