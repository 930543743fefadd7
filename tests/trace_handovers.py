"""The view's lock hand-overs (`loom trace view`: tools/loom_trace.py,
handovers) on a trace written by hand, whose answer is known: two ranks
whose clocks agree within 25 us take lock 5 in turns 2 us apart, far
inside that bound.  Rank 0's unlocks leave the same hand-over value every
time (it releases nothing between them), rank 1's a new one each time, and
rank 1 also takes a lock it kept (no value: matched by time).  Every
acquisition must get the unlock that handed it the lock; the rule before
this one took, for a repeated value, the latest unlock that started before
the acquisition's end plus the bound, which is the turn after, and its
arrows started after the lock was got.  Exit 1 with what differs.
  trace_handovers.py DIR"""
import os
import sys

from trace_handmade import US, lt, rec, write

BOUND_US = 25


def sync(t_us):  # the init clock sync: global = rank clock, the bound BOUND_US
    return (int(t_us * US), BOUND_US * US, 12, 0, 0, 0, int(t_us * US))


d = sys.argv[1]
os.makedirs(d, exist_ok=True)
V0 = 0x100  # rank 0's hand-over value, the same at each of its unlocks
# Turn i (i = 0..4), 10 us apart: rank 0 unlocks at 100 + 10i (value V0),
# rank 1's lock ends at 102 + 10i (got V0), rank 1 unlocks at 103 + 10i
# (value 0x200 + i), rank 0's lock ends at 105 + 10i (got 0x200 + i).
# Then rank 1 takes a lock it kept (lock 6, no value) after its unlock of it.
r0 = [sync(0)]
r1 = [sync(0)]
for i in range(5):
    t = 100 + 10 * i
    r0.append(rec(t, 0.5, 4, a=5, b=V0))
    r1.append(rec(t + 1, 1, 3, a=5, b=V0))
    r1.append(rec(t + 3, 0.5, 4, a=5, b=0x200 + i))
    r0.append(rec(t + 4, 1, 3, a=5, b=0x200 + i))
r1.append(rec(200, 1, 4, a=6, b=0x300))
r1.append(rec(205, 1, 3, a=6, b=0))
r0.sort(key=lambda x: x[0])
r1.sort(key=lambda x: x[0])
write(d, 0, r0)
write(d, 1, r1)

ranks = sorted(lt.load(d), key=lambda r: r.rank)
by = {r.rank: r for r in ranks}
got = lt.handovers(ranks)
errs = []
for (rk, k), (src, uk) in sorted(got.items()):
    r = by[rk]
    t0, dur, ty, fl, th, a, b = r.recs[k]
    u0, _, uty, _, _, ua, ub = by[src].recs[uk]
    if uty != 4 or ua != a:
        errs.append(f"rank {rk}'s lock at {t0 / US} us matched a record of type {uty}, lock {ua}")
    elif a == 6:
        if (src, u0) != (1, 200 * US):
            errs.append(f"the kept lock 6 matched rank {src}'s unlock at {u0 / US} us, not rank 1's at 200")
    elif b and ub != b:
        errs.append(f"rank {rk}'s lock at {t0 / US} us (value {b:#x}) matched an unlock of value {ub:#x}")
    elif u0 > t0 + dur or t0 + dur - u0 > 3 * US:
        errs.append(f"rank {rk}'s lock ending at {(t0 + dur) / US} us matched rank {src}'s unlock at {u0 / US} us, "
                    "not the one just before it")
n_locks = sum(1 for r in ranks for x in r.recs if x[2] == 3)
if len(got) != n_locks:
    errs.append(f"{len(got)} acquisitions matched of {n_locks}")
v = lt.view(ranks)
errs += lt.validate_view(v)
for e in errs:
    print(f"trace_handovers: {e}")
print("trace_handovers: " + ("ok" if not errs else f"{len(errs)} problems"))
sys.exit(1 if errs else 0)
