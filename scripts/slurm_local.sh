#!/usr/bin/env bash
# A single-node Slurm cluster on this machine, for running strata sweeps as array jobs (and for the
# ctest case `slurm.shards`). Debian packages: slurm-wlm and munge (installed when missing, as root).
#
#   scripts/slurm_local.sh start [DIR]   start munged, slurmctld and slurmd on localhost; state,
#                                        logs and slurm.conf in DIR (default /tmp/strata-slurm);
#                                        prints `export SLURM_CONF=DIR/slurm.conf`
#   scripts/slurm_local.sh stop [DIR]    stop the daemons started from DIR
#   scripts/slurm_local.sh status [DIR]  sinfo of the cluster
#
# The node is this machine with the CPUs and memory `slurmd -C` reports; one partition `strata`.
# Daemons run as root with munge authentication, the configuration Debian's slurm-wlm ships
# (slurm.conf(5)); nothing is written outside DIR except munge's socket in /run/munge. Ports:
# 6817/6818, or the next free pair when another cluster holds them.
# Exit status 0 once `sinfo` shows the node idle; 2 for a DIR with a space or '#' (slurm.conf
# cannot hold it); 3 when Slurm cannot start here (no root, no packages and no apt-get, or a daemon
# that does not come up), with the reason on stderr.
set -euo pipefail

cmd=${1:-}
dir=${2:-/tmp/strata-slurm}
conf="$dir/slurm.conf"

cannot() {
  echo "slurm_local.sh: Slurm cannot start here: $*" >&2
  exit 3
}

# Stops the daemon whose pid file is $dir/$1.pid and waits (up to 10 s) until it has exited, so
# that nothing writes in DIR once `stop` returns.
stop_one() {
  local f="$dir/$1.pid" pid
  [[ -f "$f" ]] || return 0
  pid=$(cat "$f")
  if [[ -n "$pid" ]] && kill "$pid" 2>/dev/null; then
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  fi
  rm -f "$f"
}

stop() {
  stop_one slurmd
  stop_one slurmctld
  stop_one munged
}

case "$cmd" in
  stop)
    stop
    exit 0
    ;;
  status)
    SLURM_CONF="$conf" sinfo
    exit 0
    ;;
  start) ;;
  *)
    sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac

# slurm.conf holds DIR's paths unquoted: a space or '#' in them is refused here, not by a daemon
# that starts and dies (a caller with a long or spaced tree passes a short directory, e.g. mktemp -d).
if [[ "$dir" =~ [[:space:]#] ]]; then
  echo "slurm_local.sh: DIR '$dir' has a space or '#', which slurm.conf cannot hold: give a directory without them" >&2
  exit 2
fi
[[ $(id -u) -eq 0 ]] || cannot "the daemons need root (run as root)"
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null; then
  command -v apt-get >/dev/null || cannot "slurm-wlm and munge are not installed and there is no apt-get"
  { apt-get install -y --no-install-recommends slurm-wlm munge >/dev/null 2>&1 ||
    { apt-get update >/dev/null 2>&1 && apt-get install -y --no-install-recommends slurm-wlm munge >/dev/null 2>&1; }; } ||
    cannot "apt-get could not install slurm-wlm and munge"
fi

mkdir -p "$dir/state" "$dir/spool"
stop  # a cluster left from an earlier run of the same DIR

# munge: the key Debian's package created, or a fresh one.
if [[ ! -s /etc/munge/munge.key ]]; then
  mungekey --create >/dev/null 2>&1 || cannot "no munge key and mungekey failed"
fi
mkdir -p /run/munge /var/log/munge /var/lib/munge
chown munge:munge /run/munge /var/log/munge /var/lib/munge 2>/dev/null || true
if ! munge -n >/dev/null 2>&1; then
  munged --force --pid-file="$dir/munged.pid" >/dev/null 2>&1 ||
    munged --force >/dev/null 2>&1 || cannot "munged did not start"
fi
for _ in $(seq 50); do munge -n >/dev/null 2>&1 && break; sleep 0.1; done
munge -n >/dev/null 2>&1 || cannot "munged does not answer"

# Ports: Slurm's defaults 6817 (slurmctld) and 6818 (slurmd), or the next free pair, so that a
# cluster another user or test started on this machine is neither reused nor disturbed.
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
ctld_port=6817
while ! port_free "$ctld_port" || ! port_free $((ctld_port + 1)); do
  ctld_port=$((ctld_port + 2))
  [[ $ctld_port -le 6917 ]] || cannot "no free port pair in 6817-6918 for slurmctld and slurmd"
done

# The node as slurmd sees it: CPUs, boards, sockets, cores, threads, memory.
node=$(slurmd -C | head -1 | sed -E 's/^NodeName=[^ ]+ //; s/ UpTime=.*//')
cat >"$conf" <<EOF
# Written by scripts/slurm_local.sh: one node (this machine), one partition.
ClusterName=strata
SlurmctldHost=localhost
SlurmctldPort=$ctld_port
SlurmdPort=$((ctld_port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=localhost NodeAddr=127.0.0.1 $node State=UNKNOWN
PartitionName=strata Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF

slurmctld -f "$conf" -i >/dev/null 2>&1 || cannot "slurmctld did not start (log: $dir/slurmctld.log)"
slurmd -f "$conf" -N localhost >/dev/null 2>&1 || cannot "slurmd did not start (log: $dir/slurmd.log)"
alive() { [[ -s "$dir/$1.pid" ]] && kill -0 "$(cat "$dir/$1.pid")" 2>/dev/null; }
for _ in $(seq 100); do
  if alive slurmctld && alive slurmd && SLURM_CONF="$conf" sinfo -h -o '%t' 2>/dev/null | grep -qE '^idle'; then
    printf 'export SLURM_CONF=%q\n' "$conf"
    exit 0
  fi
  sleep 0.2
done
cannot "the node did not become idle in 20 s (logs: $dir/slurmctld.log, $dir/slurmd.log)"
