#!/usr/bin/env bash
# The Agones manifests' check must fail, naming the problem, on broken copies of the manifests, and
# pass on an untouched copy (quick suite):
#   1. a wrong type in the GameServer spec (portPolicy: 7), which the CRD's schema refuses;
#   2. a field the GameServer spec's schema does not have (kubectl's strict validation refuses it);
#   3. the game port's protocol changed to TCP, in the GameServer and in the Fleet's template;
#   4. the key's mount at /run/secrets removed;
#   5. a kind with no CRD in install.yaml that is not a core kind;
#   6. the NetworkPolicy admitting the metrics port from anywhere, or from every namespace;
# and it must skip (77) when install.yaml is absent.
#   agones_manifests_selftest.sh INSTALL_YAML MANIFEST_DIR
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 INSTALL_YAML MANIFEST_DIR" >&2; exit 2; }
install=$1
manifests=$2
here=$(cd "$(dirname "$0")" && pwd)
check=$here/agones_manifests.py
if [ ! -e "$install" ]; then
  echo "SKIP: $install is absent (the Agones release's install.yaml, in ../shared/agones/)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0

copy() {  # a fresh copy of the manifests in $work/$1
  rm -rf "${work:?}/$1"
  mkdir -p "$work/$1"
  cp "$manifests"/*.yaml "$work/$1/"
  echo "$work/$1"
}

edit() {  # edit FILE SED_SCRIPT: applies it and insists that it changed the file
  cp "$1" "$1.orig"
  sed -i -e "$2" "$1"
  if cmp -s "$1" "$1.orig"; then
    echo "selftest: the edit '$2' changed nothing in $(basename "$1"): the manifests' layout has changed" >&2
    exit 1
  fi
  rm -f "$1.orig"
}

expect_failure() {  # expect_failure NAME DIR TEXT...: the check fails and its output has every TEXT
  local name=$1 dir=$2 status=0
  shift 2
  "$check" "$install" "$dir" >"$work/$name.out" 2>&1 || status=$?
  if [ "$status" -ne 1 ]; then
    echo "selftest: $name: the check exited $status, not 1:" >&2
    cat "$work/$name.out" >&2
    failed=1
    return
  fi
  for text in "$@"; do
    if ! grep -qF -- "$text" "$work/$name.out"; then
      echo "selftest: $name: the check failed without saying '$text':" >&2
      cat "$work/$name.out" >&2
      failed=1
      return
    fi
  done
  echo "selftest: $name: caught: $(grep -m1 '^FAIL' "$work/$name.out")"
}

# The untouched copy passes.
dir=$(copy untouched)
if ! "$check" "$install" "$dir" >"$work/untouched.out" 2>&1; then
  echo "selftest: the untouched manifests fail the check:" >&2
  cat "$work/untouched.out" >&2
  exit 1
fi
grep -q 'gameserver.yaml: GameServer foothold: valid against agones.dev/v1 GameServer' "$work/untouched.out" || {
  echo "selftest: the check passed without validating gameserver.yaml's GameServer:" >&2
  cat "$work/untouched.out" >&2
  exit 1
}

dir=$(copy wrong-type)
edit "$dir/gameserver.yaml" 's/portPolicy: Dynamic/portPolicy: 7/'
expect_failure wrong-type "$dir" "gameserver.yaml: document 1 (GameServer foothold)" \
  '$.spec.ports[0].portPolicy: 7 is not of type '"'string'"

dir=$(copy unknown-field)
edit "$dir/gameserver.yaml" 's/^  container: foothold$/  container: foothold\n  portz: []/'
expect_failure unknown-field "$dir" "gameserver.yaml: document 1 (GameServer foothold)" \
  "\$.spec.portz: unknown field" "did you mean 'ports'?"

dir=$(copy tcp)
edit "$dir/gameserver.yaml" 's/protocol: UDP/protocol: TCP/'
expect_failure tcp "$dir" "gameserver.yaml: document 1 (GameServer foothold)" \
  '$.spec.ports[0].protocol: is TCP: Foothold speaks UDP only'

dir=$(copy tcp-in-fleet)
edit "$dir/fleet.yaml" 's/protocol: UDP/protocol: TCP/'
expect_failure tcp-in-fleet "$dir" "fleet.yaml: document 1 (Fleet foothold)" \
  '$.spec.template.spec.ports[0].protocol: is TCP: Foothold speaks UDP only'

dir=$(copy no-key-mount)
edit "$dir/gameserver.yaml" '/- mountPath: \/run\/secrets$/,/readOnly: true$/d'
expect_failure no-key-mount "$dir" "gameserver.yaml: document 1 (GameServer foothold)" \
  '$.spec.template.spec.containers[0].volumeMounts: no volume mounted at /run/secrets'

dir=$(copy unknown-kind)
printf 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: extra\n' >"$dir/extra.yaml"
expect_failure unknown-kind "$dir" "extra.yaml: document 1 (Deployment extra)" \
  "apps/v1 Deployment has no CRD in $install"

dir=$(copy metrics-open)
edit "$dir/networkpolicy.yaml" '/^    - from:$/,/^            cidr: /d; s/^      ports:$/    - ports:/'
expect_failure metrics-open "$dir" "networkpolicy.yaml: document 1 (NetworkPolicy foothold)" \
  "admits TCP 9100 (metrics and probes) from anywhere"

dir=$(copy metrics-every-namespace)
edit "$dir/networkpolicy.yaml" '/^            matchLabels:$/d; /kubernetes.io\/metadata.name: monitoring/d; s/^        - namespaceSelector:$/        - namespaceSelector: {}/'
expect_failure metrics-every-namespace "$dir" "networkpolicy.yaml: document 1 (NetworkPolicy foothold)" \
  "namespaceSelector {} selects every namespace"

# Without install.yaml: a skip, saying why.
status=0
"$check" "$work/absent/install.yaml" "$manifests" >"$work/skip.out" 2>&1 || status=$?
if [ "$status" -ne 77 ] || ! grep -q "^SKIP: $work/absent/install.yaml is absent" "$work/skip.out"; then
  echo "selftest: without install.yaml the check exited $status, not 77 with a SKIP line:" >&2
  cat "$work/skip.out" >&2
  failed=1
fi

[ "$failed" -eq 0 ] || exit 1
echo "selftest: the check passes the manifests and catches a wrong type, an unknown field, TCP (GameServer and" \
     "Fleet), a missing key mount, a kind without a CRD and a NetworkPolicy open to all; it skips without install.yaml"
