"""Read-only access to a Kubernetes API server with the official client and a kubeconfig
(EKS exec authentication included).

The access layer offers list, get-version and pod-log reads only. Its ApiClient, and the REST
client under it, refuse before a request is made any HTTP method but GET and any path but
those reads (so no exec, attach, port-forward or proxy path, which are GETs too); the
request functions cannot be swapped (as `kubernetes.stream` swaps them for a websocket). Connection problems are told apart:
no kubeconfig, a context that points at another cluster than the HyperPod cluster's EKS
cluster, an API server that cannot be reached, credentials it rejects, and RBAC that forbids
one resource (only the checks needing that resource are skipped).
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import urllib3
import yaml
from kubernetes import client as k8s_client
from kubernetes import config as k8s_config
from kubernetes.client import rest as k8s_rest
from kubernetes.client.exceptions import ApiException

from hyperpod_nccl.collect.aws import ReadOnlyViolation

PAGE_LIMIT = 500
# What to run when the kubeconfig is missing or stale; callers that know the EKS cluster's
# name and region pass the command filled in (see `KubeReader.connect`).
UPDATE_KUBECONFIG = "aws eks update-kubeconfig --name <eks-cluster> --region <region>"
REQUEST_TIMEOUT = (10, 60)  # connect, read (seconds)

# kind -> (API prefix, plural, namespaced). Only these can be listed.
RESOURCES: dict[str, tuple[str, str, bool]] = {
    "nodes": ("/api/v1", "nodes", False),
    "namespaces": ("/api/v1", "namespaces", False),
    "pods": ("/api/v1", "pods", True),
    "services": ("/api/v1", "services", True),
    "events": ("/api/v1", "events", True),
    "networkpolicies": ("/apis/networking.k8s.io/v1", "networkpolicies", True),
    "daemonsets": ("/apis/apps/v1", "daemonsets", True),
    "jobs": ("/apis/batch/v1", "jobs", True),
    "pytorchjobs": ("/apis/kubeflow.org/v1", "pytorchjobs", True),
    "mpijobs": ("/apis/kubeflow.org/v2beta1", "mpijobs", True),
    "hyperpodpytorchjobs": ("/apis/sagemaker.amazonaws.com/v1", "hyperpodpytorchjobs", True),
}


_SEGMENT = r"[a-z0-9](?:[-a-z0-9.]{0,251}[a-z0-9])?"
# Every path the reader requests, and no other: the version, the lists of RESOURCES (in a
# namespace or across all), and a pod's log.
_READ_PATHS = re.compile(
    "|".join(
        [
            "/version",
            f"/api/v1/namespaces/{_SEGMENT}/pods/{_SEGMENT}/log",
            *(
                re.escape(prefix)
                + (f"(?:/namespaces/{_SEGMENT})?" if namespaced else "")
                + "/"
                + re.escape(plural)
                for prefix, plural, namespaced in RESOURCES.values()
            ),
        ]
    )
)
# Attributes of the ApiClient that send requests: fixed once it is made.
_SEALED = frozenset({"request", "rest_client", "call_api", "configuration"})


def _check_read(method: str, url: str, host: str) -> None:
    """Refuse anything but a GET of one of the reader's own paths on the configured server."""
    if str(method).upper() != "GET":
        raise ReadOnlyViolation(f"refused {method} {url}: hyperpod-nccl only reads from Kubernetes")
    base = host.rstrip("/")
    if not url.startswith(base + "/"):
        raise ReadOnlyViolation(f"refused GET {url}: not the configured API server {base}")
    path = url[len(base) :].split("?", 1)[0]
    if not _READ_PATHS.fullmatch(path):
        raise ReadOnlyViolation(
            f"refused GET {path}: hyperpod-nccl reads only the version, lists and pod logs "
            "(no exec, attach, port-forward or proxy)"
        )


class ReadOnlyRESTClient(k8s_rest.RESTClientObject):  # type: ignore[misc]
    """The REST client under ReadOnlyApiClient: GETs of the reader's own paths only."""

    def __init__(self, configuration: Any) -> None:
        super().__init__(configuration)
        self._host = configuration.host

    def request(self, method: str, url: str, *args: Any, **kwargs: Any) -> Any:
        _check_read(method, url, self._host)
        return super().request(method, url, *args, **kwargs)


