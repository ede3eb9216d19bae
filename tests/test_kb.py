"""The remediation guide: every finding code has a section, sections are sourced, anchors are
unique and stable, references resolve, and the operations reference's IAM policy and RBAC role
stay read-only."""

from __future__ import annotations

import ast
import importlib.resources
import json
import re
from collections import Counter
from pathlib import Path

import pytest
import yaml

from hyperpod_nccl import kb
from hyperpod_nccl.codes import load_registry
from hyperpod_nccl.kb import KnowledgeBase, KnowledgeBaseError, parse_markdown

SRC = Path(kb.__file__).resolve().parents[2]  # the src/ directory

# Finding codes for root causes seen in logs (contract.md, "Finding codes ... seen in logs").
LOG_CODES = [
    "NCCL_TIMEOUT",
    "WATCHDOG_HANG",
    "RENDEZVOUS_FAILURE",
    "MASTER_ADDR_DNS",
    "NET_UNREACHABLE",
    "SOCKET_IFNAME",
    "EFA_TCP_FALLBACK",
    "EFA_ERROR",
    "IB_ERROR",
    "MEMLOCK",
    "SHM_TOO_SMALL",
    "NCCL_VERSION_MISMATCH",
    "NCCL_TOPOLOGY",
    "NCCL_INVALID_USAGE",
    "CUDA_OOM",
    "CUDA_ERROR",
    "DRIVER_MISMATCH",
    "GPU_XID",
    "GPU_ECC",
    "NVLINK_ERROR",
    "GPU_ACCESS_LOST",
    "CONTAINER_OOM",
    "RANK_CRASH",
    "APP_EXCEPTION",
    "EXTERNAL_SIGNAL",
    "DISK_FULL",
    "PEER_EXITED",
    "POD_PENDING_RESOURCES",
    "POD_CRASHLOOP",
    "POD_IMAGE_PULL",
    "UNCLASSIFIED_FAILURE",
    "NETWORK_FS_UNAVAILABLE",
    "HOST_KERNEL_STALL",
]

# Every other code the registry holds that points at a guide section: cluster state,
# analysis and perf codes. The registry is the one list of codes.
STATE_CODES = sorted(
    code
    for code, info in load_registry().codes.items()
    if code not in LOG_CODES and info.reference is not None
)

# Topic sections issue 3 asks for, by the anchor each one carries.
TOPIC_ANCHORS = [
    "collective-timeouts-and-hangs",
    "finding-the-stalled-rank",
    "rendezvous-and-tcpstore",
    "security-group-self-reference",
    "nccl-socket-ifname",
    "container-oom",
    "wrong-results-and-gradient-sync",
    "efa-configuration",
    "node-hardware-failures",
    "slurm-procedures",
    "slurm-removeipc",
    "nccl-ras",
    "nccl-version-mismatch",
    "gpu-oom",
    "dns-and-headless-service",
    "efa-tcp-fallback",
    "gpu-p2p-blocked",
    "stale-shared-memory",
    "host-firewall",
    "memlock",
    "framework-settings",
    "nvls-pxn-topology",
    "pods-pending",
    "pod-crashloop",
    "init-container-failures",
    "row-remap-and-dcgm-health",
    # operations reference
    "read-only-iam-policy",
    "node-probe-iam-policy",
    "kubernetes-rbac",
    "ssm-target-format",
    "cloudwatch-logs",
    "environment-variables",
    "hyperpod-node-health-labels",
    "slurm-operations",
    "runbook-security-groups",
    "runbook-network-policy",
    "runbook-slurm-node-management",
    "reboot-and-replace",
    # performance testing
    "nccl-tests-build",
    "nccl-tests-single-node",
    "nccl-tests-multi-node",
    "nccl-tests-pairwise",
    "algbw-vs-busbw",
    "expected-bandwidth",
    "low-busbw",
    "straggler-node",
    "wrong-results",
    "test-failed",
    "timeout-sizing",
]

URL = re.compile(r"^https?://[^\s<>()]+$")
REFERENCE = re.compile(r"\b([a-z][a-z0-9-]*\.md)#([a-z0-9][a-z0-9-]*)")


