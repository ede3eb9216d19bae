"""DCGM's health and diagnostic error codes (dcgmError_t) and the finding code each belongs to.

From NVIDIA/DCGM dcgmlib/dcgm_errors.h (commit 18b87c71), in our own grouping: the codes that
name GPU memory, NVLink/NVSwitch and the fabric manager, and Xids; any other code (PCIe, power,
thermal, software set-up) is a failure DCGM found that no finding code names more closely.
Tools relay them by number: the EKS node monitoring agent's 'DCGMHealthCode4' condition, for
one.
"""

from __future__ import annotations

# Uncorrectable ECC, retired or remapped rows, faulty memory, DBE violations; 81 is the
# uncontained error of Xid 95.
_GPU_ECC = frozenset({4, 6, 7, 8, 52, 57, 58, 80, 81, 83, 84, 85, 103, 106})
# NVLink errors and links down, NVSwitch fatal errors and SXids, the fabric manager not
# initialised.
_NVLINK = frozenset({13, 14, 15, 70, 71, 99, 100, 108, 109})
_XID = frozenset({101})


def dcgm_error_code(number: int) -> str:
    """The finding code of a DCGM error number."""
    if number in _GPU_ECC:
        return "GPU_ECC"
    if number in _NVLINK:
        return "NVLINK_ERROR"
    if number in _XID:
        return "GPU_XID"
    return "UNCLASSIFIED_FAILURE"
