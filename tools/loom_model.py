"""`loom predict`: the performance model (docs/MODEL.md).

  predict DIR --platform P.json [--platform Q.json ...] [--hosts H | --ranks-per-host R]
          [--topology star|ring|torus:AxB[xC]|fattree:SPEC] [--compute cpu|wall] [--window A:B[,C:D...]] [--json]
      replay the trace a run with LOOM_TRACE=DIR wrote on a platform, with
      SimGrid: per rank the predicted time and where it goes (the
      breakdown LOOM_STATS gives), for the ranks placed R to a host.
  platform P.json [...]
      check platform files and print what they merge to.

A platform file (`loom_bench calibrate --platform P.json` writes one; the
networks of the papers are in share/loom/platforms) has a "node" part (CPU
and kernel costs), and an "inside_host" and/or a "between_hosts" part (the
network and Loom's costs around it).  Several files merge in order, each
later one replacing the keys it has.

Needs SimGrid's Python module (Debian: python3-simgrid; scripts/setup.sh
installs it as root).
"""
import bisect
import contextlib
import gc
import json
import math
import os
import sys
import tempfile
from collections import defaultdict, deque
from operator import itemgetter

import loom_trace as lt

# Synchronization in the trace (record types, docs/TRACE.md).
FAULT, BARRIER, LOCK, UNLOCK, DIFF, ATOMIC, ALLOC, FREE, ACQUIRE, CPU, SYNC, NOTICE, RESET, PREFETCH = \
    1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 15, 18, 19
CATEGORIES = ("compute", "fault", "barrier", "lock", "unlock", "atomic")
REQUEST_BYTES = 64   # a request message (fault, lock, atomic, acknowledgement)
COOL_MAX_EXP = 6     # src/sync.cpp kCoolMaxExp
DIFF_HEADER = 32     # per diff message, and 8 bytes per run of changed bytes (MPI RMA: a put of an indexed type)
PUT_RECORD_HEAD = 16  # requests (async, auto across hosts): a put record's head


def whole_barrier(x):
    """A record that ends a barrier of every rank: loom_barrier, or the
    wait of a split barrier without a member list (a subset's carries its
    set's key in b: docs/TRACE.md)."""
    return x[2] == BARRIER and x[3] != 1 and not x[6]


def import_simgrid():
    """SimGrid's module; Debian installs it for the system python3 only, so
    another python3 of the same version can use it from there, or this
    script runs again under /usr/bin/python3."""
    try:
        import simgrid  # noqa: F401
        return simgrid
    except ImportError:
        pass
    dist = "/usr/lib/python3/dist-packages"
    if os.path.isdir(dist) and any(f.startswith("simgrid.cpython-%d%d" % sys.version_info[:2]) for f in os.listdir(dist)):
        sys.path.append(dist)
        import simgrid
        return simgrid
    if os.path.exists("/usr/bin/python3") and os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3") \
            and not os.environ.get("LOOM_MODEL_REEXEC"):
        os.environ["LOOM_MODEL_REEXEC"] = "1"
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    raise SystemExit("loom predict: SimGrid's Python module is missing: install python3-simgrid "
                     "(apt-get install python3-simgrid; scripts/setup.sh does it as root)")


# ---------------------------------------------------------------- platforms

REQUIRED = {
    "node": ("trap_us", "memcpy_MBps", "diff_create_us_per_page", "diff_create_us_per_byte"),
    "net": ("latency_us", "bandwidth_MBps", "fetch_overhead_us", "barrier_us"),
}


# Loom's software costs around a network's messages, which a network file
# does not know.
LOOM_COSTS = ("fetch_overhead_us", "fetch_extra_page_us", "lock_us", "barrier_us", "compute_kernel_ms",
              "compute_kernel_bare_ms", "compute_kernel_ratio")


def merge(a, b):
    out = dict(a)
    for k, v in b.items():
        out[k] = merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def load_platform(paths):
    """The merged platform, and every problem with it (empty: usable)."""
    plat, errs = {}, []
    for p in paths:
        try:
            with open(p) as f:
                d = json.load(f)
        except (OSError, ValueError) as e:
            errs.append(f"{p}: {e}")
            continue
        if d.get("format") != "loom-platform 1":
            errs.append(f"{p}: not a Loom platform file (\"format\": \"loom-platform 1\" missing)")
            continue
        names = plat.get("names", [])
        plat = merge(plat, d)
        plat["names"] = names + [d.get("name", p)]
    # A network without Loom's own costs on it (a file of tools/platforms
    # over a calibration of one host) takes them from the calibration: the
    # fetch's handler and wait, the barrier's and lock's software.
    bh, ih = plat.get("between_hosts"), plat.get("inside_host")
    if bh is not None and ih is not None:
        kernel_own = "compute_kernel_ms" in bh
        for k in LOOM_COSTS:
            if k in ("compute_kernel_bare_ms", "compute_kernel_ratio") and kernel_own:
                continue  # (a kernel's time and its time without Loom come from one calibration)
            if k not in bh and k in ih:
                bh[k] = ih[k]
                plat.setdefault("borrowed", []).append(f"between_hosts.{k} from inside_host")
    if not errs:
        for k in REQUIRED["node"]:
            if not isinstance(plat.get("node", {}).get(k), (int, float)):
                errs.append(f"node.{k} is missing (merge a calibrated file: loom_bench calibrate)")
        if "inside_host" not in plat and "between_hosts" not in plat:
            errs.append("neither inside_host nor between_hosts is given")
        for sec in ("inside_host", "between_hosts"):
            for k in REQUIRED["net"]:
                if sec in plat and not isinstance(plat[sec].get(k), (int, float)):
                    errs.append(f"{sec}.{k} is missing")
            b = plat.get(sec, {}).get("burst_bytes")
            if b is not None and (not isinstance(b, (int, float)) or b < 0):
                errs.append(f"{sec}.burst_bytes is {b!r}: expected the token bucket's bytes (0: none)")
    return plat, errs


def parse_topology(spec, hosts):
    """(SimGrid cluster topology, its parameters, nodes) for a topology spec."""
    if spec in ("", "star", "switch"):
        return "FLAT", "", hosts
    if spec == "ring":
        return "TORUS", str(hosts), hosts
    if spec.startswith("torus:"):
        dims = [int(x) for x in spec[6:].lower().split("x")]
        n = math.prod(dims)
        if n < hosts:
            raise ValueError(f"torus {spec[6:]} has {n} nodes, fewer than the {hosts} hosts")
        return "TORUS", ",".join(map(str, dims)), n
    if spec.startswith("fattree:"):
        p = spec[8:]  # SimGrid's levels;down;up;parallel, e.g. 2;4,4;1,2;1,2
        try:
            down = [int(x) for x in p.split(";")[1].split(",")]
        except (IndexError, ValueError):
            raise ValueError(f"fattree:{p}: expected SimGrid's LEVELS;DOWN,...;UP,...;PARALLEL,... e.g. 2;4,4;1,2;1,2")
        n = math.prod(down)
        if n < hosts:
            raise ValueError(f"fat tree {p} has {n} nodes, fewer than the {hosts} hosts")
        return "FAT_TREE", p, n
    raise ValueError(f"topology {spec}: expected star, ring, torus:AxB[xC] or fattree:LEVELS;DOWN;UP;PARALLEL")


def platform_xml(plat, hosts, rph, topology, cores=0):
    """SimGrid's platform: one cluster of `hosts` nodes (more for a torus or
    fat tree with spare nodes), each with `rph` cores; links from the
    between-hosts figures; the loopback (ranks of one host) from the
    inside-host ones.  cores: beside it, one machine of that many cores at
    1e9 flop/s ("cpu-0"), which every rank's work runs on (predict's
    cores: an emulated cluster on one machine)."""
    kind, params, nodes = parse_topology(topology, hosts)
    net = plat.get("between_hosts") or plat["inside_host"]
    ins = plat.get("inside_host") or net
    hop = float(net.get("hop_latency_us", 0))
    # Star and fat tree: a neighbour's route is two links (up, down); torus: one.
    link_lat = hop / 2 if kind in ("FLAT", "FAT_TREE") else hop
    bw = link_bandwidth(net)
    stream = float(net["bandwidth_MBps"])
    sharing = "SPLITDUPLEX" if float(net.get("bandwidth_bidir_MBps", stream)) > 1.5 * stream else "SHARED"
    speed = 1e9 * float(plat["node"].get("cpu_speed", 1))
    loop_lat = float(ins.get("barrier_us", ins["latency_us"]))
    loop_bw = float(plat["node"]["memcpy_MBps"])
    topo = f' topology="{kind}"' + (f' topo_parameters="{params}"' if params else "")
    bb = f' bb_bw="{bw * nodes}MBps" bb_lat="0us"' if kind == "FLAT" else ""
    cluster = (f'  <cluster id="loom" prefix="node-" suffix="" radical="0-{nodes - 1}" speed="{speed}f" core="{rph}"'
               f' bw="{bw}MBps" lat="{link_lat}us" sharing_policy="{sharing}"{topo}{bb}'
               f' loopback_bw="{loop_bw}MBps" loopback_lat="{loop_lat}us"/>\n')
    if cores:  # (no route joins the two: nothing travels to the machine)
        cluster = (' <zone id="world" routing="Full">\n' + cluster +
                   f'  <cluster id="cpu" prefix="cpu-" suffix="" radical="0-0" speed="1e9f" core="{cores}"'
                   ' bw="1e6MBps" lat="0us"/>\n </zone>\n')
    return ("<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
            "<platform version=\"4.1\">\n" + cluster + "</platform>\n")


def fetch_without_bucket(net, fetch, sw):
    """The calibrated fetch's (overhead, extra page) us, less what its
    replies waited for tokens.  The calibration fetches 1,024 pages back to
    back (pagefetch), so behind a token bucket (burst_bytes) its link
    streamed, and each reply of S bytes took S at the streaming bandwidth
    where a message of its size costs what the ping-pong measured: the
    overhead (one page) and the extra page's cost (the rest of the
    window) were derived against the ping-pong and hold the difference.
    The replay's buckets (throttle) charge that wait where its links are
    busy, and an isolated fetch does not wait, so it is taken out here, in
    the share of the calibration's round of 1,024 pages (4 MiB; run_pagefetch
    in bench/dsm.cpp) that the bucket could not hold: a bucket that never
    runs dry made nothing wait."""
    bw, lat = link_bandwidth(net), float(net["latency_us"])
    rate = float(net["bandwidth_MBps"])
    unit = int(net.get("measured", {}).get("unit_pages", 8) or 8)
    page = 4096.0
    streamed = max(0.0, 1.0 - float(net.get("burst_bytes", 0) or 0) / (1024 * page))

    def wait(size):
        return streamed * max(0.0, size / rate - (sw(size) * 1e6 + lat + size / bw))
    over = max(0.0, fetch[0] - wait(page))
    extra = max(0.0, fetch[1] - (wait(unit * page) - wait(page)) / (unit - 1)) if unit > 1 else fetch[1]
    return over, extra


