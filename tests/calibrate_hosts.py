#!/usr/bin/env python3
"""loom_bench calibrate across 2 emulated hosts writes the network between
hosts, with the barrier's push cost from the halo round and the wait of a
request to a home that computes.

  calibrate_hosts.py CLUSTER_SH LOOM_BENCH

Exits 77 (skipped) where the emulated cluster cannot be made."""
import json
import os
import subprocess
import sys
import tempfile

cl, bench = sys.argv[1], sys.argv[2]
with tempfile.TemporaryDirectory() as d:
    plat = os.path.join(d, "h2.json")
    p = subprocess.run([cl, "run", "2", "1", "--", bench, "calibrate", "--tiny", "--platform", plat],
                       capture_output=True, text=True, timeout=240)
    if p.returncode == 77:
        print(p.stdout + p.stderr)
        sys.exit(77)
    fails = []

    def check(cond, what):
        print(("ok   " if cond else "FAIL ") + what)
        if not cond:
            fails.append(what)

    check(p.returncode == 0 and os.path.exists(plat), "calibrate across 2 hosts wrote a platform file")
    if not fails:
        b = json.load(open(plat)).get("between_hosts", {})
        m = b.get("measured", {})
        halo, bar, push = m.get("halo_round_us"), b.get("barrier_us"), b.get("barrier_push_us")
        check(isinstance(halo, (int, float)) and isinstance(bar, (int, float)) and halo > bar,
              f"the halo round ({halo} us) is measured and costs more than an empty barrier ({bar} us)")
        check(isinstance(push, (int, float)) and 0 <= push < halo,
              f"the push's cost beyond the model's parts ({push} us) is what the halo round left")
        busy, idle, wake = m.get("pagefetch_busy_home_random_us"), m.get("pagefetch_us"), b.get("serve_wake_us")
        check(isinstance(busy, (int, float)) and isinstance(idle, (int, float)) and isinstance(wake, (int, float))
              and busy > 0 and abs(wake - max(0.0, busy - idle)) <= 1e-3 * max(1.0, busy),
              f"a fetch from a computing home is measured ({busy} us against {idle} us from a waiting one) "
              f"and the wait it adds written as serve_wake_us ({wake} us)")
        win, busy_page = m.get("pagefetch_busy_home_window_us"), b.get("fetch_busy_page_us")
        check(isinstance(win, (int, float)) and win > 0 and isinstance(busy_page, (int, float)) and busy_page >= 0
              and busy_page * 127 < win,
              f"a 128-page window from a computing home is measured ({win} us) and what each further page adds "
              f"written as fetch_busy_page_us ({busy_page} us)")
        cold, warm, extra = m.get("pagefetch_cold_unit_us_per_page"), m.get("pagefetch_unit_us_per_page"), \
            b.get("fetch_cold_page_us")
        check(all(isinstance(v, (int, float)) for v in (cold, warm, extra)) and cold > 0
              and abs(extra - max(0.0, cold - warm)) <= 1e-3 * max(1.0, cold),
              f"a cold fetch is measured ({cold} us/page against {warm} warm) and what it adds a page written "
              f"as fetch_cold_page_us ({extra} us)")
        kick = b.get("lock_kick_us")
        check(isinstance(kick, (int, float)) and kick > 0,
              f"a lock taken from the rank that keeps it is measured as lock_kick_us ({kick} us)")
        home = b.get("lock_home_us")
        check(isinstance(home, (int, float)) and home > 0,
              f"a free lock taken through the other host's home is measured as lock_home_us ({home} us)")
    sys.exit(1 if fails else 0)
