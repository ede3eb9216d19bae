#!/usr/bin/env bash
# gpu_capture.sh -- capture real nvidia-smi / NCCL / PyTorch / torchrun output
# on a machine with one NVIDIA GPU, for tests/fixtures/captured/gpu/.
#
# Not part of the hyperpod-nccl package; never run by the tests.
#
# Usage (from the repository root, on the GPU machine):
#     OUT=/some/dir bash tools/capture/gpu_capture.sh
# Result: $OUT/gpu_capture.tar.gz (everything, re-packed after every step so
# a partial result survives a kill) and $OUT/progress.log.
# The archive holds gpu/<capture files>, gpu/COMMANDS.txt (for each capture:
# the exact command with its environment, exit status, start/end time in UTC
# and seconds taken) and frdump/ (PyTorch Flight Recorder dumps + JSON).
#
# Every step has its own `timeout` and never stops the script.
# Python: $PY (default python3); torchrun: the one next to $PY, else
# `$PY -m torch.distributed.run`.
#
# Captures (stdout+stderr merged into one file each):
#   system info   nvidia-smi (plain, -q, -q -d ECC,ROW_REMAPPER,PAGE_RETIREMENT,
#                 topo -m, nvlink -s, nvlink -e, --query-gpu csv), driver
#                 version, limits, /dev/shm, /dev/infiniband, fi_info, nvcc,
#                 torch/NCCL versions, dmesg tail
#   healthy       torchrun --nproc_per_node=1 nccl_job.py healthy, NCCL_DEBUG=INFO
#                 (and NCCL_DEBUG=TRACE)
#   watchdog      torch.cuda._sleep kernel + all_reduce, PG timeout 10 s:
#                 with NCCL_DEBUG=INFO + Flight Recorder dump, and plain defaults
#   dup_gpu       torchrun --nproc_per_node=2, both ranks on cuda:0
#   oom           300 GiB torch.empty after NCCL init
#   sigkill/segv  rank kills itself with SIGKILL / SIGSEGV after an all_reduce
set -u

OUT=${OUT:-/tmp/gpu_capture_out}
PY=${PY:-python3}
REPO=$(cd "$(dirname "$0")/../.." && pwd)
JOB="$REPO/tools/capture/nccl_job.py"
FR2JSON="$REPO/tools/capture/fr_to_json.py"
W=${CAPTURE_WORK:-/tmp/gpu_capture_work}
rm -rf "$W"
mkdir -p "$OUT" "$W/gpu" "$W/frdump"
CMDS="$W/gpu/COMMANDS.txt"
PROG="$OUT/progress.log"
: > "$CMDS"

PYBIN=$(command -v "$PY")
if [ -x "$(dirname "$PYBIN")/torchrun" ]; then
  TORCHRUN="$(dirname "$PYBIN")/torchrun"
elif command -v torchrun >/dev/null 2>&1; then
  TORCHRUN=$(command -v torchrun)
else
  TORCHRUN="$PY -m torch.distributed.run"
fi
export PYTHONUNBUFFERED=1

pack() {
  tar -czf "$OUT/gpu_capture.tar.gz.part" -C "$W" . 2>>"$PROG" \
    && mv -f "$OUT/gpu_capture.tar.gz.part" "$OUT/gpu_capture.tar.gz"
}

# cap FILE TIMEOUT_S COMMAND_STRING
#   Runs COMMAND_STRING with bash -c, stdout+stderr -> gpu/FILE, stdin /dev/null.
cap() {
  local name=$1 to=$2 cmd=$3 t0 t1 rc
  t0=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  local s0=$SECONDS
  echo "[$t0] start $name (timeout ${to}s)" >> "$PROG"
  timeout -k 10 "$to" bash -c "$cmd" > "$W/gpu/$name" 2>&1 < /dev/null
  rc=$?
  t1=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  {
    echo "### $name"
    echo "command: $cmd"
    echo "wrapper: timeout -k 10 $to bash -c '<command>'  (stdout+stderr merged)"
    echo "exit_status: $rc$( [ $rc -eq 124 ] && echo ' (killed by the timeout wrapper)')"
    echo "start_utc: $t0"
    echo "end_utc: $t1"
    echo "seconds: $((SECONDS - s0))"
    echo
  } >> "$CMDS"
  echo "[$t1] done  $name rc=$rc $((SECONDS - s0))s size=$(stat -c %s "$W/gpu/$name")" >> "$PROG"
  pack
}

echo "[$(date -u +%FT%TZ)] gpu_capture.sh start; PY=$PYBIN TORCHRUN=$TORCHRUN" >> "$PROG"

# ---------------------------------------------------------------- system info
cap nvidia-smi-h200.txt 30 "nvidia-smi"
cap nvidia-smi-query-gpu-h200.csv 30 "nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,memory.total,ecc.errors.uncorrected.volatile.total,ecc.errors.uncorrected.aggregate.total --format=csv"
cap torch-nccl-versions.txt 60 "$PY -c 'import torch;print(torch.__version__, torch.version.cuda, torch.cuda.nccl.version())'"

