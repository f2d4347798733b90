#!/usr/bin/env bash
# Builds the Foothold image from a clean tree with Podman and runs it for real:
#   build the image (docker/Dockerfile, exactly what a Docker user builds) -> its OCI labels say the
#   project's version, the commit, the licence and the source -> without a key it
#   refuses to start -> start the server container with its key as a secret and a recordings volume
#   -> wait for its HEALTHCHECK to pass -> 8 bots from the host, minting tokens with the key, for
#   10 s, zero unexplained corrections -> SIGTERM: exit code 0 within 5 s -> the recording on the
#   volume verifies -> the server inside ran as a non-root user.
# Prints the image size and the time of each phase. Removes every container and image it made,
# also on failure, and touches nothing it did not make.
#
#   docker/container_test.sh BUILD_DIR     (BUILD_DIR holds the host's foothold-bot, foothold-token and foothold-replay)
#
# Podman settings that work on a Debian 12 host without a Docker daemon or systemd are in
# podman-lib.sh. A missing base image (no registry is reachable) is made with debootstrap once.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build=${1:?usage: container_test.sh BUILD_DIR}
bot=$build/bots/foothold-bot
token=$build/server/foothold-token
replay=$build/replay/foothold-replay
for b in "$bot" "$token" "$replay"; do
  [ -x "$b" ] || { echo "FAILED step prerequisites: $b is not built (./build.sh release)" >&2; exit 1; }
done
for tool in podman runc git tar; do
  command -v "$tool" >/dev/null || { echo "FAILED step prerequisites: '$tool' is not installed (run ./setup.sh --test)" >&2; exit 1; }
done
# shellcheck source=docker/podman-lib.sh
source "$here/podman-lib.sh"

run_id="$(date +%s)-$$"
image="localhost/foothold-test:$run_id"
container="foothold-test-$run_id"
secret="foothold-test-key-$run_id"
work=$(mktemp -d /var/tmp/foothold-container-test.XXXXXX)
started=$SECONDS
cleanup() {
  local status=$?
  podman rm -f -t 1 "$container" "$container-nokey" >/dev/null 2>&1 || true
  podman secret rm "$secret" >/dev/null 2>&1 || true
  podman rmi -f "$image" >/dev/null 2>&1 || true
  rm -rf "$work"
  if [ "$status" -eq 0 ]; then
    echo "container test passed in $((SECONDS - started)) s"
  else
    echo "container test FAILED (exit $status) after $((SECONDS - started)) s" >&2
  fi
}
trap cleanup EXIT

podman_setup "$work/podman" || { echo "FAILED step podman-setup: podman cannot run here" >&2; exit 1; }
step base-image podman_ensure_base_image

# The build context: the files git tracks (and new ones it does not ignore), nothing built.
mkdir -p "$work/context"
step clean-tree bash -c 'cd "$0" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf - | tar -C "$1" -xf -' \
  "$root" "$work/context"
# Built as a release is (docs/releases.md, "Cutting a release"): the commit and the source named in its labels.
revision=$(git -C "$root" rev-parse HEAD)
source_url="file://$root"
step image-build bash -c 'nice -n 10 podman build "${@:3}" -t "$0" -f "$1/docker/Dockerfile" "$1" >"$2" 2>&1 || { tail -30 "$2"; exit 1; }' \
  "$image" "$work/context" "$work/build.log" "${PODMAN_BUILD_FLAGS[@]}" \
  --build-arg FOOTHOLD_REVISION="$revision" --build-arg FOOTHOLD_SOURCE="$source_url"
