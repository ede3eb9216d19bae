"""A small read-only Kubernetes API server on loopback for the diagnose tests.

It serves objects from fixture files to the official `kubernetes` client over real HTTP:
discovery (`/version`), list calls for the resources `diagnose` reads (core, apps, batch,
networking and the training-job custom resources), `limit`/`continue` pagination,
`labelSelector` and `fieldSelector` (`=`, `==`, `!=`), and pod logs with `container`,
`previous`, `tailLines` and `limitBytes`. Authentication is a bearer token: a wrong or
missing token gets 401, and resources listed in `forbidden` get 403, as a real API server
with RBAC answers. Every request is recorded; writes get 405 (and the tests assert none is
ever sent).

Fixture directory layout: `<plural>.json` (a JSON list or a *List object) per resource,
`logs/<namespace>/<pod>/<container>.log` and `.../<container>.previous.log`.
"""

from __future__ import annotations

import base64
import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

# plural -> (API prefix, kind, namespaced)
RESOURCES: dict[str, tuple[str, str, bool]] = {
    "nodes": ("/api/v1", "Node", False),
    "namespaces": ("/api/v1", "Namespace", False),
    "pods": ("/api/v1", "Pod", True),
    "services": ("/api/v1", "Service", True),
    "events": ("/api/v1", "Event", True),
    "networkpolicies": ("/apis/networking.k8s.io/v1", "NetworkPolicy", True),
    "daemonsets": ("/apis/apps/v1", "DaemonSet", True),
    "jobs": ("/apis/batch/v1", "Job", True),
    "pytorchjobs": ("/apis/kubeflow.org/v1", "PyTorchJob", True),
    "mpijobs": ("/apis/kubeflow.org/v2beta1", "MPIJob", True),
    "hyperpodpytorchjobs": ("/apis/sagemaker.amazonaws.com/v1", "HyperPodPyTorchJob", True),
}
_PATH = re.compile(
    r"^(?P<prefix>/api/v1|/apis/[a-z0-9.-]+/[a-z0-9]+)"
    r"(?:/namespaces/(?P<ns>[^/]+))?/(?P<plural>[a-z]+)(?:/(?P<name>[^/]+)(?:/(?P<sub>log))?)?$"
)


def status(code: int, reason: str, message: str) -> dict[str, Any]:
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    }


def _labels(obj: dict[str, Any]) -> dict[str, str]:
    return (obj.get("metadata") or {}).get("labels") or {}


def match_labels(obj: dict[str, Any], selector: str) -> bool:
    labels = _labels(obj)
    for term in filter(None, (t.strip() for t in selector.split(","))):
        if "!=" in term:
            key, value = term.split("!=", 1)
            if labels.get(key.strip()) == value.strip():
                return False
        elif "=" in term:
            key, value = re.split(r"==?", term, maxsplit=1)
            if labels.get(key.strip()) != value.strip():
                return False
        elif term.startswith("!"):
            if term[1:] in labels:
                return False
        elif term not in labels:
            return False
    return True


