# `make run` and `make test` set themselves up from nothing: a local .venv with ksandbox
# installed editable plus its test extras.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint bench wheel-check clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/ksandbox

# The suite on TEST_WORKERS processes (pytest-xdist; 2 is this project's machine's cores): about
# half the time of one process. The `serial` tests (the real-terminal stress test, whose probe
# tells a frozen app from a slow one by its CPU time) run first, on their own.
TEST_WORKERS ?= 2
test: $(STAMP)
	$(BIN)/python -m pytest -m serial
	$(BIN)/python -m pytest -n $(TEST_WORKERS) -m "not serial"

# ruff (lint and import order) and mypy over ksandbox/; settings in pyproject.toml.
# `$(BIN)/ruff check --fix ksandbox` sorts imports and fixes what it safely can.
lint: $(STAMP)
	$(BIN)/ruff check ksandbox
	$(BIN)/mypy

# Build the wheel, install it in a fresh environment and run `ksandbox sim` from it.
wheel-check: $(STAMP)
	$(BIN)/python -m pytest tests/test_packaging.py

bench: $(STAMP)
	$(BIN)/python bench/scheduler.py
	$(BIN)/python bench/simulation.py

clean:
	rm -rf $(VENV) build dist
