#!/usr/bin/env bash
# Installs the Debian bookworm packages xpuperf needs to build and test. Idempotent and quiet: does
# nothing when everything is present; otherwise runs apt-get (as root, or through sudo).
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config
  libcli11-dev libfmt-dev nlohmann-json3-dev libhwloc-dev hwloc libncurses-dev
  libopenblas-dev libyaml-cpp-dev libgomp1 libsimdjson-dev zlib1g-dev time
  libgtest-dev libgmock-dev libbenchmark-dev
  libopenmpi-dev openmpi-bin
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  clang-format clang-tidy tmux ccache libxml2-utils
  python3-venv python3-pip python3-dev
  libre2-dev libcpp-httplib-dev libssl-dev libcrypt-dev prometheus-cpp-dev libdeflate-dev libisal-dev libdnnl-dev
  prometheus prometheus-alertmanager prometheus-node-exporter wrk likwid chromium
  dpkg-dev file stress-ng slurmctld slurmd slurm-client munge
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo_cmd=(sudo)
fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# A fresh machine has empty package lists; refresh them when they are missing or stale (1 day).
if [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -mmin -1440 2>/dev/null | head -1)" ]; then
  "${sudo_cmd[@]}" apt-get update -qq
fi
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
