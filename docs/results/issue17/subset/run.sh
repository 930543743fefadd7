#!/bin/bash
# The model's barriers of a subset against real runs (docs/MODEL.md,
# "Barriers of a subset"): bench/stencil_pairs, Jacobi synchronized by
# barriers of neighbouring pairs (and, for reference, by barriers of every
# rank: --full), paired as the suite's validation is: each round a traced
# run on one host (3 ranks), then an untraced run on 3 emulated hosts x 1
# rank (links unlimited); each trace predicted for 3 hosts on a platform
# calibrated on this machine (PLAT: a paired run's directory with
# platform_one_host.json and platform_h2_unlimited.json).  The modes
# alternate round by round.  Run as root; $OUT.txt and $OUT.jsonl (default
# results) land beside this script.  N, SWEEPS, ACTIVE: the program's --n,
# --sweeps, --active.  CORES: each trace is also predicted with --cores
# CORES (the hosts sharing this machine's cores), beside the plain one.
set -e
cd "$(dirname "$0")/../../../.."
R=docs/results/issue17/subset
PLAT=${PLAT:-docs/results/issue17/paired_bb12c4d}
T=${TRACES:-/tmp/loom-subset}
ROUNDS=${ROUNDS:-5}
N=${N:-256}
SWEEPS=${SWEEPS:-400}
ACTIVE=${ACTIVE:-3}   # ranks that sweep (3 ranks on this 2-core machine: ACTIVE=2 gives each a core)
OUT=${OUT:-results}
ARGS="--n $N --sweeps $SWEEPS --active $ACTIVE"
. docs/results/issue17/subset/three_hosts.sh
: > $T/rows.txt
for i in $(seq 1 $ROUNDS); do
  for mode in pairs full; do
    # The sweeps: from leaving full barrier 2 to leaving the one after them
    # (3 with pairs; with --full each sweep's own barrier comes between).
    flag="" window=2:3
    [ $mode = full ] && flag=--full window=2:$((3 + SWEEPS))
    LOOM_TRACE=$T/$mode.$i LOOM_HOST_SHARE=0 $MPIEXEC -n 3 $B $ARGS $flag > $T/$mode.$i.traced.out
    scripts/cluster.sh run 3 1 -- $B $ARGS $flag > $T/$mode.$i.measured.out
    tools/loom predict $T/$mode.$i --hosts 3 --platform $PLAT/platform_one_host.json \
      --platform $PLAT/platform_h2_unlimited.json --window $window --json 2>/dev/null > $T/$mode.$i.predict.json
    echo '{}' > $T/$mode.$i.predict_cores.json
    [ -n "${CORES:-}" ] && tools/loom predict $T/$mode.$i --hosts 3 --platform $PLAT/platform_one_host.json \
      --platform $PLAT/platform_h2_unlimited.json --window $window --cores $CORES --json 2>/dev/null \
      > $T/$mode.$i.predict_cores.json
    python3 - "$mode" "$i" "$T" >> $T/rows.txt <<'PY'
import json, re, sys
mode, i, T = sys.argv[1:4]
got = lambda f: float(re.search(r": ([0-9.]+) s,", open(f).read()).group(1))
p = json.load(open(f"{T}/{mode}.{i}.predict.json"))
pc = json.load(open(f"{T}/{mode}.{i}.predict_cores.json"))
print(json.dumps({"mode": mode, "round": int(i), "measured_s": got(f"{T}/{mode}.{i}.measured.out"),
                  "traced_s": got(f"{T}/{mode}.{i}.traced.out"), "predicted_s": p["predicted_window_s"],
                  "predicted_cores_s": pc.get("predicted_window_s"), "cores": pc.get("cores"),
                  "predicted_barrier_s": [r["window"]["barrier_s"] for r in p["per_rank"]]}))
PY
    tail -1 $T/rows.txt
  done
done
python3 - "$T/rows.txt" > $R/$OUT.txt <<'PY'
import json, statistics as st, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print("| mode | measured s (each round) | predicted s (each round) | median measured | median predicted | error |")
print("|---|---|---|---|---|---|")
med = {}
for mode in ("pairs", "full"):
    r = [x for x in rows if x["mode"] == mode]
    m, p = st.median(x["measured_s"] for x in r), st.median(x["predicted_s"] for x in r)
    med[mode] = (m, p)
    ms = " ".join("%.3f" % x["measured_s"] for x in r)
    ps = " ".join("%.3f" % x["predicted_s"] for x in r)
    print(f"| {mode} | {ms} | {ps} | {m:.3f} | {p:.3f} | {100 * (p - m) / m:+.1f}% |")
print(f"\npairs / full: measured {med['pairs'][0] / med['full'][0]:.3f}, predicted {med['pairs'][1] / med['full'][1]:.3f}")
for mode in ("pairs", "full"):
    r = [x for x in rows if x["mode"] == mode and x.get("predicted_cores_s")]
    if r:
        m, p = st.median(x["measured_s"] for x in r), st.median(x["predicted_cores_s"] for x in r)
        print(f"{mode} with --cores {r[0]['cores']}: predicted {p:.3f} s (each round "
              + " ".join("%.3f" % x["predicted_cores_s"] for x in r) + f"), error {100 * (p - m) / m:+.1f}%")
PY
cp $T/rows.txt $R/$OUT.jsonl
cat $R/$OUT.txt
