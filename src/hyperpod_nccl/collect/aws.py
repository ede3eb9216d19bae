"""Read-only access to AWS: clients that refuse every operation that is not on an allow-list
of read calls, before the request is even built.

The allow-list is enforced where a client is made: `AwsReader.client` hands out a
ReadOnlyClient, which exposes the allowed operations (and paginators for them) and nothing
else: a write, `_make_api_call` or any other way to send an arbitrary operation is refused on
access, whatever event handlers anyone registered or unregistered. A botocore
`before-parameter-build` hook on the session stays as a second guard, ahead of any other
handler (a Stubber included). Errors are sorted into the few kinds `diagnose` treats
differently: access denied, throttled (after botocore's own retries with backoff), not
found, unreachable, other.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import boto3
import botocore.config
import botocore.exceptions

from hyperpod_nccl import __version__

# Every AWS operation diagnose (and the tools built on it) may call. Nothing else leaves the
# process. StartQuery/GetQueryResults run a CloudWatch Logs Insights query: they read logs
# and change no resource.
READ_ONLY_OPERATIONS: dict[str, frozenset[str]] = {
    "sts": frozenset({"GetCallerIdentity"}),
    "sagemaker": frozenset(
        {
            "DescribeCluster",
            "ListClusters",
            "ListClusterNodes",
            "DescribeClusterNode",
            "ListClusterEvents",
            "DescribeClusterEvent",
        }
    ),
    "ec2": frozenset(
        {
            "DescribeSecurityGroups",
            "DescribeSubnets",
            "DescribeInstanceTypes",
        }
    ),
    "eks": frozenset({"DescribeCluster"}),
    "logs": frozenset(
        {
            "DescribeLogGroups",
            "StartQuery",
            "GetQueryResults",
        }
    ),
}

ACCESS_DENIED_CODES = frozenset(
    {
        "AccessDenied",
        "AccessDeniedException",
        "UnauthorizedOperation",
        "UnauthorizedAccess",
        "AuthorizationError",
    }
)
THROTTLING_CODES = frozenset(
    {
        "Throttling",
        "ThrottlingException",
        "ThrottledException",
        "RequestLimitExceeded",
        "TooManyRequestsException",
        "RequestThrottled",
        "RequestThrottledException",
        "SlowDown",
        "LimitExceededException",
    }
)
INVALID_CREDENTIAL_CODES = frozenset(
    {
        "InvalidClientTokenId",
        "SignatureDoesNotMatch",
        "ExpiredToken",
        "ExpiredTokenException",
        "UnrecognizedClientException",
        "InvalidAccessKeyId",
        "AuthFailure",
        "InvalidToken",
    }
)
NOT_FOUND_CODES = frozenset({"ResourceNotFound", "ResourceNotFoundException", "NotFoundException"})

# Retries: botocore's standard mode retries throttling and transient errors with jittered
# exponential backoff; what still fails after that is recorded as throttled (INCOMPLETE).
DEFAULT_MAX_ATTEMPTS = 5


class ReadOnlyViolation(RuntimeError):
    """An AWS or Kubernetes call that could change state was attempted and refused."""


class CredentialsError(Exception):
    """No AWS credentials, or AWS rejected them; the message says which and how to fix it."""


def _refuse_writes(model: Any, **_: Any) -> None:
    service = model.service_model.service_name
    allowed = READ_ONLY_OPERATIONS.get(service, frozenset())
    if model.name not in allowed:
        raise ReadOnlyViolation(_refusal(service, model.name))


# What a ReadOnlyClient exposes besides the allowed operations: nothing that sends a request.
_CLIENT_ATTRIBUTES = frozenset({"meta", "exceptions", "can_paginate", "waiter_names"})


class ReadOnlyClient:
    """A botocore client with only its allow-listed read operations reachable."""

    __slots__ = ("_allowed", "_client", "_operations", "_service")

    def __init__(self, client: Any, service: str) -> None:
        from botocore import xform_name

        allowed = READ_ONLY_OPERATIONS.get(service, frozenset())
        names = client.meta.service_model.operation_names
        object.__setattr__(self, "_client", client)
        object.__setattr__(self, "_service", service)
        object.__setattr__(self, "_allowed", allowed)
        # python_name -> OperationName, for every operation the service has
        object.__setattr__(self, "_operations", {xform_name(n): n for n in names})

    def __getattr__(self, name: str) -> Any:
        operation = self._operations.get(name)
        if operation is not None:
            if operation not in self._allowed:
                raise ReadOnlyViolation(_refusal(self._service, operation))
            return getattr(self._client, name)
        if name in _CLIENT_ATTRIBUTES:
            return getattr(self._client, name)
        raise ReadOnlyViolation(
            f"refused {self._service} client attribute {name!r}: hyperpod-nccl only reads, "
            "through the allow-listed operations"
        )

    def __setattr__(self, name: str, value: Any) -> None:
        raise ReadOnlyViolation(f"refused to change {name!r} of a read-only AWS client")

    def get_paginator(self, operation: str) -> Any:
        name = self._operations.get(operation, operation)
        if name not in self._allowed:
            raise ReadOnlyViolation(_refusal(self._service, name))
        return self._client.get_paginator(operation)


def _refusal(service: str, operation: str) -> str:
    return (
        f"refused {service}:{operation}: hyperpod-nccl only reads, and this operation "
        "is not on its read-only allow-list"
    )


@dataclass(frozen=True)
class CallFailure:
    """Why an AWS call produced nothing, sorted into the kinds checks react to."""

    kind: str  # access_denied | throttled | not_found | unreachable | error
    action: str  # e.g. ec2:DescribeSecurityGroups
    code: str
    message: str

    def reason(self) -> str:
        """The one-line reason recorded in the snapshot; checks read the leading kind."""
        label = {
            "access_denied": "AccessDenied",
            "throttled": "Throttled",
            "not_found": "NotFound",
            "unreachable": "Unreachable",
        }.get(self.kind, "Error")
        return f"{label}: {self.action}: {self.message}"


def classify_error(exc: BaseException, action: str) -> CallFailure:
    if isinstance(exc, botocore.exceptions.ClientError):
        error = exc.response.get("Error", {})
        code = str(error.get("Code") or "")
        message = " ".join(str(error.get("Message") or code or exc).split())
        status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
        rejected = code in INVALID_CREDENTIAL_CODES or "SignatureDoesNotMatch" in message
        if message.startswith("<"):  # an HTML error page, not an AWS error document
            message = f"HTTP {status} with a non-AWS error page"
        if code in ACCESS_DENIED_CODES or (
            status == 403 and not rejected and code not in THROTTLING_CODES
        ):
            kind = "access_denied"
        elif code in THROTTLING_CODES or status == 429:
            attempts = exc.response.get("ResponseMetadata", {}).get("RetryAttempts", 0)
            message = f"{message} (still throttled after {int(attempts) + 1} attempts)"
            kind = "throttled"
        elif code in NOT_FOUND_CODES or status == 404:
            kind = "not_found"
        else:
            kind = "error"
        return CallFailure(kind, action, code or str(status), message[:500])
    if isinstance(
        exc,
        botocore.exceptions.EndpointConnectionError
        | botocore.exceptions.ConnectTimeoutError
        | botocore.exceptions.ReadTimeoutError
        | botocore.exceptions.ConnectionClosedError,
    ):
        return CallFailure("unreachable", action, type(exc).__name__, str(exc)[:500])
    return CallFailure("error", action, type(exc).__name__, str(exc)[:500])


def iam_action(service: str, operation: str) -> str:
    """The IAM action name of an API operation (`ec2:DescribeSecurityGroups`)."""
    return f"{service}:{operation}"


class AwsReader:
    """A read-only boto3 session with one client per service, shared by worker threads.

    Clients are created up front under a lock (boto3 sessions are not thread-safe); botocore
    clients themselves are safe to share between threads.
    """

    def __init__(
        self,
        region: str,
        profile: str | None = None,
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
        max_pool_connections: int = 16,
    ) -> None:
        try:
            self._session = boto3.Session(profile_name=profile, region_name=region)
        except botocore.exceptions.ProfileNotFound as exc:
            raise CredentialsError(f"AWS profile not found: {exc}") from exc
        self.region = region
        self._session.events.register("before-parameter-build", _refuse_writes)
        self._config = botocore.config.Config(
            region_name=region,
            retries={"mode": "standard", "total_max_attempts": max_attempts},
            connect_timeout=10,
            read_timeout=60,
            max_pool_connections=max_pool_connections,
            user_agent_extra=f"hyperpod-nccl/{__version__}",
        )
        self._clients: dict[str, ReadOnlyClient] = {}
        self._lock = threading.Lock()

    def client(self, service: str) -> ReadOnlyClient:
        """The service's client, with only its allow-listed reads reachable."""
        with self._lock:
            if service not in self._clients:
                raw = self._session.client(service, config=self._config)
                self._clients[service] = ReadOnlyClient(raw, service)
            return self._clients[service]

    def on(self, event: str, handler: Callable[..., Any]) -> None:
        """Register a botocore event handler on every client (used to count calls)."""
        self._session.events.register(event, handler)

    def caller_identity(self) -> dict[str, Any]:
        """Who we are; turns missing or rejected credentials into a CredentialsError."""
        try:
            identity: dict[str, Any] = self.client("sts").get_caller_identity()
        except botocore.exceptions.NoCredentialsError as exc:
            raise CredentialsError(
                "no AWS credentials found: set AWS_PROFILE (or --profile), environment "
                "variables, or run where an instance or pod role is available"
            ) from exc
        except (
            botocore.exceptions.PartialCredentialsError,
            botocore.exceptions.CredentialRetrievalError,
            botocore.exceptions.TokenRetrievalError,
            botocore.exceptions.SSOTokenLoadError,
        ) as exc:
            raise CredentialsError(f"AWS credentials could not be loaded: {exc}") from exc
        except botocore.exceptions.ClientError as exc:
            failure = classify_error(exc, "sts:GetCallerIdentity")
            if failure.code in INVALID_CREDENTIAL_CODES:
                raise CredentialsError(
                    f"AWS rejected the credentials ({failure.code}: {failure.message}); "
                    "refresh them (e.g. aws sso login) or pick another profile"
                ) from exc
            raise CredentialsError(
                f"cannot verify AWS credentials: {failure.code}: {failure.message}"
            ) from exc
        except botocore.exceptions.BotoCoreError as exc:
            raise CredentialsError(f"cannot reach AWS STS in {self.region}: {exc}") from exc
        identity.pop("ResponseMetadata", None)
        return identity

    def paginate(self, service: str, operation: str, **params: Any) -> Iterator[dict[str, Any]]:
        """The pages of a paginated read, each without its ResponseMetadata."""
        paginator = self.client(service).get_paginator(operation)
        for page in paginator.paginate(**params):
            page.pop("ResponseMetadata", None)
            yield page

    def call(self, service: str, operation: str, **params: Any) -> dict[str, Any]:
        response: dict[str, Any] = getattr(self.client(service), operation)(**params)
        response.pop("ResponseMetadata", None)
        return response
