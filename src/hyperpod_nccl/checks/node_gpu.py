"""GPU checks on probed nodes: inventory and driver, Xid events in the time window, ECC and row
remapping, NVLink, topology, DCGM."""

from __future__ import annotations

import re
from collections import defaultdict
from datetime import datetime, timedelta, timezone

from hyperpod_nccl.checks import check
from hyperpod_nccl.checks.node_instance_types import GPUS, normalise
from hyperpod_nccl.checks.node_results import (
    NodeResults,
    output,
    parsed,
    why_missing,
)
from hyperpod_nccl.model import Finding, Priority, Status, SuggestedCommand
from hyperpod_nccl.probes.parsers import dcgm as dcgm_parser
from hyperpod_nccl.probes.parsers import gpu as gpu_parser
from hyperpod_nccl.probes.parsers.host import parse_key_values
from hyperpod_nccl.probes.parsers.kernel_log import KernelEvent, parse_kernel_log
from hyperpod_nccl.rules.xid import xid_info
from hyperpod_nccl.snapshot import Snapshot
from hyperpod_nccl.snapshot.items import node_item
from hyperpod_nccl.targets import is_instance_id

AREA = "node"
DEFAULT_WINDOW = timedelta(hours=24)


def instance_type(snapshot: Snapshot, node: str) -> str | None:
    known = snapshot.meta.get("node_instance_types") or {}
    if isinstance(known, dict) and known.get(node):
        return normalise(str(known[node]))
    info = parsed(snapshot, node, "host_info", parse_key_values)
    return normalise(info.get("instance_type")) if info else None


def _node_id(node: str) -> str:
    return node if is_instance_id(node) else "<instance-id>"


def recovery_commands(node: str, action: str) -> list[SuggestedCommand]:
    """HyperPod's own reboot and replace, printed for the user (operations-reference.md, 11)."""
    cmds = [
        SuggestedCommand(
            "look at the node's state and labels before acting",
            f"aws sagemaker describe-cluster-node --cluster-name <cluster-name> --node-id {_node_id(node)}",
        )
    ]
    if action in ("reset", "reboot", "replace"):
        cmds.append(
            SuggestedCommand(
                "reboot the node through HyperPod (resets its GPUs)",
                f"aws sagemaker batch-reboot-cluster-nodes --cluster-name <cluster-name> --node-ids {_node_id(node)}",
                "the job on this node is stopped or will be restarted elsewhere",
                "every process on the node stops; instance, ID and volumes are kept",
                changes_state=True,
            )
        )
    if action == "replace":
        cmds.append(
            SuggestedCommand(
                "replace the node if the fault returns after a reboot",
                f"aws sagemaker batch-replace-cluster-nodes --cluster-name <cluster-name> --node-ids {_node_id(node)}",
                "data on instance volumes backed up (S3 or FSx)",
                "the instance is terminated; all its volumes are destroyed",
                changes_state=True,
            )
        )
    return cmds


@check("node.gpu_inventory", AREA, ["GPU_ACCESS_LOST", "GPU_XID"])
def check_gpu_inventory(snapshot: Snapshot) -> list[Finding]:
    results = NodeResults("GPU_ACCESS_LOST", "GPU inventory (nvidia-smi)")
    for node, inv in results.each(snapshot, "gpu_inventory", gpu_parser.parse_smi_table):
        if inv.error:
            results.problem(
                node,
                Status.FAIL,
                Priority.P0,
                f"nvidia-smi cannot reach the GPUs: {inv.error}",
                evidence=[(node_item(node, "gpu_inventory"), inv.error)],
                commands=recovery_commands(node, "reboot"),
                details={"bus_ids": inv.error_bus_ids},
            )
            continue
        expected = GPUS.get(instance_type(snapshot, node) or "")
        if expected and len(inv.gpus) < expected:
            results.problem(
                node,
                Status.FAIL,
                Priority.P0,
                f"{len(inv.gpus)} GPUs visible, {instance_type(snapshot, node)} has {expected}: a GPU fell off the bus or failed to initialise",
                code="GPU_XID",
                evidence=[
                    (node_item(node, "gpu_inventory"), f"{g.index} {g.name} {g.bus_id}")
                    for g in inv.gpus
                ],
                commands=recovery_commands(node, "replace"),
                details={"visible": len(inv.gpus), "expected": expected},
            )
            continue
        names = sorted({g.name for g in inv.gpus})
        results.ok(
            node,
            f"{len(inv.gpus)}x {'/'.join(names) or 'GPU'}, driver {inv.driver_version}, CUDA {inv.cuda_version}",
        )
    return results.emit(Status.INFO)


