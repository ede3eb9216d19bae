"""Rules derived from the host programs' own messages (issue 18): PyTorch, Slurm, Linux, the
NVIDIA driver and Kubernetes templates of tests/fixtures/messages/torch_host.yaml, as
tests/logs/messages.py instantiates them, get the inventory's code with both engines, and so do
real lines of the same messages; the new rules stay silent on healthy output."""

from __future__ import annotations

from pathlib import Path

import pytest
from messages import Template, failure_templates
from rule_cases import ENGINES, fired_on_healthy, root_of

from hyperpod_nccl.api import analyze_logs

# (file, line) of the templates a rule was added or widened for; the rule's comment in
# catalog.yaml cites the same place.
DERIVED = [
    # torch-blocking-wait-timeout (the WorkNCCL the harness now prints), store-wait-timeout
    ("torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp", 873),
    ("torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp", 2932),
    ("torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp", 2995),
    # torch-c10d-invalid-argument
    *[
        ("torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp", line)
        for line in (3393, 3434, 3443, 3798, 5158, 5933)
    ],
    # no-cuda-device, torch-cuda-device-count-error
    ("torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp", 948),
    ("c10/cuda/CUDAFunctions.cpp", 58),
    ("c10/cuda/CUDAFunctions.cpp", 94),
    # c10d-client-connect-timeout, c10d-ipv4-gai-error, socket-timeout-store (socket.cpp:764
    # prints two messages)
    ("torch/csrc/distributed/c10d/socket.cpp", 1028),
    ("torch/csrc/distributed/c10d/socket.cpp", 764),
    ("torch/csrc/distributed/c10d/socket.cpp", 494),
    # elastic-death-signal, elastic-termination-signal
    ("torch/distributed/elastic/agent/server/api.py", 753),
    ("torch/distributed/elastic/agent/server/api.py", 1005),
    # slurm-job-cancelled, slurm-oom-kill, srun-interrupted, srun-force-terminated,
    # slurm-execve-failed
    *[("src/slurmd/slurmstepd/req.c", line) for line in (1122, 1126, 1130, 1135, 1144)],
    ("src/srun/launch.c", 377),
    ("src/srun/signals.c", 120),
    ("src/srun/signals.c", 167),
    ("src/api/step_launch.c", 776),
    ("src/slurmd/slurmstepd/task.c", 541),
    # kernel-oom-kill, host-memory-uncorrectable
    *[("mm/oom_kill.c", line) for line in (451, 462, 955, 1169, 1179, 1180)],
    ("drivers/edac/edac_mc.c", 888),
    ("mm/memory-failure.c", 356),
    # gpu-fallen-off-bus, gpu-init-failed, nvrm-gsp-timeout, nvml-driver-library-mismatch,
    # nvswitch-sxid
    ("src/nvidia/arch/nvalloc/unix/src/osinit.c", 368),
    ("src/nvidia/arch/nvalloc/unix/src/osinit.c", 374),
    ("src/nvidia/arch/nvalloc/unix/src/osapi.c", 3659),
    ("src/nvidia/arch/nvalloc/unix/src/osinit.c", 2417),
    ("kernel-open/nvidia/nv.c", 1527),
    ("src/nvidia/src/kernel/gpu/gsp/kernel_gsp.c", 2375),
    ("src/nvidia/arch/nvalloc/unix/src/osapi.c", 1221),
    # gpu-unsupported-by-driver, gpu-probe-failed
    ("src/nvidia/arch/nvalloc/unix/src/osapi.c", 3749),
    ("src/nvidia/arch/nvalloc/unix/src/osapi.c", 3712),
    *[("kernel-open/nvidia/nv.c", line) for line in (946, 968, 976)],
    ("src/common/nvswitch/kernel/inc/common_nvswitch.h", 163),
    # k8s-image-pull, k8s-failed-scheduling, k8s-evicted, k8s-ephemeral-storage-limit,
    # k8s-stopped-by-kubelet
    ("pkg/kubelet/images/types.go", 37),
    ("pkg/kubelet/images/types.go", 43),
    ("pkg/kubelet/images/image_manager.go", 137),
    ("pkg/scheduler/scheduler.go", 331),
    ("pkg/scheduler/core/generic_scheduler.go", 68),
    ("pkg/scheduler/framework/plugins/noderesources/fit.go", 294),
    ("pkg/scheduler/framework/plugins/noderesources/fit.go", 263),
    ("pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go", 69),
    ("pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go", 47),
    *[("pkg/kubelet/eviction/helpers.go", line) for line in (41, 43, 47, 49, 51)],
    ("pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go", 689),
    ("pkg/kubelet/kuberuntime/kuberuntime_manager.go", 633),
    ("pkg/kubelet/active_deadline.go", 32),
]

