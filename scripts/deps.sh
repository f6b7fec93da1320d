#!/usr/bin/env bash
# Install the Debian packages symshape needs, only those that are missing.
# Usage: scripts/deps.sh [--bench]   (--bench adds python3-sympy for the comparison)
set -euo pipefail
pkgs=(cmake make gcc pkg-config libflint-dev libgmp-dev libcriterion-dev libjansson-dev zlib1g-dev)
if [ "${1:-}" = "--bench" ]; then pkgs+=(python3 python3-sympy); fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "symshape: installing ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
