"""The packages and top-level modules of hyperpod_nccl import each other without cycles: each
import, at module level or inside a function, is an edge between the first names below
hyperpod_nccl (a package or a module), and the graph has no strongly connected component of
more than one node. A new cycle fails here with the imports that make it."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "hyperpod_nccl"


def _edges() -> tuple[dict[str, set[str]], dict[tuple[str, str], str]]:
    edges: dict[str, set[str]] = defaultdict(set)
    where: dict[tuple[str, str], str] = {}
    for path in sorted(SRC.rglob("*.py")):
        parts = path.relative_to(SRC).with_suffix("").parts
        source = parts[0]
        if source == "__init__":
            continue  # the package's own __init__ (version only)
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if not (isinstance(node, ast.ImportFrom) and node.module):
                continue
            names = node.module.split(".")
            if names[0] != "hyperpod_nccl":
                continue
            targets = [names[1]] if len(names) > 1 else [a.name for a in node.names]
            for target in targets:
                if target not in (source, "__version__"):
                    edges[source].add(target)
                    where.setdefault((source, target), f"{path.relative_to(SRC)}:{node.lineno}")
    return edges, where


def _cycles(edges: dict[str, set[str]]) -> list[set[str]]:
    """Strongly connected components of more than one node (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


def test_no_import_cycles_between_packages_and_modules() -> None:
    edges, where = _edges()
    assert len(edges) > 15
    report = [
        sorted(f"{a} -> {b} ({where[(a, b)]})" for a in c for b in edges[a] if b in c)
        for c in _cycles(edges)
    ]
    assert report == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]
    assert _cycles({"a": {"b"}, "b": set()}) == []


_REPLAY = """
import contextlib, io, sys
from hyperpod_nccl import api, cli
bundles = sys.argv[1:]
for bundle in bundles:
    api.diagnose(bundle=bundle)
    with contextlib.redirect_stdout(io.StringIO()):
        assert cli.main(["logs", "--bundle", bundle, "--format", "json"]) in (0, 1)
print(" ".join(sorted({m.split('.')[0] for m in sys.modules} & {"boto3", "botocore", "kubernetes", "subprocess"})))
"""


def test_replaying_a_bundle_imports_no_sdk_and_no_subprocess() -> None:
    """Re-analysing saved state is pure analysis: a fresh interpreter that replays every
    example bundle (diagnose and logs) has not imported boto3, botocore, the Kubernetes client
    or subprocess. The names are in snapshot/items.py, not in the collectors."""
    bundles = sorted(str(p) for p in (SRC / "examples" / "bundles").iterdir() if p.is_dir())
    assert len(bundles) >= 3
    done = subprocess.run(
        [sys.executable, "-c", _REPLAY, *bundles], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "", done.stdout
