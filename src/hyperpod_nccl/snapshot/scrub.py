"""What a bundle's contents pass through on their way to disk: secret redaction (on unless
asked otherwise) and, optionally, obfuscation. `Snapshot.save` applies one Scrubber to every
item, every item name and the manifest, so nothing reaches the archive unscrubbed."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, Any, Protocol

from hyperpod_nccl.redaction import Redactor, redact_document
from hyperpod_nccl.safeio import line_chunks

CHUNK_BYTES = 4 * 1024 * 1024


class Obfuscator(Protocol):
    """What scrubbing needs of an obfuscator (hyperpod_nccl.bundle.obfuscate has the one the
    escalation bundles use): the storage layer names the shape, not the implementation."""

    def apply(self, text: str) -> str: ...

    def apply_bytes(self, data: bytes) -> bytes: ...


@dataclass
class Scrubber:
    redactor: Redactor | None = field(default_factory=Redactor)
    obfuscator: Obfuscator | None = None

    def text(self, text: str) -> str:
        if self.redactor is not None:
            text = redact_document(self.redactor, text)
        return self.obfuscator.apply(text) if self.obfuscator is not None else text

    def name(self, name: str) -> str:
        """An item name, segment by segment (the caller makes it a safe name again)."""
        return "/".join(self._inline(part) for part in name.split("/"))

    def data(self, data: Any) -> Any:
        """A decoded JSON document: secrets by key and by text, then identifiers."""
        if self.redactor is not None:
            data = self.redactor.json(data)
        return self._obfuscate_tree(data) if self.obfuscator is not None else data

    def copy(self, source: IO[bytes], target: IO[bytes]) -> None:
        """Scrub text from `source` to `target`. A document that fits in one chunk is scrubbed
        whole (so a kubeconfig goes by its structure); a larger one streams in bounded memory."""
        chunks = line_chunks(source, CHUNK_BYTES)
        first = next(chunks, b"")
        rest = next(chunks, b"")
        if not rest:
            text = first.decode("utf-8", "surrogateescape")
            if self.redactor is not None:
                text = redact_document(self.redactor, text)
            data = text.encode("utf-8", "surrogateescape")
            target.write(self.obfuscator.apply_bytes(data) if self.obfuscator else data)
            return
        for chunk in self._scrubbed_chunks(itertools.chain((first, rest), chunks)):
            target.write(chunk)

    def describe(self) -> dict[str, Any]:
        """For the manifest: what was done, and how many secrets of each kind went."""
        redactor = self.redactor
        return {
            "secrets_redacted": redactor is not None,
            "redacted": dict(sorted(redactor.counts.items())) if redactor else {},
            "obfuscated": self.obfuscator is not None,
        }

    def _inline(self, text: str) -> str:
        if self.redactor is not None:
            text = self.redactor.text(text)
        return self.obfuscator.apply(text) if self.obfuscator is not None else text

    def _scrubbed_chunks(self, chunks: Iterator[bytes]) -> Iterator[bytes]:
        if self.redactor is not None:
            chunks = self.redactor.chunks(chunks)
        for chunk in chunks:
            if self.obfuscator is not None:
                chunk = self.obfuscator.apply_bytes(chunk)
            yield chunk

    def _obfuscate_tree(self, data: Any) -> Any:
        assert self.obfuscator is not None
        if isinstance(data, str):
            return self.obfuscator.apply(data)
        if isinstance(data, list):
            return [self._obfuscate_tree(item) for item in data]
        if isinstance(data, dict):
            return {
                (self.obfuscator.apply(k) if isinstance(k, str) else k): self._obfuscate_tree(v)
                for k, v in data.items()
            }
        return data


def no_redaction() -> Scrubber:
    """Write everything as collected. Only for `--no-redact`, which warns loudly."""
    return Scrubber(redactor=None)
