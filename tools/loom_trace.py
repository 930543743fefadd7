"""`loom trace`: read the traces LOOM_TRACE=DIR writes (docs/TRACE.md).

  check DIR               every record of every rank is well formed; exit 1 if not
  view DIR [--out F]      the Perfetto / chrome://tracing JSON of the run (one
                          process per rank on the global clock, Loom's
                          operations and the computation between them)
  summary DIR [--json]    where each rank's time went, the top pages by faults
                          and by diff bytes, the hottest locks, barrier skew,
                          where the last rank to arrive spends a barrier, and
                          fetches by whether their home was in Loom or computing
  timeline DIR [--out F] [--window A:B]
                          the timeline drawn as an image (PNG or SVG by F's
                          name; matplotlib), optionally of A..B ms only
  races DIR [--json]      write-write data races: byte runs two ranks wrote
                          in intervals no barrier or lock chain orders (needs
                          a run with LOOM_TRACE_RUNS=1); exit 1 if any

Standard library only.
"""
import bisect
import json
import os
import struct
import sys
import time
from collections import defaultdict
from itertools import accumulate

MAGIC = b"LOOMTRC1"
REC = struct.Struct("<QIBBHQQ")
TYPES = {1: "fault", 2: "barrier", 3: "lock", 4: "unlock", 5: "diff", 6: "atomic", 7: "alloc", 8: "free",
         9: "acquire", 10: "migrate", 11: "cpu", 12: "sync", 13: "dropped", 14: "pages", 15: "notice",
         16: "notices", 17: "run", 18: "reset", 19: "prefetch"}
# Loom operations the program called or faulted into: the top level of a rank's timeline.
TOP = {1, 2, 3, 4, 6}
ATOMIC_OPS = {0: "fetch_add", 1: "cas", 2: "exchange", 3: "load", 4: "store"}
KINDS = {1: "loom_alloc", 2: "collective", 3: "small-block chunk"}


class Rank:
    """One rank's trace: its header and its records (tuples of REC's fields)."""

    def __init__(self, path):
        self.path = path
        data = open(path, "rb").read()
        if len(data) < 4096 or data[:8] != MAGIC:
            raise ValueError(f"{path}: not a Loom trace (no LOOMTRC1 header)")
        (self.version, self.header_size, self.rec_size, self.rank, self.nranks,
         self.pid) = struct.unpack_from("<6I", data, 8)
        if self.version not in (1, 2) or self.rec_size != REC.size:
            raise ValueError(f"{path}: trace version {self.version}, record size {self.rec_size}: not readable here")
        self.start_unix_ns, self.page, self.base, self.mem = struct.unpack_from("<4Q", data, 32)
        cstr = lambda off, n: data[off:off + n].split(b"\0", 1)[0].decode(errors="replace")
        self.host = cstr(64, 64)
        try:
            self.build = json.loads(cstr(128, 896))
        except ValueError:
            self.build = {}
        self.config = cstr(1024, self.header_size - 1024)
        body = data[self.header_size:]
        self.tail = len(body) % REC.size
        self.recs = list(REC.iter_unpack(body[:len(body) - self.tail]))
        syncs = [r for r in self.recs if r[2] == 12]
        s0 = next((r for r in syncs if r[3] == 0), None)
        s1 = next((r for r in syncs if r[3] == 1), None)
        signed = lambda u: u - (1 << 64) if u >= 1 << 63 else u
        # Anchors (trace time, global time, bound): at trace time t0 the
        # rank's clock read b and the global clock b + a.  Between (and
        # beyond) the two anchors the map is linear: it takes in the trace
        # clock's rate, the drift and the rank's origin.
        self.clock = [(s[0], s[6] + signed(s[5]), s[1]) for s in (s0, s1) if s]
        self.dropped = sum(r[5] for r in self.recs if r[2] == 13)

    def to_global(self, t):
        """Global ns (rank 0's clock) of trace time t."""
        c = self.clock
        if not c:
            return t
        if len(c) == 1 or c[1][0] == c[0][0]:
            return c[0][1] + (t - c[0][0])
        return c[0][1] + (t - c[0][0]) * (c[1][1] - c[0][1]) / (c[1][0] - c[0][0])

    def bound_ns(self):
        return max((b for _, _, b in self.clock), default=0)


class Progress:
    """Progress on standard error for work that takes more than a few
    seconds: nothing for the first LOOM_TOOL_PROGRESS_AFTER seconds (3),
    then a line at most every 2 s, and one at the end if any was printed."""

    def __init__(self, what):
        self.what, self.t0, self.last, self.printed = what, time.monotonic(), 0.0, False
        try:
            self.after = float(os.environ.get("LOOM_TOOL_PROGRESS_AFTER", "3"))
        except ValueError:
            self.after = 3.0

    def __call__(self, msg):
        now = time.monotonic()
        if now - self.t0 >= self.after and (not self.printed or now - self.last >= 2.0):
            print(f"{self.what}: {msg} ({now - self.t0:.1f} s)", file=sys.stderr, flush=True)
            self.last, self.printed = now, True

    def done(self):
        if self.printed:
            print(f"{self.what}: done in {time.monotonic() - self.t0:.1f} s", file=sys.stderr, flush=True)


def load(d):
    files = sorted(f for f in os.listdir(d) if f.startswith("rank") and f.endswith(".lt"))
    if not files:
        raise ValueError(f"{d}: no rank<R>.lt files (was the program run with LOOM_TRACE={d}?)")
    note = Progress("loom: reading the trace")
    ranks = []
    for i, f in enumerate(files):
        note(f"rank file {i + 1} of {len(files)}")
        ranks.append(Rank(os.path.join(d, f)))
    note.done()
    ranks.sort(key=lambda r: r.rank)
    return ranks


