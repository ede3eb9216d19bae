"""Rules derived from the host kernel side of a node (issue 18): the EFA kernel driver, Linux
lockups, RCU stalls and machine checks, the NFS and Lustre clients, nvidia-peermem and GDRCopy,
as tests/fixtures/messages/kernel_storage.yaml records them and tests/logs/messages.py
instantiates them, get the inventory's code with both engines, and so do real lines of the same
messages; the new rules stay silent on healthy output, and what the inventory calls context or
benign raises no failure."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from messages import MESSAGES, Template, failure_templates, load_templates
from rule_cases import ENGINES, fired_on_healthy, root_of

from hyperpod_nccl.api import analyze_logs

KERNEL_REPOS = {
    "amzn/amzn-drivers",
    "torvalds/linux",
    "lustre/lustre-release",
    "NVIDIA/open-gpu-kernel-modules",
    "NVIDIA/gdrcopy",
}


def _inventory() -> list[Template]:
    """The templates of kernel_storage.yaml, as messages.py instantiates them (the other
    files' Linux and NVIDIA templates are tested with theirs)."""
    data = yaml.safe_load((MESSAGES / "kernel_storage.yaml").read_text("utf-8"))
    keys = {(raw["repo"], raw["file"], int(raw["line"])) for raw in data["templates"]}
    return [t for t in load_templates() if t.key in keys]


MINE = _inventory()
FAILURES = [t for t in MINE if t.code not in ("benign", "context")]
QUIET = [t for t in MINE if t.code in ("benign", "context")]

# Lustre's per-request messages only inform (the client resends and reconnects): a WARN of
# NETWORK_FS_UNAVAILABLE, which the code may name as the root cause when nothing fails.
WARN_LINES = {
    ("lustre/ptlrpc/client.c", 1502),
    ("lustre/ptlrpc/client.c", 2497),
    *(("lnet/klnds/o2iblnd/o2iblnd_cb.c", n) for n in (3528, 3573, 3613)),
    *(("lnet/klnds/socklnd/socklnd_cb.c", n) for n in (2247, 2252, 2292)),
}


def _id(t: Template) -> str:
    return f"{t.file}:{t.line}"


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("t", FAILURES, ids=[_id(t) for t in FAILURES])
def test_instantiated_template_gets_its_code(t: Template, engine: str, tmp_path: Path) -> None:
    assert failure_templates(t.file, t.line, t.repo) == [t]
    assert root_of(tmp_path, t.instantiate(), engine) == t.code, t.instantiate()


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("t", QUIET, ids=[_id(t) for t in QUIET])
def test_context_and_benign_templates_raise_no_failure(
    t: Template, engine: str, tmp_path: Path
) -> None:
    path = tmp_path / "case.log"
    path.write_text(t.instantiate() + "\n", "utf-8")
    report = analyze_logs([str(path)], backend=engine).to_dict()
    assert report["root_cause"] is None, t.instantiate()


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    "t",
    [t for t in FAILURES if (t.file, t.line) in WARN_LINES],
    ids=[_id(t) for t in FAILURES if (t.file, t.line) in WARN_LINES],
)
def test_lustre_request_messages_only_inform(t: Template, engine: str, tmp_path: Path) -> None:
    path = tmp_path / "case.log"
    path.write_text(t.instantiate() + "\n", "utf-8")
    report = analyze_logs([str(path)], backend=engine).to_dict()
    found = {(f["code"], f["status"]) for f in report["findings"] if f["code"] == t.code}
    assert found == {(t.code, "WARN")}, t.instantiate()


