"""Classifiers: pick a finding code (and status) from a rule's captures, for rules whose code
depends on what was captured (an Xid number, a CUDA error string); None when the captures
show the line is no failure at all (a retry that is not the last)."""

from __future__ import annotations

import re
from collections.abc import Callable

from hyperpod_nccl.model import Status
from hyperpod_nccl.rules.dcgm import dcgm_error_code
from hyperpod_nccl.rules.topics import (
    failure_topic,
    informational,
    prose,
    source_location_only,
)
from hyperpod_nccl.rules.xid import xid_info

Classification = tuple[str, Status]


# The driver's own words for a link fault ('NVLink: fatal error detected on link 6(...)', its
# Xid 74 text) name NVLink whatever number a relay puts before them.
_NVLINK_XID_TEXT = re.compile(r"\bNVLink: fatal error detected on link\b")


def classify_xid(captures: dict[str, str]) -> Classification:
    info = xid_info(int(captures.get("xid") or 0))
    if _NVLINK_XID_TEXT.search(captures.get("xid_text") or ""):
        return "NVLINK_ERROR", Status.FAIL
    return info.code, info.status


# Substrings of CUDA error strings, most specific first, and the code each points at.
_CUDA_MESSAGES: tuple[tuple[str, str], ...] = (
    ("out of memory", "CUDA_OOM"),
    ("uncorrectable ecc", "GPU_ECC"),
    ("system not yet initiali", "NVLINK_ERROR"),
    ("driver version is insufficient", "DRIVER_MISMATCH"),
    ("driver on your system is too old", "DRIVER_MISMATCH"),
    ("forward compatibility was attempted", "DRIVER_MISMATCH"),
    ("unsupported display driver", "DRIVER_MISMATCH"),
    ("stub library", "DRIVER_MISMATCH"),
    # cudaErrorCallRequiresNewerDriver (36): the runtime needs a newer driver for this call
    ("not supported in the installed cuda driver", "DRIVER_MISMATCH"),
    ("requiresnewerdriver", "DRIVER_MISMATCH"),
    # CUresult names, read with their underscores as spaces (CUDA_ERROR_ECC_UNCORRECTABLE)
    ("ecc uncorrectable", "GPU_ECC"),
    ("system not ready", "NVLINK_ERROR"),
    ("insufficient driver", "DRIVER_MISMATCH"),
    # the error enums' own names, camel-cased (hipErrorOutOfMemory, cudaErrorMemoryAllocation)
    ("outofmemory", "CUDA_OOM"),
    ("memoryallocation", "CUDA_OOM"),
)


def classify_cuda_error(captures: dict[str, str]) -> Classification:
    text = " ".join(v for k, v in captures.items() if k.startswith(("cuda_", "test_")) and v)
    lowered = text.lower().replace("_", " ")
    for needle, code in _CUDA_MESSAGES:
        if needle in lowered:
            return code, Status.FAIL
    return "CUDA_ERROR", Status.FAIL


def classify_proxy_recv(captures: dict[str, str]) -> Classification | None:
    """NCCL's proxy service could not read from a local rank's socket. Its result says why
    (src/misc/socket.cc socketProgressOpt): 3 (ncclInternalError) is this process's own abort
    flag, set when its communicator is aborted (a teardown, or after another failure logged
    on its own lines): no peer went away. Any other result is the socket failing under it."""
    if captures.get("res") == "3":
        return None
    return "PEER_EXITED", Status.FAIL


def classify_connect_retry(captures: dict[str, str]) -> Classification | None:
    """NCCL's counted connect retry '(n/N)': the last one (n = N) means every try failed."""
    retry, retries = captures.get("retry", ""), captures.get("retries", "")
    if retry.isdigit() and retries.isdigit() and int(retry) >= int(retries):
        return "NET_UNREACHABLE", Status.FAIL
    return None