size=$(podman image inspect --format '{{.Size}}' "$image")
echo "image size: $((size / 1000000)) MB"
# The OCI labels: the project's version, the commit, the licence, the source.
version=$(sed -n 's/^project(foothold VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
for pair in "version=$version" "revision=$revision" "licenses=MIT" "source=$source_url"; do
  name=${pair%%=*} want=${pair#*=}
  got=$(podman image inspect --format "{{index .Labels \"org.opencontainers.image.$name\"}}" "$image")
  echo "label org.opencontainers.image.$name=$got"
  [ "$got" = "$want" ] || { echo "FAILED step labels: org.opencontainers.image.$name is '$got', not '$want'" >&2; exit 1; }
done
health=$(podman image inspect --format '{{json .HealthCheck}}' "$image")
[ "$health" != "null" ] || { echo "FAILED step image-build: the image has no HEALTHCHECK" >&2; exit 1; }

# A free UDP port on the host (the container shares the host's network).
port=$(( (RANDOM % 20000) + 30000 ))

# Without its key the server must refuse to start, and say why.
refuses_without_key() {
  local code
  code=$(podman run "${PODMAN_RUN_FLAGS[@]}" --name "$container-nokey" -e FOOTHOLD_PORT="$port" \
    -e FOOTHOLD_PUBLIC_ADDRESS="127.0.0.1:$port" "$image" >"$work/nokey.log" 2>&1; echo $?) || true
  echo "exit code $code: $(grep -m1 key_file "$work/nokey.log")"
  [ "$code" = 2 ] && grep -q key_file "$work/nokey.log"
}
step refuses-without-key refuses_without_key

# The key, as a secret (what a Docker user mounts at /run/secrets/foothold_key), readable by the
# image's user only.
"$token" keygen --out "$work/foothold.key" >/dev/null
step key-secret podman secret create "$secret" "$work/foothold.key" >/dev/null
mkdir -p "$work/recordings"
step container-start podman run -d "${PODMAN_RUN_FLAGS[@]}" --name "$container" \
  --secret "$secret,target=foothold_key,uid=10001,gid=10001,mode=0400" \
  -e FOOTHOLD_PORT="$port" -e FOOTHOLD_PUBLIC_ADDRESS="127.0.0.1:$port" -e FOOTHOLD_RECORD=/recordings/server.rec \
  -v "$work/recordings:/recordings:U" "$image" >/dev/null

wait_healthy() {
  for _ in $(seq 60); do
    if podman healthcheck run "$container" >/dev/null 2>&1; then return 0; fi
    [ "$(podman inspect --format '{{.State.Running}}' "$container")" = true ] || { podman logs "$container" | tail -20; return 1; }
    sleep 0.5
  done
  podman logs "$container" | tail -20
  return 1
}
step health-check wait_healthy

# The server's process seen from the host (no user namespace: its uid is the container's).
pid=$(podman inspect --format '{{.State.Pid}}' "$container")
uid=$(awk '/^Uid:/ {print $2}' "/proc/$pid/status")
comm=$(cat "/proc/$pid/comm")
echo "server process inside: '$comm' (host pid $pid) runs as uid $uid"
[ "$comm" = foothold-server ] || { echo "FAILED step non-root: the container's process is '$comm', not foothold-server" >&2; exit 1; }
[ -n "$uid" ] && [ "$uid" != 0 ] || { echo "FAILED step non-root: the server runs as root" >&2; exit 1; }

play() {
  "$bot" --server "127.0.0.1:$port" --key-file "$work/foothold.key" --bots 8 --duration 10 --pattern wander --seed 5 \
    >"$work/bots.log" 2>&1 || { tail -5 "$work/bots.log"; return 1; }
  tail -1 "$work/bots.log"
  grep -q ' connected=8 ' "$work/bots.log" && grep -q ' unexplained=0 ' "$work/bots.log"
}
step bots play

stop_in_time() {
  local t0=$SECONDS code
  podman kill --signal TERM "$container" >/dev/null
  code=$(timeout 10 podman wait "$container")
  echo "exit code $code after $((SECONDS - t0)) s"
  [ "$code" = 0 ] && [ $((SECONDS - t0)) -le 5 ]
}
step sigterm-stop stop_in_time
podman logs "$container" 2>&1 | grep -E 'recording .* closed|stopped at tick' || true

step verify-recording "$replay" verify "$work/recordings/server.rec"
echo "phases above; image $((size / 1000000)) MB"
