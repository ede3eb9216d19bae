"""What a failure line that no rule reads is about, from its words.

A failure line of a program the catalog has not read (a daemon's `[ERROR]`, a kernel driver's
`Failed to ...`, a scheduler's event) still names what failed: the fabric manager, NVML, a
verbs QP, a host name that does not resolve. Each topic below is one finding code and the
words its programs use for the thing that failed (NVIDIA's driver, NVML, fabric manager and
CUDA; libibverbs and mlx5; libfabric and EFA; glibc's resolver; the kubelet and the
scheduler; Slurm and PBS). The first topic whose words a line holds, most specific first,
names the code; a line with none stays unclassified.

Such a code is only inferred: the diagnosis keeps it out of the way of a classified failure
that it does not explain (rules/diagnosis.py), as it does for unclassified lines. The words
were chosen from the programs' vocabularies, then checked against every line of the corpora
(tests/fixtures/corpus): a line at an informational level, a person's sentence, a comment or
a failure to release something at teardown names nothing whatever words it holds.
"""

from __future__ import annotations

import re

# (code, words), most specific first: an ECC or Xid line names the GPU and often CUDA, a
# fabric-manager line names NVLink, an NVML line may name the driver.
_TOPICS: tuple[tuple[str, str], ...] = (
    ("GPU_ECC", r"\becc\b|uncorrectable (?:ecc|memory error)|row.?remap"),
    (
        "GPU_XID",
        r"\bxid\b|fallen off the bus|gpu is lost|gpu reset|gpu hang|\bring [a-z_0-9.]+ timeout",
    ),
    ("NVLINK_ERROR", r"nvlink|nvswitch|fabric ?manager|\bimex\b"),
    (
        "DRIVER_MISMATCH",
        r"driver/library version|libnvidia-ml|libcuda\.so|container toolkit|driver version",
    ),
    ("GPU_ACCESS_LOST", r"\bnvml\b|no nvidia (?:device|gpu)"),
    (
        "CUDA_OOM",
        r"(?:cuda[a-z]*|gpu|device|hip)\b.*out of memory|out of memory.*\b(?:cuda|gpu|device|hip)\b"
        r"|cuda ?malloc|outofmemoryerror|erroroutofmemory|errormemoryallocation"
        r"|memory space failed to allocate"
        # RMM's allocator (RAPIDS, XGBoost's GPU memory): 'std::bad_alloc: out_of_memory: CUDA
        # error at: .../rmm/mr/device/cuda_memory_resource.hpp'
        r"|bad_alloc: out_of_memory",
    ),
    ("CONTAINER_OOM", r"oom[-_ ]?kill|oomkilled|memory limit|exceeded (?:its )?mem"),
    ("DISK_FULL", r"no space left|disk quota|\benospc\b|not enough disk space"),
    ("SHM_TOO_SMALL", r"/dev/shm|shared memory|\bshm\b"),
    ("MEMLOCK", r"memlock|locked memory"),
    ("EFA_ERROR", r"\befa\b|libfabric|\bofi\b|\bfi_[a-z]+"),
    # NCCL's verbs wrapper and IB transport name their source file on every WARN, and their
    # functions (ncclIb...) in the code that borrows them (UCCL); a completion queue entry
    # (CQE) is verbs' own word for a failed work request.
    (
        "IB_ERROR",
        r"\bibv_|\bmlx[45]|infiniband|\bverbs\b|\bqp\b|qp_num|\bcqe\b|\broce\b|ib_?roce|\bhca\b"
        r"|\brdma\b|ncclib|\bnet/ib\b|ibvwrap\.cc|net_ib\.cc",
    ),
    # A pod's image or scheduling names what failed more closely than the connection that
    # failed while pulling it.
    (
        "POD_PENDING_RESOURCES",
        r"unschedulable|insufficient nvidia\.com/gpu|failedscheduling|enough resources",
    ),
    (
        "POD_IMAGE_PULL",
        r"pull(?:ing)? image|imagepull|errimagepull|manifest unknown|sandbox image",
    ),
    (
        "MASTER_ADDR_DNS",
        r"\bresolve|unknown host|name or service not known|getaddrinfo|name resolution",
    ),
    ("RENDEZVOUS_FAILURE", r"rendezvous|\brdzv\b|tcpstore|\betcd\b|address already in use"),
    (
        "NET_UNREACHABLE",
        r"no route to host|network is unreachable|connection refused|connection timed out",
    ),
    ("PEER_EXITED", r"connection reset|broken pipe|closed by (?:remote )?peer"),
    # 'preempt' as a word: a kernel's build string says 'SMP PREEMPT_DYNAMIC'
    (
        "EXTERNAL_SIGNAL",
        r"\bpreempt(?:ed|ion|ing|ible)?\b|walltime|\btime limit|\bsigterm\b|\bevict",
    ),
    ("RANK_CRASH", r"segmentation fault|\bsigsegv\b|core dumped|\bsignal 11\b|\bsigbus\b"),
    (
        "CUDA_ERROR",
        r"\bcuda|\bcudnn|\bcublas|\bhip\b|\bcuresult|\bcumem|illegal memory access"
        # HIP's runtime calls, named as CUDA's are (hipIpcGetMemHandle, hipMalloc, ...)
        r"|\bhip(?:Ipc|Malloc|Memcpy|Memset|Stream|Event|Device|SetDevice|GetDevice|Launch"
        r"|Module|Ctx|Init|Free|Graph|Host)"
        r"|device-side assert",
    ),
)
_COMPILED = tuple((code, re.compile(words, re.IGNORECASE)) for code, words in _TOPICS)
TOPIC_CODES = tuple(code for code, _ in _TOPICS)

