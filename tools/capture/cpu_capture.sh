#!/usr/bin/env bash
# cpu_capture.sh -- capture real torchrun / c10d / gloo failure output on a
# CPU-only machine, for tests/fixtures/captured/cpu/.
#
# Not part of the hyperpod-nccl package; never run by the tests.
#
# Setup (a separate venv; never the project's .venv):
#     python3 -m venv /tmp/torchcap && /tmp/torchcap/bin/pip install torch==2.13.0 numpy
# Usage (from the repository root):
#     PY=/tmp/torchcap/bin/python OUT=/some/dir bash tools/capture/cpu_capture.sh
# Result: $OUT/cpu/<capture files> and $OUT/cpu/COMMANDS.txt (for each capture:
# the exact command with its environment, exit status, UTC start/end, seconds).
#
# All network traffic stays on this machine: 127.0.0.1 / localhost, plus one
# DNS lookup of a name under the reserved .invalid domain. Every step has its
# own `timeout` and never stops the script. Ports 29610-29640 must be free.
#
# Captures (stdout+stderr merged into one file each):
#   gloo healthy run; a rank raising an exception; a rank killed by SIGKILL,
#   SIGSEGV, SIGBUS (os.kill) and a real NULL-pointer segfault; MASTER_ADDR
#   that does not resolve (torchrun static, torchrun c10d rendezvous, plain
#   env:// init); master port already in use; connection refused (closed
#   port); connect timeout (SYNs dropped: full accept queue on loopback);
#   store wait timeout (second node / rank never starts); gloo collective
#   timeout; the torchrun agent receiving SIGTERM and SIGHUP.
set -u

OUT=${OUT:-/tmp/cpu_capture_out}
PY=${PY:-/tmp/torchcap/bin/python}
REPO=$(cd "$(dirname "$0")/../.." && pwd)
JOB="$REPO/tools/capture/nccl_job.py"
HOLD="$REPO/tools/capture/port_holder.py"
TORCHRUN="$(dirname "$PY")/torchrun"
D="$OUT/cpu"
mkdir -p "$D"
CMDS="$D/COMMANDS.txt"
REC="$OUT/.records"          # one record per capture; joined into COMMANDS.txt
mkdir -p "$REC"
ONLY=${ONLY:-}               # optional regex: (re)run only the matching captures
ORDER=()
export PYTHONUNBUFFERED=1
cd /tmp || exit 1   # run from a neutral directory

# cap FILE TIMEOUT_S COMMAND_STRING   (bash -c, stdout+stderr -> cpu/FILE)
cap() {
  local name=$1 to=$2 cmd=$3 t0 t1 rc s0=$SECONDS
  ORDER+=("$name")
  if [ -n "$ONLY" ] && ! [[ $name =~ $ONLY ]]; then return; fi
  t0=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  timeout -k 10 "$to" bash -c "$cmd" > "$D/$name" 2>&1 < /dev/null
  rc=$?
  t1=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  {
    echo "### $name"
    echo "command: $cmd"
    echo "wrapper: timeout -k 10 $to bash -c '<command>'  (stdout+stderr merged), cwd /tmp"
    echo "exit_status: $rc$( [ $rc -eq 124 ] && echo ' (killed by the timeout wrapper)')"
    echo "start_utc: $t0"
    echo "end_utc: $t1"
    echo "seconds: $((SECONDS - s0))"
    echo
  } > "$REC/$name"
  echo "done $name rc=$rc $((SECONDS - s0))s $(stat -c %s "$D/$name")B"
}

TR="$TORCHRUN --nproc_per_node=2 --master_addr=127.0.0.1"

# ------------------------------------------------------------ rank failures
cap gloo-healthy-2ranks.log 90 "$TR --master_port=29610 $JOB healthy --backend gloo"
cap gloo-healthy-2ranks-master-localhost.log 90 "$TORCHRUN --nproc_per_node=2 --master_addr=localhost --master_port=29611 $JOB healthy --backend gloo"
cap rank-exception-2ranks.log 90 "$TR --master_port=29612 $JOB exception --backend gloo"
cap rank-sigkill-2ranks.log 90 "$TR --master_port=29613 $JOB sigkill --backend gloo"
cap rank-sigsegv-2ranks.log 90 "$TR --master_port=29614 $JOB sigsegv --backend gloo"
cap rank-sigbus-2ranks.log 90 "$TR --master_port=29615 $JOB sigbus --backend gloo"
cap rank-real-segfault-2ranks.log 90 "$TR --master_port=29616 $JOB segv_real --backend gloo"
cap gloo-collective-timeout-2ranks.log 120 "$TR --master_port=29617 $JOB coll_timeout --backend gloo --timeout-s 10 --sleep-s 60"

# ------------------------------------------------------- rendezvous / network
cap master-addr-dns-torchrun-static.log 90 "$TORCHRUN --nnodes=2 --node_rank=1 --nproc_per_node=1 --master_addr=no-such-master.invalid --master_port=29618 --rdzv-conf timeout=15 $JOB healthy --backend gloo"
cap master-addr-dns-torchrun-c10d.log 90 "$TORCHRUN --nnodes=2 --nproc_per_node=1 --rdzv-backend=c10d --rdzv-endpoint=no-such-master.invalid:29619 --rdzv-id=capture --rdzv-conf read_timeout=15,join_timeout=30 $JOB healthy --backend gloo"
cap master-addr-dns-env-init.log 60 "MASTER_ADDR=no-such-master.invalid MASTER_PORT=29620 RANK=1 WORLD_SIZE=2 LOCAL_RANK=0 $PY $JOB healthy --backend gloo --timeout-s 15"

