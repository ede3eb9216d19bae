"""The messages the programs can print (tests/fixtures/messages/: about 800 WARN/ERROR templates
from NCCL, aws-ofi-nccl, libfabric, PyTorch, Slurm, Linux, the NVIDIA driver, DCGM, Kubernetes,
the launchers, the container stack, RCCL, MPICH, Open MPI, the EFA kernel driver and the NFS
and Lustre clients, each with its file, line and commit), instantiated as their loggers print
them:

- a template the inventory calls benign or context never raises a classified failure;
- of the templates that name a failure, at least the measured share is classified as that
  code (the rest print only placeholders, such as '{message}', or are not covered yet: the
  test prints them, and the floor only goes up).
"""

from __future__ import annotations

import io
import re
from collections import Counter

import pytest
from messages import Template, load_templates

from hyperpod_nccl.rules.analyzer import LogAnalyzer
from hyperpod_nccl.rules.catalog import load_catalog
from hyperpod_nccl.rules.classifiers import INFERRING

TEMPLATES = load_templates()
# Where this project reads a message otherwise than the inventory's first proposal, and why.
OVERRIDES = {
    # Printed when another agent closed the rendezvous: alone, it is the failure that shows.
    ("torch/distributed/elastic/rendezvous/dynamic_rendezvous.py", 879): "RENDEZVOUS_FAILURE",
}


def _expected(t: Template) -> str:
    return OVERRIDES.get((t.file, t.line), t.code)


# Measured at the commit that added this test; raise it when rules are added.
COVERED_FLOOR = 0.95


def _classify(backend: str) -> list[tuple[Template, tuple[str, ...], str]]:
    catalog = load_catalog()
    lines = [t.instantiate() for t in TEMPLATES]
    data = ("\n".join(lines) + "\n").encode()
    analyzer = LogAnalyzer(catalog, backend=backend)
    verdicts = analyzer.line_verdicts(io.BytesIO(data))
    out = []
    for number, (template, line) in enumerate(zip(TEMPLATES, lines, strict=True), start=1):
        rule_id = verdicts.get(number, (None, ()))[0]
        codes = catalog.rule(rule_id).possible_codes() if rule_id else ()
        if rule_id and catalog.rule(rule_id).classify in INFERRING:
            # the code a failure line's words give it (a Xid's number or a CUDA error's text
            # is a placeholder here: any code of its rule counts)
            reading = analyzer.reading(line.encode())
            codes = (reading[1],) if reading and reading[1] else ()
        out.append((template, codes, line))
    return out


def test_the_inventory_is_well_formed() -> None:
    assert len(TEMPLATES) > 400
    repos = Counter(t.repo for t in TEMPLATES)
    assert {"NVIDIA/nccl", "aws/aws-ofi-nccl", "ofiwg/libfabric", "pytorch/pytorch"} <= set(repos)
    registry = load_catalog().registry
    for t in TEMPLATES:
        assert t.code in ("benign", "context") or t.code in registry, t
        assert t.line > 0 and t.file and t.template
        assert t.commit is None or re.fullmatch(r"[0-9a-f]{40}", t.commit), t


@pytest.mark.parametrize("backend", ["re", "hyperscan"])
def test_benign_and_context_messages_raise_no_classified_failure(backend: str) -> None:
    registry = load_catalog().registry
    noisy = [
        (t.repo, t.file, t.line, codes, line)
        for t, codes, line in _classify(backend)
        if _expected(t) in ("benign", "context")
        and codes
        and not all(registry[c].fallback for c in codes)
        and t.level != "ERROR"  # an embedded error string: the caller's message decides
        and "exit code" not in t.template  # the exit value decides (context in the inventory)
    ]
    assert noisy == []


def test_failure_messages_are_classified_as_their_code() -> None:
    results = [
        (t, codes, line)
        for t, codes, line in _classify("re")
        if t.code not in ("benign", "context")
    ]
    covered = [t for t, codes, _ in results if t.code in codes]
    share = len(covered) / len(results)
    by_repo = Counter(t.repo for t in covered)
    fixed_text = [
        t for t, _, _ in results if len(re.sub(r"\{[^}]*\}|%[a-z.0-9*]+", "", t.template)) >= 12
    ]
    print(
        f"covered {len(covered)}/{len(results)} = {share:.1%} "
        f"({len([t for t in covered if t in fixed_text])}/{len(fixed_text)} of those with "
        f"fixed text); by source: {dict(by_repo)}"
    )
    for t, codes, line in results:
        if t.code not in codes:
            print(
                f"  {t.code:<22} got {','.join(codes) or '-':<22} {t.repo} {t.file}:{t.line}  {line[:120]}"
            )
    assert share >= COVERED_FLOOR
