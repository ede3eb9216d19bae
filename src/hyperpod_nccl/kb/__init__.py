"""The remediation guide shipped inside the package, addressed by stable section anchors.

The guide is a set of Markdown files in this package (``debugging-guide.md``,
``operations-reference.md``, ``performance-testing.md`` and, when generated from the rule
catalog, ``quick-reference.md``; any other ``*.md`` file here is loaded too). They are read
with :mod:`importlib.resources`, so they are found after ``pip install`` as well as in a
source checkout.

A section starts with one or more explicit anchor lines directly above its heading::

    <a id="container-oom"></a>
    ## 31. Container memory OOM (exit 137)

Anchors are stable identifiers and never derived from the heading text. A section runs from
its anchor lines to the next heading of the same or a higher level (together with that
heading's own anchor lines). Every finding code has a section whose anchor is the code in
lower case with ``_`` replaced by ``-`` (``CONTAINER_OOM`` -> ``container-oom``).

References take the forms ``debugging-guide.md#container-oom`` (what findings print),
``#container-oom``, ``container-oom`` or the code itself, ``CONTAINER_OOM``. A reference that
names a file must name the file the anchor lives in.
"""

from __future__ import annotations

import functools
import importlib.resources
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

__all__ = [
    "KB_PACKAGE",
    "KNOWN_FILES",
    "KnowledgeBase",
    "Section",
    "anchor_for_code",
    "duplicate_anchors",
    "list_sections",
    "load",
    "parse_markdown",
    "reference_for_code",
    "resolve",
    "section_for_code",
]

KB_PACKAGE = "hyperpod_nccl.kb"

# Display order of the guide's files; any other *.md in the package follows, sorted by name.
KNOWN_FILES = (
    "debugging-guide.md",
    "operations-reference.md",
    "performance-testing.md",
    "quick-reference.md",
)

_ANCHOR_LINE = re.compile(r'^\s*<a\s+(?:id|name)="([^"]+)"\s*>\s*</a>\s*$')
_HEADING_LINE = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE_LINE = re.compile(r"^\s*(```|~~~)")
_VALID_ANCHOR = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_CODE = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$")
_SOURCES_LINE = re.compile(r"^\s*\**Sources:?\**:?\s*$")
_LIST_ITEM = re.compile(r"^\s*[-*]\s+(\S+)")
_URL = re.compile(r"^https?://[^\s<>]+$")


class KnowledgeBaseError(ValueError):
    """A guide file breaks the anchor conventions (bad anchor, anchor without heading)."""


@dataclass(frozen=True)
class Section:
    """One addressable section of the guide."""

    file: str
    anchors: tuple[str, ...]
    title: str
    level: int
    markdown: str
    own_markdown: str = ""  # the text before the first nested anchored subsection
    line: int = 0  # 1-based line of the heading in its file

    @property
    def anchor(self) -> str:
        """The primary (first) anchor."""
        return self.anchors[0]

    @property
    def reference(self) -> str:
        """The canonical reference, as findings print it: ``file.md#anchor``."""
        return f"{self.file}#{self.anchor}"

    @property
    def references(self) -> tuple[str, ...]:
        """Every reference that addresses this section, one per anchor."""
        return tuple(f"{self.file}#{a}" for a in self.anchors)

    @property
    def sources(self) -> list[str]:
        """The URLs listed under the section's own last ``Sources:`` line.

        Only the section's own text counts: a ``Sources:`` list inside a nested anchored
        subsection belongs to that subsection.
        """
        return _sources_of(self.own_markdown)


def _sources_of(markdown: str) -> list[str]:
    lines = markdown.splitlines()
    start = None
    for i, line in enumerate(lines):
        if _SOURCES_LINE.match(line):
            start = i
    if start is None:
        return []
    urls: list[str] = []
    for line in lines[start + 1 :]:
        if not line.strip():
            if urls:
                break
            continue
        item = _LIST_ITEM.match(line)
        if not item:
            break
        urls.append(item.group(1))
    return urls


def anchor_for_code(code: str) -> str:
    """``CONTAINER_OOM`` -> ``container-oom``."""
    return code.strip().lower().replace("_", "-")


@dataclass
class _Block:
    anchors: list[str]
    first_line: int  # index of the first anchor line (or the heading when it has none)
    heading_line: int
    level: int
    title: str


def _join(lines: list[str]) -> str:
    """Section text as shown to users: anchor lines dropped, outer blank lines trimmed."""
    kept = [ln for ln in lines if not _ANCHOR_LINE.match(ln)]
    return "\n".join(kept).strip() + "\n"


