"""Rules derived from the programs' own messages (issue 18): each template listed here, as
tests/logs/messages.py instantiates it with its logger's prefix, is classified as the code the
inventory gives it, with both scanning engines, among healthy output as well as alone."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from logmix import healthy_sources
from messages import Template, load_templates

from hyperpod_nccl.api import analyze_logs
from hyperpod_nccl.rules.analyzer import LogAnalyzer
from hyperpod_nccl.rules.catalog import load_catalog

TEMPLATES = {t.key: t for t in load_templates()}

# (repo, file, line) of templates a rule was added or widened for, with the source each
# rule's comment in catalog.yaml cites.
DERIVED = [
    # verbs-create-qp-bare: the errno-less verbs failure of NCCL before 2.14
    ("NVIDIA/nccl", "src/misc/ibvwrap.cc", 152),
    # torch-checkpoint-write-failed: torch.save's writers
    ("pytorch/pytorch", "caffe2/serialize/inline_container.cc", 633),
    ("pytorch/pytorch", "caffe2/serialize/inline_container.cc", 641),
    ("pytorch/pytorch", "caffe2/serialize/inline_container.cc", 469),
    ("pytorch/pytorch", "caffe2/serialize/inline_container.cc", 521),
    ("pytorch/pytorch", "torch/csrc/serialization.cpp", 161),
]


def _code(line: str, backend: str) -> str | None:
    catalog = load_catalog()
    verdicts = LogAnalyzer(catalog, backend=backend).line_verdicts(io.BytesIO(f"{line}\n".encode()))
    rule_id = verdicts.get(1, (None, ()))[0]
    if rule_id is None:
        return None
    codes = catalog.rule(rule_id).possible_codes()
    return codes[0] if len(codes) == 1 else ",".join(codes)


def _template(key: tuple[str, str, int]) -> Template:
    return TEMPLATES[key]


@pytest.mark.parametrize("backend", ["re", "hyperscan"])
@pytest.mark.parametrize("key", DERIVED, ids=[f"{f}:{n}" for _, f, n in DERIVED])
def test_derived_template_gets_its_code(key: tuple[str, str, int], backend: str) -> None:
    t = _template(key)
    assert _code(t.instantiate(), backend) == t.code, t.instantiate()


@pytest.mark.parametrize("key", DERIVED, ids=[f"{f}:{n}" for _, f, n in DERIVED])
def test_derived_template_among_healthy_output_is_the_root_cause(
    key: tuple[str, str, int], tmp_path: Path
) -> None:
    t = _template(key)
    healthy = healthy_sources()[0].read_text("utf-8", errors="replace").splitlines()
    middle = len(healthy) // 2
    log = tmp_path / "rank3.log"
    log.write_text("\n".join([*healthy[:middle], t.instantiate(), *healthy[middle:]]) + "\n")
    report = analyze_logs([str(log)]).to_dict()
    assert report["root_cause"] == t.code


def test_healthy_output_raises_none_of_the_derived_codes(tmp_path: Path) -> None:
    for source in healthy_sources():
        report = analyze_logs([str(source)]).to_dict()
        assert [f["code"] for f in report["findings"] if f["status"] == "FAIL"] == [], source