def _dig(obj: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        obj = obj.get(part) if isinstance(obj, dict) else None
    return obj


def match_fields(obj: dict[str, Any], selector: str) -> bool:
    for term in filter(None, (t.strip() for t in selector.split(","))):
        negate = "!=" in term
        key, value = re.split(r"!=|==|=", term, maxsplit=1)
        got = _dig(obj, key.strip())
        got = "" if got is None else str(got)
        if (got == value.strip()) == negate:
            return False
    return True


@dataclass
class Store:
    fixtures: Path
    objects: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    @classmethod
    def load(cls, fixtures: Path) -> Store:
        store = cls(fixtures)
        for plural, (prefix, kind, _) in RESOURCES.items():
            path = fixtures / f"{plural}.json"
            data = json.loads(path.read_text()) if path.exists() else []
            items = data.get("items", []) if isinstance(data, dict) else data
            for obj in items:
                obj.setdefault("kind", kind)
                obj.setdefault("apiVersion", prefix.removeprefix("/apis/").removeprefix("/api/"))
                obj.setdefault("metadata", {})
            store.objects[plural] = items
        if not store.objects["namespaces"]:
            names = sorted(
                {
                    o["metadata"].get("namespace", "default")
                    for plural, (_, _, namespaced) in RESOURCES.items()
                    if namespaced
                    for o in store.objects[plural]
                }
            )
            store.objects["namespaces"] = [
                {
                    "kind": "Namespace",
                    "apiVersion": "v1",
                    "metadata": {"name": n, "labels": {"kubernetes.io/metadata.name": n}},
                }
                for n in names
            ]
        return store

    def log(self, ns: str, pod: str, container: str | None, previous: bool) -> str | None:
        base = self.fixtures / "logs" / ns / pod
        if container is None:
            found = sorted(base.glob("*.log")) if base.is_dir() else []
            found = [f for f in found if not f.name.endswith(".previous.log")]
            if not found:
                return None
            container = found[0].name.removesuffix(".log")
        path = base / (f"{container}.previous.log" if previous else f"{container}.log")
        return path.read_text() if path.exists() else None


class Handler(BaseHTTPRequestHandler):
    server: FakeApiServer  # type: ignore[assignment]
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # requests are kept in .requests
        pass

    def _send(self, code: int, body: Any, content_type: str = "application/json") -> None:
        data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(url.query).items()}
        path = url.path.rstrip("/") or "/"
        self.server.record("GET", path, query, self.headers.get("Authorization"))
        if self.headers.get("Authorization") != f"Bearer {self.server.token}":
            return self._send(401, status(401, "Unauthorized", "Unauthorized"))
        if path == "/version":
            return self._send(
                200,
                {
                    "major": "1",
                    "minor": "31",
                    "gitVersion": "v1.31.4-eks-2d5f260",
                    "platform": "linux/amd64",
                },
            )
        match = _PATH.match(path)
        if not match or match["plural"] not in RESOURCES:
            return self._send(
                404,
                status(
                    404, "NotFound", f"the server could not find the requested resource ({path})"
                ),
            )
        plural, ns, name, sub = match["plural"], match["ns"], match["name"], match["sub"]
        prefix, kind, _ = RESOURCES[plural]
        if match["prefix"] != prefix or plural in self.server.missing_apis:
            return self._send(
                404,
                status(
                    404, "NotFound", f"the server could not find the requested resource ({path})"
                ),
            )
        if plural in self.server.forbidden:
            return self._send(
                403,
                status(
                    403,
                    "Forbidden",
                    f'{plural} is forbidden: User "diagnose" cannot list resource "{plural}"',
                ),
            )
        items = self.server.store.objects[plural]
        if ns:
            items = [o for o in items if o["metadata"].get("namespace", "default") == ns]
        if name:
            found = [o for o in items if o["metadata"].get("name") == name]
            if not found:
                return self._send(404, status(404, "NotFound", f'{plural} "{name}" not found'))
            if sub == "log":
                return self._log(ns or "default", name, query)
            return self._send(200, found[0])
        if "labelSelector" in query:
            items = [o for o in items if match_labels(o, query["labelSelector"])]
        if "fieldSelector" in query:
            items = [o for o in items if match_fields(o, query["fieldSelector"])]
        start = int(base64.b64decode(query["continue"]).decode()) if query.get("continue") else 0
        limit = int(query.get("limit") or 0)
        page = items[start : start + limit] if limit else items[start:]
        metadata: dict[str, Any] = {"resourceVersion": "4242"}
        if limit and start + limit < len(items):
            metadata["continue"] = base64.b64encode(str(start + limit).encode()).decode()
            metadata["remainingItemCount"] = len(items) - start - limit
        return self._send(
            200, {"kind": f"{kind}List", "apiVersion": "v1", "metadata": metadata, "items": page}
        )

    def _log(self, ns: str, pod: str, query: dict[str, str]) -> None:
        previous = query.get("previous") == "true"
        text = self.server.store.log(ns, pod, query.get("container"), previous)
        if text is None:
            what = "previous terminated container" if previous else "container"
            return self._send(
                400,
                status(
                    400, "BadRequest", f'{what} "{query.get("container")}" in pod "{pod}" not found'
                ),
            )
        if "tailLines" in query:
            lines = text.splitlines(keepends=True)
            tail = int(query["tailLines"])
            text = "".join(lines[-tail:]) if tail > 0 else ""
        if "limitBytes" in query:
            text = text.encode()[: int(query["limitBytes"])].decode("utf-8", "ignore")
        return self._send(200, text, "text/plain")

    def _refuse(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        self.server.record(self.command, self.path, {}, self.headers.get("Authorization"))
        self._send(405, status(405, "MethodNotAllowed", "the fake API server is read-only"))

    do_POST = do_PUT = do_PATCH = do_DELETE = _refuse


class FakeApiServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, fixtures: Path, token: str = "k8s-aws-v1.fake-token") -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.store = Store.load(fixtures)
        self.token = token
        self.forbidden: set[str] = set()
        self.missing_apis: set[str] = set()
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def record(self, method: str, path: str, query: dict[str, str], auth: str | None) -> None:
        with self._lock:
            self.requests.append({"method": method, "path": path, "query": query, "auth": auth})

    def start(self) -> FakeApiServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()


def write_kubeconfig(
    path: Path,
    server: str,
    cluster_name: str,
    token: str,
    context: str = "eks",
    extra: dict[str, str] | None = None,
) -> Path:
    """A kubeconfig as `aws eks update-kubeconfig` writes it (cluster entry named by the EKS
    ARN), with a static token instead of the exec plugin; `extra` adds more contexts
    (name -> server) that point elsewhere."""
    clusters = [{"name": cluster_name, "cluster": {"server": server}}]
    contexts = [{"name": context, "context": {"cluster": cluster_name, "user": "diagnose"}}]
    for name, other in (extra or {}).items():
        clusters.append({"name": f"{name}-cluster", "cluster": {"server": other}})
        contexts.append(
            {"name": name, "context": {"cluster": f"{name}-cluster", "user": "diagnose"}}
        )
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "current-context": context,
        "clusters": clusters,
        "contexts": contexts,
        "users": [{"name": "diagnose", "user": {"token": token}}],
    }
    path.write_text(json.dumps(config, indent=1))
    return path
