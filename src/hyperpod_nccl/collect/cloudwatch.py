"""CloudWatch logs of the cluster, read with one Logs Insights query so that the filtering
happens in AWS and only lines that may matter come back.

Log groups: the cluster's own `/aws/sagemaker/Clusters/<name>/<id>` (lifecycle scripts,
health-monitoring agent) and, on EKS, Container Insights application logs
`/aws/containerinsights/<eks-cluster>/application` when that group exists. The returned lines
are written per log stream (Container Insights: per pod and container) as text items that
`diagnose` scans with the same rule catalog as `hyperpod-nccl logs`.
"""

from __future__ import annotations

import json
import re
import time
from collections import defaultdict
from datetime import datetime, timezone
from typing import Any

import botocore.exceptions

from hyperpod_nccl.collect.aws import AwsReader, CallFailure, classify_error
from hyperpod_nccl.collect.options import DiagnoseOptions
from hyperpod_nccl.collect.recorder import Recorder
from hyperpod_nccl.snapshot.items import LOG_GROUPS, LOG_PREFIX, QUERY

CLUSTER_GROUP_PREFIX = "/aws/sagemaker/Clusters/{name}/"
CONTAINER_INSIGHTS_GROUP = "/aws/containerinsights/{eks}/application"

# Words that appear in every line the rule catalog can act on; Logs Insights keeps only lines
# matching one of them. The catalog re-checks each returned line with its exact patterns.
INSIGHTS_KEYWORDS = (
    "nccl|xid|nvrm|oom|out of memory|killed|error|exception|traceback|timeout|timed out|"
    "watchdog|heartbeat|efa|libfabric|fi_getinfo|ofi|segmentation|signal|sigkill|sigterm|"
    "exit code|exitcode|cuda|nvlink|ecc|fabric|rendezvous|refused|unreachable|no route|"
    "no space|shm|memlock|health|unschedulable|reboot|replace"
)
MAX_RECORDS = 10_000  # Logs Insights' own maximum for one query
MAX_GROUPS_PER_QUERY = 50
QUERY_DEADLINE_S = 120.0
POLL_INTERVAL_S = 1.0
_UNSAFE = re.compile(r"[^A-Za-z0-9_.@:+=-]")


def insights_query(limit: int = MAX_RECORDS) -> str:
    return (
        "fields @timestamp, @logStream, @log, @message"
        f" | filter @message like /(?i)({INSIGHTS_KEYWORDS})/"
        " | sort @timestamp asc"
        f" | limit {limit}"
    )


def _segment(text: str) -> str:
    cleaned = _UNSAFE.sub("_", text) or "_"
    return "_" + cleaned if cleaned in (".", "..") else cleaned


def stream_item_name(group: str, stream: str) -> str:
    """A Snapshot name for one log stream: each path part made safe, slashes kept."""
    parts = [_segment(p) for p in group.strip("/").split("/") if p]
    parts += [_segment(p) for p in stream.split("/") if p] or ["_"]
    return LOG_PREFIX + "/".join(parts) + ".log"


def _find_groups(reader: AwsReader, prefix: str) -> list[dict[str, Any]]:
    groups: list[dict[str, Any]] = []
    for page in reader.paginate("logs", "describe_log_groups", logGroupNamePrefix=prefix):
        for group in page.get("logGroups", []):
            groups.append(
                {"logGroupName": group["logGroupName"], "storedBytes": group.get("storedBytes")}
            )
    return groups


def _row(fields: list[dict[str, str]]) -> dict[str, str]:
    return {f.get("field", ""): f.get("value", "") for f in fields}


def _container_insights_line(message: str) -> tuple[str, str] | None:
    """Container Insights (Fluent Bit) wraps each line as JSON; unwrap it to pod and text."""
    if not message.startswith("{"):
        return None
    try:
        record = json.loads(message)
    except ValueError:
        return None
    if not isinstance(record, dict) or "log" not in record:
        return None
    k8s = record.get("kubernetes") or {}
    where = "/".join(
        str(k8s.get(key) or "_") for key in ("namespace_name", "container_name", "pod_name")
    )
    return where, str(record["log"]).rstrip("\n")


