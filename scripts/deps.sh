#!/usr/bin/env bash
# Install the Debian packages symshape needs, only those that are missing.
# Usage: scripts/deps.sh [--test] [--bench]
#   (none)   what building the library and the CLI needs (scripts/demo.sh)
#   --test   also what the whole test suite needs (scripts/test.sh): PyTorch, torchvision,
#            ONNX, protobuf-c, Z3, clang (libFuzzer), Python tooling
#   --bench  also python3-sympy, PyTorch, ONNX and GNU time for the peer comparisons in bench/
set -euo pipefail
pkgs=(cmake make gcc pkg-config libflint-dev libgmp-dev libcriterion-dev libjansson-dev zlib1g-dev help2man
      libcmark-gfm-dev libcmark-gfm-extensions-dev graphviz)
test_pkgs=(python3 python3-torch python3-torchvision python3-sympy python3-pytest python3-venv python3-wheel
           python3-setuptools python3-pip python3-onnx libonnx-dev libprotobuf-c-dev protobuf-c-compiler
           z3 libz3-dev clang libclang-rt-14-dev graphviz man-db bsdutils chromium)
for a in "$@"; do
  case "$a" in
    --test) pkgs+=("${test_pkgs[@]}") ;;
    --bench) pkgs+=(python3 python3-sympy python3-torch python3-torchvision python3-onnx time) ;;
    *) echo "usage: scripts/deps.sh [--test] [--bench]" >&2; exit 2 ;;
  esac
done
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
