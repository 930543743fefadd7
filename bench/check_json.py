#!/usr/bin/env python3
"""Validate a loom_bench JSON file against bench/schema.json.

Implements the part of JSON Schema the schema uses (type, enum, required,
properties, items, minItems, maxItems, minimum), so it needs no package.
Besides the schema it checks what the schema cannot say: min <= median <= max
and ci95 within [min, max] for every result.
  check_json.py SCHEMA FILE [--expect NAME ...]   (NAME: a result that must be present)
"""
import json
import sys

TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def is_type(v, t):
    if t == "integer":
        return isinstance(v, int) and not isinstance(v, bool)
    if t == "number":
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    return isinstance(v, TYPES[t])


def check(v, s, path, errs):
    t = s.get("type")
    if t is not None:
        ts = t if isinstance(t, list) else [t]
        if not any(is_type(v, x) for x in ts):
            errs.append(f"{path}: expected {t}, got {type(v).__name__}")
            return
    if "enum" in s and v not in s["enum"]:
        errs.append(f"{path}: {v!r} not in {s['enum']}")
    if "minimum" in s and is_type(v, "number") and v < s["minimum"]:
        errs.append(f"{path}: {v} < {s['minimum']}")
    if isinstance(v, dict):
        for k in s.get("required", []):
            if k not in v:
                errs.append(f"{path}: missing {k}")
        for k, sub in s.get("properties", {}).items():
            if k in v:
                check(v[k], sub, f"{path}.{k}", errs)
    if isinstance(v, list):
        if len(v) < s.get("minItems", 0):
            errs.append(f"{path}: fewer than {s['minItems']} items")
        if "maxItems" in s and len(v) > s["maxItems"]:
            errs.append(f"{path}: more than {s['maxItems']} items")
        if "items" in s:
            for i, x in enumerate(v):
                check(x, s["items"], f"{path}[{i}]", errs)


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    schema = json.load(open(argv[1]))
    doc = json.load(open(argv[2]))
    errs = []
    check(doc, schema, "$", errs)
    for i, r in enumerate(doc.get("results", [])):
        try:
            if not (r["min"] <= r["median"] <= r["max"]) or not (r["min"] <= r["ci95"][0] <= r["ci95"][1] <= r["max"]):
                errs.append(f"$.results[{i}] ({r['name']}): min/median/max/ci95 out of order")
        except (KeyError, TypeError, IndexError):
            pass
    names = {r.get("name") for r in doc.get("results", []) if isinstance(r, dict)}
    want = argv[argv.index("--expect") + 1:] if "--expect" in argv else []
    for w in want:
        if w not in names:
            errs.append(f"$.results: no result named {w}")
    for e in errs:
        print("check_json:", e, file=sys.stderr)
    print(f"check_json: {argv[2]}: {len(doc.get('results', []))} results, {'valid' if not errs else 'INVALID'}")
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
