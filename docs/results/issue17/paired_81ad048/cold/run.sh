#!/bin/bash
# The fifth paired run (81ad048) predicted again with cold fetches modelled
# (docs/MODEL.md, "Cold fetches"): its own platform files plus
# fetch_cold_page_us taken from its own calibration runs (pagefetch_cold
# less pagefetch at the default unit, per page), the measured times and
# the kept traces as they were (TRACES: where run.sh kept them).
set -e
cd "$(dirname "$0")/../../../../.."
P=docs/results/issue17/paired_81ad048
R=$P/cold
T=${TRACES:-/tmp/loom-paired6/traces}
python3 - "$P" "$R" <<'PY'
import json, sys
P, R = sys.argv[1:3]
def median(rows, name, unit):
    return next(r["median"] for r in rows if r["name"] == name and int(r["params"].get("unit_pages", 0)) == unit)
for c, sec in [("one_host", "inside_host"), ("h2_unlimited", "between_hosts"), ("h2_1gbit", "between_hosts"),
               ("h2_100mbit", "between_hosts")]:
    d = json.load(open(f"{P}/calibrate_{c}.json"))
    rows = d["results"] if "results" in d else d
    plat = json.load(open(f"{P}/platform_{c}.json"))
    plat[sec]["fetch_cold_page_us"] = round(max(0.0, median(rows, "pagefetch_cold", 8) - median(rows, "pagefetch", 8)), 3)
    json.dump(plat, open(f"{R}/platform_{c}.json", "w"), indent=1)
PY
cp $P/validation.json $R/validation.json
python3 bench/model_validate.py --repredict --config h1r2 --platform $R/platform_one_host.json --traces $T \
  --json $R/validation.json > $R/validate_h1r2.txt
for rate in unlimited 1gbit 100mbit; do
  links=""; [ $rate != unlimited ] && links="--platform $P/links_$rate.json"
  python3 bench/model_validate.py --repredict --config h2r1_$rate --hosts 2 --platform $R/platform_one_host.json \
    --platform $R/platform_h2_$rate.json $links --traces $T --json $R/validation.json > $R/validate_h2r1_$rate.txt
done
python3 bench/model_validate.py --table $R/validation.json > $R/table.md
