# Two commands matter (see README):
#   make demo   set up, then run the main job on a bundled example
#   make test   set up, start the test services, then lint, type-check and run every test
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: setup demo test lint typecheck unit services bench quickref

setup:
	@PYTHON=$(PY) scripts/bootstrap.sh

# The main job, diagnose, replayed from a saved bundle of an EKS cluster where one rank was
# OOM-killed (no AWS access needed); then the log doctor on the same story's raw logs.
demo: setup
	$(BIN)/hyperpod-nccl diagnose --bundle examples/bundles/oom-one-rank
	@echo
	$(BIN)/hyperpod-nccl logs examples/logs/oom-one-rank/

services:
	@scripts/services-up.sh

lint: setup
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks

typecheck: setup
	$(BIN)/mypy

unit: setup
	$(BIN)/pytest -q

test: setup services lint typecheck unit

bench: setup
	$(BIN)/python benchmarks/logs_throughput.py
	$(BIN)/python benchmarks/corpus_accuracy.py
	$(BIN)/python benchmarks/probe_scale.py --nodes 1000

# Regenerate the guide's error-pattern quick reference after changing rules/catalog.yaml.
quickref: setup
	$(BIN)/python -m hyperpod_nccl.kb.quickref > src/hyperpod_nccl/kb/quick-reference.md