def _code_blocks(markdown: str, language: str | None = None) -> list[str]:
    blocks = re.findall(r"^\s*```([a-z]*)\n(.*?)^\s*```", markdown, flags=re.M | re.S)
    return [body for lang, body in blocks if language is None or lang == language]


def _package_texts() -> dict[str, str]:
    root = importlib.resources.files("hyperpod_nccl.kb")
    return {
        e.name: e.read_text(encoding="utf-8")
        for e in root.iterdir()
        if e.name.endswith(".md") and e.is_file()
    }


# --- package data ---------------------------------------------------------------------------


def test_guide_files_are_package_data_found_through_importlib_resources() -> None:
    root = importlib.resources.files("hyperpod_nccl.kb")
    for name in ("debugging-guide.md", "operations-reference.md", "performance-testing.md"):
        entry = root.joinpath(name)
        assert entry.is_file(), name
        assert "<a id=" in entry.read_text(encoding="utf-8")
    assert set(kb.load().files()) >= {
        "debugging-guide.md",
        "operations-reference.md",
        "performance-testing.md",
    }


def test_package_data_glob_ships_the_markdown() -> None:
    pyproject = (SRC.parent / "pyproject.toml").read_text(encoding="utf-8")
    assert '"kb/*.md"' in pyproject


def test_every_markdown_file_in_the_package_is_loaded() -> None:
    loaded = set(kb.load().files())
    assert loaded == set(_package_texts())


# --- codes and references -------------------------------------------------------------------


@pytest.mark.parametrize("code", LOG_CODES + STATE_CODES)
def test_every_finding_code_resolves_to_a_section(code: str) -> None:
    section = kb.section_for_code(code)
    assert section is not None, f"{code} has no guide section"
    anchor = code.lower().replace("_", "-")
    assert anchor in section.anchors
    assert kb.resolve(code) is section
    assert kb.resolve(anchor) is section
    assert kb.resolve(f"#{anchor}") is section
    assert kb.resolve(f"{section.file}#{anchor}") is section
    assert kb.reference_for_code(code) == f"{section.file}#{anchor}"


@pytest.mark.parametrize("anchor", TOPIC_ANCHORS)
def test_every_topic_has_a_section(anchor: str) -> None:
    assert kb.resolve(anchor) is not None, anchor


def test_log_codes_live_in_the_debugging_guide() -> None:
    for code in LOG_CODES:
        section = kb.section_for_code(code)
        assert section is not None and section.file == "debugging-guide.md", code


def test_performance_codes_live_in_performance_testing() -> None:
    for code in ("LOW_BUSBW", "STRAGGLER_NODE", "WRONG_RESULTS", "TEST_FAILED"):
        section = kb.section_for_code(code)
        assert section is not None and section.file == "performance-testing.md", code
    assert kb.resolve("performance-testing.md#timeout-sizing") is not None


def test_a_reference_naming_the_wrong_file_does_not_resolve() -> None:
    assert kb.resolve("debugging-guide.md#container-oom") is not None
    assert kb.resolve("performance-testing.md#container-oom") is None
    assert kb.resolve("debugging-guide.md#no-such-anchor") is None
    assert kb.resolve("NOT_A_CODE") is None
    assert kb.resolve("") is None
    assert kb.section_for_code("container-oom") is None
    with pytest.raises(KeyError):
        kb.reference_for_code("NOT_A_CODE")


def test_catalog_codes_resolve_with_the_catalogs_reference_scheme() -> None:
    catalog = pytest.importorskip("hyperpod_nccl.rules.catalog")
    codes = catalog.load_catalog().codes
    assert codes, "the rule catalog defines no codes"
    for code, info in codes.items():
        assert kb.resolve(info.reference) is not None, f"{code}: {info.reference}"


def test_every_reference_written_in_the_source_resolves() -> None:
    """References hard-coded anywhere in the package (not only in the guide) must resolve."""
    found = []
    paths = sorted((SRC / "hyperpod_nccl").rglob("*.py"))
    assert len(paths) > 5, paths
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                for match in REFERENCE.finditer(node.value):
                    if match.group(1) in kb.KNOWN_FILES:
                        found.append((path.name, match.group(0)))
    for where, ref in found:
        assert kb.resolve(ref) is not None, f"{where}: {ref} does not resolve"


