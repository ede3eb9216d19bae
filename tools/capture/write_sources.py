#!/usr/bin/env python3
"""Write tests/fixtures/captured/SOURCES.md and labels.json.

Not part of the package; never run by the tests. Run from the repository root
after copying the captures (gpu_capture.sh / cpu_capture.sh results) into
tests/fixtures/captured/{gpu,cpu}/:

    python3 tools/capture/write_sources.py

The exact command, exit status and time of each capture are read from the
COMMANDS.txt that the capture scripts wrote next to the captures; what each
file shows and its expected root-cause label are written down here, after
reading the captured text.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "captured"

GPU_MACHINE = (
    "lent NVIDIA H200 device (one GPU, Firecracker VM, 16 CPU cores), NVIDIA driver "
    "580.159.04 (nvidia-smi: CUDA Version 13.0), torch 2.11.0+cu130, NCCL 2.28.9 "
    "(nvidia-nccl-cu13 2.28.9), Python 3.12 (/opt/torch/.venv)"
)
CPU_MACHINE = (
    "CPU dev machine (2 cores, x86-64, Debian 12, kernel 6.18.44, no GPU), torch "
    "2.13.0+cpu in a separate venv (/tmp/torchcap), Python 3.11.7"
)
GPU_ENV = (
    "gpu_capture.sh exports PYTHONUNBUFFERED=1 for every step; torchrun sets "
    "OMP_NUM_THREADS=1 for its workers; variables set for one step only are written "
    "in front of its command"
)
CPU_ENV = (
    "cpu_capture.sh exports PYTHONUNBUFFERED=1 for every step and runs from /tmp; "
    "torchrun sets OMP_NUM_THREADS=1 for its workers; variables set for one step only "
    "are written in front of its command"
)

# file -> (label or None for non-log captures, what it shows)
GPU = {
    "nvidia-smi-h200.txt": (None, "Plain `nvidia-smi` table of a healthy H200: driver 580.159.04, CUDA 13.0, 143771 MiB, Volatile Uncorr. ECC 0, no processes."),
    "nvidia-smi-query-gpu-h200.csv": (None, "CSV query of index, name, bus id, driver, memory and uncorrected ECC counters (0/0)."),
    "torch-nccl-versions.txt": (None, "torch.__version__, torch.version.cuda, torch.cuda.nccl.version(): `2.11.0+cu130 13.0 (2, 28, 9)`."),
    "torch-fr-env-names.txt": (None, "Raw `grep -a -o` of TORCH_FR_*/TORCH_NCCL_* names in libtorch_cpu.so and libtorch_cuda.so (binary strings, so a few names run together). Used to pick the Flight Recorder variables: TORCH_FR_BUFFER_SIZE, TORCH_FR_DUMP_TEMP_FILE exist; no TORCH_FR_DUMP_ON_TIMEOUT, so TORCH_NCCL_DUMP_ON_TIMEOUT was used."),
    "nccl-info-healthy-init-1rank.log": ("HEALTHY", "Healthy NCCL 2.28.9 init under torchrun, one rank: plugin probing (no libnccl-net.so, IB: no device, Socket transport on eth0), 64 channels, `Init COMPLETE`, COLL lines for AllReduce/AllGather/Broadcast (reduce_scatter with world size 1 issues no NCCL call), barrier, `Destroy COMPLETE`, exit 0."),
    "nccl-trace-healthy-init-1rank.log": ("HEALTHY", "Same healthy run with NCCL_DEBUG=TRACE: this release NCCL build prints the same INFO lines as with NCCL_DEBUG=INFO (no TRACE-level lines)."),
    "watchdog-timeout-allreduce-1rank.log": ("NCCL_TIMEOUT", "Real ProcessGroupNCCL watchdog timeout: an all_reduce queued behind a long torch.cuda._sleep kernel, PG timeout 10 s. Shows `Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2, OpType=ALLREDUCE, NumelIn=1048576, NumelOut=1048576, Timeout(ms)=10000) ran for 10042 milliseconds`, the failed collective's Python stack, the Flight Recorder dump messages, then, about 90 s after the timeout line and only once the sleep kernel had finished, `To avoid data inconsistency, we are taking the entire process down`, `terminate called after throwing an instance of 'c10::DistBackendError'`, and torchrun's summary `exitcode: -6`, `Signal 6 (SIGABRT)`. NCCL_DEBUG=INFO lines included."),
    "flight-recorder-watchdog-timeout-rank_0.pkl": ("NCCL_TIMEOUT", "The Flight Recorder dump (pickle) written by the watchdog timeout above (TORCH_FR_DUMP_TEMP_FILE=.../rank_ -> file rank_0): version 2.10, comm_lib_version 2.28.9, pg_status last_enqueued_collective 2 / last_completed_collective 1, two all_reduce entries (seq 1 completed, seq 2 scheduled)."),
    "flight-recorder-watchdog-timeout-rank_0.json": ("NCCL_TIMEOUT", "JSON conversion of the .pkl above, made on the device by tools/capture/fr_to_json.py (pickle.load + json.dumps(indent=1, default=str)); not program output itself."),
    "frdump-ls.txt": (None, "`ls -la` of the dump folder after the watchdog run (one file, rank_0) and proof that nothing was written to the default /tmp/nccl_trace_rank_* path (the `ls` error is part of the capture)."),
    "frdump-to-json.txt": (None, "Output of the pickle-to-JSON conversion: top-level keys version, pg_config, comm_lib_version, pg_status, entries."),
    "cuda-oom-after-nccl-init-1rank.log": ("CUDA_OOM", "NCCL initialised by an all_reduce, then torch.empty of 300 GiB: `torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 300.00 GiB. GPU 0 has a total capacity of 139.80 GiB of which 138.65 GiB is free...`, the destroy_process_group warning and torchrun's ChildFailedError summary (exitcode 1)."),
    "sigkill-rank-nccl-1rank.log": ("CONTAINER_OOM", "The only rank of an NCCL job sends itself SIGKILL after an all_reduce: no Python traceback, torchrun prints `exitcode: -9` / `Signal 9 (SIGKILL) received by PID`. The text is what a kernel or cgroup OOM kill leaves, hence the CONTAINER_OOM label (the actual sender here was the rank itself)."),
    "sigsegv-rank-nccl-1rank.log": ("RANK_CRASH", "The only rank of an NCCL job sends itself SIGSEGV (os.kill) after an all_reduce: torchrun prints `exitcode: -11` / `Signal 11 (SIGSEGV) received by PID`."),
    "duplicate-gpu-2ranks-1gpu.log": ("NCCL_INVALID_USAGE", "torchrun --nproc_per_node=2 with both ranks on cuda:0: `init.cc:904 NCCL WARN Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 60`, `torch.distributed.DistBackendError: NCCL error in: .../NCCLUtils.cpp:93, invalid usage ..., NCCL version 2.28.9`, `ncclInvalidUsage`, then torchrun's summary with both ranks exitcode 1."),
    "watchdog-timeout-allreduce-1rank-defaults.log": ("NCCL_TIMEOUT", "The same watchdog timeout with no NCCL/TORCH variables set (the defaults a user gets: no NCCL_DEBUG, no Flight Recorder settings): watchdog timeout line, dump-signal lines, `taking the entire process down`, SIGABRT, torchrun `exitcode: -6`."),
    "nvidia-smi-q-h200.txt": (None, "`nvidia-smi -q` full query of the H200."),
    "nvidia-smi-q-ecc-rowremap-pageretire-h200.txt": (None, "`nvidia-smi -q -d ECC,ROW_REMAPPER,PAGE_RETIREMENT`: ECC counters, row remapper state, page retirement section of a healthy H200."),
    "nvidia-smi-topo-m-h200.txt": (None, "`nvidia-smi topo -m` on a one-GPU machine (ANSI underline escapes kept as printed)."),
    "nvidia-smi-nvlink-s-h200.txt": (None, "`nvidia-smi nvlink -s`: printed nothing at all (exit status 0) on this one-GPU VM; the file is empty on purpose."),
    "nvidia-smi-nvlink-e-h200.txt": (None, "`nvidia-smi nvlink -e`: printed nothing at all (exit status 0) on this one-GPU VM; the file is empty on purpose."),
    "proc-driver-nvidia-version.txt": (None, "`/proc/driver/nvidia/version`: NVRM 580.159.04, Open Kernel Module."),
    "proc-self-limits.txt": (None, "`/proc/self/limits` of a shell on the device (max locked memory unlimited, open files 20000)."),
    "ulimit-a.txt": (None, "`ulimit -a` on the device."),
    "df-dev-shm.txt": (None, "`df -B1 /dev/shm`: 137438953472 bytes (128 GiB) tmpfs, i.e. no SHM_TOO_SMALL condition."),
    "ls-dev-infiniband.txt": (None, "`ls -la /dev/infiniband`: only rdma_cm, no uverbs devices (no EFA/IB)."),
    "fi-info-efa.txt": (None, "`which fi_info; fi_info -p efa`: fi_info is not installed (`command not found`, exit 127)."),
    "nvcc-version.txt": (None, "`nvcc --version`: CUDA 13.0, V13.0.88."),
    "dmesg-tail.txt": ("HEALTHY", "Last 50 kernel log lines (dmesg was allowed): VM boot, NVIDIA open module load, one `NVRM: gpuClearFbhubPoisonIntrForBug2924523_GA100: FBHUB Interrupt detected. Clearing it.` and a persistence-mode deprecation notice; no Xid."),
    "pip-show-torch-nccl.txt": (None, "`pip show torch nvidia-nccl-cu13`: torch 2.11.0, nvidia-nccl-cu13 2.28.9."),
    "COMMANDS.txt": (None, "Written by gpu_capture.sh itself: for every capture above the exact command, exit status, UTC start/end and seconds taken."),
}

CPU = {
    "gloo-healthy-2ranks.log": ("HEALTHY", "Healthy 2-rank gloo job under torchrun (MASTER_ADDR 127.0.0.1): torchrun's OMP_NUM_THREADS banner, all_reduce/all_gather/broadcast/barrier, destroy_process_group, exit 0."),
    "gloo-healthy-2ranks-master-localhost.log": ("HEALTHY", "Same healthy job with --master_addr=localhost. The IPv6 `[c10d] The client socket cannot be initialized to connect to [localhost]...` warning did NOT appear on this machine (IPv6 works here)."),
    "rank-exception-2ranks.log": ("APP_EXCEPTION", "Rank 1 raises RuntimeError after an all_reduce: its `[rank1]:` traceback, rank 0's gloo `Connection closed by peer ... remote worker crashing`, torchrun sends SIGTERM to rank 0 and prints ChildFailedError with root cause rank 1 exitcode 1."),
    "rank-sigkill-2ranks.log": ("CONTAINER_OOM", "Rank 1 SIGKILLs itself: rank 0 sees `Connection closed by peer`, torchrun root cause `exitcode: -9` / `Signal 9 (SIGKILL)`, rank 0 `-15 (SIGTERM)`. A SIGKILL with no traceback is what an OOM kill leaves, hence the label (the real sender was the rank itself)."),
    "rank-sigsegv-2ranks.log": ("RANK_CRASH", "Rank 1 sends itself SIGSEGV (os.kill): rank 0 gloo `Read error ... Connection reset by peer`, torchrun root cause `exitcode: -11` / `Signal 11 (SIGSEGV)`."),
    "rank-sigbus-2ranks.log": ("RANK_CRASH", "Rank 1 sends itself SIGBUS (os.kill): torchrun root cause `exitcode: -7` / `Signal 7 (SIGBUS)`."),
    "rank-real-segfault-2ranks.log": ("RANK_CRASH", "Rank 1 really dereferences NULL (ctypes.string_at(0)): no Python-level message, torchrun root cause `exitcode: -11 (SIGSEGV)`."),
    "gloo-collective-timeout-2ranks.log": ("NCCL_TIMEOUT", "Gloo (not NCCL) collective timeout: rank 1 sleeps while rank 0 waits in all_reduce with a 10 s PG timeout: `gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 10000ms for recv operation to complete`, torchrun root cause rank 0 exitcode 1. Labelled with the collective-timeout code; there is no NCCL watchdog line."),
    "master-addr-dns-torchrun-static.log": ("MASTER_ADDR_DNS", "torchrun node_rank 1 with --master_addr=no-such-master.invalid (static rendezvous): repeated `[c10d] The IPv6 network addresses of (no-such-master.invalid, 29618) cannot be retrieved (gai error: -2 - Name or service not known)`, `The client socket has timed out after 15000ms while trying to connect to (no-such-master.invalid, 29618)`, retry, `DistNetworkError` raised from static_tcp_rendezvous in the agent (no workers started)."),
    "master-addr-dns-torchrun-c10d.log": ("MASTER_ADDR_DNS", "torchrun --rdzv-backend=c10d --rdzv-endpoint=no-such-master.invalid:29619: the same gai error -2 lines and client-socket timeout, ending in `RendezvousConnectionError: The connection to the C10d store has failed`."),
    "master-addr-dns-env-init.log": ("MASTER_ADDR_DNS", "Plain init_process_group('gloo', env://) as RANK 1 of 2 with MASTER_ADDR=no-such-master.invalid (no torchrun): gai error -2 lines, client socket timeout, DistNetworkError traceback."),
    "master-port-in-use-torchrun-static.log": ("RENDEZVOUS_FAILURE", "Another process listens on the master port: torchrun (static rendezvous, node 0) fails at once with `DistNetworkError: The server socket has failed to listen on any local network address. port: 29621, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use`."),
    "master-port-in-use-env-init.log": ("RENDEZVOUS_FAILURE", "Same EADDRINUSE (code -98) text from a plain env:// init_process_group as RANK 0."),
    "master-port-in-use-torchrun-c10d.log": ("RENDEZVOUS_FAILURE", "c10d rendezvous endpoint port held by a foreign listener that never answers: torchrun connects as a store client and blocks with no output for ~127 s (read_timeout=15 did not bound it) until the foreign process exits, then `recvValue failed ... Connection reset by peer`, `TCP client failed to connect/validate to host 127.0.0.1:29623`, `RendezvousConnectionError`."),
    "connection-refused-torchrun-static.log": ("NET_UNREACHABLE", "torchrun node_rank 1 pointed at a closed loopback port (nothing listening, connection refused): at default log levels only `The client socket has timed out after 15000ms while trying to connect to (127.0.0.1, 29624)`, a retry, then DistNetworkError from the agent; the word 'refused' does not appear."),
    "connection-refused-env-init.log": ("NET_UNREACHABLE", "Same closed port from a plain env:// init as RANK 1: client socket timeout, retry, DistNetworkError."),
    "connection-refused-env-init-localhost-debug-detail.log": ("NET_UNREACHABLE", "Closed port with TORCH_DISTRIBUTED_DEBUG=DETAIL TORCH_CPP_LOG_LEVEL=INFO and MASTER_ADDR=localhost: `[c10d - trace] The server socket on [::ffff:127.0.0.1]:29633 is not yet listening (errno: 111 - Connection refused), will retry.` repeated, then the timeout and DistNetworkError."),
    "connect-timeout-syn-dropped-torchrun-static.log": ("NET_UNREACHABLE", "torchrun node_rank 1 connecting to a loopback listener whose accept queue is full, so the kernel drops the SYNs (stand-in for a master address that drops packets; no traffic left the machine): client socket timeout after 15000 ms and DistNetworkError."),
    "connect-timeout-syn-dropped-env-init.log": ("NET_UNREACHABLE", "Same dropped-SYN setup from a plain env:// init as RANK 1: client socket timeout and DistNetworkError."),
    "store-wait-timeout-node1-missing-torchrun-static.log": ("RENDEZVOUS_FAILURE", "torchrun --nnodes=2 node 0 alone (node 1 never starts), static rendezvous timeout=15: `torch.distributed.DistStoreError: Timed out after 16 seconds waiting for clients. 1/2 clients joined.` from the agent."),
    "store-wait-timeout-rank1-missing-env-init.log": ("RENDEZVOUS_FAILURE", "Plain env:// init as RANK 0 of WORLD_SIZE 2 with rank 1 never started: `DistStoreError: Timed out after 16 seconds waiting for clients. 1/2 clients joined.`"),
    "rendezvous-timeout-node1-missing-torchrun-c10d.log": ("RENDEZVOUS_FAILURE", "torchrun c10d rendezvous with --nnodes=2 and only one node, join_timeout=20: a bare `torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError` (no message) after the agent traceback."),
    "rendezvous-timeout-node1-missing-torchrun-c10d-loglevel-info.log": ("RENDEZVOUS_FAILURE", "Same with LOGLEVEL=INFO: torchrun's launch-config dump (min_nodes 2, rdzv_backend c10d, rdzv_configs join_timeout 20), `Rendezvous'ing worker group`, then RendezvousTimeoutError."),
    "torchrun-agent-sigterm.log": ("EXTERNAL_SIGNAL", "kill -TERM to the torchrun agent while both ranks sleep: `Received 15 death signal, shutting down workers`, `Sending process ... closing signal SIGTERM`, `SignalException: Process N got signal: 15`, exit status 1."),
    "torchrun-agent-sighup.log": ("EXTERNAL_SIGNAL", "kill -HUP to the torchrun agent: `Received 1 death signal, shutting down workers`, `closing signal SIGHUP` to both workers, `SignalException: Process N got signal: 1`."),
    "COMMANDS.txt": (None, "Written by cpu_capture.sh itself: for every capture above the exact command, exit status, UTC start/end and seconds taken."),
}

# one sentence per labelled file, for labels.json
WHY = {
    "gpu/nccl-info-healthy-init-1rank.log": "NCCL init reaches Init COMPLETE, the collectives run and the job exits 0.",
    "gpu/nccl-trace-healthy-init-1rank.log": "Healthy NCCL init and collectives with NCCL_DEBUG=TRACE, job exits 0.",
    "gpu/watchdog-timeout-allreduce-1rank.log": "The ProcessGroupNCCL watchdog reports a 10 s ALLREDUCE timeout (SeqNum=2) and aborts the rank (SIGABRT, exitcode -6).",
    "gpu/flight-recorder-watchdog-timeout-rank_0.pkl": "Flight Recorder dump of the watchdog timeout: all_reduce seq 2 enqueued but never completed (last completed 1).",
    "gpu/flight-recorder-watchdog-timeout-rank_0.json": "JSON form of the Flight Recorder dump of the watchdog timeout, all_reduce seq 2 still scheduled.",
    "gpu/cuda-oom-after-nccl-init-1rank.log": "torch.OutOfMemoryError 'CUDA out of memory. Tried to allocate 300.00 GiB' ends the only rank with exit 1.",
    "gpu/sigkill-rank-nccl-1rank.log": "The rank dies by SIGKILL (exitcode -9) without any traceback, the signature of an OOM kill.",
    "gpu/sigsegv-rank-nccl-1rank.log": "The rank dies by signal 11 (SIGSEGV, exitcode -11).",
    "gpu/duplicate-gpu-2ranks-1gpu.log": "NCCL refuses two ranks on one GPU: 'Duplicate GPU detected', ncclInvalidUsage.",
    "gpu/watchdog-timeout-allreduce-1rank-defaults.log": "With default settings the watchdog reports the 10 s ALLREDUCE timeout and aborts the rank (SIGABRT, exitcode -6).",
    "gpu/dmesg-tail.txt": "Kernel log of a healthy boot and driver load, with no Xid or other GPU fault.",
    "cpu/gloo-healthy-2ranks.log": "Both ranks finish their collectives and exit 0.",
    "cpu/gloo-healthy-2ranks-master-localhost.log": "Both ranks finish their collectives and exit 0 with MASTER_ADDR=localhost.",
    "cpu/rank-exception-2ranks.log": "Rank 1 raises a Python RuntimeError (exitcode 1); rank 0's connection-closed error and SIGTERM are consequences.",
    "cpu/rank-sigkill-2ranks.log": "Rank 1 dies by SIGKILL (exitcode -9) without a traceback, the signature of an OOM kill; rank 0 only loses its peer.",
    "cpu/rank-sigsegv-2ranks.log": "Rank 1 dies by SIGSEGV (exitcode -11); rank 0 only sees the connection reset.",
    "cpu/rank-sigbus-2ranks.log": "Rank 1 dies by SIGBUS (exitcode -7); rank 0 only sees the peer close.",
    "cpu/rank-real-segfault-2ranks.log": "Rank 1 segfaults on a NULL read (exitcode -11, SIGSEGV); rank 0 only sees the connection reset.",
    "cpu/gloo-collective-timeout-2ranks.log": "Rank 0's all_reduce times out after 10000 ms because rank 1 never joins it (gloo collective timeout).",
    "cpu/master-addr-dns-torchrun-static.log": "The master address no-such-master.invalid does not resolve (gai error -2), so the torchrun agent cannot reach the store.",
    "cpu/master-addr-dns-torchrun-c10d.log": "The c10d rendezvous endpoint host does not resolve (gai error -2), ending in RendezvousConnectionError.",
    "cpu/master-addr-dns-env-init.log": "MASTER_ADDR does not resolve (gai error -2), so env:// init times out connecting to the store.",
    "cpu/master-port-in-use-torchrun-static.log": "The master port is taken by another process, so the store server cannot listen (EADDRINUSE, code -98).",
    "cpu/master-port-in-use-env-init.log": "The master port is taken by another process, so the env:// store server cannot listen (EADDRINUSE, code -98).",
    "cpu/master-port-in-use-torchrun-c10d.log": "The c10d rendezvous endpoint is a foreign listener, so the store connection hangs and ends in RendezvousConnectionError.",
    "cpu/connection-refused-torchrun-static.log": "Nothing listens on the master port, so the agent's store client times out connecting.",
    "cpu/connection-refused-env-init.log": "Nothing listens on the master port, so the env:// store client times out connecting.",
    "cpu/connection-refused-env-init-localhost-debug-detail.log": "Debug logging shows each connect attempt refused (errno 111) until the store client times out.",
    "cpu/connect-timeout-syn-dropped-torchrun-static.log": "The master's SYNs are dropped, so the agent's store client connect times out after 15000 ms.",
    "cpu/connect-timeout-syn-dropped-env-init.log": "The master's SYNs are dropped, so the env:// store client connect times out after 15000 ms.",
    "cpu/store-wait-timeout-node1-missing-torchrun-static.log": "Node 1 never starts, so the store times out with '1/2 clients joined'.",
    "cpu/store-wait-timeout-rank1-missing-env-init.log": "Rank 1 never starts, so the store times out with '1/2 clients joined'.",
    "cpu/rendezvous-timeout-node1-missing-torchrun-c10d.log": "Only one of two nodes joins the c10d rendezvous, which ends in RendezvousTimeoutError.",
    "cpu/rendezvous-timeout-node1-missing-torchrun-c10d-loglevel-info.log": "Only one of two nodes joins the c10d rendezvous (LOGLEVEL=INFO), which ends in RendezvousTimeoutError.",
    "cpu/torchrun-agent-sigterm.log": "The torchrun agent receives SIGTERM from outside and shuts the healthy workers down ('Received 15 death signal').",
    "cpu/torchrun-agent-sighup.log": "The torchrun agent receives SIGHUP from outside and shuts the healthy workers down ('Received 1 death signal').",
}


def parse_commands(path: Path) -> dict[str, dict[str, str]]:
    recs: dict[str, dict[str, str]] = {}
    cur: dict[str, str] | None = None
    for line in path.read_text().splitlines():
        m = re.match(r"^### (.+)$", line)
        if m:
            cur = recs.setdefault(m.group(1), {})
            continue
        if cur is not None and ": " in line:
            k, v = line.split(": ", 1)
            cur[k] = v
    return recs


def main() -> int:
    out = ["# Captured fixtures: provenance", "",
           "Real output of nvidia-smi, PyTorch, torchrun, NCCL and gloo, captured on 2026-11-30 (UTC)",
           "with `tools/capture/gpu_capture.sh` (GPU) and `tools/capture/cpu_capture.sh` (CPU); worker",
           "code: `tools/capture/nccl_job.py`, port states: `tools/capture/port_holder.py`. This file and",
           "labels.json are written by `tools/capture/write_sources.py`. Files are unedited program output",
           "(stdout and stderr merged, in the order they arrived); nothing was trimmed or redacted (no file",
           "is over 200 KB, no secrets were present). The `[capture rank N] ...` lines are printed by",
           "nccl_job.py itself, to mark progress. Paths such as /work/main/tools/capture/nccl_job.py are the",
           "repository checkout on each machine. Every command ran under",
           "`timeout -k 10 <seconds> bash -c '<command>'` with stdin from /dev/null; `exit status` is that",
           "of the command (124 would mean the wrapper killed it; none was).",
           "",
           "Labels are the expected root-cause codes: NCCL_TIMEOUT, RENDEZVOUS_FAILURE, MASTER_ADDR_DNS,",
           "NET_UNREACHABLE, NCCL_INVALID_USAGE, CUDA_OOM, CONTAINER_OOM, RANK_CRASH, APP_EXCEPTION,",
           "EXTERNAL_SIGNAL, SHM_TOO_SMALL, HEALTHY (none of these captures shows SHM_TOO_SMALL).",
           "labels.json lists each log-like capture with its label; its paths are relative to this folder.",
           ""]
    labels = []
    for sub, table, machine, env in (("gpu", GPU, GPU_MACHINE, GPU_ENV), ("cpu", CPU, CPU_MACHINE, CPU_ENV)):
        recs = parse_commands(ROOT / sub / "COMMANDS.txt")
        present = sorted(p.name for p in (ROOT / sub).iterdir())
        missing = [n for n in present if n not in table]
        nowhy = [n for n, (lab, _) in table.items() if lab and f"{sub}/{n}" not in WHY]
        if nowhy:
            raise SystemExit(f"no 'why' for {sub}/{nowhy}")
        if missing:
            raise SystemExit(f"no description for {sub}/{missing}")
        out += [f"## {sub}/", "", f"Machine: {machine}.", "", f"Environment: {env}.", ""]
        for name, (label, what) in table.items():
            if name not in present:
                raise SystemExit(f"described but not present: {sub}/{name}")
            out.append(f"### {sub}/{name}")
            out.append("")
            rec = recs.get(name)
            if rec:
                out.append(f"- command: `{rec['command']}`")
                out.append(f"- exit status: {rec['exit_status']}; ran {rec['start_utc']} to {rec['end_utc']} ({rec['seconds']} s)")
            elif name.startswith("flight-recorder-"):
                rec = recs["watchdog-timeout-allreduce-1rank.log"]
                out.append("- produced by: the watchdog-timeout-allreduce-1rank.log run (see its command); "
                           "copied from /tmp/gpu_capture_work/frdump/ (rank_0, rank_0.json)")
                out.append(f"- date: {rec['start_utc']}")
            else:
                out.append("- produced by: the capture script itself (no command of its own); date 2026-11-30")
            out.append(f"- machine: {'lent NVIDIA H200 device' if sub == 'gpu' else 'CPU dev machine'} (see above)")
            out.append(f"- label: {label if label else 'none (system information, not a log)'}")
            out.append(f"- shows: {what}")
            out.append("")
            if label:
                labels.append({"file": f"{sub}/{name}", "label": label, "why": WHY[f"{sub}/{name}"]})
    (ROOT / "SOURCES.md").write_text("\n".join(out))
    (ROOT / "labels.json").write_text(json.dumps(labels, indent=2) + "\n")
    print(f"wrote SOURCES.md and labels.json ({len(labels)} labels)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