def parse_markdown(filename: str, text: str) -> list[Section]:
    """Split one guide file into its anchored sections, in file order.

    Raises KnowledgeBaseError when an anchor is malformed or not followed by a heading.
    """
    lines = text.splitlines()
    blocks: list[_Block] = []
    pending: list[tuple[int, str]] = []  # anchor lines waiting for their heading
    in_fence = False
    for i, line in enumerate(lines):
        if _FENCE_LINE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        anchor = _ANCHOR_LINE.match(line)
        if anchor:
            name = anchor.group(1)
            if not _VALID_ANCHOR.match(name):
                raise KnowledgeBaseError(
                    f"{filename}:{i + 1}: anchor {name!r} must be lower-case letters, digits "
                    "and dashes"
                )
            pending.append((i, name))
            continue
        heading = _HEADING_LINE.match(line)
        if heading:
            level = len(heading.group(1))
            first = pending[0][0] if pending else i
            blocks.append(_Block([a for _, a in pending], first, i, level, heading.group(2)))
            pending = []
            continue
        if pending and line.strip():
            raise KnowledgeBaseError(
                f"{filename}:{pending[0][0] + 1}: anchor {pending[0][1]!r} is not directly "
                "above a heading"
            )
    if pending:
        raise KnowledgeBaseError(
            f"{filename}:{pending[0][0] + 1}: anchor {pending[0][1]!r} is not followed by a heading"
        )

    sections: list[Section] = []
    for n, block in enumerate(blocks):
        if not block.anchors:
            continue
        end = len(lines)
        for later in blocks[n + 1 :]:
            if later.level <= block.level:
                end = later.first_line
                break
        own_end = end
        for later in blocks[n + 1 :]:
            if later.first_line >= end:
                break
            if later.anchors:
                own_end = later.first_line
                break
        sections.append(
            Section(
                file=filename,
                anchors=tuple(block.anchors),
                title=block.title,
                level=block.level,
                markdown=_join(lines[block.heading_line : end]),
                own_markdown=_join(lines[block.heading_line : own_end]),
                line=block.heading_line + 1,
            )
        )
    return sections


def _file_order(name: str) -> tuple[int, str]:
    return (KNOWN_FILES.index(name) if name in KNOWN_FILES else len(KNOWN_FILES), name)


@dataclass
class KnowledgeBase:
    """All sections of the guide, indexed by anchor and by reference."""

    sections: list[Section]
    duplicates: dict[str, list[str]] = field(default_factory=dict, init=False)
    _by_anchor: dict[str, Section] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        for section in self.sections:
            for anchor in section.anchors:
                if anchor in self._by_anchor:
                    first = self._by_anchor[anchor]
                    self.duplicates.setdefault(anchor, [first.reference]).append(
                        f"{section.file}#{anchor}"
                    )
                    continue
                self._by_anchor[anchor] = section

    @classmethod
    def from_texts(cls, texts: Mapping[str, str]) -> KnowledgeBase:
        """Build from ``{filename: markdown}``; files are ordered as the package orders them."""
        sections: list[Section] = []
        for name in sorted(texts, key=_file_order):
            sections.extend(parse_markdown(name, texts[name]))
        return cls(sections)

    def anchors(self) -> list[str]:
        """Every anchor, in guide order."""
        return list(self._by_anchor)

    def files(self) -> list[str]:
        return sorted({s.file for s in self.sections}, key=_file_order)

    def list_sections(self) -> list[Section]:
        return list(self.sections)

    def resolve(self, reference: str) -> Section | None:
        """The section a reference, anchor or finding code addresses, or None."""
        ref = reference.strip()
        if not ref:
            return None
        filename = None
        if "#" in ref:
            filename, _, ref = ref.partition("#")
            filename = filename.strip() or None
            ref = ref.strip()
        elif _CODE.match(ref):
            ref = anchor_for_code(ref)
        section = self._by_anchor.get(ref)
        if section is None:
            return None
        if filename is not None and filename != section.file:
            return None
        return section

    def section_for_code(self, code: str) -> Section | None:
        """The section for a finding code such as ``CONTAINER_OOM``."""
        if not _CODE.match(code.strip()):
            return None
        return self._by_anchor.get(anchor_for_code(code))


def _read_package_texts() -> dict[str, str]:
    root = importlib.resources.files(KB_PACKAGE)
    texts: dict[str, str] = {}
    for entry in root.iterdir():
        if entry.name.endswith(".md") and entry.is_file():
            texts[entry.name] = entry.read_text(encoding="utf-8")
    return texts


@functools.lru_cache(maxsize=1)
def load() -> KnowledgeBase:
    """The guide shipped in this package (read once per process)."""
    return KnowledgeBase.from_texts(_read_package_texts())


def resolve(reference: str) -> Section | None:
    """Resolve ``file.md#anchor``, ``#anchor``, ``anchor`` or a finding code."""
    return load().resolve(reference)


def list_sections() -> list[Section]:
    """Every section of the shipped guide, in guide order."""
    return load().list_sections()


def section_for_code(code: str) -> Section | None:
    """The section for a finding code, or None when the guide has none."""
    return load().section_for_code(code)


def reference_for_code(code: str) -> str:
    """The reference a finding of ``code`` should carry (``file.md#anchor``).

    Use this rather than assuming a file: most codes live in ``debugging-guide.md``, but
    performance codes (LOW_BUSBW, STRAGGLER_NODE, WRONG_RESULTS, TEST_FAILED) live in
    ``performance-testing.md``. Raises KeyError when the guide has no section for the code.
    """
    section = section_for_code(code)
    if section is None:
        raise KeyError(f"no guide section for finding code {code!r}")
    return f"{section.file}#{anchor_for_code(code)}"


def duplicate_anchors() -> dict[str, list[str]]:
    """Anchors defined more than once across the shipped files (should be empty)."""
    return dict(load().duplicates)


def iter_references(sections: Iterable[Section]) -> list[str]:
    """Every reference of the given sections, one per anchor."""
    return [ref for s in sections for ref in s.references]
