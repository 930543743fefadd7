import sys, statistics as st
import os; sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../../../../tools'))
import loom_trace as lt
ranks = lt.load(sys.argv[1])
for r in ranks:
    diffs = sorted(x[0] for x in r.recs if x[2] == 5)
    import bisect
    cats = {}
    for x in r.recs:
        if x[2] not in (3, 4): continue
        t, d = x[0], x[1]
        nd = bisect.bisect_right(diffs, t + d) - bisect.bisect_left(diffs, t)
        home = x[5] % r.nranks
        k = ("lock" if x[2] == 3 else "unlock", "selfhome" if home == r.rank else "remote", "diff" if nd else "nodiff")
        cats.setdefault(k, []).append(d / 1e3)
    print("rank", r.rank)
    for k in sorted(cats):
        v = cats[k]
        print("  %-32s n=%6d sum=%8.1f ms median=%7.2f us p90=%7.2f" % (k, len(v), sum(v)/1e3, st.median(v), sorted(v)[int(.9*len(v))]))
