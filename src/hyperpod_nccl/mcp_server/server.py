"""`hyperpod-nccl mcp`: the analyses as Model Context Protocol tools over stdio.

Each tool is a thin face over hyperpod_nccl.api (as the CLI is): typed inputs, the Report's
contract JSON out, errors as one-line tool errors. The server runs no commands and changes
nothing; suggested commands come back as data for the agent to show its user.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Annotated, Any, Literal, cast

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.types import CallToolResult, InputRequiredResult, ToolAnnotations
from pydantic import Field, ValidationError

from hyperpod_nccl import __version__
from hyperpod_nccl.api import DEFAULT_SAMPLE_NODES, DiagnoseRequest, PerfRequest
from hyperpod_nccl.mcp_server import analyses, catalogue, isolation
from hyperpod_nccl.mcp_server.errors import (
    ANTICIPATED,
    describe,
    describe_invalid_arguments,
    one_line,
)
from hyperpod_nccl.mcp_server.isolation import InternalError, run_isolated
from hyperpod_nccl.mcp_server.progress import run_with_progress
from hyperpod_nccl.mcp_server.schemas import CodesResult, ReportResult, SectionResult

INSTRUCTIONS = """\
hyperpod-nccl tells why a distributed GPU training job (NCCL, PyTorch) on SageMaker HyperPod
(EKS or Slurm) hangs or dies, on which rank or node, and what to do. Every tool is read-only.

Workflow: analyse what the user has (analyze_logs for job logs, analyze_perf for nccl-tests
output, diagnose_cluster for a live cluster, diagnose_bundle for a saved bundle). Start from
the report's root_cause and its FAIL findings, most severe priority (P0) first; call explain
with each FAIL's code for its guide section. Show the user each finding's
suggested_commands with their preconditions and blast radius, for the user to run: never run
them yourself. After the user has acted, run the same analysis again to confirm. Findings
with status SKIPPED or INCOMPLETE and the not_checked list say what could not be checked."""

Paths = Annotated[
    Sequence[str],
    Field(
        description="files, .gz files or directories (read recursively); absolute, or relative "
        "to the directory the server was started in"
    ),
]
PastedText = Annotated[
    str | None,
    Field(description="text the user pasted, analysed as one more file (<pasted>/NAME)"),
]
PastedName = Annotated[
    str | None,
    Field(
        description="file name for the pasted text (default pasted.log); the analyses read "
        "ranks, hosts and collectives from names such as rank3.log, ip-10-1-2-3.log or "
        "all_reduce_perf.out"
    ),
]

Redact = Annotated[
    bool,
    Field(
        description="redact secrets (keys, tokens, passwords) in the result, as the CLI does by "
        "default; false shows them as collected, like the CLI's --no-redact: only for a user who "
        "asked for it, and never to be shared"
    ),
]

_LOCAL = {"read_only_hint": True, "destructive_hint": False, "idempotent_hint": True}


def _annotations(title: str, *, open_world: bool = False) -> ToolAnnotations:
    return ToolAnnotations(title=title, open_world_hint=open_world, **_LOCAL)


def _outcome(document: dict[str, Any]) -> str:
    root = document.get("root_cause") or "none"
    return f"{document.get('issues_found', 0)} FAIL finding(s), root cause {root}"


async def _report(
    ctx: Context, what: str, function: Callable[..., dict[str, Any]], *args: Any
) -> ReportResult:
    """Run one analysis in a process of its own (isolation.py), within the per-call limit and
    with progress; its errors become one-line tool errors that say why."""

    async def work() -> dict[str, Any]:
        document: dict[str, Any] = await run_isolated(function, *args)
        return document

    try:
        document = await run_with_progress(ctx, what, work, _outcome)
    except ANTICIPATED as exc:
        raise ToolError(describe(exc)) from exc
    except InternalError as exc:
        raise ToolError(one_line(str(exc))) from exc
    return cast(ReportResult, document)


class HyperpodServer(MCPServer[None]):
    """MCPServer whose argument errors read as one line, like the CLI's usage errors."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[None, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(cause, ValidationError) and not isinstance(exc, UnexpectedToolError):
                message = describe_invalid_arguments(cause)
                raise ToolError(f"Error executing tool {name}: {message}") from cause
            if cause is not None and not str(cause).strip():
                # An exception without a message (MemoryError()) still says what it was.
                raise ToolError(f"Error executing tool {name}: {type(cause).__name__}") from cause
            raise


