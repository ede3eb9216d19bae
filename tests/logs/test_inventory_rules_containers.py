"""Rules derived from the container and GPU cluster software's own messages (issue 18):
the templates of tests/fixtures/messages/containers.yaml (libnvidia-container, the NVIDIA
Container Toolkit, Docker, enroot, pyxis, mksquashfs, the NVIDIA device plugin, the GPU
operator's validator, dcgm-exporter, Volcano, Kubeflow, the Kubernetes Job controller), as
tests/logs/messages.py instantiates them, get the inventory's code with both engines, and so do
real lines of the same messages; the new and widened rules stay silent on healthy output."""

from __future__ import annotations

from pathlib import Path

import pytest
from messages import Template, failure_templates, templates_at
from rule_cases import ENGINES, fired_on_healthy, root_of

from hyperpod_nccl.api import analyze_logs

_NVC = "NVIDIA/libnvidia-container"
_CTK = "NVIDIA/nvidia-container-toolkit"
_DP = "NVIDIA/k8s-device-plugin"
_OPERATOR = "NVIDIA/gpu-operator"
_KF = "kubeflow/training-operator"

# (repo, file, line) of the templates a rule was added or widened for; the rule's comment in
# catalog.yaml cites the same place.
DERIVED = [
    # nvidia-container-driver
    (_NVC, "src/xfuncs.h", 142),
    (_NVC, "src/driver.c", 46),
    (_NVC, "src/cli/dsl.c", 165),
    (_NVC, "src/cli/dsl.c", 167),
    (_NVC, "src/cli/configure.c", 294),
    (_CTK, "internal/modifier/cdi/registry.go", 62),
    (_CTK, "vendor/tags.cncf.io/container-device-interface/pkg/cdi/cache.go", 257),
    ("moby/moby", "daemon/errors.go", 82),
    ("NVIDIA/enroot", "conf/hooks/98-nvidia.sh", 74),
    # nvml-init-library-missing
    (_DP, "internal/plugin/factory.go", 99),
    (_DP, "internal/plugin/factory.go", 107),
    ("NVIDIA/dcgm-exporter", "internal/pkg/nvmlprovider/provider.go", 83),
    (_OPERATOR, "cmd/nvidia-validator/main.go", 560),
    (_OPERATOR, "cmd/nvidia-validator/main.go", 588),
    # device-plugin-not-serving
    (_DP, "internal/plugin/server.go", 146),
    (_DP, "internal/plugin/server.go", 138),
    (_OPERATOR, "cmd/nvidia-validator/main.go", 606),
    (_OPERATOR, "cmd/nvidia-validator/main.go", 1505),
    # device-plugin-xid (already there; the template is the current plugin's wording)
    (_DP, "internal/rm/health.go", 169),
    # pyxis-image-import (widened), disk-full (widened)
    ("NVIDIA/pyxis", "pyxis_slurmstepd.c", 753),
    ("NVIDIA/pyxis", "pyxis_slurmstepd.c", 788),
    ("NVIDIA/enroot", "src/common.sh", 134),
    ("NVIDIA/enroot", "src/docker.sh", 287),
    ("NVIDIA/enroot", "src/bundle.sh", 205),
    ("plougher/squashfs-tools", "squashfs-tools/mksquashfs.c", 827),
    ("plougher/squashfs-tools", "squashfs-tools/mksquashfs.c", 831),
    # volcano-gang-unschedulable, k8s-failed-scheduling (Volcano's pod events)
    ("volcano-sh/volcano", "pkg/scheduler/plugins/gang/gang.go", 254),
    ("volcano-sh/volcano", "pkg/scheduler/api/job_info.go", 904),
    ("volcano-sh/volcano", "pkg/scheduler/api/job_info.go", 907),
    ("volcano-sh/volcano", "pkg/scheduler/plugins/capacity/capacity.go", 1738),
    ("volcano-sh/volcano", "pkg/scheduler/plugins/proportion/proportion.go", 437),
    # job-pods-failed
    (_KF, "pkg/controller.v1/pytorch/pytorchjob_controller.go", 435),
    (_KF, "pkg/controller.v1/pytorch/pytorchjob_controller.go", 430),
    (_KF, "pkg/controller.v1/common/pod.go", 362),
    (_KF, "pkg/controller.v1/common/job.go", 210),
    ("kubernetes/kubernetes", "pkg/controller/job/job_controller.go", 512),
    ("kubernetes/kubernetes", "pkg/controller/job/job_controller.go", 513),
    # k8s-stopped-by-kubelet (widened to the jobs' own deadlines)
    (_KF, "pkg/controller.v1/common/job.go", 212),
    ("kubeflow/trainer", "pkg/constants/constants.go", 88),
    ("kubernetes/kubernetes", "pkg/controller/job/job_controller.go", 517),
]

