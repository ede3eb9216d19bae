#!/usr/bin/env python3
"""Worker script for fixture captures (run under ``torchrun``).

Not part of the hyperpod-nccl package and never run by the test suite.
``tools/capture/gpu_capture.sh`` runs it on a GPU machine (backend nccl) and
``tools/capture/cpu_capture.sh`` runs it on a CPU machine (backend gloo) to
produce real PyTorch / torchrun / NCCL / gloo output for
``tests/fixtures/captured/``.

Usage: torchrun [torchrun args] tools/capture/nccl_job.py MODE [--backend B]
                [--timeout-s N] [--sleep-cycles N]

Modes:
  healthy      init, all_reduce/all_gather/reduce_scatter/broadcast, barrier,
               destroy_process_group; exits 0.
  watchdog     (nccl) a long GPU kernel on the current stream, then all_reduce
               with a short PG timeout: the NCCL watchdog times the collective
               out and aborts the process.
  dup_gpu      (nccl) every rank uses cuda:0: NCCL should refuse
               ("Duplicate GPU detected").
  oom          (cuda) NCCL initialised by an all_reduce, then a 300 GiB
               allocation -> torch.OutOfMemoryError.
  sigkill      collective, then the rank SIGKILLs itself.
  sigsegv      collective, then the rank sends itself SIGSEGV.
  sigbus       collective, then the rank sends itself SIGBUS.
  segv_real    collective, then a real NULL read via ctypes (true segfault).
  exception    collective, then rank 1 (or the last rank) raises RuntimeError.
  coll_timeout (gloo) rank 1 sleeps past the PG timeout while rank 0 waits in
               all_reduce -> gloo timeout on rank 0.
  sleep        collective, then every rank sleeps (for external signals to
               the torchrun agent).
"""
from __future__ import annotations

import argparse
import ctypes
import os
import signal
import sys
import time
from datetime import timedelta


def log(msg: str) -> None:
    rank = os.environ.get("RANK", "?")
    print(f"[capture rank {rank}] {msg}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("mode")
    ap.add_argument("--backend", default="nccl")
    ap.add_argument("--timeout-s", type=float, default=60.0)
    ap.add_argument("--sleep-cycles", type=float, default=2e11)
    ap.add_argument("--sleep-s", type=float, default=300.0)
    args = ap.parse_args()

    import torch
    import torch.distributed as dist

    rank = int(os.environ["RANK"])
    world = int(os.environ["WORLD_SIZE"])
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    use_cuda = args.backend == "nccl"

    if use_cuda:
        dev_index = 0 if args.mode == "dup_gpu" else local_rank
        torch.cuda.set_device(dev_index)
        device = torch.device("cuda", dev_index)
    else:
        device = torch.device("cpu")

    log(f"mode={args.mode} backend={args.backend} world={world} device={device} "
        f"torch={torch.__version__}")
    dist.init_process_group(args.backend, timeout=timedelta(seconds=args.timeout_s))
    log("init_process_group returned")

    def one_allreduce() -> None:
        t = torch.ones(1024, device=device) * (rank + 1)
        dist.all_reduce(t)
        if use_cuda:
            torch.cuda.synchronize()
        log(f"all_reduce ok sum={t[0].item()}")

    mode = args.mode
    if mode == "healthy":
        t = torch.ones(1 << 20, device=device) * (rank + 1)
        for _ in range(3):
            dist.all_reduce(t)
        gathered = [torch.empty(4096, device=device) for _ in range(world)]
        dist.all_gather(gathered, torch.full((4096,), float(rank), device=device))
        if use_cuda:
            out = torch.empty(4096, device=device)
            dist.reduce_scatter(out, [torch.ones(4096, device=device) for _ in range(world)])
        else:
            log("reduce_scatter skipped (not supported by gloo)")
        b = torch.arange(8192, dtype=torch.float32, device=device)
        dist.broadcast(b, src=0)
        dist.barrier()
        if use_cuda:
            torch.cuda.synchronize()
        log(f"collectives ok all_reduce[0]={t[0].item()}")
        dist.destroy_process_group()
        log("destroy_process_group returned; exiting 0")
        return 0

    if mode == "watchdog":
        one_allreduce()  # comm is up before the hang
        t = torch.ones(1 << 20, device=device)
        start = time.time()
        torch.cuda._sleep(int(args.sleep_cycles))  # long kernel on the current stream
        work = dist.all_reduce(t, async_op=True)  # NCCL stream waits on it
        log(f"all_reduce enqueued behind a {args.sleep_cycles:.3g}-cycle kernel; "
            f"PG timeout {args.timeout_s}s")
        while time.time() - start < args.sleep_s:
            time.sleep(5)
            log(f"main thread alive {time.time() - start:.0f}s, "
                f"work completed={work.is_completed()}")
        log("watchdog did not abort the process within sleep-s")
        return 3

    if mode == "dup_gpu":
        one_allreduce()
        dist.destroy_process_group()
        log("no error from NCCL with duplicate GPU; exiting 0")
        return 0

    if mode == "oom":
        one_allreduce()
        log("allocating 300 GiB on the GPU")
        x = torch.empty(300 * 2**30, dtype=torch.uint8, device=device)
        log(f"allocation unexpectedly succeeded: {x.numel()}")
        return 0

    if mode in ("sigkill", "sigsegv", "sigbus"):
        one_allreduce()
        sig = {"sigkill": signal.SIGKILL, "sigsegv": signal.SIGSEGV,
               "sigbus": signal.SIGBUS}[mode]
        victim = world - 1
        if rank == victim:
            log(f"sending {sig.name} to own pid {os.getpid()}")
            os.kill(os.getpid(), sig)
            time.sleep(5)
        else:
            log("waiting in a second all_reduce")
            one_allreduce()
        return 0

    if mode == "segv_real":
        one_allreduce()
        if rank == world - 1:
            log("reading address 0 through ctypes")
            ctypes.string_at(0)
        else:
            one_allreduce()
        return 0

    if mode == "exception":
        one_allreduce()
        if rank == world - 1:
            raise RuntimeError(f"capture: simulated failure in training step on rank {rank}")
        one_allreduce()
        return 0

    if mode == "coll_timeout":
        one_allreduce()
        if rank == 1:
            log(f"rank 1 sleeping {args.sleep_s}s instead of joining all_reduce")
            time.sleep(args.sleep_s)
            return 0
        log("rank 0 entering all_reduce that rank 1 never joins")
        one_allreduce()
        log("unexpected: all_reduce returned")
        return 0

    if mode == "sleep":
        one_allreduce()
        log(f"sleeping {args.sleep_s}s")
        time.sleep(args.sleep_s)
        return 0

    print(f"unknown mode {mode}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
