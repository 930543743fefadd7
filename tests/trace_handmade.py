"""Traces written by hand for the tool's tests (trace_anatomy.py,
trace_handovers.py): the tool's module, and a rank's trace file from a list
of records whose times are given in microseconds."""
import importlib.util
import os
import struct

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("loom_trace", os.path.join(here, "..", "tools", "loom_trace.py"))
lt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(lt)

US = 1000  # the records' times are ns


def write(d, rank, recs, nranks=2):
    """rank's trace file in d: a header (format 2) and the records."""
    head = bytearray(4096)
    head[:8] = lt.MAGIC
    struct.pack_into("<6I", head, 8, 2, 4096, lt.REC.size, rank, nranks, 100 + rank)
    struct.pack_into("<4Q", head, 32, 0, 4096, 0x7f0000000000, 1 << 30)
    head[64:69] = b"node%d" % rank
    body = b"".join(lt.REC.pack(*r) for r in recs)
    with open(os.path.join(d, f"rank{rank}.lt"), "wb") as f:
        f.write(bytes(head) + body)


def rec(t_us, dur_us, ty, fl=0, th=0, a=0, b=0):
    """One record: start and duration in us, type, flags, thread, a, b."""
    return (int(t_us * US), int(dur_us * US), ty, fl, th, a, b)
