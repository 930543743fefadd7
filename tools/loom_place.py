"""loom place: homes for a program's collective allocations from the
reference pattern of a traced run (the SCI paper's last question: place the
data where it is used, before running at scale).

The run must be traced with LOOM_TRACE_HOMES=1 as well: a home reads and
writes its copy in place, so without it a home's accesses after its first
touch leave no record, and every page would look like it belongs to the
ranks that fetch it (the first version of this tool, scoring without them,
moved 67 of SOR's pages that their homes wrote every sweep and made it 7x
slower across two hosts).  With it, each barrier makes the home pages fault
once more, so the trace holds every rank's accesses per barrier interval.
Every page of a collective block is scored per rank by the number of
barrier intervals, after the program's setup (its first full barrier), in
which that rank touched it (a fault, a fetch, a diff); a page moves to the
rank with the most when that is more than its home's and at least two.
The proposal is written as a placement file (LOOM_PLACEMENT;
src/placement.hpp has the format): one block per collective allocation, in
the order the program made them, with its page ranges and their homes.
"""
import bisect
import os
import sys
from collections import defaultdict

import loom_trace as lt

FAULT, DIFF, ALLOC, PREFETCH = 1, 5, 7, 19
COLLECTIVE = 2


def collective_blocks(ranks):
    """The collective allocations in the order the program made them:
    [(first page, pages)] (rank 0's alloc records; every rank has them)."""
    out = []
    for x in ranks[0].recs:
        if x[2] == ALLOC and x[6] >> 56 == COLLECTIVE:
            out.append((x[5], x[6] & ((1 << 56) - 1)))
    return out


def setup(ranks):
    """Global time of the end of the program's setup: the first full
    barrier's end on rank 0 (0 without one)."""
    r0 = ranks[0]
    for x in r0.recs:
        if x[2] == 2 and x[3] == 0:
            return r0.to_global(x[0] + x[1])
    return 0


def propose(ranks):
    """Per block: its pages, and for each page with accesses from away the
    trace's home, the scores and the proposed home."""
    n = len(ranks)
    blocks = collective_blocks(ranks)
    touched = defaultdict(lambda: [set() for _ in range(n)])  # page -> per rank: barrier intervals it touched it in
    home = {}
    setup_end = setup(ranks)
    for r in ranks:
        bars = [r.to_global(x[0] + x[1]) for x in r.recs if x[2] == 2 and x[3] == 0]
        for t0, dur, ty, fl, th, a, b in r.recs:
            if ty not in (FAULT, DIFF):
                continue
            h = (b & 0xffff) if ty == FAULT else b >> 48
            if h < n:
                home[a] = h
            g = r.to_global(t0)
            if g >= setup_end:
                touched[a][r.rank].add(bisect.bisect_right(bars, g))
    score = {p: [len(x) for x in v] for p, v in touched.items()}
    out = []
    for k, (first, pages) in enumerate(blocks):
        homes, moved = [None] * pages, 0
        for i in range(pages):
            p = first + i
            if p not in score:
                continue
            s, h = score[p], home.get(p)
            best = max(range(n), key=lambda q: (s[q], q == h))
            if h is not None and (s[best] <= s[h] or s[best] < 2):
                best = h
            homes[i] = best
            moved += best != h
        out.append({"block": k, "first_page": first, "pages": pages, "homes": homes, "moved": moved})
    return out


def ranges(homes):
    """Runs of pages with one proposed home: [(first, count, rank)]."""
    out, i = [], 0
    while i < len(homes):
        if homes[i] is None:
            i += 1
            continue
        j = i
        while j < len(homes) and homes[j] == homes[i]:
            j += 1
        out.append((i, j - i, homes[i]))
        i = j
    return out


def write_file(blocks, path):
    with open(path, "w") as f:
        f.write("# loom-placement 1 (tools/loom place)\n")
        for b in blocks:
            rs = ranges(b["homes"])
            if not rs:
                continue
            f.write(f"block {b['block']} pages {b['pages']}\n")
            for first, count, rank in rs:
                f.write(f"{first} {count} {rank}\n")


