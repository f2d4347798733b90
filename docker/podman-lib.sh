# shellcheck shell=bash
# podman-lib.sh: build and run Dockerfiles with Podman on a plain Debian 12 host: no Docker
# daemon, no systemd, cgroup v1 (hybrid), root without CAP_SYS_RESOURCE, no registry.
# Source it, do not execute it:
#
#   set -euo pipefail
#   source docker/podman-lib.sh
#   podman_setup "$workdir"              # config files + env vars; plain `podman` then works
#   step base podman_ensure_base_image   # debian:bookworm, made by debootstrap when absent
#   step build nice -n 10 podman build "${PODMAN_BUILD_FLAGS[@]}" -t foothold-test:x -f Dockerfile .
#   step run podman run -d "${PODMAN_RUN_FLAGS[@]}" --name foothold-x foothold-test:x
#   ...
#   podman_cleanup                       # removes what we made, keeps the base image
#
# All state lives in one dedicated store, FOOTHOLD_PODMAN_ROOT (default
# /var/tmp/foothold-podman), never in the system's /var/lib/containers/storage, so cleanup
# can only touch what Foothold made; on top of that everything we make carries the label
# io.foothold.managed=true. (One exception podman does not let us move: a 128 KB digest
# cache, /var/lib/containers/cache/blob-info-cache-v1.boltdb.)

: "${FOOTHOLD_PODMAN_ROOT:=/var/tmp/foothold-podman}"
FOOTHOLD_PODMAN_LABEL="io.foothold.managed=true"
FOOTHOLD_BASE_IMAGE="docker.io/library/debian:bookworm"

# Flags for `podman build`:
#   --format docker     the default OCI format drops HEALTHCHECK (only a warning, build succeeds)
#   --isolation chroot  RUN steps need no namespaces or cgroups; they share the host network,
#                       so apt-get works in RUN with no --network flag
#   --pull=never        no registry is reachable: never try one, fail at once if base is missing
#   --layers=false      vfs stores every layer and container as a full copy of the file system:
#                       a small two-stage build took 66 s and 2.4 GB with cached layers, 18 s and
#                       130 MB without (and a rebuild from a warm cache still took ~25 s)
# shellcheck disable=SC2034 # used by the scripts that source this file
PODMAN_BUILD_FLAGS=(--format docker --isolation chroot --pull=never --layers=false
  --label "$FOOTHOLD_PODMAN_LABEL")
# Flags for `podman run`:
#   --network host      no CNI bridge, no iptables rules on the host; ports are the host's
# shellcheck disable=SC2034
PODMAN_RUN_FLAGS=(--network host --pull=never --label "$FOOTHOLD_PODMAN_LABEL")

# die MESSAGE...: print "ERROR: MESSAGE" on stderr and return 1.
die() { echo "ERROR: $*" >&2; return 1; }

