"""The Slurm side of `diagnose --cluster` on a HyperPod Slurm cluster: where Slurm's commands
run, and which instance backs each Slurm node.

Where: on this host when its Slurm client commands answer (`scontrol ping` reports a
controller UP: diagnose runs on the head or a login node); otherwise on the controller node
through SSM non-interactive sessions, each running a batch of commands (a session start costs
a second or more and SSM allows a few a second): one to see that the controller answers, one
for every command whose words are known before any output (the state queries only when
`scontrol ping` in that same session says UP), then one each for the files the output names
(slurm.conf's scripts, logind drop-ins). Four at most, against about 15 for one per command
(benchmarks/slurm_ssm_sessions.py counts both):

    aws ssm start-session --target sagemaker-cluster:<cluster-id>_<group>-<instance-id>
        --document-name AWS-StartNonInteractiveCommand --parameters '{"command": [...]}'

Every command passes the same read-only allow-list as a local run (`runner.check_read_only`)
before its session is built, and its words are shell-quoted into the session's command. With
no session-manager-plugin on PATH no session is started and the Slurm checks are SKIPPED
with that reason.

Which node is the controller, from DescribeCluster and ListClusterNodes, in this order:
1. `--controller-group NAME`;
2. the instance group whose `SlurmConfig.NodeType` is `Controller` (clusters whose Slurm
   layout is set through the SageMaker API);
3. the one instance group named like a controller (a word `controller` or `head` in the
   name): clusters set up with the lifecycle scripts name it in provisioning_parameters.json
   (`controller_group`, `controller-machine` in AWS's examples), which the API does not show.
Within the group, a Running instance, lowest instance ID first. With no such group, or several,
the Slurm checks are SKIPPED and say to pass --controller-group.

Which instance backs a Slurm node: on HyperPod a Slurm node is named after its instance's
private DNS host name (`ip-10-1-2-3`). ListClusterNodes gives that name in newer API versions;
where it does not, DescribeClusterNode does (`PrivateDnsHostname`). Only the nodes Slurm
reports in trouble need an instance ID (HyperPod's reboot and replace take one), so instances
are described (compute instances only, failed ones first) until
every such node is matched, at most `MAX_NODE_DESCRIBES` of them: calls grow with the nodes in
trouble, not with the cluster (benchmarks/slurm_node_matching.py).
"""

from __future__ import annotations

import re
import secrets
import shlex
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from hyperpod_nccl.checks.slurm_data import load_nodes
from hyperpod_nccl.collect.probes import DEFAULT_START_RATE, RateLimiter
from hyperpod_nccl.collect.recorder import Recorder
from hyperpod_nccl.collect.runner import (
    CommandResult,
    LocalRunner,
    check_read_only,
    run_process,
)
from hyperpod_nccl.collect.slurm import collect_slurm, local_slurm_available
from hyperpod_nccl.collect.transports.base import TransportError
from hyperpod_nccl.collect.transports.ssm import SsmTarget, SsmTransport
from hyperpod_nccl.slurm.conditions import Condition, condition_of
from hyperpod_nccl.slurm.instances import ClusterInstance, instances_from_documents, map_nodes
from hyperpod_nccl.snapshot import Snapshot
from hyperpod_nccl.snapshot.items import (
    NODE_DETAIL,
    NODES,
    SLURM_CONFIG,
    SLURM_INSTANCES,
    SLURM_LOGIND_CONTROLLER,
    SLURM_MUNGE,
    SLURM_PARTITIONS,
    SLURM_PING,
    SLURM_SINFO,
    SLURM_SQUEUE,
)
from hyperpod_nccl.snapshot.meta import SlurmAccess
from hyperpod_nccl.targets import parse_instance_group  # noqa: F401  (re-exported)

if TYPE_CHECKING:
    from hyperpod_nccl.collect.run import CollectContext

