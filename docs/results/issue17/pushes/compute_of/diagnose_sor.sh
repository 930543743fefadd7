#!/bin/bash
# Where a placed run's prediction from the bad placement's trace goes
# wrong across hosts (docs/MODEL.md, "A plain trace's computation"): SOR
# with the cyclic homes (200 sweeps) on 2 emulated hosts x 1, traced with
# LOOM_TRACE_HOMES and plainly, `loom place` on the first, then the placed
# run traced itself and run twice untraced.  Three replays of the timed
# part (--window 1:-1) on the seventh paired run's calibrations: the
# placed run's own trace; the homes trace with the placement and the plain
# trace's computation (--compute-of); and with the homes trace's own.
# Per rank: the window's breakdown, and each trace's faults (fetches,
# traps, home faults) and computation.  And whether tracing itself costs
# the bad placement's time: untraced and traced, alternated.
# Run as root; prints to stdout (diagnose_sor.txt beside this script).
set -e
cd "$(dirname "$0")/../../../../.."
export MPIEXEC=$PWD/.venv/bin/mpiexec LOOM_HOST_SHARE=0 LOOM_MIGRATE=0
P=docs/results/issue17/paired_15f5e22
PL="--platform $P/platform_one_host.json --platform $P/platform_h2_unlimited.json ${EXTRA:-}"  # EXTRA: more platform files, merged last
W=${WORK:-/tmp/loom-diagnose-sor}
S=$PWD/build/apps/sor_loom
L="scripts/cluster.sh run 2 1 --"
trap 'scripts/cluster.sh down >/dev/null 2>&1 || true' EXIT
scripts/cluster.sh down >/dev/null 2>&1 || true
scripts/cluster.sh up 2 >/dev/null
t() { grep -o '"time": [0-9.]*' | cut -d' ' -f2; }
if [ "${ANALYZE_ONLY:-0}" != 1 ]; then   # ANALYZE_ONLY=1: the replays and counts of the traces in WORK again
rm -rf $W && mkdir -p $W
echo "bad, traced with homes: $(LOOM_HOME=cyclic LOOM_TRACE=$W/homes LOOM_TRACE_HOMES=1 $L $S --iters 200 | t) s"
echo "bad, traced plainly: $(LOOM_HOME=cyclic LOOM_TRACE=$W/plain $L $S --iters 200 | t) s"
tools/loom place $W/homes --out $W/placement.txt > /dev/null
echo "placed, traced: $(LOOM_HOME=cyclic LOOM_PLACEMENT=$W/placement.txt LOOM_TRACE=$W/placed $L $S --iters 200 | t) s"
for k in 1 2; do
  echo "placed, untraced: $(LOOM_HOME=cyclic LOOM_PLACEMENT=$W/placement.txt $L $S --iters 200 | t) s"
  echo "bad, untraced: $(LOOM_HOME=cyclic $L $S --iters 200 | t) s; traced: $(rm -rf $W/x; LOOM_HOME=cyclic LOOM_TRACE=$W/x $L $S --iters 200 | t) s"
done
fi
tools/loom predict $W/placed $PL --window 1:-1 --json 2>/dev/null > $W/own.json
tools/loom predict $W/homes $PL --window 1:-1 --json --placement $W/placement.txt --compute-of $W/plain 2>/dev/null > $W/compute_of.json
tools/loom predict $W/homes $PL --window 1:-1 --json --placement $W/placement.txt 2>/dev/null > $W/homes.json
python3 - "$W" <<'PY'
import json, sys
sys.path.insert(0, "tools")
import loom_model as lm, loom_trace as lt
w = sys.argv[1]
for name in ("own", "compute_of", "homes"):
    d = json.load(open(f"{w}/{name}.json"))
    print(f"replay {name}: window {d['predicted_window_s']:.3f} s (traced {d['traced_window_s']:.3f}); "
          f"requests to a computing home {d['served_by_napping']} ({d['serve_wait_s']:.3f} s waiting); pages pushed {d['prefetched_pages']}")
    for r in d["per_rank"]:
        x = r["window"]
        print(f"  rank {r['rank']}: compute {x['compute_s']:.3f}, fault {x['fault_s']:.3f}, barrier {x['barrier_s']:.3f} s")
for name in ("plain", "homes", "placed"):
    for r in lt.load(f"{w}/{name}"):
        c = {"fetch": 0, "trap": 0, "home": 0}
        for x in r.recs:
            if x[2] == lm.FAULT and x[4] == 0:
                c["fetch" if x[6] >> 32 else "home" if (x[6] & 0xffff) == r.rank else "trap"] += 1
        ops, _ = lm.rank_ops(r, "cpu")
        traps = sorted(x[1] for x in r.recs if x[2] == lm.FAULT and x[4] == 0 and not x[6] >> 32 and (x[6] & 0xffff) != r.rank)
        print(f"trace {name} rank {r.rank}: {c['fetch']} fetches, {c['trap']} traps (their records: median "
              f"{traps[len(traps) // 2] * 1e-3 if traps else 0:.2f} us), {c['home']} home faults; "
              f"computation {sum(o.compute or 0 for o in ops):.3f} s (CPU, the whole job)")
    # The ranks' computation interval by interval (between full barriers):
    # what one computes more than the other there, the other waits for in
    # the barrier.
    iv = [lm.interval_compute(lm.rank_ops(r, "cpu")[0]) for r in lt.load(f"{w}/{name}")]
    print(f"trace {name}: the ranks' computation differs by {sum(abs(a - b) for a, b in zip(*iv)):.3f} s summed over "
          f"{len(iv[0])} intervals between barriers")
PY