# step NAME COMMAND [ARGS...]: run COMMAND; print "step NAME: 12.3s" when it succeeds, or
# "FAILED step NAME (exit N after 12.3s): COMMAND ARGS" and return N (both on stderr, so
# `out=$(step ...)` captures only the command's output).
# COMMAND runs in a subshell with `set -e -o pipefail`, so a shell function given to step
# stops at its first failing command -- but only when step is not itself called from `if`,
# `while`, `!`, `||` or `&&`: bash ignores errexit in everything run from there, subshells
# included. So call step plainly in a `set -e` script, and make functions meant for
# `step ... || ...` check each command themselves (as this file's do). Being a subshell,
# COMMAND cannot set the caller's variables: call podman_setup directly, not through step.
step() {
  local name=${1:?step: missing NAME} start rc=0 had_errexit=0 elapsed
  shift
  [ $# -gt 0 ] || { die "step $name: missing command"; return; }
  [[ $- == *e* ]] && had_errexit=1
  start=$EPOCHREALTIME
  set +e
  (set -e -o pipefail; "$@")
  rc=$?
  ((had_errexit)) && set -e
  elapsed=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
  if ((rc == 0)); then
    echo "step $name: ${elapsed}s" >&2
  else
    echo "FAILED step $name (exit $rc after ${elapsed}s): $*" >&2
  fi
  return "$rc"
}

# podman_setup WORKDIR: write WORKDIR/containers.conf and WORKDIR/storage.conf and export
# CONTAINERS_CONF and CONTAINERS_STORAGE_CONF, so that every later `podman` uses:
#   - storage driver vfs, in a store of its own under FOOTHOLD_PODMAN_ROOT (outside WORKDIR
#     and the repo, so the base image -- slow debootstrap -- is kept between runs). Not the
#     default /var/lib/containers/storage: any plain `podman` call creates that one with the
#     overlay driver, and podman refuses to open a store with another driver than the one
#     it was made with ("database configuration mismatch").
#   - runtime runc and cgroup_manager cgroupfs (no systemd here; "cgroups in hybrid mode not
#     supported")
#   - default_ulimits = []: root lacks CAP_SYS_RESOURCE here, and podman's default nofile
#     limit makes runc fail ("error setting rlimit type 7: operation not permitted")
#   - events and container logs in files (no journald), and libpod's tmp_dir (its "alive"
#     file, locks, exit codes) in our root too, not shared with other podman users via
#     /run/libpod.
# /run is not a tmpfs on this machine, so podman cannot notice a reboot by itself (it would
# trust stale container states): when the boot id changed we empty the run-time directories,
# which makes podman refresh its state on its next start.
podman_setup() {
  local workdir=${1:?usage: podman_setup WORKDIR} root=$FOOTHOLD_PODMAN_ROOT boot_id
  command -v podman >/dev/null || { die "podman_setup: podman is not installed (run ./setup.sh --test)"; return; }
  command -v runc >/dev/null || { die "podman_setup: runc is not installed (run ./setup.sh --test)"; return; }
  mkdir -p "$workdir" "$root/storage" "$root/run" "$root/libpod-tmp" ||
    { die "podman_setup: cannot create $workdir or $root"; return; }
  boot_id=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null || echo unknown)
  if [ "$(cat "$root/boot_id" 2>/dev/null)" != "$boot_id" ]; then
    if ! { rm -rf "${root:?}/run" "${root:?}/libpod-tmp" &&
      mkdir -p "$root/run" "$root/libpod-tmp" && echo "$boot_id" >"$root/boot_id"; }; then
      die "podman_setup: cannot reset $root/run and $root/libpod-tmp"
      return
    fi
  fi
  cat >"$workdir/containers.conf" <<EOF || { die "podman_setup: cannot write $workdir/containers.conf"; return; }
# written by docker/podman-lib.sh
[containers]
default_ulimits = []
log_driver = "k8s-file"

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
tmp_dir = "$root/libpod-tmp"
EOF
  cat >"$workdir/storage.conf" <<EOF || { die "podman_setup: cannot write $workdir/storage.conf"; return; }
# written by docker/podman-lib.sh
[storage]
driver = "vfs"
graphroot = "$root/storage"
runroot = "$root/run"
EOF
  export CONTAINERS_CONF="$workdir/containers.conf"
  export CONTAINERS_STORAGE_CONF="$workdir/storage.conf"
  podman info --format '{{.Store.GraphDriverName}}' >/dev/null ||
    { die "podman_setup: podman does not start with $CONTAINERS_CONF and $CONTAINERS_STORAGE_CONF"; return; }
}

# podman_ensure_base_image: make $FOOTHOLD_BASE_IMAGE (debian:bookworm) when it is absent:
# debootstrap --variant=minbase from debootstrap's default mirror, then podman import.
# About 40 s (debootstrap ~30 s, import ~5 s); afterwards it stays in the store.
# Concurrent callers wait for each other (flock), so only one of them runs debootstrap.
podman_ensure_base_image() {
  [ -n "${CONTAINERS_STORAGE_CONF:-}" ] || { die "podman_ensure_base_image: call podman_setup first"; return; }
  local lock_fd rc=0
  exec {lock_fd}>"$FOOTHOLD_PODMAN_ROOT/base-image.lock" ||
    { die "podman_ensure_base_image: cannot open $FOOTHOLD_PODMAN_ROOT/base-image.lock"; return; }
  if flock "$lock_fd"; then
    podman_make_base_image_ || rc=$?
  else
    rc=1
  fi
  exec {lock_fd}>&-
  ((rc == 0)) || { die "podman_ensure_base_image: could not make $FOOTHOLD_BASE_IMAGE"; return; }
}