# Exceptions that only relay a child process's end (torch/multiprocessing/spawn.py): its exit
# status (ProcessExitedException), read by the exit-code and signal rules, or its traceback
# (ProcessRaisedException, '-- Process N terminated with the following error:' and the
# child's own lines), whose last exception the rules read where it stands.
# py4j's Py4JJavaError ('An error occurred while calling ...') relays the Java exception
# whose trace follows it, with a Python worker's own traceback inside when one failed.
_RELAYING_EXCEPTIONS = frozenset(
    {"ProcessExitedException", "ProcessRaisedException", "Py4JJavaError"}
)
# Spark's DAGScheduler aborts a job when a task failed ('Job aborted due to stage failure:
# ... Most recent failure reason: ...'), the task's own exception printed after it; an
# exception whose message is a traceback's header (Spark's PythonException) carries a Python
# worker's traceback, read where it stands. Any exception name: "" prefixes every name.
_RELAYING_MESSAGES = (
    ("SparkException", "Job aborted due to stage failure"),
    ("", "Traceback (most recent call last)"),
)

# CPython raises MemoryError when an allocation fails (PyErr_NoMemory), numpy its subclass
# _ArrayMemoryError ('Unable to allocate ... for an array'): the host's or the container's
# memory ran out, not the GPU's.
_HOST_MEMORY_EXCEPTIONS = frozenset({"MemoryError", "_ArrayMemoryError"})


# Exceptions that wrap a failed CUDA call, whose message is the CUDA error: CuPy's and
# cuda-python's runtime and driver errors, Numba's CUDA API and support errors.
_CUDA_EXCEPTIONS = frozenset(
    {"CUDARuntimeError", "CUDADriverError", "CudaAPIError", "CudaSupportError"}
)


# Words of CUDA in an exception's message most often name a device ('cuda:1'), not a failed
# CUDA call: the CUDA rules read those calls' own messages.
_EXCEPTION_TOPICS_SKIPPED = frozenset({"CUDA_ERROR"})


def classify_python_exception(captures: dict[str, str]) -> Classification | None:
    """A Python exception that ends the process, unless it only reports a child's exit; an
    exception whose message names what failed (rules/topics.py) is that failure, inferred."""
    name = (
        captures.get("exception") or captures.get("exception2") or captures.get("exception3") or ""
    )
    message = captures.get("message") or captures.get("message3") or ""
    if name in _RELAYING_EXCEPTIONS or any(
        name.startswith(relay) and message.startswith(words) for relay, words in _RELAYING_MESSAGES
    ):
        # A failure, but what it relays names the cause: the fallback code, which any
        # classified failure on the lines it relays outranks (alone, the log still failed).
        return "UNCLASSIFIED_FAILURE", Status.FAIL
    if name.rsplit(".", 1)[-1] in _HOST_MEMORY_EXCEPTIONS:
        return "CONTAINER_OOM", Status.FAIL
    if name.rsplit(".", 1)[-1] in _CUDA_EXCEPTIONS:
        return classify_cuda_error({"cuda_err": message})
    if source_location_only(message):
        # C++ errors raised into Python ('RuntimeError: [.../unbound_buffer.cc:78]') put their
        # text on the next line, which the rules read for itself.
        return None
    topic = failure_topic(message)
    if topic and topic not in _EXCEPTION_TOPICS_SKIPPED:
        return topic, Status.FAIL
    return "APP_EXCEPTION", Status.FAIL


# Signal numbers (Linux) by what their death means here: SIGKILL is the OOM killer's; a fault
# signal is the process's own crash; SIGTERM, SIGINT and SIGHUP come from outside.
_SIGNAL_CODES = {
    9: "CONTAINER_OOM",
    11: "RANK_CRASH",
    7: "RANK_CRASH",
    4: "RANK_CRASH",
    8: "RANK_CRASH",
    6: "RANK_CRASH",
    15: "EXTERNAL_SIGNAL",
    2: "EXTERNAL_SIGNAL",
    1: "EXTERNAL_SIGNAL",
}


# Signal names as Go prints them (captured as sig<name>), by number.
_NAMED_SIGNALS = {"sigint": 2, "sigterm": 15, "sighup": 1, "sigsegv": 11, "sigabrt": 6}
_NAMED_SIGNALS |= {"sigbus": 7, "sigkill": 9}