class ReadOnlyApiClient(k8s_client.ApiClient):  # type: ignore[misc]
    """An ApiClient that sends GETs of the reader's own paths only; anything else, or an
    attempt to swap its request functions, is refused in-process."""

    def __init__(self, configuration: Any = None, *args: Any, **kwargs: Any) -> None:
        super().__init__(configuration, *args, **kwargs)
        object.__setattr__(self, "rest_client", ReadOnlyRESTClient(self.configuration))
        object.__setattr__(self, "_sealed", True)

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _SEALED and getattr(self, "_sealed", False):
            raise ReadOnlyViolation(
                f"refused to replace {name!r} of the read-only Kubernetes client "
                "(kubernetes.stream does this to exec in a pod)"
            )
        object.__setattr__(self, name, value)

    def call_api(self, resource_path: str, method: str, *args: Any, **kwargs: Any) -> Any:
        path_params = kwargs.get("path_params") or (args[0] if args else None) or {}
        path = resource_path
        for key, value in dict(path_params).items():
            path = path.replace("{" + str(key) + "}", str(value))
        _check_read(method, self.configuration.host.rstrip("/") + path, self.configuration.host)
        return super().call_api(resource_path, method, *args, **kwargs)

    def request(self, method: str, url: str, *args: Any, **kwargs: Any) -> Any:
        _check_read(method, url, self.configuration.host)
        return super().request(method, url, *args, **kwargs)


@dataclass
class KubeAccessError(Exception):
    """Kubernetes could not be used at all; `kind` says why and `fix` what to do."""

    kind: str  # no_config | wrong_context | unreachable | unauthenticated | forbidden | error
    message: str
    fix: str = ""

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True)
class ContextInfo:
    name: str
    cluster: str
    server: str


@dataclass
class Kubeconfig:
    """The merged kubeconfig files, as kubectl merges them (first file wins per name)."""

    paths: list[str]
    current: str | None
    contexts: dict[str, ContextInfo] = field(default_factory=dict)

    @classmethod
    def load(cls, explicit: str | None) -> Kubeconfig:
        raw = explicit or os.environ.get("KUBECONFIG") or str(Path.home() / ".kube" / "config")
        paths = [p for p in raw.split(os.pathsep) if p]
        existing = [p for p in paths if Path(p).expanduser().is_file()]
        if not existing:
            # No fix here: the caller knows the EKS cluster and fills the command in.
            raise KubeAccessError("no_config", f"no kubeconfig found at {raw}")
        clusters: dict[str, str] = {}
        contexts: dict[str, tuple[str, str]] = {}
        current: str | None = None
        for path in existing:
            try:
                data = yaml.safe_load(Path(path).expanduser().read_text("utf-8")) or {}
            except (OSError, yaml.YAMLError) as exc:
                raise KubeAccessError(
                    "no_config", f"kubeconfig {path} cannot be read: {exc}"
                ) from exc
            current = current or data.get("current-context") or None
            for entry in data.get("clusters") or []:
                server = ((entry or {}).get("cluster") or {}).get("server", "")
                clusters.setdefault(str(entry.get("name")), str(server))
            for entry in data.get("contexts") or []:
                ctx = (entry or {}).get("context") or {}
                contexts.setdefault(str(entry.get("name")), (str(ctx.get("cluster")), ""))
        infos = {
            name: ContextInfo(name, cluster, clusters.get(cluster, ""))
            for name, (cluster, _) in contexts.items()
        }
        return cls(existing, current, infos)

    @property
    def path_arg(self) -> str:
        return os.pathsep.join(self.paths)


def _same_endpoint(a: str, b: str) -> bool:
    return a.rstrip("/").lower() == b.rstrip("/").lower()