# Real lines of the same messages, each with where it was printed.
REAL = [
    # github.com/NVIDIA/nvidia-container-toolkit/issues/260
    (
        "docker: Error response from daemon: failed to create shim: OCI runtime create failed: "
        "container_linux.go:380: starting container process caused: process_linux.go:545: "
        "container init caused: Running hook #0:: error running hook: exit status 1, stdout: , "
        "stderr: nvidia-container-cli: initialization error: nvml error: driver not loaded: "
        "unknown.",
        "DRIVER_MISMATCH",
    ),
    # github.com/docker/for-win/issues/13835 (its title)
    (
        "nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: "
        "cannot open shared object file: no such file or directory: unknown.",
        "DRIVER_MISMATCH",
    ),
    # github.com/NVIDIA/nvidia-container-toolkit/issues/1239
    (
        "  Warning  Failed     10s (x2 over 10s)  kubelet            Error: failed to create "
        "containerd task: failed to create shim task: OCI runtime create failed: could not apply "
        "required modification to OCI specification: error modifying OCI spec: failed to inject "
        "CDI devices: unresolvable CDI devices "
        "management.nvidia.com/gpu=GPU-e78e68c0-4e6a-737e-f9cc-4223fe50aead",
        "DRIVER_MISMATCH",
    ),
    # github.com/warmshao/FasterLivePortrait/issues/116 (podman)
    (
        "Error: setting up CDI devices: unresolvable CDI devices nvidia.com/gpu=all",
        "DRIVER_MISMATCH",
    ),
    # github.com/NVIDIA/nvidia-container-toolkit/issues/434
    (
        'docker: Error response from daemon: could not select device driver "cdi" with '
        "capabilities: [].",
        "DRIVER_MISMATCH",
    ),
    # github.com/NVIDIA/k8s-device-plugin/issues/303 (an older plugin's wording)
    (
        "2022/05/13 23:09:23 Failed to initialize NVML: could not load NVML library.",
        "DRIVER_MISMATCH",
    ),
    # github.com/NVIDIA/k8s-device-plugin/issues/856
    (
        "error starting plugins: error creating plugin manager: unable to create plugin manager: "
        "nvml init failed: ERROR_LIBRARY_NOT_FOUND",
        "DRIVER_MISMATCH",
    ),
    # github.com/NVIDIA/k8s-device-plugin/issues/109
    (
        "2019/04/05 04:02:20 Could not register device plugin: rpc error: code = Unimplemented "
        "desc = unknown service v1beta1.Registration",
        "POD_PENDING_RESOURCES",
    ),
    # github.com/NVIDIA/pyxis/issues/41
    (
        "slurmstepd: error: pyxis:     Write failed because No space left on device",
        "DISK_FULL",
    ),
    # github.com/kubernetes/kubernetes/issues/92245 (kubectl get job -o yaml)
    ("      message: Job has reached the specified backoff limit", "POD_CRASHLOOP"),
    # github.com/kubernetes/kubernetes/issues/93559 (oc get job -ojson)
    ('      "reason": "BackoffLimitExceeded",', "POD_CRASHLOOP"),
]