# Lines at an informational or warning level: their failure words describe a retry, a
# fallback or a probe that the program itself does not count as a failure (NCCL's INFO
# lines, glog/klog's I and W levels and loggers' one-letter '[I]' / '[W]' (TensorRT-LLM's),
# Python's warnings, the INFO/WARN level of a logger,
# libfabric's <warn> and lower); and comment lines ('#': scripts, nccl-tests' headers).
_INFORMATIONAL = re.compile(
    r"\bNCCL INFO\b|\[[0-9]+\] INFO |^[ \t>`]*(?:\[[^\]]*\]:?)?[ \t]*\[?[IW](?:[0-9]{8}|[0-9]{3,4}) |\[[IW] |\[[IWDVT]\] |[Ww]arning: |WARNING|"
    r"\[(?:INFO|WARN|WARNING|DEBUG)\]|\blevel=(?:info|warn|warning|debug|INFO|WARN|DEBUG)\b|"
    r'"level": ?"(?:info|warn|warning|debug|INFO|WARN|WARNING|DEBUG)"|'
    r" - (?:INFO|WARNING|DEBUG) - |\| (?:INFO|WARNING|DEBUG|SUCCESS) +\||<(?:warn|info|debug|trace)> |"
    # TensorFlow's C++ log line (core/platform/default/logging.cc): '<date> <time>: W file:N] '
    r"[0-9]:[0-9]{2}\.[0-9]+: [IW] [^ ]+:[0-9]+\] |"
    r"^[ \t>`]*#"
)


# Failing to release something (a QP destroyed, memory deregistered, a socket closed) is what
# teardown prints after a job's real failure or its end; it names no cause.
_RELEASE = re.compile(
    r"\b(?:destroy|de-?register|dealloc|free\b|close\b|release|unmap|clean ?up|shut ?down|finali[sz])",
    re.IGNORECASE,
)


# A sentence of a person's own words (a paste's surrounding prose: "It runs, but an error
# occurred with cuda-gdb."): words of a sentence and its punctuation, none of the brackets,
# paths or '=' a program's report carries (links aside).
_PROSE = re.compile(r"^[ \t>`*_]*[A-Za-z][A-Za-z0-9 ,.:;!?'\"()\u2018\u2019\u201c\u201d-]*$")
# A link names a page, not what failed (a source line of shm.cc quoted in a question).
_URL = re.compile(r"https?://[^ \t]+")
# A source location ('external/xla/xla/service/rendezvous.cc:38') says where a line was
# printed, not what failed: its file's name is no failure word.
_SOURCE_LOCATION = re.compile(r"[A-Za-z0-9_./-]+\.(?:cc|cpp|cu|cuh|c|h|hpp|py):[0-9]+")
PROSE_WORDS = 5
# Words of a sentence that a program's report seldom holds.
_SENTENCE = re.compile(
    r"\b(?:the|an|it|is|was|when|but|and|with|we|my|this|that|i|you|can|if|so)\b", re.IGNORECASE
)


# ENOSPC from a write into a cgroup file is no full disk (the catalog's cgroup-write-no-space
# says why); in other programs' failure lines too.
_CGROUP_ENOSPC = re.compile(r"(/sys/fs/cgroup/\S*.*?)no space left on device", re.IGNORECASE)


def failure_topic(text: str) -> str | None:
    """The code a failure line's words point at, or None."""
    text = _SOURCE_LOCATION.sub(" ", _URL.sub(" ", text))
    text = _CGROUP_ENOSPC.sub(r"\1(cgroup has no cpus or mems)", text)
    for code, words in _COMPILED:
        if words.search(text):
            return code
    return None


def source_location_only(text: str) -> bool:
    """The text names only where it was printed ('... [gloo/transport/tcp/unbound_buffer.cc:78]'):
    a C++ error raised into Python whose words follow on the next line."""
    return _SOURCE_LOCATION.search(text) is not None and not _SOURCE_LOCATION.sub("", text).strip(
        " .[]\t\r"
    )


def informational(text: str) -> bool:
    """The line is at an informational or warning level (or a comment), whatever words it
    holds, or it reports a failure to release something."""
    return _INFORMATIONAL.search(text) is not None or _RELEASE.search(text) is not None


def prose(text: str) -> bool:
    """The line reads as a person's sentence rather than a program's report."""
    text = _URL.sub(" ", text)
    return (
        _PROSE.match(text.rstrip()) is not None
        and len(text.split()) >= PROSE_WORDS
        and len(_SENTENCE.findall(text)) >= 2
    )