def check(ranks):
    """Every problem found, as strings (empty: the trace is valid)."""
    errs = []
    n = ranks[0].nranks
    if sorted(r.rank for r in ranks) != list(range(n)):
        errs.append(f"ranks {sorted(r.rank for r in ranks)} for a job of {n}")
    for r in ranks:
        p = f"rank {r.rank}"
        if r.nranks != n:
            errs.append(f"{p}: header says {r.nranks} ranks, rank 0's {n}")
        if r.tail:
            errs.append(f"{p}: {r.tail} bytes after the last whole record (the file was cut)")
        if not r.recs or r.recs[0][2] != 12 or r.recs[0][3] != 0:
            errs.append(f"{p}: the first record is not the init clock sync")
        if not any(x[2] == 12 and x[3] == 1 for x in r.recs):
            errs.append(f"{p}: no finalize clock sync (the run did not reach loom_finalize?)")
        pages = r.mem // r.page if r.page else 0
        last_end = 0
        for i, (t0, dur, ty, fl, th, a, b) in enumerate(r.recs):
            q = f"{p} record {i}"
            if ty not in TYPES:
                errs.append(f"{q}: unknown type {ty}")
                continue
            end = t0 + dur
            # Records are written when their operation ends; nested ones end
            # first.  cpu, sync, dropped and pages are marks, not operations:
            # a sync's dur is the clock's error bound (milliseconds under
            # load), so they neither get checked nor move the end.
            if ty not in (11, 12, 13, 14):
                if end + 1000 < last_end:
                    errs.append(f"{q}: {TYPES[ty]} ends at {end} ns, before the previous record's end {last_end}")
                last_end = max(last_end, end)
            if ty == 17 and (a + (b & 0xffffffff) > r.mem or (b & 0xffffffff) == 0 or (b >> 48) >= n):
                errs.append(f"{q}: byte run of {b & 0xffffffff} bytes at offset {a}, home {b >> 48}")
            if ty in (1, 5) and a >= pages:
                errs.append(f"{q}: page {a} is outside the {pages}-page memory")
            if ty in (1, 5) and (b & 0xffff) >= n and ty == 1:
                errs.append(f"{q}: home {b & 0xffff} is not a rank")
            if ty == 5 and (b >> 48) >= n:
                errs.append(f"{q}: diff home {b >> 48} is not a rank")
            if ty == 19 and ((b >> 48) >= n or (b >> 48) == r.rank or (b & 0xffffffff) == 0
                             or a + (b & 0xffffffff) > pages or fl not in (0, 1)):
                errs.append(f"{q}: prefetch of {b & 0xffffffff} pages at page {a} from rank {b >> 48}, flags {fl}")
            if ty == 6 and ((b >> 48) >= n or (b & 0xffff) not in ATOMIC_OPS):
                errs.append(f"{q}: atomic {b & 0xffff} at a word homed at rank {b >> 48}")
            if ty == 15 and ((b >> 48) >= n or (b >> 48) == r.rank or a >= pages):
                errs.append(f"{q}: notice to rank {b >> 48} about page {a}")
            if ty in (7, 8) and (a + (b & ((1 << 56) - 1)) > pages or (b >> 56) not in KINDS):
                errs.append(f"{q}: block of {b & ((1 << 56) - 1)} pages at page {a}, kind {b >> 56}, does not fit")
            if ty == 2 and fl == 0 and b:
                errs.append(f"{q}: a loom_barrier with a subset's key {b:#x}")
            if ty == 1 and fl not in (0, 1) or ty == 2 and fl not in (0, 1, 2) or ty == 3 and fl not in (0, 1):
                errs.append(f"{q}: flags {fl} for {TYPES[ty]}")
        if r.dropped:
            errs.append(f"{p}: {r.dropped} records were dropped (buffers full between synchronizations)")
    return errs


def spans(r):
    """A rank's top-level Loom operations and the computation between them, in time order:
    (start, end, name, args) on the rank's clock."""
    ops = sorted(((x[0], x[0] + x[1], x) for x in r.recs if x[2] in TOP), key=lambda s: (s[0], -s[1]))
    return ops


def cpu_clock(samples):
    """The thread's CPU time at local time t, interpolated between samples
    ((time, cpu) sorted by time), as a function of t; None without samples.
    (One function for many t: the model's replay asks millions of times.)"""
    if not samples:
        return None
    ts = [t for t, _ in samples]
    cs = [c for _, c in samples]
    last = len(ts)
    bl = bisect.bisect_left

    def at(t):
        i = bl(ts, t)
        if i == 0:
            return cs[0] * t / ts[0] if ts[0] else cs[0]
        if i == last:
            return cs[-1]
        t0, t1 = ts[i - 1], ts[i]
        return cs[i - 1] + (cs[i] - cs[i - 1]) * (t - t0) / (t1 - t0) if t1 > t0 else cs[i]
    return at


def cpu_between(samples):
    """The thread's CPU time between local times a <= b (cpu_clock(b) -
    cpu_clock(a)) as a function of (a, b); None without samples.  Asked
    for consecutive gaps in time order, most pairs fall between the same two
    samples, and those take the segment's slope without a search."""
    at = cpu_clock(samples)
    if at is None:
        return None
    ts = [t for t, _ in samples]
    cs = [c for _, c in samples]
    last = len(ts)
    bl = bisect.bisect_left
    seg = [1, 0, 0.0]  # [start, end, slope] of the last segment used: none yet

    def between(a, b):
        if seg[0] <= a and b <= seg[1]:
            return (b - a) * seg[2]
        i = bl(ts, b)
        if 0 < i < last and ts[i - 1] <= a and ts[i] > ts[i - 1]:
            seg[0], seg[1], seg[2] = ts[i - 1], ts[i], (cs[i] - cs[i - 1]) / (ts[i] - ts[i - 1])
        return at(b) - at(a)
    return between


def name_of(x):
    t0, dur, ty, fl, th, a, b = x
    if ty == 1:
        return f"fault ({'write' if fl & 1 else 'read'})"
    if ty == 2:
        return {0: "barrier", 1: "barrier arrive", 2: "barrier wait"}.get(fl, "barrier")
    if ty == 3:
        return f"lock {a}" + (" (trylock failed)" if fl & 1 else "")
    if ty == 4:
        return f"unlock {a}"
    if ty == 6:
        return f"atomic {ATOMIC_OPS.get(b & 0xffff, b & 0xffff)}"
    return TYPES[ty]


def args_of(r, x):
    t0, dur, ty, fl, th, a, b = x
    if ty == 1:
        return {"page": a, "address": hex(r.base + a * r.page), "home": b & 0xffff, "pages fetched": b >> 32}
    if ty == 2:  # a subset's: its number among its set's barriers, and the set's key
        return {"barrier": a, "subset key": hex(b)} if b else {"barrier": a}
    if ty in (3, 4):
        return {"lock": a}
    if ty == 5:
        return {"page": a, "bytes": b & 0xffffffff, "runs": (b >> 32) & 0xffff, "home": b >> 48}
    if ty == 6:
        return {"address": hex(r.base + a), "op": ATOMIC_OPS.get(b & 0xffff, b & 0xffff), "home": b >> 48}
    if ty in (7, 8):
        return {"address": hex(r.base + a * r.page), "pages": b & ((1 << 56) - 1), "kind": KINDS.get(b >> 56, b >> 56)}
    if ty == 9:
        return {"pages dropped": a, "pages updated": b}
    if ty == 10:
        return {"homes taken": a}
    if ty == 15:
        kinds = {0: "invalidate", 1: "update", 2: "install", 3: "other"}
        k = (b >> 32) & 0xff
        return {"first page": a, "pages": b & 0xffffffff, "to rank": b >> 48,
                "kind": ("placement " if k & 4 else "") + kinds.get(k & 3, str(k & 3))}
    if ty == 16:
        return {"notices": a, "pages dropped": b & 0xffffffff, "pages refreshed": b >> 32}
    return {}


