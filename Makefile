# Two commands matter (see README):
#   make demo   set up, then run the main job on a bundled example
#   make test   set up, start the test services, then lint, type-check and run every test
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: setup demo test lint typecheck unit services bench

setup:
	@PYTHON=$(PY) scripts/bootstrap.sh

demo: setup
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
