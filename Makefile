# optsched: set-up and entry points. Every target builds .venv from the pinned lock on first use.
SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
SHARED_DATA := $(abspath ../shared/data)
# The real data sets live outside the repository; point at them when they are there.
ifeq ($(origin OPTSCHED_DATA_DIR), undefined)
ifneq ($(wildcard $(SHARED_DATA)),)
export OPTSCHED_DATA_DIR := $(SHARED_DATA)
endif
endif
export PYTHONHASHSEED := 0
QUICK ?=
JOBS ?= 2
PYTEST_ARGS ?=
# PyTorch's CPU build (2.13.0+cpu) is not on PyPI; this machine keeps its wheel in /opt/wheels.
WHEELS ?= /opt/wheels
FIND_LINKS := $(if $(wildcard $(WHEELS)),--find-links $(WHEELS),)

.PHONY: venv test bench repro instances models lock clean help

help:
	@echo "make test      run the test suite and the docstring examples (creates .venv)"
	@echo "make repro     regenerate paper_repro/results (QUICK=1 for the reduced run)"
	@echo "make bench     run the benchmarks, heavy cases and every property test with fresh seeds"
	@echo "make instances regenerate instances/ and their reference values"
	@echo "make models    regenerate the analytic DNN profiles in models/"
	@echo "make lock      re-resolve requirements.lock (needs network and uv)"

venv: $(STAMP)

$(STAMP): requirements.lock pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --require-hashes --no-deps $(FIND_LINKS) -r requirements.lock
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	@touch $(STAMP)

test: $(STAMP)
	$(PY) -m pytest -q -m "not slow" $(PYTEST_ARGS)

bench: $(STAMP)
	HYPOTHESIS_PROFILE=bench $(PY) -m pytest -q -m "slow or hypothesis" --benchmark-columns=min,mean,max,rounds $(PYTEST_ARGS) tests benchmarks

repro: $(STAMP)
	$(VENV)/bin/optsched repro $(if $(QUICK),--quick,) --jobs $(JOBS)

instances: $(STAMP)
	$(PY) -m optsched.instances_build

models: $(STAMP)
	$(VENV)/bin/optsched models --out models

lock:
	uv pip compile pyproject.toml --extra test --extra bench --extra learn --extra solvers --python-version 3.11 --generate-hashes $(FIND_LINKS) -c constraints.txt -o requirements.lock

clean:
	rm -rf $(VENV) build *.egg-info
