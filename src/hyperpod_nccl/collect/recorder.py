"""Run one read and file its result in the Snapshot: the data on success, or why it is missing.

Collectors call `Recorder.fetch` for every AWS read, so the Snapshot's manifest always says
what was collected and, for what was not, the IAM action and the reason (AccessDenied,
Throttled, NotFound, Unreachable, Error). Checks turn those reasons into SKIPPED or
INCOMPLETE findings; nothing missing ever reads as a PASS.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import botocore.exceptions

from hyperpod_nccl.collect.aws import CallFailure, classify_error
from hyperpod_nccl.snapshot import Snapshot
from hyperpod_nccl.snapshot import missing_kind as missing_kind  # where collectors look for it

T = TypeVar("T")


class Recorder:
    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot
        self.failures: list[CallFailure] = []

    def fetch(self, name: str, action: str, read: Callable[[], T]) -> T | None:
        """Run `read`; store its JSON result under `name`, or record why it failed."""
        try:
            data = read()
        except (botocore.exceptions.ClientError, botocore.exceptions.BotoCoreError) as exc:
            self.fail(name, classify_error(exc, action))
            return None
        self.snapshot.put_json(name, data, source=action)
        return data

    def fail(self, name: str, failure: CallFailure) -> None:
        self.failures.append(failure)
        self.snapshot.missing(name, failure.reason(), source=failure.action)


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