# SageMaker's pattern for instance group names (CreateCluster's InstanceGroupName).
_CONTROLLER_NAME = re.compile(r"(?:^|[^a-z])(?:controller|head)(?:[^a-z]|$)", re.IGNORECASE)
_LOGIN_NAME = re.compile(r"(?:^|[^a-z])login(?:[^a-z]|$)", re.IGNORECASE)
INSTANCES_ITEM = SLURM_INSTANCES
MAX_NODE_DESCRIBES = 256
DESCRIBE_WORKERS = 8
LOCAL_PING_TIMEOUT_S = 10.0
FIRST_SESSION_TIMEOUT_S = 60.0
# The items the Slurm checks and diff read; recorded missing, with the reason, when Slurm is not reached.
SLURM_ITEMS = (
    SLURM_PING,
    SLURM_MUNGE,
    SLURM_SINFO,
    SLURM_SQUEUE,
    SLURM_CONFIG,
    SLURM_PARTITIONS,
    SLURM_LOGIND_CONTROLLER,
)


# ------------------------------------------------------------------ the controller
@dataclass(frozen=True)
class Controller:
    group: str
    instance_id: str
    found_by: str  # how the group was chosen, for the manifest and the findings


def _group_names(cluster: dict[str, Any], nodes: Sequence[dict[str, Any]]) -> list[str]:
    names = [str(g.get("InstanceGroupName")) for g in cluster.get("InstanceGroups") or []]
    names += [str(n.get("InstanceGroupName")) for n in nodes]
    return sorted({n for n in names if n and n != "None"})


def _slurm_node_type(cluster: dict[str, Any], wanted: str) -> list[str]:
    return sorted(
        str(g.get("InstanceGroupName"))
        for g in cluster.get("InstanceGroups") or []
        if ((g.get("SlurmConfig") or {}).get("NodeType") or "").lower() == wanted.lower()
    )


def controller_group(
    cluster: dict[str, Any], nodes: Sequence[dict[str, Any]], override: str | None
) -> tuple[str, str] | str:
    """(group, how it was found), or why no single group could be chosen."""
    groups = _group_names(cluster, nodes)
    if override:
        if groups and override not in groups:
            return f"--controller-group {override}: no such instance group (groups: {', '.join(groups)})"
        return override, "--controller-group"
    by_config = _slurm_node_type(cluster, "Controller")
    if len(by_config) == 1:
        return by_config[0], "SlurmConfig.NodeType is Controller"
    named = [g for g in groups if _CONTROLLER_NAME.search(g)]
    if len(named) == 1:
        return named[0], "its name says controller or head"
    listed = ", ".join(groups) or "none listed"
    if len(by_config) > 1 or len(named) > 1:
        choices = ", ".join(by_config if len(by_config) > 1 else named)
        return f"several instance groups could hold the Slurm controller ({choices}); pass --controller-group"
    return f"no instance group is the Slurm controller by SlurmConfig or by name (groups: {listed}); pass --controller-group"


def find_controller(
    cluster: dict[str, Any], nodes: Sequence[dict[str, Any]], override: str | None
) -> Controller | str:
    """The controller node, or why it could not be found."""
    found = controller_group(cluster, nodes, override)
    if isinstance(found, str):
        return found
    group, how = found
    members = sorted(
        (n for n in nodes if n.get("InstanceGroupName") == group and n.get("InstanceId")),
        key=lambda n: ((n.get("InstanceStatus") or {}).get("Status") != "Running", n["InstanceId"]),
    )
    if not members:
        return f"instance group {group} ({how}) has no instances in ListClusterNodes"
    return Controller(group, str(members[0]["InstanceId"]), how)


def non_compute_groups(
    cluster: dict[str, Any], nodes: Sequence[dict[str, Any]], override: str | None
) -> set[str]:
    """Controller and login groups: CPU nodes a node-probe sample leaves out."""
    found = controller_group(cluster, nodes, override)
    groups = {found[0]} if isinstance(found, tuple) else set()
    groups |= set(_slurm_node_type(cluster, "Login"))
    groups |= {g for g in _group_names(cluster, nodes) if _LOGIN_NAME.search(g)}
    return groups