def choose_context(
    kubeconfig: Kubeconfig,
    requested: str | None,
    eks_endpoint: str | None,
    eks_arn: str | None,
    fix: str,
) -> tuple[ContextInfo, str | None]:
    """The context to use and a note; KubeAccessError when it is not the cluster's EKS cluster.

    With --context, that context must point at the EKS cluster. Without it, the current
    context is used when it does; otherwise a context in the kubeconfig that does.
    """

    def matches(info: ContextInfo) -> bool:
        # The server URL decides when both are known; the entry's name (aws eks
        # update-kubeconfig names it after the cluster ARN) only when the endpoint is not.
        if eks_endpoint and info.server:
            return _same_endpoint(info.server, eks_endpoint)
        return bool(eks_arn) and info.cluster == eks_arn

    if requested is not None and requested not in kubeconfig.contexts:
        raise KubeAccessError(
            "wrong_context",
            f"kubeconfig context {requested!r} does not exist "
            f"(contexts: {', '.join(sorted(kubeconfig.contexts)) or 'none'})",
            fix,
        )
    name = requested or kubeconfig.current
    if name is None or name not in kubeconfig.contexts:
        candidates = [c for c in kubeconfig.contexts.values() if matches(c)]
        if candidates:
            return candidates[0], f"no current context; using {candidates[0].name!r}"
        raise KubeAccessError("no_config", "the kubeconfig has no current context", fix)
    chosen = kubeconfig.contexts[name]
    if not (eks_endpoint or eks_arn):
        return chosen, "the context could not be checked against the EKS cluster"
    if matches(chosen):
        return chosen, None
    target = eks_arn or eks_endpoint
    if requested is None:
        others = [c for c in kubeconfig.contexts.values() if matches(c)]
        if others:
            return others[0], (
                f"current context {name!r} points at {chosen.server or chosen.cluster}, not "
                f"{target}; using context {others[0].name!r}, which does"
            )
    raise KubeAccessError(
        "wrong_context",
        f"kubeconfig context {name!r} points at {chosen.server or chosen.cluster}, not at the "
        f"HyperPod cluster's EKS cluster {target}",
        fix,
    )


def _classify(
    exc: BaseException, what: str, server: str, refresh: str = UPDATE_KUBECONFIG
) -> KubeAccessError:
    if isinstance(exc, ApiException):
        if exc.status == 401:
            return KubeAccessError(
                "unauthenticated",
                f"the Kubernetes API at {server} rejected our credentials (401 Unauthorized) "
                f"on {what}",
                "give your IAM principal an EKS access entry (aws eks create-access-entry, "
                f"aws eks associate-access-policy) or refresh: {refresh}",
            )
        if exc.status == 403:
            return KubeAccessError(
                "forbidden",
                f"Forbidden: {what}: {_api_message(exc)}",
                "grant list/get on this resource (see the read-only ClusterRole in the guide)",
            )
        if exc.status == 404:
            return KubeAccessError("not_found", f"NotFound: {what} is not served by {server}")
        return KubeAccessError("error", f"Error: {what}: HTTP {exc.status} {_api_message(exc)}")
    if isinstance(exc, urllib3.exceptions.HTTPError | OSError):
        return KubeAccessError(
            "unreachable",
            f"Unreachable: the Kubernetes API at {server} cannot be reached ({type(exc).__name__})",
            "check that this machine can reach the EKS endpoint (VPN, private endpoint access, "
            "security group of the control plane)",
        )
    return KubeAccessError("error", f"Error: {what}: {type(exc).__name__}: {exc}")


def _api_message(exc: ApiException) -> str:
    try:
        return str(json.loads(exc.body or "{}").get("message") or exc.reason)
    except (ValueError, AttributeError):
        return str(exc.reason)


