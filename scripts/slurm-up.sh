#!/usr/bin/env bash
# Start a real Slurm (Debian's slurm-wlm 22.05 on bookworm) on loopback for the test suite:
# munged, one slurmctld and SLURM_NODES slurmd daemons on this host, each started as
# `slurmd -N nodeNN` with its own port. Idempotent: a healthy cluster is left alone, a missing
# daemon is started again. Runs as root (apt-get, /etc/slurm, munge). No systemd needed.
#
#   SLURM_NODES=6            compute nodes node01..nodeNN (the tests need at least 4)
#   SLURM_SLURMD_TIMEOUT=6   seconds before slurmctld marks a silent slurmd DOWN (kept short
#                            so the "slurmd stopped" test does not wait long)
#   SLURM_FRESH=1            wipe the controller's saved state when slurmctld starts cold
# Exits non-zero when the cluster cannot be brought up: tests must fail, not skip.
set -euo pipefail

NODES=${SLURM_NODES:-6}
SLURMD_TIMEOUT=${SLURM_SLURMD_TIMEOUT:-6}
FRESH=${SLURM_FRESH:-1}
CONF_DIR=/etc/slurm
CONF=$CONF_DIR/slurm.conf
STATE_DIR=/var/spool/slurmctld
SPOOL_DIR=/var/spool/slurmd
LOG_DIR=/var/log/slurm
FIRST_PORT=17000
HERE=$(cd "$(dirname "$0")" && pwd)

say() { echo "[slurm-up] $*" >&2; }
# A pid file names a live daemon of ours: the pid may since belong to another process (a
# machine reused after the daemon died), so its command must be a Slurm or MUNGE daemon.
running() {
  [ -s "$1" ] || return 1
  local pid; pid=$(cat "$1")
  kill -0 "$pid" 2>/dev/null && grep -qE '^(slurmctld|slurmd|munged)$' "/proc/$pid/comm" 2>/dev/null
}
node_name() { printf 'node%02d' "$1"; }

[ "$(id -u)" = 0 ] || { say "must run as root"; exit 1; }
[ "$NODES" -ge 1 ] || { say "SLURM_NODES must be at least 1"; exit 1; }

# --- 1. packages (only when missing; the first install takes a few seconds)
missing=()
for pkg in slurmctld slurmd slurm-client munge; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # Their postinst scripts try to start services; without an init system that is refused, harmlessly.
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# slurm-wlm-emulator, if someone installed it, takes over these alternatives with broken
# daemons; point them back at the real ones.
update-alternatives --set slurmd /usr/sbin/slurmd-wlm >/dev/null 2>&1 || true
update-alternatives --set slurmctld /usr/sbin/slurmctld-wlm >/dev/null 2>&1 || true

# --- 2. munge (every Slurm message is signed with it)
if [ ! -s /etc/munge/munge.key ]; then
  say "creating a munge key"
  install -d -o munge -g munge -m 0700 /etc/munge
  mungekey --create --keyfile=/etc/munge/munge.key --force
fi
chown munge:munge /etc/munge/munge.key
chmod 0400 /etc/munge/munge.key
install -d -o munge -g munge -m 0755 /run/munge
install -d -o munge -g munge -m 0700 /var/log/munge /var/lib/munge
munge_works() { munge -n 2>/dev/null | unmunge >/dev/null 2>&1; }
if ! running /run/munge/munged.pid || ! munge_works; then
  say "starting munged"
  rm -f /run/munge/munged.pid /run/munge/munge.socket.2*
  runuser -u munge -- /usr/sbin/munged
  for _ in $(seq 50); do munge_works && break; sleep 0.1; done
fi
munge_works || { say "munge does not work"; exit 1; }

# --- 3. slurm.conf, with the real CPU layout so no node is drained for "Low CPUs"
host=$(hostname -s)
layout=$(/usr/sbin/slurmd-wlm -C | head -n 1)
field() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<<"$layout"; }
cpus=$(field CPUs); sockets=$(field SocketsPerBoard); cores=$(field CoresPerSocket); threads=$(field ThreadsPerCore)