# Which Flight Recorder variable names does this torch know? (new TORCH_FR_*
# names, falling back to the older TORCH_NCCL_* names)
cap torch-fr-env-names.txt 90 "d=\$($PY -c 'import torch,os;print(os.path.join(os.path.dirname(torch.__file__),\"lib\"))'); echo \"libdir: \$d\"; grep -a -o -h -E 'TORCH_(FR|NCCL)_[A-Z_]+' \"\$d\"/libtorch_cpu.so \"\$d\"/libtorch_cuda.so | sort -u"
has() { grep -qx "$1" "$W/gpu/torch-fr-env-names.txt"; }
FR_BUF=TORCH_NCCL_TRACE_BUFFER_SIZE; has TORCH_FR_BUFFER_SIZE && FR_BUF=TORCH_FR_BUFFER_SIZE
FR_FILE=TORCH_NCCL_DEBUG_INFO_TEMP_FILE; has TORCH_FR_DUMP_TEMP_FILE && FR_FILE=TORCH_FR_DUMP_TEMP_FILE
FR_DUMP=TORCH_NCCL_DUMP_ON_TIMEOUT; has TORCH_FR_DUMP_ON_TIMEOUT && FR_DUMP=TORCH_FR_DUMP_ON_TIMEOUT
echo "flight recorder env names chosen: $FR_BUF $FR_FILE $FR_DUMP" >> "$PROG"

# ------------------------------------------------------------- NCCL captures
cap nccl-info-healthy-init-1rank.log 120 "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET,ENV,COLL $TORCHRUN --nproc_per_node=1 --master_addr=127.0.0.1 --master_port=29501 $JOB healthy --backend nccl"

cap watchdog-timeout-allreduce-1rank.log 120 "NCCL_DEBUG=INFO $FR_BUF=2000 $FR_DUMP=1 $FR_FILE=$W/frdump/rank_ $TORCHRUN --nproc_per_node=1 --master_addr=127.0.0.1 --master_port=29502 $JOB watchdog --backend nccl --timeout-s 10 --sleep-cycles 2e11 --sleep-s 110"
cap frdump-ls.txt 20 "ls -la $W/frdump; ls -la /tmp/nccl_trace_rank_* 2>&1 && cp -v /tmp/nccl_trace_rank_* $W/frdump/"
cap frdump-to-json.txt 60 "$PY $FR2JSON $W/frdump/rank_*"

cap cuda-oom-after-nccl-init-1rank.log 120 "NCCL_DEBUG=INFO $TORCHRUN --nproc_per_node=1 --master_addr=127.0.0.1 --master_port=29503 $JOB oom --backend nccl"
cap sigkill-rank-nccl-1rank.log 90 "NCCL_DEBUG=INFO $TORCHRUN --nproc_per_node=1 --master_addr=127.0.0.1 --master_port=29504 $JOB sigkill --backend nccl"
cap sigsegv-rank-nccl-1rank.log 90 "NCCL_DEBUG=INFO $TORCHRUN --nproc_per_node=1 --master_addr=127.0.0.1 --master_port=29505 $JOB sigsegv --backend nccl"
cap duplicate-gpu-2ranks-1gpu.log 120 "NCCL_DEBUG=INFO $TORCHRUN --nproc_per_node=2 --master_addr=127.0.0.1 --master_port=29506 $JOB dup_gpu --backend nccl --timeout-s 60"

# the watchdog again, nothing set (the defaults a user gets)
cap watchdog-timeout-allreduce-1rank-defaults.log 120 "$TORCHRUN --nproc_per_node=1 --master_addr=127.0.0.1 --master_port=29507 $JOB watchdog --backend nccl --timeout-s 10 --sleep-cycles 2e11 --sleep-s 110"

# ------------------------------------------------------- more system info
cap nvidia-smi-q-h200.txt 60 "nvidia-smi -q"
cap nvidia-smi-q-ecc-rowremap-pageretire-h200.txt 60 "nvidia-smi -q -d ECC,ROW_REMAPPER,PAGE_RETIREMENT"
cap nvidia-smi-topo-m-h200.txt 30 "nvidia-smi topo -m"
cap nvidia-smi-nvlink-s-h200.txt 30 "nvidia-smi nvlink -s"
cap nvidia-smi-nvlink-e-h200.txt 30 "nvidia-smi nvlink -e"
cap proc-driver-nvidia-version.txt 10 "cat /proc/driver/nvidia/version"
cap proc-self-limits.txt 10 "cat /proc/self/limits"
cap ulimit-a.txt 10 "ulimit -a"
cap df-dev-shm.txt 10 "df -B1 /dev/shm"
cap ls-dev-infiniband.txt 10 "ls -la /dev/infiniband"
cap fi-info-efa.txt 30 "which fi_info; fi_info -p efa"
cap nvcc-version.txt 30 "nvcc --version"
cap dmesg-tail.txt 20 "dmesg 2>&1 | tail -50"
cap pip-show-torch-nccl.txt 60 "$PY -m pip show torch nvidia-nccl-cu13"

cap nccl-trace-healthy-init-1rank.log 120 "NCCL_DEBUG=TRACE NCCL_DEBUG_SUBSYS=INIT,NET,ENV,COLL $TORCHRUN --nproc_per_node=1 --master_addr=127.0.0.1 --master_port=29508 $JOB healthy --backend nccl"

echo "[$(date -u +%FT%TZ)] gpu_capture.sh end" >> "$PROG"
pack
ls -la "$W/gpu" "$W/frdump"
cat "$PROG"