def test_cross_references_inside_the_guide_resolve() -> None:
    refs = [
        (s.reference, m.group(0))
        for s in kb.list_sections()
        for m in REFERENCE.finditer(s.markdown)
        if m.group(1) in kb.KNOWN_FILES
    ]
    assert len(refs) > 20
    broken = [(where, ref) for where, ref in refs if kb.resolve(ref) is None]
    assert not broken, broken


# --- structure ------------------------------------------------------------------------------


def test_anchors_are_unique_across_files() -> None:
    counts: Counter[str] = Counter()
    for name, text in _package_texts().items():
        for section in parse_markdown(name, text):
            counts.update(section.anchors)
    duplicates = sorted(a for a, n in counts.items() if n > 1)
    assert not duplicates, duplicates
    assert kb.duplicate_anchors() == {}


def test_every_section_ends_with_a_sources_list_of_urls() -> None:
    sections = kb.list_sections()
    assert len(sections) >= 60
    for section in sections:
        sources = section.sources
        assert sources, f"{section.reference} has no Sources list"
        bad = [u for u in sources if not URL.match(u)]
        assert not bad, f"{section.reference}: not URLs: {bad}"
        tail = section.own_markdown.rstrip().splitlines()[-1]
        assert URL.match(tail.lstrip("- ").strip()), f"{section.reference} must end with Sources"


def test_debugging_guide_sections_are_numbered_in_order() -> None:
    numbers = []
    for section in kb.list_sections():
        if section.file != "debugging-guide.md" or section.level != 2:
            continue
        match = re.match(r"^(\d+)\. \S", section.title)
        assert match, f"unnumbered section: {section.title!r}"
        numbers.append(int(match.group(1)))
    assert numbers == list(range(numbers[0], numbers[0] + len(numbers)))


def test_debugging_sections_say_what_how_to_confirm_and_how_to_fix() -> None:
    for section in kb.list_sections():
        if section.file != "debugging-guide.md" or section.anchor == "how-to-use-this-guide":
            continue
        text = section.markdown
        for part in ("**What it means.**", "**How to confirm", "**How to fix"):
            assert part in text, f"{section.reference} lacks {part}"


def test_anchors_are_explicit_not_derived_from_headings() -> None:
    for name, text in _package_texts().items():
        headings = [ln for ln in text.splitlines() if re.match(r"^#{2,3} ", ln)]
        anchored = parse_markdown(name, text)
        assert len(anchored) >= 1
        for section in anchored:
            assert all(re.fullmatch(r"[a-z0-9][a-z0-9-]*", a) for a in section.anchors)
        assert headings


# --- content guards -------------------------------------------------------------------------


def test_guide_never_sets_nccl_timeout_and_explains_it_does_nothing() -> None:
    for section in kb.list_sections():
        for block in _code_blocks(section.markdown):
            assert not re.search(r"\bNCCL_TIMEOUT\s*=", block), section.reference
    env = kb.resolve("operations-reference.md#environment-variables")
    assert env is not None and "`NCCL_TIMEOUT` does nothing" in env.markdown


def test_guide_never_forces_nccl_proto_or_algo_in_commands() -> None:
    for section in kb.list_sections():
        for block in _code_blocks(section.markdown):
            for match in re.finditer(r"\bNCCL_(PROTO|ALGO)=(\S+)", block):
                assert match.group(2).startswith(("^", '"^')), (section.reference, match.group(0))


def test_busbw_factors_match_nccl_tests() -> None:
    section = kb.resolve("algbw-vs-busbw")
    assert section is not None
    for row in (
        "| AllReduce | 2(n-1)/n |",
        "| ReduceScatter | (n-1)/n |",
        "| AllGather | (n-1)/n |",
        "| Broadcast | 1 |",
        "| Reduce | 1 |",
    ):
        assert row in section.markdown


