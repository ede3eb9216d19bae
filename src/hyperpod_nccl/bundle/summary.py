"""The support-case summary: one Markdown page with what AWS Support or NVIDIA ask for first.

Built only from what the bundle holds (the JSON report, the manifest, the job's environment
and versions), so `hyperpod-nccl bundle summary` can rebuild it from any bundle, and the
summary never says more than the bundle can back.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from hyperpod_nccl.rules.catalog import load_catalog
from hyperpod_nccl.snapshot.meta import Meta

MAX_ERROR_LINES = 15
MAX_LISTED = 40
_INSTANCE_ID = re.compile(r"(?<![A-Za-z0-9])i-(?:[0-9a-f]{17}|[0-9a-f]{8})(?![A-Za-z0-9])")
_POD = re.compile(r"-(?:master|worker|launcher|node|pod)-\d+(?:-[a-z0-9]+)?$")


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _fence(text: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 3)
    return f"{ticks}text\n{text}\n{ticks}"


def _listed(values: Iterable[Any], none: str) -> str:
    shown = list(dict.fromkeys(str(v) for v in values))
    if not shown:
        return none
    more = f" (+{len(shown) - MAX_LISTED} more)" if len(shown) > MAX_LISTED else ""
    return ", ".join(f"`{v}`" for v in shown[:MAX_LISTED]) + more


def _strings(data: Any) -> Iterable[str]:
    if isinstance(data, str):
        yield data
    elif isinstance(data, dict):
        for value in data.values():
            yield from _strings(value)
    elif isinstance(data, list):
        for value in data:
            yield from _strings(value)


def _cluster_rows(meta: Meta) -> list[tuple[str, str]]:
    unknown = "not known (no cluster was queried)" if meta.get("command") == "logs" else "not known"
    arn = meta.get("cluster_arn") or next(iter(meta.get("cluster_arns_in_logs") or []), None)
    region = meta.get("region")
    if not region and arn:
        region = str(arn).split(":")[3]
    window = meta.get("window") or {}
    if not window and meta.get("window_start"):
        window = {"start": meta.get("window_start"), "end": meta.get("window_end"), "zone": "UTC"}
    span = (
        f"{window.get('start')} to {window.get('end')} ({window.get('zone', 'UTC')})"
        if window.get("start")
        else "not known (no timestamps)"
    )
    return [
        ("Cluster", str(meta.get("cluster") or unknown)),
        ("Cluster ARN", str(arn or unknown)),
        ("Region", str(region or unknown)),
        ("Orchestrator", str(meta.get("orchestrator") or unknown)),
        ("Window the evidence covers", span),
        (
            "Collected by",
            f"hyperpod-nccl {meta.get('tool_version', '?')} `{meta.get('command', '?')}`",
        ),
    ]


def render_summary(
    report: dict[str, Any],
    meta: Meta,
    environment: dict[str, Any] | None = None,
    versions: dict[str, Any] | None = None,
    items: list[dict[str, Any]] | None = None,
) -> str:
    """The summary, from the report's JSON form (the contract) and the bundle's manifest."""
    findings: list[dict[str, Any]] = list(report.get("findings") or [])
    fails = [f for f in findings if f.get("status") == "FAIL"]
    root = next((f for f in findings if f.get("root_cause")), None)
    out = ["# Support case summary", ""]
    out += ["| | |", "|---|---|"]
    out += [f"| {k} | {_cell(v)} |" for k, v in _cluster_rows(meta)]
    seen = [str(f["first_seen"]) for f in fails if f.get("first_seen")]
    failure_window = (
        f"{min(seen)} to {max(seen)}" if seen else "not known (no timestamps on the failures)"
    )
    out.append(f"| Failure window | {_cell(failure_window)} |")
    out += ["", "## What failed", ""]
    if root is not None:
        out.append(f"Root cause: **`{root['code']}`**: {root['title']}")
        if root.get("explains"):
            out.append(f"It explains: {', '.join(f'`{c}`' for c in root['explains'])}.")
        if root.get("reference"):
            out.append(f"Guide: `{root['reference']}`")
    else:
        out.append("No root cause was found: no check failed.")
    out += ["", "## Exact error strings", ""]
    out += _error_strings(fails, root)
    out += ["", "## Affected", ""]
    out += _affected(fails, meta)
    out += ["", "## Findings", ""]
    if findings:
        out += [
            "| Status | Priority | Code | Finding | Ranks | Hosts |",
            "|---|---|---|---|---|---|",
        ]
        for f in findings:
            mark = " (root cause)" if f.get("root_cause") else ""
            out.append(
                f"| {f.get('status')} | {f.get('priority')} | `{f.get('code')}`{mark} "
                f"| {_cell(f.get('title', ''))} | {_cell(_short(f.get('ranks')))} "
                f"| {_cell(_short(f.get('hosts')))} |"
            )
    else:
        out.append("None.")
    out += ["", "## Already ruled out", ""]
    out += _ruled_out(report, findings)
    out += ["", "## Not checked", ""]
    out += _not_checked(report, items or [])
    out += ["", "## Versions", ""]
    out += _versions(versions or {})
    out += ["", "## NCCL, libfabric and PyTorch environment", ""]
    out += _environment(environment or {})
    out += ["", "## About this bundle", ""]
    out += _scrubbing(meta)
    return "\n".join(out) + "\n"


def _short(values: Any) -> str:
    values = list(values or [])
    text = ", ".join(map(str, values[:16]))
    return text + (" ..." if len(values) > 16 else "")


def _error_strings(fails: list[dict[str, Any]], root: dict[str, Any] | None) -> list[str]:
    ordered = ([root] if root in fails else []) + [f for f in fails if f is not root]
    lines: list[str] = []
    for finding in ordered:
        for evidence in finding.get("evidence") or []:
            line = f"{evidence.get('source')}: {evidence.get('text')}"
            if line not in lines:
                lines.append(line)
    if not lines:
        return ["No error lines (the failed checks looked at cluster state, not at log lines)."]
    more = len(lines) - MAX_ERROR_LINES
    block = [_fence("\n".join(lines[:MAX_ERROR_LINES]))]
    if more > 0:
        block.append(f"({more} more in reports/report.json)")
    return block


def _affected(fails: list[dict[str, Any]], meta: Meta) -> list[str]:
    hosts = [h for f in fails for h in f.get("hosts") or []]
    pods = [h for h in hosts if _POD.search(h)]
    nodes = [h for h in hosts if not _POD.search(h)]
    texts = [
        *hosts,
        *(s for f in fails for s in _strings(f.get("evidence"))),
        *(s for f in fails for s in _strings(f.get("details"))),
    ]
    instances = [m.group(0) for t in texts for m in _INSTANCE_ID.finditer(t)]
    ranks = sorted({r for f in fails for r in f.get("ranks") or []})
    return [
        f"- Instance IDs: {_listed(instances, 'none named in the failed findings')}",
        f"- Nodes: {_listed(nodes, 'none named')}",
        f"- Pods: {_listed(pods, 'none named')}",
        f"- Ranks: {_listed(ranks, 'none named')}",
    ]


def _ruled_out(report: dict[str, Any], findings: list[dict[str, Any]]) -> list[str]:
    lines = [f"- PASS `{f['code']}`: {f['title']}" for f in findings if f.get("status") == "PASS"]
    if report.get("command") == "logs":
        found = {f.get("code") for f in findings}
        searched = sorted(
            {
                c
                for rule in load_catalog().rules
                if rule.makes_findings
                for c in rule.possible_codes()
            }
            - found
        )
        if searched:
            lines.append(
                "- The logs were searched for these failure signatures and none was found: "
                + ", ".join(f"`{c}`" for c in searched)
                + ". (Absence from the logs makes a cause less likely; it does not rule it out.)"
            )
    return lines or ["Nothing was ruled out by a passing check."]


def _not_checked(report: dict[str, Any], items: list[dict[str, Any]]) -> list[str]:
    lines = [f"- {n.get('check')}: {n.get('reason')}" for n in report.get("not_checked") or []]
    lines += [
        f"- {i.get('name')}: not collected: {i.get('reason')}"
        for i in items
        if i.get("status") == "missing"
    ]
    lines += [
        f"- {f['code']} ({f['status']}): {f['title']}"
        for f in report.get("findings") or []
        if f.get("status") in ("SKIPPED", "INCOMPLETE")
    ]
    return lines or ["Everything the run set out to read was read."]


def _versions(versions: dict[str, Any]) -> list[str]:
    if not versions:
        return ["Not known."]
    rows = ["| Component | Version | Seen in |", "|---|---|---|"]
    for name, values in versions.items():
        for value, sources in values.items() if isinstance(values, dict) else [(values, [])]:
            rows.append(f"| {_cell(name)} | `{_cell(value)}` | {_cell(_short(sources))} |")
    return rows


def _environment(environment: dict[str, Any]) -> list[str]:
    if not environment:
        return [
            "Not known: the logs do not show the job's environment (NCCL_DEBUG=INFO prints it)."
        ]
    rows = ["| Variable | Value(s) | Seen in |", "|---|---|---|"]
    for name, values in sorted(environment.items()):
        shown = ", ".join(f"`{_cell(v)}`" for v in values)
        sources = (
            sorted({s for v in values.values() for s in v}) if isinstance(values, dict) else []
        )
        rows.append(f"| `{name}` | {shown} | {_cell(_short(sources))} |")
    return rows


def _scrubbing(meta: Meta) -> list[str]:
    scrubbing = meta.get("scrubbing") or {}
    lines = []
    if scrubbing.get("secrets_redacted", True):
        lines.append(
            "- Secrets (keys, tokens, passwords, private keys, kubeconfig credentials) were "
            "redacted before anything was written: they read `[REDACTED:<kind>]`."
        )
    else:
        lines.append("- **Secrets were NOT redacted** (`--no-redact`). Do not share this bundle.")
    if scrubbing.get("obfuscated"):
        lines.append(
            "- Host names, IP addresses, account IDs and instance IDs were replaced by "
            "consistent stand-ins; the sender keeps the mapping and can translate them."
        )
    lines.append(
        "- `reports/` holds the full report (text, JSON, Markdown); `manifest.json` "
        "lists what was collected and what was not, and why."
    )
    return lines