cap master-port-in-use-torchrun-static.log 60 "$PY $HOLD listen 29621 45 & H=\$!; sleep 2; $TR --master_port=29621 --rdzv-conf timeout=15 $JOB healthy --backend gloo; rc=\$?; kill \$H 2>/dev/null; exit \$rc"
cap master-port-in-use-env-init.log 60 "$PY $HOLD listen 29622 45 & H=\$!; sleep 2; MASTER_ADDR=127.0.0.1 MASTER_PORT=29622 RANK=0 WORLD_SIZE=1 LOCAL_RANK=0 $PY $JOB healthy --backend gloo --timeout-s 15; rc=\$?; kill \$H 2>/dev/null; exit \$rc"
cap master-port-in-use-torchrun-c10d.log 150 "$PY $HOLD listen 29623 130 & H=\$!; sleep 2; $TORCHRUN --nnodes=1 --nproc_per_node=2 --rdzv-backend=c10d --rdzv-endpoint=127.0.0.1:29623 --rdzv-id=capture --rdzv-conf read_timeout=15,join_timeout=30 $JOB healthy --backend gloo; rc=\$?; kill \$H 2>/dev/null; exit \$rc"

cap connection-refused-torchrun-static.log 90 "$TORCHRUN --nnodes=2 --node_rank=1 --nproc_per_node=1 --master_addr=127.0.0.1 --master_port=29624 --rdzv-conf timeout=15 $JOB healthy --backend gloo"
cap connection-refused-env-init.log 60 "MASTER_ADDR=127.0.0.1 MASTER_PORT=29625 RANK=1 WORLD_SIZE=2 LOCAL_RANK=0 $PY $JOB healthy --backend gloo --timeout-s 15"
cap connection-refused-env-init-localhost-debug-detail.log 60 "TORCH_DISTRIBUTED_DEBUG=DETAIL TORCH_CPP_LOG_LEVEL=INFO MASTER_ADDR=localhost MASTER_PORT=29633 RANK=1 WORLD_SIZE=2 LOCAL_RANK=0 $PY $JOB healthy --backend gloo --timeout-s 10"
cap connect-timeout-syn-dropped-torchrun-static.log 90 "$PY $HOLD fullbacklog 29626 75 & H=\$!; sleep 2; $TORCHRUN --nnodes=2 --node_rank=1 --nproc_per_node=1 --master_addr=127.0.0.1 --master_port=29626 --rdzv-conf timeout=15 $JOB healthy --backend gloo; rc=\$?; kill \$H 2>/dev/null; exit \$rc"
cap connect-timeout-syn-dropped-env-init.log 60 "$PY $HOLD fullbacklog 29627 45 & H=\$!; sleep 2; MASTER_ADDR=127.0.0.1 MASTER_PORT=29627 RANK=1 WORLD_SIZE=2 LOCAL_RANK=0 $PY $JOB healthy --backend gloo --timeout-s 15; rc=\$?; kill \$H 2>/dev/null; exit \$rc"

cap store-wait-timeout-node1-missing-torchrun-static.log 90 "$TORCHRUN --nnodes=2 --node_rank=0 --nproc_per_node=1 --master_addr=127.0.0.1 --master_port=29628 --rdzv-conf timeout=15 $JOB healthy --backend gloo --timeout-s 15"
cap store-wait-timeout-rank1-missing-env-init.log 60 "MASTER_ADDR=127.0.0.1 MASTER_PORT=29629 RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 $PY $JOB healthy --backend gloo --timeout-s 15"
cap rendezvous-timeout-node1-missing-torchrun-c10d.log 90 "$TORCHRUN --nnodes=2 --nproc_per_node=1 --rdzv-backend=c10d --rdzv-endpoint=127.0.0.1:29630 --rdzv-id=capture --rdzv-conf join_timeout=20 $JOB healthy --backend gloo"
cap rendezvous-timeout-node1-missing-torchrun-c10d-loglevel-info.log 90 "LOGLEVEL=INFO $TORCHRUN --nnodes=2 --nproc_per_node=1 --rdzv-backend=c10d --rdzv-endpoint=127.0.0.1:29634 --rdzv-id=capture --rdzv-conf join_timeout=20 $JOB healthy --backend gloo"

# ------------------------------------------------ signals to the torchrun agent
cap torchrun-agent-sigterm.log 90 "$TR --master_port=29631 $JOB sleep --backend gloo --sleep-s 120 & A=\$!; sleep 12; echo \"[capture] kill -TERM \$A (torchrun agent)\"; kill -TERM \$A; wait \$A; rc=\$?; echo \"[capture] torchrun exit status \$rc\"; exit \$rc"
cap torchrun-agent-sighup.log 90 "$TR --master_port=29632 $JOB sleep --backend gloo --sleep-s 120 & A=\$!; sleep 12; echo \"[capture] kill -HUP \$A (torchrun agent)\"; kill -HUP \$A; wait \$A; rc=\$?; echo \"[capture] torchrun exit status \$rc\"; exit \$rc"

for n in "${ORDER[@]}"; do [ -f "$REC/$n" ] && cat "$REC/$n"; done > "$CMDS"
ls -la "$D"