# ------------------------------------------------------------------ commands over SSM
def remote_command(argv: Sequence[str], marker: str) -> str:
    """Shell text that runs argv and prints its stdout, exit status and stderr between marker
    lines, one after the other: a session gives back a single stream. Only argv's words,
    each shell-quoted, and the marker (hex) go into it."""
    command = " ".join(shlex.quote(word) for word in argv)
    return (
        f"M={marker}\n"
        "exec 3>&1\n"
        f'e=$( {{ o=$(LC_ALL=C {command} </dev/null 3>&-; printf "\\n%s" "$?"); }} 2>&1; '
        'printf \'%s:out\\n%s\\n\' "$M" "$o" >&3 )\n'
        'printf \'%s:err\\n%s\\n%s:end\\n\' "$M" "$e" "$M"\n'
    )


# In a batch, commands that ask slurmctld run only when it answers, so a controller that is down
# costs one timeout (that of `scontrol ping`), not one per query.
_GATE = 'case "$(LC_ALL=C scontrol ping </dev/null 2>/dev/null)" in *"is UP"*)\n'


def remote_batch(
    commands: Sequence[Sequence[str]], gated: Sequence[Sequence[str]], marker: str
) -> str:
    """Shell text that runs each command as `remote_command` does, under its own marker
    (`marker-N`, N its position in commands + gated), the gated ones only if slurmctld is UP."""
    plain = "".join(remote_command(argv, f"{marker}-{n}") for n, argv in enumerate(commands))
    if not gated:
        return plain
    base = len(commands)
    state = "".join(remote_command(argv, f"{marker}-{base + n}") for n, argv in enumerate(gated))
    return f"{plain}{_GATE}{state};;\nesac\n"


def parse_remote_output(text: str, marker: str) -> tuple[int, str, str] | None:
    """(exit status, stdout, stderr) from a session's output, or None if the command never
    ran (the markers are absent: the session failed to start)."""
    text = text.replace("\r\n", "\n")  # the session's terminal turns \n into \r\n
    begin, middle, end = f"{marker}:out\n", f"\n{marker}:err\n", f"\n{marker}:end"
    start = text.find(begin)
    split = text.find(middle, start + len(begin)) if start >= 0 else -1
    stop = text.find(end, split + len(middle)) if split >= 0 else -1
    if stop < 0:
        return None
    stdout, _, status = text[start + len(begin) : split].rpartition("\n")
    stderr = text[split + len(middle) : stop]
    try:
        return int(status), stdout, stderr
    except ValueError:
        return None


