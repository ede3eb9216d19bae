"""Facts gathered from context lines, for reasoning across ranks once every input is read.

Each store is bounded: it keeps per-rank or per-process state (one entry per rank), never
one entry per line.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hyperpod_nccl.rules.occurrences import Occurrence

MAX_IDENTITIES = 65536


@dataclass
class RankProgress:
    """What the watchdog said about one rank's collectives."""

    rank: int
    timed_out_seq: int | None = None
    op: str | None = None
    timeout_ms: int | None = None
    last_enqueued: int | None = None
    last_completed: int | None = None
    occurrence: Occurrence | None = None


@dataclass
class Facts:
    nccl_versions: dict[str, dict[str, Occurrence]] = field(default_factory=dict)
    networks: dict[str, tuple[str, Occurrence]] = field(default_factory=dict)
    ofi_attempted: dict[str, Occurrence] = field(default_factory=dict)
    net_plugins: dict[str, tuple[str, Occurrence]] = field(default_factory=dict)
    # host (or source) -> a line asking libfabric for its EFA provider (FI_PROVIDER=efa)
    efa_requested: dict[str, Occurrence] = field(default_factory=dict)
    interfaces: dict[tuple[str, str, str], Occurrence] = field(default_factory=dict)
    # host -> the interfaces of one NCCL "Using [0].. [1].." line that listed several
    interface_lists: dict[str, tuple[tuple[tuple[str, str], ...], Occurrence]] = field(
        default_factory=dict
    )
    comm_ranks: dict[tuple[str, int, int], int] = field(default_factory=dict)
    # (host, pid) -> what names the communicators that process joined: 'id <commId>' (NCCL
    # 2.19+) and 'size <nranks>'
    communicators: dict[tuple[str, int], set[str]] = field(default_factory=dict)
    world_size: int | None = None
    # host -> nNodes of each communicator NCCL described there ('comm 0x.. nRanks n nNodes k').
    node_counts: dict[str, set[int]] = field(default_factory=dict)
    init_complete: dict[tuple[str, str, int, int], int] = field(default_factory=dict)
    nvls: dict[tuple[str, str, int, int], Occurrence] = field(default_factory=dict)
    timeout_origins: set[int] = field(default_factory=set)
    progress: dict[int, RankProgress] = field(default_factory=dict)
    hosts: set[str] = field(default_factory=set)
    ipv6_unresolved: dict[str, Occurrence] = field(default_factory=dict)
    # host -> NCCL's first report there of a connection to its port that was no NCCL peer
    foreign_connections: dict[str, Occurrence] = field(default_factory=dict)
    # (host, pid) of processes whose proxy saw a rank's socket end after its Close (teardown)
    closed_proxies: dict[tuple[str, int], Occurrence] = field(default_factory=dict)
    progress_sources: set[str] = field(default_factory=set)
    # keys of c10d store-based barriers some rank reported completed
    barriers_completed: set[str] = field(default_factory=set)
    # CPython's 'Exception ignored in:' headers, those paired with the exception line below
    # them in the same input, and exception lines (APP_EXCEPTION) paired with none
    unraisable_headers: int = 0
    unraisable_paired: int = 0
    unpaired_exceptions: int = 0

    def record(self, kind: str, captures: dict[str, str], occ: Occurrence) -> None:
        if occ.host is not None and len(self.hosts) < MAX_IDENTITIES:
            self.hosts.add(occ.host)
        handler = getattr(self, f"_record_{kind}", None)
        if handler is not None:
            handler(captures, occ)

    def _record_nccl_version(self, captures: dict[str, str], occ: Occurrence) -> None:
        # Only NCCL's own init banner ("NCCL version 2.21.5+cuda12.4") counts: a version quoted
        # inside a PyTorch error is the same process's version said again, and comparing it
        # with banners from other logs pasted together would invent a mismatch.
        version = captures.get("nccl_version")
        if not version or not captures.get("nccl_banner"):
            return
        by_identity = self.nccl_versions.setdefault(version, {})
        if len(by_identity) < MAX_IDENTITIES:
            by_identity.setdefault(occ.identity, occ)

    def _record_nccl_network(self, captures: dict[str, str], occ: Occurrence) -> None:
        network = (captures.get("network") or "").strip()
        if network and len(self.networks) < MAX_IDENTITIES:
            self.networks[occ.identity] = (network, occ)

    def _record_ofi_attempted(self, captures: dict[str, str], occ: Occurrence) -> None:
        key = occ.host or occ.identity
        if len(self.ofi_attempted) < MAX_IDENTITIES:
            self.ofi_attempted.setdefault(key, occ)

    def _record_nccl_net_plugin(self, captures: dict[str, str], occ: Occurrence) -> None:
        if captures.get("plugin_absent"):
            kind = "internal"
        else:
            kind = captures.get("plugin_path") or captures.get("plugin_name") or "unknown"
        key = occ.host or occ.identity
        if len(self.net_plugins) < MAX_IDENTITIES:
            self.net_plugins.setdefault(key, (kind, occ))

    def _record_efa_requested(self, captures: dict[str, str], occ: Occurrence) -> None:
        key = occ.host or occ.source
        if len(self.efa_requested) < MAX_IDENTITIES:
            self.efa_requested.setdefault(key, occ)

    def _record_c10d_barrier_completed(self, captures: dict[str, str], occ: Occurrence) -> None:
        key = captures.get("barrier_key")
        if key and len(self.barriers_completed) < MAX_IDENTITIES:
            self.barriers_completed.add(key.rstrip("."))

    def _record_nccl_interface(self, captures: dict[str, str], occ: Occurrence) -> None:
        listed = [
            (captures.get(f"ifname{n}", ""), captures.get(f"addr{n}", "")) for n in ("", "2", "3")
        ]
        listed = [(name, addr) for name, addr in listed if name]
        for name, addr in listed:
            key = (occ.host or occ.source, name, addr)
            if len(self.interfaces) < MAX_IDENTITIES:
                self.interfaces.setdefault(key, occ)
        if len(listed) > 1 and len(self.interface_lists) < MAX_IDENTITIES:
            self.interface_lists.setdefault(occ.host or occ.source, (tuple(listed), occ))

    def _record_communicator(self, captures: dict[str, str], occ: Occurrence) -> None:
        if occ.host is None or occ.pid is None:
            return
        names = [f"size {captures['nranks']}"] if captures.get("nranks") else []
        if captures.get("comm_id"):
            names.append(f"id {captures['comm_id']}")
        if names and len(self.communicators) < MAX_IDENTITIES:
            known = self.communicators.setdefault((occ.host, occ.pid), set())
            if len(known) < 64:
                known.update(names)

    def _record_nccl_comm_rank(self, captures: dict[str, str], occ: Occurrence) -> None:
        self._record_communicator(captures, occ)
        nranks = int(captures.get("nranks") or 0)
        if nranks:
            self.world_size = max(self.world_size or 0, nranks)
        if occ.process is not None and len(self.comm_ranks) < MAX_IDENTITIES:
            self.comm_ranks.setdefault(occ.process, int(captures["rank"]))

    def _record_nccl_comm_nodes(self, captures: dict[str, str], occ: Occurrence) -> None:
        self._record_communicator(captures, occ)
        nodes = captures.get("nnodes", "")
        if nodes.isdigit() and occ.host and len(self.node_counts) < MAX_IDENTITIES:
            self.node_counts.setdefault(occ.host, set()).add(int(nodes))

    def _record_nccl_init_complete(self, captures: dict[str, str], occ: Occurrence) -> None:
        if occ.process is not None:
            key = (occ.source, *occ.process)
            self.init_complete[key] = occ.line_no

    def _record_nccl_nvls(self, captures: dict[str, str], occ: Occurrence) -> None:
        if occ.process is not None:
            key = (occ.source, *occ.process)
            self.nvls[key] = occ

    def _record_ipv6_unresolved(self, captures: dict[str, str], occ: Occurrence) -> None:
        name = captures.get("peer_host", "").strip()
        if name and len(self.ipv6_unresolved) < MAX_IDENTITIES:
            self.ipv6_unresolved.setdefault(name, occ)

    def _record_nccl_foreign_connection(self, captures: dict[str, str], occ: Occurrence) -> None:
        key = occ.host or occ.source
        if len(self.foreign_connections) < MAX_IDENTITIES:
            self.foreign_connections.setdefault(key, occ)

    def _record_nccl_proxy_after_close(self, captures: dict[str, str], occ: Occurrence) -> None:
        if occ.host is None or occ.pid is None or len(self.closed_proxies) >= MAX_IDENTITIES:
            return
        self.closed_proxies.setdefault((occ.host, occ.pid), occ)

    def _record_progress_evidence(self, captures: dict[str, str], occ: Occurrence) -> None:
        self.progress_sources.add(occ.source)

    def _record_timeout_origin(self, captures: dict[str, str], occ: Occurrence) -> None:
        origin = captures.get("origin_rank")
        if origin is not None:
            self.timeout_origins.add(int(origin))
        elif occ.rank is not None:
            self.timeout_origins.add(occ.rank)

    def record_progress(self, rank: int, captures: dict[str, str], occ: Occurrence) -> None:
        """From a watchdog timeout line: which collective a rank was stuck in."""
        progress = self.progress.setdefault(rank, RankProgress(rank))
        if "seq" in captures:
            progress.timed_out_seq = int(captures["seq"])
        if "op" in captures:
            progress.op = captures["op"]
        if "timeout_ms" in captures:
            progress.timeout_ms = int(captures["timeout_ms"])
        if "last_enqueued" in captures:
            progress.last_enqueued = int(captures["last_enqueued"])
        if "last_completed" in captures:
            progress.last_completed = int(captures["last_completed"])
        if progress.occurrence is None:
            progress.occurrence = occ

    def merge(self, later: Facts) -> None:
        """Fold in the facts of a scan of later input: first sightings stay first, the
        latest progress and init completion win."""
        for version, identities in later.nccl_versions.items():
            known = self.nccl_versions.setdefault(version, {})
            for identity, occ in identities.items():
                known.setdefault(identity, occ)
        for name in (
            "networks",
            "ofi_attempted",
            "net_plugins",
            "efa_requested",
            "interfaces",
            "interface_lists",
            "comm_ranks",
            "ipv6_unresolved",
            "foreign_connections",
            "closed_proxies",
        ):
            mine_map = getattr(self, name)
            for key, value in getattr(later, name).items():
                mine_map.setdefault(key, value)
        for process, names in later.communicators.items():
            self.communicators.setdefault(process, set()).update(names)
        for key, line in later.init_complete.items():
            self.init_complete[key] = max(line, self.init_complete.get(key, 0))
        self.nvls.update(later.nvls)
        self.timeout_origins |= later.timeout_origins
        for host, counts in later.node_counts.items():
            self.node_counts.setdefault(host, set()).update(counts)
        self.progress_sources |= later.progress_sources
        self.barriers_completed |= later.barriers_completed
        self.unraisable_headers += later.unraisable_headers
        self.unraisable_paired += later.unraisable_paired
        self.unpaired_exceptions += later.unpaired_exceptions
        self.hosts |= later.hosts
        if later.world_size:
            self.world_size = max(self.world_size or 0, later.world_size)
        for rank, progress in later.progress.items():
            current = self.progress.setdefault(rank, RankProgress(rank))
            for attr in ("timed_out_seq", "op", "timeout_ms", "last_enqueued", "last_completed"):
                value = getattr(progress, attr)
                if value is not None:
                    setattr(current, attr, value)
            current.occurrence = current.occurrence or progress.occurrence

    def occurrences(self) -> list[Occurrence]:
        """Every Occurrence held, so a later pass can renumber their lines."""
        found: list[Occurrence] = []
        for identities in self.nccl_versions.values():
            found += identities.values()
        found += [occ for _, occ in self.networks.values()]
        found += self.ofi_attempted.values()
        found += [occ for _, occ in self.net_plugins.values()]
        found += self.efa_requested.values()
        found += self.interfaces.values()
        found += [occ for _, occ in self.interface_lists.values()]
        found += self.nvls.values()
        found += self.ipv6_unresolved.values()
        found += self.foreign_connections.values()
        found += self.closed_proxies.values()
        found += [p.occurrence for p in self.progress.values() if p.occurrence is not None]
        return found
