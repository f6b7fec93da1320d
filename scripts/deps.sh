#!/usr/bin/env bash
# Install the Debian packages symshape needs, only those that are missing.
# Usage: scripts/deps.sh [--test] [--bench]
#   (none)   what building the library and the CLI needs (scripts/demo.sh), the ONNX frontend included
#   --test   also what the whole test suite needs (scripts/test.sh): Z3, clang (libFuzzer),
#            Python tooling, Chromium; on Debian 12 also PyTorch 1.13, torchvision and onnx
#            (python3-torch: the suite's second torch; PyTorch 2.x comes from PyPI, scripts/venv.sh)
#   --bench  also python3-sympy, PyTorch, ONNX and GNU time for the peer comparisons in bench/
# A name "a|b" takes the first of a, b that this Debian has (Debian 12: libclang-rt-14-dev,
# Debian 13: libclang-rt-19-dev).
set -euo pipefail
debian="$(cut -d. -f1 /etc/debian_version 2>/dev/null || echo unknown)"
pkgs=(cmake make gcc pkg-config libflint-dev libgmp-dev libcriterion-dev libjansson-dev zlib1g-dev help2man
      libcmark-gfm-dev libcmark-gfm-extensions-dev graphviz libprotobuf-c-dev protobuf-c-compiler libonnx-dev)
test_pkgs=(python3 python3-sympy python3-pytest python3-venv python3-wheel python3-setuptools python3-pip
           z3 libz3-dev clang "libclang-rt-dev|libclang-rt-19-dev|libclang-rt-14-dev" graphviz man-db bsdutils chromium)
torch113=(python3-torch python3-torchvision python3-onnx)
for a in "$@"; do
  case "$a" in
    --test) pkgs+=("${test_pkgs[@]}"); [ "$debian" = 12 ] && pkgs+=("${torch113[@]}") ;;
    --bench) pkgs+=(python3 python3-sympy python3-torch python3-torchvision python3-onnx time) ;;
    *) echo "usage: scripts/deps.sh [--test] [--bench]" >&2; exit 2 ;;
  esac
done
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
missing=()
for p in "${pkgs[@]}"; do
  IFS='|' read -r -a alts <<<"$p"
  have=0
  for a in "${alts[@]}"; do installed "$a" && { have=1; break; }; done
  [ "$have" = 1 ] || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  names=()
  for p in "${missing[@]}"; do
    IFS='|' read -r -a alts <<<"$p"
    pick=""
    for a in "${alts[@]}"; do
      if [ ${#alts[@]} -eq 1 ] || apt-cache show "$a" >/dev/null 2>&1; then pick="$a"; break; fi
    done
    [ -n "$pick" ] || { echo "symshape: none of ${alts[*]} is in this Debian's archive" >&2; exit 1; }
    names+=("$pick")
  done
  echo "symshape: installing ${names[*]}" >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${names[@]}" >/dev/null
fi
