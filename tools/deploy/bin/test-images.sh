#!/usr/bin/env bash
# npm run test:images: builds every image of docker/Dockerfile with podman (chroot
# isolation, no Docker engine needed) on a local Node 24 base made from Debian packages, then
# starts each image's entry point from its own filesystem (podman image mount + chroot, as
# uid 10001, read-only root, Node as PID 1) against a private nats-server and the local
# PostgreSQL, and proves it serves. Not part of npm test: it takes minutes (README).
#
# Needs: root, podman, debootstrap (installed with apt-get when missing), nats-server, a
# PostgreSQL on 127.0.0.1:5432 (POSTGRES_URL), the npm registry and a Debian mirror.
# --console builds and serves docker/console/Containerfile instead (no NATS or PostgreSQL).
set -euo pipefail
cd "$(dirname "$0")/../../.."
source tools/stack/bin/ensure-deps.sh

missing=()
command -v podman >/dev/null || missing+=(podman)
command -v debootstrap >/dev/null || missing+=(debootstrap)
if ((${#missing[@]} > 0)); then
  if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null; then
    echo "test:images needs: ${missing[*]} (Debian: apt-get install ${missing[*]}), run as root" >&2
    exit 1
  fi
  echo "installing ${missing[*]} with apt-get"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
command -v nats-server >/dev/null || { echo "test:images needs nats-server on PATH (JetStream)" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || { echo "test:images needs root (podman image mount, chroot)" >&2; exit 1; }

# --console: the console's own image (docker/console/Containerfile) instead of the services'.
[[ ${1:-} == --console ]] && exec node tools/deploy/src/images/console-image.ts "${@:2}"
exec node tools/deploy/src/images/test-images.ts "$@"