def test_timeout_sizing_is_labelled_a_heuristic() -> None:
    section = kb.resolve("timeout-sizing")
    assert section is not None
    assert "heuristic" in section.markdown.lower()


def test_expected_bandwidth_marks_field_observations() -> None:
    section = kb.resolve("expected-bandwidth")
    assert section is not None
    for instance in ("p4d", "p4de", "p5.48", "p5e", "p5en", "p6-b200"):
        assert instance in section.markdown, instance
    assert "field observation" in section.markdown


# --- operations reference: read-only by construction ---------------------------------------

# StartSession is not here: the document it opens runs any command (node-probe-iam-policy).
ALLOWED_ACTION = re.compile(
    r"^[a-z0-9-]+:(Describe[A-Za-z]*|List[A-Za-z]*|Get[A-Za-z]*|StartQuery|FilterLogEvents)$"
)


def _iam_policy(anchor: str = "read-only-iam-policy") -> dict[str, object]:
    section = kb.resolve(f"operations-reference.md#{anchor}")
    assert section is not None
    blocks = _code_blocks(section.markdown, "json")
    assert len(blocks) == 1
    policy = json.loads(blocks[0])
    assert isinstance(policy, dict)
    return policy


def test_iam_policy_parses_and_allows_only_read_actions() -> None:
    policy = _iam_policy()
    statements = policy["Statement"]
    assert isinstance(statements, list) and statements
    actions: list[str] = []
    for statement in statements:
        assert statement["Effect"] == "Allow"
        assert "NotAction" not in statement and "NotResource" not in statement
        raw = statement["Action"]
        actions.extend([raw] if isinstance(raw, str) else raw)
    assert actions
    outside = [a for a in actions if not ALLOWED_ACTION.match(a) or "*" in a]
    assert not outside, outside
    required = {
        "sagemaker:DescribeCluster",
        "sagemaker:ListClusterNodes",
        "ec2:DescribeSecurityGroups",
        "ec2:DescribeInstances",
        "ec2:DescribeSubnets",
        "ec2:DescribeNetworkInterfaces",
        "logs:FilterLogEvents",
        "logs:StartQuery",
        "logs:GetQueryResults",
        "logs:DescribeLogGroups",
        "logs:DescribeLogStreams",
        "eks:DescribeCluster",
        "sts:GetCallerIdentity",
    }
    assert required <= set(actions)


def test_iam_ssm_sessions_are_limited_to_the_non_interactive_document() -> None:
    """The node probes' permission is its own, opt-in policy that says it is not read-only;
    it allows StartSession and nothing else."""
    section = kb.resolve("operations-reference.md#node-probe-iam-policy")
    assert section is not None and "not a read-only permission" in " ".join(
        section.markdown.split()
    )
    policy = _iam_policy("node-probe-iam-policy")
    statements = policy["Statement"]
    assert isinstance(statements, list)
    ssm = [s for s in statements if "ssm:StartSession" in s["Action"]]
    assert len(ssm) == 1 == len(statements) and ssm[0]["Action"] == ["ssm:StartSession"]
    resources = ssm[0]["Resource"]
    assert isinstance(resources, list)
    documents = [r for r in resources if ":document/" in r]
    assert documents == ["arn:aws:ssm:*::document/AWS-StartNonInteractiveCommand"]
    targets = [r for r in resources if ":document/" not in r]
    assert targets and all(r.startswith("arn:aws:sagemaker:") and ":cluster/" in r for r in targets)
    assert ssm[0]["Condition"]["BoolIfExists"]["ssm:SessionDocumentAccessCheck"] == "true"