def curve_points(net):
    """The measured ping-pong curve (bytes, one-way us) when it belongs to
    the latency given: a network file merged over a calibrated one
    replaces the latency, and the calibrated curve no longer applies."""
    lat = float(net["latency_us"])
    pts = sorted((float(k), float(v)) for k, v in net.get("measured", {}).get("pingpong_us", {}).items()
                 if v is not None and float(k) > 0)
    return pts if pts and abs(pts[0][1] - lat) <= 0.01 * lat else []


def link_bandwidth(net):
    """MB/s of a link in SimGrid: the fastest rate the measured curves show
    (a rate-limited link lets a burst through at the wire's speed: tc's
    token bucket holds 2 ms of traffic), else the streaming bandwidth.  A
    message's own cost at its size comes from the ping-pong curve."""
    bw = float(net["bandwidth_MBps"])
    pts = curve_points(net)
    if pts:
        bw = max([bw] + [k / v for k, v in pts if v > 0] +
                 [float(v) for v in net.get("measured", {}).get("bandwidth_MBps", {}).values() if v])
    return bw


def message_curve(net):
    """One-way seconds of a message of S bytes between hosts, outside the
    links' share (hop latency, bytes at the link bandwidth), which SimGrid
    adds with contention: from the measured ping-pong curve where the
    platform has one (interpolated in log size), else the latency.  Where
    the links have a token bucket (burst_bytes), a message larger than it
    waits for tokens in the replay (throttle) as it did in the ping-pong:
    that wait, the bytes beyond the bucket at the streaming bandwidth, is
    the bucket's, not the message's own, and is not counted twice."""
    hop = float(net.get("hop_latency_us", 0))
    bw = link_bandwidth(net)
    lat = float(net["latency_us"])
    burst = float(net.get("burst_bytes", 0) or 0)
    rate = float(net["bandwidth_MBps"])

    def links(size):
        """Microseconds the model's links take for size bytes on an idle
        link with a full bucket: SimGrid's, or the bucket's if longer."""
        return max(size / bw, (size - burst) / rate if burst > 0 else 0.0)
    pts = curve_points(net)
    if not pts:
        return lambda size: max(0.0, lat - hop) * 1e-6
    xs = [math.log(max(k, 1.0)) for k, _ in pts]

    def f(size):
        x = math.log(max(size, 1.0))
        if x <= xs[0]:
            t = pts[0][1]
        elif x >= xs[-1]:
            t = pts[-1][1] + (size - pts[-1][0]) / float(net["bandwidth_MBps"])
        else:
            i = bisect.bisect_right(xs, x)
            w = (x - xs[i - 1]) / (xs[i] - xs[i - 1])
            t = pts[i - 1][1] + w * (pts[i][1] - pts[i - 1][1])
        return max(0.0, t - hop - links(size)) * 1e-6
    return f


# ---------------------------------------------------------------- the trace as operations

class Op:
    __slots__ = ("kind", "t0", "end", "rec", "nested", "compute", "ahead")

    def __init__(self, kind, rec, t0, end):
        self.kind, self.rec, self.t0, self.end = kind, rec, t0, end
        self.nested = ()     # records inside it (a list once it has any)
        self.compute = 0.0   # seconds of the program's own work before this operation
        self.ahead = ()      # a fault's windows fetched ahead along a stride with its own (plan_stride)


TOP = frozenset((FAULT, BARRIER, LOCK, UNLOCK, ATOMIC))


def rank_ops(r, compute_from):
    """A rank's operations, in order, each with the computation before it,
    and its nested records (diffs a release sent, the acquire inside, the
    pages a barrier's prefetch brought).
    Only the first application thread is replayed.  (Millions of records
    in a big trace: the loops below are written for speed.)"""
    recs = [x for x in r.recs if x[4] == 0]
    init = next((x for x in recs if x[2] == SYNC and x[3] == 0), None)
    fin = next((x for x in recs if x[2] == SYNC and x[3] == 1), None)
    if not init or not fin:
        raise ValueError(f"rank {r.rank}: the trace lacks the init or finalize record (run cut short?)")
    tops = [x for x in recs if x[2] in TOP or (x[2] in (ALLOC, FREE) and (x[6] >> 56) == 2)]
    # By start, the longer first (a trace is nearly in order already, and
    # starts rarely tie: the cheap sort, then the full one only on a tie).
    tops.sort(key=itemgetter(0))
    if len({x[0] for x in tops}) != len(tops):
        tops.sort(key=lambda x: (x[0], -x[1]))
    # Drop operations inside others (none expected at the top, but a fault
    # inside a lock's wait would be one).
    flat = []
    add = flat.append
    last_t0 = last_end = None
    for x in tops:
        t0 = x[0]
        end = t0 + x[1]
        if last_end is not None and end <= last_end and t0 >= last_t0:
            continue
        add(Op(x[2], x, t0, end))
        last_t0, last_end = t0, end
    starts = [o.t0 for o in flat]
    loose = []
    bisect_right = bisect.bisect_right
    for x in recs:
        if x[2] in (DIFF, ACQUIRE, NOTICE, PREFETCH):
            i = bisect_right(starts, x[0]) - 1
            if i >= 0 and x[0] + x[1] <= flat[i].end:
                o = flat[i]
                if o.nested:
                    o.nested.append(x)
                else:
                    o.nested = [x]
            else:
                loose.append(x)
    # Diffs sent outside any operation above (loom_release, a split
    # barrier's arrive): a release of their own.
    own = [x for x in loose if x[2] == DIFF]
    if own:
        for x in own:
            o = Op(0, x, x[0], x[0] + x[1])
            o.nested = [x]
            flat.append(o)
        flat.sort(key=lambda o: (o.t0, -o.end))
    samples = sorted((x[0], x[5]) for x in recs if x[2] == CPU)
    prev = init[0] + init[1]
    tail = Op(-1, fin, fin[0], fin[0] + fin[1])
    flat.append(tail)
    between = lt.cpu_between(samples) if compute_from == "cpu" and len(samples) >= 2 else None
    for o in flat:
        gap = o.t0 - prev
        if gap > 0:
            if between:
                c = between(prev, o.t0)
                o.compute = (gap if c > gap else c if c > 0 else 0.0) * 1e-9
            else:
                o.compute = gap * 1e-9
        if o.end > prev:
            prev = o.end
    return flat, (fin[0] - init[0] - init[1]) * 1e-9


# ------------------------------------------------------- the barrier prefetch

config_value = lt.config_value
first_fetch = lt.first_fetch


def plan_prefetch(ops, remote, unit, home_of):
    """What the barrier prefetch (LOOM_PREFETCH=1, HLRC pages homed on
    another host) would have done in this rank's run: the gap rule of
    protocol/core.cpp (note_fetched, hot_due, retire_prefetched,
    make_readable) run over the trace's fetches.  The trace comes from ranks
    that map each other (no prefetch in it), so every read of a page after
    it was dropped is a fetch in it.  Returns ({index of a barrier op: {home:
    pages pushed to this rank in it}}, {index of a fault op whose pages came
    with the barrier before it}, how many pushed pages were read).  remote(home) says whether a home is on
    another host in the prediction, home_of(page) its home where this
    rank's faults never fetched it (a fetch's window is one home's pages,
    as the runtime's fetchable() requires, so a page's push comes from
    the home of the fault that last fetched it); unit is
    LOOM_UNIT_PAGES (a fault's window: the trace gives the faulting page
    and how many were fetched, and the window is taken as the aligned one
    that holds it).  Acquires are counted at barriers and locks, as the
    runtime counts them; pages are assumed to have no valid copy when due
    (a hot page is one read again after it was dropped).  A pushed page
    whose last protected push was read is installed readable (install_pushed:
    three pushes in four): a fault of the trace that reads it in the
    interval it came in costs nothing (in `free`, not in the hits), and one
    in a later interval is a fetch whose gaps are taken to hold (kOpened in
    note_fetched).  Returns also `free`."""
    fetched_at, gap1, gap2 = {}, {}, {}
    fetched_from = {}  # page -> the home of the fault that last fetched it
    hot, late, pref = set(), set(), set()
    trust, opened = {}, {}  # page -> pushes left to install readable; page -> the acquire that installed it so
    acquires = 0
    pushes, hits, free = {}, set(), set()
    used = 0

    def forget(q):
        hot.discard(q)
        late.discard(q)
        fetched_at.pop(q, None)
        gap1.pop(q, None)
        gap2.pop(q, None)
        trust.pop(q, None)
        opened.pop(q, None)

    for i, o in enumerate(ops):
        x = o.rec
        if o.kind == FAULT:
            home, n = x[6] & 0xffff, x[6] >> 32
            p = x[5]
            if n == 0 or not remote(home):
                continue
            now = acquires + 1
            if p in pref:
                # A prefetched copy read: its window's prefetched pages open
                # with it, and the gap the prediction used is now the last.
                hits.add(i)
                lo = p - p % unit
                first, end = p, p + 1
                while first > lo and first - 1 in pref:
                    first -= 1
                while end < lo + unit and end in pref:
                    end += 1
                used += end - first
                for q in range(first, end):
                    pref.discard(q)
                    late.discard(q)
                    fetched_at[q] = now
                    gap1[q], gap2[q] = gap2.get(q, 0), gap1.get(q, 0)
                    trust[q] = 3
                continue
            if opened.get(p) == acquires:
                # Installed readable by this interval's barrier: no fault.
                free.add(i)
                lo = p - p % unit
                for q in range(lo, lo + unit):
                    if opened.get(q) == acquires:
                        del opened[q]
                continue
            lo = p - p % unit
            first = lo if lo + n > p else p + 1 - n
            for q in range(first, first + n):
                if q in pref:
                    continue
                trust.pop(q, None)
                if opened.pop(q, None) is not None:
                    # Its open copy's read was not seen: the gaps hold.
                    gap1[q], gap2[q] = gap2.get(q, 0), gap1.get(q, 0)
                elif fetched_at.get(q) and now > fetched_at[q]:
                    k = now - fetched_at[q]
                    g = k if k <= 64 else 0
                    repeats = g and (g == gap1.get(q, 0) or g == gap2.get(q, 0))
                    gap2[q], gap1[q] = gap1.get(q, 0), g
                    if repeats:
                        hot.add(q)
                    else:
                        hot.discard(q)
                fetched_at[q] = now
                fetched_from[q] = home
                late.discard(q)
        elif (o.kind == BARRIER and x[3] != 1) or (o.kind == LOCK and not x[3] & 1):
            acquires += 1
            for q in list(pref):
                # Prefetched and not read: late the first time, then cold.
                pref.discard(q)
                if q in hot and q not in late:
                    late.add(q)
                else:
                    forget(q)
            if not whole_barrier(x):  # (the runtime pushes at barriers of every rank only: loom_barrier)
                continue
            # Which hot pages are due at this acquire (the runtime's hot_due):
            # read gap-before-last after their last fetch, one later if late.
            at1 = acquires + 1
            want = []
            for q in hot:
                f = fetched_at.get(q)
                if not f:
                    continue
                if q in pref:
                    if q in late:
                        continue
                    lt_ = 1
                else:
                    lt_ = 1 if q in late else 0
                if at1 - f == gap2.get(q, 0) + lt_:
                    want.append(q)
            want.sort()
            if want:
                got = defaultdict(int)
                for q in want:
                    got[fetched_from.get(q, home_of(q))] += 1
                    if trust.get(q, 0) > 0:  # installed readable, as read
                        trust[q] -= 1
                        opened[q] = acquires
                        late.discard(q)
                        fetched_at[q] = at1
                        gap1[q], gap2[q] = gap2.get(q, 0), gap1.get(q, 0)
                        used += 1
                    else:
                        opened.pop(q, None)
                        pref.add(q)
                pushes[i] = dict(got)
    return pushes, hits, used, free