def _run_query(
    reader: AwsReader, groups: list[str], options: DiagnoseOptions
) -> tuple[list[dict[str, str]], dict[str, Any]]:
    started = reader.call(
        "logs",
        "start_query",
        logGroupNames=groups,
        startTime=int(options.window_start.timestamp()),
        endTime=int(options.now.timestamp()),
        queryString=insights_query(),
        limit=MAX_RECORDS,
    )
    query_id = started["queryId"]
    deadline = time.monotonic() + QUERY_DEADLINE_S
    while True:
        result = reader.call("logs", "get_query_results", queryId=query_id)
        status = result.get("status")
        if status in ("Complete", "Failed", "Cancelled", "Timeout", "Unknown"):
            break
        if time.monotonic() > deadline:
            status = "DeadlineExceeded"
            break
        time.sleep(POLL_INTERVAL_S)
    rows = [_row(r) for r in result.get("results", [])]
    summary = {
        "queryId": query_id,
        "queryString": insights_query(),
        "logGroups": groups,
        "status": status,
        "records": len(rows),
        "statistics": result.get("statistics", {}),
        "limit": MAX_RECORDS,
        "truncated": len(rows) >= MAX_RECORDS,
    }
    return rows, summary


def _write_streams(recorder: Recorder, rows: list[dict[str, str]], groups: list[str]) -> int:
    by_stream: dict[str, list[str]] = defaultdict(list)
    single_group = groups[0] if len(groups) == 1 else None
    for row in rows:
        group = row.get("@log", "").split(":", 1)[-1] or single_group or "unknown"
        stream = row.get("@logStream", "") or "unknown"
        message = row.get("@message", "")
        unwrapped = _container_insights_line(message)
        if unwrapped is not None:
            stream, message = unwrapped
        stamp = row.get("@timestamp", "")
        line = f"{_iso(stamp)} {message}" if stamp else message
        by_stream[stream_item_name(group, stream)].append(line)
    for name, lines in by_stream.items():
        recorder.snapshot.put_text(name, "\n".join(lines) + "\n", source="logs:StartQuery")
    return len(by_stream)


def _iso(stamp: str) -> str:
    """Logs Insights prints `2026-11-29 10:10:01.123` (UTC); some endpoints give epoch
    milliseconds. Either becomes ISO 8601 with a zone, which the log engine reads."""
    try:
        if stamp.isdigit():
            parsed = datetime.fromtimestamp(int(stamp) / 1000, tz=timezone.utc)
        else:
            parsed = datetime.fromisoformat(stamp.replace(" ", "T"))
    except (ValueError, OverflowError, OSError):
        return stamp
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    return parsed.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def collect_cluster_logs(
    reader: AwsReader,
    recorder: Recorder,
    cluster: dict[str, Any],
    eks_name: str | None,
    options: DiagnoseOptions,
) -> None:
    name = cluster.get("ClusterName") or options.cluster.value
    prefixes = [CLUSTER_GROUP_PREFIX.format(name=name)]
    if eks_name:
        prefixes.append(CONTAINER_INSIGHTS_GROUP.format(eks=eks_name))

    def discover() -> dict[str, Any]:
        found: list[dict[str, Any]] = []
        for prefix in prefixes:
            found.extend(_find_groups(reader, prefix))
        return {"prefixes": prefixes, "logGroups": found}

    listed = recorder.fetch(LOG_GROUPS, "logs:DescribeLogGroups", discover)
    if listed is None:
        recorder.snapshot.missing(QUERY, "not run: the log groups could not be listed")
        return
    groups = [g["logGroupName"] for g in listed["logGroups"]][:MAX_GROUPS_PER_QUERY]
    if not groups:
        recorder.snapshot.missing(
            QUERY, "NotFound: no CloudWatch log group for the cluster: " + ", ".join(prefixes)
        )
        return
    try:
        rows, summary = _run_query(reader, groups, options)
    except (botocore.exceptions.ClientError, botocore.exceptions.BotoCoreError) as exc:
        recorder.fail(QUERY, classify_error(exc, "logs:StartQuery"))
        return
    summary["streams"] = _write_streams(recorder, rows, groups)
    if summary["status"] != "Complete":
        recorder.fail(
            QUERY,
            CallFailure(
                "throttled",
                "logs:GetQueryResults",
                str(summary["status"]),
                f"Logs Insights query ended as {summary['status']}",
            ),
        )
        recorder.snapshot.put_json(QUERY.replace(".json", "_partial.json"), summary)
        return
    recorder.snapshot.put_json(QUERY, summary, source="logs:StartQuery")
