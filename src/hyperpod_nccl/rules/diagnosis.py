"""Reason across ranks: derive findings no single line shows, then hand them to the one
root-cause ranker (hyperpod_nccl.root_cause) with what it needs to know about their
evidence: the roles of the lines that made them (cause, weak, symptom), each rule's own
`explained_by`, the order of events where it matters, and the first time and position.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from hyperpod_nccl import root_cause
from hyperpod_nccl.model import Basis, Finding, Priority, Status
from hyperpod_nccl.rules.analyzer import LogAnalysis
from hyperpod_nccl.rules.attribution import glog_clock, iso
from hyperpod_nccl.rules.catalog import Catalog
from hyperpod_nccl.rules.classifiers import INFERRING
from hyperpod_nccl.rules.facts import Facts
from hyperpod_nccl.rules.occurrences import FindingBuilder, Occurrence, time_key
from hyperpod_nccl.rules.titles import compose_title, format_hosts, format_ranks
from hyperpod_nccl.suggest.build import commands_for

# A version difference seen only in NCCL's banners is weaker evidence than a failing line: it
# outranks symptoms (timeouts, resets) but never a line that shows a cause, and with no
# failure at all it is only a warning.
VERSION_RULE = "derived-nccl-version-differs"
NETWORK_SYMPTOMS = ("NET_UNREACHABLE", "PEER_EXITED", "RENDEZVOUS_FAILURE", "NCCL_TIMEOUT")
_EC2_HOST = re.compile(r"^(?:ip-\d+-\d+-\d+-\d+|i-[0-9a-f]{8,17})")
_BAD_INTERFACE = re.compile(r"^(?:lo|docker\d*|virbr\d*|veth.*)$")
# Link-local addresses (IPv4 169.254.0.0/16, RFC 3927; IPv6 fe80::/10) are never routed off
# their link: an EKS Pod Identity agent's pod-id-link0, an instance metadata link.
_LINK_LOCAL = ("169.254.", "fe80")


def _unroutable(ifname: str, addr: str) -> bool:
    return bool(_BAD_INTERFACE.match(ifname)) or addr.lower().startswith(_LINK_LOCAL)


def _builder(builders: dict[str, FindingBuilder], catalog: Catalog, code: str) -> FindingBuilder:
    if code not in builders:
        builders[code] = FindingBuilder(catalog.codes[code])
    return builders[code]


def _per_process_versions(facts: Facts) -> dict[str, dict[str, Occurrence]]:
    """The NCCL versions by who printed them, leaving out anyone seen with two: one process
    loads one libnccl, so a rank (or process, or file) with two banners of different versions
    is output of several runs or jobs put together (a log appended over restarts, pastes
    joined, one rank's file among another job's), and says nothing about one communicator."""
    seen: dict[str, int] = {}
    for identities in facts.nccl_versions.values():
        for identity in identities:
            seen[identity] = seen.get(identity, 0) + 1
    kept = {
        version: {i: occ for i, occ in identities.items() if seen[i] == 1}
        for version, identities in facts.nccl_versions.items()
    }
    return {version: identities for version, identities in kept.items() if identities}


def _share_a_communicator(facts: Facts, versions: dict[str, dict[str, Occurrence]]) -> bool:
    """Whether processes of two versions are seen in one communicator: its processes all print
    its commId (NCCL 2.19+; since 2.23.4 NCCL refuses such a communicator itself, 'Mismatched
    NCCL version detected')."""
    owner: dict[str, str] = {}
    for version, identities in versions.items():
        for occ in identities.values():
            if occ.host is None or occ.pid is None:
                continue
            for name in facts.communicators.get((occ.host, occ.pid), set()):
                if name.startswith("id ") and owner.setdefault(name, version) != version:
                    return True
    return False


def _communicators_by_host(facts: Facts) -> dict[str, set[str]]:
    """What names the communicators each host's processes joined ('id <commId>', 'size <n>')."""
    by_host: dict[str, set[str]] = {}
    for (host, _pid), names in facts.communicators.items():
        by_host.setdefault(host, set()).update(names)
    return by_host


def _comparable(names: dict[str, set[str]]) -> dict[str, set[str]]:
    """The names to compare communicators by: commIds where every party printed one (NCCL
    2.19+), else sizes (two jobs' communicators may share a size by chance)."""
    with_ids = all(any(n.startswith("id ") for n in found) for found in names.values())
    kind = "id " if with_ids else "size "
    return {key: {n for n in found if n.startswith(kind)} for key, found in names.items()}


_DIGITS = re.compile(r"[0-9]+")


def _plugins_together(facts: Facts, plugins: dict[str, tuple[str, Occurrence]]) -> bool | None:
    """Whether hosts that load different net plugins are seen in one communicator (True), in
    separate ones only (False: every one of them named its communicators and no host of one
    plugin shares a name with a host of another), or unknown (None: they may be one job, or
    several jobs' logs side by side)."""
    by_host = _communicators_by_host(facts)
    named = _comparable({host: by_host[host] for host in plugins if by_host.get(host)})
    owner: dict[str, str] = {}
    for host, names in named.items():
        plugin = plugins[host][0]
        if any(owner.setdefault(name, plugin) != plugin for name in names):
            return True
    if len(named) == len(plugins):
        return False
    # Nothing shows the hosts in one communicator: names of one pattern (HGX-H100-04 and
    # HGX-H100-11) are read as one cluster's nodes, others as other jobs' logs side by side.
    families = {_DIGITS.sub("#", host) for host in plugins}
    return True if len(families) == 1 else None


def _derive_version_mismatch(
    facts: Facts, builders: dict[str, FindingBuilder], catalog: Catalog
) -> None:
    versions = _per_process_versions(facts)
    if len(versions) > 1:
        # Banners alone do not show the versions in one job: logs of several jobs, or a paste
        # of two runs, look the same. The difference is a FAIL where one communicator is seen
        # to hold both, else information beside whatever failed.
        linked = _share_a_communicator(facts, versions)
        builder = _builder(builders, catalog, "NCCL_VERSION_MISMATCH")
        groups = sorted(versions.items(), key=lambda kv: -len(kv[1]))
        summary = {v: sorted(ids)[:20] for v, ids in versions.items()}
        builder.details["nccl_versions"] = summary
        status = Status.FAIL if linked else Status.INFO
        for version, identities in groups:
            for occ in list(identities.values())[:3]:
                builder.add(occ, VERSION_RULE, "weak", status, {"nccl_version": version})
        where = "in one communicator" if linked else "across the processes of these logs"
        builder.title = f"NCCL versions differ {where}: " + ", ".join(
            f"{v} ({len(ids)} {'process' if len(ids) == 1 else 'processes'})" for v, ids in groups
        )
    # Only lines that name their host place a plugin on one (a bare line is only its file's).
    plugins = {h: v for h, v in facts.net_plugins.items() if v[1].host is not None}
    kinds = {kind for kind, _ in plugins.values()}
    if len(kinds) > 1:
        builder = _builder(builders, catalog, "NCCL_VERSION_MISMATCH")
        # A FAIL where one communicator is seen to span both; a warning where nothing says
        # whether the hosts are one job; information where they are seen apart.
        together = _plugins_together(facts, plugins)
        status = {True: Status.FAIL, None: Status.WARN, False: Status.INFO}[together]
        for _host, (kind, occ) in sorted(plugins.items()):
            builder.add(occ, "derived-net-plugin-differs", "cause", status, {"net_plugin": kind})
        builder.details["net_plugins"] = {h: k for h, (k, _) in sorted(plugins.items())}
        if builder.title is None:
            builder.title = "NCCL network plugin differs across hosts: " + "; ".join(
                f"{host}: {kind}" for host, (kind, _) in sorted(plugins.items())
            )


def _derive_efa_fallback(
    facts: Facts, builders: dict[str, FindingBuilder], catalog: Catalog
) -> None:
    socket_users = [(ident, occ) for ident, (net, occ) in facts.networks.items() if net == "Socket"]
    if not socket_users:
        return
    # The fallback is a fact about one host: the OFI plugin was tried there, then NCCL chose
    # sockets there. Sockets on a host that never tried OFI is another job's normal setup.
    fell_back = [
        (ident, occ)
        for ident, occ in socket_users
        if (occ.host or occ.identity) in facts.ofi_attempted
    ]
    socket_hosts = {occ.host for _, occ in socket_users if occ.host}
    if fell_back:
        builder = _builder(builders, catalog, "EFA_TCP_FALLBACK")
        for _, occ in fell_back[:4]:
            builder.add(occ, "derived-socket-after-ofi", "cause", Status.FAIL, {})
        hosts = sorted({occ.host or occ.identity for _, occ in fell_back})
        builder.title = (
            "NCCL fell back to TCP sockets ('Using network Socket') after trying the aws-ofi-nccl "
            f"plugin on {format_hosts(hosts)}"
        )
    elif len(socket_hosts) > 1 and all(_EC2_HOST.match(h) for h in socket_hosts):
        builder = _builder(builders, catalog, "EFA_TCP_FALLBACK")
        for _, occ in socket_users[:4]:
            builder.add(occ, "derived-socket-between-ec2", "symptom", Status.WARN, {})
        builder.title = (
            "NCCL uses TCP sockets between EC2 hosts; on EFA instances EFA is not in use"
        )


def _derive_plugin_absent_for_efa(
    facts: Facts, builders: dict[str, FindingBuilder], catalog: Catalog
) -> None:
    """The job asked libfabric for EFA (FI_PROVIDER=efa) where NCCL's plugin loader found no
    net plugin (libnccl-net.so): aws-ofi-nccl never loaded, so NCCL uses its own transports.
    Read per host where the lines carry one (an environment dump seldom does)."""
    if "EFA_TCP_FALLBACK" in builders or not facts.efa_requested:
        return
    requested_hosts = {occ.host for occ in facts.efa_requested.values()}
    # A process that tried the OFI plugin is the other derivation's (sockets after OFI).
    absent = [
        occ
        for kind, occ in facts.net_plugins.values()
        if kind == "internal"
        and (occ.host or occ.identity) not in facts.ofi_attempted
        and (occ.host is None or None in requested_hosts or occ.host in requested_hosts)
    ]
    if not absent:
        return
    builder = _builder(builders, catalog, "EFA_TCP_FALLBACK")
    for occ in absent[:4]:
        builder.add(occ, "derived-no-plugin-for-efa", "cause", Status.FAIL, {})
    builder.title = (
        "the job asks for EFA (FI_PROVIDER=efa) but NCCL found no net plugin (libnccl-net.so):"
        " aws-ofi-nccl is not loaded, so NCCL does not use EFA"
    )


def _settle_single_node_fallback(facts: Facts, builders: dict[str, FindingBuilder]) -> None:
    """Every communicator NCCL described spans one node (nNodes 1): its ranks exchange data
    over P2P, SHM or NVLink and no network transport is used, so the OFI plugin failing to
    start (a single EFA-less node, a container without /dev/infiniband) costs nothing here.
    A warning for when the job spans nodes, not the failure. Read per host: each host the
    fallback was seen on says nNodes 1 and no communicator anywhere spans more (logs of
    several jobs pasted together must not lend one job's single node to another).
    """
    builder = builders.get("EFA_TCP_FALLBACK")
    if builder is None or builder.status is not Status.FAIL or not builder.hosts:
        return
    counts = facts.node_counts
    if any(counts.get(host) != {1} and not _whole_on_host(facts, host) for host in builder.hosts):
        return
    if any(n > 1 for seen in counts.values() for n in seen):
        return
    builder.status = Status.WARN
    builder.title = (
        (builder.title or "the aws-ofi-nccl plugin did not start; NCCL uses TCP sockets")
        + " (every communicator is on one node, nNodes 1: no traffic crosses the network here;"
        " it will once the job spans nodes)"
    )


def _whole_on_host(facts: Facts, host: str) -> bool:
    """NCCL releases before nNodes was printed: every rank of the host's communicators was
    seen on this host (its processes' ranks cover the communicator's size) and no host shares
    a communicator with another (_multi_node_hosts), so the job is this one node."""
    names = _communicators_by_host(facts).get(host, set())
    sizes = [int(n.split()[1]) for n in names if n.startswith("size ")]
    if not sizes or host in _multi_node_hosts(facts):
        return False
    ranks = {rank for (h, _pid, _dev), rank in facts.comm_ranks.items() if h == host}
    return len(ranks) >= max(sizes)


def _derive_socket_ifname(
    facts: Facts, builders: dict[str, FindingBuilder], catalog: Catalog
) -> None:
    # A host whose every communicator NCCL described as one node (nNodes 1) sends nothing
    # across the network: loopback or a bridge is right there (a single-node job's log among
    # a multi-node one's).
    bad = [
        (host, ifname, addr, occ)
        for (host, ifname, addr), occ in facts.interfaces.items()
        if _unroutable(ifname, addr) and facts.node_counts.get(host) != {1}
    ]
    if not bad:
        return
    # Such an interface matters where traffic between nodes failed, or where NCCL shows the
    # host in a communicator that spans nodes; hosts seen together may be several jobs' logs.
    multi_node = _multi_node_hosts(facts)
    bad = [b for b in bad if b[0] in multi_node or _in_trouble(facts, builders, b[0], b[2], b[3])]
    if not bad:
        _derive_mixed_interfaces(facts, builders, catalog)
        return
    builder = _builder(builders, catalog, "SOCKET_IFNAME")
    for _, _, _, occ in bad[:4]:
        builder.add(occ, "derived-bad-interface", "cause", Status.FAIL, {})
    chosen = sorted({f"{ifname}:{addr}" for _, ifname, addr, _ in bad})
    builder.title = (
        "NCCL picked interfaces that cannot reach other nodes (" + ", ".join(chosen[:4]) + "); "
        "set NCCL_SOCKET_IFNAME"
    )


_LOOPBACK_PEER = re.compile(r"\b(?:localhost|127\.0\.0\.1|\[?::1\]?)<[0-9]+>")


def _in_trouble(
    facts: Facts, builders: dict[str, FindingBuilder], host: str, addr: str, occ: Occurrence
) -> bool:
    """Traffic between nodes failed where this interface is: on its host, or aimed at its
    address; where the failures name no host, only in a file that shows such a failure (a
    healthy single-host log beside the failing one is another job's, or a job on one node
    where loopback is right) and when the interfaces are one host's or NCCL listed this one
    beside a routable interface (a host set up to talk to other nodes)."""
    trouble = [builders[code] for code in NETWORK_SYMPTOMS if code in builders]
    if not trouble:
        return False
    # A failure whose peer is this host's own loopback address (NCCL's 'closed by remote peer
    # localhost<port>') went over the loopback interface, which reached it.
    if all(_LOOPBACK_PEER.search(o.text) for b in trouble for o in b.evidence):
        return False
    hosts = {h for b in trouble for h in b.hosts}
    if host in hosts:
        return True
    bare = addr.split("%")[0]
    if bare and any(bare in o.text for b in trouble for o in b.evidence):
        return True
    if hosts:
        return False
    if occ.source not in {o.source for b in trouble for o in b.evidence}:
        return False
    listed = facts.interface_lists.get(host)
    beside_routable = listed is not None and any(not _unroutable(n, a) for n, a in listed[0])
    return beside_routable or len({key[0] for key in facts.interfaces}) == 1


def _multi_node_hosts(facts: Facts) -> set[str]:
    """Hosts NCCL shows in a communicator of several nodes: one it described with nNodes > 1,
    or one whose communicator a process on another host named too (_comparable)."""
    hosts = {h for h, counts in facts.node_counts.items() if any(n > 1 for n in counts)}
    first_host: dict[str, str] = {}
    for host, names in _comparable(_communicators_by_host(facts)).items():
        for name in names:
            other = first_host.setdefault(name, host)
            if other != host:
                hosts |= {host, other}
    return hosts


def _derive_mixed_interfaces(
    facts: Facts, builders: dict[str, FindingBuilder], catalog: Catalog
) -> None:
    """One host's NCCL lists a routable interface and a virtual or link-local one together:
    each listed interface is a device NCCL may send a channel through, and the virtual one
    reaches no other node. Seen from one host the job may still be single-node, so a WARN."""
    for listed, occ in facts.interface_lists.values():
        virtual = [f"{n}:{a}" for n, a in listed if _unroutable(n, a)]
        if virtual and len(virtual) < len(listed):
            builder = _builder(builders, catalog, "SOCKET_IFNAME")
            builder.add(occ, "derived-mixed-interfaces", "cause", Status.WARN, {})
            builder.title = (
                "NCCL uses a virtual or link-local interface (" + ", ".join(virtual[:3]) + ") "
                "beside a routable one; channels through it reach no other node: set "
                "NCCL_SOCKET_IFNAME to the routable interface"
            )
            return


_IP_LITERAL = re.compile(r"^(?:\d{1,3}(?:\.\d{1,3}){3}|\[?[0-9a-fA-F:]+\]?)$")


def _peer_names(builder: FindingBuilder) -> set[str]:
    """Host names a connect failure was aimed at: `(host, port)`, `host:port` or `host`."""
    names = set()
    for key, values in builder.captures.items():
        if not key.startswith(("peer", "master")):
            continue
        for value in values:
            value = value.strip().strip("()")
            name = value.split(",")[0].strip()
            if ":" in name and name.count(":") == 1:
                name = name.split(":")[0]
            names.add(name)
    return names


def _derive_unresolved_master(
    facts: Facts, builders: dict[str, FindingBuilder], catalog: Catalog
) -> None:
    """c10d warns that a name has no IPv6 address; harmless while IPv4 works. When connecting to
    that same name then fails, the name resolved to nothing: a DNS problem, not a network one."""
    if not facts.ipv6_unresolved:
        return
    targets: set[str] = set()
    for code in ("NET_UNREACHABLE", "RENDEZVOUS_FAILURE"):
        if code in builders:
            targets |= _peer_names(builders[code])
    unresolved = sorted(
        name
        for name in targets & set(facts.ipv6_unresolved)
        if name and name != "localhost" and not _IP_LITERAL.match(name)
    )
    if not unresolved:
        return
    builder = _builder(builders, catalog, "MASTER_ADDR_DNS")
    for name in unresolved[:4]:
        builder.add(
            facts.ipv6_unresolved[name],
            "derived-name-never-resolved",
            "cause",
            Status.FAIL,
            {"master": name},
        )
    builder.title = (
        f"the address {', '.join(repr(n) for n in unresolved[:4])} did not resolve: c10d found no "
        "address for it and every connect to it timed out"
    )


def _derive_nvls_stall(
    analysis: LogAnalysis, builders: dict[str, FindingBuilder], catalog: Catalog
) -> None:
    stalled = analysis.stalled_nvls()
    if not stalled:
        return
    builder = _builder(builders, catalog, "NCCL_TOPOLOGY")
    for occ in stalled[:6]:
        builder.add(occ, "derived-nvls-stall", "weak", Status.FAIL, {})
    if builder.title is None:
        builder.title = (
            "NCCL initialisation stopped during NVLS (NVLink SHARP) setup and never completed"
        )


FOREIGN_CLOSE_RULE = "nccl-socket-closed-by-peer"
TEARDOWN_RULE = "nccl-proxy-recv-failed"


def _peer_exit_only_by(builders: dict[str, FindingBuilder], rule: str) -> FindingBuilder | None:
    """PEER_EXITED when that rule alone makes it and nothing else failed: the one finding a
    reading of that rule's lines in context may settle as a warning."""
    builder = builders.get("PEER_EXITED")
    if builder is None or set(builder.contributions) != {rule}:
        return None
    if any(b.status is Status.FAIL for c, b in builders.items() if c != builder.code):
        return None
    return builder


def _settle_foreign_connections(facts: Facts, builders: dict[str, FindingBuilder]) -> None:
    """NCCL also says 'Connection closed by remote peer' when a connection to its listening
    port closes during the accept handshake: one that never was a peer (its other report of
    such connections, a wrong magic, is the sign; NCCL 2.30 says 'closed before magic
    handshake, discarding' instead). Where those closes are all PEER_EXITED rests on, on hosts
    that saw foreign connections, and nothing else failed, no peer went away: a warning."""
    builder = _peer_exit_only_by(builders, FOREIGN_CLOSE_RULE)
    # Lines with no host name settle nothing: an empty set is a subset of every other.
    if builder is None or not builder.hosts or not facts.foreign_connections:
        return
    if not set(builder.hosts) <= set(facts.foreign_connections):
        return
    builder.status = Status.WARN
    builder.title = (
        "connections to NCCL's port that were no NCCL peer (a wrong magic) closed during the "
        "accept handshake on " + format_hosts(sorted(builder.hosts)) + "; NCCL drops them"
    )


def _settle_teardown_closes(facts: Facts, builders: dict[str, FindingBuilder]) -> None:
    """A proxy whose local rank's socket failed right after that rank sent Close (its
    teardown) saw the rank exit once its work was done. Where those are all PEER_EXITED rests
    on, in the processes that logged the Close, and nothing else failed: a warning."""
    builder = _peer_exit_only_by(builders, TEARDOWN_RULE)
    processes = {(host, pid) for host, pid, _dev in builder.processes} if builder else set()
    if builder is None or not processes or not processes <= set(facts.closed_proxies):
        return
    builder.status = Status.WARN
    builder.title = (
        "NCCL's proxy lost local ranks' sockets after they sent Close (their teardown) on "
        + format_hosts(sorted(builder.hosts))
        + "; if the job had finished its work, this is its exit"
    )


BARRIER_WAIT_RULE = "c10d-store-barrier-waiting"


def _settle_completed_barriers(facts: Facts, builders: dict[str, FindingBuilder]) -> None:
    """c10d's store barrier waits that the log also shows completed (every rank checked in
    after all) were slow ranks arriving, not a rendezvous that failed: context."""
    builder = builders.get("RENDEZVOUS_FAILURE")
    if builder is None or set(builder.contributions) != {BARRIER_WAIT_RULE}:
        return
    waited = set(builder.captures.get("barrier_key", []))
    if waited and waited <= facts.barriers_completed:
        builder.status = Status.INFO
        builder.title = "c10d's store-based barrier waited for ranks, then completed"


UNRAISABLE_RULES = frozenset({"python-exception", "python-exception-ignored"})


def _settle_ignored_exceptions(facts: Facts, builders: dict[str, FindingBuilder]) -> None:
    """Exception lines that CPython's 'Exception ignored in:' headers account for: where a
    log's lines were split over files (or cut), a header and its exception line may stand
    apart. When APP_EXCEPTION rests only on exception lines, and there are no more of those
    than headers left without theirs, they are the ignored exceptions: a warning."""
    builder = builders.get("APP_EXCEPTION")
    if builder is None or builder.status is not Status.FAIL:
        return
    if not set(builder.contributions) <= UNRAISABLE_RULES:
        return
    unpaired_headers = facts.unraisable_headers - facts.unraisable_paired
    if 0 < facts.unpaired_exceptions <= unpaired_headers:
        builder.status = Status.WARN
        builder.title = "exceptions that CPython ignored and printed ('Exception ignored in:')"


def _settle_weak_version_mismatch(builders: dict[str, FindingBuilder]) -> None:
    """Banner-only version differences with no failure anywhere are a warning, not a FAIL."""
    builder = builders.get("NCCL_VERSION_MISMATCH")
    if builder is None or set(builder.contributions) != {VERSION_RULE}:
        return
    others_fail = any(b.status is Status.FAIL for c, b in builders.items() if c != builder.code)
    if builder.status is Status.FAIL and not others_fail:
        builder.status = Status.WARN


UNCLASSIFIED = "UNCLASSIFIED_FAILURE"


def _inferred(builder: FindingBuilder, catalog: Catalog) -> bool:
    """Made only by generic failure lines whose words named the code (rules/topics.py)."""
    return builder.code != UNCLASSIFIED and all(
        _infers(catalog, rule_id, builder.code) for rule_id in builder.contributions
    )


def _infers(catalog: Catalog, rule_id: str, code: str) -> bool:
    try:
        shape_codes = INFERRING.get(catalog.rule(rule_id).classify or "")
    except KeyError:  # derived evidence
        return False
    return shape_codes is not None and code not in shape_codes


def _explained_by(builder: FindingBuilder, codes: set[str], catalog: Catalog) -> bool:
    """One of `codes` explains the finding: in the registry's graph, or at the level of every
    rule that made it (the rules' explained_by)."""
    if not codes:
        return False
    if any(builder.code in catalog.registry[code].explains for code in codes):
        return True
    return all(explainers & codes for explainers in _rule_explainers(builder, catalog))


def _settle_generic(builders: dict[str, FindingBuilder], catalog: Catalog) -> None:
    """Generic failure lines, read only from their words: with a classified failure present
    they are context (INFO); else a code their words name (rules/topics.py) is the failure,
    and failure lines that name none make the unclassified finding, whose title names the
    earliest of them across ranks."""
    inferred = {code for code, b in builders.items() if _inferred(b, catalog)}
    named = {code for code in inferred if builders[code].status is Status.FAIL}
    # A classified failure that an inferred code explains (a process aborted, or a collective
    # timed out, after a line that names a CUDA failure) leaves it the cause.
    classified_fail = any(
        b.status is Status.FAIL and not _explained_by(b, named, catalog)
        for code, b in builders.items()
        if code not in inferred and code != UNCLASSIFIED
    )
    for code in inferred:
        builder = builders[code]
        if classified_fail:
            builder.status = Status.INFO
        builder.details["inferred"] = True
        _title_from_first_line(builder, "inferred from the words of a failure line no rule reads")
    unclassified = builders.get(UNCLASSIFIED)
    if unclassified is None:
        return
    # A classified failure makes the unclassified lines context, unless they explain it (an
    # exit status 1 after pyxis could not start the container); and launchers' exit reports
    # alone yield to any classified failure.
    others = {c for c, b in builders.items() if c != UNCLASSIFIED and b.status is Status.FAIL}
    unexplained = {c for c in others if not _explained_by(builders[c], {UNCLASSIFIED}, catalog)}
    if unexplained or _explained_by(unclassified, others, catalog):
        unclassified.status = Status.INFO
    _title_from_first_line(unclassified, "a failure no rule classifies")


def _title_from_first_line(builder: FindingBuilder, what: str) -> None:
    first = builder.first_occurrence()
    if first is None or builder.title is not None:
        return
    where = format_ranks([first.rank]) if first.rank is not None else ""
    if first.host:
        where = f"{where} on {first.host}" if where else f"on {first.host}"
    builder.title = what + (f", first {where}" if where else "") + f": {first.text.strip()[:200]}"


def _map_process_ranks(builders: Iterable[FindingBuilder], facts: Facts) -> None:
    """Fill in ranks and hosts from what NCCL's communicator lines tell: a line with NCCL's
    host:pid:tid [dev] prefix, or a kernel line naming a pid on a host, belongs to the rank that
    process initialised; a rank's host is where its communicator lived."""
    if not facts.comm_ranks:
        return
    by_pid: dict[tuple[str, int], int] = {}
    host_of: dict[int, str] = {}
    for (comm_host, comm_pid, _device), comm_rank in facts.comm_ranks.items():
        by_pid.setdefault((comm_host, comm_pid), comm_rank)
        host_of.setdefault(comm_rank, comm_host)
    for builder in builders:
        for process in builder.processes:
            found = facts.comm_ranks.get(process)
            if found is not None:
                builder.ranks.add(found)
        for pid_text in builder.captures.get("pid", []):
            for host in list(builder.hosts):
                found = by_pid.get((host, int(pid_text))) if pid_text.isdigit() else None
                if found is not None:
                    builder.ranks.add(found)
        if not builder.hosts:
            builder.hosts |= {host_of[r] for r in builder.ranks if r in host_of}
        if builder.ranks and not builder.processes:
            builder.processes |= {p for p, r in facts.comm_ranks.items() if r in builder.ranks}


def _rule_explainers(builder: FindingBuilder, catalog: Catalog) -> tuple[frozenset[str], ...]:
    """Per contributing rule, the codes that explain its evidence when present."""
    explainers = []
    for rule_id in builder.contributions:
        try:
            explainers.append(frozenset(catalog.rule(rule_id).explained_by))
        except KeyError:  # derived evidence: no rule of the catalog, nothing explains it away
            explainers.append(frozenset())
    return tuple(explainers) or (frozenset(),)


def _glog_start(builder: FindingBuilder) -> float | None:
    clocks = [c for o in builder.occurrences() if (c := glog_clock(o.text)) is not None]
    return min(clocks, default=None)


def _later_than(cause: FindingBuilder, effect: FindingBuilder) -> bool:
    """True when `cause` was seen more than a second before `effect`: by timestamps when both
    have one, else by the year-less glog clocks PyTorch's C++ lines carry."""
    first, then = cause.first_occurrence(), effect.first_occurrence()
    first_time = time_key(first.timestamp) if first else None
    then_time = time_key(then.timestamp) if then else None
    if first_time is not None and then_time is not None:
        return (then_time - first_time).total_seconds() > 1
    first_clock, then_clock = _glog_start(cause), _glog_start(effect)
    if first_clock is None or then_clock is None:
        return False
    return then_clock - first_clock > 1


# Explanations that depend on the order of events, not on the codes alone: a watchdog that
# reports itself stuck after a collective already timed out got stuck aborting that
# collective (the heartbeat monitor fires minutes after the timeout), so the timeout is the
# earlier failure. A heartbeat alarm with no earlier timeout keeps its own rank.
_ORDER_EXPLAINS = {"WATCHDOG_HANG": ("NCCL_TIMEOUT",)}


def _follows(builder: FindingBuilder, builders: dict[str, FindingBuilder]) -> frozenset[str]:
    earlier = []
    for cause in _ORDER_EXPLAINS.get(builder.code, ()):
        other = builders.get(cause)
        if other is not None and other.status is Status.FAIL and _later_than(other, builder):
            earlier.append(cause)
    return frozenset(earlier)


def _basis(builder: FindingBuilder, builders: dict[str, FindingBuilder], catalog: Catalog) -> Basis:
    first = builder.first_occurrence()
    return Basis(
        roles=frozenset(builder.roles) or frozenset({"symptom"}),
        rule_explainers=_rule_explainers(builder, catalog),
        follows=_follows(builder, builders),
        order=builder.first.order if builder.first else 0,
        time=time_key(first.timestamp) if first else None,
    )


def _stalled_ranks(facts: Facts) -> Finding | None:
    """From watchdog lines: the collective ranks timed out in, and the ranks that never got
    there (they enqueued fewer collectives, or printed no timeout at all)."""
    timed_out = {r: p for r, p in facts.progress.items() if p.timed_out_seq is not None}
    if not timed_out:
        return None
    target_seq = max(p.timed_out_seq for p in timed_out.values() if p.timed_out_seq is not None)
    op = next((p.op for p in timed_out.values() if p.timed_out_seq == target_seq and p.op), None)
    behind = sorted(
        r
        for r, p in timed_out.items()
        if (p.last_enqueued is not None and p.last_enqueued < target_seq)
        or (p.timed_out_seq is not None and p.timed_out_seq < target_seq)
    )
    silent: list[int] = []
    if facts.world_size and len(timed_out) < facts.world_size:
        silent = sorted(set(range(facts.world_size)) - set(timed_out))
    suspects = sorted(set(behind) | set(silent))
    behind_set = set(behind)
    waiting = sorted(r for r in timed_out if r not in behind_set)
    op_text = f"{op} " if op else ""
    if suspects:
        title = (
            f"{format_ranks(suspects)} did not reach collective {op_text}SeqNum {target_seq}, "
            f"which {format_ranks(waiting)} timed out waiting in"
        )
        status = Status.WARN
    else:
        title = (
            f"{format_ranks(waiting)} timed out in the same collective {op_text}SeqNum "
            f"{target_seq}; no rank in these logs fell behind (look for ranks whose logs are "
            "missing)"
        )
        status = Status.INFO
    evidence = [p.occurrence.evidence() for p in timed_out.values() if p.occurrence][:6]
    return Finding(
        code="STALLED_RANKS",
        status=status,
        priority=Priority.P1,
        title=title,
        reference="debugging-guide.md#stalled-ranks",
        ranks=suspects,
        hosts=sorted(
            {host for (host, _pid, _dev), rank in facts.comm_ranks.items() if rank in suspects}
        ),
        evidence=evidence,
        details={
            "seq": target_seq,
            "op": op,
            "timed_out_ranks": sorted(timed_out),
            "behind_ranks": behind,
            "silent_ranks": silent,
            "world_size": facts.world_size,
            "first_to_time_out": sorted(facts.timeout_origins),
        },
    )


def add_external_findings(analysis: LogAnalysis, findings: list[Finding], catalog: Catalog) -> None:
    """Fold findings made by another analysis of the same inputs (per-rank progress) into the
    builders, so they take part in the root-cause ranking like any log line."""
    for finding in findings:
        if finding.code not in catalog.codes:
            continue
        builder = _builder(analysis.builders, catalog, finding.code)
        for index, evidence in enumerate(finding.evidence):
            source, _, line = evidence.source.rpartition(":")
            occurrence = Occurrence(
                source=source or evidence.source,
                line_no=int(line) if line.isdigit() else 0,
                text=evidence.text,
                order=(1 << 50) + index,
                rank=finding.ranks[0] if len(finding.ranks) == 1 else None,
                host=finding.hosts[0] if len(finding.hosts) == 1 else None,
            )
            builder.add(occurrence, "derived-progress", "cause", finding.status, {})
        builder.ranks |= set(finding.ranks)
        builder.hosts |= set(finding.hosts)
        builder.title = builder.title or finding.title
        builder.details.update(finding.details)


def diagnose(analysis: LogAnalysis, catalog: Catalog) -> list[Finding]:
    builders = dict(analysis.builders)
    facts = analysis.facts
    _derive_version_mismatch(facts, builders, catalog)
    _derive_efa_fallback(facts, builders, catalog)
    _derive_plugin_absent_for_efa(facts, builders, catalog)
    _derive_socket_ifname(facts, builders, catalog)
    _derive_nvls_stall(analysis, builders, catalog)
    _derive_unresolved_master(facts, builders, catalog)
    _settle_weak_version_mismatch(builders)
    _settle_completed_barriers(facts, builders)
    _settle_ignored_exceptions(facts, builders)
    _settle_foreign_connections(facts, builders)
    _settle_teardown_closes(facts, builders)
    _settle_single_node_fallback(facts, builders)
    _settle_generic(builders, catalog)
    _map_process_ranks(builders.values(), facts)
    findings: list[Finding] = []
    for code, builder in builders.items():
        first = builder.first_occurrence()
        finding = Finding(
            code=code,
            status=builder.status,
            priority=builder.info.priority,
            title=builder.title or compose_title(builder, facts),
            reference=builder.info.reference,
            ranks=sorted(builder.ranks),
            hosts=sorted(builder.hosts),
            first_seen=_iso(first),
            evidence=[o.evidence() for o in _ordered_evidence(builder)],
            count=builder.count,
            details=dict(builder.details),
            basis=_basis(builder, builders, catalog),
        )
        if finding.status is Status.FAIL:
            processes = sorted({(host, pid) for host, pid, _dev in builder.processes})
            finding.suggested_commands = commands_for(
                finding, catalog.registry[finding.code], processes
            )
        findings.append(finding)
    stalled = _stalled_ranks(facts)
    if stalled is not None:
        findings.append(stalled)
    return root_cause.rank(findings, catalog.registry)


def _ordered_evidence(builder: FindingBuilder) -> list[Occurrence]:
    return sorted(builder.evidence, key=lambda o: o.order)


def _iso(occ: Occurrence | None) -> str | None:
    return iso(occ.timestamp) if occ else None
