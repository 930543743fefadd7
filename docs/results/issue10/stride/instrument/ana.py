"""Lines up the instrumented library's timestamps (instrument.patch) with a
packet capture in host 0's namespace: per rank, its faults' gets and home
lookups in all, and for the slowest gets every packet, MPI_Rget and the
home's protocol-thread polls around them.
Kinds: 1 a poll that found no request, 2 one that served one, 3 a nap while
the application thread serves, 10 a fault's get (value: its ns), 11 a
fault's home lookup (ns), 20 an MPI_Rget issued (bytes; -1 indexed)."""
import re
import sys

def load(f):
    return [tuple(map(int, l.split())) for l in open(f)]

ev = {0: load(sys.argv[1]), 1: load(sys.argv[2])}
pk = []
for l in open(sys.argv[3]):
    m = re.match(r'(\d+\.\d+) IP (\S+) > (\S+): Flags \[(\S*)\].*length (\d+)', l)
    if m:
        pk.append((float(m.group(1)), m.group(2), int(m.group(5))))
for r, home in ((0, 1), (1, 0)):
    gets = [e for e in ev[r] if e[1] == 10]
    learns = [e for e in ev[r] if e[1] == 11]
    print("rank %d: %d fetching faults; gets %.1f ms in all (%d over 1 ms), home lookups %d, %.1f ms in all"
          % (r, len(gets), sum(e[2] for e in gets) / 1e6, sum(e[2] > 1e6 for e in gets), len(learns),
             sum(e[2] for e in learns) / 1e6))
    me = '198.18.0.%d' % (r + 1)
    polls = sorted(e for e in ev[home] if e[1] in (1, 2, 3))
    for (t, _, d) in sorted(gets, key=lambda e: -e[2])[:2]:
        t0, t1 = t / 1e9, (t + d) / 1e9
        print("  a get of %.0f us; us from its start:" % (d / 1e3))
        items = [(p[0] - t0, ("out" if p[1].startswith(me) else "in ") + " packet of %d bytes" % p[2])
                 for p in pk if t0 - 1e-4 <= p[0] <= t1 + 1e-4]
        items += [(e[0] / 1e9 - t0, "MPI_Rget of %d bytes" % e[2]) for e in ev[r] if e[1] == 20 and t0 - 1e-4 <= e[0] / 1e9 <= t1]
        last = None
        for e in polls:
            if not (t0 <= e[0] / 1e9 <= t1):
                continue
            if e[1] != 1 or last is None or e[0] - last > 20000:
                items.append((e[0] / 1e9 - t0, "home's protocol thread: %s" % {1: "poll", 2: "served a request", 3: "nap (its application serves)"}[e[1]]
                              + ("" if last is None else " (%.0f us after its last)" % ((e[0] - last) / 1e3))))
            last = e[0]
        for dt, s in sorted(items):
            print("    %+8.0f  %s" % (dt * 1e6, s))
# The protocol threads: gaps between their polls (kinds 1-2) while the
# application thread does not wait in Loom (a gap that ends in a nap of
# kind 3 is the application serving, not a gap): how often each went
# more than 1 ms without a poll, while a request may have waited.
for r in (0, 1):
    es = sorted(e for e in ev[r] if e[1] in (1, 2, 3))
    gaps = [(b[0] - a[0], a) for a, b in zip(es, es[1:]) if b[1] != 3 and a[1] != 3]
    long_ = [g for g in gaps if g[0] > 1e6]
    slow = [e for e in es if e[1] in (1, 2) and e[2] > 1e6]
    print("rank %d's protocol thread: %d polls; %d gaps over 1 ms between polls outside the application's waits "
          "(%.1f ms in all, longest %.2f ms); %d polls that took over 1 ms themselves"
          % (r, sum(e[1] in (1, 2) for e in es), len(long_), sum(g[0] for g in long_) / 1e6,
             max([g[0] for g in long_] or [0]) / 1e6, len(slow)))
