#!/usr/bin/env bash
# Stop the loopback Slurm started by slurm-up.sh, by PID file only (never by process name).
#   --keep-munge    leave munged running
#   --purge-state   also delete the controller state, the slurmd spool and the logs
set -uo pipefail
keep_munge=0
purge=0
for arg in "$@"; do
  case "$arg" in
    --keep-munge) keep_munge=1 ;;
    --purge-state) purge=1 ;;
    *) echo "usage: $0 [--keep-munge] [--purge-state]" >&2; exit 2 ;;
  esac
done
say() { echo "[slurm-down] $*" >&2; }
# A pid file names a live daemon of ours: the pid may since belong to another process (a
# machine reused after the daemon died), so its command must be a Slurm or MUNGE daemon.
running() {
  [ -s "$1" ] || return 1
  local pid; pid=$(cat "$1")
  kill -0 "$pid" 2>/dev/null && grep -qE '^(slurmctld|slurmd|munged)$' "/proc/$pid/comm" 2>/dev/null
}

stop() {  # TERM, wait up to 10 s, then KILL
  local pidfile=$1 pid
  if ! running "$pidfile"; then rm -f "$pidfile"; return 0; fi
  pid=$(cat "$pidfile")
  kill "$pid" 2>/dev/null
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then say "killing $pid ($pidfile)"; kill -9 "$pid" 2>/dev/null; fi
  rm -f "$pidfile"
}

# Cancel jobs while the controller can still tell the nodes, so job processes end.
if running /run/slurmctld.pid; then
  jobs=$(squeue -h -o %i 2>/dev/null)
  [ -n "$jobs" ] && scancel --quiet $jobs 2>/dev/null
  for _ in $(seq 50); do [ -z "$(squeue -h -t R,CG -o %i 2>/dev/null)" ] && break; sleep 0.2; done
fi
# Signal every slurmd first (each takes about a second to exit), then wait for each.
for pidfile in /run/slurmd-node*.pid; do running "$pidfile" && kill "$(cat "$pidfile")" 2>/dev/null; done
for pidfile in /run/slurmd-node*.pid; do [ -e "$pidfile" ] && stop "$pidfile"; done
stop /run/slurmctld.pid
# A slurmstepd left behind is ours: match it by its executable, end it by PID.
for proc in /proc/[0-9]*; do
  exe=$(readlink "$proc/exe" 2>/dev/null) || continue
  case "$exe" in /usr/sbin/slurmstepd*) say "ending leftover slurmstepd ${proc#/proc/}"; kill -9 "${proc#/proc/}" 2>/dev/null ;; esac
done
[ "$keep_munge" = 1 ] || stop /run/munge/munged.pid
[ "$purge" = 1 ] && rm -rf /var/spool/slurmctld/* /var/spool/slurmd/* /var/log/slurm/*
say "stopped"