def _window_start(snapshot: Snapshot, now: datetime | None) -> datetime | None:
    since = snapshot.meta.get("probe_since")
    if isinstance(since, str):
        try:
            value = datetime.fromisoformat(since.replace("Z", "+00:00"))
            return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
        except ValueError:
            pass
    return now - DEFAULT_WINDOW if now else None


def _xid_finding(node: str, xid: int, events: list[KernelEvent], results: NodeResults) -> None:
    info = xid_info(xid)
    gpus = sorted({e.pci for e in events})
    if info.hardware:
        priority = Priority.P0 if info.action in ("reset", "reboot", "replace") else Priority.P1
        verdict = f"action: {info.action}"
    else:
        priority = Priority.P2
        verdict = "not a hardware fault: " + (
            "fix the program" if info.action == "application" else "follows another error"
        )
    times = sorted(e.time for e in events if e.time)
    results.problem(
        node,
        info.status,
        priority,
        f"Xid {xid} ({info.name}) x{len(events)} on GPU {', '.join(gpus)}: {info.meaning}; {verdict}",
        code=info.code,
        evidence=[(node_item(node, "kernel_log"), e.line) for e in events[:3]],
        commands=recovery_commands(node, info.action) if info.hardware else [],
        details={
            "xid": xid,
            "action": info.action,
            "hardware": info.hardware,
            "count": len(events),
            "gpus": gpus,
            "first": times[0].isoformat() if times else None,
            "last": times[-1].isoformat() if times else None,
        },
    )


@check("node.xid", AREA, ["GPU_XID", "GPU_ECC", "NVLINK_ERROR"])
def check_xid(snapshot: Snapshot) -> list[Finding]:
    results = NodeResults("GPU_XID", "Xid events in the kernel log")
    for node, log in results.each(snapshot, "kernel_log", parse_kernel_log):
        if log.error:
            results.skip(node, f"kernel log unreadable: {log.error}")
            continue
        since = _window_start(snapshot, log.now)
        events = log.within(since)
        by_xid: dict[int, list[KernelEvent]] = defaultdict(list)
        sxids: list[KernelEvent] = []
        off_bus: list[KernelEvent] = []
        for e in events:
            if e.kind == "xid" and e.number is not None:
                by_xid[e.number].append(e)
            elif e.kind == "sxid":
                sxids.append(e)
            else:
                off_bus.append(e)
        for xid, evs in sorted(by_xid.items()):
            _xid_finding(node, xid, evs, results)
        xid79 = {e.pci.rsplit(".", 1)[0].lower() for e in by_xid.get(79, [])}
        lost = [e for e in off_bus if e.pci.rsplit(".", 1)[0].lower() not in xid79]
        if lost:
            results.problem(
                node,
                Status.FAIL,
                Priority.P0,
                f"GPU {', '.join(sorted({e.pci for e in lost}))} has fallen off the bus (no Xid 79 logged)",
                code="GPU_XID",
                evidence=[(node_item(node, "kernel_log"), e.line) for e in lost[:3]],
                commands=recovery_commands(node, "reboot"),
            )
        fatal = [e for e in sxids if e.fatal]
        if fatal:
            results.problem(
                node,
                Status.FAIL,
                Priority.P0,
                f"NVSwitch fatal SXid {', '.join(sorted({str(e.number) for e in fatal}))} x{len(fatal)}",
                code="NVLINK_ERROR",
                evidence=[(node_item(node, "kernel_log"), e.line) for e in fatal[:3]],
                commands=recovery_commands(node, "reset"),
            )
        elif sxids:
            results.problem(
                node,
                Status.WARN,
                Priority.P2,
                f"NVSwitch non-fatal SXid {', '.join(sorted({str(e.number) for e in sxids}))} x{len(sxids)}",
                code="NVLINK_ERROR",
                evidence=[(node_item(node, "kernel_log"), e.line) for e in sxids[:3]],
            )
        if not (by_xid or lost or sxids):
            window = f"since {since:%Y-%m-%d %H:%M}Z" if since else "in the whole log"
            results.ok(node, f"no Xid {window}")
    return results.emit()


