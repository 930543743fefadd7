"""`loom --help` and every command's page read like a man page: NAME,
DESCRIPTION, the options, EXIT STATUS, EXAMPLES and SEE ALSO, in that
order; `loom help CMD` prints the same page; the top page lists every
command; and every example is a command line the tool accepts (parsed by
its own parser), whose repository files exist.
  loom_help.py REPO"""
import argparse
import contextlib
import importlib.machinery
import importlib.util
import io
import os
import shlex
import subprocess
import sys

repo = sys.argv[1]
tool = os.path.join(repo, "tools", "loom")
loader = importlib.machinery.SourceFileLoader("loom_tool", tool)
spec = importlib.util.spec_from_loader("loom_tool", loader)
lt = importlib.util.module_from_spec(spec)
loader.exec_module(lt)
fails = []


def check(ok, what, detail=""):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        fails.append(what)
        if detail:
            print("--- " + detail[:3000])


def out_of(*args):
    p = subprocess.run([sys.executable, tool, *args], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


rc, top = out_of("--help")
check(rc == 0 and all(s in top for s in ("NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "SEE ALSO")),
      "loom --help has NAME, SYNOPSIS, DESCRIPTION, COMMANDS and SEE ALSO", top)
ap, sub = lt.parser()
for name in sorted(lt.MAN):
    check(f"\n  {name} " in top.split("COMMANDS", 1)[-1] and f"loom {name}" in top.split("SYNOPSIS", 1)[-1],
          f"the top page lists {name} in SYNOPSIS and COMMANDS", top)
    rc, page = out_of(name, "--help")
    opts = "options:" if "options:" in page else "optional arguments:"  # (Python before 3.10)
    heads = ["usage: loom " + name, "NAME", "DESCRIPTION", opts, "EXIT STATUS", "EXAMPLES"]
    pos = [page.find(h) for h in heads]
    check(rc == 0 and all(p >= 0 for p in pos) and pos == sorted(pos),
          f"loom {name} --help: " + ", ".join(heads) + " in order", page)
    rc2, page2 = out_of("help", name)
    check(rc2 == 0 and page2 == page, f"loom help {name} is loom {name} --help", page2)
    examples = page.split("EXAMPLES", 1)[-1].split("SEE ALSO", 1)[0]
    lines = [x.strip() for x in examples.splitlines() if x.strip()]
    check(len(lines) >= 1, f"loom {name}: at least one example", examples)
    for line in lines:
        words = shlex.split(line)
        while words and "=" in words[0] and words[0].split("=", 1)[0].isupper():
            words.pop(0)  # VAR=value before the command
        ok = words[:2] == ["loom", name]
        err = io.StringIO()
        if ok:
            try:
                with contextlib.redirect_stderr(err):
                    ap.parse_args(words[1:])
            except SystemExit:
                ok = False
        files = [w for w in words if w.startswith(("docs/", "tools/"))]
        check(ok and all(os.path.exists(os.path.join(repo, f)) for f in files),
              f"the example '{line}' parses and its files exist", err.getvalue())
if fails:
    print(f"loom_help: FAILED: {len(fails)} checks")
    sys.exit(1)
print("loom_help: ok")
