"""Per rank of a Loom trace (LOOM_TRACE=DIR): each full barrier's acquire
time, and each fault that fetched from another rank within 50 us of the
rank leaving a barrier (its first fetch after it), with the fetch's time;
then the medians and sums.  python3 first_fetch.py DIR"""
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../../tools"))
import loom_trace as T  # noqa: E402

ranks = T.load(sys.argv[1])
acq_all, first_all = [], []
for r in ranks:
    recs = sorted(r.recs, key=lambda x: x[0])
    exit_t, in_bar = None, None
    acq, first = [], []
    for x in recs:
        if x[2] == 2 and x[3] != 1:  # a full barrier
            in_bar = (x[0], x[0] + x[1])
            exit_t = x[0] + x[1]
        elif x[2] == 9 and in_bar and in_bar[0] <= x[0] <= in_bar[1]:
            acq.append(x[1] / 1e3)
        elif x[2] == 1 and (x[6] & 0xffff) != r.rank and x[6] >> 32 and exit_t is not None:
            if x[0] - exit_t <= 50000:
                first.append(x[1] / 1e3)
            exit_t = None
    print(f"rank {r.rank}: barrier acquires {len(acq)}, median {statistics.median(acq) if acq else 0:.1f} us, "
          f"sum {sum(acq) / 1e3:.2f} ms; first fetches after a barrier {len(first)}, "
          f"median {statistics.median(first) if first else 0:.1f} us, sum {sum(first) / 1e3:.2f} ms, "
          f"over 1 ms {sum(1 for f in first if f > 1000)}")
    acq_all += acq
    first_all += first
print(f"all: acquires sum {sum(acq_all) / 1e3:.2f} ms, first fetches sum {sum(first_all) / 1e3:.2f} ms, "
      f"over 1 ms {sum(1 for f in first_all if f > 1000)}")
