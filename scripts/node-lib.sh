# Sourced by the lab nodes' scripts (wire-node.sh, slurm-node.sh), inside the guest.

# node_nic MAC: the interface with that MAC address, waiting up to 5 s for its driver to
# bring it up; non-zero when none appears.
node_nic() {
  local f a
  for _ in $(seq 50); do
    for f in /sys/class/net/*/address; do
      read -r a <"$f" && [ "$a" = "$1" ] && { basename "${f%/address}"; return 0; }
    done
    sleep 0.1
  done
  return 1
}
