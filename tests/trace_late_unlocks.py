"""Rewrites a trace as if every rank had been descheduled inside each
loom_unlock, after handing the lock over and before recording the unlock:
every unlock record's duration grows by MS milliseconds (its start, which
comes before the hand-over, stays).  The race report must then still follow
each lock chain (tests/races.sh with LATE_UNLOCK_MS).  Fails unless, after
the rewrite, some hand-over's unlock ends after the lock it handed over was
got: a rewrite that changed nothing would test nothing.
  trace_late_unlocks.py TRACE_DIR MS"""
import importlib.util
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("loom_trace", os.path.join(here, "..", "tools", "loom_trace.py"))
lt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(lt)

d, ms = sys.argv[1], float(sys.argv[2])
extra = int(ms * 1e6)
for r in lt.load(d):
    data = bytearray(open(r.path, "rb").read())
    for i, rec in enumerate(r.recs):
        if rec[2] == 4:  # an unlock
            rec = list(rec)
            rec[1] = min(rec[1] + extra, 0xffffffff)
            lt.REC.pack_into(data, r.header_size + i * lt.REC.size, *rec)
    open(r.path, "wb").write(data)

ranks = lt.load(d)
by = {r.rank: r for r in ranks}
late = 0
for (rk, k), (src, uk) in lt.handovers(ranks).items():
    if src == rk:
        continue
    t0, dur = by[rk].recs[k][:2]
    u0, udur = by[src].recs[uk][:2]
    if by[src].to_global(u0 + udur) > by[rk].to_global(t0 + dur):
        late += 1
print(f"trace_late_unlocks: {late} hand-overs now end after the lock was got")
sys.exit(0 if late else 1)