def view(ranks):
    """Chrome/Perfetto trace-event JSON (ts and dur in microseconds)."""
    origin = min(r.to_global(r.recs[0][0]) for r in ranks if r.recs)
    ev = []
    note = Progress("loom trace view")
    for r in ranks:
        note(f"rank {r.rank} of {len(ranks)}")
        pid = r.rank
        ev.append({"ph": "M", "name": "process_name", "pid": pid, "tid": 0,
                   "args": {"name": f"rank {r.rank} ({r.host})"}})
        ev.append({"ph": "M", "name": "process_sort_index", "pid": pid, "tid": 0, "args": {"sort_index": r.rank}})
        for th in sorted({0} | {x[4] for x in r.recs}):  # the rank's application threads, one track each
            ev.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": th, "args": {"name": f"thread {th}"}})
        g = lambda t: (r.to_global(t) - origin) / 1000.0
        samples = sorted((x[6], x[5]) for x in r.recs if x[2] == 11)
        out = []
        for x in r.recs:
            t0, dur, ty, fl, th, a, b = x
            if ty == 14:
                out.append({"ph": "C", "name": "pages", "pid": pid, "tid": th, "ts": g(t0),
                            "args": {"cached": a, "dirty": b}})
                continue
            if ty in (11, 12, 13, 17):  # samples, anchors, counts and byte runs: not operations
                continue
            if ty in (7, 8, 10, 15):
                out.append({"ph": "i", "s": "t", "name": name_of(x), "cat": TYPES[ty], "pid": pid, "tid": th,
                            "ts": g(t0), "args": args_of(r, x)})
                continue
            out.append({"ph": "X", "name": name_of(x), "cat": TYPES[ty], "pid": pid, "tid": th, "ts": g(t0),
                        "dur": g(t0 + dur) - g(t0), "args": args_of(r, x)})
        # The computation: the gaps between top-level operations.
        prev = None
        cpu_at = cpu_clock(samples) or (lambda t: None)
        for s, e, x in spans(r):
            if prev is not None and s > prev + 1000:
                c0, c1 = cpu_at(prev), cpu_at(s)
                args = {"wall us": round((s - prev) / 1000.0, 3)}
                if c0 is not None and c1 is not None:
                    args["cpu us (sampled)"] = round((c1 - c0) / 1000.0, 3)
                out.append({"ph": "X", "name": "compute", "cat": "compute", "pid": pid, "tid": 0, "ts": g(prev),
                            "dur": g(s) - g(prev), "args": args})
            prev = e if prev is None else max(prev, e)
        out.sort(key=lambda d: (d["ts"], -d.get("dur", 0)))
        ev += out
    note("the arrows")
    ev += flows(ranks, origin)
    note.done()
    meta = {"ranks": len(ranks), "clock bound us": max(r.bound_ns() for r in ranks) / 1000.0,
            "loom": ranks[0].build}
    return {"traceEvents": ev, "displayTimeUnit": "ns", "otherData": meta}


def handovers(ranks):
    """Each lock acquisition's releasing unlock: {(rank, lock record index):
    (rank, unlock record index)}, for every lock record that got the lock.
    The lock's record carries the hand-over value the releaser's unlock
    left (its rank, barrier epoch and release count; 0: none), so the
    releaser is an unlock of the same lock that left that value.  A value
    repeats only when its rank unlocked again without a release in between
    (or 256 barriers later), and then the acquisitions that got it and the
    unlocks that left it took turns: each unlock's rank had to get the lock
    back, from the holder the unlock before it handed it to, before
    unlocking again.  So they are matched in turn, acquisitions in the order
    they ended: each takes the first unlock not matched yet that started
    no later than its end (plus the clocks' bound), but none before an
    unlock that started, beyond doubt (the bound before its end), before
    it ended, since the lock left the acquisition's holder only after that
    (a rapid ping-pong within the clocks' bound: the latest unlock started
    before the end may be the turn after).  Without a value (LOOM_EXACT=0,
    a kept lock taken again, or no release yet in the epoch) it is the
    unlock of that lock that started last before the acquisition ended.
    Start, not end: an unlock's start comes before its hand-over, but its
    end may come long after the next holder has the lock (a rank
    descheduled between the two)."""
    bound = max(r.bound_ns() for r in ranks)
    by_value = defaultdict(list)  # (lock, value) -> [(global start, rank, index)]
    by_lock = defaultdict(list)  # lock -> [(global start, rank, index)]
    for r in ranks:
        for k, (t0, dur, ty, fl, th, a, b) in enumerate(r.recs):
            if ty == 4:
                u = (r.to_global(t0), r.rank, k)
                by_lock[a].append(u)
                if b:
                    by_value[(a, b)].append(u)
    for v in list(by_value.values()) + list(by_lock.values()):
        v.sort()
    inf = float("inf")
    out = {}
    gets = []  # (global end, rank, index, lock, value)
    for r in ranks:
        for k, (t0, dur, ty, fl, th, a, b) in enumerate(r.recs):
            if ty == 3 and not fl & 1:
                gets.append((r.to_global(t0 + dur), r.rank, k, a, b))
    gets.sort()
    used = defaultdict(set)  # (lock, value) -> indices in by_value matched
    for end, rank, k, a, b in gets:
        pick = None
        cands = by_value.get((a, b), []) if b else []
        if cands:
            hi = bisect.bisect_right(cands, (end + bound, inf, inf))  # may be its releaser
            lo = max(bisect.bisect_right(cands, (end - bound, inf, inf)) - 1, 0)  # surely before its end
            taken = used[(a, b)]
            j = next((i for i in range(lo, hi) if i not in taken), None)
            if j is None:
                j = max(hi - 1, 0)
            taken.add(j)
            pick = cands[j]
        else:
            cands = by_lock.get(a, [])
            j = bisect.bisect_right(cands, (end, inf, inf)) - 1
            pick = cands[j] if j >= 0 else None
        if pick is not None:
            out[(rank, k)] = pick[1:]
    return out


