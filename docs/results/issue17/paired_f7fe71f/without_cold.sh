#!/bin/bash
# The sixth paired run's measured runs predicted again without cold
# fetches (fetch_cold_page_us 0 merged last), from the traces run.sh kept.
R=docs/results/issue17/paired_f7fe71f
TRACES=${TRACES:-/tmp/loom-paired7/traces} exec "$(dirname "$0")/../paired/repredict_with.sh" \
  $R without_cold $R/without_cold_one_host.json $R/without_cold.json