def classify_hydra_signal(captures: dict[str, str]) -> Classification | None:
    """A launcher's report of the signal a rank died of."""
    named = next((_NAMED_SIGNALS[k] for k in captures if k in _NAMED_SIGNALS), None)
    if named is not None:
        return _SIGNAL_CODES.get(named, "RANK_CRASH"), Status.FAIL
    signal = next((v for k, v in sorted(captures.items()) if k.startswith("signal") and v), "")
    code = _SIGNAL_CODES.get(int(signal)) if signal.isdigit() else None
    return (code, Status.FAIL) if code else None


def classify_store_error(captures: dict[str, str]) -> Classification:
    """The store's own error under a failed exchange through it: a peer gone, a connection or
    a name that failed, else the exchange (the rendezvous) failed."""
    topic = failure_topic(captures.get("why") or "")
    if topic in _STORE_ERROR_TOPICS:
        return topic, Status.FAIL
    return "RENDEZVOUS_FAILURE", Status.FAIL


_STORE_ERROR_TOPICS = frozenset({"PEER_EXITED", "NET_UNREACHABLE", "MASTER_ADDR_DNS"})


# ncclGetErrorString's texts (NVIDIA/nccl src/misc/utils.cc), as another program quotes a
# failed call's result; 'unhandled system error' and 'internal error' name no cause.
_NCCL_RESULTS: tuple[tuple[str, str], ...] = (
    ("unhandled cuda error", "CUDA_ERROR"),
    ("invalid usage", "NCCL_INVALID_USAGE"),
    ("invalid argument", "NCCL_INVALID_USAGE"),
    ("remote process exited", "PEER_EXITED"),
)


# The canonical codes of an absl / gRPC status, as TensorFlow and XLA print them ('Unavailable:
# ...', 'UNAVAILABLE: ...', 'Invalid argument: ...'), and what each means for a collective.
_STATUS_CODES: tuple[tuple[str, str], ...] = (
    ("unavailable: socket closed", "PEER_EXITED"),
    ("unavailable: connection reset", "PEER_EXITED"),
    ("unavailable: failed to connect", "NET_UNREACHABLE"),
    ("resource exhausted: out of memory", "CUDA_OOM"),
    ("invalid argument", "APP_EXCEPTION"),
    ("failed precondition", "APP_EXCEPTION"),
    ("out of range", "APP_EXCEPTION"),
)


def _by_prefix(table: tuple[tuple[str, str], ...], text: str) -> str | None:
    """The code of the first entry the text begins with."""
    return next((code for start, code in table if text.startswith(start)), None)


def classify_status_error(captures: dict[str, str]) -> Classification:
    """The status a collective was aborted with: its code (and for Unavailable, its text)
    says whether a peer went away, a connection failed or the step's own op failed."""
    status = (captures.get("why") or captures.get("why2") or "").lower().replace("_", " ")
    code = _by_prefix(_STATUS_CODES, status) or failure_topic(status) or "UNCLASSIFIED_FAILURE"
    return code, Status.FAIL


# CUresult numbers (cuda.h) whose failure names a cause; 800 and the rest are CUDA errors.
_CU_RESULTS = {2: "CUDA_OOM", 214: "GPU_ECC", 802: "NVLINK_ERROR", 803: "DRIVER_MISMATCH"}
_CU_CALL_FAILED = re.compile(r"\bcu[A-Z][A-Za-z0-9_]* failed")
_IB_TRANSPORTS = re.compile(r"ibrc|ibgda|ibdevx|\bib\b", re.IGNORECASE)


def classify_nvshmem_error(captures: dict[str, str]) -> Classification:
    """An NVSHMEM error check: a CUDA driver call's CUresult, else the transport that failed
    (verbs or libfabric), else the message's own words."""
    message = captures.get("message") or captures.get("message2") or ""
    status = captures.get("status") or ""
    if _CU_CALL_FAILED.search(message):
        number = int(status) if status.lstrip("-").isdigit() else 0
        return _CU_RESULTS.get(number, "CUDA_ERROR"), Status.FAIL
    where = " ".join(captures.get(k) or "" for k in ("file", "file2", "transport"))
    if "libfabric" in where.lower():
        return "EFA_ERROR", Status.FAIL
    if _IB_TRANSPORTS.search(where):
        return "IB_ERROR", Status.FAIL
    return failure_topic(message) or "UNCLASSIFIED_FAILURE", Status.FAIL