def flows(ranks, origin):
    """Arrows from the unlock that handed a lock over to the lock that got
    it (handovers(): by the hand-over value, or without one, LOOM_EXACT=0
    or a releaser with no release yet in the epoch, by time; the arrow's
    args say which).  And arrows from the rank that arrived last at a full
    barrier (its barrier's start) to every other rank's leaving it: what
    each rank waited for."""
    by_rank = {r.rank: r for r in ranks}
    out, n = [], 0
    for (rk, k), (src, uk) in sorted(handovers(ranks).items()):
        r = by_rank[rk]
        t0, dur, ty, fl, th, a, b = r.recs[k]
        if src == rk:
            continue
        end = r.to_global(t0 + dur)
        u0, _, _, _, u_th, _, _ = by_rank[src].recs[uk]
        u_start = by_rank[src].to_global(u0)
        n += 1
        out.append({"ph": "s", "id": n, "name": "lock hand-over", "cat": "lock", "pid": src, "tid": u_th,
                    "ts": (u_start - origin) / 1000.0, "args": {"matched by": "hand-over value" if b else "time"}})
        out.append({"ph": "f", "bp": "e", "id": n, "name": "lock hand-over", "cat": "lock", "pid": r.rank,
                    "tid": th, "ts": (end - origin) / 1000.0 - 1e-3})
    if len(ranks) < 2:
        return out
    bars = defaultdict(dict)  # barrier number -> rank -> (global start, global end, thread)
    for r in ranks:
        for t0, dur, ty, fl, th, a, b in r.recs:
            if ty == 2 and fl == 0:
                bars[a][r.rank] = (r.to_global(t0), r.to_global(t0 + dur), th)
    for num, per in sorted(bars.items()):
        if len(per) < 2:
            continue
        last = max(per, key=lambda rk: per[rk][0])
        s0, _, sth = per[last]
        for rk, (b0, b1, bth) in per.items():
            if rk == last or b1 < s0:  # (a leave before the last arrival: the clocks disagree; no arrow)
                continue
            n += 1
            out.append({"ph": "s", "id": n, "name": "barrier: last to arrive", "cat": "barrier", "pid": last,
                        "tid": sth, "ts": (s0 - origin) / 1000.0})
            out.append({"ph": "f", "bp": "e", "id": n, "name": "barrier: last to arrive", "cat": "barrier",
                        "pid": rk, "tid": bth, "ts": (b1 - origin) / 1000.0 - 1e-3})
    return out


def validate_view(v):
    """Trace-event rules: known phases, numeric ts, per track non-decreasing
    ts, and complete events properly nested (no partial overlap)."""
    errs = []
    tracks = defaultdict(list)
    for e in v["traceEvents"]:
        if e.get("ph") not in ("X", "i", "M", "C", "s", "f"):
            errs.append(f"unknown phase {e.get('ph')}")
        if e.get("ph") == "M":
            continue
        if not isinstance(e.get("ts"), (int, float)) or (e["ph"] == "X" and e.get("dur", -1) < 0):
            errs.append(f"bad ts/dur in {e}")
        if e["ph"] in ("s", "f"):
            continue  # flows join tracks; their ends are checked below
        tracks[(e["pid"], e["tid"])].append(e)
    ends = defaultdict(list)
    for e in v["traceEvents"]:
        if e.get("ph") in ("s", "f"):
            ends[e["id"]].append(e)
    slack = v.get("otherData", {}).get("clock bound us", 0) + 1e-3
    for i, pair in ends.items():
        by = {x["ph"]: x for x in pair}
        if len(pair) != 2 or set(by) != {"s", "f"}:
            errs.append(f"flow {i}: not one start and one finish")
        elif by["s"]["ts"] > by["f"]["ts"] + slack:
            errs.append(f"flow {i}: the hand-over starts {by['s']['ts'] - by['f']['ts']:.3f} us after the lock was got")
    for k, es in tracks.items():
        ts = [e["ts"] for e in es]
        if ts != sorted(ts):
            errs.append(f"track {k}: timestamps go backwards")
        stack = []
        for e in es:
            if e["ph"] != "X":
                continue
            while stack and stack[-1] <= e["ts"] + 1e-3:
                stack.pop()
            end = e["ts"] + e["dur"]
            if stack and end > stack[-1] + 1e-3:
                errs.append(f"track {k}: {e['name']} at {e['ts']:.3f} us overlaps the end of its enclosing event")
            stack.append(end)
    return errs


