#!/bin/bash
# summary.sh run.out: per program and setting, the runs' wall times (sorted),
# how many ran past 10 s and how many were cut at 60 s, and the program's own
# times where it prints them.
f=${1:-$(dirname "$0")/run.out}
awk '/ cgroup=/ {
  split($2, c, "="); k = $1 " cgroup=" c[2]
  w = $5 / 1000; walls[k] = walls[k] sprintf(" %.1f", w); n[k]++
  if (w > 10) late[k]++
  if ($3 == "rc=124") cut[k]++
  if ($7 == "own") owns[k] = owns[k] sprintf(" %.1f", $8 / 1000)
}
END {
  for (k in n) printf "%-30s runs %d, past 10 s %d, cut at 60 s %d; wall s:%s%s\n", k, n[k], late[k] + 0, cut[k] + 0, walls[k], owns[k] ? "; own s:" owns[k] : ""
}' "$f" | sort
