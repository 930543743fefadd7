"""`loom trace summary`'s barrier anatomy on a trace written by hand, whose
answer is known to the microsecond: two ranks, one loom_barrier that rank 1
reaches last (a diff, an acquire, then the prefetch's second barrier), a
diff of another thread of rank 1 inside it (not the barrier's), a split
barrier (not a loom_barrier), and a loom_barrier that rank 0 reaches last
with nothing to acquire; and fetches split by whether their home was in
Loom or computing, and by whether they were the rank's first into their
window.  Then `loom trace check` on a second trace written by hand: an
init clock sync whose error bound (its dur) reaches past the operations
after it must pass, and an operation that ends before the one written
before it must still be caught.  Exit 1 with what differs.
  trace_anatomy.py DIR"""
import os
import sys

from trace_handmade import US, lt, rec, write


d = sys.argv[1]
os.makedirs(d, exist_ok=True)
# Barrier 1: rank 0 arrives at 1000 us and leaves at 1500; rank 1 arrives
# at 1200 (last), its diff ends at 1230, its acquire runs 1300-1350, and
# it leaves at 1400.  Barriers 2 and 3 are a split barrier's two halves.
# Barrier 4: rank 0 arrives last at 3100 with no acquire record, both leave
# at 3160 and 3170.
# Fetches (faults with pages fetched from another rank), by what their
# home was doing at their midpoint: rank 1's from rank 0 at 1100-1140
# (rank 0 in barrier 1) and 2500-2800 (rank 0 computing), rank 0's from
# rank 1 at 2040-2048 (rank 1 in the split barrier's wait); a fault that
# fetched nothing and one from the rank itself are not fetches.
write(d, 0, [rec(1000, 500, 2, 0, a=1),
             rec(2000, 10, 2, 1, a=2), rec(2040, 8, 1, a=10, b=1 | 1 << 32), rec(2050, 10, 2, 2, a=2),
             rec(3100, 60, 2, 0, a=4)])
write(d, 1, [rec(1100, 40, 1, a=5, b=0 | 1 << 32), rec(2500, 300, 1, a=6, b=0 | 2 << 32),
             rec(2900, 20, 1, a=6, b=0), rec(2950, 10, 1, a=9, b=1 | 1 << 32),
             rec(1200, 200, 2, 0, a=1),
             rec(1205, 25, 5, th=0, a=7, b=4096 | 1 << 32 | 0 << 48),
             rec(1250, 60, 5, th=1, a=8, b=64 | 1 << 32 | 0 << 48),  # another thread's diff
             rec(1300, 50, 9, a=3, b=0),
             rec(2010, 10, 2, 1, a=2), rec(2040, 30, 2, 2, a=2),
             rec(3000, 170, 2, 0, a=4),
             rec(3300, 5, 1, a=13, b=0 | 1 << 32),  # rank 0 computing; page 13: window 1, rank 1's first there
             rec(3320, 7, 1, a=14, b=0 | 1 << 32)])  # window 1 again; rank 1's second since barrier 4

summ = lt.summary(lt.load(d))
# Fetches by their home's state at their midpoint; cold: a rank's first
# fetch into an aligned window of 8 pages (rank 1: page 5 then 6 of window
# 0, page 13 then 14 of window 1; rank 0: page 10); and whether a fetch is
# the rank's first since it left a barrier (a split barrier's arrive is
# not a leaving: rank 0's page 10 is its first since barrier 1; rank 1's
# pages 5, 6 and 13 are each its first, after the start, barrier 1's wait
# and barrier 4; page 14 its second after barrier 4).
for key, what, want_f in [
        ("fetches_by_home", "by their home's state",
         {"home_in_loom": {"fetches": 2, "total_us": 48.0, "median_us": 40.0},
          "home_computing": {"fetches": 3, "total_us": 312.0, "median_us": 7.0}}),
        ("fetches_cold", "by first into their window or again",
         {"first": {"fetches": 3, "total_us": 53.0, "median_us": 8.0},
          "again": {"fetches": 2, "total_us": 307.0, "median_us": 300.0}}),
        ("fetches_after_barrier", "by first since a barrier or later",
         {"first": {"fetches": 4, "total_us": 353.0, "median_us": 40.0},
          "later": {"fetches": 1, "total_us": 7.0, "median_us": 7.0}})]:
    if summ[key] != want_f:
        print(f"trace_anatomy: fetches {what} {summ[key]}, want {want_f}")
        sys.exit(1)
a = summ["barriers"].get("last_arriver_us")
# Medians of two barriers are the larger one (sorted()[n // 2]).
want = {"barriers": 2, "with_acquire_record": 1,
        "release": 30.0,                 # 1200 -> 1230; barrier 4: 0
        "agreement": 70.0,               # 1230 -> 1300; barrier 4: 60 (no acquire record)
        "acquire": 50.0,                 # 1300 -> 1350; barrier 4: 0
        "after_acquire": 50.0,           # 1350 -> 1400; barrier 4: 0
        "total": 200.0,                  # 200 and 60
        "first_exit_after_last_arrival": 200.0}  # min(1500, 1400) - 1200; barrier 4: 3160 - 3100
bad = {k: (a or {}).get(k) for k, v in want.items() if (a or {}).get(k) != v}
if bad:
    print(f"trace_anatomy: got {a}, want {want}; differs in {sorted(bad)}")
    sys.exit(1)

# The check's time order: a sync record's dur is the clock's error bound
# (3 ms here, as under load), not an operation, so it must not move the
# end the next records are held to; an operation that ends 5 us before
# the one written before it is out of order.
d2 = d + "_order"
os.makedirs(d2, exist_ok=True)
for r in (0, 1):
    write(d2, r, [rec(100, 3000, 12, 0), rec(150, 20, 2, 0, a=1), rec(200, 10, 1, a=3, b=0),
                  rec(260, 40, 2, 0, a=2), rec(400, 2, 12, 1)])
errs = lt.check(lt.load(d2))
if errs:
    print(f"trace_anatomy: a sync's error bound taken for an operation's end: {errs}")
    sys.exit(1)
write(d2, 1, [rec(100, 3, 12, 0), rec(150, 50, 2, 0, a=1), rec(180, 15, 1, a=3, b=0),
              rec(400, 2, 12, 1)])
errs = lt.check(lt.load(d2))
if len(errs) != 1 or "rank 1 record 2: fault ends" not in errs[0]:
    print(f"trace_anatomy: a fault ending 5 us before the barrier written before it gave {errs}")
    sys.exit(1)
print("trace_anatomy: ok", a)