class SsmSlurmRunner:
    """A `CommandRunner` that runs each allowed command on one node over an SSM session."""

    def __init__(
        self,
        target: SsmTarget,
        region: str | None,
        profile: str | None,
        *,
        aws: str = "aws",
        start_rate: float = DEFAULT_START_RATE,
        batch: bool = True,
    ) -> None:
        self._transport = SsmTransport({target.instance_id: target}, region, profile, aws)
        self._node = target.instance_id
        self.target = target.target
        self.extra_files: frozenset[str] = frozenset()
        self._limiter = RateLimiter(start_rate)
        self.batch = batch
        self.sessions = 0  # sessions started, for the manifest and the benchmark
        self._fetched: dict[tuple[str, ...], CommandResult] = {}

    @property
    def host(self) -> str:
        return self._node

    def preflight(self) -> str | None:
        """Why no session can start from here (plugin or AWS CLI missing), or None."""
        return self._transport.preflight()

    def allow_files(self, paths: Sequence[str]) -> None:
        """Let `cat` read these further files (scripts named by slurm.conf)."""
        self.extra_files = self.extra_files | frozenset(paths)

    def run(self, argv: Sequence[str], timeout: float) -> CommandResult:
        check_read_only(argv, self.extra_files)
        fetched = self._fetched.pop(tuple(argv), None)
        if fetched is not None:
            return fetched
        marker = f"hpn-{secrets.token_hex(8)}"
        result = self._session(remote_command(argv, marker), timeout)
        if result.timed_out:
            return result
        parsed = parse_remote_output(result.stdout, marker)
        if parsed is None:
            why = self._transport.session_failure(result.rc, result.stdout, result.stderr)
            return CommandResult(None, "", f"SSM session to {self.target}: {why}", result.elapsed_s)
        rc, stdout, stderr = parsed
        return CommandResult(rc, stdout, stderr, result.elapsed_s)

    def prefetch(
        self, commands: Sequence[Sequence[str]], timeout: float, gated: Sequence[Sequence[str]] = ()
    ) -> None:
        """Run these commands in one session and keep their results for the `run` calls that
        ask for them (gated ones only run if slurmctld is UP). A command the batch did not
        answer (the session failed, timed out, or the gate was shut) is run on its own when
        asked, as without a batch; so a batch never loses a result, it only saves sessions."""
        if not self.batch:
            return
        for argv in (*commands, *gated):
            check_read_only(argv, self.extra_files)
        commands = [c for c in commands if tuple(c) not in self._fetched]
        gated = [c for c in gated if tuple(c) not in self._fetched]
        if len(commands) + len(gated) < 2:
            return  # one command is a session either way
        marker = f"hpn-{secrets.token_hex(8)}"
        result = self._session(remote_batch(commands, gated, marker), timeout)
        if result.timed_out:
            return
        for n, argv in enumerate([*commands, *gated]):
            parsed = parse_remote_output(result.stdout, f"{marker}-{n}")
            if parsed is not None:
                rc, stdout, stderr = parsed
                self._fetched[tuple(argv)] = CommandResult(rc, stdout, stderr, result.elapsed_s)

    def _session(self, command: str, timeout: float) -> CommandResult:
        session = self._transport.session_argv(self._node, command)
        # SSM allows a few session starts a second per account; sessions run one by one, but
        # a fast controller could still go over it.
        time.sleep(max(0.0, self._limiter.reserve() - time.monotonic()))
        self.sessions += 1
        return run_process(session, timeout, hold_stdin=True)


# ------------------------------------------------------------------ diagnose's hook
def local_slurm_answers() -> bool:
    """Slurm's client commands are here and reach a controller (the head or a login node)."""
    if not local_slurm_available():
        return False
    ping = LocalRunner().run(["scontrol", "ping"], LOCAL_PING_TIMEOUT_S)
    return ping.rc == 0 and "is UP" in ping.stdout


def _record_unreached(snapshot: Snapshot, reason: str) -> None:
    for name in SLURM_ITEMS:
        snapshot.missing(name, reason, "slurm (controller not reached)")


def collect_slurm_for_diagnose(ctx: CollectContext) -> None:
    """Fill the Slurm side of a diagnose snapshot, locally or over SSM, then match the Slurm
    nodes in trouble to their instances."""
    snapshot = ctx.snapshot
    if local_slurm_answers():
        snapshot.meta["slurm_access"] = {"via": "local"}
        collect_slurm(snapshot, LocalRunner())
    else:
        runner = _controller_runner(ctx)
        if isinstance(runner, str):
            _record_unreached(snapshot, f"Unreachable: {runner}")
            return
        collect_slurm(snapshot, runner)
        # _controller_runner recorded how the controller was found; add what it cost.
        access = snapshot.meta.get("slurm_access")
        if access is not None:
            access["ssm_sessions"] = runner.sessions
    match_instances(ctx)


