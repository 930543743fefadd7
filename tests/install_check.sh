#!/bin/sh
# The installed package, as a user builds against it: install to a fresh
# prefix, then build examples/hello/hello.c
#   1. with find_package(Loom), no MPI_HOME and no MPI on PATH,
#   2. with plain cc and `pkg-config --cflags --libs loom`,
#   3. with the installed loomcc,
# and run each on 2 ranks with no LD_LIBRARY_PATH; then move the prefix
# elsewhere and do 2. and 3. again (the .pc file and loomcc are
# relocatable); then check that find_package names the MPI Loom was built
# with when that MPI cannot be found.
#   install_check.sh BUILD_DIR SOURCE_DIR MPIEXEC [MPIEXEC_FLAGS...]
set -u
build=$1 src=$2 mpiexec=$3
shift 3
d=$build/install-check
rm -rf "$d" && mkdir -p "$d"
fail() { echo "install_check: FAIL: $*"; exit 1; }
run() {  # run PROGRAM: 2 ranks, the output must say ok
  out=$(env -u LD_LIBRARY_PATH LOOM_MEM_SIZE=64M "$mpiexec" "$@" -n 2 "$prog" 2>&1)
  echo "$out" | grep -q "hello from 2 ranks: ok" || fail "$prog: $out"
  echo "install_check: $prog: ok"
}
cmake --install "$build" --prefix "$d/prefix" >/dev/null || fail "cmake --install"

# 1. find_package, with a PATH that has no MPI on it.
PATH=/usr/local/bin:/usr/bin:/bin cmake -S "$src/examples/hello" -B "$d/cmake" -DCMAKE_PREFIX_PATH="$d/prefix" \
  >"$d/cmake.log" 2>&1 || fail "find_package(Loom) without MPI on PATH: $(cat "$d/cmake.log")"
cmake --build "$d/cmake" >/dev/null || fail "build with find_package"
prog=$d/cmake/hello run "$@"

for prefix in "$d/prefix" "$d/moved"; do
  if [ "$prefix" = "$d/moved" ]; then mv "$d/prefix" "$d/moved" || fail "mv"; fi
  # 2. pkg-config and plain cc (hello.c calls no MPI function itself).
  if command -v pkg-config >/dev/null; then
    flags=$(PKG_CONFIG_PATH=$(ls -d "$prefix"/lib*/pkgconfig | head -1) pkg-config --cflags --libs loom) ||
      fail "pkg-config --cflags --libs loom"
    case "$flags" in *"$prefix"*) ;; *) fail "pkg-config gives $flags, not under $prefix" ;; esac
    cc "$src/examples/hello/hello.c" $flags -o "$d/hello_pc" || fail "cc with pkg-config flags: $flags"
    prog=$d/hello_pc run "$@"
  else
    echo "install_check: pkg-config is not installed: its check is skipped"
  fi
  # 3. the installed loomcc.
  "$prefix/bin/loomcc" "$src/examples/hello/hello.c" -o "$d/hello_cc" || fail "loomcc"
  prog=$d/hello_cc run "$@"
done

# find_package when the MPI it was built with cannot be found.
out=$(MPI_HOME=/nonexistent PATH=/usr/bin:/bin cmake -S "$src/examples/hello" -B "$d/nompi" \
  -DCMAKE_PREFIX_PATH="$d/moved" -DMPI_HOME=/nonexistent 2>&1) && fail "configured without an MPI: $out"
echo "$out" | grep -q "Loom was built with the MPI" || fail "no message naming the MPI: $out"
echo "install_check: a missing MPI is named: ok"
