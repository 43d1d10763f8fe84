#!/bin/bash
# CTest ci.kubernetes-schema: the manifests in ci/kubernetes/ are valid against the
# Kubernetes API schema (validate.mjs), and the validation can fail: copies broken on
# purpose — a wrong type, a missing required field, a value outside an enum, an unknown
# kind — must each be refused with the field named.
#   validate_test.sh NODE_MODULES WORK_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
modules=$1 work=$2
rm -rf "$work" && mkdir -p "$work"

node "$here/validate.mjs" "$modules" "$here"/*.yaml

expect_invalid() {  # NAME SED_SCRIPT FILE MESSAGE
  sed "$2" "$here/$3" > "$work/$1.yaml"
  cmp -s "$here/$3" "$work/$1.yaml" && { echo "FAIL $1: the edit changed nothing"; exit 1; }
  if out=$(node "$here/validate.mjs" "$modules" "$work/$1.yaml"); then
    echo "FAIL $1: accepted"; echo "$out"; exit 1
  fi
  grep -q -- "$4" <<<"$out" || { echo "FAIL $1: refused, but not for '$4':"; echo "$out"; exit 1; }
  echo "ok $1: refused: $(grep INVALID <<<"$out" | head -1)"
}
expect_invalid host-network-string 's/hostNetwork: true/hostNetwork: "yes"/' health-daemonset.yaml 'hostNetwork must be boolean'
expect_invalid no-selector '/^  selector:/,/^    matchLabels/d' health-daemonset.yaml 'spec must have required property selector'
expect_invalid completion-mode 's/completionMode: Indexed/completionMode: Sometimes/' pairs-job.yaml 'completionMode must be equal to one of the allowed values'
expect_invalid unknown-kind 's/^kind: DaemonSet/kind: DaemonSets/' health-daemonset.yaml 'no such kind'
echo "ci.kubernetes-schema: all manifests valid, 4 broken copies refused"
