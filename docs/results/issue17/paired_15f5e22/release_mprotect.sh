#!/bin/bash
# The seventh paired run's measured runs predicted again by the replay that
# charges a release's mprotect of each run of dirty pages (node.mprotect_us),
# on the run's own calibrations, from the traces run.sh kept.
R=docs/results/issue17/paired_15f5e22
TRACES=${TRACES:-/tmp/loom-paired8/traces} exec "$(dirname "$0")/../paired/repredict_with.sh" \
  $R release_mprotect $R/as_calibrated.json $R/as_calibrated.json
