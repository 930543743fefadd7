#!/usr/bin/env bash
# An emulated cluster on one machine: N hosts made of Linux network
# namespaces, joined by a bridge that lives in a namespace of its own, and a
# way to run an MPI program across them with one plain mpiexec.
#
#   scripts/cluster.sh up N [RATE]     make hosts 0..N-1 (RATE: tc tbf limit on
#                                      both ends of each link, e.g. 1gbit, 100mbit)
#   scripts/cluster.sh down            remove everything `up` made (safe twice)
#   scripts/cluster.sh status          print the hosts and their addresses
#   scripts/cluster.sh run H R [--] prog [args...]
#                                      run prog on H hosts x R ranks each (ranks
#                                      0..R-1 on host 0, R..2R-1 on host 1, ...)
#   scripts/cluster.sh exec I [--] cmd [args...]
#                                      run one command on host I (no MPI)
#                                      (`run` takes MPICH's mpiexec, hydra, or
#                                      Open MPI's, prterun: MPIEXEC)
#   scripts/cluster.sh links RATE      print what `up N RATE` makes each link, as
#                                      a platform file for `loom predict --platform`
#                                      (the token bucket: burst_bytes; no root)
#
# Host i is the namespace ${LOOM_CLUSTER_PREFIX}h<i> (default prefix "loomc-"),
# address 198.18.0.<i+1>/24 (the benchmarking range, assigned only inside the
# namespaces), host name node<i>.  The bridge is the namespace
# ${LOOM_CLUSTER_PREFIX}br.  Nothing is configured in the root namespace and
# no traffic leaves the namespaces.
#
# Needs root and `ip netns`; without them every subcommand prints one line
# saying why and exits with 77 (the tests show as skipped).
#
# Environment: LOOM_CLUSTER_PREFIX (namespace prefix, so that two clusters do
# not collide), MPIEXEC (default: mpiexec from the project's .venv, else PATH),
# LOOM_CLUSTER_NOLOCAL=1 (push same-host MPI traffic through TCP as well),
# LOOM_CLUSTER_CPUS=K (host i's ranks and their threads run on cores
# iK..iK+K-1 only, as on machines of K cores each; default: no binding),
# LOOM_CLUSTER_TCP (the hosts' TCP congestion control, default cubic, else
# reno where the machine does not allow cubic in namespaces: set in each
# host, never from the machine's default, which may pace: under bbr, MG
# across 1 Gbit/s links stalled 10 ms at 17-27 barriers a run; `status`
# names the one in use), LOOM_CLUSTER_QUICKACK=1 (the hosts' routes
# acknowledge at once, `quickack 1`, instead of TCP's delayed
# acknowledgements: a 4 KiB MPI_Get then loses the lower of the levels
# ~5 us apart that it otherwise moves between; hand-written MPI MG 0.76x,
# Loom's 0.91x; docs/BENCHMARKS.md "The page fetch against a get on the
# same level"), LOOM_CLUSTER_CGROUP=0 (an Open MPI run stays in the
# caller's cpu cgroup instead of one of the cluster's own: run_openmpi).
# `run` passes the whole environment (LOOM_* included) to every rank.
set -euo pipefail

SKIP=77
PREFIX=${LOOM_CLUSTER_PREFIX:-loomc-}
BRNS=${PREFIX}br
STATE_DIR=/run/loom-cluster
STATE=$STATE_DIR/${PREFIX}state
TCP_CC=${LOOM_CLUSTER_TCP:-cubic}
QUICKACK=${LOOM_CLUSTER_QUICKACK:-0}
case "$QUICKACK" in 0 | 1) ;; *) echo "cluster.sh: LOOM_CLUSTER_QUICKACK=$QUICKACK: use 0 or 1" >&2; exit 2 ;; esac
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

die() { echo "cluster.sh: $*" >&2; exit 1; }
skip() { echo "cluster.sh: skipped: $*" >&2; exit $SKIP; }

usage() {
  sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
}