def test_rbac_role_parses_as_yaml_and_only_reads() -> None:
    section = kb.resolve("operations-reference.md#kubernetes-rbac")
    assert section is not None
    blocks = _code_blocks(section.markdown, "yaml")
    assert len(blocks) == 1
    documents = [d for d in yaml.safe_load_all(blocks[0]) if d]
    roles = [d for d in documents if d["kind"] in ("ClusterRole", "Role")]
    assert len(roles) == 1
    verbs = {v for rule in roles[0]["rules"] for v in rule["verbs"]}
    assert verbs and verbs <= {"get", "list", "watch"}, verbs
    resources = {r for rule in roles[0]["rules"] for r in rule["resources"]}
    for needed in (
        "pods",
        "pods/log",
        "nodes",
        "services",
        "endpoints",
        "events",
        "namespaces",
        "daemonsets",
        "networkpolicies",
        "jobs",
        "pytorchjobs",
        "hyperpodpytorchjobs",
    ):
        assert needed in resources, needed
    for doc in documents:
        assert doc["kind"] in ("ClusterRole", "ClusterRoleBinding"), doc["kind"]


def test_ssm_target_format_is_documented() -> None:
    section = kb.resolve("ssm-target-format")
    assert section is not None
    assert "sagemaker-cluster:<cluster-id>_<instance-group-name>-<instance-id>" in section.markdown


# --- the loader itself ----------------------------------------------------------------------

SAMPLE = """# Title

<a id="first"></a>
<a id="alias"></a>
## 1. First

Body of first.

```bash
# a comment, not a heading
<a id="inside-fence"></a>
```

<a id="nested"></a>
### Nested

Nested body.

Sources:
- https://example.org/nested

### Plain subheading

Still nested.

<a id="second"></a>
## 2. Second

Body of second.

Sources:
- https://example.org/second
"""


def test_sections_run_to_the_next_heading_of_the_same_or_higher_level() -> None:
    sections = {s.anchor: s for s in parse_markdown("sample.md", SAMPLE)}
    assert set(sections) == {"first", "nested", "second"}
    first = sections["first"]
    assert first.anchors == ("first", "alias")
    assert first.title == "1. First"
    assert "Nested body." in first.markdown
    assert "Still nested." in first.markdown
    assert "Body of second." not in first.markdown
    assert "<a id=" not in first.markdown.replace('<a id="inside-fence"></a>', "")
    assert "Nested body." not in first.own_markdown
    assert first.sources == []
    nested = sections["nested"]
    # An unanchored heading of the same level ends the nested section but not its parent.
    assert "Still nested." not in nested.markdown
    assert nested.sources == ["https://example.org/nested"]
    assert sections["second"].sources == ["https://example.org/second"]


def test_headings_and_anchors_inside_code_fences_are_ignored() -> None:
    anchors = [a for s in parse_markdown("sample.md", SAMPLE) for a in s.anchors]
    assert "inside-fence" not in anchors


def test_an_anchor_without_a_heading_is_an_error() -> None:
    with pytest.raises(KnowledgeBaseError):
        parse_markdown("bad.md", '<a id="lonely"></a>\nsome text\n')
    with pytest.raises(KnowledgeBaseError):
        parse_markdown("bad.md", '## ok\n\n<a id="at-the-end"></a>\n')
    with pytest.raises(KnowledgeBaseError):
        parse_markdown("bad.md", '<a id="Not_Valid"></a>\n## heading\n')


def test_quick_reference_is_loaded_like_the_other_files() -> None:
    guide = KnowledgeBase.from_texts(
        {
            "quick-reference.md": '<a id="quick-reference"></a>\n## Quick reference\n\nx\n',
            "debugging-guide.md": '<a id="container-oom"></a>\n## 1. OOM\n\ny\n',
            "zz-extra.md": '<a id="extra"></a>\n## Extra\n\nz\n',
        }
    )
    assert guide.files() == ["debugging-guide.md", "quick-reference.md", "zz-extra.md"]
    section = guide.resolve("quick-reference.md#quick-reference")
    assert section is not None and section.title == "Quick reference"
    assert guide.resolve("CONTAINER_OOM") is not None


def test_duplicate_anchors_are_recorded_and_the_first_wins() -> None:
    guide = KnowledgeBase.from_texts(
        {
            "debugging-guide.md": '<a id="same"></a>\n## A\n',
            "quick-reference.md": '<a id="same"></a>\n## B\n',
        }
    )
    assert guide.duplicates == {"same": ["debugging-guide.md#same", "quick-reference.md#same"]}
    section = guide.resolve("same")
    assert section is not None and section.title == "A"