# Real lines of the same messages, each with where it was printed; older releases' words
# where they differ from the pinned sources.
REAL = [
    # github.com/deepspeedai/DeepSpeed/issues/925
    (
        "[Sat Apr  3 05:23:42 2021] watchdog: BUG: soft lockup - CPU#7 stuck for 23s! "
        "[pytest:25222]",
        "HOST_KERNEL_STALL",
    ),
    # github.com/hiyouga/LlamaFactory/issues/1355 (while DeepSpeed ZeRO-3 saved the model)
    ("watchdog: BUG: soft lockup - CPU#98 stuck for 22s!", "HOST_KERNEL_STALL"),
    # github.com/nfs-ganesha/nfs-ganesha/issues/1295
    (
        "[1576939.453001] nfs: server 100.73.159.36 not responding, still trying",
        "NETWORK_FS_UNAVAILABLE",
    ),
    # github.com/linux-surface/linux-surface/issues/1494
    (
        "[32495.562824] nfs: server thinkcentre not responding, timed out",
        "NETWORK_FS_UNAVAILABLE",
    ),
    ("[32958.266147] nfs: server thinkcentre OK", None),
    # github.com/jade-hpc-gpu/jade-hpc-gpu.github.io/issues/14
    (
        "[Mon Oct 16 10:06:17 2017] LustreError: 11-0: jmain01-MDT0000-mdc-ffff88203810d800: "
        "operation obd_ping to node 172.31.126.88@o2ib failed: rc = -107",
        "NETWORK_FS_UNAVAILABLE",
    ),
    (
        "[Mon Oct 16 10:00:12 2017] Lustre: 2449:0:(client.c:2141:ptlrpc_expire_one_request()) "
        "@@@ Request sent has failed due to network error: [sent 1508144508/real 1508144518]  "
        "req@ffff880eb14da700 x1570198182041824/t0(0) o250->MGC172.31.126.87@o2ib@"
        "172.31.126.87@o2ib:26/25 lens 520/544 e 0 to 1 dl 1508144563 ref 1 fl "
        "Rpc:eXN/0/ffffffff rc 0/-1",
        "NETWORK_FS_UNAVAILABLE",
    ),
    (
        "[Mon Oct 16 09:54:43 2017] LNet: 2431:0:(o2iblnd_cb.c:3174:kiblnd_check_conns()) "
        "Timed out tx for 172.31.126.87@o2ib: 403055 seconds",
        "NETWORK_FS_UNAVAILABLE",
    ),
    # github.com/amazonlinux/amazon-linux-2023/issues/723 (an FSx for Lustre client)
    (
        "[Fri May 31 00:55:00 2024] LustreError: 15c-8: MGC172.31.84.120@tcp: Confguration "
        "from log jxlwlxxv-client failed from MGS -5. Communication error between node & MGS, "
        "a bad configuration, or other errors. See syslog for more info",
        "NETWORK_FS_UNAVAILABLE",
    ),
    (
        "[Fri May 31 00:55:11 2024] LustreError: 26110:0:(super25.c:187:lustre_fill_super()) "
        "llite: Unable to mount <unknown>: rc = -5",
        "NETWORK_FS_UNAVAILABLE",
    ),
    # github.com/whamcloud/integrated-manager-for-lustre/pull/107
    (
        "Jun 27 15:59:33 lotus-55vm15.lotus.hpdd.lab.intel.com kernel: Lustre: MGS: Connection "
        "restored to c7547940-8b66-9e67-9f49-79141907f91f (at 10.14.83.21@tcp)",
        None,
    ),
    # Lustre 2.x's numbered console message for an eviction (LCONSOLE_ERROR_MSG 0x167).
    (
        "LustreError: 167-0: fsx-OST0000-osc-ffff8f2a3b4c5000: This client was evicted by "
        "fsx-OST0000; in progress operations using this service will fail.",
        "NETWORK_FS_UNAVAILABLE",
    ),
    # The EFA driver on a kernel without __ibdev_printk (kcompat.h's dev_err on the ib device).
    ("[ 1632.420956] infiniband efa_0: Wait for completion (polling) timeout", "EFA_ERROR"),
    # The kernel's RCU flavour names: rcu_preempt on preemptible kernels, rcu_bh before 4.20.
    ("INFO: rcu_bh detected stalls on CPUs/tasks:", "HOST_KERNEL_STALL"),
    ("NMI watchdog: Watchdog detected hard LOCKUP on cpu 12", "HOST_KERNEL_STALL"),
]

# Lines the new rules must leave to others: a machine check that was corrected, the EFA
# driver tearing a QP down, a hung task (context in torch_host.yaml), a full file system.
NOT_THEIRS = [
    ("[3.123456] mce: [Hardware Error]: Machine check events logged", None),
    ("[3.123456] efa 0000:3b:00.0 efa_0: Failed to destroy qp-3 [-19]", None),
    ("[3.123456] INFO: task python3:4242 blocked for more than 120 seconds.", None),
    ("OSError: [Errno 28] No space left on device", "DISK_FULL"),
]

NEW_RULES = {
    "efa-kernel-driver-error",
    "nfs-server-unavailable",
    "lustre-client-disconnected",
    "lustre-request-timeout",
    "nvidia-peermem-pin-failed",
    "machine-check-fatal",
    "host-kernel-stall",
}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("line", "code"), REAL + NOT_THEIRS, ids=[c[0][:50] for c in REAL + NOT_THEIRS]
)
def test_real_line_gets_its_code(line: str, code: str | None, engine: str, tmp_path: Path) -> None:
    assert root_of(tmp_path, line, engine) == code


@pytest.mark.parametrize("engine", ENGINES)
def test_new_rules_are_silent_on_healthy_output(engine: str) -> None:
    assert fired_on_healthy(NEW_RULES, engine) == []


def test_the_inventory_has_each_source() -> None:
    repos = {t.repo for t in MINE}
    assert repos == KERNEL_REPOS
    assert 30 <= len(MINE) <= 90


# What the new codes explain (codes.yaml): the ranks' collective timeout on a node whose file
# system or kernel stalled is the effect; the stall is named.
WATCHDOG_TIMEOUT = (
    "[rank3]:[E1201 10:11:12.123456789 ProcessGroupNCCL.cpp:741] [PG ID 0 PG GUID "
    "0(default_pg) Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=28956, "
    "OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600058 milliseconds "
    "before timing out."
)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("stall", "code"),
    [
        (
            "[3.123456] Lustre: fsx-OST0003-osc-ffff9a4c2b8e1000: Connection to fsx-OST0003 "
            "(at 10.1.0.31@tcp) was lost; in progress operations using this service will wait "
            "for recovery to complete",
            "NETWORK_FS_UNAVAILABLE",
        ),
        (
            "[3.123456] watchdog: BUG: soft lockup - CPU#17 stuck for 23s! [python3:4242]",
            "HOST_KERNEL_STALL",
        ),
    ],
    ids=["lustre", "soft-lockup"],
)
def test_the_stall_explains_the_collective_timeout(
    stall: str, code: str, engine: str, tmp_path: Path
) -> None:
    assert root_of(tmp_path, f"{WATCHDOG_TIMEOUT}\n{stall}", engine) == code
    assert root_of(tmp_path, WATCHDOG_TIMEOUT, engine) == "NCCL_TIMEOUT"
