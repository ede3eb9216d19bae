"""NVIDIA Xid numbers: what each means, what to do, and which finding code it belongs to.

Written in our own words from NVIDIA's Xid catalog
(https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html) and the A100/H100 memory
error management guide (https://docs.nvidia.com/deploy/a100-gpu-mem-error-mgmt/). The action is
the catalog's immediate resolution bucket: application, reset, reboot, replace (RMA), ignore.
"""

from __future__ import annotations

from dataclasses import dataclass

from hyperpod_nccl.model import Status


@dataclass(frozen=True)
class XidInfo:
    xid: int
    name: str
    meaning: str
    action: str  # application | reset | reboot | replace | ignore | investigate
    code: str  # GPU_ECC | NVLINK_ERROR | GPU_XID
    hardware: bool  # False when the catalog points at the application, not the GPU

    @property
    def status(self) -> Status:
        # Application-caused Xids are worth knowing but do not say the GPU is faulty.
        return Status.FAIL if self.hardware else Status.WARN


_TABLE: dict[int, XidInfo] = {}


def _add(xid: int, name: str, meaning: str, action: str, code: str, hardware: bool) -> None:
    _TABLE[xid] = XidInfo(xid, name, meaning, action, code, hardware)


_add(
    13,
    "GR_EXCEPTION",
    "a kernel raised a graphics/compute engine exception "
    "(illegal instruction or address); usually an application bug",
    "application",
    "GPU_XID",
    False,
)
_add(
    31,
    "MMU_FAULT",
    "GPU memory page fault: a kernel touched an invalid address; usually an "
    "application bug unless it repeats on one GPU across programs",
    "application",
    "GPU_XID",
    False,
)
_add(
    43,
    "RESET_CHANNEL",
    "the driver tore down one process's GPU channel after that process "
    "faulted; the GPU itself stays healthy",
    "ignore",
    "GPU_XID",
    False,
)
_add(
    45,
    "PREEMPTIVE_REMOVAL",
    "the driver cleaned up a process's channels (killed process or "
    "an earlier error); follow the other Xid if there is one",
    "ignore",
    "GPU_XID",
    False,
)
_add(48, "ECC_DBE", "uncorrectable double-bit ECC error in GPU memory", "reset", "GPU_ECC", True)
_add(61, "PMU_BREAKPOINT", "internal micro-controller breakpoint", "reset", "GPU_XID", True)
_add(62, "PMU_HALT", "internal micro-controller halted", "reset", "GPU_XID", True)
_add(
    63,
    "ROW_REMAP_EVENT",
    "a memory row was marked for remapping; it takes effect after a GPU reset",
    "reset",
    "GPU_ECC",
    True,
)
_add(
    64,
    "ROW_REMAP_FAILURE",
    "memory row remapping failed; an RMA criterion",
    "replace",
    "GPU_ECC",
    True,
)
_add(
    74,
    "NVLINK_ERROR",
    "NVLink error on a link of this GPU or its peer",
    "reset",
    "NVLINK_ERROR",
    True,
)
_add(79, "FALLEN_OFF_BUS", "the GPU is no longer reachable over PCIe", "reboot", "GPU_XID", True)
_add(
    92,
    "EXCESSIVE_SBE",
    "high rate of correctable single-bit ECC errors",
    "investigate",
    "GPU_ECC",
    True,
)
_add(
    94,
    "CONTAINED_ECC",
    "uncorrectable memory error contained to the affected process; that process must restart",
    "application",
    "GPU_ECC",
    True,
)
_add(
    95,
    "UNCONTAINED_ECC",
    "uncorrectable memory error that could not be contained; reset the GPU",
    "reset",
    "GPU_ECC",
    True,
)
_add(109, "CTXSW_TIMEOUT", "context-switch timeout on the GPU", "reset", "GPU_XID", True)
_add(
    119,
    "GSP_RPC_TIMEOUT",
    "the GPU System Processor firmware stopped answering the driver",
    "reset",
    "GPU_XID",
    True,
)
_add(
    120,
    "GSP_ERROR",
    "the GPU System Processor firmware reported an error",
    "reset",
    "GPU_XID",
    True,
)
_add(121, "C2C_ERROR", "chip-to-chip link error", "reset", "GPU_XID", True)
# 136: ALI_TRAINING_FAIL in open-gpu-kernel-modules src/common/sdk/nvidia/inc/nverror.h:131,
# logged by kernel_nvlink_gh100.c:383 when an NVLink link does not train.
_add(136, "ALI_TRAINING_FAIL", "NVLink link training failed", "reset", "NVLINK_ERROR", True)
_add(137, "NVLINK_PRIV_ERR", "NVLink privilege error", "investigate", "NVLINK_ERROR", True)
for _n in range(144, 151):
    _add(_n, "NVLINK5_ERROR", "NVLink5 unit error (Blackwell)", "reset", "NVLINK_ERROR", True)
_add(
    154,
    "RECOVERY_ACTION_CHANGED",
    "notice that the GPU's required recovery action changed because of another Xid",
    "investigate",
    "GPU_XID",
    False,
)


def xid_info(xid: int) -> XidInfo:
    """Known Xids from the table; any other Xid is treated as a GPU fault to investigate."""
    return _TABLE.get(
        xid,
        XidInfo(
            xid,
            "UNLISTED",
            "Xid not in our table; look it up in NVIDIA's Xid catalog",
            "investigate",
            "GPU_XID",
            True,
        ),
    )
