# Two commands matter (see README):
#   make demo   set up, then run the main job on a bundled example
#   make test   set up, start the test services, then lint, type-check and run every test
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: setup runtime demo test lint typecheck unit services bench quickref examples examples-check

# The development set: runtime dependencies, test tools, the MCP SDK, `build`.
setup:
	@PYTHON=$(PY) scripts/bootstrap.sh dev

# What `pip install .` brings, no more (the demo needs nothing else).
runtime:
	@PYTHON=$(PY) scripts/bootstrap.sh runtime

# The main job, diagnose, replayed from a saved bundle of an EKS cluster where one rank was
# OOM-killed (no AWS access needed); then the log doctor on the same story's raw logs. Both
# are shipped in the package (src/hyperpod_nccl/examples/), so the same lines work anywhere.
demo: runtime
	$(BIN)/hyperpod-nccl diagnose --example oom-one-rank
	@echo
	$(BIN)/hyperpod-nccl logs --example oom-one-rank

services:
	@scripts/services-up.sh

lint: setup
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/lint-imports

typecheck: setup
	$(BIN)/mypy

unit: setup
	$(BIN)/pytest -q

test: setup services lint typecheck unit

bench: setup
	$(BIN)/python benchmarks/logs_throughput.py
	$(BIN)/python benchmarks/corpus_accuracy.py
	$(BIN)/python benchmarks/probe_scale.py --nodes 1000
	$(BIN)/python benchmarks/bundle_throughput.py
	$(BIN)/python benchmarks/perf_throughput.py
	$(BIN)/python benchmarks/slurm_ssm_sessions.py

# Regenerate the guide's error-pattern quick reference after changing rules/catalog.yaml.
quickref: setup
	$(BIN)/python -m hyperpod_nccl.rules.quickref > src/hyperpod_nccl/kb/quick-reference.md

# Rebuild the example bundles shipped in the package (scripts/build_example_bundles.py: one
# fixed clock, seeded ids, a fixed API name), then check that a second build gives the same
# bytes. examples-check alone builds into a temporary folder and compares with what is
# committed: it fails when the examples are stale or a rebuild is not byte-identical.
examples: setup
	$(BIN)/python scripts/build_example_bundles.py
	@$(MAKE) --no-print-directory examples-check

examples-check: setup
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	$(BIN)/python scripts/build_example_bundles.py --out "$$tmp" >/dev/null && \
	diff -r "$$tmp" src/hyperpod_nccl/examples/bundles && echo "examples: a fresh build is byte-identical to the committed bundles"
