"""Consistent stand-ins for host names, IP addresses, domains, AWS account ids and EC2
instance ids across a whole bundle (contents and file names alike), in the manner of
`sos clean`: the same host always becomes the same stand-in, and the mapping stays with the
user (`mapping()`), never in the archive.

Stand-ins keep the shapes the log rules and attribution rely on:
- `ip-10-1-2-3` stays an `ip-A-B-C-D` name, and agrees with the stand-in for 10.1.2.3;
- `i-0123456789abcdef0` stays a 17-hex-digit instance id (8-digit ids stay 8 digits);
- a pod-shaped name `train-worker-3` keeps its role and index: `job1-worker-3`;
- other host names become `hostN`, domains `domainN.example`, account ids 12 digits;
- IP addresses keep their subnet structure (see `addresses`).

Two passes: `learn` reads everything once to find the host names and account ids (which,
unlike addresses, are only recognisable from context), then `apply` rewrites. Anything
recognisable by shape alone (addresses, instance ids) needs no learning.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache, partial

from hyperpod_nccl.bundle import linescan
from hyperpod_nccl.bundle.addresses import IPv4Map, IPv6Map
from hyperpod_nccl.rules.catalog import load_catalog
from hyperpod_nccl.slurm import hostlists

_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

# --------------------------------------------------------------------------- shapes
# Each shape regex starts with a literal, which `re` finds quickly; what must not stand
# before the match is checked in the callbacks.
_DASHED = r"-(?P<a>\d{1,3})-(?P<b>\d{1,3})-(?P<c>\d{1,3})-(?:(?P<d>\d{1,3})(?![0-9])|\[(?P<list>[0-9,-]+)\])"
_IP_HOSTS = (re.compile(f"(?P<kind>ip){_DASHED}"), re.compile(f"(?P<kind>ec2){_DASHED}"))
_INSTANCE_ID = re.compile(r"i-(?P<hex>[0-9a-f]{17}|[0-9a-f]{8})(?![A-Za-z0-9])")
_SHAPED = re.compile(
    r"(?<![A-Za-z0-9])(?:(?:ip|ec2)-\d{1,3}-\d{1,3}-\d{1,3}-\d{1,3}(?![0-9])"
    r"|m?i-(?:[0-9a-f]{17}|[0-9a-f]{8})(?![A-Za-z0-9]))"
)
# The last three octets of a dotted quad; the first is read backwards from there, because a
# regex that starts with a digit would be tried at every digit of a log.
_IPV4_TAIL = re.compile(r"\.\d{1,3}\.\d{1,3}\.\d{1,3}(?![A-Za-z0-9_]|\.\d)")
_DIGITS = frozenset("0123456789")
_HEX_COLON = "0123456789abcdefABCDEF:"  # the last character, ':', is left out for one group
# Seven `:group`s written out: `re` runs a repeated group (`(?:...){7}`) through its slow
# repeat machinery at each of a log's many colons, the flat form about 20 times faster.
_IPV6_TAIL = re.compile(":[0-9a-fA-F]{1,4}" * 7 + r"(?![0-9A-Za-z_:.])")
_POD = re.compile(
    r"^(?P<job>[a-z0-9](?:[-a-z0-9.]*[a-z0-9])?)(?P<role>-(?:master|worker|launcher|node|pod)-\d+(?:-[a-z0-9]+)?)$"
)

# What the shape passes of `apply` can rewrite, for the one-scan line filter: only ASCII
# digits and hex make an address or id that gets a stand-in (ipaddress refuses others).
_APPLY_SCAN = (
    rb"(?:ip|ec2)-[0-9]{1,3}-[0-9]{1,3}-[0-9]{1,3}-[0-9\[]",  # _IP_HOSTS
    rb"i-[0-9a-f]{8}",  # _INSTANCE_ID
    rb"\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}",  # _IPV4_TAIL
    b"::",  # _ipv6_pass
    rb":[0-9a-fA-F]{1,4}" * 7,  # _IPV6_TAIL
)
# Joins the regions `apply_bytes` rewrites: a line that nothing matches (buffers holding a
# NUL byte go the slow way).
_SEPARATOR = b"\x00\n"

# --------------------------------------------------------------------------- discovery
# Where a host name is written, mirroring rules/attribution.py, plus Slurm and API keys. Each
# regex starts with a literal where it can: `re` then skips ahead quickly.
_HOST_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_NCCL_TAIL = re.compile(r":\d+:\d+ \[\d+\]")  # NCCL's `host:pid:tid [dev]`, host before it
# The same, read backwards (`]dev[ dit:dip:`), then the host's characters (_HOST_CHARS) before
# it, backwards: what _learn_nccl reads (tests/bundle compare it with the forward reading).
_NCCL_HOST_BACKWARDS = re.compile(r"\]\d+\[ \d+:\d+: ?([A-Za-z0-9_.-]*)")
# (literal that must be in the text, regex, characters one of which must precede the match)
_CONTEXTS: tuple[tuple[str, re.Pattern[str], str], ...] = (
    # pdsh / launcher labels `host: ...`, after an Open MPI or torchrun prefix
    (": ", re.compile(
        r"(?m)^(?:\[\d+,\d+\]<std(?:out|err)>:|\[rank\d+\]:)?[ \t]*"
        r"(?P<label>[A-Za-z0-9][A-Za-z0-9_.-]*[A-Za-z0-9]): "
    ), ""),
    (":", re.compile(r"[A-Z][a-z]{2} +\d{1,2} \d\d:\d\d:\d\d (?P<host>[A-Za-z0-9_.-]+) "), ""),
    ("Pid", re.compile(r"Pid +\d+ on (?P<host>[A-Za-z0-9_.-]+) device"), ""),
    ("CANCELLED", re.compile(r"ON (?P<host>[A-Za-z0-9_.-]+) CANCELLED"), ""),
    ("srun", re.compile(r"srun: error: (?P<host>[A-Za-z0-9_.-]+): task"), ""),
    ("ode", re.compile(
        r"(?:Node(?:Name|HostName|Addr|List)|AllocNode|Nodes|nodeName)"
        r"(?:=|\"?:[ \t]*\"?)(?P<host>[A-Za-z0-9_.-]+(?:\[[0-9,-]+\])?)"
    ), ""),
    # host=, Host:, hostname:, HostName=, BatchHost= (the H or h is checked before the match)
    ("ost", re.compile(r"ost(?:[Nn]ame)?(?:=|\"?:[ \t]*\"?)(?P<host>[A-Za-z0-9_.-]+)"), "Hh"),
    ("DnsName", re.compile(r"DnsName\"?:[ \t]*\"?(?P<host>[A-Za-z0-9_.-]+)"), ""),
)  # fmt: skip
_HOSTLIST = re.compile(r"^(?P<stem>[A-Za-z0-9_.-]*[A-Za-z_.-])\[(?P<list>[0-9,-]+)\]$")
_ACCOUNT_CONTEXTS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("arn:aws", re.compile(r"arn:aws[\w-]*:[\w-]*:[\w-]*:(?P<id>\d{12}):")),
    (".dkr.ecr.", re.compile(r"(?P<id>\d{12})\.dkr\.ecr\.")),
    ("ccount", re.compile(
        r"(?i:account(?:_?id)?|owner_?id)\"?[ \t]*(?:[:=][ \t]*|[ \t])\"?(?P<id>\d{12})(?!\d)"
    )),
    ("wner", re.compile(r"(?i:owner_?id)\"?[ \t]*[:=][ \t]*\"?(?P<id>\d{12})(?!\d)")),
)  # fmt: skip
# Words that look like host labels but are not; mirrors attribution's list.
_NOT_HOSTS = re.compile(
    r"(?i)^(?:.*(?:error|exception|warning)|info|warn|debug|trace|fatal|note|kern|user|"
    r"traceback|file|line|epoch|step|time|host|rank|reason|message|state|status|type|"
    r"events|name|srun|slurmstepd|sbatch|torch|python\d*(?:\.\d+)?|nvcc|cuda|gcc|"
    r"localhost|localdomain|none|null|unknown|default|true|false|n/a|\(null\)|utc|gmt)$"
)
# Domains that say nothing about who the user is, and that support needs to read.
_GENERIC_DOMAINS = (
    "internal", "amazonaws.com", "amazonaws.com.cn", "cluster.local", "svc", "local",
    "localdomain", "example", "example.com", "example.org",
    # Public services a job talks to: they say nothing about who the user is.
    "github.com", "githubusercontent.com", "gitlab.com", "huggingface.co", "hf.co", "pypi.org",
    "pythonhosted.org", "pytorch.org", "nvidia.com", "nvcr.io", "docker.io", "docker.com",
    "amazon.com", "aws.dev", "wandb.ai", "slack.com", "google.com", "googleapis.com", "gcr.io",
    "ghcr.io", "quay.io", "k8s.io", "kubernetes.io", "ubuntu.com", "debian.org", "conda.io",
    "anaconda.org", "anaconda.com", "microsoft.com", "azure.com", "readthedocs.io",
    "python.org", "mlflow.org", "openai.com", "anthropic.com",
)  # fmt: skip
# Where a host or domain is written that the contexts above do not cover: URLs, rendezvous
# addresses, e-mail addresses, Kubernetes pod references.
_URL_HOST = re.compile(
    r"://(?:[^\s/@:]+(?::[^\s/@]*)?@)?(?P<host>[A-Za-z0-9][A-Za-z0-9.-]*\.[A-Za-z]{2,})"
)
_ADDR_CONTEXTS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("master", re.compile(r"(?i:master[_-]addr)\"?(?:=|[ \t]+|:[ \t]*)\"?(?P<host>[A-Za-z0-9][A-Za-z0-9.-]*[A-Za-z0-9])")),
    ("rdzv", re.compile(r"(?i:rdzv[_-]endpoint)(?:=|[ \t]+)(?P<host>[A-Za-z0-9][A-Za-z0-9.-]*[A-Za-z0-9])")),
)  # fmt: skip
# An e-mail address's domain, found from its `@` (what precedes is checked in code).
_EMAIL = re.compile(r"@(?P<domain>[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,})")
_EMAIL_LOCAL = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._%+-")
# Kubernetes pod references; each regex starts with its literal, which `re` finds quickly.
_POD_NAME = r"(?P<host>[a-z0-9](?:[-a-z0-9.]*[a-z0-9])?)"
_POD_REFS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("pod/", re.compile("pod/" + _POD_NAME)),
    ("pods/", re.compile("pods/" + _POD_NAME)),
    ("Pod ", re.compile(r"Pod [a-z0-9-]+/" + _POD_NAME)),
    ('"pod', re.compile(r'"pod(?:_?[Nn]ame)?"[ \t]*:[ \t]*"' + _POD_NAME)),
    ("pod=", re.compile("pod=" + _POD_NAME)),
)
_POD_ROLES = ("-worker-", "-master-", "-launcher-")
# What `learn` can match, for the one-scan line filter (bundle/linescan.py): each
# expression matches wherever the regex above it does (a superset: `re`'s `\d` and (?i) also
# match non-ASCII characters, so those positions accept any bytes >= 0x80 here).
_D = linescan.DIGIT + b"+"
_NAME_BYTES = rb"[A-Za-z0-9_.-]"
_LEARN_SCAN: tuple[tuple[bytes, bool], ...] = (
    (b":" + _D + b":" + _D + rb" \[" + _D + rb"\]", False),  # _NCCL_TAIL
    # _CONTEXTS: the launcher label (only a label with a digit, `.` or `-` is learned)
    (rb"^(?:\[" + _D + b"," + _D + rb"\]<std(?:out|err)>:|\[rank" + _D + rb"\]:)?[ \t]*"
     + _NAME_BYTES + rb"*[0-9.-]" + _NAME_BYTES + rb"*: ", True),
    (rb"[A-Z][a-z]{2} +" + _D + b" " + _D + b":" + _D + b":" + _D + b" " + _NAME_BYTES + b"+ ", False),
    (rb"Pid +" + _D + b" on " + _NAME_BYTES + b"+ device", False),
    (b"ON " + _NAME_BYTES + b"+ CANCELLED", False),
    (b"srun: error: " + _NAME_BYTES + b"+: task", False),
    (rb"(?:Node(?:Name|HostName|Addr|List)|AllocNode|Nodes|nodeName)(?:=|\"?:[ \t]*\"?)"
     + _NAME_BYTES, False),
    (rb"ost(?:[Nn]ame)?(?:=|\"?:[ \t]*\"?)" + _NAME_BYTES, False),
    (rb"DnsName\"?:[ \t]*\"?" + _NAME_BYTES, False),
    # _ACCOUNT_CONTEXTS, _ADDR_CONTEXTS: their literal part
    (b"arn:aws", False),
    (rb"\.dkr\.ecr\.", False),
    (linescan.caseless("account"), False),
    (linescan.caseless("owner"), False),
    (linescan.caseless("master"), False),
    (linescan.caseless("rdzv"), False),
    (b"://", False),  # _URL_HOST
    (b"@", False),  # _EMAIL
    (b"pod", False),  # _POD_REFS
    (b"Pod ", False),
    *((role.encode(), False) for role in _POD_ROLES),  # _learn_pods
)  # fmt: skip
_POD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-.")
# After `host.`: what makes the dot part of the host's own name, so the host is replaced
# (a domain, its stand-in, a file extension); anything else (`vm.max_map_count`) keeps it.
_AFTER_DOT = re.compile(
    r"\.(?:(?:[A-Za-z0-9-]+\.)*(?:domain\d+\.example|internal|cluster\.local|svc|local|"
    r"localdomain)(?![A-Za-z0-9-])"
    r"|(?:log|txt|out|err|json|jsonl|gz|yaml|yml|csv|md|tar|tgz|html|pkl|pickle|bin|\d+)\b)"
)


@cache
def _catalog_words() -> frozenset[str]:
    """Words the log rules match on: never mistaken for a host name and rewritten."""
    words: set[str] = set()
    for rule in load_catalog().rules:
        words.update(w.lower() for w in re.findall(r"[A-Za-z][A-Za-z0-9_-]{2,}", rule.pattern))
    return frozenset(words)


def _expand_hostlist(stem: str, spec: str) -> list[str]:
    """The hosts of `stem[spec]`, or none when it is not a host list (then left as it is)."""
    try:
        return hostlists.expand(f"{stem}[{spec}]", max_range=4096)
    except hostlists.HostlistError:
        return []


def _trie_pattern(words: Iterable[str]) -> str:
    """One regex alternation for many literal words, as a trie so `re` does not try each."""
    trie: dict[str, dict] = {}  # type: ignore[type-arg]
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict) -> str:  # type: ignore[type-arg]
        branches = [re.escape(ch) + build(child) for ch, child in sorted(node.items()) if ch]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return build(trie)


_learn_db: list[linescan.LineScan | None] = []


def _learn_scan() -> linescan.LineScan | None:
    """The scan for `learn`, compiled on first use (None without Hyperscan)."""
    if not _learn_db:
        scan = None
        if linescan.available():
            scan = linescan.LineScan([e for e, _ in _LEARN_SCAN], [m for _, m in _LEARN_SCAN])
        _learn_db.append(scan)
    return _learn_db[0]


@dataclass
class Obfuscator:
    """Learns identifiers from everything first, then rewrites text consistently."""

    ipv4: IPv4Map = field(default_factory=IPv4Map)
    ipv6: IPv6Map = field(default_factory=IPv6Map)
    hosts: dict[str, str] = field(default_factory=dict)
    jobs: dict[str, str] = field(default_factory=dict)
    domains: dict[str, str] = field(default_factory=dict)
    accounts: dict[str, str] = field(default_factory=dict)
    instances: dict[str, str] = field(default_factory=dict)
    # Every spelling seen of each host and domain (matching is case-sensitive: much faster).
    _spellings: set[str] = field(default_factory=set, repr=False)
    _seen: set[str] = field(default_factory=set, repr=False)
    _ip_hosts: dict[str, str] = field(default_factory=dict, repr=False)
    _passes: list[Callable[[str], str]] | None = field(default=None, repr=False)
    _scan: linescan.LineScan | None = field(default=None, repr=False)

    # ------------------------------------------------------------------ learning
    def learn_bytes(self, data: bytes) -> None:
        """`learn(data.decode("utf-8", "replace"))`, each of its passes reading only the lines
        its own expressions of the scan matched."""
        scan = _learn_scan()
        if scan is None:
            self.learn(data.decode("utf-8", "replace"))
            return
        # Whole lines cut at `\n`, which no multi-byte sequence holds: each decodes as it did
        # inside the buffer, and every pass of `learn` stays inside one line. A pass sees its
        # lines in their order, each after a line end as in the whole text (unless it is the
        # buffer's first), so it meets the same matches in the same order.
        found = scan.regions_by_expression(data)
        for learn_pass, expressions in self._learning_passes():
            spans = [span for i in expressions for span in found.get(i, ())]
            if not spans:
                continue
            regions = linescan.union(spans) if len(expressions) > 1 else spans
            text = b"".join(data[s:e] for s, e in regions).decode("utf-8", "replace")
            learn_pass("\n" + text if regions[0][0] else text)

    def learn(self, text: str) -> None:
        """Find host names and account ids in `text` (call for everything before `apply`)."""
        for learn_pass, _ in self._learning_passes():
            learn_pass(text)

    def _learning_passes(self) -> list[tuple[Callable[[str], None], tuple[int, ...]]]:
        """learn's passes in their order, each with the indexes in _LEARN_SCAN of the
        expressions that match wherever it can."""
        return [
            (self._learn_nccl, (0,)),
            *((partial(self._learn_context, i), (1 + i,)) for i in range(len(_CONTEXTS))),
            *(
                (partial(self._learn_accounts, i), ids)
                for i, ids in enumerate(((9,), (10,), (11, 12), (12,)))
            ),
            (self._learn_addresses, (13, 14)),
            (self._learn_urls, (15,)),
            (self._learn_emails, (16,)),
            *(
                (partial(self._learn_pod_refs, i), (18,) if literal == "Pod " else (17,))
                for i, (literal, _) in enumerate(_POD_REFS)
            ),
            (self._learn_pods, (19, 20, 21)),
        ]

    def _learn_nccl(self, text: str) -> None:
        """The host before each NCCL `:pid:tid [dev]` (one space between them allowed), in
        the order of their first lines: found from the end, where the tail is the literal a
        search starts from, in one C-level pass over the text read backwards (learn_host
        does nothing for a host it has seen)."""
        backwards = _NCCL_HOST_BACKWARDS.findall(text[::-1])
        for host in dict.fromkeys(reversed(backwards)):
            if host:
                self.learn_host(host[::-1])

    def _learn_context(self, index: int, text: str) -> None:
        literal, regex, preceded_by = _CONTEXTS[index]
        if literal not in text:
            return
        for match in regex.finditer(text):
            if preceded_by and text[match.start() - 1 : match.start()] not in preceded_by:
                continue
            value = match.group(1)
            if regex.groupindex.get("label") and not re.search(r"[\d.-]", value):
                continue  # a bare word and a colon: `Error: `, `Note: `
            self.learn_host(value)

    def _learn_accounts(self, index: int, text: str) -> None:
        literal, regex = _ACCOUNT_CONTEXTS[index]
        if literal in text:
            for match in regex.finditer(text):
                self._learn_account(match.group("id"))

    def _learn_addresses(self, text: str) -> None:
        lowered = text.lower() if "aster" in text or "ASTER" in text or "dzv" in text else ""
        for literal, regex in _ADDR_CONTEXTS:
            if literal in lowered:  # MASTER_ADDR, master_addr, --rdzv-endpoint
                for match in regex.finditer(text):
                    self.learn_host(match.group("host"))

    def _learn_urls(self, text: str) -> None:
        if "://" in text:
            for match in _URL_HOST.finditer(text):
                self._learn_registered(match.group("host"))

    def _learn_emails(self, text: str) -> None:
        if "@" in text:
            for match in _EMAIL.finditer(text):
                if match.start() > 0 and text[match.start() - 1] in _EMAIL_LOCAL:
                    self._learn_registered(match.group("domain"))

    def _learn_pod_refs(self, index: int, text: str) -> None:
        literal, regex = _POD_REFS[index]
        if literal in text:
            for match in regex.finditer(text):
                if match.start() == 0 or not text[match.start() - 1].isalnum():
                    self.learn_host(match.group("host"))

    def _learn_pods(self, text: str) -> None:
        """Pod-shaped names (`job-worker-3`) wherever they stand, found from their role."""
        for role in _POD_ROLES:
            at = text.find(role)
            while at >= 0:
                start = at
                while start > 0 and text[start - 1] in _POD_CHARS:
                    start -= 1
                end = at + len(role)
                while end < len(text) and text[end].isdigit():
                    end += 1
                name = text[start:end]
                if _POD.match(name) and (start == 0 or not text[start - 1].isalnum()):
                    self.learn_host(name)
                at = text.find(role, end)

    def _learn_registered(self, host: str) -> None:
        """A host name from a URL or an e-mail address: its domain is the organisation's
        unless it is a public service's; its first label (git, api) names a service."""
        name = host.strip(".").lower()
        if _is_ipv4(name) or name.endswith(_GENERIC_DOMAINS) or "." not in name:
            return
        labels = name.split(".")
        if len(labels) >= 3:
            self._learn_domain(".".join(labels[1:]))
        self._learn_domain(".".join(labels[-2:]))
        self._spellings.add(host.strip(".").partition(".")[2])

    def learn_host(self, name: str) -> None:
        """Treat `name` (a short name, FQDN or Slurm host list) as a host to hide."""
        if name in self._seen:
            return
        self._seen.add(name)
        for spelling in name.strip(".").split("."):
            self._spellings.add(spelling)
        self._spellings.add(name.strip(".").partition(".")[2])
        name = name.strip(".").lower()
        listed = _HOSTLIST.match(name)
        if listed:
            for host in _expand_hostlist(listed.group("stem"), listed.group("list")):
                self.learn_host(host)
            return
        label, _, domain = name.partition(".")
        if _is_ipv4(name) or not label or name.replace(".", "").isdigit():
            return
        if len(label) < 2 or _NOT_HOSTS.match(label) or _NOT_HOSTS.match(name):
            return  # `torch.distributed.DistBackendError: ...` is no host
        shaped = bool(_SHAPED.search(label))
        if not shaped and label in _catalog_words():
            return
        if domain and "." in domain and not domain.endswith(_GENERIC_DOMAINS):
            self._learn_domain(domain)
            self._learn_domain(".".join(domain.split(".")[-2:]))
        if shaped or label in self.hosts:
            return  # addresses and instance ids inside it are rewritten by their shape
        pod = _POD.match(label)
        if pod:
            job = self.jobs.setdefault(pod.group("job"), f"job{len(self.jobs) + 1}")
            self.hosts[label] = job + pod.group("role")
        else:
            self.hosts[label] = f"host{len(self.hosts) + 1}"
        self._passes = None

    def _learn_domain(self, domain: str) -> None:
        if domain not in self.domains:
            self.domains[domain] = f"domain{len(self.domains) + 1}.example"
            self._passes = None

    def _learn_account(self, account: str) -> None:
        if account not in self.accounts:
            self.accounts[account] = f"{len(self.accounts) + 1:012d}"
            self._passes = None

    # ------------------------------------------------------------------ rewriting
    def apply(self, text: str) -> str:
        """`text` with every known or recognisable identifier replaced by its stand-in."""
        for rewrite in self._compiled():
            text = rewrite(text)
        return text

    def apply_bytes(self, data: bytes) -> bytes:
        """`apply` on UTF-8 bytes (bytes that are not UTF-8 pass unchanged), run only on the
        lines one of its passes can match."""
        self._compiled()
        scan = self._scan
        if scan is None or _SEPARATOR[:1] in data:
            return self.apply(data.decode("utf-8", "surrogateescape")).encode(
                "utf-8", "surrogateescape"
            )
        regions = scan.regions(data)
        if not regions:
            return data
        # The lines, each region apart from the next by a line of its own that no pass can
        # match or see past, rewritten in one go (stand-ins are given in the same order as on
        # the whole text: the passes meet the same matches in the same order).
        joined = _SEPARATOR.join(data[s:e] for s, e in regions)
        text = self.apply(joined.decode("utf-8", "surrogateescape"))
        parts = text.encode("utf-8", "surrogateescape").split(_SEPARATOR)
        if len(parts) != len(regions):  # pragma: no cover - stand-ins hold no NUL
            raise AssertionError("obfuscation split a region")
        pieces: list[bytes] = []
        last = 0
        for (start, end), part in zip(regions, parts, strict=True):
            pieces += [data[last:start], part]
            last = end
        pieces.append(data[last:])
        return b"".join(pieces)

    def _ipv6_pass(self, text: str) -> str:
        """Compressed IPv6 addresses (every one has `::`), found from the `::` outwards: a
        regex that starts with a hex class would try every position of the text."""
        if "::" not in text:
            return text
        pieces: list[str] = []
        last = 0
        at = text.find("::")
        while at >= 0:
            start, end = at, at + 2
            while start > 0 and text[start - 1] in _HEX_COLON:
                start -= 1
            while end < len(text) and text[end] in _HEX_COLON:
                end += 1
            before = text[start - 1] if start > 0 else " "
            after = text[end] if end < len(text) else " "
            stand_in = None
            candidate = text[start:end]
            groups = [g for g in candidate.split(":") if g]
            edges_clear = before not in _ALNUM and before not in "_." and after not in _ALNUM
            # Two groups at least: `c10d::` in a C++ frame is a namespace, not an address.
            if start >= last and edges_clear and after not in "_." and len(groups) >= 2:
                stand_in = self.ipv6.map(candidate)
            if stand_in is not None:
                pieces += [text[last:start], stand_in]
                last = end
            at = text.find("::", max(end, at + 2))
        return "".join(pieces) + text[last:] if pieces else text

    def _ipv6_full_pass(self, text: str) -> str:
        """IPv6 addresses written out in full (eight groups, no `::`), found from the colon
        after their first group backwards, as IPv4 addresses are (see _IPV4_TAIL)."""
        if text.count(":") < 7:
            return text
        pieces: list[str] = []
        last = 0
        for match in _IPV6_TAIL.finditer(text):
            tail = match.start()
            first = tail
            while first > 0 and tail - first < 4 and text[first - 1] in _HEX_COLON[:-1]:
                first -= 1
            before = text[first - 1] if first > 0 else " "
            if first == tail or first < last or before in _ALNUM or before in "._":
                continue
            if before == ":" and not _names_an_interface(text, first - 1):
                continue  # a ninth group: not an address
            stand_in = self.ipv6.map(text[first : match.end()])
            if stand_in is not None:
                pieces += [text[last:first], stand_in]
                last = match.end()
        return "".join(pieces) + text[last:] if pieces else text

    def mapping(self) -> dict[str, dict[str, str]]:
        """Original -> stand-in, by kind: for the user's own file, never for the archive."""
        return {
            "hosts": dict(self.hosts),
            "domains": dict(self.domains),
            "ipv4": dict(self.ipv4.mapping),
            "ipv6": dict(self.ipv6.mapping),
            "account_ids": dict(self.accounts),
            "instance_ids": dict(self.instances),
        }

    def _compiled(self) -> list[Callable[[str], str]]:
        if self._passes is None:
            # One pass per kind, in this order; no stand-in of one kind matches a later pass.
            passes: list[Callable[[str], str]] = [
                *(partial(shape.sub, self._ip_host) for shape in _IP_HOSTS),
                partial(_INSTANCE_ID.sub, self._instance),
                self._ipv4_pass,
                self._ipv6_pass,
                self._ipv6_full_pass,
            ]
            if self.accounts:
                accounts = re.compile(f"(?:{_trie_pattern(self.accounts)})(?!\\d)")
                passes.append(partial(accounts.sub, self._account))
            domains = self._spelled(self.domains)
            if domains:
                pattern = re.compile(f"(?:{_trie_pattern(domains)})(?![A-Za-z0-9-])")
                passes.append(partial(pattern.sub, self._domain))
            hosts = self._spelled(self.hosts)
            if hosts:
                stems = {m.group(1) for h in hosts if (m := re.match(r"(.*[^0-9])\d+$", h))}
                if stems:
                    pattern = re.compile(f"(?:{_trie_pattern(stems)})\\[[0-9,-]+\\]")
                    passes.append(partial(pattern.sub, self._hostlist))
                pattern = re.compile(f"(?:{_trie_pattern(hosts)})(?![A-Za-z0-9])")
                passes.append(partial(pattern.sub, self._host))
            self._passes = passes
            self._scan = self._apply_scan(domains, hosts)
        return self._passes

    def _apply_scan(self, domains: set[str], hosts: set[str]) -> linescan.LineScan | None:
        """One scan for every pass of `apply`: the shapes, then the learned names (the same
        sets `_compiled` matches, spelled exactly, as its patterns match case-sensitively)."""
        if not linescan.available():
            return None
        names = [*self.accounts, *domains, *hosts]
        if not all(names):
            return None  # an empty name would match everywhere: run on everything instead
        stems = {m.group(1) for h in hosts if (m := re.match(r"(.*[^0-9])\d+$", h))}
        return linescan.LineScan(
            [
                *_APPLY_SCAN,
                *(linescan.literal(n) for n in names),
                *(linescan.literal(stem) + rb"\[" for stem in stems),
            ]
        )

    def _spelled(self, known: dict[str, str]) -> set[str]:
        """The spellings seen of the names in `known`, plus their lower-case forms."""
        return {s for s in self._spellings if s.lower() in known} | set(known)

    # Callbacks: each first checks the character before the match (kept out of the regex so
    # that `re` can search for the pattern's first characters quickly).
    def _ip_host(self, match: re.Match[str]) -> str:
        if _inside_word(match):
            return match.group(0)
        known = self._ip_hosts.get(match.group(0))
        if known is None:
            known = self._ip_hosts[match.group(0)] = self._new_ip_host(match)
        return known

    def _new_ip_host(self, match: re.Match[str]) -> str:
        a, b, c = match.group("a", "b", "c")
        prefix = f"{a}.{b}.{c}."
        if match.group("d") is not None:
            address = prefix + match.group("d")
            if not _is_ipv4(address):
                return match.group(0)
            return f"{match.group('kind')}-" + self.ipv4.map(address).replace(".", "-")
        hosts = _expand_hostlist(prefix, match.group("list"))
        if not hosts or not all(_is_ipv4(h) for h in hosts):
            return match.group(0)
        mapped = [self.ipv4.map(h).split(".") for h in hosts]
        head = "-".join(mapped[0][:3])
        return f"{match.group('kind')}-{head}-[{','.join(m[3] for m in mapped)}]"

    def _instance(self, match: re.Match[str]) -> str:
        start, source = match.start(), match.string
        # `mi-...` (an SSM managed instance) keeps its `m`; the id after it maps as usual.
        managed = source[start - 1 : start] == "m" and source[start - 2 : start - 1] not in _ALNUM
        if _inside_word(match) and not managed:
            return match.group(0)
        original = match.group(0)
        stand_in = self.instances.get(original)
        if stand_in is None:
            digits = len(match.group("hex"))
            stand_in = f"i-{len(self.instances) + 1:0{digits}x}"
            self.instances[original] = stand_in
        return stand_in

    def _ipv4_pass(self, text: str) -> str:
        """Dotted quads, found from their last three octets backwards (see _IPV4_TAIL)."""
        pieces: list[str] = []
        last = 0
        for match in _IPV4_TAIL.finditer(text):
            tail = match.start()
            first = tail
            while first > 0 and tail - first < 3 and text[first - 1] in _DIGITS:
                first -= 1
            before = text[first - 1] if first > 0 else " "
            address = text[first : match.end()]
            if first == tail or first < last or before in _ALNUM or before in "._":
                continue
            stand_in = self.ipv4.mapping.get(address)
            if stand_in is None and _is_ipv4(address):
                stand_in = self.ipv4.map(address)
            if stand_in is not None:
                pieces += [text[last:first], stand_in]
                last = match.end()
        return "".join(pieces) + text[last:] if pieces else text

    def _account(self, match: re.Match[str]) -> str:
        if match.start() > 0 and match.string[match.start() - 1] in _DIGITS:
            return match.group(0)
        return self.accounts[match.group(0)]

    def _domain(self, match: re.Match[str]) -> str:
        if match.start() > 0 and match.string[match.start() - 1] in _ALNUM | {"-"}:
            return match.group(0)
        return self.domains[match.group(0).lower()]

    def _hostlist(self, match: re.Match[str]) -> str:
        if _inside_name(match):
            return match.group(0)
        listed = _HOSTLIST.match(match.group(0).lower())
        hosts = _expand_hostlist(listed.group("stem"), listed.group("list")) if listed else []
        if not hosts or not all(h in self.hosts for h in hosts):
            return match.group(0)
        return ",".join(self.hosts[h] for h in hosts)

    def _host(self, match: re.Match[str]) -> str:
        if _inside_name(match):
            return match.group(0)  # part of a longer name: `total-vm:`, `vm.max_map_count`
        return self.hosts[match.group(0).lower()]


def _names_an_interface(text: str, colon: int) -> bool:
    """Whether the word before text[colon] (a `:`) is a name such as `eth1`, not a group."""
    start = colon
    while start > 0 and text[start - 1].isalnum():
        start -= 1
    word = text[start:colon]
    return bool(word) and (len(word) > 4 or any(c not in "0123456789abcdefABCDEF" for c in word))


def _inside_name(match: re.Match[str]) -> bool:
    """Whether a host-name match is only part of a longer name or word: a letter, digit,
    `-`, `_` or `.` before it, or after it `-`, `_`, or a `.` that does not start its domain
    or a file extension."""
    text, start, end = match.string, match.start(), match.end()
    if start > 0 and (text[start - 1] in _ALNUM or text[start - 1] in "-_."):
        return True
    after = text[end : end + 1]
    if after in ("-", "_"):
        return True
    return after == "." and not _AFTER_DOT.match(text, end)


def _inside_word(match: re.Match[str]) -> bool:
    return match.start() > 0 and match.string[match.start() - 1] in _ALNUM


def _is_ipv4(text: str) -> bool:
    try:
        ipaddress.IPv4Address(text)
    except ValueError:
        return False
    return True
