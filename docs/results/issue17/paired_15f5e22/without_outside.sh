#!/bin/bash
# The seventh paired run's measured runs predicted again without taking a
# fault's trap outside the handler out of the computation (trap_outside_us
# 0 merged last), from the traces run.sh kept.
R=docs/results/issue17/paired_15f5e22
TRACES=${TRACES:-/tmp/loom-paired8/traces} exec "$(dirname "$0")/../paired/repredict_with.sh" \
  $R without_outside $R/without_outside.json $R/without_outside.json
