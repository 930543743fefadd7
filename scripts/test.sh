#!/usr/bin/env bash
# Set up, build, and run every test: unit tests, the multi-rank suite on 2, 3
# and 4 ranks under every transport and protocol, and (as root, with network
# namespaces; skipped otherwise) the suite across emulated hosts; then, on a
# full run with MPICH (no ctest arguments), the sanitizer builds
# (scripts/sanitize.sh: ASan+UBSan and TSan).
set -euo pipefail
cd "$(dirname "$0")/.."
# Open MPI's osc/ucx prints a harmless error when UCX has no transport.
[ "${LOOM_MPI:-mpich}" = openmpi ] && export OMPI_MCA_osc=${OMPI_MCA_osc:-^ucx}
scripts/setup.sh
# matplotlib, for the test of `loom plot` (skipped without it).
venv=${LOOM_VENV:-$PWD/.venv}
"$venv/bin/python3" -c "import matplotlib" 2>/dev/null ||
  "$venv/bin/python3" -m pip install -q --disable-pip-version-check matplotlib ||
  echo "test: could not install matplotlib; the plot test will be skipped" >&2
(cd "${BUILD_DIR:-build}" && ctest --output-on-failure --timeout 300 -j 1 "$@")
if [ $# -eq 0 ] && [ "${LOOM_MPI:-mpich}" = mpich ]; then
  scripts/sanitize.sh
fi