podman_make_base_image_() {
  local dir rc=0
  if podman image exists "$FOOTHOLD_BASE_IMAGE"; then
    echo "base image $FOOTHOLD_BASE_IMAGE present" >&2
    return 0
  fi
  command -v debootstrap >/dev/null || { die "debootstrap is not installed (run ./setup.sh --test)"; return; }
  dir=$(mktemp -d /var/tmp/foothold-debootstrap.XXXXXX) || { die "mktemp failed"; return; }
  echo "base image $FOOTHOLD_BASE_IMAGE absent: debootstrap minbase bookworm into $dir" >&2
  if ! step debootstrap podman_debootstrap_ "$dir" "$dir.log"; then
    tail -n 20 "$dir.log" >&2
    echo "(full log: $dir.log)" >&2
    rc=1
  else
    rm -f "$dir.log"
    # mktemp made $dir 0700 and tar records it as the image's "/": a non-root USER could
    # then reach no file at all (runc: "stat /usr/local/bin/x: permission denied").
    chmod 0755 "$dir" || rc=1
    # Like the official image: no downloaded .debs and no package lists (50 MB; vfs copies
    # the whole image for every container); Dockerfiles run apt-get update first.
    rm -rf "$dir"/var/cache/apt/archives/*.deb "$dir"/var/lib/apt/lists/*
    ((rc)) || step import podman_import_dir_ "$dir" || rc=1
  fi
  rm -rf --one-file-system "${dir:?}"
  return "$rc"
}

podman_debootstrap_() {
  nice -n 10 debootstrap --variant=minbase bookworm "$1" >"$2" 2>&1
}

podman_import_dir_() {
  tar -C "$1" -c . |
    podman import --quiet --change "LABEL $FOOTHOLD_PODMAN_LABEL" --change 'CMD ["/bin/bash"]' \
      - "$FOOTHOLD_BASE_IMAGE" >/dev/null
}

# podman_cleanup [--all]: remove the containers (with their anonymous volumes) and images
# that carry our label, and dangling build leftovers (in this dedicated store they can only
# be ours); keep the base image unless --all is given. Named volumes are left alone.
podman_cleanup() {
  local out base_id=
  out=$(podman ps -aq --filter "label=$FOOTHOLD_PODMAN_LABEL") || { die "podman_cleanup: podman ps failed"; return; }
  if [ -n "$out" ]; then
    # shellcheck disable=SC2086 # one id per word
    podman rm -f -v -t 5 $out >/dev/null || { die "podman_cleanup: podman rm failed"; return; }
  fi
  if [ "${1:-}" != --all ]; then
    base_id=$(podman image inspect --format '{{.Id}}' "$FOOTHOLD_BASE_IMAGE" 2>/dev/null) || base_id=
  fi
  out=$(podman images -a -q --no-trunc --filter "label=$FOOTHOLD_PODMAN_LABEL") ||
    { die "podman_cleanup: podman images failed"; return; }
  out=$(sort -u <<<"${out//sha256:/}" | grep -v -x -F -e "${base_id:-no-such-id}" -e '' || true)
  if [ -n "$out" ]; then
    # shellcheck disable=SC2086
    podman rmi -f $out >/dev/null || { die "podman_cleanup: podman rmi failed"; return; }
  fi
  podman image prune -f >/dev/null || { die "podman_cleanup: podman image prune failed"; return; }
}

# podman_disk_usage: size on disk of the dedicated store, e.g. "128M".
podman_disk_usage() { du -sh "$FOOTHOLD_PODMAN_ROOT" 2>/dev/null | cut -f1; }
