"""On-node probes: a fixed catalog of read-only commands (`catalog`), the batch script that runs
them in one session per node (`batch`), and a parser per probe (`parsers`). Nothing here does
I/O; the transports in `hyperpod_nccl.collect.transports` run the batch and the checks in
`hyperpod_nccl.checks.node_*` read the parsed results."""