# Real lines of the same messages, each with where it was printed.
REAL = [
    # shared/probes/xid/xid79-fallen-off-bus-with-nvswitch-sxid20034.txt
    ("[6781741.548783] NVRM: GPU 0000:91:00.0: GPU has fallen off the bus.", "GPU_XID"),
    (
        "[6781753.404848] nvidia-nvswitch2: SXid (PCI:0000:07:00.0): 20034, Severity 1 Engine "
        "instance 60 Sub-engine instance 00",
        "NVLINK_ERROR",
    ),
    # shared/probes/xid/fallen-off-bus-without-xid-multiline-570.txt (NVIDIA/NVSentinel#155)
    ("[ 1843.308145] NVRM: The NVIDIA GPU 0000:b3:00.0", "GPU_XID"),
    # shared/probes/xid/xid119-gsp-timeout-a100-sxm4-8gpu-vllm.txt
    (
        "[Sun Apr 26 23:12:26 2026] NVRM: _kgspLogXid119: *********************************"
        " GSP Timeout **********************************",
        "GPU_XID",
    ),
    # The same messages as older releases print them (the rule's fixed words, other values).
    ("srun: Force Terminated job step 1234.0", "EXTERNAL_SIGNAL"),
    ("srun: error: node-[1-2]: tasks 0-7: Out Of Memory", "CONTAINER_OOM"),
    (
        "WARNING:torch.distributed.elastic.agent.server.api:Received Signals.SIGHUP death "
        "signal, shutting down workers",
        "EXTERNAL_SIGNAL",
    ),
    (
        "slurmstepd: error: execve(): bad interpreter(/usr/bin/python9): No such file or directory",
        "APP_EXCEPTION",
    ),
    (
        "Dec  1 10:11:12 ip-10-1-2-3 kernel: python invoked oom-killer: "
        "gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0",
        "CONTAINER_OOM",
    ),
    (
        "trainer-0                 0/1     Evicted            0          3h12m",
        "EXTERNAL_SIGNAL",
    ),
]

# Lines the widened rules must leave to others: another task's failure is no stop from
# outside; a crash-looping container stays POD_CRASHLOOP; node memory pressure stays OOM.
NOT_THEIRS = [
    (
        "slurmstepd: error: *** JOB 1234 ON node-3 CANCELLED AT 2026-12-01T10:11:12 DUE TO TASK FAILURE ***",
        "UNCLASSIFIED_FAILURE",
    ),
    (
        "  Warning  BackOff  2m (x3 over 10m)  kubelet  Back-off restarting failed container",
        "POD_CRASHLOOP",
    ),
    ("Message:          The node was low on resource: memory. ", "CONTAINER_OOM"),
]

NEW_RULES = {
    "nvrm-gsp-timeout",
    "k8s-ephemeral-storage-limit",
    "torch-c10d-invalid-argument",
    "torch-dump-signal-store-unavailable",
    "torch-cuda-device-count-error",
    "k8s-stopped-by-kubelet",
    "srun-interrupted",
    "srun-force-terminated",
    "host-memory-uncorrectable",
    "slurm-execve-failed",
}
# Rules widened for the same templates: they must stay silent on healthy output as well.
WIDENED = {
    "nvswitch-sxid",
    "gpu-fallen-off-bus",
    "gpu-init-failed",
    "nvml-driver-library-mismatch",
    "kernel-oom-kill",
    "slurm-oom-kill",
    "socket-timeout-store",
    "no-cuda-device",
    "k8s-failed-scheduling",
    "k8s-image-pull",
    "k8s-evicted",
    "elastic-death-signal",
    "elastic-termination-signal",
    "slurm-job-cancelled",
}


def _templates(key: tuple[str, int]) -> list[Template]:
    return failure_templates(*key)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("key", DERIVED, ids=[f"{f}:{n}" for f, n in DERIVED])
def test_instantiated_template_gets_its_code(
    key: tuple[str, int], engine: str, tmp_path: Path
) -> None:
    templates = _templates(key)
    assert templates, key
    for t in templates:
        assert root_of(tmp_path, t.instantiate(), engine) == t.code, t.instantiate()


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("line", "code"), REAL + NOT_THEIRS, ids=[c[0][:50] for c in REAL + NOT_THEIRS]
)
def test_real_line_gets_its_code(line: str, code: str, engine: str, tmp_path: Path) -> None:
    assert root_of(tmp_path, line, engine) == code


@pytest.mark.parametrize("engine", ENGINES)
def test_new_and_widened_rules_are_silent_on_healthy_output(engine: str) -> None:
    assert fired_on_healthy(NEW_RULES | WIDENED, engine) == []


# torch-dump-signal-store-unavailable: the watchdog goes on after these, so they only inform
# (a WARN finding, never the root cause alone).
WARN_ONLY = [
    ("torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp", 1893),
    ("torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp", 2722),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("key", WARN_ONLY, ids=[f"{f}:{n}" for f, n in WARN_ONLY])
def test_instantiated_template_informs_with_its_code(
    key: tuple[str, int], engine: str, tmp_path: Path
) -> None:
    for t in _templates(key):
        path = tmp_path / "case.log"
        path.write_text(t.instantiate() + "\n", "utf-8")
        report = analyze_logs([str(path)], backend=engine).to_dict()
        assert report["root_cause"] is None, t.instantiate()
        found = [(f["code"], f["status"]) for f in report["findings"] if f["code"] == t.code]
        assert found == [(t.code, "WARN")], t.instantiate()