# Root and network namespaces, or exit 77 with the reason.
need_netns() {
  [ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces); run as root to use the emulated cluster"
  command -v ip >/dev/null 2>&1 || skip "no 'ip' command (iproute2)"
  command -v nsenter >/dev/null 2>&1 && command -v unshare >/dev/null 2>&1 || skip "no nsenter/unshare (util-linux)"
  local probe=${PREFIX}probe$$
  if ! ip netns add "$probe" >/dev/null 2>&1; then
    skip "'ip netns add' fails here (no network namespace support or no CAP_SYS_ADMIN)"
  fi
  if ! ip -n "$probe" link add p0 type veth peer name p1 >/dev/null 2>&1; then
    ip netns del "$probe" >/dev/null 2>&1 || true
    skip "no veth support in this kernel"
  fi
  ip netns del "$probe" >/dev/null 2>&1 || true
}

host_ns() { echo "${PREFIX}h$1"; }

# Namespaces of this prefix (hosts and the bridge).
our_namespaces() {
  ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^${PREFIX//./\\.}(h[0-9]+|br)$" || true
}

lock() {
  mkdir -p "$STATE_DIR"
  exec 9>"$STATE_DIR/${PREFIX}lock"
  flock 9
}

do_down() {
  local ns pids
  # Ranks left behind in a host (a killed mpiexec) would keep its namespace
  # alive: end them first (only processes inside this cluster's namespaces).
  for ns in $(our_namespaces); do
    pids=$(ip netns pids "$ns" 2>/dev/null || true)
    [ -z "$pids" ] || { kill -TERM $pids 2>/dev/null || true; sleep 0.5; kill -KILL $pids 2>/dev/null || true; }
  done
  for ns in $(our_namespaces); do
    ip netns del "$ns" 2>/dev/null || true   # deletes its veth ends; the peers go with them
  done
  rm -f "$STATE" "$STATE.tcp"
  local dir
  dir=$(cpu_group_dir)
  [ -z "$dir" ] || rmdir "$dir" 2>/dev/null || true   # (still in use by a run: stays)
}

# tbf needs a bucket of at least one timer tick of traffic; 2 ms worth, >= 64 KiB.
tbf_burst() {
  local rate=$1 n unit bits
  n=$(echo "$rate" | sed -E 's/^([0-9]+).*/\1/')
  unit=$(echo "$rate" | sed -E 's/^[0-9]+//' | tr 'A-Z' 'a-z')
  case "$unit" in
    bit|"") bits=$n ;;
    kbit) bits=$((n * 1000)) ;;
    mbit) bits=$((n * 1000000)) ;;
    gbit) bits=$((n * 1000000000)) ;;
    *) die "rate '$rate': use <n>bit, <n>kbit, <n>mbit or <n>gbit" ;;
  esac
  local b=$((bits / 8 / 500))
  [ "$b" -lt 65536 ] && b=65536
  echo "$b"
}

