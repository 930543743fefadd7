#!/bin/sh
# loom_bench of this build run on the library before the session (78b557f's
# libloom.so.0 copied to OLDLIB, default /tmp/oldlib): build A of the
# comparison against the previous build.
exec env LD_LIBRARY_PATH="${OLDLIB:-/tmp/oldlib}" "$(dirname "$0")/../../../../build/bench/loom_bench" "$@"
