#!/usr/bin/env python3
"""The size of a rank's Meta segment as a function of the rank count N, the
global memory and the lock count: the same arithmetic as compute_layout in
src/api.cpp, for rank counts this machine cannot run.  With --check FILE...
(init_cost's JSON lines, which carry the measured meta_bytes) it first checks
the arithmetic against every measured row, and fails if one differs.

  python3 bench/meta_layout.py --ranks 2 64 128 1024 --mem 1G
  python3 bench/meta_layout.py --check docs/results/issue14/init_cost_np*.jsonl --ranks 1024
"""
import argparse
import json
import sys

PAGE = 4096
HEAP_MAX = 16384                        # heap.hpp: kHeapMax
SMALL_META = 8 * (8 + 512 * (1 + 64))   # small_alloc.hpp: kSmallMetaBytes
IVL_RECORDS, IVL_RUNS, IVL_HEAD, IVL_INLINE = 256, 32768, 5, 6  # intervals
PAIR_WORD0 = 72                         # runtime.hpp: barrier area
KNOW_RANKS_MAX = 256                    # runtime.hpp: kKnowRanksMax


def ring_words(n):
    """notices.hpp, ring_words: 4096 entries, halved (down to 512) until a
    rank's n rings take at most 8 MiB."""
    e = 4096
    while e > 512 and n * e * 8 > (8 << 20):
        e //= 2
    return 8 + e


def align(x, a):
    return (x + a - 1) // a * a


def layout(n, mem, locks=1024):
    """Offsets and sizes of each part, in bytes (api.cpp, compute_layout)."""
    npages = mem // PAGE
    planes = (n + 63) // 64
    total_locks = locks + 1
    parts = {}
    tails = align((PAIR_WORD0 + 2 * n) * 8, 64)
    parts["barrier area"] = tails
    qnodes = align(tails + (total_locks + n - 1) // n * 8, 64)
    parts["lock tails"] = qnodes - tails
    links = align(qnodes + total_locks * 16, 64)
    parts["queue nodes"] = links - qnodes
    d = align(links + (total_locks + n - 1) // n * n * 8, 64)
    parts["queue links"] = d - links
    ivl = align(d + (npages + n - 1) // n * 8 * (1 + planes), 64)
    parts["directory"] = ivl - d
    heap = align(ivl + (8 + IVL_RECORDS * (IVL_HEAD + n + IVL_INLINE) + IVL_RUNS) * 8, PAGE)
    parts["interval records"] = heap - ivl
    copyset = align(heap + 64 + HEAP_MAX * 16, 64)
    parts["heap table"] = copyset - heap
    rings = align(copyset + npages * 8 * planes, 64)
    parts["copy-sets"] = rings - copyset
    small = align(rings + n * ring_words(n) * 8, 64)
    parts["notice rings"] = small - rings
    know = align(small + SMALL_META, 64)
    parts["small-block table"] = know - small
    size = align(know + (2 * n * n * 8 if n <= KNOW_RANKS_MAX else 0), PAGE)
    parts["group barriers' knowledge"] = size - know
    return size, parts


def parse_size(s):
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    return int(s[:-1]) * mult[s[-1]] if s[-1] in mult else int(s)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ranks", type=int, nargs="*", default=[2, 64, 128, 1024])
    ap.add_argument("--mem", default="1G", help="LOOM_MEM_SIZE (default 1G)")
    ap.add_argument("--locks", type=int, default=1024, help="LOOM_LOCKS (default 1024)")
    ap.add_argument("--check", nargs="*", default=[], help="init_cost JSON-lines files to check against")
    a = ap.parse_args()
    bad = 0
    for path in a.check:
        for line in open(path):
            row = json.loads(line)
            want, _ = layout(row["ranks"], row["mem_size"], a.locks)
            ok = want == row["meta_bytes"]
            bad += not ok
            print(f"check {path}: {row['ranks']} ranks, {row['mem_size']} B: measured {row['meta_bytes']}, "
                  f"computed {want}: {'ok' if ok else 'DIFFERS'}")
    mem = parse_size(a.mem)
    for n in a.ranks:
        size, parts = layout(n, mem, a.locks)
        print(f"{n} ranks, LOOM_MEM_SIZE={a.mem}: Meta {size / 1e6:.2f} MB: " +
              ", ".join(f"{k} {v / 1e6:.2f}" for k, v in parts.items()))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