# Whole pastes: the cause the program names wins over the symptoms printed with it.
PASTES = [
    # github.com/NVIDIA/pyxis/issues/53: the import failed because the squashfs did not fit.
    (
        "pyxis: importing docker image ...\n"
        "slurmstepd: error: pyxis: child 52574 failed with error code: 1\n"
        "slurmstepd: error: pyxis: failed to import docker image\n"
        "slurmstepd: error: pyxis: printing contents of log file ...\n"
        "slurmstepd: error: pyxis:     [INFO] Creating squashfs filesystem...\n"
        "slurmstepd: error: pyxis:     Write failed because No space left on device\n"
        "slurmstepd: error: pyxis:     FATAL ERROR:Failed to write to output filesystem",
        "DISK_FULL",
    ),
    # github.com/NVIDIA/enroot/issues/39: a start hook failed on a full home directory.
    (
        "sed: couldn't close stdout: No space left on device\n"
        "[ERROR] /etc/enroot/hooks.d/10-shadow.sh exited with return code 4",
        "DISK_FULL",
    ),
    # The device plugin's NVML failure (k8s-device-plugin#303) explains the pod that then
    # finds no GPU on the node (the DRIVER_MISMATCH -> POD_PENDING_RESOURCES edge).
    (
        "2022/05/13 23:09:23 Failed to initialize NVML: could not load NVML library.\n"
        "  Warning  FailedScheduling  27s (x11 over 13m)  default-scheduler  0/4 nodes are "
        "available: 4 Insufficient nvidia.com/gpu.",
        "DRIVER_MISMATCH",
    ),
    # A Job that hit its backoff limit after its pod was OOM-killed: the kill is the cause.
    (
        "    Last State:     Terminated\n"
        "      Reason:       OOMKilled\n"
        "      Exit Code:    137\n"
        "  Warning  BackoffLimitExceeded  2m  job-controller  Job has reached the specified "
        "backoff limit",
        "CONTAINER_OOM",
    ),
]

# Lines the new rules must leave to others: NVML's 'Unknown Error' inside a running container
# stays GPU_ACCESS_LOST; a gRPC deadline is no job deadline.
NOT_THEIRS = [
    ("Failed to initialize NVML: Unknown Error", "GPU_ACCESS_LOST"),
    ("rpc error: code = DeadlineExceeded desc = context deadline exceeded", None),
]

NEW_RULES = {
    "nvidia-container-driver",
    "nvml-init-library-missing",
    "device-plugin-not-serving",
    "job-pods-failed",
}
# Rules widened for the same templates: they must stay silent on healthy output as well.
WIDENED = {"pyxis-image-import", "disk-full", "k8s-stopped-by-kubelet"}


def _templates(key: tuple[str, str, int]) -> list[Template]:
    repo, file, line = key
    return failure_templates(file, line, repo)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("key", DERIVED, ids=[f"{f}:{n}" for _, f, n in DERIVED])
def test_instantiated_template_gets_its_code(
    key: tuple[str, str, int], engine: str, tmp_path: Path
) -> None:
    templates = _templates(key)
    assert templates, key
    for t in templates:
        assert root_of(tmp_path, t.instantiate(), engine) == t.code, t.instantiate()


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("text", "code"),
    REAL + PASTES + NOT_THEIRS,
    ids=[c[0].splitlines()[-1][:50] for c in REAL + PASTES + NOT_THEIRS],
)
def test_real_line_gets_its_code(text: str, code: str | None, engine: str, tmp_path: Path) -> None:
    assert root_of(tmp_path, text, engine) == code


@pytest.mark.parametrize("engine", ENGINES)
def test_new_and_widened_rules_are_silent_on_healthy_output(engine: str) -> None:
    assert fired_on_healthy(NEW_RULES | WIDENED, engine) == []


# Messages the programs print while they go on (a health check turned off, the validator
# waiting for the driver container to install): no failure at all.
BENIGN = [
    (_DP, "internal/plugin/server.go", 155),
    (_OPERATOR, "cmd/nvidia-validator/main.go", 837),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("key", BENIGN, ids=[f"{f}:{n}" for _, f, n in BENIGN])
def test_messages_of_programs_that_go_on_make_no_finding(
    key: tuple[str, str, int], engine: str, tmp_path: Path
) -> None:
    repo, file, line = key
    templates = templates_at(file, line, repo)
    assert templates, key
    for t in templates:
        assert t.code == "benign", t
        path = tmp_path / "case.log"
        path.write_text(t.instantiate() + "\n", "utf-8")
        report = analyze_logs([str(path)], backend=engine).to_dict()
        assert report["root_cause"] is None, t.instantiate()
        assert [f for f in report["findings"] if f["status"] == "FAIL"] == [], t.instantiate()