def _controller_runner(ctx: CollectContext) -> SsmSlurmRunner | str:
    snapshot, options = ctx.snapshot, ctx.options
    listed = (snapshot.get_json(NODES) or {}).get("ClusterNodeSummaries", [])
    if not snapshot.has(NODES):
        return f"the Slurm controller is found from ListClusterNodes, which failed ({snapshot.why_missing(NODES)})"
    controller = find_controller(ctx.cluster or {}, listed, options.controller_group)
    if isinstance(controller, str):
        return controller
    access: SlurmAccess = {
        "via": "ssm",
        "controller_group": controller.group,
        "controller_instance": controller.instance_id,
        "found_by": controller.found_by,
    }
    snapshot.meta["slurm_access"] = access
    try:
        target = SsmTarget.from_cluster_arn(
            str((ctx.cluster or {}).get("ClusterArn", "")), controller.group, controller.instance_id
        )
        runner = SsmSlurmRunner(target, options.region, options.profile)
    except TransportError as exc:
        return f"no SSM target for the Slurm controller: {exc}"
    access["target"] = runner.target
    blocked = runner.preflight()
    if blocked:
        return f"no SSM session to the Slurm controller {runner.target}: {blocked}"
    # One short session first: a controller SSM cannot reach costs one reason, not a timeout
    # per Slurm command, and its checks read SKIPPED (never looked) rather than INCOMPLETE.
    hello = runner.run(["hostname"], FIRST_SESSION_TIMEOUT_S)
    if hello.rc != 0:
        why = "no answer" if hello.timed_out else (hello.stderr.strip() or f"exit {hello.rc}")
        return f"the Slurm controller did not answer over SSM ({why})"
    access["hostname"] = hello.stdout.strip()
    return runner


# ------------------------------------------------------------------ Slurm node -> instance
def _trouble_nodes(snapshot: Snapshot) -> list[Any]:
    nodes, _, _ = load_nodes(snapshot)
    return [n for n in nodes or [] if condition_of(n) is not Condition.OK]


def match_instances(ctx: CollectContext) -> None:
    """Describe instances until every Slurm node in trouble has one (see the module doc)."""
    snapshot = ctx.snapshot
    trouble = _trouble_nodes(snapshot)
    described_before = list(snapshot.collected(NODE_DETAIL.split("{")[0]))
    listed = instances_from_documents(snapshot.get_json(n) for n in [NODES, *described_before])
    mapping = map_nodes(trouble, listed)
    unmatched = [n for n in trouble if n.name not in mapping]
    # Slurm's nodes run on the compute instances, not on the controller or login nodes.
    skip = non_compute_groups(
        ctx.cluster or {},
        (snapshot.get_json(NODES) or {}).get("ClusterNodeSummaries", []),
        ctx.options.controller_group,
    )
    candidates = sorted(
        (i for i in listed if not i.dns_name and i.group not in skip),
        key=lambda i: (i.status == "Running", i.instance_id),
    )
    described = 0
    cluster = str((ctx.cluster or {}).get("ClusterName") or ctx.options.cluster.value)
    recorder = Recorder(snapshot)
    while unmatched and candidates and described < MAX_NODE_DESCRIBES:
        batch = candidates[: min(DESCRIBE_WORKERS, MAX_NODE_DESCRIBES - described)]
        candidates = candidates[len(batch) :]
        described += len(batch)
        found = _describe(ctx, recorder, cluster, batch)
        mapping.update(map_nodes(unmatched, found))
        unmatched = [n for n in unmatched if n.name not in mapping]
    snapshot.put_json(
        INSTANCES_ITEM,
        {
            "matched": {name: i.instance_id for name, i in sorted(mapping.items())},
            "unmatched": [n.name for n in unmatched],
            "described": described,
            "limit": MAX_NODE_DESCRIBES,
        },
        source="ListClusterNodes and DescribeClusterNode (PrivateDnsHostname)",
    )


def _describe(
    ctx: CollectContext, recorder: Recorder, cluster: str, batch: Sequence[ClusterInstance]
) -> list[ClusterInstance]:
    def one(instance: ClusterInstance) -> Any:
        read = partial(
            ctx.aws.call,
            "sagemaker",
            "describe_cluster_node",
            ClusterName=cluster,
            NodeId=instance.instance_id,
        )
        item = NODE_DETAIL.format(node=instance.instance_id)
        return recorder.fetch(item, "sagemaker:DescribeClusterNode", read)

    with ThreadPoolExecutor(max_workers=DESCRIBE_WORKERS, thread_name_prefix="hpn-node") as pool:
        documents = list(pool.map(one, batch))
    return instances_from_documents(documents)
