#!/bin/sh
# loom_bench of this build run on the library before the session (96e2ba1's
# libloom.so.0 copied to OLDLIB, default /tmp/oldlib): build A.
exec env LD_LIBRARY_PATH="${OLDLIB:-/tmp/oldlib}" "$(dirname "$0")/../../../build/bench/loom_bench" "$@"