do_up() {
  local n=${1:-} rate=${2:-}
  [[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] && [ "$n" -le 250 ] || die "up: N must be 1..250"
  [ -z "$rate" ] || tbf_burst "$rate" >/dev/null
  need_netns
  lock
  # Already up with the same shape: nothing to do.
  if [ -f "$STATE" ] && [ "$(cat "$STATE")" = "$n ${rate:-none} $TCP_CC $QUICKACK" ] &&
     [ "$(our_namespaces | wc -l)" -eq $((n + 1)) ] && healthy "$n"; then
    return 0
  fi
  do_down
  trap 'rc=$?; if [ $rc -ne 0 ]; then echo "cluster.sh: up failed; removing what it made" >&2; do_down; fi' EXIT
  trap 'exit 130' INT TERM HUP
  ip netns add "$BRNS"
  ip -n "$BRNS" link set lo up
  ip -n "$BRNS" link add br0 type bridge
  ip -n "$BRNS" link set br0 up
  local i ns burst=
  [ -z "$rate" ] || burst=$(tbf_burst "$rate")
  for ((i = 0; i < n; i++)); do
    ns=$(host_ns "$i")
    ip netns add "$ns"
    ip -n "$ns" link set lo up
    # IPv4 only: no IPv6 link-local chatter on the links.
    ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 2>/dev/null || true
    # Both ends are created inside namespaces: nothing touches the root one.
    ip -n "$ns" link add eth0 type veth peer name "h$i" netns "$BRNS"
    ip -n "$ns" addr add "198.18.0.$((i + 1))/24" dev eth0
    ip -n "$ns" link set eth0 up
    [ "$QUICKACK" = 0 ] ||
      ip -n "$ns" route change 198.18.0.0/24 dev eth0 proto kernel scope link src "198.18.0.$((i + 1))" quickack 1
    set_tcp "$ns" >"$STATE.tcp"
    ip -n "$BRNS" link set "h$i" master br0
    ip -n "$BRNS" link set "h$i" up
    if [ -n "$rate" ]; then
      ip netns exec "$ns" tc qdisc add dev eth0 root tbf rate "$rate" burst "$burst" latency 50ms
      ip netns exec "$BRNS" tc qdisc add dev "h$i" root tbf rate "$rate" burst "$burst" latency 50ms
    fi
  done
  # Wait for the links (and duplicate address detection is moot: IPv4 only).
  local tries=0
  until healthy "$n"; do
    tries=$((tries + 1))
    [ $tries -lt 50 ] || die "up: hosts cannot reach each other"
    sleep 0.1
  done
  echo "$n ${rate:-none} $TCP_CC $QUICKACK" >"$STATE"
  local got
  got=$(cat "$STATE.tcp")
  [ "$got" = "$TCP_CC" ] || echo "cluster.sh: TCP congestion control $TCP_CC is not allowed in namespaces here" \
    "(net.ipv4.tcp_allowed_congestion_control: $(sysctl -n net.ipv4.tcp_allowed_congestion_control 2>/dev/null));" \
    "the hosts use $got" >&2
  trap - EXIT INT TERM HUP
}

# The host's TCP congestion control: LOOM_CLUSTER_TCP, else cubic, else
# reno (a namespace may set only those in the machine's allowed list);
# prints the one set, or the namespace's default where none could be.
set_tcp() {
  local ns=$1 c
  for c in "$TCP_CC" cubic reno; do
    if ip netns exec "$ns" sysctl -qw net.ipv4.tcp_congestion_control="$c" 2>/dev/null; then
      echo "$c"
      return 0
    fi
  done
  ip netns exec "$ns" sysctl -n net.ipv4.tcp_congestion_control
}

# Every host's link is up at both ends (no ping needed: carrier on the veth
# pair, the bridge port forwarding).
healthy() {
  local n=$1 i
  ip -n "$BRNS" -o link show br0 2>/dev/null | grep -q 'state UP' || return 1
  for ((i = 0; i < n; i++)); do
    ip -n "$(host_ns "$i")" -o link show eth0 2>/dev/null | grep -q 'state UP' || return 1
    ip -n "$(host_ns "$i")" -o addr show eth0 2>/dev/null | grep -q "198\.18\.0\.$((i + 1))/" || return 1
    ip -n "$BRNS" -o link show "h$i" 2>/dev/null | grep -q 'state UP' || return 1
  done
}

cluster_size() {
  [ -f "$STATE" ] || { echo 0; return; }
  cut -d' ' -f1 "$STATE"
}

do_status() {
  need_netns
  local n i
  n=$(cluster_size)
  if [ "$n" -eq 0 ]; then echo "no cluster (prefix $PREFIX)"; return 0; fi
  local rate
  rate=$(cut -d' ' -f2 "$STATE")
  echo "prefix $PREFIX: $n hosts, rate $rate$([ "$rate" = none ] || echo ", bucket $(tbf_burst "$rate") bytes"), TCP $(cat "$STATE.tcp" 2>/dev/null || echo '?')$([ "$(cut -d' ' -f4 "$STATE")" = 1 ] && echo ', routes quickack 1')"
  for ((i = 0; i < n; i++)); do echo "  host $i: netns $(host_ns "$i"), node$i, 198.18.0.$((i + 1))"; done
}

find_mpiexec() {
  if [ -n "${MPIEXEC:-}" ]; then echo "$MPIEXEC"; return; fi
  if [ -x "$HERE/../.venv/bin/mpiexec" ]; then echo "$HERE/../.venv/bin/mpiexec"; return; fi
  command -v mpiexec || die "no mpiexec (set MPIEXEC)"
}

# One rank's wrapper (into the array WRAP): enter host i's network, take a
# host name of its own (a UTS namespace per process, same name per host).
wrap() {
  local i=$1 k=${LOOM_CLUSTER_CPUS:-0}
  WRAP=(nsenter "--net=/run/netns/$(host_ns "$i")" unshare --uts sh -c 'hostname "$0" && exec "$@"' "node$i")
  if [ "$k" -gt 0 ]; then
    local last=$(((i + 1) * k - 1))
    # (the machine's cores: counted before any binding, so that Open MPI's
    # agent, bound with host 0 already, counts them all; run_openmpi)
    local cores=${LOOM_CLUSTER_NPROC:-$(nproc)}
    [ "$last" -lt "$cores" ] || die "LOOM_CLUSTER_CPUS=$k: host $i needs core $last, this machine has $cores"
    WRAP=(taskset -c "$((i * k))-$last" "${WRAP[@]}")
  fi
}

do_run() {
  local h=${1:-} r=${2:-}
  [[ "$h" =~ ^[0-9]+$ ]] && [ "$h" -ge 1 ] || die "run: H (hosts) must be >= 1"
  [[ "$r" =~ ^[0-9]+$ ]] && [ "$r" -ge 1 ] || die "run: R (ranks per host) must be >= 1"
  shift 2
  [ "${1:-}" = "--" ] && shift
  [ $# -ge 1 ] || die "run: no program"
  need_netns
  local n
  n=$(cluster_size)
  [ "$n" -ge "$h" ] || die "run: the cluster has $n hosts (prefix $PREFIX); run 'cluster.sh up $h' first"
  local mpiexec hosts= i args=()
  mpiexec=$(find_mpiexec)
  # Read the whole answer first: with pipefail, "| grep -q" could end the
  # pipeline early, mpiexec would die of SIGPIPE and the check fail at random.
  local version
  version=$("$mpiexec" --version 2>&1 || true)
  if [[ "$version" == *"Open MPI"* || "$version" == *prterun* ]]; then
    run_openmpi "$h" "$r" "$mpiexec" "$@"
  fi
  [[ "$version" == *HYDRA* ]] ||
    skip "'run' needs MPICH's mpiexec (hydra) or Open MPI's (prterun); $mpiexec is neither"
  # Hydra places ranks in order, R per host, matching the MPMD segments.
  for ((i = 0; i < h; i++)); do hosts+="${hosts:+,}node$i:$r"; done
  for ((i = 0; i < h; i++)); do
    [ $i -eq 0 ] || args+=(:)
    wrap "$i"
    args+=(-n "$r" "${WRAP[@]}" "$@")
  done
  # MPICH between namespaces: libfabric's TCP provider on each host's eth0.
  # Hydra launches every proxy here (launcher fork) but believes the hosts
  # are distinct, so MPI's shared-memory communicator groups the ranks of
  # one emulated host, as on a real cluster.
  export MPIR_CVAR_CH4_NETMOD=${MPIR_CVAR_CH4_NETMOD:-ofi}
  export FI_PROVIDER=${FI_PROVIDER:-tcp}
  export FI_TCP_IFACE=${FI_TCP_IFACE:-eth0}
  [ "${LOOM_CLUSTER_NOLOCAL:-0}" = 1 ] && export MPIR_CVAR_NOLOCAL=1
  exec "$mpiexec" -launcher fork -hosts "$hosts" "${args[@]}"
}

# Open MPI: a daemon per host, as on a cluster.  mpiexec runs inside host
# 0 and starts host i's daemon (prted) through `cluster.sh agent`, which
# enters host i before it execs the daemon's command; each daemon starts
# its host's ranks, so Open MPI sees H nodes (shared memory inside a host,
# TCP on eth0 between hosts).  --map-by slot with R slots a host puts ranks
# 0..R-1 on host 0 and so on; --bind-to none leaves the cores to
# LOOM_CLUSTER_CPUS (Open MPI would bind every host's first rank to core 0
# of this one machine).  The daemons inherit this environment, and the
# ranks theirs.
run_openmpi() {
  local h=$1 r=$2 mpiexec=$3 i hostfile
  shift 3
  one_cpu_group
  hostfile=$(mktemp /tmp/loom-cluster-hosts.XXXXXX)
  for ((i = 0; i < h; i++)); do echo "node$i slots=$r"; done >"$hostfile"
  if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
  # (UCX's one-sided component finds no UCX transport here and says so at
  # every window; the others serve one-sided operations over the BTLs.)
  export OMPI_MCA_osc=${OMPI_MCA_osc:-^ucx}
  LOOM_CLUSTER_NPROC=$(nproc)
  export LOOM_CLUSTER_NPROC
  wrap 0
  local rc=0
  "${WRAP[@]}" "$mpiexec" --hostfile "$hostfile" --map-by slot --bind-to none \
    --prtemca plm_ssh_agent "$HERE/cluster.sh agent" --prtemca oob_tcp_if_include eth0 \
    --mca pml ob1 --mca btl tcp,sm,self --mca btl_tcp_if_include eth0 -n $((h * r)) "$@" || rc=$?
  rm -f "$hostfile"
  exit $rc
}

# Open MPI's mpiexec starts host 0's ranks in this process's session and
# host i's in the session of its daemon (prted), and where the kernel groups
# tasks by session for scheduling (autogroup: the default on most desktop
# and many server kernels) the emulated hosts, which share this machine's
# cores, were scheduled as groups against each other: at 2 hosts x 2 ranks
# on 2 cores one host's waiting ranks, polling with sched_yield, ran 2.0 s
# of every 2 s while the other host's threads, which they waited for, sat
# runnable on the run queue (SPLASH-3 RADIX under rma 57-68 s instead of
# 3-5, OCEAN 115 s instead of 2; docs/BENCHMARKS.md, "Open MPI across 2
# emulated hosts x 2: one cpu group").
# MPICH's launcher gives each rank a session of its own and never showed it.
# So an Open MPI run goes into one cpu cgroup of the cluster's own, where
# the kernel schedules every thread of every host one by one, as it does
# the ranks of one mpiexec on one machine; the daemons and ranks inherit
# it.  Nothing where no cpu controller can be used (LOOM_CLUSTER_CGROUP=0:
# never).  `down` removes the group.
cpu_group_dir() {
  if [ -w /sys/fs/cgroup/cpu/cgroup.procs ]; then
    echo "/sys/fs/cgroup/cpu/${PREFIX}run"   # cgroup v1
  elif grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
    echo "/sys/fs/cgroup/${PREFIX}run"       # cgroup v2, cpu enabled below the root
  fi
}

one_cpu_group() {
  [ "${LOOM_CLUSTER_CGROUP:-1}" != 0 ] || return 0
  local dir
  dir=$(cpu_group_dir)
  [ -n "$dir" ] || return 0
  { mkdir -p "$dir" && echo $$ >"$dir/cgroup.procs"; } 2>/dev/null || true
}

# `agent [options] nodeI COMMAND`: how Open MPI's mpiexec starts host I's
# daemon (run_openmpi): the command, a shell line, run inside host I.
do_agent() {
  while [ $# -gt 0 ] && [[ "$1" == -* ]]; do shift; done
  local node=${1:-}
  [[ "$node" =~ ^node[0-9]+$ ]] || die "agent: no host node<i> in '$*'"
  shift
  wrap "${node#node}"
  exec "${WRAP[@]}" sh -c "$*"
}

do_exec() {
  local i=${1:-}
  [[ "$i" =~ ^[0-9]+$ ]] || die "exec: host index"
  shift
  [ "${1:-}" = "--" ] && shift
  need_netns
  [ "$(cluster_size)" -gt "$i" ] || die "exec: no host $i (prefix $PREFIX)"
  wrap "$i"
  exec "${WRAP[@]}" "$@"
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
  up) do_up "$@" ;;
  down)
    [ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces)"
    command -v ip >/dev/null 2>&1 || skip "no 'ip' command (iproute2)"
    lock
    do_down
    ;;
  status) do_status ;;
  links)
    [ $# -eq 1 ] || die "links: give the rate, e.g. links 100mbit"
    b=$(tbf_burst "$1")
    printf '{"format": "loom-platform 1", "name": "emulated links, tc tbf %s, bucket %s bytes (scripts/cluster.sh)",\n "between_hosts": {"burst_bytes": %s}}\n' "$1" "$b" "$b"
    ;;
  run) do_run "$@" ;;
  exec) do_exec "$@" ;;
  agent) do_agent "$@" ;;
  *) usage ;;
esac
