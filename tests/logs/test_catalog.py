"""The rule catalog is data; these tests keep it honest."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hyperpod_nccl.codes import load_registry, parse_registry
from hyperpod_nccl.rules.catalog import CatalogError, load_catalog, parse_catalog
from hyperpod_nccl.rules.engine import HyperscanPrefilter, hyperscan_available
from hyperpod_nccl.rules.literals import required_literals
from hyperpod_nccl.rules.prefilter import prefilter_pattern

CONTRACT_LOG_CODES = {
    "NCCL_TIMEOUT", "WATCHDOG_HANG", "RENDEZVOUS_FAILURE", "MASTER_ADDR_DNS", "NET_UNREACHABLE",
    "SOCKET_IFNAME", "EFA_TCP_FALLBACK", "EFA_ERROR", "IB_ERROR", "MEMLOCK", "SHM_TOO_SMALL",
    "NCCL_VERSION_MISMATCH", "NCCL_TOPOLOGY", "NCCL_INVALID_USAGE", "CUDA_OOM", "CUDA_ERROR",
    "DRIVER_MISMATCH", "GPU_XID", "GPU_ECC", "NVLINK_ERROR", "GPU_ACCESS_LOST", "CONTAINER_OOM",
    "RANK_CRASH", "APP_EXCEPTION", "EXTERNAL_SIGNAL", "DISK_FULL", "PEER_EXITED",
    "POD_PENDING_RESOURCES", "POD_CRASHLOOP", "POD_IMAGE_PULL", "UNCLASSIFIED_FAILURE",
    "NETWORK_FS_UNAVAILABLE", "HOST_KERNEL_STALL",
}  # fmt: skip

CATALOG = load_catalog()


def test_every_contract_log_code_is_in_the_catalog_and_has_a_rule() -> None:
    assert set(CATALOG.codes) == CONTRACT_LOG_CODES
    emitted = {c for rule in CATALOG.rules for c in rule.possible_codes()}
    assert emitted == CONTRACT_LOG_CODES


@pytest.mark.parametrize("rule", CATALOG.rules, ids=lambda r: r.id)
def test_rule_matches_its_real_examples(rule) -> None:  # type: ignore[no-untyped-def]
    for example in rule.examples:
        assert rule.regex.search(example), f"{rule.id} does not match its example {example!r}"


@pytest.mark.parametrize("rule", CATALOG.rules, ids=lambda r: r.id)
def test_prefilter_is_a_superset_of_the_rule(rule) -> None:  # type: ignore[no-untyped-def]
    prefilter = re.compile(prefilter_pattern(rule.pattern))
    for example in rule.examples:
        assert prefilter.search(example), f"prefilter of {rule.id} misses {example!r}"


@pytest.mark.parametrize("rule", CATALOG.rules, ids=lambda r: r.id)
def test_rule_has_a_named_source(rule) -> None:  # type: ignore[no-untyped-def]
    assert rule.source.strip()


def test_every_scanned_rule_has_a_required_literal() -> None:
    # The pure-Python engine finds candidate lines by a rule's required literals; a pattern
    # without one runs its regex over the whole buffer (a glog FATAL-level alternative tried
    # in issue 18 made the tests about five times slower with that engine).
    catalog = load_catalog()
    assert [
        r.id
        for r in catalog.rules
        # as the engines take it: the pattern's UTF-8 bytes (a non-ASCII literal is several)
        if r.role != "benign" and not required_literals(r.pattern.encode())
    ] == []


def test_every_rule_compiles_in_hyperscan() -> None:
    assert hyperscan_available(), "hyperscan must be installed for the test suite (dev extra)"
    prefilter = HyperscanPrefilter(CATALOG.rules)
    assert prefilter.unsupported == ()


def test_log_codes_come_from_the_code_registry() -> None:
    registry = load_registry()
    for code, info in CATALOG.codes.items():
        assert registry[code] is info
        assert info.area == "logs"


def test_a_catalog_with_its_own_codes_section_is_rejected() -> None:
    with pytest.raises(CatalogError, match="code registry"):
        parse_catalog("codes:\n  AA: {priority: P0, tier: 1, title: a}\nrules: []\n")


@pytest.mark.parametrize(
    ("rule_yaml", "message"),
    [
        (
            "{id: x, role: cause, code: AA, pattern: 'a\\sb', examples: [a b], source: s}",
            "instead of",
        ),
        (
            "{id: x, role: cause, code: NOPE, pattern: 'a', examples: [a], source: s}",
            "unknown code",
        ),
        ("{id: x, role: cause, code: AA, pattern: 'a', source: s}", "real example"),
        (
            "{id: x, role: cause, code: AA, pattern: '(', examples: [a], source: s}",
            "does not compile",
        ),
        ("{id: x, role: context, pattern: 'a', examples: [a], source: s}", "emits"),
    ],
)
def test_malformed_rules_are_rejected(rule_yaml: str, message: str) -> None:
    registry = parse_registry("AA: {area: logs, priority: P0, tier: 1, title: a}\n")
    text = f"rules:\n  - {rule_yaml}\n"
    with pytest.raises(CatalogError, match=message):
        parse_catalog(text, registry)


def test_catalog_ships_inside_the_package() -> None:
    import hyperpod_nccl.rules as rules_pkg

    assert (Path(rules_pkg.__file__).parent / "catalog.yaml").is_file()


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (r"abc (?P<x>.*)", "abc "),
        (r"from peer (?P<peer>[^ ]+) with", r"from peer ([^\n ]+) with"),
        (r"foo \([^)]*\)", r"foo \([^\n)]*\)"),  # a ')' inside a class is not a group end
        (r"to (?P<peer>\([^,]*, [0-9]+\)|[^ ]+)", "to "),
        (r"(?:a(?P<x>.*)|b)", "(?:a|b)"),
        (r"x[^\]]+", "x"),
    ],
)
def test_prefilter_drops_unbounded_tails_only(pattern: str, expected: str) -> None:
    assert prefilter_pattern(pattern) == expected


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        # kubectl's pod line: the pod name before STATUS holds no literal of its own.
        (
            r"\b[a-z0-9][-a-z0-9.]* +[0-9]+/[0-9]+ +(?:Error|StartError) +[0-9]+",
            "(?:Error|StartError) +",
        ),
        (r"^[ \t>`]*\[[0-9]+\][+-]? +Killed +(?P<cmd>[^ ]+)", "Killed +"),
        # A head with selecting text of its own stays: it is what keeps the matches few.
        (r"NVRM: Xid \((?P<pci>[^)]*)\): (?P<xid>[0-9]+),.* caused by", None),
        (r"\bmlx5: [^ :]+: got completion with error", None),
        # Inline flags would be lost with the head.
        (r"(?i)[a-z]* +timed out", None),
    ],
)
def test_prefilter_drops_heads_without_literals(pattern: str, expected: str | None) -> None:
    got = prefilter_pattern(pattern)
    if expected is None:  # kept: only the named groups and negated classes are rewritten
        assert required_literals(got.encode()) == required_literals(pattern.encode())
        assert got.startswith(pattern[:4])
    else:
        assert got == expected
    # Whatever is dropped, the prefilter still finds every line the pattern matches.
    for line in ("web-0   0/1   Error   3   2m", "[1]+  Killed    python train.py"):
        if re.search(pattern, line):
            assert re.search(got, line)