# ------------------------------------------- fetches along a stride

STRIDE_FIRST, STRIDE_MOST = 2, 16  # protocol/core.cpp kStrideFirst, kStrideMost: windows fetched ahead


def plan_stride(ops, remote, unit, skip, page_home):
    """What the runtime's fetches along a stride (LOOM_STRIDE=1, HLRC pages
    homed on another host: protocol/core.cpp, stride_note and stride_runs)
    would have done in this rank's run.  The trace comes from ranks that
    map each other, where a fault fetches its window alone; across hosts,
    after two equal steps in a row (windows W, W+s, W+2s of one home) a
    fault fetches the next windows along the step with its own in one get,
    2 of them, doubling up to 16 while the next fault lands just past
    them, and 2 again when the step breaks; not once the rank has taken a
    lock (a fetch then joins a copy-set).  The walk ahead stops at a window
    whose first page another rank homes or that no fault of the trace
    touched (the allocation's end is not in the trace).  Fetched-ahead
    windows stay valid until the rank's next acquire: a fault of the trace
    in one is no fault across hosts (a read) or a local write fault (a
    write).  skip: the faults the barrier prefetch already answers
    (plan_prefetch).  Returns ({index of a fault: the windows it fetches ahead},
    {index of a read fault answered so}, {index of a write fault answered
    so})."""
    streams = {}   # home -> [last window, step, next, same, depth]
    ahead = {}     # window -> its home: fetched ahead in this interval
    extra, reads, writes = {}, set(), set()
    got = []
    locks_seen = False
    for i, o in enumerate(ops):
        x = o.rec
        if o.kind == FAULT:
            home, n = x[6] & 0xffff, x[6] >> 32
            if i in skip or n == 0 or not remote(home):
                continue
            w = x[5] // unit
            if ahead.get(w) == home:
                (writes if x[3] & 1 else reads).add(i)
                continue
            if locks_seen:
                continue
            st = streams.setdefault(home, [-1, 0, -1, 0, STRIDE_FIRST])
            last, step, nxt, same, depth = st
            if same >= 2 and w == nxt:
                depth = min(2 * depth, STRIDE_MOST)
            elif last >= 0 and step != 0 and w - last == step:
                same = min(same + 1, 2)
            else:
                step = w - last if last >= 0 else 0
                same = 1 if step != 0 else 0
                depth = STRIDE_FIRST
            last, nxt = w, -1
            if same >= 2:
                walked = 0
                for k in range(1, depth + 1):
                    c = w + k * step
                    h = page_home.get(c * unit) if c >= 0 else None
                    if h != home:
                        break
                    walked = k
                    if ahead.get(c) != home:
                        ahead[c] = home
                        got.append(c)
                nxt = w + (walked + 1) * step
                if got:
                    extra[i] = got
                    got = []
            st[:] = [last, step, nxt, same, depth]
        elif (o.kind == BARRIER and x[3] != 1) or (o.kind == LOCK and not x[3] & 1):
            ahead.clear()
            locks_seen = locks_seen or o.kind == LOCK
    return extra, reads, writes


# ------------------------------------------------- each rank's preparation