@contextlib.asynccontextmanager
async def _stray_output_to_stderr(_: MCPServer[None]) -> AsyncIterator[None]:
    """Standard output is the MCP channel: anything printed while serving goes to stderr."""
    with contextlib.redirect_stdout(sys.stderr):
        yield None


def build_server() -> HyperpodServer:
    server = HyperpodServer(
        "hyperpod-nccl",
        title="hyperpod-nccl",
        description="Why a distributed GPU training job on SageMaker HyperPod hangs or dies",
        instructions=INSTRUCTIONS,
        version=__version__,
        lifespan=_stray_output_to_stderr,
    )

    @server.tool(annotations=_annotations("Analyse job logs"))
    async def analyze_logs(
        ctx: Context,
        paths: Paths = (),
        text: PastedText = None,
        text_name: PastedName = None,
        engine: Annotated[
            Literal["auto", "hyperscan", "re"],
            Field(description="pattern engine: hyperscan when installed (auto), or pure-Python re"),
        ] = "auto",
        redact: Redact = True,
    ) -> ReportResult:
        """Name the root cause of a failed or hung distributed job from its logs: per-rank
        torchrun output, NCCL_DEBUG=INFO files, Slurm job output, kubectl logs or describe,
        dmesg. Give paths, pasted text, or both. Returns the report (contract JSON) with the
        root cause, each finding's ranks, hosts, evidence lines, guide reference and suggested
        commands for the user to run. Secrets in it are redacted unless redact is false."""
        work = functools.partial(analyses.logs, redact=redact)
        return await _report(ctx, "analysing logs", work, list(paths), text, text_name, engine)

    @server.tool(annotations=_annotations("Analyse nccl-tests output"))
    async def analyze_perf(
        ctx: Context,
        paths: Paths = (),
        text: PastedText = None,
        text_name: PastedName = None,
        instance_type: Annotated[
            str | None,
            Field(
                description="instance type of the nodes, e.g. p5.48xlarge (default: inferred "
                "from the GPU model); one of: " + ", ".join(analyses.INSTANCE_TYPE_NAMES)
            ),
        ] = None,
        transport: Annotated[
            Literal["efa", "ib", "socket"] | None,
            Field(description="network transport of the runs (default: from NCCL INFO lines)"),
        ] = None,
        expected_busbw_gbps: Annotated[
            float | None,
            Field(gt=0, description="your baseline busbw at large sizes in GB/s, if measured"),
        ] = None,
        world_size: Annotated[
            int | None,
            Field(gt=0, description="GPUs in the training job: adds a suggested NCCL timeout"),
        ] = None,
        redact: Redact = True,
    ) -> ReportResult:
        """Analyse nccl-tests output (text or JSON, any collective, pair sweeps) for straggler
        nodes, low bus bandwidth, wrong results and failed or hung runs; and flight recorder
        dumps or NCCL COLL debug logs for ranks that did not reach a collective. Secrets in the
        result are redacted unless redact is false."""
        request = PerfRequest(
            instance_type=instance_type,
            transport=transport,
            expected_busbw=expected_busbw_gbps,
            world_size=world_size,
        )
        work = functools.partial(analyses.perf, redact=redact)
        return await _report(
            ctx, "analysing nccl-tests output", work, list(paths), text, text_name, request
        )

    @server.tool(annotations=_annotations("Diagnose a HyperPod cluster (live)", open_world=True))
    async def diagnose_cluster(
        ctx: Context,
        cluster: Annotated[
            str | None,
            Field(
                description="HyperPod cluster name or ARN; leave out on a Slurm head or login "
                "node to diagnose the Slurm this host can query"
            ),
        ] = None,
        region: Annotated[str | None, Field(description="AWS region, e.g. us-west-2")] = None,
        profile: Annotated[str | None, Field(description="AWS profile")] = None,
        orchestrator: Annotated[
            Literal["eks", "slurm"] | None,
            Field(description="override the orchestrator DescribeCluster reports"),
        ] = None,
        namespace: Annotated[
            str | None, Field(description="Kubernetes namespace of the job")
        ] = None,
        job: Annotated[str | None, Field(description="training job name")] = None,
        since: Annotated[
            str, Field(description="time window for events and logs: 30m, 2h, 1d")
        ] = "2h",
        sample_nodes: Annotated[
            int | None,
            Field(
                ge=1,
                description=f"probe N of the cluster's nodes (default {DEFAULT_SAMPLE_NODES}: "
                "each probe is an SSM session; failed and troubled nodes first)",
            ),
        ] = None,
        all_nodes: Annotated[bool, Field(description="probe every node")] = False,
        nodes: Annotated[Sequence[str], Field(description="probe these instance IDs")] = (),
        kubeconfig: Annotated[str | None, Field(description="kubeconfig file")] = None,
        context: Annotated[str | None, Field(description="kubeconfig context")] = None,
        redact: Redact = True,
    ) -> ReportResult:
        """Collect a HyperPod cluster's state read-only (SageMaker, EC2, CloudWatch, EKS and
        Kubernetes objects, pod logs, Slurm, node probes), check it and name the root cause.
        Only Describe/List/Get AWS calls and Kubernetes get/list/log reads are made. Reports
        progress while it collects; a live diagnosis can take minutes. Secrets in the result are
        redacted unless redact is false."""
        request = DiagnoseRequest(
            cluster=cluster,
            region=region,
            profile=profile,
            orchestrator=orchestrator,
            namespace=namespace,
            job=job,
            since=since,
            sample_nodes=sample_nodes,
            all_nodes=all_nodes,
            nodes=tuple(nodes),
            kubeconfig=os.path.expanduser(kubeconfig) if kubeconfig else None,
            context=context,
        )
        what = f"diagnosing {cluster}" if cluster else "diagnosing the local Slurm"
        work = functools.partial(analyses.diagnose_cluster, redact=redact)
        return await _report(ctx, what, work, request)

    @server.tool(annotations=_annotations("Diagnose a saved bundle"))
    async def diagnose_bundle(
        ctx: Context,
        path: Annotated[
            str, Field(description="bundle saved by diagnose --save-bundle (.tar.gz or directory)")
        ],
        redact: Redact = True,
    ) -> ReportResult:
        """Replay a bundle saved by `hyperpod-nccl diagnose --save-bundle` through the same
        checks as a live diagnosis, with no AWS or cluster access. Secrets in the result are
        redacted unless redact is false."""
        bundle = os.path.expanduser(path)
        work = functools.partial(analyses.diagnose_bundle, redact=redact)
        return await _report(ctx, f"replaying {path}", work, bundle)

    @server.tool(annotations=_annotations("Explain a finding code or guide section"))
    def explain(
        topic: Annotated[
            str,
            Field(
                description="a finding code (CONTAINER_OOM), a reference as findings carry it "
                "(debugging-guide.md#container-oom) or an anchor (container-oom)"
            ),
        ],
    ) -> SectionResult:
        """The remediation guide's section for a finding code or reference: what the finding
        means, how to confirm it, what to do, and the primary sources it rests on."""
        try:
            return catalogue.explain(topic)
        except ANTICIPATED as exc:
            raise ToolError(describe(exc)) from exc

    @server.tool(annotations=_annotations("List finding codes and guide sections"))
    def list_codes() -> CodesResult:
        """Every finding code the log rules and the cluster checks can emit, with priority,
        title, what each explains and its guide reference; and every guide section."""
        return catalogue.all_codes()

    return server


def serve() -> None:
    """Serve over stdio until the client closes the connection."""
    server = build_server()
    isolation.start()  # before the channel is in use: see isolation.start
    server.run("stdio")
