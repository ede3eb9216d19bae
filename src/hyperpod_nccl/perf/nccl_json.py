"""nccl-tests JSON output (the file written with nccl-tests' JSON output option, format version
2 at the time of writing: ``config`` with ``devices``, ``results`` rows with ``out_of_place`` and
``in_place`` halves, ``out_of_bounds``, ``average_bus_bandwidth``, ``errors``).

A run that died leaves the document unfinished; the rows written before that are still read.
"""

from __future__ import annotations

import json
import re
from typing import Any

from hyperpod_nccl.perf.model import Device, Measurement, Row, Run, RunError

_DECODER = json.JSONDecoder()


def is_nccl_tests_json(doc: dict[str, Any]) -> bool:
    return "results" in doc and ("config" in doc or "nccl_version" in doc)


def _version(code: Any) -> str | None:
    """NCCL_VERSION_CODE: major*10000 + minor*100 + patch (2.9 and later)."""
    if not isinstance(code, int) or code <= 0:
        return None
    return f"{code // 10000}.{code // 100 % 100}.{code % 100}"


def _half(value: Any) -> Measurement | None:
    if not isinstance(value, dict):
        return None
    half: dict[str, Any] = value
    try:
        time = float(half.get("time", half.get("cpu_time", "")))
        algbw = float(value["alg_bw"])
        busbw = float(value["bus_bw"])
    except (TypeError, ValueError, KeyError):
        return None
    wrong = value.get("nwrong")
    try:
        wrong_value = float(wrong) if wrong is not None else None
    except (TypeError, ValueError):
        wrong_value = None
    return Measurement(time, algbw, busbw, wrong_value)


def _row(item: Any, n: int) -> Row | None:
    if not isinstance(item, dict):
        return None
    try:
        size, count = int(item["size"]), int(item["count"])
    except (TypeError, ValueError, KeyError):
        return None
    try:
        root: int | None = int(str(item.get("root", "")).strip())
    except ValueError:
        root = None
    oop, ip = _half(item.get("out_of_place")), _half(item.get("in_place"))
    if oop is None and ip is None:
        return None
    text = json.dumps(item, separators=(",", ":"))[:300]
    return Row(
        size, count, str(item.get("type", "?")), str(item.get("redop", "?")), root, oop, ip, n, text
    )


def run_from_document(source: str, doc: dict[str, Any]) -> Run:
    run = Run(source=source, start_line=1)
    run.nccl_version = _version(doc.get("nccl_version"))
    args = doc.get("args") or []
    if isinstance(args, list) and args:
        m = re.search(r"([a-z_]+?)_perf", str(args[0]))
        if m:
            run.collective, run.collective_from = m.group(1), "JSON args"
    config: dict[str, Any] = doc["config"] if isinstance(doc.get("config"), dict) else {}
    for key, name in (
        ("minimum_bytes", "minBytes"),
        ("maximum_bytes", "maxBytes"),
        ("iterations", "iters"),
        ("validation", "validation"),
    ):
        if isinstance(config.get(key), int):
            run.params[name] = config[key]
    for d in config.get("devices") or []:
        if isinstance(d, dict) and "rank" in d and "hostname" in d:
            run.devices.append(
                Device(
                    rank=int(d["rank"]),
                    host=str(d["hostname"]),
                    pid=d.get("pid"),
                    group=d.get("group"),
                    device=d.get("device"),
                    bus_id=str(d.get("device_hex", "")),
                    gpu=str(d.get("device_info", "")),
                )
            )
    for i, item in enumerate(doc.get("results") or [], 1):
        row = _row(item, i)
        if row is not None:
            run.rows.append(row)
    oob = doc.get("out_of_bounds")
    if isinstance(oob, dict) and isinstance(oob.get("count"), int):
        run.out_of_bounds = oob["count"]
        run.out_of_bounds_ok = oob["count"] == 0
    avg = doc.get("average_bus_bandwidth")
    if isinstance(avg, dict):
        try:
            run.avg_busbw = float(avg.get("bandwidth", ""))
        except (TypeError, ValueError):
            run.avg_busbw = 0.0
        run.avg_busbw_failed = avg.get("okay") in (False, "false")
    for error in doc.get("errors") or []:
        if str(error).strip():
            run.errors.append(RunError("nccl", str(error)[:500], 1))
    run.end_line = 1
    return run


def run_from_partial(source: str, text: str) -> Run | None:
    """Rows and devices from a document cut short (the run died before nccl-tests closed it)."""
    if '"results"' not in text and '"config"' not in text:
        return None
    doc: dict[str, Any] = {}
    for key in ("nccl_version", "args", "config"):
        value = _value_after(text, key)
        if value is not None:
            doc[key] = value
    start = text.find('"results"')
    rows: list[Any] = []
    if start >= 0:
        pos = text.find("[", start) + 1
        while 0 < pos < len(text):
            while pos < len(text) and text[pos] in " \n\r\t,":
                pos += 1
            try:
                item, pos = _DECODER.raw_decode(text, pos)
            except ValueError:
                break
            rows.append(item)
    doc["results"] = rows
    run = run_from_document(source, doc)
    return run if run.rows or run.devices else None


def _value_after(text: str, key: str) -> Any:
    m = re.search(rf'"{key}"\s*:\s*', text)
    if not m:
        return None
    try:
        value, _ = _DECODER.raw_decode(text, m.end())
    except ValueError:
        return None
    return value