class Prep:
    """One rank's share of the replay's preparation, independent of the
    other ranks': its operations (rank_ops), the barrier prefetch's plan
    (plan_prefetch, when unit is set; or the pushes the trace recorded,
    when recorded is set), and the schedule the replay takes:
    a fault that stays inside the rank's host is CPU work only, so it joins
    the next operation, its computation and its work added before that
    one's (the same times, summed in another order; in CG's 64-rank trace
    most operations are such faults).  Called with a
    rank, it returns (schedule, traced seconds, pushes, prefetch hits,
    pushed pages read); a schedule entry is (index in the rank's
    operations, op, computation s, fault work us before it)."""

    def __init__(self, ranks, rph, compute_from, unit, page_home, node, ins, homes_mode, cold_unit=8, recorded=False,
                 compute_of=None, stride_unit=0):
        self.ranks, self.rph, self.compute_from, self.unit = ranks, rph, compute_from, unit
        self.stride_unit = stride_unit  # windows of fetches along a stride (plan_stride; 0: none planned)
        self.compute_of = compute_of  # ranks of a plain trace of the same run whose computation to take (interval_compute)
        self.recorded = recorded
        self.page_home, self.homes_mode = page_home, homes_mode
        self.page_size = ranks[0].page or 4096
        self.memcpy = float(node["memcpy_MBps"])  # bytes per us
        self.trap_us = float(node["trap_us"])
        # The part of a fault's trap outside Loom's handler (the signal's
        # delivery and return) is not in the fault's record: the trace's
        # computation before the fault holds it, and the fault's price
        # (trap_us, a fetch's overhead) holds it again.  It comes out of
        # the computation.  (The traced machine's: a platform from this
        # machine's calibration has it; one without it takes nothing out.)
        self.trap_outside = float(node.get("trap_outside_us") or 0) * 1e-6
        self.fetch_in = (float(ins["fetch_overhead_us"]), float(ins.get("fetch_extra_page_us", 0)))
        self.cold_in = float(ins.get("fetch_cold_page_us") or 0)
        self.cold_unit = cold_unit
        self.seen = set()

    def local_fault_us(self, me, x, hit):
        """A fault's CPU work (us) when it stays inside the rank's host;
        None for a fetch across hosts (messages)."""
        home, fetched = x[6] & 0xffff, x[6] >> 32
        if hit:
            # Its pages came with the last barrier: the trap that opens the
            # prefetched copies.
            return self.trap_us
        if fetched == 0:
            if home == me and self.homes_mode:
                return 0.0
            return self.trap_us + (self.page_size / self.memcpy if x[3] & 1 and home != me else 0)
        if home // self.rph == me // self.rph:
            return self.fetch_in[0] + fetched * self.page_size / self.memcpy + (fetched - 1) * self.fetch_in[1] + \
                (fetched * self.cold_in if first_fetch(self.seen, x[5], self.cold_unit) else 0.0)
        return None

    def __call__(self, r):
        me, rph = r.rank, self.rph
        self.seen = set()
        ops, traced = rank_ops(r, self.compute_from)
        pushes, hits, used, free = {}, set(), 0, set()
        remote = {h: (h // rph) != (me // rph) for h in range(r.nranks)}  # homes on another host
        if self.unit:
            pushes, hits, used, free = plan_prefetch(ops, remote.get, self.unit,
                                                     lambda q, get=self.page_home.get: get(q, 0))
        if self.recorded:
            # A trace whose ranks did not map each other has its barriers'
            # prefetches in it (prefetch records inside the barrier): their
            # pages came in the barrier, and the faults that read them later
            # fetched nothing (each is a trap here).
            for i, o in enumerate(ops):
                if o.kind == BARRIER and o.nested:
                    for x in o.nested:
                        if x[2] == PREFETCH:
                            got = pushes.setdefault(i, {})
                            h = x[6] >> 48
                            got[h] = got.get(h, 0) + (x[6] & 0xffffffff)
        ahead_r = ahead_w = ()
        extra = {}
        if self.stride_unit:
            extra, ahead_r, ahead_w = plan_stride(ops, remote.get, self.stride_unit, hits | free, self.page_home)
            for i, k in extra.items():
                ops[i].ahead = k
        for o in ops:
            if o.kind == FAULT:
                o.compute = max(0.0, o.compute - self.trap_outside)
        if self.compute_of is not None:
            ref, _ = rank_ops(self.compute_of[me], self.compute_from)
            for o in ref:
                if o.kind == FAULT:
                    o.compute = max(0.0, o.compute - self.trap_outside)
            take_interval_compute(ops, interval_compute(ref), me)
        out = []
        comp = fus = 0.0
        for i, o in enumerate(ops):
            if o.kind == FAULT:
                if i in free or i in ahead_r:
                    w = 0.0
                elif i in ahead_w:
                    # Its window came ahead, read-only: the write's trap and twin.
                    w = self.trap_us + self.page_size / self.memcpy
                else:
                    w = self.local_fault_us(me, o.rec, i in hits)
                if w is not None:
                    comp += o.compute
                    fus += w
                    continue
            out.append((i, o, comp + o.compute, fus))
            comp = fus = 0.0
        return out, traced, pushes, len(hits), used, (len(extra), len(ahead_r) + len(ahead_w))


def interval_compute(ops):
    """A rank's computation (s) in each interval between its full barriers:
    before the first, between each two, after the last."""
    got = [0.0]
    for o in ops:
        got[-1] += o.compute or 0.0
        if whole_barrier(o.rec):
            got.append(0.0)
    return got


def take_interval_compute(ops, want, rank):
    """Scale the computation of each interval between full barriers of ops
    to want's (interval_compute of a plain trace of the same run).  A trace
    taken with LOOM_TRACE_HOMES, which `loom place` needs, makes every home
    page fault once an interval; each such trap leaves more in the traced
    computation than the calibrated trap outside the handler takes out
    (about 1 us a fault: docs/MODEL.md, "Placement from the reference
    pattern"), and a replay of the placed run would keep it.  The plain
    trace has the same barriers and none of those faults: its intervals'
    computation is the run's, and the homes trace keeps the pattern (which
    rank touches which page when)."""
    have = interval_compute(ops)
    if len(have) != len(want):
        raise ValueError(f"rank {rank}: the trace of --compute-of has {len(want) - 1} full barriers where the replayed "
                         f"trace has {len(have) - 1} (another program or input?)")
    j, last = 0, None
    for o in ops:
        if have[j] > 0:
            o.compute = (o.compute or 0.0) * want[j] / have[j]
        last = o
        if whole_barrier(o.rec):
            if have[j] <= 0 < want[j]:
                o.compute = want[j]  # none traced here: all of it before the interval's barrier
            j += 1
    if last is not None and have[j] <= 0 < want[j]:
        last.compute = want[j]


_PREP = None  # the Prep that forked workers run (inherited, not pickled)


def _prep_rank(i):
    return _PREP(_PREP.ranks[i])


def prepare(prep):
    """prep over every rank, in forked processes, one a core (at most 16;
    LOOM_TOOL_JOBS sets how many, 1 none): a 64-rank trace holds millions
    of records.  The results come back in rank order."""
    ranks = prep.ranks
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 1
    try:
        jobs = int(os.environ.get("LOOM_TOOL_JOBS") or min(cores, 16))
    except ValueError:
        raise ValueError(f"LOOM_TOOL_JOBS={os.environ['LOOM_TOOL_JOBS']}: expected a number of processes")
    jobs = min(jobs, len(ranks))
    # Millions of records and operations, none of them in a cycle: the
    # collector's passes over them as they grow (here and in unpickling the
    # workers' results) were a third of the preparation's time.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _prepare(prep, jobs)
    finally:
        if collecting:
            gc.enable()


def _prepare(prep, jobs):
    global _PREP
    ranks = prep.ranks
    if jobs >= 2:
        import multiprocessing
        try:
            ctx = multiprocessing.get_context("fork")
        except ValueError:  # no fork here: one process
            ctx = None
        if ctx is not None:
            _PREP = prep
            try:
                with ctx.Pool(jobs) as pool:
                    return pool.map(_prep_rank, range(len(ranks)), chunksize=max(1, len(ranks) // (4 * jobs)))
            except OSError:  # no processes or semaphores to be had here: one process
                pass
            finally:
                _PREP = None
    return [prep(r) for r in ranks]


# ---------------------------------------------------------------- the replay

def pin_to_one_cpu():
    """Keep this thread, and the threads it starts, on the CPU it runs on
    now (the scheduler's choice: replays in processes side by side land
    apart); LOOM_TOOL_PIN=0 leaves them free.  Returns the CPUs it was
    allowed before, to give back, or None where nothing was pinned."""
    if os.environ.get("LOOM_TOOL_PIN", "1") == "0" or not hasattr(os, "sched_setaffinity"):
        return None
    try:
        allowed = os.sched_getaffinity(0)
        with open("/proc/thread-self/stat") as f:
            cpu = int(f.read().rsplit(")", 1)[1].split()[36])  # field 39, "processor"
        if len(allowed) < 2 or cpu not in allowed:
            return None
        os.sched_setaffinity(0, {cpu})
        return allowed
    except (OSError, ValueError, IndexError):
        return None


@contextlib.contextmanager
def on_one_cpu():
    """pin_to_one_cpu for the block, the CPUs given back after it."""
    pinned = pin_to_one_cpu()
    try:
        yield
    finally:
        if pinned:
            os.sched_setaffinity(0, pinned)


def predict(ranks, plat, rph, topology, compute_from="cpu", window=None, prefetch="auto", reuse=True, keep=True,
            compute_of=None, cores=0, stride=True):
    """The replay.  window=(A, B): also the time from leaving full barrier A
    to leaving full barrier B (1 is the first; B <= 0 counts from the last:
    0 is the last), predicted and traced, with its breakdown: a program's
    timed part, whose first and last barriers these usually are.  A list
    of such pairs: each of them ("windows" in the result; the first also
    as before), e.g. a program's phases, step by step.
    prefetch: the barrier prefetch of pages homed on other hosts (plan_prefetch)
    "on", "off", or "auto": on where the traced run had none (its ranks on
    one host, mapping each other) and asked for none to be off (LOOM_PREFETCH,
    LOOM_PROTOCOL hlrc).  A traced run that had its own (ranks on several
    hosts) recorded each barrier's pages: they are replayed as that
    barrier's push unless prefetch is "off" ("trace" in the result).
    reuse: a barrier's push whose pattern (which rank gets how many pages
    from which home) SimGrid has already timed takes the times it took then
    instead of being simulated again (pushes_timed and pushes_reused in the
    result; False simulates every one).
    compute_of: the ranks of a plain trace of the same run (no
    LOOM_TRACE_HOMES), whose computation each interval between full
    barriers takes (take_interval_compute).
    stride: model the runtime's fetches along a stride across hosts where
    the traced run had none (plan_stride; the default); False prices each
    traced fault as the fetch of its own window, as before 2026-12-07
    (docs/MODEL.md, "Fetches along a stride in the replay").
    cores: the hosts share that many cores (an emulated cluster on one
    machine, scripts/cluster.sh): every rank's work (its computation and
    Loom's) takes its turn on them, SimGrid sharing them among the ranks
    working at once; 0, every rank has a core of its own.  A rank waiting
    in Loom takes no core here (the runtime's waits yield and nap where
    the cores are taken)."""
    sg = import_simgrid()
    n = ranks[0].nranks
    hosts = (n + rph - 1) // rph
    # LOOM_TRACE_HOMES makes a home's first access to each of its pages in
    # every barrier interval fault, for `loom place`; a run without it has
    # none of those traps, so they cost nothing here.
    homes_mode = any(line.startswith("LOOM_TRACE_HOMES=1") for line in ranks[0].config.splitlines())
    page_home = {}
    for r in ranks:
        for x in r.recs:
            if x[2] == FAULT:
                page_home.setdefault(x[5], x[6] & 0xffff)
            elif x[2] == DIFF:
                page_home.setdefault(x[5], x[6] >> 48)
    page_size = ranks[0].page or 4096
    recorded = prefetch != "off"   # (asked for: "auto" may turn the planned one off below)
    if prefetch == "auto":
        one_host = len({r.host for r in ranks}) == 1 and config_value(ranks, "LOOM_LOCAL_MAP", "1") != "0"
        prefetch = "on" if (one_host and config_value(ranks, "LOOM_PREFETCH", "1") != "0"
                            and config_value(ranks, "LOOM_PROTOCOL", "hlrc") == "hlrc") else "off"
    cold_unit = lt.unit_pages(ranks)  # the window a rank's first fetch into is cold (fetch_cold_page_us)
    unit = cold_unit if prefetch == "on" else 0
    # Fetches along a stride, where the traced run had none (its ranks
    # mapped each other) and the runtime would across hosts (plan_stride).
    stride_unit = cold_unit if (stride and len({r.host for r in ranks}) == 1
                                and config_value(ranks, "LOOM_LOCAL_MAP", "1") != "0"
                                and config_value(ranks, "LOOM_STRIDE", "1") != "0"
                                and config_value(ranks, "LOOM_ADAPT", "0") == "0"
                                and config_value(ranks, "LOOM_PROTOCOL", "hlrc") == "hlrc") else 0
    node = plat["node"]
    # How a diff crosses hosts: as put records in requests (LOOM_TRANSPORT
    # auto or async, the default) or as one MPI_Put a page (rma).
    request_diffs = config_value(ranks, "LOOM_TRANSPORT", "auto") != "rma"
    # A job of 2 ranks on 2 hosts agrees by rows at a full barrier (sync.cpp,
    # sync_barrier_by_rows): its release's diffs go unacknowledged, the row
    # telling the home how many batches to apply before it leaves.
    rows_late = request_diffs and n == 2 and hosts > 1 and config_value(ranks, "LOOM_PREFETCH", "1") != "gets"
    net = plat.get("between_hosts") or plat["inside_host"]
    ins = plat.get("inside_host") or net
    # ops[rank]: the schedule (Prep): every operation but the faults that
    # stay inside the host, by its index among the rank's operations.
    ops, traced, pushes, hits, used, strided = {}, {}, {}, {}, {}, {}
    if compute_of is not None and len(compute_of) != n:
        raise ValueError(f"the trace of --compute-of has {len(compute_of)} ranks, the replayed trace {n}")
    for r, got in zip(ranks, prepare(Prep(ranks, rph, compute_from, unit, page_home, node, ins, homes_mode, cold_unit,
                                          recorded, compute_of, stride_unit))):
        ops[r.rank], traced[r.rank], pushes[r.rank], hits[r.rank], used[r.rank], strided[r.rank] = got
    if prefetch != "on" and any(pushes.values()):
        prefetch = "trace"
    # Collective allocations synchronize like a barrier only when every
    # rank has them alike.
    counts = {tuple(o.kind for _, o, _, _ in ops[k] if o.kind in (ALLOC, FREE)) for k in ops}
    collective = len(counts) == 1
    bars = {sum(1 for _, o, _, _ in ops[k] if whole_barrier(o.rec)) for k in ops}
    if len(bars) != 1:
        raise ValueError("the ranks took different numbers of barriers of every rank (not one run's trace?)")
    nbars = bars.pop()
    wins = [] if not window else [window] if isinstance(window[0], int) else list(window)
    for j, (wa, wb) in enumerate(wins):
        w0 = (wa, wb)
        wb = nbars + wb if wb <= 0 else wb
        if not 1 <= wa < wb <= nbars:
            raise ValueError(f"window {w0[0]}:{w0[1]}: the run has {nbars} full barriers (A < B, 1-based; B <= 0 counts from the last)")
        wins[j] = (wa, wb)
    window = wins[0] if wins else None
    marked = {i for w in wins for i in w}
    marks = defaultdict(dict)
    # The program's measured region (loom_stats_reset, where LOOM_STATS's
    # wall time starts again; the suite resets right after a barrier): from
    # leaving the last full barrier before the reset to the end, on every
    # rank that has one (the last reset of thread 0).
    region = {}
    for r in ranks:
        resets = [x[0] for x in r.recs if x[2] == RESET and x[4] == 0]
        if resets:
            fin = next(x for x in r.recs if x[2] == SYNC and x[3] == 1)
            before = sum(1 for x in r.recs if whole_barrier(x) and x[4] == 0 and x[0] + x[1] <= resets[-1])
            region[r.rank] = (before, (fin[0] - resets[-1]) * 1e-9)
    if len(region) != n or len({b for b, _ in region.values()}) != 1:
        region = {}
    region_bar = next(iter(region.values()))[0] if region else 0
    if region_bar:
        marked.add(region_bar)

    # Each barrier's push, every rank's at once, by its number among the
    # barriers (the ranks take them in the same order): its pattern, the
    # sorted (rank, ((home, pages), ...)) of every rank pushed to across
    # hosts.  All ranks leave a barrier together and every push of it ends
    # before any rank can leave the next one, so a pattern seen again meets
    # the links as it did then: SimGrid times the first of each pattern,
    # and the rest take its times (CG at 96 ranks has 4 patterns in 1,248
    # barriers of ~2,700 transfers each; simulating each was the replay's
    # time: over 50 minutes on a ring).  What differs: transfers of other
    # ranks' faults that met the first push, not a later one.
    patterns = defaultdict(list)
    push_at = {k: {} for k in ops}  # rank -> {op index of a pushing barrier: its barrier number}
    if any(pushes.values()):
        for k in ops:
            j = 0
            for i, o, _, _ in ops[k]:
                if whole_barrier(o.rec) or (o.kind in (ALLOC, FREE) and collective):
                    j += 1
                    got = pushes[k].get(i) if o.kind == BARRIER else None
                    comms = tuple(sorted((h, c) for h, c in (got or {}).items() if (h // rph) != (k // rph)))
                    if comms:
                        patterns[j].append((k, comms))
                        push_at[k][i] = j
    pattern_of = {j: tuple(sorted(v)) for j, v in patterns.items()}
    push_times = {}          # pattern -> {rank: seconds its push took}
    push_count = {"timed": 0, "reused": 0}

    xml = platform_xml(plat, hosts, rph, topology, cores)
    with tempfile.NamedTemporaryFile("w", suffix=".xml", delete=False) as f:
        f.write(xml)
        xml_path = f.name
    e = sg.Engine(["loom-model", "--cfg=network/model:CM02", "--cfg=network/crosstraffic:0",
                   "--log=root.thres:critical", "--cfg=contexts/stack-size:256"])
    e.load_platform(xml_path)
    os.unlink(xml_path)
    cpu = float(node.get("cpu_speed", 1))
    us = 1e-6
    memcpy = float(node["memcpy_MBps"])  # bytes per us
    sw = message_curve(net)
    host_of = lambda k: k // rph
    hobj = [e.host_by_name(f"node-{h}") for h in range(hosts)]
    machine = e.host_by_name("cpu-0") if cores else None
    # The computation: the trace's spans, at the node's CPU speed, and
    # scaled by what running Loom costs the calibration kernel on the
    # platform predicted against the one the trace ran on (ranks of one
    # host or across hosts): what sharing cores and memory with Loom's and
    # MPI's threads costs there.  Where both calibrations timed the kernel
    # without Loom too, the ratio of the two slowdowns (each measured
    # within one calibration run: compute_kernel_ratio, the median of
    # rounds that alternate the two, or the ratio of the two medians in
    # older files); else the ratio of the kernel's times, which carries the
    # machine's drift between the calibrations.
    traced_sec = plat.get("inside_host") if len({r.host for r in ranks}) == 1 else plat.get("between_hosts")
    target_sec = ins if rph >= n else net

    def kernel(sec, key):
        v = (sec or {}).get(key)
        return float(v) if v else None

    k_t, k_p = kernel(traced_sec, "compute_kernel_ms"), kernel(target_sec, "compute_kernel_ms")
    b_t, b_p = kernel(traced_sec, "compute_kernel_bare_ms"), kernel(target_sec, "compute_kernel_bare_ms")
    r_t, r_p = kernel(traced_sec, "compute_kernel_ratio"), kernel(target_sec, "compute_kernel_ratio")
    if r_t and r_p:
        scale = r_p / r_t   # each the median of its calibration's alternating rounds
    elif k_t and k_p and b_t and b_p:
        scale = (k_p / b_p) / (k_t / b_t)
    else:
        scale = k_p / k_t if k_t and k_p else 1.0
    locks = defaultdict(lambda: {"holder": None, "queue": deque(), "keeper": None})
    # Kept locks (src/sync.cpp): across hosts a rank that unlocks a lock
    # homed on another host with nobody queued keeps it, and takes it again
    # with no message; another rank's take kicks it.  A keep given up by a
    # kick before any re-take was wasted: 2^b (b up to 6) unlocks keep nothing.
    kept_by = defaultdict(set)
    backoff, cool, useful = defaultdict(int), {}, {}
    retaken, kicked = defaultdict(int), defaultdict(int)   # per rank: as LOOM_STATS locks_kept, and kicks sent
    lone = defaultdict(int)  # per rank: takes of locks nobody else takes that asked their home across hosts
    via_home = defaultdict(int)  # per rank: lock takes that asked a home on another host (lone ones too)

    def one_way(src, dst):
        """A small message's time from rank src to rank dst (0 inside a host)."""
        ha, hb = host_of(src), host_of(dst)
        if ha == hb:
            return 0.0
        lat, bw = route(ha, hb)
        return sw(REQUEST_BYTES) + lat + REQUEST_BYTES / bw
    # Locks only one rank ever takes cannot be contended: theirs is local work.
    takers = defaultdict(set)
    for k in ops:
        for _, o, _, _ in ops[k]:
            if o.kind == LOCK:
                takers[o.rec[5]].add(k)
    acct = {k: defaultdict(float) for k in ops}
    pend = defaultdict(float)
    idle = defaultdict(float)  # where the cores are shared: a wait due before the pending work (later)
    finish = {}

    # Who serves a request across hosts (src/transport/async.cpp): a home
    # inside Loom (waiting for a fetch, a lock, a barrier) serves it on its
    # application thread at once; a home that computes leaves it to its
    # protocol thread, which has to wake from a nap or be scheduled beside
    # the computation.  The calibration measures that wait
    # (between_hosts.serve_wake_us: pagefetch_busy_home_random's fetches
    # less an idle home's), and every request that reaches a computing home waits
    # as long, or until the home's computation ends.  No shorter wait for
    # a request right after another: on 2 shared cores one after 30 us of
    # computation waited longer than one after 3 ms
    # (pagefetch_busy_home_after; docs/MODEL.md, "Requests to a computing
    # home").  busy[k]: the span of rank k's own work now running (its
    # computation; not the waits in Loom before it, loom_until[k]).
    wake_s = float(net.get("serve_wake_us") or 0) * us if hosts > 1 else 0.0
    # Each further page of a fetch that finds its home computing: a large
    # get moves as that home's protocol thread polls MPI (the calibration's
    # 128-page window after long stretches of computation; none in a
    # platform from before 2026-12-07).
    busy_page_s = float(net.get("fetch_busy_page_us") or 0) * us if hosts > 1 else 0.0
    # A lock another rank keeps (between_hosts.lock_kick_us, the
    # calibration's alternating lock): what taking it from the keeper
    # costs in all; without it, the messages and the serving waits.
    kick_s = float(net.get("lock_kick_us") or 0) * us if hosts > 1 else 0.0
    # A free lock whose home is on another host (between_hosts.lock_home_us,
    # the calibration's take through the other rank's home while that
    # rank's application thread is outside Loom): what the take costs in
    # all, the home's serving included, at least the messages' round trip;
    # without it, the messages and the serving wait.
    home_lock_s = float(net.get("lock_home_us") or 0) * us if hosts > 1 else 0.0
    busy = defaultdict(lambda: (0.0, 0.0))
    loom_until = defaultdict(float)
    waits = {"requests": 0, "seconds": 0.0}

    def serve_wait(src, home, t):
        """Seconds a request from rank src reaching rank `home` at time t
        waits to be served (none inside a host: its ranks map each other)."""
        a, b = busy[home]
        if not wake_s or host_of(src) == host_of(home) or not a <= t < b:
            return 0.0
        wait = min(wake_s, b - t)  # its computation ends first: the application thread serves
        waits["requests"] += 1
        waits["seconds"] += wait
        return wait

    # The rank's own CPU work (the program's computation, Loom's trap,
    # copies, diffs, handler) is gathered and run on its host's core in
    # one go before the rank next meets another (a message, a lock's state,
    # a barrier): the same times, far fewer simulation steps.
    def work(me, t_us, cat):
        if t_us > 0:
            t = t_us * us / cpu
            pend[me] += t
            acct[me][cat] += t

    def later(me, t):
        """A wait of t seconds before the rank's gathered work (a barrier's
        rest): as work where every rank has a core (one sleep times both),
        apart where the cores are shared (the wait takes none)."""
        if machine is None:
            pend[me] += t
        else:
            idle[me] += t

    def flush(me, then=0.0):
        """Run the gathered work, then wait `then` seconds more, in one step
        (every rank has a core of its own: a host has a core per rank, so
        its work never waits for the CPU and a sleep times it exactly).
        Where the hosts share `cores`, the waits first, then the work on
        the shared machine, then `then`."""
        if machine is not None:
            if idle[me] > 0:
                sg.this_actor.sleep_for(idle[me])
            idle[me] = 0.0
            start, w = e.clock, pend[me]
            pend[me] = 0.0
            # (Its span as others see it meanwhile: the end is known once
            # the shared cores have run it.)
            busy[me] = (max(start, loom_until[me]), start + w)
            if w > 0:
                sg.this_actor.set_host(machine)
                sg.this_actor.execute(w * 1e9)
                sg.this_actor.set_host(hobj[host_of(me)])
                busy[me] = (busy[me][0], e.clock)
            if then > 0:
                sg.this_actor.sleep_for(then)
            return
        t = pend[me] + then
        now = e.clock
        busy[me] = (max(now, loom_until[me]), now + pend[me])
        pend[me] = 0.0
        if t > 0:
            sg.this_actor.sleep_for(t)

    routes = {}

    def route(ha, hb):
        """(latency s, narrowest bandwidth B/s) of the route between two hosts."""
        if (ha, hb) not in routes:
            links, lat = hobj[ha].route_to(hobj[hb])
            routes[(ha, hb)] = (lat, min((l.bandwidth for l in links), default=memcpy * 1e6))
        return routes[(ha, hb)]

    # A rate-limited link (between_hosts.burst_bytes: a token bucket, as tc
    # makes on the emulated cluster's ports, `scripts/cluster.sh links`):
    # tokens come at the sustained rate (bandwidth_MBps) up to the bucket's
    # bytes; a transfer takes what it can from the bucket of the sender's
    # port and of the receiver's, and its bytes beyond that pass at the
    # sustained rate, after the bytes queued there before them.  SimGrid's
    # links carry the burst rate (the calibrated curves' fastest), so a
    # transfer ends when both SimGrid and the buckets let it: isolated
    # messages cost what the ping-pong measured, a busy link its
    # streaming rate.  Messages under 1 KiB pass free.
    burst = float(net.get("burst_bytes", 0) or 0)
    rate = float(net["bandwidth_MBps"]) * 1e6  # bytes/s
    buckets = {}  # (0 out / 1 in, host) -> [tokens, as of time s, queue empty at s]

    def throttle(src, dst, size, now):
        """When the buckets let a transfer of size bytes from host src to
        host dst that starts now end (now if it passes on tokens)."""
        done = now
        if burst <= 0 or src == dst:
            return done
        for key in ((0, src), (1, dst)):
            b = buckets.get(key)
            if b is None:
                b = buckets[key] = [burst, now, now]  # tokens at time, when the last queued byte passed
            tokens, t, free = b
            start = max(now, free)
            tokens = min(burst, tokens + (start - t) * rate)
            c = min(float(size), tokens)
            end = start + (size - c) / rate
            b[0], b[1], b[2] = (tokens - c, end, end) if c < size else (tokens - c, start, start)
            done = max(done, end)
        return done

    def after_bucket(until):
        if until > e.clock:
            sg.this_actor.sleep_for(until - e.clock)

    def small_message_s(me, dst, size):
        """Seconds a small message (under 1 KiB) from rank me to rank dst
        takes: its route's time, with no share of the links."""
        ha, hb = host_of(me), host_of(dst)
        lat, bw = route(ha, hb)
        return (sw(size) if ha != hb else 0.0) + lat + size / bw

    def message(me, dst, size):
        """A blocking point-to-point transfer from rank me to rank dst.  A
        small one (requests, acknowledgements, lock messages) takes its
        route's time without occupying the links (its share of them is
        nothing): one simulation step instead of a transfer."""
        ha, hb = host_of(me), host_of(dst)
        if size < 1024:
            sg.this_actor.sleep_for(small_message_s(me, dst, size))
            return
        if ha != hb:
            sg.this_actor.sleep_for(sw(size))
        sg.Comm.sendto(hobj[ha], hobj[hb], size)

    def round_trip(me, home, cat, reply=REQUEST_BYTES):
        """A request to rank home and its reply; the seconds it took."""
        if host_of(home) == host_of(me):
            t = float(ins.get("lock_us", 0.1))
            work(me, t, cat)
            flush(me)
            return t * us / cpu
        ha, hb = host_of(me), host_of(home)
        (l1, b1), (l2, b2) = route(ha, hb), route(hb, ha)
        ask = sw(REQUEST_BYTES) + l1 + REQUEST_BYTES / b1
        rt = ask + sw(reply) + l2 + reply / b2
        if cat == "lock":
            via_home[me] += 1
        if cat == "lock" and home_lock_s:
            rt = max(rt, home_lock_s)
        else:
            rt += serve_wait(me, home, e.clock + pend[me] + idle[me] + ask)
        acct[me][cat] += rt
        flush(me, rt)
        return rt

    mprotect_us = float(node.get("mprotect_us") or 0)

    def release(me, o, cat):
        comms = []
        # The release makes its dirty pages read-only first, one mprotect a
        # run of consecutive pages (protocol/core.cpp, release_pages): a
        # diff record a dirty page.  (Pages written in runs cost one call;
        # a page in every other, as in a cyclic placement, one call each.)
        dirty = sorted(x[5] for x in o.nested if x[2] == DIFF)
        if dirty and mprotect_us:
            runs = 1 + sum(1 for a, b in zip(dirty, dirty[1:]) if b != a + 1)
            work(me, runs * mprotect_us, cat)
        for x in o.nested:
            if x[2] != DIFF:
                continue
            nbytes, runs, home = x[6] & 0xffffffff, (x[6] >> 32) & 0xffff, x[6] >> 48
            work(me, float(node["diff_create_us_per_page"]) + float(node["diff_create_us_per_byte"]) * nbytes, cat)
            size = DIFF_HEADER + 8 * runs + nbytes
            if host_of(home) == host_of(me):
                work(me, size / memcpy, cat)
            elif request_diffs:
                # Across hosts by requests (the default), batched to the
                # home: a page's runs as one runs record, a 16-byte head, 4
                # bytes a run and the bytes (transport/common.hpp; a single
                # run, a plain put record), each part padded to 8; where
                # that is larger than the page's byte mask (8 bytes a 64
                # bytes of page), a mask record: the head, the mask, the
                # bytes (Transport::mask_pays).
                pad = lambda b: (b + 7) & ~7
                mask_words = page_size // 64
                if 4 * runs > 8 * mask_words:
                    comms.append((home, PUT_RECORD_HEAD + 8 * mask_words + pad(nbytes)))
                else:
                    comms.append((home, PUT_RECORD_HEAD + (pad(4 * runs) if runs > 1 else 0) + pad(nbytes)))
            else:
                comms.append((home, size))
        # (A full barrier's own: not a subset's, not a split one's arrive,
        # not a collective allocation's.)
        acked = bool(comms) and not (rows_late and o.kind == BARRIER and not o.rec[6] and not o.rec[3])
        # Notices (eager protocols): an update carries its pages.
        for x in o.nested:
            if x[2] == NOTICE:
                target = x[6] >> 48
                pages = x[6] & 0xffffffff if ((x[6] >> 32) & 0xff) % 4 == 1 else 0
                if host_of(target) != host_of(me):
                    comms.append((target, REQUEST_BYTES + pages * page_size))
        if comms:
            pre = max(sw(s) for _, s in comms)
            acct[me][cat] += pre
            flush(me, pre)
            t = e.clock
            until = max(throttle(host_of(me), host_of(h), s, t) for h, s in comms)
            acts = [sg.Comm.sendto_async(hobj[host_of(me)], hobj[host_of(h)], s) for h, s in comms]
            sg.Comm.wait_all(acts)
            after_bucket(until)
            if acked:
                # The homes' acknowledgement of the diffs.  An unlock's
                # meets its home on another host wherever that rank is
                # (computing, taking its own locks), and the home's
                # protocol thread serves it as it serves a lock take from
                # this rank: the calibrated take through the other host's
                # home (lock_home_us) is what it costs in all, from the
                # diffs' send on.  (Barnes-Hut's own 2-host traces: these
                # releases took 37-52 us at the median where the messages
                # and a serving wait gave 30; MODEL.md, "An unlock's diffs".)
                # A barrier's release meets homes that arrive at the same
                # barrier, whose application threads serve it.
                h0 = comms[0][0]
                if cat == "unlock" and home_lock_s and host_of(h0) != host_of(me):
                    # (the acknowledgement's own time at least; one step)
                    sg.this_actor.sleep_for(max(small_message_s(h0, me, REQUEST_BYTES),
                                                home_lock_s - (e.clock - t)))
                else:
                    w = serve_wait(me, h0, e.clock)
                    if w:
                        sg.this_actor.sleep_for(w)
                    message(h0, me, REQUEST_BYTES)
            acct[me][cat] += e.clock - t

    def acquire(me, o, cat):
        # Dropping pages and reading interval records: the trace's own time.
        work(me, sum(x[1] for x in o.nested if x[2] == ACQUIRE) * 1e-3, cat)

    # A dissemination barrier: round k, rank r tells r + 2^k.  Everyone
    # leaves the last arrival's time plus the rounds, each as long as its
    # slowest message (8 bytes): one simulation barrier and one wait.
    sim_barrier = sg.Barrier(n)
    rounds_s = 0.0
    step = 1
    while step < n:
        worst = 0.0
        for r in range(n):
            ha, hb = host_of(r), host_of((r + step) % n)
            lat, bw = route(ha, hb)
            worst = max(worst, (sw(8) if ha != hb else 0.0) + lat + 8 / bw)
        rounds_s += worst
        step *= 2

    # What a barrier costs a rank beyond the rounds: the calibrated empty
    # barrier less its one message's latency (the rounds' own).
    spread = hosts > 1
    bar_us = max(0.0, float((net if spread else ins)["barrier_us"]) - (float(net["latency_us"]) if spread else 0.0))
    # A barrier that pushes pages across hosts costs more than that (the
    # asks, the homes' sends after the agreement, the waits for them):
    # between_hosts.barrier_push_us, what the calibration's halo round
    # left once the model's own parts were taken out; every rank waits
    # for the agreement, so every rank pays it.  The calibration priced the
    # round's 16 KiB as an idle link's message; where a token bucket makes
    # back-to-back rounds wait for tokens (burst_bytes), the part of the
    # excess that was that wait is the bucket's here, not the barrier's.
    push_s = float(net.get("barrier_push_us") or 0) * 1e-6 if spread else 0.0
    if push_s and burst > 0:
        alone = sw(16384) + 16384 / (link_bandwidth(net) * 1e6)
        push_s = max(0.0, push_s - max(0.0, 16384 / rate - alone))
    arrivals = defaultdict(float)   # barrier's number -> the last arrival's time
    nth = defaultdict(int)          # rank -> barriers it has entered

    def barrier(me):
        """One simulation step: the work before the barrier is not slept
        first; its end is the rank's arrival, and after SimGrid's barrier
        (every rank in it) the rank sleeps, with what follows (the push,
        the acquire, the next computation), until the last arrival plus the
        rounds.  Arrivals are kept by barrier number: a rank that leaves
        may enter the next barrier before a sibling has read this one's."""
        nth[me] += 1
        j = nth[me]
        if machine is not None:
            flush(me)  # (its arrival: the work done on the shared cores)
        mine = e.clock + pend[me] + idle[me]
        if mine > arrivals[j]:
            arrivals[j] = mine
        busy[me] = (max(e.clock, loom_until[me]), mine)  # its work up to the barrier, not slept yet
        sim_barrier.wait()
        leave = arrivals[j] + rounds_s
        if push_s and j in pattern_of:
            leave += push_s
        acct[me]["barrier"] += leave - mine
        if machine is None:
            pend[me] = leave - e.clock  # (its work before the barrier ended by its arrival)
        else:
            idle[me] = leave - e.clock
        work(me, bar_us, "barrier")
        loom_until[me] = e.clock + pend[me] + idle[me]

    # A subset's barrier (sync_group_arrive/wait in src/sync.cpp): each
    # member's arrive signals every other member, across hosts with its
    # knowledge of every rank in the same message (8 bytes a rank, up to
    # 256 ranks); a member's wait ends when every other member's signal
    # has come.  Its members are the ranks that recorded its set's key;
    # the k-th barrier of a set is the k-th on each member.  What the wait
    # costs beyond the signals: the calibrated barrier's own part (less
    # its message's latency across hosts), as for a barrier of every rank.
    members = lt.group_members(ranks)
    subset_arrived = {}  # (key, number) -> {member: its arrive's time}
    subset_sems = {}     # (key, number, member) -> a semaphore the others' arrives release
    over_in = float(ins["barrier_us"])
    over_net = max(0.0, float(net["barrier_us"]) - float(net["latency_us"]))
    signal_bytes = REQUEST_BYTES + (8 * n if n <= 256 else 0)

    def subset_sem(key, m):
        s = subset_sems.get(key + (m,))
        if s is None:
            s = subset_sems[key + (m,)] = sg.Semaphore(0)
        return s

    def subset_arrive(me, o):
        x = o.rec
        key = (x[6], x[5])
        flush(me)
        subset_arrived.setdefault(key, {})[me] = e.clock
        for m in members[x[6]]:
            if m != me:
                if host_of(m) != host_of(me):
                    t = sw(signal_bytes)  # each signal across hosts leaves in turn
                    acct[me]["barrier"] += t
                    sg.this_actor.sleep_for(t)
                    subset_arrived[key][me] = e.clock
                subset_sem(key, m).release()
        loom_until[me] = e.clock

    def subset_wait(me, o):
        x = o.rec
        key = (x[6], x[5])
        flush(me)
        t = e.clock
        others = [m for m in members[x[6]] if m != me]
        for _ in others:
            subset_sem(key, me).acquire()
        subset_sems.pop(key + (me,), None)
        came = subset_arrived[key]
        leave = e.clock
        for m in others:
            ha, hb = host_of(m), host_of(me)
            lat, bw = route(ha, hb)
            leave = max(leave, came[m] + (lat + signal_bytes / bw if ha != hb else 0.0))
        if leave > e.clock:
            sg.this_actor.sleep_for(leave - e.clock)
        acct[me]["barrier"] += e.clock - t
        if others:
            work(me, over_net if any(host_of(m) != host_of(me) for m in others) else over_in, "barrier")
        acquire(me, o, "barrier")
        loom_until[me] = e.clock + pend[me] + idle[me]

    def pushed(me, got, j):
        """The barrier's page push (protocol/core.cpp): asked for before the
        agreement, the pages come from each home once it is complete, one
        message a home, all at once.  j: the barrier's number (patterns)."""
        comms = [(h, n * page_size) for h, n in got.items() if host_of(h) != host_of(me)]
        if not comms:
            return
        key = pattern_of.get(j)
        seen = push_times.get(key) if reuse else None
        # From the end of the rank's pending work: the homes' sends, then
        # the pages, which the links' buckets may hold back.
        t = e.clock + pend[me] + idle[me]
        start = t + max(sw(s) for _, s in comms)
        until = max(throttle(host_of(h), host_of(me), s, start) for h, s in comms)
        if seen is not None and len(seen) == len(key):
            # Every rank of this pattern has its time from SimGrid: the
            # same push again (all ranks of barrier j see the same here).
            if me == key[0][0]:
                push_count["reused"] += 1
            took = max(seen[me], until - t)
            acct[me]["barrier"] += took
            later(me, took)
        else:
            if me == key[0][0]:
                push_count["timed"] += 1
            flush(me, start - t)
            acts = [sg.Comm.sendto_async(hobj[host_of(h)], hobj[host_of(me)], s) for h, s in comms]
            sg.Comm.wait_all(acts)
            push_times.setdefault(key, {})[me] = e.clock - t
            after_bucket(until)
            acct[me]["barrier"] += e.clock - t
        work(me, sum(s for _, s in comms) / memcpy, "barrier")  # the pages into their slots
        loom_until[me] = e.clock + pend[me] + idle[me]

    fetch_net = (float(net["fetch_overhead_us"]), float(net.get("fetch_extra_page_us", 0)))
    if burst > 0:
        fetch_net = fetch_without_bucket(net, fetch_net, sw)
    cold_net = float(net.get("fetch_cold_page_us") or 0)
    seen_net = defaultdict(set)
    colds = {"fetches": 0}

    note = lt.Progress("loom predict")
    first = min(ops) if ops else 0

    def actor(me):
        a = acct[me]
        full = 0
        sched = ops[me]
        for j, (i, o, comp, fus) in enumerate(sched):
            if me == first and j % 256 == 0:
                note(f"replayed {100 * j // max(1, len(sched))}% of rank {me}'s operations, simulated time {e.clock:.4f} s")
            if comp > 0:
                t = comp * scale / cpu
                pend[me] += t
                a["compute"] += t
            if fus:
                work(me, fus, "fault")
            x = o.rec
            if o.kind == FAULT:
                # A fetch across hosts: the request (small: its route's
                # time), then the pages back through the links.
                home, fetched = x[6] & 0xffff, x[6] >> 32
                if cold_net and first_fetch(seen_net[me], x[5], cold_unit):
                    work(me, fetched * cold_net, "fault")
                    colds["fetches"] += 1
                for c in o.ahead:
                    # The windows along its stride, in the same get, cold
                    # where first fetched.
                    if cold_net and first_fetch(seen_net[me], c * stride_unit, cold_unit):
                        work(me, stride_unit * cold_net, "fault")
                    fetched += stride_unit
                work(me, fetch_net[0] + (fetched - 1) * fetch_net[1], "fault")
                ha, hb = host_of(me), host_of(home)
                lat, bw = route(ha, hb)
                size = fetched * page_size
                pre = sw(REQUEST_BYTES) + lat + REQUEST_BYTES / bw + sw(size)
                a["fault"] += pre
                flush(me, pre)
                w = serve_wait(me, home, e.clock - sw(size))
                if w:
                    w += (fetched - 1) * busy_page_s
                    sg.this_actor.sleep_for(w)
                    a["fault"] += w
                if o.ahead and o.ahead[0] - x[5] // stride_unit != 1:
                    # Windows apart: a block of the get each, and each waits
                    # for a computing home's next poll (loom_bench
                    # pagefetch_stride: a walk 4 windows apart 142-146 us a
                    # window at 2 hosts x 1; windows side by side are one
                    # block).
                    for _ in o.ahead:
                        w = serve_wait(me, home, e.clock)
                        if w:
                            sg.this_actor.sleep_for(w)
                            a["fault"] += w
                t = e.clock
                until = throttle(hb, ha, size, t)
                sg.Comm.sendto(hobj[hb], hobj[ha], size)
                after_bucket(until)
                a["fault"] += e.clock - t
            elif o.kind == BARRIER or (o.kind in (ALLOC, FREE) and collective):
                release(me, o, "barrier")
                if kept_by[me]:
                    # A barrier gives up every lock the rank keeps: a
                    # release message to each home, not waited for.
                    for lid in kept_by[me]:
                        locks[lid]["keeper"] = None
                        useful.pop((me, lid), None)
                    t = len(kept_by[me]) * sw(REQUEST_BYTES)
                    pend[me] += t
                    acct[me]["barrier"] += t
                    kept_by[me].clear()
                if o.kind == BARRIER and x[6]:  # a subset's: its arrive signals, its wait acquires
                    (subset_wait if x[3] == 2 else subset_arrive)(me, o)
                elif not (o.kind == BARRIER and x[3] == 1):  # a split barrier's arrive is its release
                    barrier(me)
                    if i in push_at[me]:
                        pushed(me, pushes[me][i], push_at[me][i])
                    acquire(me, o, "barrier")
                    if o.kind == BARRIER:
                        full += 1
                        if full in marked:
                            flush(me)
                            marks[me][full] = (e.clock, dict(a))
            elif o.kind == LOCK:
                lid = x[5]
                if len(takers[lid]) <= 1:
                    if host_of(lid % n) != host_of(me) and (not keep or lid not in kept_by[me]):
                        # Nobody else takes it, but across hosts its home
                        # hears of the first take after each barrier (which
                        # gave up the rank's keeps); kept from then on.
                        round_trip(me, lid % n, "lock")
                        lone[me] += 1
                        if keep and not x[3] & 1:  # (a trylock that failed holds nothing to keep)
                            kept_by[me].add(lid)
                    else:
                        retaken[me] += host_of(lid % n) != host_of(me)
                        work(me, float((ins if host_of(lid % n) == host_of(me) else net).get("lock_us", 0.1)) / 2, "lock")
                else:
                    L = locks[lid]
                    if keep and L["keeper"] == me and not x[3] & 1:
                        # Kept since this rank's unlock: taken again with no message.
                        L["keeper"], L["holder"] = None, me
                        kept_by[me].discard(lid)
                        backoff[(me, lid)], useful[(me, lid)] = 0, True
                        retaken[me] += 1
                        work(me, float(net.get("lock_us", 0.1)) / 2, "lock")
                    else:
                        asked = round_trip(me, lid % n, "lock")
                        if x[3] & 1:       # a trylock that did not get the lock
                            pass
                        elif L["holder"] is None and L["keeper"] is None:
                            L["holder"] = me
                        elif L["holder"] is None:
                            # Kept by another rank: the kick, its give-up at
                            # the home, the home's hand-over to this rank.
                            k = L["keeper"]
                            L["keeper"], L["holder"] = None, me
                            kicked[me] += 1
                            kept_by[k].discard(lid)
                            if not useful.pop((k, lid), False):
                                # A keep given up before any re-take: its
                                # keeper keeps nothing for 2^b unlocks.
                                b = min(backoff[(k, lid)] + 1, COOL_MAX_EXP)
                                backoff[(k, lid)], cool[(k, lid)] = b, 1 << b
                            if kick_s:
                                # As the calibration's alternating lock took
                                # it, the round trip above included.
                                t = max(0.0, kick_s - asked)
                            else:
                                # The kick and the give-up, served by the
                                # keeper and the home, each perhaps computing.
                                t0 = e.clock + pend[me] + idle[me]
                                t = one_way(me, k)
                                t += serve_wait(me, k, t0 + t) + one_way(k, lid % n)
                                if lid % n != me:
                                    t += serve_wait(k, lid % n, t0 + t)
                                t += one_way(lid % n, me)
                            a["lock"] += t
                            flush(me, t)
                        else:
                            L["queue"].append(me)
                            t = e.clock
                            sg.Mailbox.by_name(f"g{me}").get()
                            a["lock"] += e.clock - t
                acquire(me, o, "lock")
            elif o.kind == UNLOCK:
                release(me, o, "unlock")
                lid = x[5]
                if len(takers[lid]) <= 1:
                    if not keep and host_of(lid % n) != host_of(me):
                        round_trip(me, lid % n, "unlock")
                    else:
                        work(me, float((ins if host_of(lid % n) == host_of(me) else net).get("lock_us", 0.1)) / 2, "unlock")
                    continue
                L = locks[lid]
                flush(me)
                if L["queue"]:
                    nxt = L["queue"].popleft()
                    L["holder"] = nxt
                    t = e.clock
                    if host_of(nxt) != host_of(me):
                        sg.this_actor.sleep_for(sw(REQUEST_BYTES))
                    sg.Mailbox.by_name(f"g{nxt}").put_init(lid, REQUEST_BYTES).detach()
                    a["unlock"] += e.clock - t
                elif keep and host_of(lid % n) != host_of(me):
                    # Across hosts the home holds the queue and an unlock is
                    # a message not waited for (src/sync.cpp); with nobody
                    # queued the rank keeps the lock instead, unless its
                    # keeps of it were wasted lately (cooling).
                    L["holder"] = None
                    c = cool.get((me, lid), 0)
                    if c:
                        cool[(me, lid)] = c - 1
                        t = sw(REQUEST_BYTES)
                        a["unlock"] += t
                        flush(me, t)
                    else:
                        L["keeper"] = me
                        kept_by[me].add(lid)
                        work(me, float(net.get("lock_us", 0.1)) / 2, "unlock")
                else:
                    L["holder"] = None
                    round_trip(me, lid % n, "unlock")
            elif o.kind == ATOMIC:
                # The word's home, as the record names it (a page reached by
                # atomics alone has no fault to name it); traces before the
                # record carried it say 0 there: the home a fault named.
                home = (x[6] >> 48) or page_home.get(x[5] // page_size, 0)
                round_trip(me, home, "atomic", 16)
            elif o.kind == 0:
                release(me, o, "unlock")
        flush(me)
        finish[me] = e.clock

    # SimGrid runs one actor at a time, each on a thread of its own that
    # the one before wakes: on one CPU those hand-overs are switches on
    # that CPU's queue, where spread over several each wakes a thread on
    # another CPU (CG's 64-rank replay: 36 s of simulation on 2 CPUs, 20 s
    # on one).  The actors' threads start from this one and inherit it.
    with on_one_cpu():
        for k in sorted(ops):
            sg.Actor.create(f"rank{k}", hobj[host_of(k)], actor, k)
        e.run()
    note.done()
    if len(finish) != n:
        stuck = sorted(set(ops) - set(finish))
        raise RuntimeError(f"the replay deadlocked: ranks {stuck} never finished (a lock or barrier the trace "
                           "does not close)")
    out = {"ranks": n, "hosts": hosts, "ranks_per_host": rph, "cores": cores, "topology": topology or "star",
           "platform": plat.get("names", []), "borrowed": plat.get("borrowed", []), "compute_from": compute_from,
           "compute_scale": scale, "prefetch": prefetch,
           "prefetched_pages": sum(sum(n for g in pushes[k].values() for n in g.values()) for k in pushes),
           "prefetch_hits": sum(hits.values()), "prefetched_read": sum(used.values()),
           "pushes_timed": push_count["timed"], "pushes_reused": push_count["reused"],
           "locks": "keep" if keep else "round-trips", "served_by_napping": waits["requests"],
           "serve_wait_s": waits["seconds"], "cold_fetches_across_hosts": colds["fetches"],
           "stride": "on" if stride_unit else "off", "strided_faults": sum(v[0] for v in strided.values()),
           "faults_answered_ahead": sum(v[1] for v in strided.values()), "per_rank": []}
    for k in sorted(ops):
        a = acct[k]
        row = {"rank": k, "predicted_s": finish[k], "traced_s": traced[k], "locks_kept": retaken[k], "locks_kicked": kicked[k],
               "locks_asked_alone": lone[k], "locks_via_home": via_home[k]}
        row.update({c + "_s": a[c] for c in CATEGORIES})
        out["per_rank"].append(row)
    out["predicted_s"] = max(finish.values())
    out["traced_s"] = max(traced.values())
    if region:
        start = lambda k: marks[k][region_bar][0] if region_bar else 0.0
        out["region_after_barrier"] = region_bar
        out["predicted_region_s"] = max(finish[k] - start(k) for k in ops)
        out["traced_region_s"] = max(t for _, t in region.values())
        # Each rank's breakdown of the region alone (what LOOM_STATS measures
        # from the program's loom_stats_reset).
        for row in out["per_rank"]:
            k = row["rank"]
            before = marks[k][region_bar][1] if region_bar else {}
            row["region"] = {"predicted_s": finish[k] - start(k),
                             **{c + "_s": acct[k][c] - before.get(c, 0.0) for c in CATEGORIES}}
    if window:
        wa, wb = window
        out["window"] = [wa, wb]
        out["predicted_window_s"] = max(marks[k][wb][0] for k in ops) - max(marks[k][wa][0] for k in ops)
        # The trace's own: leaving barrier A to leaving barrier B, the last rank's, on the global clock.
        ends = {}
        for r in ranks:
            got = [x for x in r.recs if whole_barrier(x) and x[4] == 0]
            for i in (wa, wb):
                ends.setdefault(i, []).append(r.to_global(got[i - 1][0] + got[i - 1][1]))
        out["traced_window_s"] = (max(ends[wb]) - max(ends[wa])) * 1e-9
        for row in out["per_rank"]:
            k = row["rank"]
            row["window"] = {c + "_s": marks[k][wb][1].get(c, 0.0) - marks[k][wa][1].get(c, 0.0) for c in CATEGORIES}
    if len(wins) > 1:
        got = {r.rank: [x for x in r.recs if whole_barrier(x) and x[4] == 0] for r in ranks}
        left = lambda i: max(r.to_global(got[r.rank][i - 1][0] + got[r.rank][i - 1][1]) for r in ranks)
        out["windows"] = [{"window": [wa, wb],
                           "predicted_s": max(marks[k][wb][0] for k in ops) - max(marks[k][wa][0] for k in ops),
                           "traced_s": (left(wb) - left(wa)) * 1e-9,
                           "per_rank": [{"rank": k, **{c + "_s": marks[k][wb][1].get(c, 0.0) - marks[k][wa][1].get(c, 0.0)
                                                       for c in CATEGORIES}} for k in sorted(ops)]}
                          for wa, wb in wins]
    return out


def print_prediction(p):
    print(f"predicted: {p['ranks']} ranks on {p['hosts']} hosts ({p['ranks_per_host']} a host), topology "
          f"{p['topology']}, platform {' + '.join(p['platform'])}; compute spans from {p['compute_from']} time, "
          f"x {p['compute_scale']:.3f}; barrier prefetch {p.get('prefetch', 'off')}"
          + (f" ({p['prefetched_pages']} pages pushed, {p['prefetched_read']} of them read, opened by {p['prefetch_hits']} faults;"
             f" pushes simulated {p['pushes_timed']}, reused {p['pushes_reused']})" if p.get("prefetch") == "on" else
             f" ({p['prefetched_pages']} pages pushed, as the traced run's barriers did; pushes simulated {p['pushes_timed']},"
             f" reused {p['pushes_reused']})" if p.get("prefetch") == "trace" else "")
          + (f"; fetches along a stride: {p['strided_faults']} faults fetched windows ahead, {p['faults_answered_ahead']} "
             f"faults found their window so" if p.get("stride") == "on" else ""))
    print(f"{'rank':>5} {'predicted s':>12} {'traced s':>9} " + " ".join(f"{c:>9}" for c in CATEGORIES))
    for r in p["per_rank"]:
        print(f"{r['rank']:>5} {r['predicted_s']:>12.4f} {r['traced_s']:>9.4f} " +
              " ".join(f"{r[c + '_s']:>9.4f}" for c in CATEGORIES))
    print(f"  job {p['predicted_s']:.4f} s predicted (the trace's own run: {p['traced_s']:.4f} s, loom_init to loom_finalize)")
    if "predicted_region_s" in p:
        print(f"  measured region (from loom_stats_reset, after barrier {p['region_after_barrier']}; LOOM_STATS's wall time): "
              f"{p['predicted_region_s']:.4f} s predicted (traced {p['traced_region_s']:.4f} s)")
    if "window" in p:
        wa, wb = p["window"]
        slow = min(p["per_rank"], key=lambda r: r["window"]["barrier_s"])["window"]
        print(f"  barrier {wa} to barrier {wb}: {p['predicted_window_s']:.4f} s predicted (traced {p['traced_window_s']:.4f} s); "
              "the rank the others wait for: " + ", ".join(f"{c} {slow[c + '_s']:.4f}" for c in CATEGORIES if slow[c + "_s"] > 0))
    for w in p.get("windows", [])[1:]:
        wa, wb = w["window"]
        slow = min(w["per_rank"], key=lambda r: r["barrier_s"])
        print(f"  barrier {wa} to barrier {wb}: {w['predicted_s']:.4f} s predicted (traced {w['traced_s']:.4f} s); "
              "the rank the others wait for: " + ", ".join(f"{c} {slow[c + '_s']:.4f}" for c in CATEGORIES if slow[c + "_s"] > 0))


def main(a):
    paths = getattr(a, "platform", None) or []
    if a.what == "platform":
        plat, errs = load_platform(a.files)
        for x in errs:
            print("loom platform: " + x, file=sys.stderr)
        if not errs:
            print(json.dumps(plat, indent=2))
        return 1 if errs else 0
    if not paths:
        print("loom predict: give the platform: --platform FILE (loom_bench calibrate writes one)", file=sys.stderr)
        return 2
    plat, errs = load_platform(paths)
    if errs:
        for x in errs:
            print("loom predict: " + x, file=sys.stderr)
        return 2
    try:
        ranks = lt.load(a.dir)
        if getattr(a, "placement", ""):
            import loom_place
            changed = loom_place.apply(ranks, a.placement)
            print(f"loom predict: with the homes of {a.placement} ({changed} fault and diff records changed)",
                  file=sys.stderr)
    except (OSError, ValueError) as ex:
        print(f"loom predict: {ex}", file=sys.stderr)
        return 2
    n = ranks[0].nranks
    if a.hosts and a.ranks_per_host:
        print("loom predict: give --hosts or --ranks-per-host, not both", file=sys.stderr)
        return 2
    rph = a.ranks_per_host or (math.ceil(n / a.hosts) if a.hosts else 1)
    try:
        window = None
        if a.window:
            try:
                window = [tuple(int(x) for x in w.split(":")) for w in a.window.split(",")]
                assert all(len(w) == 2 for w in window)
            except (ValueError, AssertionError):
                print(f"loom predict: --window {a.window}: expected A:B[,C:D...], barrier numbers (B <= 0 counts from the last)",
                      file=sys.stderr)
                return 2
            window = window[0] if len(window) == 1 else window
        ref = None
        if getattr(a, "compute_of", ""):
            try:
                ref = lt.load(a.compute_of)
            except (OSError, ValueError) as ex:
                raise ValueError(f"--compute-of {a.compute_of}: {ex}")
        if getattr(a, "cores", 0) < 0:
            raise ValueError(f"--cores {a.cores}: give a number of cores (0: a core per rank)")
        p = predict(ranks, plat, rph, a.topology, a.compute, window, getattr(a, "prefetch", "auto"),
                    getattr(a, "reuse", "on") != "off", getattr(a, "locks", "keep") == "keep", ref,
                    getattr(a, "cores", 0), getattr(a, "stride", "on") != "off")
    except (ValueError, RuntimeError) as ex:
        print(f"loom predict: {ex}", file=sys.stderr)
        return 2
    if a.json:
        print(json.dumps(p, indent=1))
    else:
        print_prediction(p)
    return 0