class _LogCollector(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(" ".join(record.getMessage().split()))


class KubeReader:
    """List, version and pod-log reads against one API server. Nothing else."""

    def __init__(
        self, api: ReadOnlyApiClient, context: ContextInfo, refresh: str = UPDATE_KUBECONFIG
    ) -> None:
        self._api = api
        self.refresh = refresh
        self.credential_problems: list[str] = []
        self.context = context
        self.server = context.server or api.configuration.host
        self.requests = 0

    @classmethod
    def connect(
        cls,
        kubeconfig: Kubeconfig,
        context: ContextInfo,
        pool_size: int = 16,
        refresh: str = UPDATE_KUBECONFIG,
    ) -> KubeReader:
        """`refresh` is the update-kubeconfig command to suggest, filled in by the caller."""
        configuration = k8s_client.Configuration()
        # The client logs (to the root logger) and carries on without a token when the exec
        # credential plugin fails; keep those messages to explain the 401 that follows.
        problems = _LogCollector()
        logging.getLogger().addHandler(problems)
        try:
            k8s_config.load_kube_config(
                config_file=kubeconfig.path_arg,
                context=context.name,
                client_configuration=configuration,
                persist_config=False,
            )
        except (k8s_config.ConfigException, OSError, ValueError) as exc:
            # Loading runs the exec credential plugin (aws eks get-token) when there is one.
            raise KubeAccessError(
                "unauthenticated",
                f"the credentials of kubeconfig context {context.name!r} could not be obtained: "
                f"{exc}",
                "check that the context's exec credential plugin (aws eks get-token) runs with "
                "your AWS credentials",
            ) from exc
        finally:
            logging.getLogger().removeHandler(problems)
        configuration.retries = 1
        configuration.connection_pool_maxsize = pool_size
        reader = cls(ReadOnlyApiClient(configuration), context, refresh)
        reader.credential_problems = problems.messages
        return reader

    def _get(self, path: str, query: list[tuple[str, Any]], what: str) -> bytes:
        self.requests += 1
        try:
            response = self._api.call_api(
                path,
                "GET",
                query_params=query,
                header_params={"Accept": "application/json"},
                auth_settings=["BearerToken"],
                _preload_content=False,
                _request_timeout=REQUEST_TIMEOUT,
            )
        except (ApiException, urllib3.exceptions.HTTPError, OSError) as exc:
            problem = _classify(exc, what, self.server, self.refresh)
            if problem.kind == "unauthenticated" and self.credential_problems:
                problem = KubeAccessError(
                    "unauthenticated",
                    f"the credentials of kubeconfig context {self.context.name!r} could not be "
                    f"obtained ({'; '.join(self.credential_problems)[:300]}), so the API server "
                    "answered 401",
                    "check that the context's exec credential plugin (aws eks get-token) runs "
                    "with your AWS credentials",
                )
            raise problem from exc
        data: bytes = response[0].data
        return data

    def version(self) -> dict[str, Any]:
        version: dict[str, Any] = json.loads(self._get("/version", [], "GET /version"))
        return version

    def list_pages(
        self,
        kind: str,
        namespace: str | None = None,
        label_selector: str | None = None,
        field_selector: str | None = None,
    ) -> Iterator[dict[str, Any]]:
        """The pages of a list call (limit/continue), each a parsed *List object."""
        prefix, plural, namespaced = RESOURCES[kind]
        path = (
            f"{prefix}/namespaces/{namespace}/{plural}"
            if namespaced and namespace
            else f"{prefix}/{plural}"
        )
        token: str | None = None
        while True:
            query: list[tuple[str, Any]] = [("limit", PAGE_LIMIT)]
            if label_selector:
                query.append(("labelSelector", label_selector))
            if field_selector:
                query.append(("fieldSelector", field_selector))
            if token:
                query.append(("continue", token))
            page: dict[str, Any] = json.loads(self._get(path, query, f"list {plural}"))
            yield page
            token = (page.get("metadata") or {}).get("continue") or None
            if not token:
                return

    def list(self, kind: str, namespace: str | None = None, **selectors: str | None) -> Any:
        items: list[Any] = []
        pages = 0
        for page in self.list_pages(kind, namespace, **selectors):
            pages += 1
            items.extend(page.get("items") or [])
        return {"kind": kind, "namespace": namespace, "pages": pages, "items": items}

    def pod_log(
        self,
        namespace: str,
        pod: str,
        container: str,
        previous: bool = False,
        tail_lines: int | None = None,
        limit_bytes: int | None = None,
    ) -> str:
        query: list[tuple[str, Any]] = [("container", container)]
        if previous:
            query.append(("previous", "true"))
        if tail_lines:
            query.append(("tailLines", tail_lines))
        if limit_bytes:
            query.append(("limitBytes", limit_bytes))
        data = self._get(
            f"/api/v1/namespaces/{namespace}/pods/{pod}/log",
            query,
            f"log of {namespace}/{pod}/{container}" + (" (previous)" if previous else ""),
        )
        return data.decode("utf-8", "replace")