def summary(ranks):
    out = {"ranks": [], "top_fault_pages": [], "top_diff_pages": [], "locks": [], "barriers": {}}
    faults, diffbytes = defaultdict(lambda: [0, 0.0]), defaultdict(int)
    locks = defaultdict(lambda: [0, 0.0, 0.0])
    arrivals, exits = defaultdict(dict), defaultdict(dict)
    whole = defaultdict(dict)  # barrier number -> rank -> its record (loom_barrier, not split or group)
    inner = {}  # rank -> {5: diffs, 9: acquires} as sorted (start, end, thread)
    for r in ranks:
        tops = spans(r)
        first = r.recs[0][0] if r.recs else 0
        last = max((x[0] + x[1] for x in r.recs), default=0)
        wall = (last - first) / 1e9
        cat = defaultdict(float)
        for s, e, x in tops:
            cat[TYPES[x[2]]] += (e - s) / 1e9
        inside = sum(cat.values())
        cpu = [x[5] for x in r.recs if x[2] == 11]
        out["ranks"].append({"rank": r.rank, "host": r.host, "wall_s": wall,
                             **{f"{k}_s": v for k, v in sorted(cat.items())},
                             "compute_s": max(0.0, wall - inside),
                             "cpu_s": (cpu[-1] - cpu[0]) / 1e9 if len(cpu) > 1 else None,
                             "counts": {TYPES[t]: sum(1 for x in r.recs if x[2] == t) for t in TOP},
                             "notices_sent": sum(1 for x in r.recs if x[2] == 15),
                             "notices_received": sum(x[5] for x in r.recs if x[2] == 16),
                             "prefetched_pages": sum(x[6] & 0xffffffff for x in r.recs if x[2] == 19)})
        for x in r.recs:
            t0, dur, ty, fl, th, a, b = x
            if ty == 1:
                faults[a][0] += 1
                faults[a][1] += dur / 1e3
            elif ty == 5:
                diffbytes[a] += b & 0xffffffff
            elif ty == 3 and not fl & 1:
                locks[a][0] += 1
                locks[a][1] += dur / 1e3
                locks[a][2] = max(locks[a][2], dur / 1e3)
            elif ty == 2 and fl in (0, 1):  # (a subset's barriers apart: by their set's key too)
                arrivals[(b, a) if b else a][r.rank] = r.to_global(t0)
            if ty == 2 and fl in (0, 2):
                exits[(b, a) if b else a][r.rank] = r.to_global(t0 + dur)
            if ty == 2 and fl == 0:
                whole[a][r.rank] = x
        inner[r.rank] = {t: sorted((x[0], x[0] + x[1], x[4]) for x in r.recs if x[2] == t) for t in (5, 9)}
    base = ranks[0].base
    page_size = ranks[0].page
    out["top_fault_pages"] = [{"page": p, "address": hex(base + p * page_size), "faults": c, "us": round(us, 1)}
                              for p, (c, us) in sorted(faults.items(), key=lambda kv: -kv[1][0])[:10]]
    out["top_diff_pages"] = [{"page": p, "address": hex(base + p * page_size), "diff_bytes": n}
                             for p, n in sorted(diffbytes.items(), key=lambda kv: -kv[1])[:10]]
    out["locks"] = [{"lock": k, "acquisitions": c, "total_us": round(t, 1), "mean_us": round(t / c, 2),
                     "max_us": round(m, 1)} for k, (c, t, m) in sorted(locks.items(), key=lambda kv: -kv[1][1])[:10]]
    full = {k: v for k, v in arrivals.items() if len(v) == len(ranks)}
    if full:
        skews, last_count = [], defaultdict(int)
        for k, v in full.items():
            order = sorted(v.items(), key=lambda kv: kv[1])
            skews.append((order[-1][1] - order[0][1]) / 1e3)
            last_count[order[-1][0]] += 1
        skews.sort()
        worst = max(last_count.items(), key=lambda kv: kv[1])
        # Every rank leaves a barrier once the last has arrived: the spread
        # of the exits is what the clocks (and the wake-ups) disagree by.
        spread = sorted((max(v.values()) - min(v.values())) / 1e3 for v in exits.values() if len(v) == len(ranks))
        out["barriers"] = {"count": len(full), "median_skew_us": round(skews[len(skews) // 2], 1),
                           "max_skew_us": round(skews[-1], 1), "last_arriver": worst[0],
                           "last_arriver_times": worst[1],
                           "median_exit_spread_us": round(spread[len(spread) // 2], 1) if spread else None,
                           "max_exit_spread_us": round(spread[-1], 1) if spread else None,
                           "clock_bound_us": round(max(r.bound_ns() for r in ranks) / 1e3, 2)}
        anatomy = barrier_anatomy(ranks, whole, inner, arrivals, exits)
        if anatomy:
            out["barriers"]["last_arriver_us"] = anatomy
    out["fetches_by_home"] = fetches_by_home(ranks)
    out["fetches_cold"] = fetches_cold(ranks)
    out["fetches_after_barrier"] = fetches_after_barrier(ranks)
    return out


def config_value(ranks, key, default=""):
    """A LOOM_* setting of the traced run, from the trace's header."""
    for line in ranks[0].config.splitlines() if ranks else []:
        if line.startswith(key + "="):
            return line.split("=", 1)[1].split("#", 1)[0].strip()
    return default


def unit_pages(ranks):
    """The traced run's LOOM_UNIT_PAGES (its fetch window; 8 if unset or bad)."""
    try:
        return max(1, int(config_value(ranks, "LOOM_UNIT_PAGES", "8")))
    except ValueError:
        return 8


def first_fetch(seen, page, unit):
    """Whether a fetch of page is the rank's first into that aligned window
    of its cache (a cold fetch: the kernel gives the slots their memory, and
    the homes of the window's pages are not known yet); marks it seen."""
    w = page // unit
    if w in seen:
        return False
    seen.add(w)
    return True


def fetch_classes(got):
    """Per class of fetch durations (us): count, total and median."""
    return {k: {"fetches": len(v), "total_us": round(sum(v), 1),
                "median_us": round(sorted(v)[len(v) // 2], 1) if v else None} for k, v in got.items()}


def fetches_cold(ranks):
    """Faults that fetched from another rank, split by whether the fetch was
    the rank's first into its aligned window of LOOM_UNIT_PAGES pages of its
    cache (cold) or a fetch again after an invalidation."""
    unit = unit_pages(ranks)
    got = {"first": [], "again": []}
    for r in ranks:
        seen = set()
        for x in sorted(r.recs, key=lambda x: x[0]):
            if x[2] != 1 or (x[6] & 0xffff) == r.rank or not x[6] >> 32:
                continue
            got["first" if first_fetch(seen, x[5], unit) else "again"].append(x[1] / 1e3)
    return fetch_classes(got)


def fetches_after_barrier(ranks):
    """Faults that fetched from another rank, split by whether the fetch was
    the rank's first since it last left a barrier (a full barrier, or a
    split barrier's wait; the start of the run counts as one) or a later
    one."""
    got = {"first": [], "later": []}
    for r in ranks:
        fresh = True
        for x in sorted(r.recs, key=lambda x: x[0] + x[1]):  # by end: a fetch after the barrier it follows
            if x[2] == 2 and x[3] != 1:
                fresh = True
            elif x[2] == 1 and (x[6] & 0xffff) != r.rank and x[6] >> 32:
                got["first" if fresh else "later"].append(x[1] / 1e3)
                fresh = False
    return fetch_classes(got)


def fetches_by_home(ranks):
    """Faults that fetched from another rank, by what their home was doing
    at the fault's midpoint (global clock): inside a Loom operation (its
    application thread serves a request while it waits) or computing (its
    protocol thread serves it, across hosts).  Per class: count, total
    and median us."""
    tops = {r.rank: sorted((r.to_global(x[0]), r.to_global(x[0] + x[1])) for x in r.recs if x[2] in TOP)
            for r in ranks}
    ends = {k: list(accumulate((e for _, e in v), max)) for k, v in tops.items()}
    got = {"home_in_loom": [], "home_computing": []}
    for r in ranks:
        for x in r.recs:
            home = x[6] & 0xffff
            if x[2] != 1 or home == r.rank or not x[6] >> 32 or home not in tops:
                continue
            t = r.to_global(x[0] + x[1] // 2)
            i = bisect.bisect_right(tops[home], (t, float("inf"))) - 1
            got["home_in_loom" if i >= 0 and ends[home][i] >= t else "home_computing"].append(x[1] / 1e3)
    return fetch_classes(got)


def barrier_anatomy(ranks, whole, inner, arrivals, exits):
    """Where the last rank to arrive at a loom_barrier spends it (medians over
    the barriers every rank recorded, us): releasing (from its arrival to the
    end of its last diff), agreeing (to the start of its acquire: the
    diffs' acknowledgements and the collective), its acquire (dropping pages,
    prefetching), and after the acquire (the prefetch's second barrier);
    and how long after the last arrival the first rank left.  A barrier whose
    acquire changed nothing has no acquire record: its time after the
    release counts as agreeing.  The ranks' clocks agree within the summary's
    clock bound, which bounds the error of the last figure only."""
    parts = defaultdict(list)
    for k, v in whole.items():
        if len(v) != len(ranks) or len(exits.get(k, {})) != len(ranks):
            continue
        last = max(arrivals[k].items(), key=lambda kv: kv[1])[0]
        t0, dur, _, _, th, _, _ = v[last]
        end = t0 + dur

        def within(lst):
            i = bisect.bisect_left(lst, (t0, -1, -1))
            out = []
            while i < len(lst) and lst[i][0] <= end:
                if lst[i][2] == th and lst[i][1] <= end:
                    out.append(lst[i])
                i += 1
            return out

        diffs, acqs = within(inner[last][5]), within(inner[last][9])
        released = max((d[1] for d in diffs), default=t0)
        if acqs:
            a0, a1 = acqs[0][0], acqs[0][1]
        else:
            a0 = a1 = end
        parts["release"].append((released - t0) / 1e3)
        parts["agreement"].append((max(a0, released) - released) / 1e3)
        parts["acquire"].append((a1 - a0) / 1e3)
        parts["after_acquire"].append((end - a1) / 1e3)
        parts["total"].append(dur / 1e3)
        parts["first_exit_after_last_arrival"].append((min(exits[k].values()) - arrivals[k][last]) / 1e3)
        parts["with_acquire_record"].append(1 if acqs else 0)
    if not parts:
        return None
    med = lambda l: round(sorted(l)[len(l) // 2], 1)
    res = {k: med(l) for k, l in parts.items() if k != "with_acquire_record"}
    res["barriers"] = len(parts["total"])
    res["with_acquire_record"] = sum(parts["with_acquire_record"])
    return res


def print_summary(s):
    print("where the time went (seconds; the rest is the program's own computation):")
    cats = ["fault", "barrier", "lock", "unlock", "atomic"]
    print(f"{'rank':>5} {'host':>10} {'wall':>9} " + " ".join(f"{c:>9}" for c in cats) + f" {'compute':>9} {'cpu':>9}")
    for r in s["ranks"]:
        cpu = f"{r['cpu_s']:9.3f}" if r["cpu_s"] is not None else f"{'-':>9}"
        print(f"{r['rank']:>5} {r['host'][:10]:>10} {r['wall_s']:9.3f} " +
              " ".join(f"{r.get(c + '_s', 0.0):9.3f}" for c in cats) + f" {r['compute_s']:9.3f} {cpu}")
    if s["top_fault_pages"]:
        print("pages with the most faults: " + ", ".join(f"page {p['page']} ({p['address']}) {p['faults']}x {p['us']} us"
                                                       for p in s["top_fault_pages"][:5]))
    if s["top_diff_pages"]:
        print("pages with the most diff bytes: " + ", ".join(f"page {p['page']} {p['diff_bytes']} B"
                                                           for p in s["top_diff_pages"][:5]))
    if s["locks"]:
        print("hottest locks: " + ", ".join(f"lock {l['lock']}: {l['acquisitions']} acquisitions, {l['total_us']} us "
                                            f"(mean {l['mean_us']}, max {l['max_us']})" for l in s["locks"][:5]))
    f = s.get("fetches_by_home", {})
    if any(v["fetches"] for v in f.values()):
        w, c = f["home_in_loom"], f["home_computing"]
        print(f"fetches from another rank: {w['fetches']} while the home was in Loom (median {w['median_us']} us), "
              f"{c['fetches']} while it computed (median {c['median_us']} us, {c['total_us'] / 1e3:.1f} ms in all)")
        w, c = s["fetches_cold"]["first"], s["fetches_cold"]["again"]
        print(f"  of them {w['fetches']} the rank's first into their window (cold: median {w['median_us']} us, "
              f"{w['total_us'] / 1e3:.1f} ms in all), {c['fetches']} again (median {c['median_us']} us, "
              f"{c['total_us'] / 1e3:.1f} ms)")
        w, c = s["fetches_after_barrier"]["first"], s["fetches_after_barrier"]["later"]
        print(f"  {w['fetches']} the rank's first since it left a barrier (median {w['median_us']} us, "
              f"{w['total_us'] / 1e3:.1f} ms in all), {c['fetches']} later (median {c['median_us']} us, "
              f"{c['total_us'] / 1e3:.1f} ms)")
    pre = sum(r.get("prefetched_pages", 0) for r in s["ranks"])
    if pre:
        print(f"pages the barriers brought from other hosts' homes (their prefetch): {pre}, "
              + ", ".join(f"rank {r['rank']} {r['prefetched_pages']}" for r in s["ranks"] if r.get("prefetched_pages")))
    b = s["barriers"]
    if b:
        print(f"barriers: {b['count']}, arrival skew median {b['median_skew_us']} us, max {b['max_skew_us']} us; "
              f"rank {b['last_arriver']} arrived last {b['last_arriver_times']} times; the ranks left within "
              f"{b['median_exit_spread_us']} us of each other (median; clocks agree within {b['clock_bound_us']} us)")
        a = b.get("last_arriver_us")
        if a:
            print(f"the last rank to arrive at a loom_barrier (median us over {a['barriers']}): {a['total']} in it: "
                  f"{a['release']} releasing (its diffs), {a['agreement']} agreeing, {a['acquire']} in its acquire "
                  f"({a['with_acquire_record']} recorded), {a['after_acquire']} after it; the first rank left "
                  f"{a['first_exit_after_last_arrival']} us after the last arrived")


COLORS = {"compute": "#d9d9d9", "fault": "#d62728", "barrier": "#1f77b4", "lock": "#ff7f0e", "unlock": "#9467bd",
          "atomic": "#8c564b", "diff": "#2ca02c", "acquire": "#17becf"}


def timeline(ranks, out, window):
    import loom_plot
    plt = loom_plot.need_matplotlib()
    v = view(ranks)
    lo, hi = window if window else (None, None)
    fig, ax = plt.subplots(figsize=(11, 1.0 + 0.9 * len(ranks)))
    seen = set()
    for e in v["traceEvents"]:
        if e["ph"] != "X":
            continue
        ts, te = e["ts"] / 1e3, (e["ts"] + e["dur"]) / 1e3  # ms
        if lo is not None and (te < lo or ts > hi):
            continue
        c = e["cat"]
        nested = c in ("diff", "acquire")
        y = e["pid"] + (0.05 if nested else -0.4)
        h = 0.35 if nested else 0.8
        ax.broken_barh([(ts, max(te - ts, 1e-4))], (y, h), facecolors=COLORS.get(c, "#000000"),
                       label=c if c not in seen else None)
        seen.add(c)
    ax.set_yticks(range(len(ranks)))
    ax.set_yticklabels([f"rank {r.rank}\n{r.host}" for r in ranks], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("ms on the global clock (diffs and acquires drawn inside the operation that sent or did them)")
    if lo is not None:
        ax.set_xlim(lo, hi)
    b = ranks[0].build
    ax.set_title(f"Loom trace: {len(ranks)} ranks, Loom {b.get('version', '?')} ({b.get('commit', '?')})", fontsize=9)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1, 1))
    fig.tight_layout()
    if os.path.dirname(out):
        os.makedirs(os.path.dirname(out), exist_ok=True)
    fig.savefig(out, dpi=130)
    print(f"loom trace timeline: {out}")
    return 0


def sync_events(r):
    """A rank's synchronization events in order, and its byte runs tagged
    with the interval (the number of events before them) they were
    written in.  An event: (kind, key, global end ns, record index)."""
    ev, runs = [], []
    life = defaultdict(int)  # page -> frees seen: a run is compared only with runs of the same block life
    for k, (t0, dur, ty, fl, th, a, b) in enumerate(r.recs):
        end = r.to_global(t0 + dur)
        if ty == 2:  # a subset's barrier: keyed by its member set's key and its number among that set's
            ev.append((("barrier", "arrive", "wait")[fl], (b, a) if b else a, end, k))
        elif ty == 3 and fl == 0:
            ev.append(("lock", (a, b), end, k))
        elif ty == 4:
            ev.append(("unlock", (a, b), end, k))
        elif ty == 8:
            for q in range(a, a + (b & ((1 << 56) - 1))):
                life[q] += 1
        elif ty == 17:
            q = a // r.page
            runs.append((len(ev), a, a + (b & 0xffffffff), life[q], k))
    return ev, runs


def group_members(ranks):
    """The member set of each subset barrier key in the trace (a barrier
    record's b; docs/TRACE.md): the ranks that recorded it, since every
    member enters each of its set's barriers."""
    members = defaultdict(set)
    for r in ranks:
        for x in r.recs:
            if x[2] == 2 and x[6]:
                members[x[6]].add(r.rank)
    return {k: sorted(v) for k, v in members.items()}


def group_name(m):
    """A member list for people: 0-3, 5, 7-8."""
    out, i = [], 0
    while i < len(m):
        j = i
        while j + 1 < len(m) and m[j + 1] == m[j] + 1:
            j += 1
        out.append(str(m[i]) if i == j else f"{m[i]}-{m[j]}")
        i = j + 1
    return ", ".join(out)


def races(ranks):
    """Write-write races from the byte runs (LOOM_TRACE_RUNS=1), with vector
    clocks over the intervals between each rank's synchronization events:
    a barrier (and a split barrier's arrive and wait) orders its members'
    intervals before it against its members' after it (every rank's, but
    for a subset's: group_members); a lock's acquire is
    ordered after the unlock that handed it over (the unlock on that lock
    whose hand-over value it got, the latest one before it in global time).
    Two runs of different ranks that overlap, in the same life of their
    block, in intervals neither of which happens before the other, race."""
    n = len(ranks)
    evs, runs = {}, {}
    for r in ranks:
        evs[r.rank], runs[r.rank] = sync_events(r)
    if not any(line.startswith("LOOM_TRACE_RUNS=1") for line in ranks[0].config.splitlines()):
        return {"error": "this trace has no byte runs: run the program with LOOM_TRACE_RUNS=1 as well as LOOM_TRACE"}
    # Each lock event's releasing unlock: (rank, event index) or None.
    event_of = {(rk, e[3]): i for rk, ev in evs.items() for i, e in enumerate(ev)}
    # A subset's barriers (loom_barrier_subset, loom_barrier_arrive with a
    # list) wait for its members only: the ranks that recorded its key.
    members = group_members(ranks)
    needed = lambda key: len(members[key[0]]) if isinstance(key, tuple) else n
    src = {(rk, event_of[(rk, k)]): (u_rk, event_of[(u_rk, uk)])
           for (rk, k), (u_rk, uk) in handovers(ranks).items()}
    # The simulation: every rank advances through its events; a barrier
    # waits for every rank, a split barrier's wait for every arrive, a lock
    # for its unlock.  vc[r] is rank r's clock; start[r][i] its clock when
    # interval i began.
    vc = {r.rank: [0] * n for r in ranks}
    start = {r.rank: [[0] * n] for r in ranks}
    released = {}  # (rank, event index) -> clock at that release
    arrived = defaultdict(dict)  # ("barrier"|"arrive", number) -> {rank: clock}
    pos = {rk: 0 for rk in evs}
    merge = lambda x, y: [max(p, q) for p, q in zip(x, y)]
    note = Progress("loom trace races")
    total = sum(len(ev) for ev in evs.values())
    progress = True
    while progress:
        progress = False
        for rk, ev in evs.items():
            note(f"ordering: {sum(pos.values())} of {total} synchronization events")
            while pos[rk] < len(ev):
                i = pos[rk]
                kind, key, _, _ = ev[i]
                mine = vc[rk]
                if kind in ("barrier", "arrive"):
                    arrived[(kind, key)][rk] = list(mine)
                    if kind == "barrier":
                        if len(arrived[(kind, key)]) < needed(key):
                            break
                        for c in arrived[(kind, key)].values():
                            mine = merge(mine, c)
                elif kind == "wait":
                    got = arrived[("arrive", key)]
                    if len(got) < needed(key):
                        break
                    for c in got.values():
                        mine = merge(mine, c)
                elif kind == "unlock":
                    released[(rk, i)] = list(mine)
                elif kind == "lock":
                    s = src.get((rk, i))
                    if s is not None and s[0] != rk:
                        if s not in released:
                            break
                        mine = merge(mine, released[s])
                mine = list(mine)
                mine[rk] = i + 1
                vc[rk] = mine
                start[rk].append(mine)
                pos[rk] = i + 1
                progress = True
    stuck = {rk: evs[rk][pos[rk]][:2] for rk in evs if pos[rk] < len(evs[rk])}
    # Overlapping runs of different ranks, page by page.  A rank's clock
    # never goes back, so for a run of r1 in interval i1 the intervals of r2
    # that neither precede nor follow it form one window: those after the
    # last one i1's start knows of (start[r1][i1][r2]), and before the
    # first whose start knows i1 (start[r2][i2][r1] >= i1, found by
    # bisection).  Only runs in that window are compared, and the runs of
    # one rank's interval on a page are merged into disjoint ranges first:
    # a race's report keeps the first and last byte of the overlap anyway.
    by_page = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for rk, lst in runs.items():
        for (iv, lo, hi, life, k) in lst:
            if iv <= pos[rk]:  # intervals the simulation reached
                by_page[(lo // ranks[0].page, life)][rk][iv].append((lo, hi))
    knows = {}  # (a, b) -> [start[a][i][b] for every interval i of a]

    def column(a, b):
        c = knows.get((a, b))
        if c is None:
            c = knows[(a, b)] = [v[b] for v in start[a]]
        return c

    def merged(lst):
        lst.sort()
        out = [list(lst[0])]
        for lo, hi in lst[1:]:
            if lo <= out[-1][1]:
                out[-1][1] = max(out[-1][1], hi)
            else:
                out.append([lo, hi])
        return out

    def overlap(u, v):  # first and last byte shared by two sorted disjoint range lists, or None
        i = j = 0
        first = last = None
        while i < len(u) and j < len(v):
            lo, hi = max(u[i][0], v[j][0]), min(u[i][1], v[j][1])
            if lo < hi:
                first = lo if first is None else first
                last = hi
            if u[i][1] < v[j][1]:
                i += 1
            else:
                j += 1
        return None if first is None else (first, last)

    found = {}
    for done, ((page, life), per) in enumerate(by_page.items()):
        note(f"comparing: page {done} of {len(by_page)}")
        rks = sorted(per)
        ivs = {}
        for rk in rks:
            for iv in per[rk]:
                per[rk][iv] = merged(per[rk][iv])
            ivs[rk] = sorted(per[rk])
        for x in range(len(rks)):
            for y in range(x + 1, len(rks)):
                r1, r2 = rks[x], rks[y]
                after = column(r2, r1)
                for i1 in ivs[r1]:
                    u = per[r1][i1]
                    first = start[r1][i1][r2] + 1  # r2's intervals up to start[r1][i1][r2] come before i1
                    end = bisect.bisect_left(after, i1)  # from here on r2's intervals know i1
                    j = bisect.bisect_left(ivs[r2], first)
                    while j < len(ivs[r2]) and ivs[r2][j] < end:
                        i2 = ivs[r2][j]
                        j += 1
                        o = overlap(u, per[r2][i2])
                        if o is None:
                            continue
                        key = (page, r1, i1, r2, i2)
                        f = found.get(key)
                        if f is None:
                            found[key] = [o[0], o[1]]
                        else:
                            f[0], f[1] = min(f[0], o[0]), max(f[1], o[1])
    note.done()
    blocks = []
    for x in ranks[0].recs:
        if x[2] == 7:
            blocks.append((x[5], x[5] + (x[6] & ((1 << 56) - 1)), x[6] >> 56))
    base = ranks[0].base
    page = ranks[0].page

    def where(rk, iv):
        ev = evs[rk]
        def number(key):  # a subset's: its members, and its number among their barriers
            return f"ranks {group_name(members[key[0]])}: {key[1]}" if isinstance(key, tuple) else key
        name = lambda e: (f"barrier {number(e[1])}" if e[0] == "barrier" else
                          f"loom_barrier_arrive ({number(e[1])})" if e[0] == "arrive" else
                          f"loom_barrier_wait ({number(e[1])})" if e[0] == "wait" else f"loom_{e[0]}({e[1][0]})")
        after = name(ev[iv - 1]) if iv > 0 else "loom_init"
        before = name(ev[iv]) if iv < len(ev) else "loom_finalize"
        return {"rank": rk, "interval": iv, "after": after, "until": before}

    out = []
    for (pg, r1, i1, r2, i2), (lo, hi) in sorted(found.items(), key=lambda kv: (kv[1][0], kv[0])):
        blk = next(({"first byte": base + b0 * page, "bytes": (b1 - b0) * page, "kind": KINDS.get(kd, "?")}
                    for b0, b1, kd in blocks if b0 <= pg < b1), None)
        out.append({"address": base + lo, "bytes": hi - lo, "offset in block": base + lo - blk["first byte"] if blk else None,
                    "block": blk, "first": where(r1, i1), "second": where(r2, i2)})
    return {"races": out, "runs": sum(len(v) for v in runs.values()),
            "intervals": {rk: len(evs[rk]) + 1 for rk in evs}, "unordered": stuck}


def print_races(s):
    if "error" in s:
        print(f"loom trace races: {s['error']}")
        return
    for x in s["races"][:100]:
        b = x["block"]
        blk = (f" ({x['offset in block']} bytes into the {b['kind']} block of {b['bytes']} bytes at "
               f"{b['first byte']:#x})") if b else ""
        f, g = x["first"], x["second"]
        print(f"race: {x['bytes']} bytes at {x['address']:#x}{blk} written by rank {f['rank']} between "
              f"{f['after']} and {f['until']} and by rank {g['rank']} between {g['after']} and {g['until']}: "
              f"no barrier or lock chain orders the two")
    if len(s["races"]) > 100:
        print(f"... and {len(s['races']) - 100} more")
    if s["unordered"]:
        print(f"loom trace races: warning: the synchronization of some ranks could not be followed to the end "
              f"(waiting at {s['unordered']}); their later runs are not compared")
    print(f"loom trace races: {len(s['races'])} races in {s['runs']} byte runs")


def main(a):
    try:
        ranks = load(a.dir)
    except (OSError, ValueError) as e:
        print(f"loom trace: {e}", file=sys.stderr)
        return 2  # not 1: races exits 1 when it finds races
    if a.what == "races":
        s = races(ranks)
        if a.json:
            print(json.dumps(s, indent=1, default=str))
        else:
            print_races(s)
        return 2 if "error" in s else 1 if s["races"] else 0
    if a.what == "check":
        errs = check(ranks)
        for e in errs[:50]:
            print(f"loom trace check: {e}")
        n = sum(len(r.recs) for r in ranks)
        print(f"loom trace check: {len(ranks)} ranks, {n} records: " + ("valid" if not errs else f"{len(errs)} problems"))
        return 1 if errs else 0
    if a.what == "timeline":
        window = None
        if a.window:
            x, y = a.window.split(":")
            window = (float(x), float(y))
        return timeline(ranks, a.out or os.path.join(a.dir, "timeline.png"), window)
    if a.what == "view":
        v = view(ranks)
        errs = validate_view(v)
        out = a.out or os.path.join(a.dir, "trace.json")
        with open(out, "w") as f:
            json.dump(v, f)
        print(f"loom trace view: {out} ({len(v['traceEvents'])} events): open it in https://ui.perfetto.dev "
              f"or chrome://tracing")
        for e in errs[:20]:
            print(f"loom trace view: invalid: {e}", file=sys.stderr)
        return 1 if errs else 0
    s = summary(ranks)
    if a.json:
        print(json.dumps(s, indent=1))
    else:
        print_summary(s)
    return 0