new_conf=$(mktemp)
{
  cat <<CONF
# Written by hyperpod-nccl scripts/slurm-up.sh: $NODES slurmd on one host, loopback only.
ClusterName=hpn-test
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=6817
SlurmdPort=6818
AuthType=auth/munge
CredType=cred/munge
# Bind each slurmd to its NodeAddr (127.0.0.1), not to every address.
CommunicationParameters=NoInAddrAny
StateSaveLocation=$STATE_DIR
# %n keeps the slurmd daemons of one host apart.
SlurmdSpoolDir=$SPOOL_DIR/%n
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd-%n.pid
SlurmctldLogFile=$LOG_DIR/slurmctld.log
SlurmdLogFile=$LOG_DIR/slurmd-%n.log
# No cgroups in a container: track processes by parent id, no task binding.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
# A DOWN set by an administrator stays DOWN; a node DOWN only for "Not responding" comes back
# when its slurmd registers again.
ReturnToService=1
SlurmdTimeout=$SLURMD_TIMEOUT
SlurmctldTimeout=30
MessageTimeout=10
InactiveLimit=0
KillWait=5
MinJobAge=300
# Job scripts as HyperPod clusters have them. The variables they set are what the tool's
# prolog check reads; the tests also show which of them reach a job's tasks.
Prolog=$CONF_DIR/hpn-prolog.sh
TaskProlog=$CONF_DIR/hpn-task-prolog.sh
CONF
  for i in $(seq 1 "$NODES"); do
    echo "NodeName=$(node_name "$i") NodeHostname=$host NodeAddr=127.0.0.1 Port=$((FIRST_PORT + i)) CPUs=$cpus SocketsPerBoard=$sockets CoresPerSocket=$cores ThreadsPerCore=$threads RealMemory=1000 State=UNKNOWN"
  done
  echo "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
} >"$new_conf"

mkdir -p "$CONF_DIR" "$STATE_DIR" "$SPOOL_DIR" "$LOG_DIR"
# slurmd runs the Prolog as root before a job; its environment does not reach the job.
cat >"$CONF_DIR/hpn-prolog.sh" <<'SCRIPT'
#!/bin/sh
# hyperpod-nccl test cluster: a prolog that (ineffectively) exports an NCCL variable.
export NCCL_SOCKET_IFNAME=lo
exit 0
SCRIPT
# The TaskProlog's standard output lines "export NAME=value" set variables in each task.
cat >"$CONF_DIR/hpn-task-prolog.sh" <<'SCRIPT'
#!/bin/sh
# hyperpod-nccl test cluster: a task prolog that sets NCCL and libfabric variables for tasks.
echo "export NCCL_DEBUG=WARN"
echo "export FI_EFA_USE_DEVICE_RDMA=1"
SCRIPT
chmod 0755 "$CONF_DIR/hpn-prolog.sh" "$CONF_DIR/hpn-task-prolog.sh"
if cmp -s "$new_conf" "$CONF"; then
  rm -f "$new_conf"
else
  if running /run/slurmctld.pid || compgen -G '/run/slurmd-node*.pid' >/dev/null; then
    say "slurm.conf changed: stopping the running daemons first"
    "$HERE/slurm-down.sh" --keep-munge || true
  fi
  mv "$new_conf" "$CONF"
  chmod 0644 "$CONF"
fi

# --- 4. the controller
controller_up() { scontrol ping 2>/dev/null | grep -q 'is UP'; }
# A controller told to stop keeps its pid (and stops answering) while it saves its state:
# wait for it to answer again or to exit before deciding whether to start one.
if running /run/slurmctld.pid && ! controller_up; then
  for _ in $(seq 300); do
    controller_up && break
    running /run/slurmctld.pid || break
    sleep 0.1
  done
fi
if ! running /run/slurmctld.pid; then
  [ "$FRESH" = 1 ] && rm -rf "${STATE_DIR:?}"/*
  say "starting slurmctld"
  /usr/sbin/slurmctld -i   # -i: start even if saved state is missing or old; daemonizes
  # A loaded CI machine can take several seconds to bring it up.
  for _ in $(seq 300); do controller_up && break; sleep 0.1; done
fi
controller_up || { say "slurmctld is not up"; tail -n 20 "$LOG_DIR/slurmctld.log" >&2; exit 1; }

# --- 5. one slurmd per node
for i in $(seq 1 "$NODES"); do
  name=$(node_name "$i")
  if ! running "/run/slurmd-$name.pid"; then
    mkdir -p "$SPOOL_DIR/$name"
    /usr/sbin/slurmd -N "$name"
  fi
done

# --- 6. wait until every slurmd has registered (responding, not UNKNOWN)
registered=0
for _ in $(seq 150); do
  registered=$(sinfo -h -N -o '%N %T' 2>/dev/null | awk '$2 !~ /\*|unk/ {n++} END {print n + 0}')
  [ "$registered" -ge "$NODES" ] && break
  sleep 0.2
done
if [ "$registered" -lt "$NODES" ]; then
  say "only $registered of $NODES nodes registered"
  sinfo -N >&2 || true
  exit 1
fi
say "up: slurmctld and $NODES nodes"