def read_file(path):
    """A placement file: {block ordinal: (pages, [(first, count, rank)])}."""
    blocks, cur = {}, None
    with open(path) as f:
        for no, line in enumerate(f, 1):
            w = line.split("#", 1)[0].split()
            if not w:
                continue
            if len(w) == 4 and w[0] == "block" and w[2] == "pages":
                cur = blocks.setdefault(int(w[1]), (int(w[3]), []))
            elif len(w) == 3 and cur is not None:
                cur[1].append(tuple(int(x) for x in w))
            else:
                raise ValueError(f"{path}, line {no}: neither 'block K pages N' nor 'FIRST COUNT RANK'")
    return blocks


def apply(ranks, path):
    """The trace as if the run had used the placement file: every fault and
    diff on a page whose home the file changes goes to the new home; a
    fetch by the new home becomes its write trap (or nothing to wait for),
    a diff to itself disappears (written in place), and the old home's
    write traps become fetches from the new home.  The old home's reads
    and its writes' diffs are not in the trace (it worked in place), so a
    page moved away from a busy home looks cheaper than it is.  The pages a
    barrier's prefetch brought (a trace across hosts) come from their new
    homes, and not at all to a rank that is now their home.  Returns the
    number of records changed."""
    blocks = collective_blocks(ranks)
    placed = {}
    for k, (pages, rs) in read_file(path).items():
        if k >= len(blocks):
            raise ValueError(f"{path}: block {k}, but the trace has {len(blocks)} collective allocations")
        first, n = blocks[k]
        if n != pages:
            raise ValueError(f"{path}: block {k} has {pages} pages, the trace's has {n} (another program or input?)")
        for f0, c, rk in rs:
            for i in range(f0, f0 + c):
                placed[first + i] = rk
    changed = 0
    for r in ranks:
        out = []
        for x in r.recs:
            t0, dur, ty, fl, th, a, b = x
            h2 = placed.get(a)
            if h2 is not None and ty == FAULT and (b & 0xffff) != h2:
                old, fetched = b & 0xffff, b >> 32
                if h2 == r.rank:
                    fetched = 0
                elif old == r.rank:
                    fetched = max(1, fetched)
                x = (t0, dur, ty, fl, th, a, (b & 0xffff0000) & 0xffffffff | h2 | fetched << 32)
                changed += 1
            elif h2 is not None and ty == DIFF and (b >> 48) != h2:
                changed += 1
                if h2 == r.rank:
                    continue
                x = (t0, dur, ty, fl, th, a, (b & ((1 << 48) - 1)) | h2 << 48)
            elif ty == PREFETCH:
                old, n = b >> 48, b & 0xffffffff
                homes = [placed.get(q, old) for q in range(a, a + n)]
                if any(h != old for h in homes):
                    changed += 1
                    i = 0
                    while i < n:  # the run split where its pages' homes change
                        j = i + 1
                        while j < n and homes[j] == homes[i]:
                            j += 1
                        if homes[i] != r.rank:
                            out.append((t0, dur, ty, fl, th, a + i, (j - i) | homes[i] << 48))
                        i = j
                    continue
            out.append(x)
        r.recs = out
    return changed


def main(a):
    try:
        ranks = lt.load(a.dir)
    except (OSError, ValueError) as e:
        print(f"loom place: {e}", file=sys.stderr)
        return 2
    if not any(line.startswith("LOOM_TRACE_HOMES=1") for line in ranks[0].config.splitlines()):
        print("loom place: this trace lacks the homes' own accesses: run the program with LOOM_TRACE_HOMES=1 as well "
              "as LOOM_TRACE", file=sys.stderr)
        return 2
    blocks = propose(ranks)
    if not blocks:
        print("loom place: the trace has no collective allocation (loom_alloc_collective): nothing to place",
              file=sys.stderr)
        return 1
    out = a.out or os.path.join(a.dir, "placement.txt")
    write_file(blocks, out)
    for b in blocks:
        placed = sum(h is not None for h in b["homes"])
        print(f"block {b['block']} ({b['pages']} pages): {placed} pages seen from away, {b['moved']} to move")
    print(f"loom place: {out} (run the program with LOOM_PLACEMENT={out})")
    return 0
