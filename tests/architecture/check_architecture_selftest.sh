#!/usr/bin/env bash
# The architecture check must catch what it is there to catch: on a copy of the sources, each
# violation below, made one at a time, must fail it, and the untouched copy must pass.
#   check_architecture_selftest.sh REPO_ROOT
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 REPO_ROOT" >&2; exit 2; }
root=$1
check=$(dirname "$0")/check_architecture.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fresh() {
  rm -rf "$work/copy"
  mkdir -p "$work/copy"
  cp -r "$root/proto" "$root/shared" "$root/client" "$root/replay" "$root/server" "$root/bots" "$root/follow" "$root/nav" "$root/ARCHITECTURE.md" "$work/copy/"
}
fresh
"$check" "$work/copy" >/dev/null || { echo "selftest: the untouched copy fails the check" >&2; exit 1; }
violations=(
  'shared/step.cpp|#include "server/server_core.h"|the simulation including the server'
  'proto/codec.cpp|#include "replay/recording.h"|proto including replay'
  'proto/codec.cpp|#include "client/session.h"|proto including the client above it'
  'shared/tick.cpp|#include "shared/workers/worker_pool.h"|the simulation including the thread pool'
  'client/session.cpp|#include "shared/workers/worker_pool.h"|the client library including the thread pool'
  'server/token_main.cpp|#include "server/server_core.h"|foothold-token including the server library'
  'client/session.cpp|#include "server/server_core.h"|the client including the server'
  'bots/bot_fleet.cpp|#include "server/udp_server.h"|the bots including the server'
  'shared/world.cpp|#include "nav/navmesh.h"|the simulation including the navigation mesh'
  'nav/navmesh.cpp|#include "server/game.h"|the navigation mesh including the server'
  'shared/predictor.cpp|#include "shared/formats/obj_loader.h"|the simulation including the file formats'
  'shared/formats/trace.cpp|#include "client/session.h"|the formats including the client'
  'shared/world.cpp|#include <chrono>|the simulation reading a clock'
  'shared/ground.cpp|static double f(double x) { return std::pow(x, 2.0); }|the simulation calling libm'
  'shared/step.cpp|static double g(double x) { return std::floor(x); }|the simulation calling libm floor'
  'shared/geometry.cpp|static double h(double x) { return fmin(x, 1.0); }|the simulation calling libm fmin'
  'follow/path.cpp|static double k(double x) { return std::floor(x); }|the path follower calling libm floor'
)
for v in "${violations[@]}"; do
  IFS='|' read -r file line what <<<"$v"
  fresh
  printf '%s\n' "$line" >>"$work/copy/$file"
  if "$check" "$work/copy" >/dev/null 2>&1; then
    echo "selftest: the check missed $what ($file: $line)" >&2
    exit 1
  fi
  echo "caught: $what"
done
