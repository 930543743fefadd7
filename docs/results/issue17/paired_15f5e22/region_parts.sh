#!/bin/bash
# The seventh paired run's measured runs predicted again as release_mprotect.sh
# did (the same replay, the same calibrations, the same traces), now with each
# rank's breakdown over the timed region, which LOOM_STATS's measured one
# covers (bench/model_validate.py --compute, --parts).
R=docs/results/issue17/paired_15f5e22
TRACES=${TRACES:-/tmp/loom-paired8/traces} exec "$(dirname "$0")/../paired/repredict_with.sh" \
  $R region_parts $R/as_calibrated.json $R/as_calibrated.json
