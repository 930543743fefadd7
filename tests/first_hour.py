#!/usr/bin/env python3
"""What a new user sees: runs tests/first_hour.c and checks its output.

  first_hour.py --mpiexec M --prog P --build B CASE [--flags "..."]

CASE: report (LOOM_STATS summary, LOOM_STATS_FILE with and without %r, the
warning about an unknown LOOM_ variable), config (a bad setting on every rank
is printed once), collective (collective errors are printed once),
thread_call, thread_fault.  Exit 0 when every check holds."""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

FAILED = []


def check(cond, what, out=""):
    if cond:
        print(f"ok: {what}")
    else:
        FAILED.append(what)
        print(f"FAIL: {what}\n--- output ---\n{out}\n--------------")


def run(a, mode, ranks, env, timeout=120):
    e = dict(os.environ, LOOM_MEM_SIZE="64M")
    e.pop("LOOM_STATS", None)
    e.pop("LOOM_STATS_FILE", None)
    e.update(env)
    cmd = [a.mpiexec] + a.flags.split() + ["-n", str(ranks), a.prog, mode]
    p = subprocess.run(cmd, env=e, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def lines_with(text, needle):
    return [l for l in text.splitlines() if needle in l]


def case_report(a):
    build = json.load(open(os.path.join(a.build, "loom_build_info.json")))
    with tempfile.TemporaryDirectory() as d:
        one = os.path.join(d, "all.json")
        rc, out, err = run(a, "report", 3, {"LOOM_STATS": "1", "LOOM_STATS_FILE": one, "LOOM_STAT": "1"})
        both = out + err
        check(rc == 0, "report: exit 0", both)
        warn = lines_with(err, "LOOM_STAT is not a Loom setting")
        check(len(warn) == 1 and "did you mean LOOM_STATS?" in warn[0], "the unknown LOOM_STAT is named once", err)
        firsts = [err.find(f"loom[{r}] stats:") for r in range(3)]
        check(all(f >= 0 for f in firsts) and firsts == sorted(firsts), "per-rank lines, in rank order", err)
        check(all(len(lines_with(err, f"loom[{r}] stats:")) == 1 for r in range(3)), "each rank's line once", err)
        check(len(lines_with(err, "loom stats: 3 ranks")) == 1, "one summary header", err)
        allrow = [l for l in err.splitlines() if re.match(r"\s*all\s", l)]
        check(len(allrow) == 1 and "(sums over ranks)" in allrow[0], "one totals row", err)
        counted = {int(m.group(1)): (int(m.group(2)), int(m.group(3)))
                   for m in re.finditer(r"rank (\d+) counted: barriers (\d+) locks (\d+)", out)}
        check(sorted(counted) == [0, 1, 2], "every rank printed its counts", out)
        try:
            j = json.load(open(one))
        except (OSError, ValueError) as ex:
            j = None
            check(False, f"one stats file of valid JSON ({ex})", err)
        if j:
            per = j.get("per_rank", [])
            check([x["rank"] for x in per] == [0, 1, 2], "the stats file has every rank, in order", json.dumps(j)[:2000])
            check(all(per[r]["locks"] == counted[r][1] and per[r]["barriers"] == counted[r][0] for r in counted),
                  "the file counts what the program counted since loom_stats_reset", json.dumps(per)[:2000])
            t = j.get("total", {})
            check(t.get("locks") == sum(x["locks"] for x in per) and
                  t.get("read_faults") == sum(x["read_faults"] for x in per), "totals are the sums", json.dumps(t))
            check(t.get("loom", {}).get("commit") == build["commit"] and t["loom"].get("version") == build["version"],
                  "the file names the build (version, commit)", json.dumps(t.get("loom")))
            check(all(0 < x["wall"] < 60 for x in per), "each rank's wall time is there", json.dumps(per)[:2000])
        pat = os.path.join(d, "r%r.json")
        rc, out, err = run(a, "report", 3, {"LOOM_STATS_FILE": pat})
        check(rc == 0, "report with %r: exit 0", out + err)
        for r in range(3):
            try:
                x = json.load(open(pat.replace("%r", str(r))))
                check(x["rank"] == r and x["loom"]["commit"] == build["commit"] and x["locks"] == 3,
                      f"rank {r}'s own file", json.dumps(x)[:1000])
            except (OSError, ValueError, KeyError) as ex:
                check(False, f"rank {r}'s own file ({ex})", err)


def case_trace(a):
    """A traced run: the tool's summary counts what the program did."""
    tool = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools", "loom")
    with tempfile.TemporaryDirectory() as d:
        tr = os.path.join(d, "trace")
        rc, out, err = run(a, "report", 3, {"LOOM_TRACE": tr})
        check(rc == 0, "traced report: exit 0", out + err)
        counted = {int(m.group(1)): (int(m.group(2)), int(m.group(3)))
                   for m in re.finditer(r"rank (\d+) counted: barriers (\d+) locks (\d+)", out)}
        p = subprocess.run([sys.executable, tool, "trace", "summary", tr, "--json"], capture_output=True, text=True)
        check(p.returncode == 0, "loom trace summary --json", p.stdout + p.stderr)
        try:
            s = json.loads(p.stdout)
        except ValueError:
            s = {"ranks": []}
        got = {x["rank"]: x["counts"] for x in s["ranks"]}
        # Two barriers come before loom_stats_reset, which the trace does not see.
        check(sorted(got) == [0, 1, 2] and all(got[r]["lock"] == counted[r][1] == 3 and got[r]["unlock"] == 3 and
                                               got[r]["barrier"] == counted[r][0] + 2 for r in counted),
              "the trace counts every rank's locks, unlocks and barriers", json.dumps(got) + " " + str(counted))
        check(all(got[r]["fault"] >= 1 for r in got), "every rank's faults are traced", json.dumps(got))
        check(s.get("locks") and s["locks"][0]["lock"] == 0 and s["locks"][0]["acquisitions"] == 9,
              "the hottest lock is lock 0, taken 9 times", json.dumps(s.get("locks")))
        check(s.get("barriers", {}).get("count") == counted[0][0] + 2, "every barrier's arrivals are matched",
              json.dumps(s.get("barriers")))
        out_json = os.path.join(d, "view.json")
        p = subprocess.run([sys.executable, tool, "trace", "view", tr, "--out", out_json], capture_output=True, text=True)
        try:
            ev = json.load(open(out_json))["traceEvents"]
        except (OSError, ValueError, KeyError):
            ev = []
        starts = [e for e in ev if e.get("ph") == "s" and e.get("cat") == "lock"]
        check(p.returncode == 0 and 0 < len(starts) <= 8 and all(e["pid"] in (0, 1, 2) for e in starts),
              "lock hand-overs between ranks are flow arrows (at most 8 of the 9 acquisitions)", p.stdout + p.stderr)
        bar = [e for e in ev if e.get("ph") == "s" and e.get("cat") == "barrier"]
        check(len(bar) >= counted[0][0] and all(e["pid"] in (0, 1, 2) for e in bar),
              "every barrier has arrows from the last rank to arrive", f"{len(bar)} barrier arrows")
        check(any(e.get("ph") == "C" and e.get("name") == "pages" for e in ev), "cached and dirty pages are counters",
              p.stdout)
        # Clocks 20 ms apart per rank (LOOM_CLOCK_SKEW_NS): on the trace's
        # global axis the ranks still leave each barrier together.
        tr2 = os.path.join(d, "skewed")
        rc, out, err = run(a, "report", 3, {"LOOM_TRACE": tr2, "LOOM_CLOCK_SKEW_NS": "20000000"})
        p = subprocess.run([sys.executable, tool, "trace", "summary", tr2, "--json"], capture_output=True, text=True)
        try:
            b = json.loads(p.stdout).get("barriers", {})
        except ValueError:
            b = {}
        check(rc == 0 and b.get("max_exit_spread_us") is not None and b["max_exit_spread_us"] < 10000,
              "with rank clocks 20 ms apart the barrier exits line up within 10 ms", json.dumps(b) + err)


def case_tool(a):
    """loom config and loom run, as a user calls them."""
    tool = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools", "loom")
    env = dict(os.environ, LOOM_MEM_SIZE="2G", LOOM_STAT="1", LOOM_LIB_DIR=a.build)
    p = subprocess.run([sys.executable, tool, "config", "--json"], env=env, capture_output=True, text=True)
    try:
        j = json.loads(p.stdout)
        by = {r["name"]: r for r in j["settings"]}
    except (ValueError, KeyError):
        j, by = {}, {}
    check(by.get("LOOM_MEM_SIZE", {}).get("value") == "2147483648" and by["LOOM_MEM_SIZE"]["source"] == "environment",
          "loom config: a set value and where it comes from", p.stdout[:2000] + p.stderr)
    check(by.get("LOOM_LOCKS", {}).get("source") == "default" and by["LOOM_LOCKS"]["value"] == "1024",
          "loom config: a default", p.stdout[:2000])
    check(j.get("unknown") == ["LOOM_STAT"], "loom config: the typo is listed as no setting", p.stdout[-500:])
    bad = subprocess.run([sys.executable, tool, "config"], env=dict(env, LOOM_MEM_SIZE="12Q"), capture_output=True,
                         text=True)
    check(bad.returncode != 0 and "12Q" in bad.stderr, "loom config: a bad value fails, naming it", bad.stderr)
    e = dict(os.environ, LOOM_MEM_SIZE="64M")
    e.pop("LOOM_STATS", None)
    p = subprocess.run([sys.executable, tool, "run", "-n", "2", "--stats", "--mpiexec", a.mpiexec, a.prog, "report"],
                       env=e, capture_output=True, text=True, timeout=120)
    check(p.returncode == 0 and "loom run: " in p.stderr and "loom stats: 2 ranks" in p.stderr and
          "first_hour: " in p.stdout, "loom run -n 2 --stats runs the program and prints the statistics",
          p.stdout + p.stderr)


def case_config(a):
    rc, out, err = run(a, "report", 3, {"LOOM_MEM_SIZE": "12Q"})
    check(rc != 0, "a bad LOOM_MEM_SIZE fails the start", out + err)
    errs = lines_with(err, "error:")
    check(len(errs) == 1 and "12Q" in errs[0] and "(the same on all 3 ranks)" in errs[0],
          "the bad setting is printed once, for all ranks", err)


def case_collective(a):
    rc, out, err = run(a, "collective", 3, {})
    check(rc == 0, "collective: exit 0 (the program's checks pass)", out + err)
    big = lines_with(err, "more than the global memory")
    check(len(big) == 1 and "(the same on all 3 ranks)" in big[0], "a too-large collective block: one line", err)
    diff = lines_with(err, "ranks passed different arguments")
    check(len(diff) == 1 and "argument 1 (size) is 4096 on rank 0 but 12288 on rank 2" in diff[0],
          "different sizes: one line naming the argument and the ranks", err)


def case_thread_call(a):
    rc, out, err = run(a, "thread_call", 2, {})
    check(rc == 0, "a barrier called from a second thread works, and the job goes on", out + err)


def case_thread_fault(a):
    rc, out, err = run(a, "thread_fault", 2, {})
    check(rc == 0, "a fault from a second thread is served", out + err)
    check("first_hour thread_fault: the home reads 7" in out, "its write reached the home", out + err)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("case", choices=["report", "trace", "tool", "config", "collective", "thread_call", "thread_fault"])
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--prog", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--flags", default="")
    a = ap.parse_args()
    globals()["case_" + a.case](a)
    print(f"first_hour {a.case}: {'FAILED: ' + '; '.join(FAILED) if FAILED else 'ok'}")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
