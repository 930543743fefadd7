#!/bin/sh
# cluster_tcp.sh: the emulated cluster's hosts (scripts/cluster.sh up 2, done
# by the fixture) use the TCP congestion control `status` names, cubic or
# reno (LOOM_CLUSTER_TCP unset), whatever the machine's default is: a
# default that paces (bbr) stalled MG's barriers 10 ms apiece behind the
# links' token bucket (docs/MODEL.md, "A thirteenth run").  And the hosts'
# routes say `quickack 1` exactly when status says so
# (LOOM_CLUSTER_QUICKACK).
here=$(cd "$(dirname "$0")" && pwd)
cl=$here/../scripts/cluster.sh
[ "$(id -u)" -eq 0 ] || { echo "cluster_tcp.sh: skipped: needs root"; exit 77; }
st=$("$cl" status 2>/dev/null) || exit 77
said=$(echo "$st" | sed -n 's/.*, TCP \([a-z0-9]*\).*/\1/p')
qa=0
echo "$st" | grep -q ', routes quickack 1' && qa=1
fail=0
for i in 0 1; do
  got=$("$cl" exec $i -- sysctl -n net.ipv4.tcp_congestion_control)
  echo "cluster_tcp.sh: host $i uses $got (status: $said; the machine's default: $(sysctl -n net.ipv4.tcp_congestion_control))"
  [ "$got" = "$said" ] || { echo "FAIL: host $i uses $got where status says $said"; fail=1; }
  case "$got" in cubic|reno) ;; *) echo "FAIL: host $i uses $got, not cubic or reno"; fail=1 ;; esac
  r=0
  "$cl" exec $i -- ip route | grep -q 'quickack 1' && r=1
  [ "$r" = "$qa" ] || { echo "FAIL: host $i's routes have quickack $r where status says $qa"; fail=1; }
done
[ $fail -eq 0 ] && echo "cluster_tcp.sh: ok"
exit $fail