@check("node.gpu_ecc", AREA, ["GPU_ECC"])
def check_gpu_ecc(snapshot: Snapshot) -> list[Finding]:
    results = NodeResults("GPU_ECC", "ECC, row remapping and retired pages")
    for node, q in results.each(snapshot, "gpu_ecc", gpu_parser.parse_smi_query):
        if q.error and not q.gpus:
            results.skip(node, f"nvidia-smi -q failed: {q.error}")
            continue
        src = node_item(node, "gpu_ecc")
        bad = False
        for g in q.gpus:
            label = f"GPU {g.bus_id}"
            if g.remap_failure:
                bad = True
                results.problem(
                    node,
                    Status.FAIL,
                    Priority.P0,
                    f"{label}: row remapping failed; the GPU must be replaced",
                    evidence=[(src, "Remapping Failure Occurred : Yes")],
                    commands=recovery_commands(node, "replace"),
                    details={"gpu": g.bus_id},
                )
            if g.unrepairable_memory:
                bad = True
                results.problem(
                    node,
                    Status.FAIL,
                    Priority.P0,
                    f"{label}: the driver reports unrepairable memory; the GPU must be replaced",
                    evidence=[(src, "Unrepairable Memory : Yes")],
                    commands=recovery_commands(node, "replace"),
                    details={"gpu": g.bus_id},
                )
            if g.repair_pending:
                bad = True
                results.problem(
                    node,
                    Status.FAIL,
                    Priority.P0,
                    f"{label}: {' and '.join(g.repair_pending)} repair pending; it takes effect after a GPU reset",
                    evidence=[(src, f"{r} Repair Pending : Yes") for r in g.repair_pending],
                    commands=recovery_commands(node, "reset"),
                    details={"gpu": g.bus_id},
                )
            if g.remap_pending:
                bad = True
                results.problem(
                    node,
                    Status.FAIL,
                    Priority.P0,
                    f"{label}: row remap pending ({g.remapped_uncorrectable or 0} uncorrectable); it takes effect after a GPU reset",
                    evidence=[(src, "Remapped Rows Pending : Yes")],
                    commands=recovery_commands(node, "reset"),
                    details={"gpu": g.bus_id},
                )
            if g.volatile_uncorrectable_total:
                bad = True
                results.problem(
                    node,
                    Status.FAIL,
                    Priority.P0,
                    f"{label}: {g.volatile_uncorrectable_total} uncorrectable ECC error(s) since the driver loaded (volatile)",
                    evidence=[
                        (src, f"Volatile {k} : {v}")
                        for k, v in g.volatile_uncorrectable.items()
                        if v
                    ],
                    commands=recovery_commands(node, "reset"),
                    details={
                        "gpu": g.bus_id,
                        "volatile": g.volatile_uncorrectable,
                        "aggregate": g.aggregate_uncorrectable,
                    },
                )
            elif g.aggregate_uncorrectable_total:
                bad = True
                results.problem(
                    node,
                    Status.WARN,
                    Priority.P2,
                    f"{label}: {g.aggregate_uncorrectable_total} uncorrectable ECC error(s) in the GPU's lifetime (aggregate), none since the driver loaded",
                    evidence=[
                        (src, f"Aggregate {k} : {v}")
                        for k, v in g.aggregate_uncorrectable.items()
                        if v
                    ],
                    details={"gpu": g.bus_id, "aggregate": g.aggregate_uncorrectable},
                )
            if g.retirement_pending:
                bad = True
                results.problem(
                    node,
                    Status.FAIL,
                    Priority.P1,
                    f"{label}: memory pages pending retirement; they are retired at the next GPU reset",
                    evidence=[(src, "Pending Page Blacklist/Retirement : Yes")],
                    commands=recovery_commands(node, "reset"),
                    details={"gpu": g.bus_id, "dbe": g.retired_dbe, "sbe": g.retired_sbe},
                )
            if g.unreadable:
                bad = True
                results.problem(
                    node,
                    Status.WARN,
                    Priority.P1,
                    f"{label}: nvidia-smi reports 'Unknown Error' for {', '.join(g.unreadable[:3])}",
                    evidence=[(src, f"{f} : Unknown Error") for f in g.unreadable[:3]],
                    commands=recovery_commands(node, "reboot"),
                )
        if not bad:
            results.ok(node, f"{len(q.gpus)} GPU(s): no uncorrectable errors, no pending remaps")
    return results.emit()


