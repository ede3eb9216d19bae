"""The JSON report: exactly one document, shaped by docs/contract.md."""

from __future__ import annotations

import json

from hyperpod_nccl.model import Report


def render_json(report: Report) -> str:
    return json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n"
