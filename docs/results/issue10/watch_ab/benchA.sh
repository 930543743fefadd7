#!/bin/sh
# loom_bench of this build, run against the library before the init watch and the wait note (139aa2b's, built in /tmp/wt-old)
LD_LIBRARY_PATH=/tmp/wt-old/build exec /work/main/build/bench/loom_bench "$@"