@check("node.nvlink", AREA, ["NVLINK_ERROR"])
def check_nvlink(snapshot: Snapshot) -> list[Finding]:
    results = NodeResults("NVLINK_ERROR", "NVLink state and error counters")
    for node, (gpus, error) in results.each(
        snapshot, "nvlink_status", gpu_parser.parse_nvlink_status
    ):
        if error and not gpus:
            results.skip(node, f"nvidia-smi nvlink failed: {error}")
            continue
        errors_text = output(snapshot, node, "nvlink_errors")
        counters, _ = gpu_parser.parse_nvlink_errors(errors_text or "")
        bad = False
        for idx, g in sorted(gpus.items()):
            if "pcie" in g.name.lower():
                continue  # PCIe cards have NVLink only with a bridge
            if g.all_inactive or g.inactive_links:
                bad = True
                which = "all links" if g.all_inactive else f"links {g.inactive_links}"
                results.problem(
                    node,
                    Status.FAIL,
                    Priority.P0,
                    f"GPU {idx} ({g.name}): NVLink {which} inactive",
                    evidence=[(node_item(node, "nvlink_status"), f"GPU {idx}: {which} inactive")],
                    commands=recovery_commands(node, "reset"),
                )
        for idx, g in sorted(counters.items()):
            nonzero = {
                f"link {link} {name}": value
                for link, c in sorted(g.errors.items())
                for name, value in c.items()
                if value
            }
            if nonzero:
                bad = True
                results.problem(
                    node,
                    Status.WARN,
                    Priority.P1,
                    f"GPU {idx}: NVLink error counters are not zero ({len(nonzero)} counters); a rising count means a degrading link",
                    evidence=[
                        (node_item(node, "nvlink_errors"), f"{k}: {v}")
                        for k, v in list(nonzero.items())[:5]
                    ],
                    details={"counters": nonzero},
                )
        if not bad:
            links = sum(len(g.links) for g in gpus.values())
            results.ok(
                node,
                f"{links} links active"
                + ("" if errors_text is not None else "; error counters not collected"),
            )
    return results.emit()


@check("node.topology", AREA, ["NCCL_TOPOLOGY"])
def check_topology(snapshot: Snapshot) -> list[Finding]:
    results = NodeResults("NCCL_TOPOLOGY", "GPU topology (nvidia-smi topo -m)")
    for node, topo in results.each(snapshot, "gpu_topology", gpu_parser.parse_topology):
        if topo.error or not topo.gpus:
            results.skip(node, f"no topology matrix: {topo.error or 'empty output'}")
            continue
        nv_pairs = [
            k for k, v in topo.links.items() if v.startswith("NV") and k[1].startswith("GPU")
        ]
        missing = topo.gpu_pairs_without_nvlink()
        if nv_pairs and missing:
            results.problem(
                node,
                Status.WARN,
                Priority.P1,
                f"{len(missing)} GPU pair(s) without NVLink while the others have it: {', '.join(f'{a}-{b} {topo.links[(a, b)]}' for a, b in missing[:4])}",
                evidence=[
                    (node_item(node, "gpu_topology"), f"{a} {b} {topo.links[(a, b)]}")
                    for a, b in missing[:3]
                ],
                details={"pairs": [f"{a}-{b}:{topo.links[(a, b)]}" for a, b in missing]},
            )
            continue
        numa = sorted(set(topo.numa.values()))
        kind = sorted({v for k, v in topo.links.items() if k[1].startswith("GPU")})
        results.ok(
            node, f"{len(topo.gpus)} GPUs, links {'/'.join(kind)}, NUMA {','.join(numa) or 'n/a'}"
        )
    return results.emit(Status.INFO)


@check("node.dcgm", AREA, ["DCGM_HEALTH", "GPU_ECC"])
def check_dcgm(snapshot: Snapshot) -> list[Finding]:
    results = NodeResults("DCGM_HEALTH", "DCGM health and diagnostics")
    for node in results.each_reached(snapshot):
        texts = {p: output(snapshot, node, p) for p in ("dcgm_health", "dcgm_diag")}
        if all(t is None for t in texts.values()):
            results.skip(node, why_missing(snapshot, node, "dcgm_health"))
            continue
        bad, notes = False, []
        for probe_id, text in texts.items():
            if text is None:
                continue
            report = dcgm_parser.parse_dcgmi(text)
            if report.error and not report.rows:
                notes.append(f"{probe_id}: {report.error}")
                continue
            failures = report.failures
            if report.overall and report.overall.lower().startswith("fail") and not failures:
                failures = [dcgm_parser.DcgmRow("", "Overall Health", report.overall)]
            for row in failures:
                memory = re.search(r"row remap|memory|ecc", f"{row.name} {row.detail}", re.I)
                bad = True
                results.problem(
                    node,
                    Status.FAIL,
                    Priority.P0 if memory else Priority.P1,
                    f"{probe_id}: {row.name} {row.result}"
                    + (f": {row.detail[:200]}" if row.detail else ""),
                    code="GPU_ECC" if memory else "DCGM_HEALTH",
                    evidence=[
                        (
                            node_item(node, probe_id),
                            f"{row.name} | {row.result} {row.detail}"[:300],
                        )
                    ],
                    commands=recovery_commands(node, "reset" if memory else "investigate"),
                )
        if not bad:
            if notes:
                results.skip(node, "; ".join(notes))
            else:
                results.ok(node, "DCGM reports no failure")
    return results.emit()