def classify_nccl_result(captures: dict[str, str]) -> Classification:
    """A NCCL call's result string, quoted by the program that made the call."""
    result = next((v for k, v in sorted(captures.items()) if k.startswith("result") and v), "")
    result = result.lower()
    return _by_prefix(_NCCL_RESULTS, result) or "UNCLASSIFIED_FAILURE", Status.FAIL


# Generic failure lines (the catalog's last rules): the code their words point at
# (rules/topics.py), else what each kind of line is without one.
def classify_failure_line(captures: dict[str, str], text: str) -> Classification:
    """A line that shows a failure (a NCCL WARN, an error-level glog line, a launcher's error)."""
    return (failure_topic(text) or "UNCLASSIFIED_FAILURE", Status.FAIL)


def classify_neuron_runtime(captures: dict[str, str], text: str) -> Classification | None:
    """A Neuron runtime ERROR record: a failure line, except the host context its failure
    dump prints at the same level (only the dump's 'Failure:' line says what failed)."""
    if captures.get("function") == "nrt_infodump" and not (
        captures.get("message") or ""
    ).startswith("Failure:"):
        return None
    return classify_failure_line(captures, text)


def classify_error_level(captures: dict[str, str], text: str) -> Classification:
    """A logger's error level: a failure when its words name one; otherwise a warning, since
    programs log at error level what they then recover from (a missing optional file)."""
    topic = failure_topic(text)
    return (topic, Status.FAIL) if topic else ("UNCLASSIFIED_FAILURE", Status.WARN)


def classify_failure_words(captures: dict[str, str], text: str) -> Classification | None:
    """Failure words ('failed', 'cannot', 'unable to') on a line of no known shape: a finding
    only when they also name what failed, never at an informational or warning level, and
    never in a sentence of the person who pasted the log."""
    if informational(text) or prose(text):
        return None
    topic = failure_topic(text)
    return (topic, Status.FAIL) if topic else None


def classify_dcgm_health(captures: dict[str, str]) -> Classification:
    """A DCGM error number a health watch relayed: what it names (rules/dcgm.py); a failure
    when the relay calls it fatal or gives no severity, else a warning."""
    number = captures.get("dcgm_code") or captures.get("dcgm_code2") or "0"
    severity = (captures.get("severity") or "fatal").lower()
    status = Status.FAIL if severity in ("fatal", "critical", "error") else Status.WARN
    return dcgm_error_code(int(number)), status


Classifier = Callable[[dict[str, str], str], Classification | None]


def _captures_only(
    classify: Callable[[dict[str, str]], Classification | None],
) -> Classifier:
    return lambda captures, _text: classify(captures)


CLASSIFIERS: dict[str, Classifier] = {
    "xid": _captures_only(classify_xid),
    "cuda_error": _captures_only(classify_cuda_error),
    "connect_retry": _captures_only(classify_connect_retry),
    "proxy_recv": _captures_only(classify_proxy_recv),
    "python_exception": _captures_only(classify_python_exception),
    "hydra_signal": _captures_only(classify_hydra_signal),
    "store_error": _captures_only(classify_store_error),
    "nccl_result": _captures_only(classify_nccl_result),
    "nvshmem_error": _captures_only(classify_nvshmem_error),
    "status_error": _captures_only(classify_status_error),
    "dcgm_health": _captures_only(classify_dcgm_health),
    "failure_line": classify_failure_line,
    "neuron_runtime": classify_neuron_runtime,
    "error_level": classify_error_level,
    "failure_words": classify_failure_words,
}
# The classifiers whose codes are inferred from a line's words, not read from its shape, each
# with the codes it reads from the shape (a traceback's last line is APP_EXCEPTION by its shape).
INFERRING: dict[str, frozenset[str]] = {
    "failure_line": frozenset(),
    "error_level": frozenset(),
    "failure_words": frozenset(),
    "python_exception": frozenset({"APP_EXCEPTION"}),
}
