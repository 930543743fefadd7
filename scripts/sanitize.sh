#!/usr/bin/env bash
# Builds Loom under the sanitizers and runs the core of the multi-rank suite
# and the fuzzers there (docs/ARCHITECTURE.md, "Sanitizer builds and
# fuzzers").  Run by scripts/test.sh after the main suite; needs the MPI of
# scripts/setup.sh (.venv, or LOOM_VENV).
#   address: build-asan/ (ASan+UBSan): mr_coherence, mr_locks, mr_atomics,
#            mr_protocols, mr_alloc at 2 and 3 ranks on every transport (map,
#            mpi, async, auto), default protocol; mt_threads (threads of a
#            rank) at 1x3 and 2x2 on each; the programs written for workers
#            (coherence, locks, atomics, typed atomics, trylock, fences,
#            prefetch, protocols, small blocks, split and subset barriers)
#            at 2x2 mapped and auto, where they have those entries; mt_doom (a fault's get without the rank lock against a
#            sibling's acquire) and mt_intercept (threads handing Loom
#            memory to MPI and I/O at once) at 2x2 mapped; mr_share,
#            mr_hostlock, mr_coherence, mr_locks and mr_stress with pages
#            shared on one host (.share, 2 and 3 ranks), and mr_locks and
#            mr_trylock at 2x2 shared; the fuzzers; the canaries.
#   thread:  build-tsan/ (TSan): the same five at 2 ranks on the async
#            transport (the protocol thread against the program's);
#            mt_threads at 1x3 mapped and 2x2 async (the rank lock), the
#            worker programs at 2x2 async, mt_doom at 2x2 mapped; mr_share,
#            mr_hostlock and mr_coherence with shared pages at 2 ranks, and
#            mr_locks and mr_trylock at 2x2 shared (threads taking host
#            locks); the canary.  The fuzzers are built but not run: they have one
#            thread, so TSan has nothing to check and only slows them ~7x.
# Only the library and these tests are built.  Any sanitizer report fails
# its test (nonzero exit), and the canaries check that it does.
# Usage: scripts/sanitize.sh [address] [thread]   (default: both)
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${LOOM_VENV:-$PWD/.venv}
if [ ! -x "$venv/bin/mpicc" ]; then
  echo "sanitize: no MPI in $venv; run scripts/setup.sh first" >&2
  exit 1
fi
kinds=("$@")
[ ${#kinds[@]} -eq 0 ] && kinds=(address thread)
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
core="mr_coherence|mr_locks|mr_kept|mr_prefetch|mr_atomics|mr_atomics_typed|mr_protocols|mr_alloc|mr_alloc_small|mr_fences|mr_migrate|mr_adapt|mr_exact"
mt="mr_coherence|mr_locks|mr_atomics|mr_atomics_typed|mr_trylock|mr_fences|mr_prefetch|mr_protocols|mr_alloc_small|mr_barriers"
targets=(mr_share mr_hostlock mr_stress mr_barriers mt_threads mt_doom mt_intercept mr_trylock mr_kept mr_prefetch mr_coherence mr_locks mr_atomics mr_atomics_typed mr_protocols mr_alloc mr_alloc_small mr_fences mr_migrate mr_adapt mr_exact spawn_start spawn_setup fuzz_diff fuzz_config sanitizer_canary)

for kind in "${kinds[@]}"; do
  case "$kind" in
    address) dir=build-asan; tests="^(mr\.($core)\.np[23]\.(map|mpi|async|auto)\.hlrc|mt\.mt_threads\.np(1t3|2t2)\.(map|mpi|async|auto)\.hlrc|mt\.($mt)\.np2t2\.(map|auto)\.hlrc|mt\.mt_(doom|intercept)\.np2t2\.map\.hlrc|spawn\.(start|setup)\.np2\..*|unit\.fuzz_.*|san\.canary\..*)\$" ;;
    thread) dir=build-tsan; tests="^(mr\.($core)\.np2\.async\.hlrc|mt\.mt_threads\.np(1t3\.map|2t2\.async)\.hlrc|mt\.($mt)\.np2t2\.async\.hlrc|mt\.mt_doom\.np2t2\.map\.hlrc|spawn\.start\.np2\.async|san\.canary\..*)\$" ;;
    *) echo "sanitize: $kind: expected address or thread" >&2; exit 2 ;;
  esac
  # Ranks of one host sharing pages (LOOM_HOST_SHARE), in a second run:
  # CMake's regular expressions take at most 9 groups.
  case "$kind" in
    address) shared="^(mr\.(mr_share|mr_hostlock|mr_coherence|mr_locks|mr_stress)\.np[23]|mt\.(mr_locks|mr_trylock|mr_hostlock|mr_share)\.np2t2)\.share\$" ;;
    thread) shared="^(mr\.(mr_share|mr_hostlock|mr_coherence)\.np2|mt\.(mr_locks|mr_trylock|mr_hostlock|mr_share)\.np2t2)\.share\$" ;;
  esac
  start=$SECONDS
  if [ ! -f "$dir/CMakeCache.txt" ]; then
    cmake -S . -B "$dir" "${gen[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMPI_HOME="$venv" -DLOOM_SANITIZE="$kind" \
      -DLOOM_BUILD_BENCH=OFF -DLOOM_BUILD_APPS=OFF -DLOOM_TEST_CLUSTER=OFF >/dev/null
  fi
  cmake --build "$dir" -j "$(nproc)" --target "${targets[@]}" >/dev/null
  echo "sanitize: built $dir ($kind) in $((SECONDS - start)) s"
  # (--no-tests=error: a pattern CMake cannot compile selects nothing, and must not pass)
  (cd "$dir" && ctest --output-on-failure --no-tests=error --timeout 300 -j 1 -R "$tests")
  (cd "$dir" && ctest --output-on-failure --no-tests=error --timeout 300 -j 1 -R "$shared")
  echo "sanitize: $kind done in $((SECONDS - start)) s"
done
