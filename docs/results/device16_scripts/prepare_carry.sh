#!/bin/bash
# What a device call carries (at most 64 MiB with the working tree): the
# folders run28.sh and run29.sh expect, made from this checkout's build.
#   .devvenv  the project's .venv without Python and pip (the device has its
#             own python3), with ip, tc, nsenter and unshare and their
#             libraries under net/ (a device machine may lack iproute2)
#   .devbuild build/ without its object files, the tests and SPLASH-3
#   .devold   OLD's libloom.so.0 (a commit; run29.sh's is ebe73df), built in a
#             worktree at /tmp/devold-src
# Usage: prepare_carry.sh [OLD]; then run(carry=[".devvenv", ".devbuild", ".devold"]).
set -e
cd "$(dirname "$0")/../../.."
OLD=${1:-ebe73df}
grep -qx '/.dev\*/' .git/info/exclude 2>/dev/null || echo '/.dev*/' >> .git/info/exclude
rm -rf .devvenv && mkdir -p .devvenv/lib .devvenv/net/bin .devvenv/net/real .devvenv/net/lib
cp -a .venv/bin .venv/include .devvenv/
cp -a .venv/lib/libmpi.so .venv/lib/libmpi.so.12 .venv/lib/mpich .devvenv/lib/
rm -f .devvenv/bin/python* .devvenv/bin/pip* .devvenv/bin/activate* .devvenv/bin/Activate.ps1
for b in ip tc nsenter unshare; do
  cp "$(command -v $b)" .devvenv/net/real/
  ldd "$(command -v $b)" | awk '/=> \// {print $3}' | while read -r l; do
    case $l in */libc.so*|*/libm.so*) ;; *) cp -Ln "$l" .devvenv/net/lib/ ;; esac
  done
  printf '#!/bin/sh\nd=$(dirname "$(readlink -f "$0")")/..\nLD_LIBRARY_PATH=$d/lib exec $d/real/%s "$@"\n' $b > .devvenv/net/bin/$b
  chmod +x .devvenv/net/bin/$b
done
rm -rf .devbuild && cp -a build .devbuild
rm -rf .devbuild/CMakeFiles .devbuild/splash3 .devbuild/tests .devbuild/Testing .devbuild/*/CMakeFiles
if [ ! -e /tmp/devold-src/build/libloom.so.0 ]; then
  git worktree add -f /tmp/devold-src "$OLD"
  cmake -S /tmp/devold-src -B /tmp/devold-src/build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMPI_HOME="$PWD/.venv" >/dev/null
  ninja -C /tmp/devold-src/build libloom.so
fi
rm -rf .devold && mkdir .devold && cp -L /tmp/devold-src/build/libloom.so.0 .devold/
du -sh .devvenv .devbuild .devold
